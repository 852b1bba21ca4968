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
//! followed) before the check, and a path outside gets 403 whether or not it exists. The folder
//! finally read — the workspace sub-folder (`workspace`, or the one named like the request's
//! workspace) joined and its links followed — is checked again, and so is each file read in it.
//! Only the twelve LightRAG file names are ever opened in the folder. Answers name paths relative
//! to the allowed folder, never the server's absolute ones.

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
    let allowed = Allowed::new(&settings.server.import_allowed_dirs);
    let dir = allowed.resolve(&req.path, &settings.working_dir)?;
    if let Some(name) = &req.workspace
        && (name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        return Err(ApiError::invalid(&["workspace"], "a LightRAG workspace name: letters, digits and _"));
    }
    let options = ImportOptions {
        dir,
        from_workspace: req.workspace.clone(),
        target_workspace: ws.name.clone(),
        allowed_dirs: settings.server.import_allowed_dirs.clone(),
    };
    // the folder finally read (workspace joined, links followed) is checked again
    let source = lightrag_import::resolve(&options).map_err(|e| allowed.import_error(e))?;
    if req.check {
        let mut report = lightrag_import::check(&ws.engine, &options).await.map_err(|e| allowed.import_error(e))?;
        report.source = allowed.show(Path::new(&report.source));
        let report = serde_json::to_value(&report).map_err(|e| ApiError::Internal(e.to_string()))?;
        return Ok(Json(json!(ImportCheckResponse { status: "checked".into(), report })));
    }
    let source_label = allowed.show(&source.path);
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
            Err(e) => job.finish(format!("Import failed: {}", allowed.import_error_text(e))),
        }
    });
    Ok(Json(json!(ImportStartedResponse {
        status: "import_started".into(),
        message: "Importing in the background; follow GET /documents/pipeline_status".into(),
        source: source_label,
    })))
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

/// The folders imports may read (`IMPORT_ALLOWED_DIRS`), as written (made absolute, `..`
/// resolved) and as resolved on disk.
#[derive(Clone)]
struct Allowed {
    bases: Vec<(PathBuf, Option<PathBuf>)>,
}

impl Allowed {
    fn new(allowed: &[PathBuf]) -> Allowed {
        let bases =
            allowed.iter().map(|b| (normalise(&absolute(b)), std::fs::canonicalize(absolute(b)).ok())).collect();
        Allowed { bases }
    }

    /// `requested` (relative paths are relative to `working_dir`), resolved, when it lies below
    /// an allowed folder; 403 otherwise — decided on the normalised path first, so a caller
    /// cannot learn whether a path outside exists, then again on the real path (symlinks
    /// followed).
    fn resolve(&self, requested: &str, working_dir: &Path) -> Result<PathBuf, ApiError> {
        let requested = requested.trim();
        if requested.is_empty() {
            return Err(ApiError::invalid(&["path"], "path must name a folder"));
        }
        let wanted = absolute(&working_dir.join(requested));
        let lexical = normalise(&wanted);
        if !self.bases.iter().any(|(base, _)| lexical.starts_with(base)) {
            return Err(refused());
        }
        let real = std::fs::canonicalize(&wanted)
            .map_err(|e| ApiError::BadRequest(format!("cannot read {}: {}", self.show(&lexical), io_reason(&e))))?;
        if !self.bases.iter().any(|(_, canonical)| canonical.as_ref().is_some_and(|c| real.starts_with(c))) {
            return Err(refused());
        }
        if !real.is_dir() {
            return Err(ApiError::BadRequest(format!("{} is not a folder", self.show(&lexical))));
        }
        Ok(real)
    }

    /// `path` relative to the allowed folder holding it (`.` for the folder itself); a path
    /// below none is shown by its last part only.
    fn show(&self, path: &Path) -> String {
        let relative = self
            .bases
            .iter()
            .flat_map(|(lexical, canonical)| std::iter::once(lexical).chain(canonical))
            .filter_map(|base| path.strip_prefix(base).ok())
            .min_by_key(|rest| rest.components().count());
        match relative {
            Some(rest) if rest.as_os_str().is_empty() => ".".to_string(),
            Some(rest) => rest.display().to_string(),
            None => path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| ".".into()),
        }
    }

    /// An import error's text with its paths shown relative to the allowed folder.
    fn import_error_text(&self, e: ImportError) -> String {
        e.map_paths(|p| PathBuf::from(self.show(p))).to_string()
    }

    /// The answer to an import error: 403 for a folder that links out of the allowed ones; the
    /// engine's and the store's failures by their one table (a store unavailable for now is 503
    /// with `Retry-After`, a full disk 507, a provider down 503 …); 400 for the rest.
    fn import_error(&self, e: ImportError) -> ApiError {
        match e {
            ImportError::OutsideAllowedDirs(_) => ApiError::Forbidden(self.import_error_text(e)),
            ImportError::Engine(engine) => engine.into(),
            ImportError::Store(store) => store.into(),
            other => ApiError::BadRequest(self.import_error_text(other)),
        }
    }
}

/// `p` made absolute against the current directory.
fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(p) }
}

/// An I/O error's reason without the path the OS message may carry.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.kind().to_string(),
    }
}

fn refused() -> ApiError {
    ApiError::Forbidden(
        "this folder is outside the folders the server allows imports from; set IMPORT_ALLOWED_DIRS on the server \
         (default: WORKING_DIR)"
            .into(),
    )
}

/// `requested` resolved when it lies below one of `allowed` (see [`Allowed::resolve`]).
pub fn allowed_path(requested: &str, working_dir: &Path, allowed: &[PathBuf]) -> Result<PathBuf, ApiError> {
    Allowed::new(allowed).resolve(requested, working_dir)
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
