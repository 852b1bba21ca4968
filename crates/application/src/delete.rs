//! Delete many documents: `DELETE /documents/delete_document`, the MCP `delete_documents` tool
//! (stdio and HTTP) and `lightrag delete ID…` — one use case with one report.
//!
//! The ids are checked first ([`check_ids`]: at least one, none blank, none twice). Then the
//! documents are deleted **continuing on error**: a document that cannot be deleted (an unknown
//! id, one being processed by another process, a store failure) is listed in
//! [`DeleteReport::failed`] with why, and the others are deleted all the same — the same request
//! sent again deletes what is left. Cancellation (the server's `cancel_pipeline`, Ctrl-C) stops
//! between documents; what was deleted stays deleted ([`DeleteReport::cancelled`]).
//!
//! Each front end maps the report mechanically: REST logs it in `pipeline_status` (the deletion
//! runs in the background), MCP answers it (a tool error when nothing could be deleted), the CLI
//! prints it and exits with an error when a document failed.

use std::collections::HashSet;

use lightrag_engine::delete::{DeleteOptions, DeletionReport};
use lightrag_engine::{Engine, EngineError};
use serde::Serialize;
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

/// Follows a deletion (the server's `pipeline_status`).
pub trait DeleteProgress: Send + Sync {
    /// The document at `index` (from 0) of `total` was deleted.
    fn deleted(&self, index: usize, total: usize, report: &DeletionReport);
    /// The document `doc_id` could not be deleted; the deletion goes on with the others.
    fn failed(&self, doc_id: &str, error: &EngineError);
}

/// Follows nothing.
pub struct NoDeleteProgress;

impl DeleteProgress for NoDeleteProgress {
    fn deleted(&self, _index: usize, _total: usize, _report: &DeletionReport) {}
    fn failed(&self, _doc_id: &str, _error: &EngineError) {}
}

/// A document that could not be deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeleteFailure {
    /// Its id.
    pub doc_id: String,
    /// Why, and what to do.
    pub error: String,
}

/// What a deletion did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeleteReport {
    /// The documents deleted, each with what its deletion removed and rebuilt.
    pub deleted: Vec<DeletionReport>,
    /// The documents that could not be deleted.
    pub failed: Vec<DeleteFailure>,
    /// Whether it was cancelled before every document was tried.
    pub cancelled: bool,
}

impl DeleteReport {
    /// One line saying what happened: how many were deleted, and why the others were not.
    pub fn summary(&self, total: usize) -> String {
        let mut line = format!("{} of {total} documents deleted", self.deleted.len());
        if self.cancelled {
            line.push_str("; cancelled before the others");
        }
        for f in &self.failed {
            line.push_str(&format!("; {}: {}", f.doc_id, f.error));
        }
        line
    }
}

/// Deletes the documents `ids` (checked by [`check_ids`]) with what only they contributed to the
/// graph, rebuilding what they shared; continues on error, stops between documents when `cancel`
/// fires.
pub async fn delete_many(
    engine: &Engine,
    ids: &[String],
    options: DeleteOptions,
    progress: &dyn DeleteProgress,
    cancel: &CancellationToken,
) -> DeleteReport {
    let mut report = DeleteReport::default();
    for (index, id) in ids.iter().enumerate() {
        if cancel.is_cancelled() {
            report.cancelled = true;
            break;
        }
        match delete_one(engine, id, options).await {
            Ok(deleted) => {
                progress.deleted(index, ids.len(), &deleted);
                report.deleted.push(deleted);
            }
            Err(e) => {
                progress.failed(id, &e);
                report.failed.push(DeleteFailure { doc_id: id.clone(), error: e.to_string() });
            }
        }
    }
    report
}

/// The engine's deletion of one document: the one call that becomes the engine's one-pass
/// deletion of many (`Engine::delete_documents`) when it lands.
async fn delete_one(engine: &Engine, id: &str, options: DeleteOptions) -> Result<DeletionReport, EngineError> {
    engine.delete_document_with(id, options).await
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
