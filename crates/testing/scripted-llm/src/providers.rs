//! Chat and embedding routes of the non-OpenAI providers: Gemini API, Amazon Bedrock Runtime and
//! lollms. Shapes follow the providers' public API references:
//! * Gemini `models.generateContent` / `streamGenerateContent` (`contents[].parts[].text`,
//!   `systemInstruction`, answers in `candidates[].content.parts[]` with `usageMetadata`; SSE
//!   with `alt=sse`), `models.embedContent` (`embedding.values`) and `batchEmbedContents`
//!   (`embeddings[].values`);
//! * Bedrock `Converse` (`messages[].content[].text`, `system[]`, answer in
//!   `output.message.content[]`, `usage.inputTokens/outputTokens`), `ConverseStream` (event
//!   stream: `messageStart`, `contentBlockDelta`, `contentBlockStop`, `messageStop`, `metadata`)
//!   and `InvokeModel` for Titan (`inputText` → `embedding`) and Cohere (`texts` → `embeddings`);
//! * lollms `/lollms_generate` (one `prompt`, plain-text answer) and `/lollms_embed`
//!   (`text` → `vector`).
//!
//! References: Gemini API reference, <https://ai.google.dev/api> (`generateContent`,
//! `streamGenerateContent` over SSE, `embedContent`, `batchEmbedContents`; the key in
//! `x-goog-api-key`); Amazon Bedrock API reference,
//! <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html> and
//! `API_runtime_ConverseStreamOutput.html` (events `messageStart`, `contentBlockDelta`,
//! `contentBlockStop`, `messageStop`, `metadata`; exceptions such as `throttlingException` 429,
//! `modelStreamErrorException` 424); lollms: the client of LightRAG 1.5.7 (`lollms.py`), the only
//! description of that API LightRAG relies on.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

use crate::eventstream;
use crate::faults::{FaultAction, RouteKind};
use crate::generate::embed_text;
use crate::recognise::Message;
use crate::routes::{
    BROKEN_JSON, ChatAnswer, Dialect, Incoming, admit, apply_fault, chat_answer, paced, raw, refuse, stream_pieces,
};
use crate::server::Shared;
use crate::text::word_count;

type AppState = State<Arc<Shared>>;

pub(crate) fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/v1beta/models/{call}", post(gemini))
        .route("/v1/models/{call}", post(gemini))
        .route("/model/{model}/converse", post(bedrock_converse))
        .route("/model/{model}/converse-stream", post(bedrock_converse_stream))
        .route("/model/{model}/invoke", post(bedrock_invoke))
        .route("/lollms_generate", post(lollms_generate))
        .route("/lollms_embed", post(lollms_embed))
}

fn texts_of(parts: Option<&Value>) -> String {
    parts
        .and_then(Value::as_array)
        .map(|p| p.iter().filter_map(|x| x.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

// ------------------------------------------------------------------------------------------------
// Gemini
// ------------------------------------------------------------------------------------------------

fn gemini_messages(body: &Value) -> Vec<Message> {
    let mut out = Vec::new();
    let system = texts_of(body.pointer("/systemInstruction/parts"));
    if !system.is_empty() {
        out.push(Message { role: "system".into(), content: system });
    }
    for c in body.get("contents").and_then(Value::as_array).into_iter().flatten() {
        let role = match c.get("role").and_then(Value::as_str) {
            Some("model") => "assistant",
            _ => "user",
        };
        out.push(Message { role: role.into(), content: texts_of(c.get("parts")) });
    }
    out
}

fn gemini_response(text: &str, usage: Option<crate::routes::Usage>, finish: bool) -> Value {
    let mut candidate = json!({ "content": { "role": "model", "parts": [{ "text": text }] }, "index": 0 });
    if finish {
        candidate["finishReason"] = json!("STOP");
    }
    let mut v = json!({ "candidates": [candidate], "modelVersion": "scripted" });
    if let Some(u) = usage {
        v["usageMetadata"] = json!({
            "promptTokenCount": u.prompt,
            "candidatesTokenCount": u.completion,
            "totalTokenCount": u.prompt + u.completion
        });
    }
    v
}

async fn gemini(
    State(shared): AppState,
    Path(call): Path<String>,
    m: Method,
    u: Uri,
    h: HeaderMap,
    b: Bytes,
) -> Response {
    let req = Incoming { method: m, uri: u, headers: h, body: b };
    let body = match admit(&shared, Dialect::Gemini, &req) {
        Ok(body) => body,
        Err(refusal) => return *refusal,
    };
    let action = call.rsplit(':').next().unwrap_or("");
    match action {
        "generateContent" | "streamGenerateContent" => {
            let messages = gemini_messages(&body);
            if messages.iter().all(|m| m.role != "user") {
                shared.record_only(req.record(&body, None));
                return refuse(&shared, Dialect::Gemini, StatusCode::BAD_REQUEST, "`contents` is missing or empty");
            }
            let stream = action == "streamGenerateContent";
            let ChatAnswer { content, usage, invalid } =
                match chat_answer(&shared, Dialect::Gemini, &req, &body, &messages, stream).await {
                    Ok(a) => a,
                    Err(r) => return r,
                };
            if !stream {
                if invalid {
                    return raw(StatusCode::OK, "application/json", Body::from(BROKEN_JSON));
                }
                return Json(gemini_response(&content, Some(usage), true)).into_response();
            }
            let mut events: Vec<String> = if invalid {
                vec![BROKEN_JSON.to_string()]
            } else {
                stream_pieces(&content).iter().map(|p| gemini_response(p, None, false).to_string()).collect()
            };
            if !invalid {
                events.push(gemini_response("", Some(usage), true).to_string());
            }
            let frames: Vec<String> = events.into_iter().map(|e| format!("data: {e}\r\n\r\n")).collect();
            raw(StatusCode::OK, "text/event-stream", paced(frames, shared.config.stream_delay))
        }
        "embedContent" | "batchEmbedContents" => {
            let items: Vec<Value> = if action == "embedContent" {
                vec![body.clone()]
            } else {
                body.get("requests").and_then(Value::as_array).cloned().unwrap_or_default()
            };
            let texts: Vec<String> = items.iter().map(|i| texts_of(i.pointer("/content/parts"))).collect();
            if texts.is_empty() || texts.iter().any(String::is_empty) {
                shared.record_only(req.record(&body, None));
                return refuse(
                    &shared,
                    Dialect::Gemini,
                    StatusCode::BAD_REQUEST,
                    "every request needs content parts with text",
                );
            }
            let dim = items
                .first()
                .and_then(|i| i.get("outputDimensionality"))
                .and_then(Value::as_u64)
                .map_or(shared.config.dim, |d| d as usize);
            let fault = shared.begin(req.record(&body, None), RouteKind::Embed, Some(texts.len() as u64), false);
            let fault = match apply_fault(&shared, Dialect::Gemini, fault).await {
                Ok(f) => f,
                Err(r) => return r,
            };
            let tokens: u64 = texts.iter().map(|t| word_count(t)).sum();
            shared.finish(200, Some((tokens, 0)));
            if fault == Some(FaultAction::InvalidJson) {
                return raw(StatusCode::OK, "application/json", Body::from("{\"embedding\": {\"values\": [0.1,"));
            }
            // Gemini's reduced-size vectors are not unit length: scale them so the client must normalise
            let vectors: Vec<Vec<f32>> =
                texts.iter().map(|t| embed_text(t, dim).into_iter().map(|x| x * 3.0).collect()).collect();
            if action == "embedContent" {
                Json(json!({ "embedding": { "values": vectors[0] } })).into_response()
            } else {
                let list: Vec<Value> = vectors.iter().map(|v| json!({ "values": v })).collect();
                Json(json!({ "embeddings": list })).into_response()
            }
        }
        other => {
            shared.record_only(req.record(&body, None));
            refuse(&shared, Dialect::Gemini, StatusCode::NOT_FOUND, &format!("unknown method {other}"))
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Bedrock
// ------------------------------------------------------------------------------------------------

fn bedrock_messages(body: &Value) -> Vec<Message> {
    let mut out = Vec::new();
    let system = texts_of(body.get("system"));
    if !system.is_empty() {
        out.push(Message { role: "system".into(), content: system });
    }
    for m in body.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user").to_string();
        out.push(Message { role, content: texts_of(m.get("content")) });
    }
    out
}

async fn bedrock_chat(shared: Arc<Shared>, req: Incoming, stream: bool) -> Result<(ChatAnswer, Value), Response> {
    let body = admit(&shared, Dialect::Bedrock, &req).map_err(|r| *r)?;
    let messages = bedrock_messages(&body);
    if messages.iter().all(|m| m.role != "user") {
        shared.record_only(req.record(&body, None));
        return Err(refuse(&shared, Dialect::Bedrock, StatusCode::BAD_REQUEST, "messages must contain a user message"));
    }
    let answer = chat_answer(&shared, Dialect::Bedrock, &req, &body, &messages, stream).await?;
    Ok((answer, body))
}

fn bedrock_usage(u: crate::routes::Usage) -> Value {
    json!({ "inputTokens": u.prompt, "outputTokens": u.completion, "totalTokens": u.prompt + u.completion })
}

async fn bedrock_converse(State(shared): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    let req = Incoming { method: m, uri: u, headers: h, body: b };
    match bedrock_chat(shared, req, false).await {
        Ok((ChatAnswer { invalid: true, .. }, _)) => raw(StatusCode::OK, "application/json", Body::from(BROKEN_JSON)),
        Ok((ChatAnswer { content, usage, .. }, _)) => Json(json!({
            "output": { "message": { "role": "assistant", "content": [{ "text": content }] } },
            "stopReason": "end_turn",
            "usage": bedrock_usage(usage),
            "metrics": { "latencyMs": 1 }
        }))
        .into_response(),
        Err(r) => r,
    }
}

async fn bedrock_converse_stream(State(shared): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    let req = Incoming { method: m, uri: u, headers: h, body: b };
    let pause = shared.config.stream_delay;
    let (answer, _) = match bedrock_chat(shared, req, true).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let mut frames: Vec<Vec<u8>> = vec![eventstream::event("messageStart", &json!({ "role": "assistant" }))];
    if answer.invalid {
        frames.push(eventstream::exception("modelStreamErrorException", "scripted broken stream"));
    } else {
        for piece in stream_pieces(&answer.content) {
            frames.push(eventstream::event(
                "contentBlockDelta",
                &json!({ "contentBlockIndex": 0, "delta": { "text": piece } }),
            ));
        }
        frames.push(eventstream::event("contentBlockStop", &json!({ "contentBlockIndex": 0 })));
        frames.push(eventstream::event("messageStop", &json!({ "stopReason": "end_turn" })));
        frames.push(eventstream::event(
            "metadata",
            &json!({ "usage": bedrock_usage(answer.usage), "metrics": { "latencyMs": 1 } }),
        ));
    }
    raw(StatusCode::OK, "application/vnd.amazon.eventstream", paced(frames, pause))
}

async fn bedrock_invoke(
    State(shared): AppState,
    Path(model): Path<String>,
    m: Method,
    u: Uri,
    h: HeaderMap,
    b: Bytes,
) -> Response {
    let req = Incoming { method: m, uri: u, headers: h, body: b };
    let body = match admit(&shared, Dialect::Bedrock, &req) {
        Ok(body) => body,
        Err(refusal) => return *refusal,
    };
    let cohere = model.starts_with("cohere.");
    let texts: Vec<String> = if cohere {
        body.get("texts")
            .and_then(Value::as_array)
            .map(|t| t.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    } else {
        body.get("inputText").and_then(Value::as_str).map(|t| vec![t.to_string()]).unwrap_or_default()
    };
    if texts.is_empty() {
        shared.record_only(req.record(&body, None));
        let what = if cohere { "`texts` is required" } else { "`inputText` is required" };
        return refuse(&shared, Dialect::Bedrock, StatusCode::BAD_REQUEST, what);
    }
    let dim = body.get("dimensions").and_then(Value::as_u64).map_or(shared.config.dim, |d| d as usize);
    let fault = shared.begin(req.record(&body, None), RouteKind::Embed, Some(texts.len() as u64), false);
    let fault = match apply_fault(&shared, Dialect::Bedrock, fault).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let tokens: u64 = texts.iter().map(|t| word_count(t)).sum();
    shared.finish(200, Some((tokens, 0)));
    if fault == Some(FaultAction::InvalidJson) {
        return raw(StatusCode::OK, "application/json", Body::from("{\"embedding\": [0.1,"));
    }
    if cohere {
        let vectors: Vec<Vec<f32>> = texts.iter().map(|t| embed_text(t, dim)).collect();
        Json(json!({ "id": "scripted", "embeddings": vectors, "texts": texts, "response_type": "embeddings_floats" }))
            .into_response()
    } else {
        let v = embed_text(&texts[0], dim);
        Json(json!({ "embedding": v, "embeddingsByType": { "float": v }, "inputTextTokenCount": tokens }))
            .into_response()
    }
}

// ------------------------------------------------------------------------------------------------
// lollms
// ------------------------------------------------------------------------------------------------

/// lollms receives one prompt (system, `role: content` history lines, the new prompt). A prompt
/// with an earlier `assistant:` turn is split there, so a gleaning call is told from the
/// extraction before it.
fn lollms_messages(prompt: &str) -> Vec<Message> {
    let system = Message { role: "system".into(), content: prompt.to_string() };
    match prompt.find("\nassistant: ") {
        Some(at) => vec![
            system,
            Message { role: "user".into(), content: prompt[..at].to_string() },
            Message { role: "assistant".into(), content: String::new() },
            Message { role: "user".into(), content: prompt[at + 1..].to_string() },
        ],
        None => vec![system, Message { role: "user".into(), content: prompt.to_string() }],
    }
}

async fn lollms_generate(State(shared): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    let req = Incoming { method: m, uri: u, headers: h, body: b };
    let body = match admit(&shared, Dialect::Lollms, &req) {
        Ok(body) => body,
        Err(refusal) => return *refusal,
    };
    let Some(prompt) = body.get("prompt").and_then(Value::as_str).filter(|p| !p.is_empty()) else {
        shared.record_only(req.record(&body, None));
        return refuse(&shared, Dialect::Lollms, StatusCode::BAD_REQUEST, "`prompt` is required");
    };
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let messages = lollms_messages(prompt);
    let ChatAnswer { content, invalid, .. } =
        match chat_answer(&shared, Dialect::Lollms, &req, &body, &messages, stream).await {
            Ok(a) => a,
            Err(r) => return r,
        };
    let content = if invalid { "\u{fffd}".to_string() } else { content };
    if stream {
        raw(StatusCode::OK, "text/plain; charset=utf-8", paced(stream_pieces(&content), shared.config.stream_delay))
    } else {
        raw(StatusCode::OK, "text/plain; charset=utf-8", Body::from(content))
    }
}

async fn lollms_embed(State(shared): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    let req = Incoming { method: m, uri: u, headers: h, body: b };
    let body = match admit(&shared, Dialect::Lollms, &req) {
        Ok(body) => body,
        Err(refusal) => return *refusal,
    };
    let Some(text) = body.get("text").and_then(Value::as_str).map(str::to_string) else {
        shared.record_only(req.record(&body, None));
        return refuse(&shared, Dialect::Lollms, StatusCode::BAD_REQUEST, "`text` is required");
    };
    let fault = shared.begin(req.record(&body, None), RouteKind::Embed, Some(1), false);
    let fault = match apply_fault(&shared, Dialect::Lollms, fault).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    shared.finish(200, Some((word_count(&text), 0)));
    if fault == Some(FaultAction::InvalidJson) {
        return raw(StatusCode::OK, "application/json", Body::from("{\"vector\": [0.1,"));
    }
    Json(json!({ "vector": embed_text(&text, shared.config.dim) })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognise::{PromptKind, recognise};

    #[test]
    fn lollms_prompts_split_at_the_assistant_turn() {
        let extract = "rules\n---Input Text---\n```\nAda met Bob.\n```\n";
        assert_eq!(recognise(&lollms_messages(extract)).kind(), PromptKind::Extract);
        let glean = format!("rules\nuser: {extract}\nassistant: entity<|#|>Ada<|#|>person<|#|>x\n---Task---\nMore?");
        assert_eq!(recognise(&lollms_messages(&glean)).kind(), PromptKind::Glean);
    }
}
