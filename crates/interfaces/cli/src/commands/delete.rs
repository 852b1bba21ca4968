//! `lightrag delete DOC_ID...`: the delete-many use case ([`lightrag_application::delete`]). Every
//! document is tried; the ones that cannot be deleted are listed on stderr and the command fails.

use lightrag_application::delete::{self, NoDeleteProgress};
use lightrag_config::Settings;
use lightrag_engine::delete::DeleteOptions;

use crate::cli::DeleteArgs;

pub async fn run(settings: &Settings, args: DeleteArgs) -> anyhow::Result<()> {
    let ids = delete::check_ids("doc_ids", args.doc_ids.clone())?;
    let engine = super::open(settings).await?;
    let options = DeleteOptions { delete_llm_cache: args.delete_llm_cache };
    let cancel = super::ctrl_c_token();
    let report = delete::delete_many(&engine, &ids, options, &NoDeleteProgress, &cancel).await;
    engine.flush_usage().await?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report.deleted)?);
    } else {
        for r in &report.deleted {
            outln!(
                "deleted {} ({}): {} chunks; entities {} deleted, {} rebuilt; relations {} deleted, {} rebuilt{}",
                r.doc_id,
                r.file_path,
                r.chunks_deleted,
                r.entities_deleted.len(),
                r.entities_rebuilt.len(),
                r.relations_deleted.len(),
                r.relations_rebuilt.len(),
                if args.delete_llm_cache {
                    format!("; {} cache entries removed", r.cache_entries_deleted)
                } else {
                    String::new()
                }
            );
        }
    }
    for failure in &report.failed {
        eprintln!("not deleted {}: {}", failure.doc_id, failure.error);
    }
    if !report.failed.is_empty() || report.cancelled {
        anyhow::bail!("{}", report.summary(ids.len()));
    }
    Ok(())
}
