//! `lightrag delete DOC_ID...`: the delete-many use case ([`lightrag_application::delete`]): the
//! documents are deleted together, so what they share is rebuilt once.

use anyhow::bail;
use lightrag_application::delete;
use lightrag_config::Settings;
use lightrag_engine::maintenance::delete::{DeleteOptions, DeletionEvent};

use crate::cli::DeleteArgs;

/// A progress line on stderr for a deletion of several documents (one says nothing until done).
fn progress_line(event: &DeletionEvent) -> Option<String> {
    match event {
        DeletionEvent::Planned { documents, chunks, passes } if *documents > 1 => {
            Some(format!("deleting {documents} documents ({chunks} chunks) in {passes} pass(es)…"))
        }
        DeletionEvent::Skipped { doc_id, reason } => Some(format!("{doc_id}: {reason}; not deleted")),
        DeletionEvent::PassCommitted { pass, passes, deleted, documents } if *documents > 1 => {
            Some(format!("pass {pass}/{passes} committed: {deleted}/{documents} documents deleted"))
        }
        _ => None,
    }
}

pub async fn run(settings: &Settings, args: DeleteArgs) -> anyhow::Result<()> {
    let ids = delete::check_ids("doc_ids", args.doc_ids.clone())?;
    let engine = super::open(settings).await?;
    let cancel = super::ctrl_c_token_saying("stopping before the next commit");
    let options = DeleteOptions { delete_llm_cache: args.delete_llm_cache };
    let progress = |event: &DeletionEvent| {
        if let Some(line) = progress_line(event) {
            eprintln!("{line}");
        }
    };
    let report = delete::delete_many(&engine, &ids, options, &progress, &cancel).await?;
    engine.flush_usage().await?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for doc in &report.deleted {
            outln!("deleted {} ({}): {} chunks", doc.doc_id, doc.file_path, doc.chunks_deleted);
        }
        if !report.deleted.is_empty() {
            outln!(
                "entities {} deleted, {} rebuilt; relations {} deleted, {} rebuilt{}",
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
    }
    // an unknown id has nothing left to delete (said on stderr): the same command run again
    // after an interruption succeeds
    if !report.busy.is_empty() {
        bail!(
            "{} document(s) are being processed right now and were not deleted ({}); cancel or wait, then delete them",
            report.busy.len(),
            report.busy.join(", ")
        );
    }
    if !report.cancelled.is_empty() {
        bail!(
            "cancelled: {} document(s) were not deleted ({}); run the same command again to delete them",
            report.cancelled.len(),
            report.cancelled.join(", ")
        );
    }
    Ok(())
}
