//! LightRAG's Ollama emulation (§1.8), so Ollama clients such as Open WebUI can chat with the
//! knowledge base: `GET /api/version`, `/api/tags`, `/api/ps` describe one model
//! (`OLLAMA_EMULATING_MODEL_NAME:OLLAMA_EMULATING_MODEL_TAG`); `POST /api/generate` sends the
//! prompt straight to the LLM; `POST /api/chat` answers with retrieval, the mode chosen by a
//! prefix of the last message ([`prefix`]).
//!
//! Bodies are read as JSON whatever the `Content-Type`; parse errors are 400. Streams are NDJSON
//! (one JSON object per line). The `LIGHTRAG-WORKSPACE` header selects the workspace as
//! everywhere else.
//! Without an LLM (`LLM_BINDING=none`), calls that need one answer 503; chat in a retrieval mode
//! then answers with the retrieved context, like `/query`.

pub(crate) mod chat;
pub(crate) mod generate;
pub mod models;
pub mod prefix;
mod stream;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use lightrag_engine::EngineError;
use serde_json::{Value, json};

use crate::errors::ApiError;
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/version", get(version))
        .route("/api/tags", get(tags))
        .route("/api/ps", get(ps))
        .route("/api/generate", post(generate::generate))
        .route("/api/chat", post(chat::chat))
}

/// The emulated Ollama version.
#[utoipa::path(get, path = "/api/version", tag = "ollama", responses((status = 200, description = "Emulated Ollama version", body = Object)))]
pub(crate) async fn version() -> Json<Value> {
    Json(json!({ "version": models::OLLAMA_VERSION }))
}

/// Lists the emulated model.
#[utoipa::path(get, path = "/api/tags", tag = "ollama", responses((status = 200, description = "The emulated model", body = Object)))]
pub(crate) async fn tags(State(state): State<AppState>) -> Json<Value> {
    let server = &state.settings().server;
    Json(models::tags_body(&server.ollama_model(), &server.ollama_model_name))
}

/// Lists the emulated model as running.
#[utoipa::path(get, path = "/api/ps", tag = "ollama", responses((status = 200, description = "The emulated running model", body = Object)))]
pub(crate) async fn ps(State(state): State<AppState>) -> Json<Value> {
    Json(models::ps_body(&state.settings().server.ollama_model()))
}

/// An error of the Ollama routes.
#[derive(Debug)]
pub enum OllamaError {
    /// A regular API error (400 bad body or question, 500 LLM or store failure).
    Api(ApiError),
    /// 503: the call needs a chat model and none is configured; the text says which call.
    NoLlm(&'static str),
}

impl IntoResponse for OllamaError {
    fn into_response(self) -> Response {
        match self {
            OllamaError::Api(e) => e.into_response(),
            OllamaError::NoLlm(what) => {
                let detail = format!(
                    "{what} needs a chat model, but no LLM is configured (LLM_BINDING=none); set LLM_BINDING and \
                     LLM_MODEL, or chat without /bypass to get the retrieved context"
                );
                (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "detail": detail }))).into_response()
            }
        }
    }
}

impl From<ApiError> for OllamaError {
    fn from(e: ApiError) -> Self {
        OllamaError::Api(e)
    }
}

impl From<EngineError> for OllamaError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::Llm(e) => OllamaError::Api(ApiError::Internal(format!("the LLM failed: {e}"))),
            other => OllamaError::Api(other.into()),
        }
    }
}

/// LightRAG's `validate_query_not_empty`: 400 "Query must not be empty." on every Ollama path
/// (RAG or straight to the LLM) when nothing but whitespace is left.
pub(crate) fn require_query(query: &str) -> Result<(), ApiError> {
    if query.trim().is_empty() {
        return Err(ApiError::BadRequest("Query must not be empty.".into()));
    }
    Ok(())
}

/// LightRAG's `validate_rag_query`: a question that enters retrieval needs an English-equivalent
/// length of 3 (a Chinese, Japanese or Korean character counts 2), else 400.
pub(crate) fn require_rag_query(query: &str) -> Result<(), ApiError> {
    require_query(query)?;
    const WIDE: [(u32, u32); 12] = [
        (0x1100, 0x11FF),
        (0x2E80, 0x33FF),
        (0x3400, 0x4DBF),
        (0x4E00, 0x9FFF),
        (0xA960, 0xA97F),
        (0xAC00, 0xD7FF),
        (0xF900, 0xFAFF),
        (0xFE30, 0xFE4F),
        (0xFF00, 0xFFEE),
        (0x16FE0, 0x16FFF),
        (0x1AFF0, 0x1B2FF),
        (0x20000, 0x3FFFD),
    ];
    let weight: usize = query
        .trim()
        .chars()
        .map(|c| if WIDE.iter().any(|&(lo, hi)| (lo..=hi).contains(&(c as u32))) { 2 } else { 1 })
        .sum();
    if weight < 3 {
        return Err(ApiError::BadRequest(
            "RAG query is too short. Enter at least 3 English characters or an equivalent combination where each \
             Chinese, Japanese or Korean character counts as 2."
                .into(),
        ));
    }
    Ok(())
}
