//! File routes (§1.4): `POST /documents/upload` (multipart field `file`) and `POST /documents/scan`
//! (index new files of the input folder), plus the input-folder helpers used by deletion and
//! clearing. The text of PDF, Office, OpenDocument, RTF, EPUB, HTML and plain-text files is
//! extracted by the application crate ([`lightrag_application::read`]) on a blocking thread; the original file is kept in the
//! input folder.

use std::path::{Path, PathBuf};

use axum::extract::Multipart;
use axum::extract::multipart::MultipartError;
use axum::routing::post;
use axum::{Json, Router};
use lightrag_application::Origin;
use lightrag_application::insert::{self, InsertOptions};
use lightrag_engine::indexing::pipeline::{
    InsertDoc, MAX_FILE_NAME_BYTES, MAX_METADATA_BYTES, check_file_source, document_id,
};
use lightrag_engine::time::track_id;
use lightrag_ports::{Admission, DocStatus};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::errors::ApiError;
use crate::pipeline::ResetOnAbort;
use crate::routes::documents::{admit, document_metadata, enqueue_admitted};
use crate::state::{AppState, MAX_CONCURRENT_UPLOADS};
use crate::workspace::{Workspace, Ws};

/// Folder (inside the input folder) where scanned files already indexed are moved.
pub const PARSED_DIR: &str = "__parsed__";

/// `POST /documents/upload` (`MAX_UPLOAD_SIZE`, its own idle timeout rather than `TIMEOUT`).
pub fn router() -> Router<AppState> {
    Router::new().route("/documents/upload", post(upload))
}

/// `POST /documents/scan` (no body).
pub fn scan_router() -> Router<AppState> {
    Router::new().route("/documents/scan", post(scan))
}

/// The last path component of a client-given file name, without control or reserved characters
/// and leading dots; `None` when nothing usable is left or it is longer than a name may be
/// ([`MAX_FILE_NAME_BYTES`]).
pub fn sanitize_filename(raw: &str) -> Option<String> {
    let unified = raw.replace('\\', "/");
    let last = unified.rsplit('/').next().unwrap_or_default();
    let cleaned: String = last.chars().filter(|c| !c.is_control() && !"<>:\"|?*".contains(*c)).collect();
    let cleaned = cleaned.trim().trim_start_matches('.').trim();
    (!cleaned.is_empty() && cleaned.len() <= MAX_FILE_NAME_BYTES).then(|| cleaned.to_string())
}

/// The client's file name as a name to store: over the name limit every insert path shares
/// ([`check_file_source`]) or with nothing usable left, a 400 saying why.
fn upload_name(raw: &str) -> Result<String, ApiError> {
    check_file_source("the file name", &raw.replace('\\', "/")).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    sanitize_filename(raw).ok_or_else(|| ApiError::BadRequest(format!("'{raw}' is not a usable file name")))
}

/// Whether files with this name's extension can be indexed (see
/// [`lightrag_application::read::SUPPORTED_EXTENSIONS`]).
pub fn is_supported(name: &str) -> bool {
    lightrag_application::read::is_supported(name)
}

fn multipart_error(e: MultipartError) -> ApiError {
    if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::TooLarge("file too large; the limit is MAX_UPLOAD_SIZE".into())
    } else {
        ApiError::BadRequest(format!("malformed multipart upload: {}", e.body_text()))
    }
}

/// Uploads one file (PDF, DOCX, PPTX, XLSX, HTML, text …) to INPUT_DIR and indexes it in the background.
#[utoipa::path(post, path = "/documents/upload", tag = "documents",
    request_body(content = crate::schemas::UploadForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "Saved to INPUT_DIR and enqueued", body = crate::schemas::InsertResponse),
        (status = 400, description = "Unsupported file type, a file name over 255 bytes, unreadable file or malformed upload", body = crate::schemas::ErrorResponse),
        (status = 408, description = "The client sent no data for 30 s", body = crate::schemas::ErrorResponse),
        (status = 409, description = "The name exists with this content, an earlier version of it waits to be indexed or is being indexed, or a scan/deletion/clearing job runs", body = crate::schemas::ErrorResponse),
        (status = 413, description = "Larger than MAX_UPLOAD_SIZE", body = crate::schemas::ErrorResponse),
        (status = 503, description = "16 uploads are being received; see Retry-After", body = crate::schemas::ErrorResponse),
    ))]
pub(crate) async fn upload(Ws(ws): Ws, mut multipart: Multipart) -> Result<Json<Value>, ApiError> {
    let max = ws.settings.server.max_upload_size.unwrap_or(u64::MAX);
    let mut metadata = serde_json::Map::new();
    while let Some(mut field) = next_field(&mut multipart).await? {
        if field.name() == Some("metadata") {
            metadata = metadata_field(&mut field).await?;
            continue;
        }
        if field.name() != Some("file") {
            continue;
        }
        let raw_name = field.file_name().unwrap_or_default().to_string();
        let name = upload_name(&raw_name)?;
        ws.reader.check_type(&name, Origin::Upload)?;
        // a stored name: the upload is a new version, which replaces it when its content changed;
        // refused before the body is received when the store would refuse it (being indexed)
        let existing = insert::refuse_early(&ws.engine, &name, Admission::NewVersion).await?;
        let _receiving = ws.uploads.clone().try_acquire_owned().map_err(|_| {
            ApiError::Unavailable(format!("{MAX_CONCURRENT_UPLOADS} uploads are being received; try again shortly"), 5)
        })?;
        // The body goes to a staging file first, chunk by chunk (never whole in memory), and
        // the upload is admitted only once it is complete: a slow or stalled client holds no
        // slot that a scan, a clearing or a deletion waits for. Scans read only the input
        // folder's own files, never the staging folder.
        let staging_dir = ws.input_dir.join(STAGING_DIR);
        tokio::fs::create_dir_all(&staging_dir).await?;
        let staged_path = staging_dir.join(format!("{:016x}-{name}", rand::random::<u64>()));
        let mut file = tokio::fs::File::create(&staged_path).await?;
        let staged = PartialFile(Some(staged_path.clone()));
        let mut size: u64 = 0;
        let written = async {
            while let Some(chunk) = next_chunk(&mut field).await? {
                size += chunk.len() as u64;
                if size > max {
                    return Err(ApiError::TooLarge(format!(
                        "file too large: the limit is {max} bytes (MAX_UPLOAD_SIZE)"
                    )));
                }
                file.write_all(&chunk).await?;
            }
            file.flush().await?;
            Ok(())
        }
        .await;
        drop(file);
        written?;
        if existing.is_some() {
            return replace_upload(&ws, &name, &staged_path, staged, metadata).await;
        }

        // the store decides again as it enqueues (another request may have taken the name since)
        let admitted = admit(&ws)?;
        let path = ws.input_dir.join(&name);
        place(&staged_path, &path, &name).await?;
        staged.keep();
        // removed again unless the document is enqueued (errors, or the client going away)
        let saved = PartialFile(Some(path.clone()));
        let content = ws.reader.read_file(&path, &name, Origin::Upload).await?;
        let doc = insert::file_document(content, name.clone(), metadata, Default::default())?;
        let track = enqueue_admitted(&ws, vec![doc], "upload", admitted, Admission::NewVersion).await?;
        saved.keep();
        return Ok(Json(json!({
            "status": "success",
            "message": format!("File '{name}' uploaded successfully. Processing will continue in background."),
            "track_id": track,
        })));
    }
    Err(ApiError::invalid(&["file"], "Field required"))
}

/// The upload of a new version of the stored document `existing`, received into `staged_path`:
/// enqueued as its replacement, and the file in the input folder becomes the new version. The
/// store decides as it enqueues ([`Admission::NewVersion`]): the same content, or an earlier
/// version that waits to be indexed or is being indexed (a concurrent upload of the same name got
/// in first), is answered 409, so that every track id returned shows its document.
async fn replace_upload(
    ws: &Workspace,
    name: &str,
    staged_path: &Path,
    staged: PartialFile,
    metadata: serde_json::Map<String, Value>,
) -> Result<Json<Value>, ApiError> {
    let admitted = admit(ws)?;
    let content = ws.reader.read_file(staged_path, name, Origin::Upload).await?;
    let doc = insert::file_document(content, name.to_string(), metadata, Default::default())?;
    let track = enqueue_admitted(ws, vec![doc], "upload", admitted, Admission::NewVersion).await?;
    tokio::fs::rename(staged_path, ws.input_dir.join(name)).await?;
    staged.keep();
    Ok(Json(json!({
        "status": "success",
        "message": format!(
            "File '{name}' uploaded successfully: it replaces the earlier version (unchanged chunks are reused). \
             Processing will continue in background."
        ),
        "track_id": track,
    })))
}

/// The multipart text field `metadata` (sent before `file`): a JSON object of at most
/// [`MAX_METADATA_BYTES`] as JSON, read without holding more than that.
async fn metadata_field(
    field: &mut axum::extract::multipart::Field<'_>,
) -> Result<serde_json::Map<String, Value>, ApiError> {
    let mut raw = Vec::new();
    while let Some(chunk) = next_chunk(field).await? {
        raw.extend_from_slice(&chunk);
        if raw.len() > MAX_METADATA_BYTES {
            return Err(ApiError::TooLarge(format!(
                "the metadata field is over the limit of {MAX_METADATA_BYTES} bytes; keep only short keys and values"
            )));
        }
    }
    let value: Value = serde_json::from_slice(&raw).map_err(|e| {
        ApiError::BadRequest(format!("the metadata field must be a JSON object like {{\"team\": \"ops\"}} ({e})"))
    })?;
    document_metadata(Some(value), "the metadata field")
}

/// Folder inside the input folder where uploads are written until complete (scans skip folders).
pub const STAGING_DIR: &str = "__uploading__";

/// Longest pause between two parts of an upload's body; a client silent for longer gets 408 and
/// its partial file is removed.
pub const UPLOAD_IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

fn stalled() -> ApiError {
    ApiError::Timeout(format!(
        "the upload stalled: no data for {} s; send the file again",
        UPLOAD_IDLE_TIMEOUT.as_secs()
    ))
}

async fn next_field<'a>(multipart: &'a mut Multipart) -> Result<Option<axum::extract::multipart::Field<'a>>, ApiError> {
    match tokio::time::timeout(UPLOAD_IDLE_TIMEOUT, multipart.next_field()).await {
        Ok(field) => field.map_err(multipart_error),
        Err(_) => Err(stalled()),
    }
}

async fn next_chunk(field: &mut axum::extract::multipart::Field<'_>) -> Result<Option<axum::body::Bytes>, ApiError> {
    match tokio::time::timeout(UPLOAD_IDLE_TIMEOUT, field.chunk()).await {
        Ok(chunk) => chunk.map_err(multipart_error),
        Err(_) => Err(stalled()),
    }
}

/// Moves a complete upload from the staging folder to `path`, never replacing a file there.
async fn place(staged: &Path, path: &Path, name: &str) -> Result<(), ApiError> {
    let (from, to) = (staged.to_path_buf(), path.to_path_buf());
    let linked = tokio::task::spawn_blocking(move || {
        // a hard link fails when the name exists: no window in which another upload's file
        // could be replaced
        match std::fs::hard_link(&from, &to) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                // a file system without hard links: copy into a file that must not exist yet
                let mut target = std::fs::OpenOptions::new().write(true).create_new(true).open(&to)?;
                let copied = std::fs::File::open(&from).and_then(|mut source| std::io::copy(&mut source, &mut target));
                if let Err(e) = copied {
                    let _ = std::fs::remove_file(&to);
                    return Err(e);
                }
            }
            linked => linked?,
        }
        let _ = std::fs::remove_file(&from);
        Ok(())
    })
    .await
    .map_err(|e| ApiError::Internal(format!("placing the upload failed: {e}")))?;
    match linked {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(ApiError::Conflict(format!("File '{name}' already exists in the input directory")))
        }
        Err(e) => Err(e.into()),
    }
}

/// An uploaded file that is deleted on drop unless [`PartialFile::keep`] is called.
struct PartialFile(Option<std::path::PathBuf>);

impl PartialFile {
    fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            // a small synchronous unlink; the async request that owned the file is over
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Scans INPUT_DIR for new files and indexes them in the background.
#[utoipa::path(post, path = "/documents/scan", tag = "documents", responses(
    (status = 200, description = "Scan started, or skipped while the pipeline is busy", body = crate::schemas::ScanResponse),
))]
pub(crate) async fn scan(Ws(ws): Ws) -> Json<Value> {
    {
        let mut status = ws.pipeline.lock();
        if !status.is_idle() {
            return Json(json!({
                "status": "scanning_skipped_pipeline_busy",
                "message": "The pipeline is busy; scan again when it has finished",
                "track_id": "",
            }));
        }
        status.scanning = true;
    }
    let track = track_id("scan");
    let job = ws.clone();
    let job_track = track.clone();
    ws.runner().tracker.spawn(async move {
        let mut reset = ResetOnAbort::new(job.pipeline.clone(), |status| status.scanning = false);
        let (message, skipped) = match scan_folder(&job, &job_track).await {
            Ok(found) => (
                format!(
                    "Scan finished: {} new file(s) enqueued,{} {} already indexed, {} unreadable skipped",
                    found.enqueued,
                    match found.replaced {
                        0 => String::new(),
                        n => format!(" {n} changed file(s) enqueued as new versions,"),
                    },
                    found.archived,
                    found.skipped.len()
                ),
                found.skipped,
            ),
            Err(e) => (format!("Scan failed: {}", e.flat_message()), Vec::new()),
        };
        job.pipeline.lock().scanning = false;
        reset.disarm();
        // starting the processing job resets the history: log after it, so the messages stay
        job.kick(false);
        let mut status = job.pipeline.lock();
        status.log(message);
        for reason in skipped {
            status.log(format!("Skipped {reason}"));
        }
    });
    Json(json!({
        "status": "scanning_started",
        "message": "Scanning process has been initiated in the background",
        "track_id": track,
    }))
}

/// What a scan of the input folder found.
#[derive(Default)]
struct ScanFound {
    /// New files whose text was enqueued.
    enqueued: usize,
    /// Files already indexed, moved to [`PARSED_DIR`].
    archived: usize,
    /// Indexed files whose content changed, enqueued as new versions.
    replaced: usize,
    /// Why each unreadable file was skipped (`'name': reason`).
    skipped: Vec<String>,
}

/// Enqueues the text of the new supported files of the input folder (files whose text cannot be
/// extracted are skipped and reported); moves already processed ones to [`PARSED_DIR`].
async fn scan_folder(ws: &Workspace, track: &str) -> Result<ScanFound, ApiError> {
    let mut found = ScanFound::default();
    let mut entries = match tokio::fs::read_dir(&ws.input_dir).await {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(found),
        Err(e) => return Err(e.into()),
    };
    let mut docs = Vec::new();
    while let Some(entry) = entries.next_entry().await? {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.file_type().await?.is_file() || !is_supported(&name) {
            continue;
        }
        if let Err(too_long) = check_file_source("the file name", &name) {
            found.skipped.push(too_long.to_string());
            continue;
        }
        let probe = InsertDoc { file_source: Some(name.clone()), ..InsertDoc::default() };
        match ws.engine.document_status(&document_id(&probe)).await? {
            Some(r) if r.status == DocStatus::Processed => {
                // a new version of an indexed file replaces it; an unchanged one is archived
                match file_text(ws, &entry, &name).await {
                    Ok(text) if lightrag_engine::indexing::text::content_hash(&text) != r.content_hash => {
                        found.replaced += 1;
                        docs.push(InsertDoc { content: text, file_source: Some(name), ..InsertDoc::default() });
                    }
                    Ok(_) => {
                        match archive(&ws.input_dir, &entry.path(), &name, r.metadata.contains_key("revisions")).await {
                            Ok(()) => found.archived += 1,
                            Err(reason) => found.skipped.push(reason),
                        }
                    }
                    Err(reason) => found.skipped.push(reason),
                }
            }
            Some(_) => {}
            None => match file_text(ws, &entry, &name).await {
                Ok(text) => docs.push(InsertDoc { content: text, file_source: Some(name), ..InsertDoc::default() }),
                Err(reason) => found.skipped.push(reason),
            },
        }
    }
    found.enqueued = docs.len() - found.replaced;
    if !docs.is_empty() {
        // LightRAG's pipeline: a stored name with the same content is recorded as a duplicate
        let options = InsertOptions { track_id: Some(track.to_string()), ..InsertOptions::new(Admission::Record) };
        insert::insert(&ws.engine, docs, options).await?;
    }
    Ok(found)
}

/// The text of a file of the input folder, as indexed (control characters out), or why it is
/// skipped.
async fn file_text(ws: &Workspace, entry: &tokio::fs::DirEntry, name: &str) -> Result<String, String> {
    ws.reader.read_file(&entry.path(), name, Origin::Upload).await.map_err(|e| e.to_string())
}

/// Moves an indexed file into [`PARSED_DIR`]; never replaces a file already there, unless
/// `newer` (the file is the new version of a replaced document, the one there an older one).
async fn archive(input_dir: &Path, file: &Path, name: &str, newer: bool) -> Result<(), String> {
    let parsed = input_dir.join(PARSED_DIR);
    let target = parsed.join(name);
    if !newer && tokio::fs::try_exists(&target).await.unwrap_or(true) {
        return Err(format!(
            "'{name}': already indexed, and {PARSED_DIR} already holds a file of that name; left in place"
        ));
    }
    tokio::fs::create_dir_all(&parsed).await.map_err(|e| format!("'{name}': cannot create {PARSED_DIR}: {e}"))?;
    tokio::fs::rename(file, &target).await.map_err(|e| format!("'{name}': cannot move it to {PARSED_DIR}: {e}"))
}

async fn remove_files_in(dir: &Path, deleted: &mut usize, errors: &mut Vec<String>) {
    let Ok(mut entries) = tokio::fs::read_dir(dir).await else { return };
    while let Ok(Some(entry)) = entries.next_entry().await {
        if entry.file_type().await.is_ok_and(|t| t.is_file()) {
            match tokio::fs::remove_file(entry.path()).await {
                Ok(()) => *deleted += 1,
                Err(e) => errors.push(format!("cannot delete {}: {e}", entry.path().display())),
            }
        }
    }
}

/// Deletes the files of an input folder and of its [`PARSED_DIR`] (not sub-folders such as other
/// workspaces' folders). Returns (deleted, errors).
pub async fn remove_input_files(dir: &Path) -> (usize, Vec<String>) {
    let (mut deleted, mut errors) = (0, Vec::new());
    remove_files_in(dir, &mut deleted, &mut errors).await;
    remove_files_in(&dir.join(PARSED_DIR), &mut deleted, &mut errors).await;
    (deleted, errors)
}

/// Deletes a document's file from the input folder (and its parsed copy); returns a log message.
pub async fn remove_document_file(dir: &Path, file_path: &str) -> String {
    if sanitize_filename(file_path).as_deref() != Some(file_path) {
        return format!("Kept file '{file_path}': not a plain file name");
    }
    let candidates: [PathBuf; 2] = [dir.join(file_path), dir.join(PARSED_DIR).join(file_path)];
    let mut removed = 0;
    for path in candidates {
        if tokio::fs::remove_file(&path).await.is_ok() {
            removed += 1;
        }
    }
    format!("Deleted {removed} file(s) named '{file_path}'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_lose_their_directories() {
        assert_eq!(sanitize_filename("../../etc/passwd.txt").as_deref(), Some("passwd.txt"));
        assert_eq!(sanitize_filename("..\\..\\evil.md").as_deref(), Some("evil.md"));
        assert_eq!(sanitize_filename("..").as_deref(), None);
        assert_eq!(sanitize_filename("a/b/").as_deref(), None);
        assert_eq!(sanitize_filename("ok name?.txt").as_deref(), Some("ok name.txt"));
    }

    #[test]
    fn document_and_text_types_are_supported() {
        assert!(is_supported("a.TXT"));
        assert!(is_supported("notes.md"));
        assert!(is_supported("paper.pdf"));
        assert!(is_supported("deck.PPTX"));
        assert!(!is_supported("setup.exe"));
        assert!(!is_supported("noext"));
    }
}
