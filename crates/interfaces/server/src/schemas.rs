//! Response shapes of the REST API for the OpenAPI document ([`crate::openapi`]).
//!
//! Most handlers build their JSON with `serde_json::json!`; these `ToSchema` structs describe
//! those fixed shapes (field names and types as LightRAG sends them). `tests/openapi.rs` checks
//! live responses against the required fields declared here, so a drift fails a test.
//! [`InsertResponse`] is also what the insert handlers return.
//!
//! Routes of ours beyond LightRAG have their answers in submodules, which the handlers return as
//! they are: [`admin`], [`provenance`] and [`workspaces`].

pub mod admin;
pub mod provenance;
pub mod workspaces;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// `{"detail": "<message>"}` — 400, 403, 404, 409, 413 and 500 errors.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorResponse {
    /// What went wrong and what to do about it.
    pub detail: String,
}

/// One FastAPI-style validation problem.
#[derive(Debug, Serialize, ToSchema)]
pub struct ValidationItem {
    /// Always `value_error`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where: `["body", "field", …]` or `["query", "param"]`.
    pub loc: Vec<String>,
    /// The problem.
    pub msg: String,
    /// The rejected input (null).
    pub input: Option<Value>,
}

/// 422 `{"detail": [items]}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ValidationErrorResponse {
    /// The problems found.
    pub detail: Vec<ValidationItem>,
}

/// LightRAG's `InsertResponse` (text inserts and uploads).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct InsertResponse {
    /// `success`, `partial_success` or `failure`.
    #[schema(example = "success")]
    pub status: String,
    /// Human-readable outcome.
    pub message: String,
    /// Id to follow the documents with `/documents/track_status/{track_id}`.
    #[schema(example = "insert_20250101_120000_1a2b3c4d")]
    pub track_id: String,
}

/// `/documents/scan`: `scanning_started` or `scanning_skipped_pipeline_busy`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScanResponse {
    /// `scanning_started` or `scanning_skipped_pipeline_busy`.
    pub status: String,
    /// Human-readable outcome.
    pub message: String,
    /// Track id of the scan (empty when skipped).
    pub track_id: String,
}

/// `{status, message}` answers (clear, clear_cache, cancel_pipeline).
#[derive(Debug, Serialize, ToSchema)]
pub struct StatusMessageResponse {
    /// Outcome keyword, e.g. `success`, `busy`, `cancellation_requested`, `not_busy`.
    pub status: String,
    /// Human-readable outcome.
    pub message: String,
}

/// `/documents/reprocess_failed`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReprocessResponse {
    /// `reprocessing_started`.
    pub status: String,
    /// Human-readable outcome.
    pub message: String,
    /// Always empty: documents keep their original track ids.
    pub track_id: String,
}

/// `/documents/delete_document`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeleteDocResponse {
    /// `deletion_started` or `busy`.
    pub status: String,
    /// Human-readable outcome.
    pub message: String,
    /// The ids, comma-joined.
    pub doc_id: String,
}

/// LightRAG's `DocStatusResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DocStatusResponse {
    /// `doc-` + md5 of the canonical file name.
    pub id: String,
    /// The first ~100 characters.
    pub content_summary: String,
    /// Characters in the document.
    pub content_length: u64,
    /// `pending`, `processing`, `processed` or `failed`.
    pub status: String,
    /// ISO 8601.
    pub created_at: String,
    /// ISO 8601.
    pub updated_at: String,
    /// The insert/upload/scan track id.
    pub track_id: Option<String>,
    /// Chunks of the document.
    pub chunks_count: Option<u64>,
    /// Why it failed.
    pub error_msg: Option<String>,
    /// Extra data (duplicates: `is_duplicate`, `original_doc_id`, …).
    pub metadata: Option<Value>,
    /// Canonical base name, or `unknown_source`.
    pub file_path: String,
}

/// `GET /documents` (deprecated): documents grouped by status, at most 1000.
#[derive(Debug, Serialize, ToSchema)]
pub struct DocsStatusesResponse {
    /// Status name → documents.
    pub statuses: std::collections::BTreeMap<String, Vec<DocStatusResponse>>,
}

/// `/documents/track_status/{track_id}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackStatusResponse {
    /// The track id asked for.
    pub track_id: String,
    /// Its documents, oldest first.
    pub documents: Vec<DocStatusResponse>,
    /// How many documents the track has.
    pub total_count: u64,
    /// Status name → count.
    pub status_summary: std::collections::BTreeMap<String, u64>,
}

/// Page information of `/documents/paginated`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PaginationInfo {
    /// Page number (from 1).
    pub page: u64,
    /// Documents per page.
    pub page_size: u64,
    /// Documents matching the filter.
    pub total_count: u64,
    /// Pages.
    pub total_pages: u64,
    /// A next page exists.
    pub has_next: bool,
    /// A previous page exists.
    pub has_prev: bool,
}

/// `/documents/paginated`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PaginatedDocsResponse {
    /// The page.
    pub documents: Vec<DocStatusResponse>,
    /// Page information.
    pub pagination: PaginationInfo,
    /// Status name → count, plus `all`.
    pub status_counts: std::collections::BTreeMap<String, u64>,
}

/// `/documents/status_counts`.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatusCountsResponse {
    /// Status name → count, plus `all`.
    pub status_counts: std::collections::BTreeMap<String, u64>,
}

/// `/documents/pipeline_status` (LightRAG's `PipelineStatusResponse` with its extra keys).
#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineStatusResponse {
    /// The pipeline was started at server start.
    pub autoscanned: bool,
    /// A job runs.
    pub busy: bool,
    /// Name of the running (or last) job.
    pub job_name: String,
    /// ISO 8601 start of the job.
    pub job_start: Option<String>,
    /// Documents claimed by the job.
    pub docs: u64,
    /// Batches claimed.
    pub batchs: u64,
    /// Current batch.
    pub cur_batch: u64,
    /// More work arrived while busy.
    pub request_pending: bool,
    /// Last progress message.
    pub latest_message: String,
    /// Last 1000 progress messages (a truncation note first when some were dropped).
    pub history_messages: Vec<String>,
    /// Always `{}`.
    pub update_status: Value,
    /// Cancellation was requested.
    pub cancellation_requested: bool,
    /// A scan runs.
    pub scanning: bool,
    /// Always false.
    pub scanning_exclusive: bool,
    /// A deletion or clearing job runs (inserts are refused).
    pub destructive_busy: bool,
    /// Always 0.
    pub pending_enqueues: u64,
    /// Documents other processes (`lightrag worker`, other servers) are processing on this
    /// knowledge base; `busy` is true while there are any (an extension of LightRAG's shape).
    pub processing_elsewhere: u64,
}

/// One source of an answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReferenceItem {
    /// `"1"`, `"2"`, … as cited in the answer.
    pub reference_id: String,
    /// The document's file name.
    pub file_path: String,
    /// Chunk texts of that file (only with `include_chunk_content`).
    pub content: Option<Vec<String>>,
}

/// `/query`.
#[derive(Debug, Serialize, ToSchema)]
pub struct QueryResponse {
    /// The answer (or the context/prompt with `only_need_context`/`only_need_prompt`).
    pub response: String,
    /// Sources; null when `include_references` is false.
    pub references: Option<Vec<ReferenceItem>>,
    /// Server-side time of the query (retrieval and answer), in seconds.
    pub response_time: Option<f64>,
    /// Whether the answering LLM wrote `response` (false for the context, the prompt, the
    /// no-context reply and the fallback sentence).
    pub llm_generated: bool,
    /// Ours, only with `include_trace: true`: scores, origins, usage and timings.
    pub trace: Option<crate::trace_schemas::QueryTrace>,
}

/// One NDJSON line of `/query/stream`: a references line first (when asked), then answer
/// deltas; `error` ends a failed stream.
#[derive(Debug, Serialize, ToSchema)]
pub struct QueryStreamLine {
    /// Sources (first line only).
    pub references: Option<Vec<ReferenceItem>>,
    /// A piece of the answer.
    pub response: Option<String>,
    /// The failure that ended the stream.
    pub error: Option<String>,
    /// Only on a complete (not streamed) answer line: whether the answering LLM wrote it.
    pub llm_generated: Option<bool>,
    /// Ours, only with `include_trace: true`: the last line, after the answer has ended.
    pub trace: Option<crate::trace_schemas::QueryTrace>,
}

/// The retrieved data of `/query/data`.
#[derive(Debug, Serialize, ToSchema)]
pub struct QueryDataPayload {
    /// Entities (`entity_name`, `entity_type`, `description`, …).
    pub entities: Vec<Value>,
    /// Relations (`src_id`, `tgt_id`, `description`, `keywords`, `weight`, …).
    pub relationships: Vec<Value>,
    /// Chunks (`chunk_id`, `content`, `file_path`, `reference_id`).
    pub chunks: Vec<Value>,
    /// `{reference_id, file_path}` items.
    pub references: Vec<Value>,
}

/// `/query/data`.
#[derive(Debug, Serialize, ToSchema)]
pub struct QueryDataResponse {
    /// `success` or `failure`.
    pub status: String,
    /// Human-readable outcome.
    pub message: String,
    /// What was retrieved (`{}` on failure).
    #[schema(value_type = QueryDataPayload)]
    pub data: Value,
    /// `query_mode`, `keywords {high_level, low_level}`, `processing_info` (`{}` on failure).
    pub metadata: Value,
    /// Ours, only with `include_trace: true` (its usage has no `answer`).
    pub trace: Option<crate::trace_schemas::QueryTrace>,
}

/// `/query/data`'s validation error (400): `status: failure`, `message: "Validation error: …"`.
#[derive(Debug, Serialize, ToSchema)]
pub struct QueryDataError {
    /// `failure`.
    pub status: String,
    /// `Validation error: <loc>: <msg>; …`.
    pub message: String,
    /// `{}`.
    pub data: Value,
    /// `{}`.
    pub metadata: Value,
}

/// A node of `/graphs`.
#[derive(Debug, Serialize, ToSchema)]
pub struct GraphNode {
    /// The entity name.
    pub id: String,
    /// `[id]`.
    pub labels: Vec<String>,
    /// `entity_id`, `entity_type`, `description`, `source_id`, `file_path`, `created_at`, `truncate`.
    pub properties: Value,
}

/// An edge of `/graphs`.
#[derive(Debug, Serialize, ToSchema)]
pub struct GraphEdge {
    /// `<source>-<target>`.
    pub id: String,
    /// Always `DIRECTED`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Source entity.
    pub source: String,
    /// Target entity.
    pub target: String,
    /// `weight`, `description`, `keywords`, `source_id`, `file_path`, `created_at`, `truncate`.
    pub properties: Value,
}

/// `/graphs`: LightRAG's `KnowledgeGraph`.
#[derive(Debug, Serialize, ToSchema)]
pub struct KnowledgeGraph {
    /// Nodes, the start label first.
    pub nodes: Vec<GraphNode>,
    /// Edges between the returned nodes.
    pub edges: Vec<GraphEdge>,
    /// Nodes were left out for `max_nodes` / `MAX_GRAPH_NODES`.
    pub is_truncated: bool,
}

/// `/graph/entity/exists`.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntityExistsResponse {
    /// Whether the entity exists.
    pub exists: bool,
}

/// Answer of the graph create/edit/merge routes.
#[derive(Debug, Serialize, ToSchema)]
pub struct GraphEditResponse {
    /// `success`.
    pub status: String,
    /// Human-readable outcome.
    pub message: String,
    /// The entity or relation properties after the change (merge: `merged_entity`,
    /// `deleted_entities`, `relationships_transferred`, …).
    pub data: Value,
    /// `/graph/entity/edit` only: `merged`, `merge_status`, `merge_error`, `operation_status`,
    /// `target_entity`, `final_entity`, `renamed`.
    pub operation_summary: Option<Value>,
}

/// LightRAG's `DeletionResult` (graph deletions).
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletionResult {
    /// `success`.
    pub status: String,
    /// Always empty.
    pub doc_id: String,
    /// Human-readable outcome.
    pub message: String,
    /// 200.
    pub status_code: u16,
    /// Always empty.
    pub file_path: String,
}

/// `/health`.
#[derive(Debug, Serialize, ToSchema)]
pub struct HealthResponse {
    /// `healthy`.
    pub status: String,
    /// `enabled` or `disabled`.
    pub auth_mode: String,
    /// Server version.
    pub core_version: String,
    /// API version.
    pub api_version: String,
    /// Whether the web UI is served.
    pub webui_available: bool,
    /// Whether LightRAG's `/workspace` query page is served (false).
    pub workspace_available: bool,
    /// Whether `/docs`, `/redoc` and `/openapi.json` are served (`ENABLE_API_DOCS`).
    pub api_docs_available: bool,
    /// `WEBUI_TITLE`.
    pub webui_title: String,
    /// `WEBUI_DESCRIPTION`.
    pub webui_description: String,
    /// `ENABLE_AI_CONTENT_NOTICE`.
    pub ai_content_notice_enabled: bool,
    /// The workspace's pipeline runs a job.
    pub pipeline_busy: bool,
    /// A job, a scan or an enqueue is under way.
    pub pipeline_active: bool,
    /// Authenticated callers only (as every field below): `WORKING_DIR`.
    pub working_directory: Option<String>,
    /// `INPUT_DIR`.
    pub input_directory: Option<String>,
    /// Bindings, models, storages and limits in use (`workspace` is the request's).
    pub configuration: Option<Value>,
    /// `single`.
    pub server_mode: Option<String>,
    /// 1.
    pub workers: Option<u64>,
    /// A scan runs.
    pub pipeline_scanning: Option<bool>,
    /// A deletion or clearing job runs.
    pub pipeline_destructive_busy: Option<bool>,
    /// Enqueue requests being written.
    pub pipeline_pending_enqueues: Option<u64>,
    /// LightRAG's scheduling view (always idle here), capability and metrics reports, lock and
    /// queue status: present for compatibility.
    pub scheduling: Option<Value>,
    /// See `scheduling`.
    pub capabilities: Option<Value>,
    /// See `scheduling`.
    pub scheduling_metrics: Option<Value>,
    /// See `scheduling`.
    pub keyed_locks: Option<Value>,
    /// See `scheduling`.
    pub llm_queue_status: Option<Value>,
    /// See `scheduling`.
    pub embedding_queue_status: Option<Value>,
    /// See `scheduling`.
    pub rerank_queue_status: Option<Value>,
}

/// The query modes (`mode` of the query requests).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum QueryModeName {
    /// Entities around the query's low-level keywords.
    Local,
    /// Relations around the high-level keywords.
    Global,
    /// Local + global.
    Hybrid,
    /// Vector search over chunks only.
    Naive,
    /// Knowledge graph + chunks (LightRAG's default).
    Mix,
    /// No retrieval: the question goes straight to the LLM.
    Bypass,
    /// Ours: personalized PageRank over entities and passages, for multi-hop questions.
    Ppr,
    /// Ours (the default): reads the question and runs the mode that suits it.
    Auto,
}

/// Ours: `filter` of a query — only these documents' chunks, and the entities and relations
/// with at least one supporting chunk among them. All given criteria must hold.
#[derive(Debug, Serialize, ToSchema)]
pub struct QueryFilterSchema {
    /// Document ids (any of them); at most 1,000 (with `ids`), each at most 512 bytes.
    pub doc_ids: Option<Vec<String>>,
    /// Glob patterns on the document's file path (any of them), e.g. `*.md`, `report-202?-*`; at
    /// most 100, each at most 512 bytes.
    #[schema(example = json!(["*.md"]))]
    pub file_paths: Option<Vec<String>>,
    /// Metadata given on insert: every key must hold an equal JSON value (or, for a stored array,
    /// an equal element); at most 32 keys of at most 512 bytes, values at most 1,024 bytes as JSON.
    #[schema(value_type = Option<Object>, example = json!({"team": "ops"}))]
    pub metadata: Option<serde_json::Value>,
    /// Created after this time (RFC 3339, `YYYY-MM-DD`, or Unix milliseconds).
    #[schema(example = "2024-05-01T00:00:00Z")]
    pub created_after: Option<String>,
    /// Created before this time.
    pub created_before: Option<String>,
    /// Last updated after this time.
    pub updated_after: Option<String>,
    /// Last updated before this time.
    pub updated_before: Option<String>,
}

/// One turn of `conversation_history`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChatTurn {
    /// `user`, `assistant` or `system`.
    pub role: String,
    /// The message.
    pub content: String,
}

/// The multipart form of `/documents/upload` (documentation only).
#[derive(Debug, Serialize, ToSchema)]
pub struct UploadForm {
    /// The file (its name is kept, sanitised, and names the document).
    #[schema(value_type = String, format = Binary, content_media_type = "application/octet-stream")]
    pub file: Vec<u8>,
    /// Ours: a JSON object kept with the document (`metadata.custom`), matched by query
    /// filters; send it before `file`.
    #[schema(example = "{\"team\": \"ops\"}")]
    pub metadata: Option<String>,
}
