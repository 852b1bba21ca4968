//! Admin routes (ours, beyond LightRAG).
//!
//! * `POST /admin/import-lightrag {path, workspace?, check?}` — imports a Python LightRAG working
//!   directory from the server's disk into the request's workspace ([`lightrag_import`]), as a
//!   job of the workspace's pipeline (progress in `GET /documents/pipeline_status`, cancelled by
//!   `POST /documents/cancel_pipeline`, resumed by sending the same request again). `check: true`
//!   answers at once with the dry-run report.
//!
//! An API caller names a folder on the server, so the route reads only below
//! `IMPORT_ALLOWED_DIRS` (default: `WORKING_DIR`): the path is normalised (`..` resolved, symlinks
//! followed) before the check, and a path outside gets 403 whether or not it exists. Only the
//! twelve LightRAG file names are ever opened in the folder.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use lightrag_import::{ImportError, ImportEvent, ImportOptions, ImportProgress};
use serde_json::{Value, json};

use crate::errors::{ApiError, ApiJson};
use crate::pipeline::PipelineState;
use crate::schemas::admin::{ImportCheckResponse, ImportRequest, ImportStartedResponse};
use crate::schemas::{ErrorResponse, ValidationErrorResponse};
use crate::state::AppState;
use crate::workspace::Ws;

/// Name of the import job in `pipeline_status`.
pub const IMPORT_JOB: &str = "Importing LightRAG data";

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/admin/import-lightrag", post(import_lightrag))
}

/// Import a LightRAG working directory
///
/// Reads a Python LightRAG working directory on the server (its default JSON, NanoVectorDB and
/// GraphML storages) and brings its documents, chunks, graph, vectors and LLM cache into the
/// workspace of this request, in the background (`GET /documents/pipeline_status` shows the
/// progress). The workspace must be empty or hold only documents of an earlier run of the same
/// import, which is then continued. With `check: true` nothing is written and the report of what
/// would be imported and lost is returned at once. `path` must lie below `IMPORT_ALLOWED_DIRS`
/// (default: `WORKING_DIR`). See docs/lightrag-import.md.
#[utoipa::path(post, path = "/admin/import-lightrag", tag = "admin", request_body = ImportRequest, responses(
    (status = 200, description = "`import_started` or `busy`; with `check: true`, `{\"status\": \"checked\", \"report\": {…}}` (schema ImportCheckResponse)", body = ImportStartedResponse),
    (status = 400, description = "No LightRAG files there, no such LightRAG workspace, or the target is not empty", body = ErrorResponse),
    (status = 403, description = "The path is outside IMPORT_ALLOWED_DIRS", body = ErrorResponse),
    (status = 422, description = "Malformed request", body = ValidationErrorResponse),
))]
async fn import_lightrag(
    State(state): State<AppState>,
    Ws(ws): Ws,
    ApiJson(req): ApiJson<ImportRequest>,
) -> Result<Json<Value>, ApiError> {
    let settings = state.settings();
    let dir = allowed_path(&req.path, &settings.working_dir, &settings.server.import_allowed_dirs)?;
    if let Some(name) = &req.workspace
        && (name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        return Err(ApiError::invalid(&["body", "workspace"], "a LightRAG workspace name: letters, digits and _"));
    }
    let options =
        ImportOptions { dir: dir.clone(), from_workspace: req.workspace.clone(), target_workspace: ws.name.clone() };
    let source = lightrag_import::source::locate(&dir, options.from_workspace.as_deref(), &options.target_workspace)
        .map_err(import_error)?;
    if req.check {
        let report = lightrag_import::check(&ws.engine, &options).await.map_err(import_error)?;
        let report = serde_json::to_value(&report).map_err(|e| ApiError::Internal(e.to_string()))?;
        return Ok(Json(json!(ImportCheckResponse { status: "checked".into(), report })));
    }
    let source_label = source.path.display().to_string();
    let Ok(job) = ws.pipeline.begin_exclusive(IMPORT_JOB, ws.runner()) else {
        return Ok(Json(json!(ImportStartedResponse {
            status: "busy".into(),
            message: "Cannot import while the pipeline is busy; retry when it is idle".into(),
            source: source_label,
        })));
    };
    let work = ws.clone();
    ws.runner().tracker.spawn(async move {
        let sink = StatusSink(work.pipeline.clone());
        let outcome = lightrag_import::import(&work.engine, &options, &sink, job.token()).await;
        if let Err(e) = work.engine.flush_usage().await {
            tracing::warn!("could not record the import's embedding usage: {e}");
        }
        match outcome {
            Ok(report) => {
                for line in &report.lost {
                    work.pipeline.lock().log(format!("Not imported or not reused: {line}"));
                }
                let d = &report.documents;
                let summary = format!(
                    "Import {}: {} documents imported, {} already present, {} vectors embedded{}",
                    if report.complete { "finished" } else { "stopped (send the same request to continue)" },
                    d.imported,
                    d.already_present,
                    report.vectors_embedded,
                    if report.unrecoverable.is_empty() {
                        String::new()
                    } else {
                        format!("; {} documents with unrecoverable extractions", report.unrecoverable.len())
                    }
                );
                job.finish(summary);
                if report.complete && d.pending + d.interrupted > 0 {
                    // LightRAG's unfinished documents were imported as pending: index them now
                    work.kick(false);
                }
            }
            Err(e) => job.finish(format!("Import failed: {e}")),
        }
    });
    Ok(Json(json!(ImportStartedResponse {
        status: "import_started".into(),
        message: "Importing in the background; follow GET /documents/pipeline_status".into(),
        source: source_label,
    })))
}

fn import_error(e: ImportError) -> ApiError {
    match e {
        ImportError::Engine(_) | ImportError::Store(_) => ApiError::Internal(e.to_string()),
        other => ApiError::BadRequest(other.to_string()),
    }
}

/// Writes import progress into the workspace's `pipeline_status`.
struct StatusSink(Arc<PipelineState>);

impl ImportProgress for StatusSink {
    fn event(&self, event: &ImportEvent) {
        let mut status = self.0.lock();
        match event {
            ImportEvent::Loaded { documents, entities, relations, cache_entries } => {
                status.docs = *documents;
                status.log(format!(
                    "Read the LightRAG data: {documents} documents, {entities} entities, {relations} relations, \
                     {cache_entries} cached LLM answers"
                ));
            }
            ImportEvent::Vectors { reason, .. } => status.log(format!("Vectors: {reason}")),
            ImportEvent::Document { index, total, doc_id, file_path, skipped } => {
                status.cur_batch = *index;
                let what = if *skipped { "already present" } else { "imported" };
                status.log(format!("Document {index}/{total} {what}: {doc_id} ({file_path})"));
            }
            ImportEvent::Graph { done, total } => {
                status.log(format!("Graph records no document links to: {done}/{total}"))
            }
            ImportEvent::Cache { done, total } => status.log(format!("Cached LLM answers: {done}/{total}")),
        }
    }
}

/// `requested` (relative paths are relative to `working_dir`) when it lies below one of
/// `allowed`; 403 otherwise — decided on the normalised path first, so a caller cannot learn
/// whether a path outside exists, then again on the real path (symlinks followed).
pub fn allowed_path(requested: &str, working_dir: &Path, allowed: &[PathBuf]) -> Result<PathBuf, ApiError> {
    let requested = requested.trim();
    if requested.is_empty() {
        return Err(ApiError::invalid(&["body", "path"], "path must name a folder"));
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let absolute = |p: &Path| if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) };
    let wanted = absolute(&working_dir.join(requested));
    let bases: Vec<(PathBuf, Option<PathBuf>)> =
        allowed.iter().map(|b| (normalise(&absolute(b)), std::fs::canonicalize(absolute(b)).ok())).collect();
    let refused = || {
        ApiError::Forbidden(
            "this folder is outside the folders the server allows imports from; set IMPORT_ALLOWED_DIRS on the \
             server (default: WORKING_DIR)"
                .into(),
        )
    };
    let lexical = normalise(&wanted);
    if !bases.iter().any(|(base, _)| lexical.starts_with(base)) {
        return Err(refused());
    }
    let real = std::fs::canonicalize(&wanted)
        .map_err(|e| ApiError::BadRequest(format!("cannot read {}: {e}", lexical.display())))?;
    if !bases.iter().any(|(_, canonical)| canonical.as_ref().is_some_and(|c| real.starts_with(c))) {
        return Err(refused());
    }
    if !real.is_dir() {
        return Err(ApiError::BadRequest(format!("{} is not a folder", lexical.display())));
    }
    Ok(real)
}

/// `path` with `.` and `..` resolved without reading the disk.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn only_folders_below_the_allowed_ones_pass() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        let inside = work.join("lightrag");
        let outside = root.path().join("secret");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let allowed = [work.clone()];
        assert_eq!(allowed_path("lightrag", &work, &allowed).unwrap(), inside.canonicalize().unwrap());
        assert_eq!(allowed_path(inside.to_str().unwrap(), &work, &allowed).unwrap(), inside.canonicalize().unwrap());
        for bad in ["../secret", outside.to_str().unwrap(), "/etc", "lightrag/../../secret"] {
            assert!(matches!(allowed_path(bad, &work, &allowed), Err(ApiError::Forbidden(_))), "{bad}");
        }
        // a path outside that does not exist gets the same answer as one that does
        assert!(matches!(allowed_path("../nope", &work, &allowed), Err(ApiError::Forbidden(_))));
        assert!(matches!(allowed_path("missing", &work, &allowed), Err(ApiError::BadRequest(_))));
        assert!(matches!(allowed_path(" ", &work, &allowed), Err(ApiError::Validation(_))));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_allowed_folder_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        let outside = root.path().join("secret");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, work.join("link")).unwrap();
        assert!(matches!(allowed_path("link", &work, std::slice::from_ref(&work)), Err(ApiError::Forbidden(_))));
    }
}
