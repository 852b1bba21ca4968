//! HTTP routes: OpenAI-compatible, Ollama native, Azure OpenAI, and control routes.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::extract::malformed_extraction_output;
use crate::faults::{Fault, FaultAction, RouteKind};
use crate::generate::{embed_text, respond};
use crate::recognise::{PromptKind, Recognised, messages_from_body, recognise};
use crate::server::Shared;
use crate::stats::RecordedRequest;
use crate::text::word_count;

type AppState = State<Arc<Shared>>;

/// Which wire dialect a route speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    OpenAi,
    Azure,
    Ollama,
    /// Gemini API: `x-goog-api-key`, errors as `{"error": {"code", "message", "status"}}`.
    Gemini,
    /// Bedrock Runtime: SigV4 (or a bearer API key), errors as `{"message"}` plus
    /// `x-amzn-ErrorType`.
    Bedrock,
    /// lollms: bearer or raw `Authorization` key.
    Lollms,
    /// Jina, Voyage, Cohere, DashScope: bearer key, errors as `{"message", "detail"}`.
    Service,
}

/// The complete router.
pub(crate) fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/chat/completions", post(openai_chat))
        .route("/v1/embeddings", post(openai_embed))
        .route("/v1/models", get(models))
        .route("/api/chat", post(ollama_chat))
        .route("/api/embed", post(ollama_embed))
        .route("/api/tags", get(ollama_tags))
        .route("/openai/deployments/{deployment}/chat/completions", post(azure_chat))
        .route("/openai/deployments/{deployment}/embeddings", post(azure_embed))
        .merge(crate::providers::router())
        .merge(crate::services::router())
        .route("/_control/faults", post(control_set_faults).get(control_get_faults))
        .route("/_control/stats", get(control_stats))
        .route("/_control/reset", post(control_reset))
        .with_state(shared)
}

/// The parts of a request every handler records.
pub(crate) struct Incoming {
    pub method: Method,
    pub uri: Uri,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Incoming {
    pub(crate) fn record(&self, body: &Value, prompt: Option<PromptKind>) -> RecordedRequest {
        let headers: BTreeMap<String, String> = self
            .headers
            .iter()
            .filter_map(|(k, v)| v.to_str().ok().map(|v| (k.as_str().to_lowercase(), v.to_string())))
            .collect();
        RecordedRequest {
            method: self.method.to_string(),
            path: self.uri.path_and_query().map(|p| p.to_string()).unwrap_or_default(),
            headers,
            body: body.clone(),
            prompt,
        }
    }
}

async fn openai_chat(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    chat(s, Dialect::OpenAi, Incoming { method: m, uri: u, headers: h, body: b }).await
}
async fn azure_chat(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    chat(s, Dialect::Azure, Incoming { method: m, uri: u, headers: h, body: b }).await
}
async fn ollama_chat(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    chat(s, Dialect::Ollama, Incoming { method: m, uri: u, headers: h, body: b }).await
}
async fn openai_embed(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    embed(s, Dialect::OpenAi, Incoming { method: m, uri: u, headers: h, body: b }).await
}
async fn azure_embed(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    embed(s, Dialect::Azure, Incoming { method: m, uri: u, headers: h, body: b }).await
}
async fn ollama_embed(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    embed(s, Dialect::Ollama, Incoming { method: m, uri: u, headers: h, body: b }).await
}

/// Parses the body and checks `api-version` (Azure) and the key. `Err` is the refusal to send.
pub(crate) fn admit(shared: &Shared, dialect: Dialect, req: &Incoming) -> Result<Value, Box<Response>> {
    let Ok(body) = serde_json::from_slice::<Value>(&req.body) else {
        shared.record_only(req.record(&Value::Null, None));
        return Err(Box::new(refuse(shared, dialect, StatusCode::BAD_REQUEST, "request body is not valid JSON")));
    };
    if dialect == Dialect::Azure && !req.uri.query().unwrap_or("").contains("api-version=") {
        shared.record_only(req.record(&body, None));
        return Err(Box::new(refuse(shared, dialect, StatusCode::BAD_REQUEST, "missing api-version query parameter")));
    }
    if dialect == Dialect::Bedrock && shared.config.aws.is_some() {
        if let Err(reason) = crate::sigv4::verify(shared, req) {
            shared.record_only(req.record(&body, None));
            return Err(Box::new(refuse(shared, dialect, StatusCode::FORBIDDEN, &reason)));
        }
        return Ok(body);
    }
    if let Some(key) = &shared.config.api_key {
        let header_value = |name: &str| req.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        let bearer =
            || header_value(header::AUTHORIZATION.as_str()).and_then(|v| v.strip_prefix("Bearer ").map(str::to_string));
        let given = match dialect {
            Dialect::Azure => header_value("api-key"),
            Dialect::Gemini => header_value("x-goog-api-key"),
            // lollms' embedding route sends the key as it is, its generation route as a bearer token
            Dialect::Lollms => bearer().or_else(|| header_value(header::AUTHORIZATION.as_str())),
            _ => bearer(),
        };
        if given.as_deref() != Some(key.as_str()) {
            shared.record_only(req.record(&body, None));
            return Err(Box::new(refuse(shared, dialect, StatusCode::UNAUTHORIZED, "invalid or missing API key")));
        }
    }
    Ok(body)
}

/// Gemini's (gRPC) status name of an HTTP status.
fn google_status(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => "INTERNAL",
    }
}

/// Bedrock's error type of an HTTP status.
fn aws_error_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "ValidationException",
        403 => "InvalidSignatureException",
        404 => "ResourceNotFoundException",
        429 => "ThrottlingException",
        503 => "ServiceUnavailableException",
        _ => "InternalServerException",
    }
}

/// An error answer in the dialect's shape, counted in the stats.
pub(crate) fn refuse(shared: &Shared, dialect: Dialect, status: StatusCode, message: &str) -> Response {
    shared.finish(status.as_u16(), None);
    let code = status.as_u16();
    let body = match dialect {
        Dialect::Ollama => json!({ "error": message }),
        Dialect::Gemini => json!({ "error": { "code": code, "message": message, "status": google_status(status) } }),
        Dialect::Bedrock => json!({ "message": message }),
        Dialect::Lollms | Dialect::Service => json!({ "message": message, "detail": message }),
        Dialect::OpenAi | Dialect::Azure => {
            json!({ "error": { "message": message, "type": "scripted_error", "code": code } })
        }
    };
    let mut response = (status, Json(body)).into_response();
    if dialect == Dialect::Bedrock {
        response.headers_mut().insert("x-amzn-errortype", header::HeaderValue::from_static(aws_error_type(status)));
    }
    if status == StatusCode::TOO_MANY_REQUESTS {
        response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("0"));
    }
    response
}

/// A 200 answer whose body fails before its first byte: the server drops the connection.
fn broken_answer() -> Response {
    let failing = futures::stream::once(async {
        Err::<axum::body::Bytes, std::io::Error>(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "scripted reset",
        ))
    });
    let mut response = Response::new(axum::body::Body::from_stream(failing));
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    response
}

/// Applies the configured delay and a delay fault; answers 429/500 faults. `Ok` carries the
/// fault still to apply to the content (malformed or invalid JSON).
pub(crate) async fn apply_fault(
    shared: &Shared,
    dialect: Dialect,
    fault: Option<FaultAction>,
) -> Result<Option<FaultAction>, Response> {
    let mut delay = shared.config.delay;
    if let Some(FaultAction::Delay { ms }) = &fault {
        delay += Duration::from_millis(*ms);
    }
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    match fault {
        Some(FaultAction::RateLimit { retry_after_secs }) => {
            let mut response = refuse(shared, dialect, StatusCode::TOO_MANY_REQUESTS, "scripted rate limit");
            response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from(retry_after_secs));
            Err(response)
        }
        Some(FaultAction::ServerError) => {
            Err(refuse(shared, dialect, StatusCode::INTERNAL_SERVER_ERROR, "scripted server error"))
        }
        Some(FaultAction::Status { code }) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            Err(refuse(shared, dialect, status, "scripted error status"))
        }
        Some(FaultAction::Reset) => Err(broken_answer()),
        Some(FaultAction::Delay { .. }) | None => Ok(None),
        other => Ok(other),
    }
}

/// A generated chat answer, before it is put in a dialect's shape.
pub(crate) struct ChatAnswer {
    pub content: String,
    pub usage: Usage,
    /// An invalid-JSON fault applies.
    pub invalid: bool,
}

/// Recognises the conversation, counts it, applies faults and generates the answer. `Err` is a
/// faulted answer to send as it is.
pub(crate) async fn chat_answer(
    shared: &Shared,
    dialect: Dialect,
    req: &Incoming,
    body: &Value,
    messages: &[crate::recognise::Message],
    stream: bool,
) -> Result<ChatAnswer, Response> {
    let recognised = recognise(messages);
    let kind = recognised.kind();
    let fault = shared.begin(req.record(body, Some(kind)), RouteKind::Chat, None, stream);
    let fault = apply_fault(shared, dialect, fault).await?;
    let content = match (&fault, &recognised) {
        (Some(FaultAction::MalformedExtraction), Recognised::Extract { text }) => malformed_extraction_output(text),
        (Some(FaultAction::Reply { content }), _) => content.clone(),
        _ => respond(&recognised, shared.config.glean_extra_entity),
    };
    let invalid = fault == Some(FaultAction::InvalidJson);
    let prompt_tokens: u64 = messages.iter().map(|m| word_count(&m.content)).sum();
    let completion_tokens = word_count(&content);
    shared.finish(200, (!invalid).then_some((prompt_tokens, completion_tokens)));
    Ok(ChatAnswer { content, usage: Usage { prompt: prompt_tokens, completion: completion_tokens }, invalid })
}

async fn chat(shared: Arc<Shared>, dialect: Dialect, req: Incoming) -> Response {
    let body = match admit(&shared, dialect, &req) {
        Ok(body) => body,
        Err(refusal) => return *refusal,
    };
    let messages = messages_from_body(&body);
    if messages.is_empty() {
        shared.record_only(req.record(&body, None));
        return refuse(&shared, dialect, StatusCode::BAD_REQUEST, "`messages` is missing or empty");
    }
    // Ollama streams unless told otherwise; OpenAI does not.
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(dialect == Dialect::Ollama);
    let ChatAnswer { content, usage, invalid } =
        match chat_answer(&shared, dialect, &req, &body, &messages, stream).await {
            Ok(answer) => answer,
            Err(response) => return response,
        };
    let model = body.get("model").and_then(Value::as_str).unwrap_or(&shared.config.model_name).to_string();
    match (dialect, stream) {
        (Dialect::Ollama, false) => ollama_reply(&model, &content, usage, invalid),
        (Dialect::Ollama, true) => ollama_stream(&model, &content, usage, invalid, shared.config.stream_delay),
        (_, false) => openai_reply(&model, &content, shared.config.report_usage.then_some(usage), invalid),
        (_, true) => {
            let include_usage = body.pointer("/stream_options/include_usage").and_then(Value::as_bool).unwrap_or(false);
            openai_stream(&model, &content, include_usage.then_some(usage), invalid, shared.config.stream_delay)
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct Usage {
    pub prompt: u64,
    pub completion: u64,
}

/// Pieces of about three words; concatenated they give back `content` exactly.
pub(crate) fn stream_pieces(content: &str) -> Vec<String> {
    let words: Vec<&str> = content.split_inclusive(' ').collect();
    words.chunks(3).map(|c| c.concat()).collect()
}

pub(crate) const BROKEN_JSON: &str = "{\"id\": \"scripted\", \"choices\": [{\"message\": {\"content\": \"trunc";

pub(crate) fn raw(status: StatusCode, content_type: &'static str, body: Body) -> Response {
    (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
}

fn openai_reply(model: &str, content: &str, usage: Option<Usage>, invalid: bool) -> Response {
    if invalid {
        return raw(StatusCode::OK, "application/json", Body::from(BROKEN_JSON));
    }
    let mut reply = json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": content },
            "finish_reason": "stop"
        }],
    });
    if let Some(usage) = usage {
        reply["usage"] = json!({
            "prompt_tokens": usage.prompt,
            "completion_tokens": usage.completion,
            "total_tokens": usage.prompt + usage.completion
        });
    }
    Json(reply).into_response()
}

/// A body sending `frames` one by one, `pause` apart (at once when `pause` is zero).
pub(crate) fn paced<T>(frames: Vec<T>, pause: Duration) -> Body
where
    T: Into<Bytes> + Send + 'static,
{
    let first = Instant::now();
    let frames = futures::stream::iter(frames.into_iter().enumerate()).then(move |(i, frame)| async move {
        if !pause.is_zero() && i > 0 {
            tokio::time::sleep_until((first + pause * i as u32).into()).await;
        }
        Ok::<Bytes, Infallible>(frame.into())
    });
    Body::from_stream(frames)
}

fn openai_stream(model: &str, content: &str, usage: Option<Usage>, invalid: bool, pause: Duration) -> Response {
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }]
        })
    };
    let mut events = vec![chunk(json!({ "role": "assistant", "content": "" }), Value::Null).to_string()];
    if invalid {
        events.push(BROKEN_JSON.to_string());
    } else {
        for piece in stream_pieces(content) {
            events.push(chunk(json!({ "content": piece }), Value::Null).to_string());
        }
        events.push(chunk(json!({}), json!("stop")).to_string());
        if let Some(u) = usage {
            let last = json!({
                "id": "chatcmpl-scripted",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [],
                "usage": { "prompt_tokens": u.prompt, "completion_tokens": u.completion,
                           "total_tokens": u.prompt + u.completion }
            });
            events.push(last.to_string());
        }
    }
    events.push("[DONE]".to_string());
    let frames = events.into_iter().map(|e| format!("data: {e}\n\n")).collect();
    raw(StatusCode::OK, "text/event-stream", paced(frames, pause))
}

fn ollama_message(model: &str, content: &str, done: bool) -> Value {
    json!({
        "model": model,
        "created_at": "1970-01-01T00:00:00Z",
        "message": { "role": "assistant", "content": content },
        "done": done
    })
}

fn ollama_final(model: &str, content: &str, usage: Usage) -> Value {
    let mut v = ollama_message(model, content, true);
    v["done_reason"] = json!("stop");
    v["prompt_eval_count"] = json!(usage.prompt);
    v["eval_count"] = json!(usage.completion);
    v
}

fn ollama_reply(model: &str, content: &str, usage: Usage, invalid: bool) -> Response {
    if invalid {
        return raw(StatusCode::OK, "application/json", Body::from(BROKEN_JSON));
    }
    Json(ollama_final(model, content, usage)).into_response()
}

fn ollama_stream(model: &str, content: &str, usage: Usage, invalid: bool, pause: Duration) -> Response {
    let mut lines: Vec<String> = Vec::new();
    if invalid {
        lines.push(BROKEN_JSON.to_string());
    } else {
        for piece in stream_pieces(content) {
            lines.push(ollama_message(model, &piece, false).to_string());
        }
        lines.push(ollama_final(model, "", usage).to_string());
    }
    let frames = lines.into_iter().map(|l| format!("{l}\n")).collect();
    raw(StatusCode::OK, "application/x-ndjson", paced(frames, pause))
}

async fn embed(shared: Arc<Shared>, dialect: Dialect, req: Incoming) -> Response {
    let body = match admit(&shared, dialect, &req) {
        Ok(body) => body,
        Err(refusal) => return *refusal,
    };
    let inputs: Option<Vec<String>> = match body.get("input") {
        Some(Value::String(s)) => Some(vec![s.clone()]),
        Some(Value::Array(items)) => items.iter().map(|i| i.as_str().map(str::to_string)).collect(),
        _ => None,
    };
    let Some(inputs) = inputs else {
        shared.record_only(req.record(&body, None));
        return refuse(&shared, dialect, StatusCode::BAD_REQUEST, "`input` must be a string or a list of strings");
    };
    let dim = match body.get("dimensions").and_then(Value::as_u64) {
        Some(d) if d > 0 && dialect != Dialect::Ollama => d as usize,
        _ => shared.config.dim,
    };
    let fault = shared.begin(req.record(&body, None), RouteKind::Embed, Some(inputs.len() as u64), false);
    let fault = match apply_fault(&shared, dialect, fault).await {
        Ok(fault) => fault,
        Err(response) => return response,
    };
    let invalid = fault == Some(FaultAction::InvalidJson);
    let tokens: u64 = inputs.iter().map(|t| word_count(t)).sum();
    shared.finish(200, (!invalid).then_some((tokens, 0)));
    if invalid {
        return raw(StatusCode::OK, "application/json", Body::from("{\"data\": [{\"embedding\": [0.1, "));
    }
    let model = body.get("model").and_then(Value::as_str).unwrap_or(&shared.config.model_name).to_string();
    let vectors: Vec<Vec<f32>> = inputs.iter().map(|t| embed_text(t, dim)).collect();
    if dialect == Dialect::Ollama {
        return Json(json!({ "model": model, "embeddings": vectors, "prompt_eval_count": tokens })).into_response();
    }
    let mut data: Vec<Value> = vectors
        .into_iter()
        .enumerate()
        .map(|(i, v)| json!({ "object": "embedding", "index": i, "embedding": v }))
        .collect();
    if shared.config.reverse_embedding_order {
        data.reverse();
    }
    Json(json!({
        "object": "list",
        "data": data,
        "model": model,
        "usage": { "prompt_tokens": tokens, "total_tokens": tokens }
    }))
    .into_response()
}

async fn models(State(shared): AppState) -> Response {
    let id = shared.config.model_name.clone();
    Json(json!({ "object": "list", "data": [{ "id": id, "object": "model", "created": 0, "owned_by": "scripted" }] }))
        .into_response()
}

async fn ollama_tags(State(shared): AppState) -> Response {
    let name = shared.config.model_name.clone();
    Json(json!({ "models": [{ "name": name, "model": name, "size": 0 }] })).into_response()
}

/// Body of `POST /_control/faults`: a list, one fault, or `{"faults": [...], "append": bool}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum FaultsBody {
    Wrapped {
        faults: Vec<Fault>,
        #[serde(default)]
        append: bool,
    },
    List(Vec<Fault>),
    One(Fault),
}

async fn control_set_faults(State(shared): AppState, body: Bytes) -> Response {
    let parsed: Result<FaultsBody, _> = serde_json::from_slice(&body);
    match parsed {
        Ok(FaultsBody::Wrapped { faults, append: true }) => shared.push_faults(faults),
        Ok(FaultsBody::Wrapped { faults, append: false }) | Ok(FaultsBody::List(faults)) => shared.set_faults(faults),
        Ok(FaultsBody::One(fault)) => shared.set_faults(vec![fault]),
        Err(e) => {
            let message =
                format!("expected a fault, a list of faults, or {{\"faults\": [...], \"append\": bool}}: {e}");
            return (StatusCode::BAD_REQUEST, Json(json!({ "error": message }))).into_response();
        }
    }
    Json(json!({ "pending": shared.pending_faults() })).into_response()
}

async fn control_get_faults(State(shared): AppState) -> Response {
    Json(json!({ "pending": shared.pending_faults() })).into_response()
}

async fn control_stats(State(shared): AppState) -> Response {
    Json(shared.stats()).into_response()
}

async fn control_reset(State(shared): AppState) -> Response {
    shared.reset_stats();
    shared.set_faults(Vec::new());
    Json(json!({ "ok": true })).into_response()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn stream_pieces_reassemble_exactly() {
        let text = "entity<|#|>A B<|#|>person<|#|>x y z\nline two  with  spaces \n<|COMPLETE|>";
        let pieces = stream_pieces(text);
        assert!(pieces.len() > 2);
        assert_eq!(pieces.concat(), text);
        assert!(stream_pieces("").is_empty());
    }
}
