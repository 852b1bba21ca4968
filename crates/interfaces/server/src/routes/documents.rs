//! Document routes (§1.4) except upload and scan ([`super::upload`]): text inserts, listings,
//! status, pipeline control, deletion and clearing.

use std::collections::{BTreeMap, HashSet};

use axum::extract::Path;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use lightrag_application::delete;
use lightrag_application::documents;
use lightrag_application::insert::{self, InsertOptions};
use lightrag_engine::indexing::pipeline::{InsertDoc, UNKNOWN_SOURCE, canonical_file_path};
use lightrag_engine::maintenance::delete::{DeleteOptions, DeletionEvent};
use lightrag_engine::time::iso;
use lightrag_ports::{Admission, ChunkingOptions, DocFilter, DocSort, DocStatus, DocStatusRecord};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

use crate::app_errors::bad_request;
use crate::errors::{ApiError, ApiJson, detail_item};
use crate::pipeline::EnqueueGuard;
use crate::routes::chunking::ChunkingRequest;
use crate::schemas::{
    DeleteDocResponse, DocsStatusesResponse, ErrorResponse, InsertResponse, PaginatedDocsResponse,
    PipelineStatusResponse, ReprocessResponse, StatusCountsResponse, StatusMessageResponse, TrackStatusResponse,
    ValidationErrorResponse,
};
use crate::state::AppState;
use crate::workspace::{Workspace, Ws};

/// Routes of this module but the text insertions ([`text_router`]).
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/documents", get(all_documents).delete(clear_documents))
        .route("/documents/pipeline_status", get(pipeline_status))
        .route("/documents/delete_document", delete(delete_documents))
        .route("/documents/clear_cache", post(clear_cache))
        .route("/documents/track_status/{track_id}", get(track_status))
        .route("/documents/paginated", post(paginated))
        .route("/documents/status_counts", get(status_counts))
        .route("/documents/reprocess_failed", post(reprocess_failed))
        .route("/documents/cancel_pipeline", post(cancel_pipeline))
}

/// The routes that carry document text (`MAX_UPLOAD_SIZE` rather than `MAX_JSON_BODY_SIZE`).
pub fn text_router() -> Router<AppState> {
    Router::new().route("/documents/text", post(insert_text)).route("/documents/texts", post(insert_texts))
}

/// LightRAG's `DocStatusResponse`.
pub fn doc_json(r: &DocStatusRecord) -> Value {
    let mut v = json!({
        "id": r.id,
        "content_summary": r.content_summary,
        "content_length": r.content_length,
        "status": r.status.as_str(),
        "created_at": iso(r.created_at),
        "updated_at": iso(r.updated_at),
        "track_id": r.track_id,
        "chunks_count": r.chunks_count,
        "error_msg": r.error_msg,
        "metadata": r.metadata,
        "file_path": r.file_path,
    });
    if r.track_id.is_empty() {
        v["track_id"] = Value::Null;
    }
    v
}

/// LightRAG's seven document statuses in its order. This store only ever holds `pending`,
/// `processing`, `processed` and `failed`; the others (LightRAG's parse and multimodal stages,
/// and the deprecated `preprocessed`) are listed with no documents, as LightRAG lists them.
pub const LIGHTRAG_STATUSES: [&str; 7] =
    ["pending", "parsing", "analyzing", "processing", "preprocessed", "processed", "failed"];

fn counts_json(counts: &BTreeMap<DocStatus, usize>) -> Value {
    let mut map = Map::new();
    for name in LIGHTRAG_STATUSES {
        let count = name.parse::<DocStatus>().ok().and_then(|s| counts.get(&s).copied()).unwrap_or(0);
        map.insert(name.to_string(), json!(count));
    }
    map.insert("all".into(), json!(counts.values().sum::<usize>()));
    Value::Object(map)
}

/// The chunking of a text insert: the request's, checked against the server's defaults.
fn chunking_options(ws: &Workspace, request: Option<ChunkingRequest>) -> Result<ChunkingOptions, ApiError> {
    let defaults = &ws.settings.engine.chunking;
    match request {
        Some(request) => request.options(defaults.chunk_size, defaults.chunk_overlap),
        None => Ok(ChunkingOptions::default()),
    }
}

/// `POST /documents/text`.
#[derive(Debug, Deserialize, ToSchema)]
struct InsertTextRequest {
    /// The text (not empty; trimmed).
    #[schema(min_length = 1)]
    text: String,
    /// The document's file name (required in practice; names it and gives its id); at most 255
    /// bytes, or a path of at most 4,096 bytes ending in such a name.
    file_source: Option<String>,
    /// Per-request chunking.
    chunking: Option<ChunkingRequest>,
    /// Ours: a JSON object kept with the document (shown as `metadata.custom`) and matched by
    /// query filters; at most 64 KiB as JSON.
    #[schema(value_type = Option<Object>, example = json!({"team": "ops", "year": 2024}))]
    metadata: Option<Value>,
}

/// `POST /documents/texts`.
#[derive(Debug, Deserialize, ToSchema)]
struct InsertTextsRequest {
    /// The texts (at least one, none empty).
    #[schema(min_items = 1)]
    texts: Vec<String>,
    /// One unique file name per text (each as `file_source` of `/documents/text`).
    file_sources: Option<Vec<String>>,
    /// Per-request chunking.
    chunking: Option<ChunkingRequest>,
    /// Ours: one metadata object (or null) per text, like `metadata` of `/documents/text`.
    #[schema(value_type = Option<Vec<Object>>)]
    metadatas: Option<Vec<Value>>,
}

/// A document's metadata from a request: a JSON object (null = none) of at most
/// [`lightrag_engine::indexing::pipeline::MAX_METADATA_BYTES`] as JSON.
pub(crate) fn document_metadata(value: Option<Value>, field: &str) -> Result<Map<String, Value>, ApiError> {
    let map = match value {
        None | Some(Value::Null) => return Ok(Map::new()),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "{field} must be a JSON object like {{\"team\": \"ops\"}}, not {other}"
            )));
        }
    };
    insert::check_metadata(field, &map)?;
    Ok(map)
}

/// The document name of a text insert: given, and within the name limit every insert path shares
/// (422 at `loc`, naming the field and the limit).
fn required_source(source: Option<&str>, field: &str, loc: &[&str]) -> Result<String, ApiError> {
    if let Some(source) = source {
        insert::check_name(loc, source)?;
    }
    let canonical = canonical_file_path(source);
    if canonical == UNKNOWN_SOURCE {
        return Err(ApiError::BadRequest(format!("{field} is required: give the document a file name")));
    }
    Ok(canonical)
}

/// Enqueues documents as new names only (refused with 409 during a destructive job or a scan, or
/// when a name is stored) and wakes the pipeline.
pub async fn enqueue_and_kick(ws: &Workspace, docs: Vec<InsertDoc>, prefix: &'static str) -> Result<String, ApiError> {
    let guard = admit(ws)?;
    enqueue_admitted(ws, docs, prefix, guard, Admission::NewName).await
}

/// Admits an enqueue request: 409 during a destructive job or a scan; while the guard lives,
/// neither starts (`pending_enqueues`).
pub fn admit(ws: &Workspace) -> Result<EnqueueGuard, ApiError> {
    ws.pipeline.begin_enqueue().map_err(|refused| ApiError::Conflict(refused.message().into()))
}

/// Enqueues documents admitted earlier by [`admit`] as `admission` says ([`insert::insert`]) and
/// wakes the pipeline. The store decides whether a stored name refuses a document, in the
/// transaction that writes it: of concurrent requests with one name exactly one gets in (from any
/// process on the knowledge base) and the others get the 409 a later request would get
/// ([`insert::InsertReport::refusing`]).
pub async fn enqueue_admitted(
    ws: &Workspace,
    docs: Vec<InsertDoc>,
    prefix: &'static str,
    guard: EnqueueGuard,
    admission: Admission,
) -> Result<String, ApiError> {
    let options = InsertOptions { track_prefix: prefix, ..InsertOptions::new(admission) };
    let report = insert::insert(&ws.engine, docs, options).await?;
    drop(guard);
    if report.written() > 0 {
        ws.kick(false);
    }
    Ok(report.refusing()?.track_id)
}

fn insert_response(track: String, message: &str) -> Json<InsertResponse> {
    Json(InsertResponse { status: "success".into(), message: message.into(), track_id: track })
}

/// Insert one text
///
/// Enqueues the text and indexes it in the background; follow it with the returned track id.
#[utoipa::path(post, path = "/documents/text", tag = "documents", request_body = InsertTextRequest, responses(
    (status = 200, description = "Enqueued", body = InsertResponse),
    (status = 400, description = "No file_source", body = ErrorResponse),
    (status = 409, description = "The name exists, or a deletion/clearing job runs", body = ErrorResponse),
    (status = 422, description = "Empty text, unsupported chunking or a file_source over the name limit", body = ValidationErrorResponse),
))]
async fn insert_text(Ws(ws): Ws, ApiJson(req): ApiJson<InsertTextRequest>) -> Result<Json<InsertResponse>, ApiError> {
    if req.text.trim().is_empty() {
        return Err(ApiError::invalid(&["text"], "String should have at least 1 character"));
    }
    let chunking = chunking_options(&ws, req.chunking)?;
    let source = required_source(req.file_source.as_deref(), "file_source", &["file_source"])?;
    let metadata = document_metadata(req.metadata, "metadata")?;
    let doc = insert::typed_document(&["text"], &req.text, Some(source.clone()), metadata, chunking)?;
    insert::refuse_early(&ws.engine, &source, Admission::NewName).await?;
    let track = enqueue_and_kick(&ws, vec![doc], "insert").await?;
    Ok(insert_response(track, "Text successfully received. Processing will continue in background."))
}

/// Insert several texts
///
/// Enqueues the texts under one track id and indexes them in the background.
#[utoipa::path(post, path = "/documents/texts", tag = "documents", request_body = InsertTextsRequest, responses(
    (status = 200, description = "Enqueued", body = InsertResponse),
    (status = 400, description = "file_sources missing, of the wrong length or not unique", body = ErrorResponse),
    (status = 409, description = "A name exists, or a deletion/clearing job runs", body = ErrorResponse),
    (status = 422, description = "No texts, an empty text, unsupported chunking or a name over the limit", body = ValidationErrorResponse),
))]
async fn insert_texts(Ws(ws): Ws, ApiJson(req): ApiJson<InsertTextsRequest>) -> Result<Json<InsertResponse>, ApiError> {
    if req.texts.is_empty() {
        return Err(ApiError::invalid(&["texts"], "List should have at least 1 item"));
    }
    if let Some(i) = req.texts.iter().position(|t| t.trim().is_empty()) {
        return Err(ApiError::invalid(&["texts", &i.to_string()], "String should have at least 1 character"));
    }
    let sources = req.file_sources.unwrap_or_default();
    if sources.len() != req.texts.len() {
        return Err(ApiError::BadRequest(format!(
            "file_sources must name each of the {} texts (got {})",
            req.texts.len(),
            sources.len()
        )));
    }
    let metadatas = req.metadatas.unwrap_or_default();
    if !metadatas.is_empty() && metadatas.len() != req.texts.len() {
        return Err(ApiError::BadRequest(format!(
            "metadatas must hold one object (or null) for each of the {} texts (got {})",
            req.texts.len(),
            metadatas.len()
        )));
    }
    let mut metadatas = metadatas.into_iter();
    let chunking = chunking_options(&ws, req.chunking)?;
    let mut seen = HashSet::new();
    let mut docs = Vec::with_capacity(req.texts.len());
    for (i, (text, source)) in req.texts.into_iter().zip(sources).enumerate() {
        let metadata = document_metadata(metadatas.next(), "metadatas")?;
        let source = required_source(Some(&source), "file_sources", &["file_sources", &i.to_string()])?;
        if !seen.insert(source.clone()) {
            return Err(ApiError::BadRequest(format!("file_sources contains '{source}' twice; names must be unique")));
        }
        let doc = insert::typed_document(
            &["texts", &i.to_string()],
            &text,
            Some(source.clone()),
            metadata,
            chunking.clone(),
        )?;
        insert::refuse_early(&ws.engine, &source, Admission::NewName).await?;
        docs.push(doc);
    }
    let track = enqueue_and_kick(&ws, docs, "insert").await?;
    Ok(insert_response(track, "Texts successfully received. Processing will continue in background."))
}

/// All documents by status (deprecated)
///
/// At most 1000 documents, taken round-robin across statuses; use `/documents/paginated`.
#[utoipa::path(get, path = "/documents", tag = "documents", responses(
    (status = 200, description = "Documents grouped by status", body = DocsStatusesResponse),
))]
async fn all_documents(Ws(ws): Ws) -> Result<Json<Value>, ApiError> {
    const MAX: usize = 1000;
    let mut lists = Vec::new();
    for status in DocStatus::ALL {
        let filter = DocFilter { statuses: vec![status], limit: Some(MAX), ..DocFilter::default() };
        lists.push((status, ws.engine.list_documents(&filter).await?.0.into_iter()));
    }
    let mut grouped: BTreeMap<&str, Vec<Value>> = LIGHTRAG_STATUSES.iter().map(|s| (*s, Vec::new())).collect();
    let mut taken = 0;
    'outer: loop {
        let mut any = false;
        for (status, list) in &mut lists {
            if taken >= MAX {
                break 'outer;
            }
            if let Some(record) = list.next() {
                grouped.entry(status.as_str()).or_default().push(doc_json(&record));
                taken += 1;
                any = true;
            }
        }
        if !any {
            break;
        }
    }
    Ok(Json(json!({ "statuses": grouped })))
}

/// Pipeline status
///
/// Progress of the workspace's indexing, deletion or clearing job.
#[utoipa::path(get, path = "/documents/pipeline_status", tag = "documents", responses(
    (status = 200, description = "The pipeline status", body = PipelineStatusResponse),
))]
async fn pipeline_status(Ws(ws): Ws) -> Json<Value> {
    let mut status = ws.pipeline.lock().to_json();
    // Documents other processes (workers, other servers) are processing on this knowledge base:
    // the pipeline is busy for the user even when this server's own run is idle.
    let elsewhere = ws.engine.processing_elsewhere().await.unwrap_or_else(|e| {
        tracing::warn!("could not list the documents other processes are processing: {e}");
        0
    });
    status["processing_elsewhere"] = json!(elsewhere);
    if elsewhere > 0 {
        status["busy"] = json!(true);
    }
    Json(status)
}

/// Clear all documents
///
/// Drops every document, chunk, entity, relation and vector of the workspace (not the LLM cache)
/// and deletes the files of its input folder. Answers `busy` while a job runs.
#[utoipa::path(delete, path = "/documents", tag = "documents", responses(
    (status = 200, description = "`success`, `partial_success` or `busy`", body = StatusMessageResponse),
))]
async fn clear_documents(Ws(ws): Ws) -> Result<Json<Value>, ApiError> {
    let Ok(job) = ws.pipeline.begin_exclusive("Clearing all documents", ws.runner()) else {
        return Ok(Json(json!({
            "status": "busy",
            "message": "Cannot clear documents while the pipeline is busy; cancel it or retry later",
        })));
    };
    // In a task of its own: a client that goes away does not stop the clearing half-way.
    let work = ws.clone();
    let cleared = ws.runner().tracker.spawn(async move {
        if let Err(e) = work.engine.clear_all().await {
            job.finish(format!("Clearing failed: {e}"));
            return Err(ApiError::from(e));
        }
        let (deleted, errors) = super::upload::remove_input_files(&work.input_dir).await;
        let (status, message) = if errors.is_empty() {
            ("success", format!("All documents cleared successfully. Deleted {deleted} files."))
        } else {
            ("partial_success", format!("Documents cleared; deleted {deleted} files, but: {}", errors.join("; ")))
        };
        job.finish(message.clone());
        Ok(Json(json!({ "status": status, "message": message })))
    });
    cleared.await.map_err(|e| ApiError::Internal(format!("the clearing job failed: {e}")))?
}

/// `DELETE /documents/delete_document`.
#[derive(Debug, Deserialize, ToSchema)]
struct DeleteRequest {
    /// Document ids (non-empty, unique).
    #[schema(min_items = 1)]
    doc_ids: Vec<String>,
    /// Also delete the files from the input folder.
    #[serde(default)]
    delete_file: bool,
    /// Also remove the cached LLM extraction responses of these documents, so a later re-insert
    /// asks the LLM again.
    #[serde(default)]
    delete_llm_cache: bool,
}

/// Delete documents
///
/// Deletes the documents and what only they contributed to the graph, in the background and
/// in one pass: what they share is rebuilt once (progress in `/documents/pipeline_status`).
/// Answers `busy` while a job runs.
#[utoipa::path(delete, path = "/documents/delete_document", tag = "documents", request_body = DeleteRequest, responses(
    (status = 200, description = "`deletion_started` or `busy`", body = DeleteDocResponse),
    (status = 422, description = "Empty, blank or repeated ids", body = ValidationErrorResponse),
))]
async fn delete_documents(Ws(ws): Ws, ApiJson(req): ApiJson<DeleteRequest>) -> Result<Json<Value>, ApiError> {
    let ids = delete::check_ids("doc_ids", req.doc_ids)?;
    let joined = ids.join(",");
    let name = format!("Deleting {} Documents", ids.len());
    let Ok(job_guard) = ws.pipeline.begin_exclusive(&name, ws.runner()) else {
        return Ok(Json(json!({
            "status": "busy",
            "message": "Cannot delete documents while the pipeline is busy; retry later",
            "doc_id": joined,
        })));
    };
    let job = ws.clone();
    let (delete_file, delete_cache) = (req.delete_file, req.delete_llm_cache);
    ws.runner().tracker.spawn(async move {
        let total = ids.len();
        let options = DeleteOptions { delete_llm_cache: delete_cache };
        let progress = |event: &DeletionEvent| job.pipeline.lock().deletion_progress(event);
        // one pass over all the documents: what they share is rebuilt once
        match delete::delete_many(&job.engine, &ids, options, &progress, job_guard.token()).await {
            Ok(report) => {
                if delete_file {
                    for doc in &report.deleted {
                        let message = super::upload::remove_document_file(&job.input_dir, &doc.file_path).await;
                        job.pipeline.lock().log(message);
                    }
                }
                let mut message = format!(
                    "Deletion finished: {} of {total} documents deleted; {} entities removed, {} rebuilt, \
                     {} cache entries removed",
                    report.deleted.len(),
                    report.entities_deleted.len(),
                    report.entities_rebuilt.len(),
                    report.cache_entries_deleted
                );
                if !report.cancelled.is_empty() {
                    message = format!("Deletion cancelled after {} of {total} documents", report.deleted.len());
                }
                job_guard.finish(message);
            }
            Err(e) => job_guard.finish(format!(
                "Deletion stopped: {e}; the documents of the passes committed are deleted, ask again for the rest"
            )),
        }
    });
    Ok(Json(json!({
        "status": "deletion_started",
        "message": format!("Document deletion for {} documents has been initiated. Processing will continue in background.", joined.split(',').count()),
        "doc_id": joined,
    })))
}

/// Clear the LLM cache
///
/// Drops every cached LLM response of the workspace. The body is ignored.
#[utoipa::path(post, path = "/documents/clear_cache", tag = "documents", responses(
    (status = 200, description = "Cleared", body = StatusMessageResponse),
))]
async fn clear_cache(Ws(ws): Ws) -> Result<Json<Value>, ApiError> {
    let removed = ws.engine.clear_llm_cache().await?;
    Ok(Json(json!({"status": "success", "message": format!("Successfully cleared all cache ({removed} entries)")})))
}

/// Documents of a track id
///
/// The documents of one insert, upload or scan, with a count per status.
#[utoipa::path(get, path = "/documents/track_status/{track_id}", tag = "documents",
    params(("track_id" = String, Path, description = "Track id returned by an insert, upload or scan")),
    responses(
        (status = 200, description = "The track's documents", body = TrackStatusResponse),
        (status = 400, description = "Empty track id", body = ErrorResponse),
    ))]
async fn track_status(Ws(ws): Ws, Path(track): Path<String>) -> Result<Json<Value>, ApiError> {
    let track = documents::track(&ws.engine, &track).await.map_err(bad_request)?;
    let summary: BTreeMap<&str, usize> = track.counts.iter().map(|(s, n)| (s.as_str(), *n)).collect();
    Ok(Json(json!({
        "track_id": track.track_id,
        "documents": track.documents.iter().map(doc_json).collect::<Vec<_>>(),
        "total_count": track.total,
        "status_summary": summary,
    })))
}

/// `POST /documents/paginated`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(default)]
struct PageRequest {
    /// One status (legacy; `status_filters` wins).
    status_filter: Option<String>,
    /// Statuses to list (`pending`, `processing`, `processed`, `failed`).
    status_filters: Option<Vec<String>>,
    /// Page number, from 1.
    #[schema(minimum = 1, default = 1)]
    page: i64,
    /// Documents per page, 10 to 200.
    #[schema(minimum = 10, maximum = 200, default = 50)]
    page_size: i64,
    /// `created_at`, `updated_at`, `id` or `file_path`.
    #[schema(default = "updated_at")]
    sort_field: String,
    /// `asc` or `desc`.
    #[schema(default = "desc")]
    sort_direction: String,
}

impl Default for PageRequest {
    fn default() -> Self {
        Self {
            status_filter: None,
            status_filters: None,
            page: 1,
            page_size: 50,
            sort_field: "updated_at".into(),
            sort_direction: "desc".into(),
        }
    }
}

/// Most entries `status_filters` may have: there are only a handful of statuses, repeats included.
const MAX_STATUS_FILTERS: usize = 32;

fn parse_filters(req: &PageRequest) -> Result<Option<Vec<DocStatus>>, ApiError> {
    let names: Vec<&str> = match (&req.status_filters, &req.status_filter) {
        (Some(list), _) if !list.is_empty() => list.iter().map(String::as_str).collect(),
        (_, Some(one)) => vec![one.as_str()],
        _ => return Ok(None),
    };
    if names.len() > MAX_STATUS_FILTERS {
        return Err(ApiError::invalid(
            &["status_filters"],
            format!("at most {MAX_STATUS_FILTERS} statuses may be given (there were {})", names.len()),
        ));
    }
    let mut statuses = Vec::new();
    for name in names {
        match name.parse::<DocStatus>() {
            Ok(s) if statuses.contains(&s) => {}
            Ok(s) => statuses.push(s),
            // LightRAG statuses this store never holds: accepted, match nothing
            Err(_) if LIGHTRAG_STATUSES.contains(&name.to_ascii_lowercase().as_str()) => {}
            Err(_) => {
                return Err(ApiError::invalid(
                    &["status_filters"],
                    format!("'{name}' is not a document status ({})", LIGHTRAG_STATUSES.join(", ")),
                ));
            }
        }
    }
    Ok(Some(statuses))
}

fn parse_sort(req: &PageRequest) -> Result<DocSort, ApiError> {
    let asc = match req.sort_direction.to_ascii_lowercase().as_str() {
        "asc" => true,
        "desc" => false,
        _ => return Err(ApiError::invalid(&["sort_direction"], "Input should be 'asc' or 'desc'")),
    };
    Ok(match (req.sort_field.as_str(), asc) {
        ("created_at", true) => DocSort::CreatedAsc,
        ("created_at", false) => DocSort::CreatedDesc,
        ("updated_at", true) => DocSort::UpdatedAsc,
        ("updated_at", false) => DocSort::UpdatedDesc,
        ("id", true) => DocSort::IdAsc,
        ("id", false) => DocSort::IdDesc,
        ("file_path", true) => DocSort::FilePathAsc,
        ("file_path", false) => DocSort::FilePathDesc,
        _ => {
            return Err(ApiError::invalid(
                &["sort_field"],
                "Input should be 'created_at', 'updated_at', 'id' or 'file_path'",
            ));
        }
    })
}

/// Documents, paginated
///
/// A page of documents, filtered by status and sorted, with the counts per status.
#[utoipa::path(post, path = "/documents/paginated", tag = "documents", request_body = PageRequest, responses(
    (status = 200, description = "The page", body = PaginatedDocsResponse),
    (status = 422, description = "Bad page, page size, sort or status", body = ValidationErrorResponse),
))]
async fn paginated(Ws(ws): Ws, ApiJson(req): ApiJson<PageRequest>) -> Result<Json<Value>, ApiError> {
    let mut problems = Vec::new();
    if req.page < 1 {
        problems.push(detail_item(&["page"], "Input should be greater than or equal to 1"));
    }
    // LightRAG's smallest page is 10; the largest is every front end's
    let max = documents::MAX_PAGE_SIZE;
    if !(10..=max as i64).contains(&req.page_size) {
        problems.push(detail_item(&["page_size"], format!("Input should be between 10 and {max}")));
    }
    if !problems.is_empty() {
        return Err(ApiError::Validation(problems));
    }
    let sort = parse_sort(&req)?;
    let filters = parse_filters(&req)?;
    let (page, size) = (req.page as usize, req.page_size as usize);
    let listed = match filters {
        // only statuses this store never holds: nothing matches
        Some(statuses) if statuses.is_empty() => None,
        statuses => Some(documents::page(&ws.engine, statuses.unwrap_or_default(), sort, page, size).await?),
    };
    let (docs, total, counts) = match listed {
        Some(listed) => (listed.documents, listed.total, listed.counts),
        None => (Vec::new(), 0, ws.engine.status_counts().await?),
    };
    let total_pages = total.div_ceil(size);
    Ok(Json(json!({
        "documents": docs.iter().map(doc_json).collect::<Vec<_>>(),
        "pagination": {
            "page": page,
            "page_size": size,
            "total_count": total,
            "total_pages": total_pages,
            "has_next": page < total_pages,
            "has_prev": page > 1,
        },
        "status_counts": counts_json(&counts),
    })))
}

/// Document counts by status
#[utoipa::path(get, path = "/documents/status_counts", tag = "documents", responses(
    (status = 200, description = "Counts per status and `all`", body = StatusCountsResponse),
))]
async fn status_counts(Ws(ws): Ws) -> Result<Json<Value>, ApiError> {
    let counts = ws.engine.status_counts().await?;
    Ok(Json(json!({ "status_counts": counts_json(&counts) })))
}

/// Reprocess failed documents
///
/// Runs the pipeline again over pending, interrupted and failed documents.
#[utoipa::path(post, path = "/documents/reprocess_failed", tag = "documents", responses(
    (status = 200, description = "Started", body = ReprocessResponse),
))]
async fn reprocess_failed(Ws(ws): Ws) -> Json<Value> {
    ws.kick(true);
    Json(json!({
        "status": "reprocessing_started",
        "message": "Reprocessing of failed documents has been initiated in background.",
        "track_id": "",
    }))
}

/// Cancel the pipeline
///
/// Stops the running job after its current chunks; unfinished documents resume on the next run.
#[utoipa::path(post, path = "/documents/cancel_pipeline", tag = "documents", responses(
    (status = 200, description = "`cancellation_requested` or `not_busy`", body = StatusMessageResponse),
))]
async fn cancel_pipeline(Ws(ws): Ws) -> Json<Value> {
    let here = ws.pipeline.cancel();
    // workers and other servers on this knowledge base stop too (they look every second)
    let elsewhere = ws.engine.processing_elsewhere().await.unwrap_or_else(|e| {
        tracing::warn!("could not list the documents other processes are processing: {e}");
        0
    });
    if here || elsewhere > 0 {
        if let Err(e) = ws.engine.request_cancel().await {
            tracing::warn!("could not pass the cancellation to other processes: {e}");
        }
        Json(json!({
            "status": "cancellation_requested",
            "message": "Pipeline cancellation has been requested. Processing stops after the current chunks; unfinished documents resume on the next run.",
        }))
    } else {
        Json(json!({ "status": "not_busy", "message": "Pipeline is not currently running. No cancellation needed." }))
    }
}
