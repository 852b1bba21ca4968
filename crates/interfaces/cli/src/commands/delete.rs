//! `lightrag delete DOC_ID...`

use lightrag_config::Settings;
use lightrag_engine::delete::DeleteOptions;

use crate::cli::DeleteArgs;

pub async fn run(settings: &Settings, args: DeleteArgs) -> anyhow::Result<()> {
    let engine = super::open(settings).await?;
    let mut reports = Vec::new();
    for id in &args.doc_ids {
        let options = DeleteOptions { delete_llm_cache: args.delete_llm_cache };
        let report = engine.delete_document_with(id, options).await?;
        if !args.json {
            outln!(
                "deleted {} ({}): {} chunks; entities {} deleted, {} rebuilt; relations {} deleted, {} rebuilt{}",
                report.doc_id,
                report.file_path,
                report.chunks_deleted,
                report.entities_deleted.len(),
                report.entities_rebuilt.len(),
                report.relations_deleted.len(),
                report.relations_rebuilt.len(),
                if args.delete_llm_cache {
                    format!("; {} cache entries removed", report.cache_entries_deleted)
                } else {
                    String::new()
                }
            );
        }
        reports.push(report);
    }
    engine.flush_usage().await?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&reports)?);
    }
    Ok(())
}
