//! `GET /health` (status and configuration snapshot, §1.7), and the web UI titles that the
//! login routes report too.

use axum::extract::State;
use axum::routing::get;
use axum::{Extension, Json, Router};
use serde_json::{Value, json};

use crate::API_VERSION;
use crate::auth::AnonymousAccess;
use crate::errors::ApiError;
use crate::schemas::HealthResponse;
use crate::state::AppState;
use crate::workspace::Ws;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/health", get(health))
}

fn auth_mode(state: &AppState) -> &'static str {
    if state.settings().server.auth_accounts.is_empty() { "disabled" } else { "enabled" }
}

/// `(webui_title, webui_description)` from `WEBUI_TITLE` and `WEBUI_DESCRIPTION`.
pub(crate) fn titles(state: &AppState) -> (String, String) {
    let server = &state.settings().server;
    (
        server.webui_title.clone().unwrap_or_else(|| "LightRAG".to_string()),
        server.webui_description.clone().unwrap_or_else(|| "Simple and Fast Graph Based RAG System".to_string()),
    )
}

/// The roles with a model of their own (`EXTRACT_LLM_*` …), without secrets.
fn role_llm_config(s: &lightrag_config::Settings) -> Value {
    let roles: serde_json::Map<String, Value> = s
        .role_llms
        .iter()
        .map(|r| {
            let config = json!({
                "binding": r.llm.binding.as_str(),
                "host": r.llm.host,
                "model": r.llm.model,
                "max_async": r.llm.max_async,
                "timeout": r.llm.timeout_secs,
            });
            (r.role.prefix().to_lowercase(), config)
        })
        .collect();
    Value::Object(roles)
}

/// Health and configuration
///
/// Always 200 (a liveness probe). Callers without credentials, when an API key or accounts are
/// configured, get only the liveness fields (status, versions, auth mode, titles, pipeline
/// flags), as in LightRAG; authenticated callers (or everyone on an open server) also get the
/// directories, the configuration snapshot and the pipeline details of the request's workspace.
#[utoipa::path(get, path = "/health", tag = "system", responses(
    (status = 200, description = "Healthy", body = HealthResponse),
))]
async fn health(
    State(state): State<AppState>,
    anonymous: Option<Extension<AnonymousAccess>>,
    Ws(ws): Ws,
) -> Result<Json<Value>, ApiError> {
    let s = &ws.settings;
    let status = ws.pipeline.snapshot();
    let (title, description) = titles(&state);
    let active = status.busy || status.scanning || status.destructive_busy || status.pending_enqueues > 0;
    let mut body = json!({
        "status": "healthy",
        "auth_mode": auth_mode(&state),
        "core_version": API_VERSION,
        "api_version": API_VERSION,
        "webui_available": crate::webui::available(),
        // LightRAG's separate /workspace query page: not part of this server
        "workspace_available": false,
        "api_docs_available": s.server.enable_api_docs,
        "webui_title": title,
        "webui_description": description,
        "ai_content_notice_enabled": s.server.enable_ai_content_notice,
        "pipeline_busy": status.busy,
        "pipeline_active": active,
    });
    if anonymous.is_some() {
        return Ok(Json(body));
    }
    if let (Value::Object(map), Value::Object(details)) = (&mut body, details(&ws, &status)) {
        map.extend(details);
    }
    Ok(Json(body))
}

/// What only authenticated callers see: every other key of LightRAG's `/health`.
fn details(ws: &crate::workspace::Workspace, status: &crate::pipeline::PipelineStatus) -> Value {
    let s = &ws.settings;
    let e = &s.engine;
    let llm_queue = |max_async: usize| json!({ "max_async": max_async });
    json!({
        "working_directory": s.working_dir.display().to_string(),
        "input_directory": s.server.input_dir.display().to_string(),
        "configuration": configuration(ws),
        "server_mode": "single",
        "workers": 1,
        "pipeline_scanning": status.scanning,
        "pipeline_destructive_busy": status.destructive_busy,
        "pipeline_pending_enqueues": status.pending_enqueues,
        // LightRAG's manual-retry channel does not exist here: always idle
        "scheduling": {
            "manual_phase": "idle",
            "manual_freeze_requested": false,
            "manual_resetting": false,
            "manual_freeze_seconds": null,
            "manual_owner_request_id": null,
            "manual_owner_pid": null,
            "drain_pending_enqueues": status.pending_enqueues,
            "drain_waiting_on_workers": status.busy,
            "manual_retries_queued": null,
            "manual_retries_capacity": null,
            "document_notifications_queued": null,
            "document_notification_overflows": null,
            "auto_rescan_pending": null,
        },
        "capabilities": {},
        "scheduling_metrics": { "counters": {}, "durations": {} },
        "keyed_locks": {
            "process_id": std::process::id(),
            "cleanup_performed": { "mp_cleaned": 0, "async_cleaned": 0 },
            "current_status": {
                "total_mp_locks": 0,
                "pending_mp_cleanup": 0,
                "total_async_locks": 0,
                "pending_async_cleanup": 0,
            },
        },
        "llm_queue_status": { "base": llm_queue(e.llm.max_async) },
        "embedding_queue_status": llm_queue(e.embedding.max_async),
        "rerank_queue_status": s.rerank.as_ref().map(|_| llm_queue(e.rerank.max_async)),
    })
}

/// LightRAG's `configuration` object of `/health`; the storages are those of the store the
/// workspace's settings wire (SQLite file or PostgreSQL).
fn configuration(ws: &crate::workspace::Workspace) -> Value {
    let s = &ws.settings;
    let e = &s.engine;
    let store = lightrag_config::store_names(s);
    json!({
        "llm_binding": s.llm.binding.as_str(),
        "llm_binding_host": s.llm.host,
        "llm_model": s.llm.model,
        "embedding_binding": s.embedding.binding.as_str(),
        "embedding_binding_host": s.embedding.host,
        "embedding_model": s.embedding.model,
        "summary_max_tokens": e.merge.summary_max_tokens,
        "summary_context_size": e.merge.summary_context_size,
        "kv_storage": store.kv,
        "doc_status_storage": store.doc_status,
        "graph_storage": store.graph,
        "vector_storage": store.vector,
        "enable_llm_cache_for_extract": e.llm.enable_cache_for_extract,
        "enable_llm_cache": e.llm.enable_cache,
        "vlm_process_enable": false,
        "workspace": ws.name,
        "storage_workspaces": {
            "kv_storage": store.workspace,
            "doc_status_storage": store.workspace,
            "graph_storage": store.workspace,
            "vector_storage": store.workspace,
        },
        "max_graph_nodes": s.server.max_graph_nodes,
        "enable_rerank": s.rerank.is_some(),
        "rerank_binding": s.rerank.as_ref().map_or("null", |r| r.binding.as_str()),
        "rerank_model": s.rerank.as_ref().map(|r| r.model.clone()),
        "rerank_binding_host": s.rerank.as_ref().map(|r| r.host.clone()),
        "rerank_max_async": e.rerank.max_async,
        "rerank_timeout": e.rerank.timeout_secs,
        "summary_language": e.extraction.language,
        "force_llm_summary_on_merge": e.merge.force_llm_summary_on_merge,
        "max_parallel_insert": e.pipeline.max_parallel_insert,
        "cosine_threshold": e.query.cosine_threshold,
        "min_rerank_score": e.query.min_rerank_score,
        "related_chunk_number": e.query.related_chunk_number,
        "max_async": e.llm.max_async,
        "llm_timeout": e.llm.timeout_secs,
        "embedding_func_max_async": e.embedding.max_async,
        "embedding_batch_num": e.embedding.batch_num,
        "embedding_timeout": e.embedding.timeout_secs,
        "role_llm_config": role_llm_config(s),
        // no external parsers: uploads use the built-in text extraction
        "parser_routing": "",
        "mineru": { "endpoint": "", "api_mode": null, "options": {} },
        "docling": { "endpoint": "", "options": {} },
    })
}
