//! `POST /api/chat`: retrieval-augmented chat. The last message is the question (its prefix picks
//! the mode), earlier ones are the conversation history. `/bypass` and, in non-streamed chats,
//! Open WebUI's background tasks go straight to the LLM.

use axum::Json;
use axum::body::Bytes;
use axum::response::{IntoResponse, Response};
use lightrag_engine::Engine;
use lightrag_engine::retrieval::query::{Answer, QueryMode, QueryParam};
use lightrag_ports::ChatRequest;

use super::OllamaError;
use super::models::{Clock, Flavor, NO_RESPONSE, OllamaChatRequest, history, parse_body};
use super::prefix::{ChatQuery, is_open_webui_task, parse_chat_query};
use super::stream::{LineContext, ndjson_response, pieces, whole_text};
use crate::errors::ApiError;
use crate::workspace::Ws;

/// Chats with the knowledge base; a prefix such as `/local` or `/bypass` picks the mode.
#[utoipa::path(post, path = "/api/chat", tag = "ollama",
    request_body(content = super::models::OllamaChatRequest, description = "JSON whatever the Content-Type"),
    responses(
        (status = 200, description = "The answer: one JSON object, or NDJSON lines when streaming (the default)", body = Object),
        (status = 400, description = "Unreadable body, no messages, or the last message is not from the user", body = crate::schemas::ErrorResponse),
        (status = 503, description = "The call needs an LLM and none is configured", body = crate::schemas::ErrorResponse),
    ))]
pub(crate) async fn chat(Ws(ws): Ws, body: Bytes) -> Result<Response, OllamaError> {
    let req: OllamaChatRequest = parse_body(&body)?;
    let Some((last, earlier)) = req.messages.split_last() else {
        return Err(ApiError::BadRequest("No messages provided".into()).into());
    };
    if last.role != "user" {
        return Err(ApiError::BadRequest("Last message must be from user role".into()).into());
    }
    let history = history(earlier)?;
    let asked = parse_chat_query(&last.content, ws.engine.config().query.default_mode);
    // a mode prefix can take the whole message ("/local"): checked after it is removed
    super::require_query(&asked.query)?;
    let engine = ws.engine.clone();
    let ctx = LineContext {
        flavor: Flavor::Chat,
        model: ws.settings.server.ollama_model(),
        clock: Clock::start(),
        prompt_tokens: engine.count_tokens(&asked.query),
        engine,
    };
    let direct = asked.mode == QueryMode::Bypass || (!req.stream && is_open_webui_task(&asked.query));
    if direct {
        if !ctx.engine.has_llm() {
            return Err(OllamaError::NoLlm("/api/chat with /bypass (or an Open WebUI task)"));
        }
        let request = ChatRequest { system: req.system, history, prompt: asked.query, ..ChatRequest::default() };
        return direct_answer(ctx, &request, req.stream).await;
    }
    super::require_rag_query(&asked.query)?;
    rag_answer(ctx, asked, history, req.stream).await
}

/// The LLM answers `request` without retrieval.
async fn direct_answer(mut ctx: LineContext, request: &ChatRequest, stream: bool) -> Result<Response, OllamaError> {
    if stream {
        let source = ctx.engine.complete_stream(request).await?;
        return Ok(ndjson_response(pieces(ctx, source)));
    }
    ctx.clock.mark();
    let text = ctx.engine.complete(request).await?;
    ctx.clock.mark();
    Ok(whole_reply(&ctx, text))
}

/// Retrieval in the asked mode, then the answer (or the context, with a `…context` prefix).
async fn rag_answer(
    mut ctx: LineContext,
    asked: ChatQuery,
    history: Vec<lightrag_ports::ChatMessage>,
    stream: bool,
) -> Result<Response, OllamaError> {
    let param = QueryParam {
        mode: asked.mode,
        only_need_context: asked.only_need_context,
        stream,
        top_k: Some(ctx.engine.config().query.top_k),
        conversation_history: history,
        user_prompt: asked.user_prompt,
        ..QueryParam::default()
    };
    if !stream {
        ctx.clock.mark();
    }
    let result = query(&ctx.engine, &asked.query, &param).await?;
    match result {
        Answer::Stream(source) => Ok(ndjson_response(pieces(ctx, source))),
        answer if stream => Ok(ndjson_response(whole_text(ctx, answer_text(answer)))),
        answer => {
            ctx.clock.mark();
            Ok(whole_reply(&ctx, answer_text(answer)))
        }
    }
}

async fn query(engine: &Engine, question: &str, param: &QueryParam) -> Result<Answer, OllamaError> {
    Ok(engine.query(question, param).await?.answer)
}

fn answer_text(answer: Answer) -> String {
    match answer {
        Answer::Text(t) | Answer::Context(t) | Answer::Prompt(t) | Answer::NoContext(t) => t,
        Answer::Stream(_) => String::new(),
    }
}

/// The non-streamed chat response.
fn whole_reply(ctx: &LineContext, text: String) -> Response {
    let text = if text.is_empty() { NO_RESPONSE.to_string() } else { text };
    let timings = ctx.clock.timings(ctx.prompt_tokens, ctx.engine.count_tokens(&text));
    Json(Flavor::Chat.final_line(&ctx.model, &text, &timings)).into_response()
}
