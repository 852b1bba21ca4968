//! `POST /api/generate`: no retrieval; the prompt (and `system`) go straight to the LLM.

use axum::Json;
use axum::body::Bytes;
use axum::response::{IntoResponse, Response};
use lightrag_ports::ChatRequest;

use super::OllamaError;
use super::models::{Clock, Flavor, NO_RESPONSE, OllamaGenerateRequest, parse_body};
use super::stream::{LineContext, ndjson_response, pieces};
use crate::workspace::Ws;

/// Sends the prompt straight to the LLM (no retrieval).
#[utoipa::path(post, path = "/api/generate", tag = "ollama",
    request_body(content = super::models::OllamaGenerateRequest, description = "JSON whatever the Content-Type"),
    responses(
        (status = 200, description = "The LLM's answer (no retrieval): one JSON object, or NDJSON lines with stream=true", body = Object),
        (status = 400, description = "Unreadable body, or an empty prompt", body = crate::schemas::ErrorResponse),
        (status = 503, description = "No LLM is configured", body = crate::schemas::ErrorResponse),
    ))]
pub(crate) async fn generate(Ws(ws): Ws, body: Bytes) -> Result<Response, OllamaError> {
    let req: OllamaGenerateRequest = parse_body(&body)?;
    super::require_query(&req.prompt)?;
    let engine = ws.engine.clone();
    if !engine.has_llm() {
        return Err(OllamaError::NoLlm("/api/generate"));
    }
    let model = ws.settings.server.ollama_model();
    let mut clock = Clock::start();
    let prompt_tokens = engine.count_tokens(&req.prompt);
    let request = ChatRequest { system: req.system, prompt: req.prompt, ..ChatRequest::default() };
    if req.stream {
        let source = engine.complete_stream(&request).await?;
        let ctx = LineContext { flavor: Flavor::Generate, model, clock, prompt_tokens, engine };
        return Ok(ndjson_response(pieces(ctx, source)));
    }
    clock.mark();
    let mut text = engine.complete(&request).await?;
    clock.mark();
    if text.is_empty() {
        text = NO_RESPONSE.to_string();
    }
    let timings = clock.timings(prompt_tokens, engine.count_tokens(&text));
    Ok(Json(Flavor::Generate.final_line(&model, &text, &timings)).into_response())
}
