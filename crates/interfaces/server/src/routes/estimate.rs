//! `POST /documents/estimate` (ours; LightRAG has none): what inserting some texts would cost —
//! documents, chunks, LLM calls, input and output tokens, embedding tokens and money at the
//! configured prices — without calling a model and without storing anything. Documents already
//! stored are left out and listed under `skipped`.

use axum::routing::post;
use axum::{Json, Router};
use lightrag_application::estimate::estimate as estimate_cost;
use lightrag_application::insert;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::errors::{ApiError, ApiJson};
use crate::routes::chunking::ChunkingRequest;
use crate::schemas::{ErrorResponse, ValidationErrorResponse};
use crate::state::AppState;
use crate::workspace::Ws;

/// The route (a text body: `MAX_UPLOAD_SIZE`, as `/documents/texts`).
pub fn router() -> Router<AppState> {
    Router::new().route("/documents/estimate", post(estimate))
}

/// `POST /documents/estimate`: the body of `/documents/texts`, file names optional.
#[derive(Debug, Deserialize, ToSchema)]
pub(crate) struct EstimateRequest {
    /// The texts (at least one, none empty).
    #[schema(min_items = 1)]
    texts: Vec<String>,
    /// A file name per text (optional; names give the ids that tell stored documents apart).
    file_sources: Option<Vec<String>>,
    /// Per-request chunking.
    chunking: Option<ChunkingRequest>,
}

/// Estimate the cost of inserting texts
///
/// Documents, chunks, LLM calls (extraction, gleaning, expected summaries), input and output
/// tokens, embedding tokens and cost at `LLM_PRICE_INPUT` / `LLM_PRICE_OUTPUT` /
/// `EMBEDDING_PRICE`; no model is called and nothing is stored. Input tokens are the real prompts
/// counted with the tokenizer; output tokens and summaries are modelled.
#[utoipa::path(post, path = "/documents/estimate", tag = "documents", request_body = EstimateRequest, responses(
    (status = 200, description = "The estimate", body = Object),
    (status = 400, description = "file_sources of the wrong length", body = ErrorResponse),
    (status = 422, description = "No texts, an empty text or unsupported chunking", body = ValidationErrorResponse),
))]
pub(crate) async fn estimate(Ws(ws): Ws, ApiJson(req): ApiJson<EstimateRequest>) -> Result<Json<Value>, ApiError> {
    if req.texts.is_empty() {
        return Err(ApiError::invalid(&["texts"], "List should have at least 1 item"));
    }
    if let Some(i) = req.texts.iter().position(|t| t.trim().is_empty()) {
        return Err(ApiError::invalid(&["texts", &i.to_string()], "String should have at least 1 character"));
    }
    let sources: Vec<Option<String>> = match req.file_sources {
        Some(sources) if sources.len() != req.texts.len() => {
            return Err(ApiError::BadRequest(format!(
                "file_sources must name each of the {} texts (got {})",
                req.texts.len(),
                sources.len()
            )));
        }
        Some(sources) => sources.into_iter().map(Some).collect(),
        None => vec![None; req.texts.len()],
    };
    let defaults = &ws.settings.engine.chunking;
    let chunking = match req.chunking {
        Some(request) => request.options(defaults.chunk_size, defaults.chunk_overlap)?,
        None => Default::default(),
    };
    let docs = req
        .texts
        .iter()
        .zip(sources)
        .enumerate()
        .map(|(i, (text, file_source))| {
            insert::typed_document(&["texts", &i.to_string()], text, file_source, Default::default(), chunking.clone())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let estimate = estimate_cost(&ws.engine, docs).await?;
    let body = serde_json::to_value(estimate)
        .map_err(|e| ApiError::Internal(format!("the estimate could not be written as JSON: {e}")))?;
    Ok(Json(body))
}
