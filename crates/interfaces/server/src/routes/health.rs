//! `GET /health` (status and configuration snapshot, §1.7), and the web UI titles that the
//! login routes report too.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::API_VERSION;
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
fn role_llm_config(s: &lightrag_app::Settings) -> Value {
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
/// Status, configuration snapshot and pipeline flags of the request's workspace.
#[utoipa::path(get, path = "/health", tag = "system", responses(
    (status = 200, description = "Healthy", body = HealthResponse),
))]
async fn health(State(state): State<AppState>, Ws(ws): Ws) -> Result<Json<Value>, ApiError> {
    let s = &ws.settings;
    let e = &s.engine;
    let status = ws.pipeline.snapshot();
    let (title, description) = titles(&state);
    Ok(Json(json!({
        "status": "healthy",
        "webui_available": crate::webui::available(),
        "working_directory": s.working_dir.display().to_string(),
        "input_directory": s.server.input_dir.display().to_string(),
        "configuration": {
            "llm_binding": s.llm.binding.as_str(),
            "llm_binding_host": s.llm.host,
            "llm_model": s.llm.model,
            "embedding_binding": s.embedding.binding.as_str(),
            "embedding_binding_host": s.embedding.host,
            "embedding_model": s.embedding.model,
            "summary_max_tokens": e.merge.summary_max_tokens,
            "summary_context_size": e.merge.summary_context_size,
            "kv_storage": "SqliteStore",
            "doc_status_storage": "SqliteStore",
            "graph_storage": "SqliteStore",
            "vector_storage": "SqliteStore",
            "enable_llm_cache_for_extract": e.llm.enable_cache_for_extract,
            "enable_llm_cache": e.llm.enable_cache,
            "vlm_process_enable": false,
            "workspace": ws.name,
            "max_graph_nodes": s.server.max_graph_nodes,
            "enable_rerank": s.rerank.is_some(),
            "rerank_binding": s.rerank.as_ref().map_or("null", |r| r.binding.as_str()),
            "rerank_model": s.rerank.as_ref().map(|r| r.model.clone()),
            "rerank_binding_host": s.rerank.as_ref().map(|r| r.host.clone()),
            "rerank_max_async": e.rerank.max_async,
            "rerank_timeout": e.rerank.timeout_secs,
            "min_rerank_score": e.query.min_rerank_score,
            "summary_language": e.extraction.language,
            "force_llm_summary_on_merge": e.merge.force_llm_summary_on_merge,
            "max_parallel_insert": e.pipeline.max_parallel_insert,
            "cosine_threshold": e.query.cosine_threshold,
            "related_chunk_number": e.query.related_chunk_number,
            "max_async": e.llm.max_async,
            "llm_timeout": e.llm.timeout_secs,
            "embedding_func_max_async": e.embedding.max_async,
            "embedding_batch_num": e.embedding.batch_num,
            "embedding_timeout": e.embedding.timeout_secs,
            "role_llm_config": role_llm_config(s),
        },
        "auth_mode": auth_mode(&state),
        "server_mode": "single",
        "workers": 1,
        "pipeline_busy": status.busy,
        "pipeline_active": status.busy,
        "pipeline_scanning": status.scanning,
        "pipeline_destructive_busy": status.destructive_busy,
        "pipeline_pending_enqueues": status.pending_enqueues,
        "core_version": API_VERSION,
        "api_version": API_VERSION,
        "webui_title": title,
        "webui_description": description,
    })))
}
