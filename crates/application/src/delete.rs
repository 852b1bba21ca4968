//! Delete many documents: `DELETE /documents/delete_document`, the MCP `delete_documents` tool
//! (stdio and HTTP) and `lightrag delete ID…` — one use case with one report.
//!
//! The ids are checked first ([`check_ids`]: at least one, none blank, none twice). Then the
//! documents are deleted **in one pass** by the engine ([`Engine::delete_documents`]): every
//! entity and relation they touched is rebuilt once from the remaining extraction records, with
//! the summaries that rebuild needs asked once. An id of no stored document is reported in
//! [`BatchDeletionReport::not_found`] and a document being processed in
//! [`BatchDeletionReport::busy`]; the others are deleted all the same — the same request sent
//! again deletes what is left. Cancellation (the server's `cancel_pipeline`, Ctrl-C) stops before
//! the next pass commits; what was committed stays deleted ([`BatchDeletionReport::cancelled`]
//! lists the rest).
//!
//! Each front end maps the report mechanically: REST logs it in `pipeline_status` (the deletion
//! runs in the background), MCP answers it, the CLI prints it and exits with an error when a
//! document was busy or the deletion was cancelled.

use std::collections::HashSet;

use lightrag_engine::Engine;
pub use lightrag_engine::maintenance::delete::{
    BatchDeletionReport, DeleteOptions, DeletionProgress, NoDeletionProgress,
};
use tokio_util::sync::CancellationToken;

use crate::error::{AppError, Problem, Result};

/// The ids of a deletion request under `field`: trimmed, at least one, none blank, none twice.
pub fn check_ids(field: &str, ids: Vec<String>) -> Result<Vec<String>> {
    if ids.is_empty() {
        return Err(AppError::invalid(&[field], format!("{field} must not be empty")));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(ids.len());
    let mut problems = Vec::new();
    for id in ids {
        let id = id.trim().to_string();
        if id.is_empty() {
            problems.push(Problem::new(&[field], format!("{field} must not contain empty ids")));
        } else if !seen.insert(id.clone()) {
            problems.push(Problem::new(&[field], format!("{field} contains '{id}' twice")));
        } else {
            out.push(id);
        }
    }
    if !problems.is_empty() {
        return Err(AppError::Invalid(problems));
    }
    Ok(out)
}

/// Deletes the documents `ids` (checked by [`check_ids`]) with what only they contributed to the
/// graph, rebuilding what they shared once; `progress` follows the passes, `cancel` stops before
/// the next commit.
pub async fn delete_many(
    engine: &Engine,
    ids: &[String],
    options: DeleteOptions,
    progress: &dyn DeletionProgress,
    cancel: &CancellationToken,
) -> Result<BatchDeletionReport> {
    Ok(engine.delete_documents(ids, options, progress, cancel).await?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_trimmed_and_checked() {
        assert_eq!(check_ids("doc_ids", vec![" a ".into(), "b".into()]).unwrap(), ["a", "b"]);
        assert_eq!(check_ids("doc_ids", vec![]).unwrap_err().to_string(), "doc_ids must not be empty");
        let e = check_ids("doc_ids", vec!["a".into(), " ".into(), "a ".into()]).unwrap_err().to_string();
        assert_eq!(e, "doc_ids must not contain empty ids; doc_ids contains 'a' twice");
    }
}
