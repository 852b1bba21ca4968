//! The Ollama emulation (`/api/*`) against the scripted LLM, through the router (no socket).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::{Harness, Reply, TEXT_A};
use lightrag_scripted_llm::{Fault, PromptKind};
use serde_json::{Value, json};

const QUESTION: &str = "Who works at Acme Corporation?";
const TIMING_FIELDS: [&str; 6] =
    ["total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration"];

/// A request with a raw body and an optional content type.
async fn raw(h: &Harness, uri: &str, content_type: Option<&str>, body: &str) -> Reply {
    let mut builder = Request::builder().method(Method::POST).uri(uri);
    if let Some(ct) = content_type {
        builder = builder.header("content-type", ct);
    }
    h.send(builder.body(Body::from(body.to_string())).unwrap()).await
}

fn chat_body(messages: Value, stream: bool) -> Value {
    json!({"model": "lightrag:latest", "messages": messages, "stream": stream})
}

fn user(content: &str) -> Value {
    json!([{"role": "user", "content": content}])
}

/// Non-streamed chat: asserts 200 and the chat shape, returns the answer text.
async fn chat_text(h: &Harness, content: &str) -> String {
    let reply = h.post("/api/chat", chat_body(user(content), false)).await;
    assert_eq!(reply.status, StatusCode::OK, "{content}: {}", reply.text());
    let v = reply.json();
    assert_eq!(v["message"]["role"], "assistant", "{v}");
    assert!(v["message"]["images"].is_null(), "{v}");
    assert_eq!(v["done"], true);
    assert_eq!(v["done_reason"], "stop");
    for field in TIMING_FIELDS {
        assert!(v[field].is_u64(), "{field} missing: {v}");
    }
    v["message"]["content"].as_str().unwrap().to_string()
}

/// Checks NDJSON framing: content type, every line a JSON object, only the last one `done`.
/// Returns the lines.
fn ndjson_lines(reply: &Reply) -> Vec<Value> {
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.headers["content-type"], "application/x-ndjson");
    let text = reply.text();
    assert!(text.ends_with('\n'), "{text:?}");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("line is not JSON ({e}): {l:?}")))
        .collect();
    assert!(lines.len() >= 2, "{text}");
    let (last, pieces) = lines.split_last().unwrap();
    assert_eq!(last["done"], true, "{last}");
    assert!(pieces.iter().all(|l| l["done"] == false), "{text}");
    assert!(lines.iter().all(|l| l["model"] == "lightrag:latest" && l["created_at"] == "2024-01-15T00:00:00Z"));
    lines
}

/// The last line of a successful stream carries the timings; the pieces concatenate to the answer.
fn streamed_answer(lines: &[Value], field: &str) -> String {
    let (last, pieces) = lines.split_last().unwrap();
    assert_eq!(last["done_reason"], "stop", "{last}");
    for f in TIMING_FIELDS {
        assert!(last[f].is_u64(), "{f} missing: {last}");
    }
    assert!(last["eval_count"].as_u64().unwrap() > 0, "{last}");
    assert_eq!(last.pointer(field).unwrap(), "", "{last}");
    pieces.iter().map(|l| l.pointer(field).unwrap().as_str().unwrap()).collect()
}

fn last_messages(h: &Harness) -> Vec<Value> {
    h.llm.last_request().unwrap().body["messages"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_tags_and_ps_have_ollama_shapes() {
    let h = Harness::new(&[("OLLAMA_EMULATING_MODEL_NAME", "kb"), ("OLLAMA_EMULATING_MODEL_TAG", "v2")]).await;
    assert_eq!(h.get("/api/version").await.json(), json!({"version": "0.9.3"}));
    let tags = h.get("/api/tags").await.json();
    assert_eq!(
        tags,
        json!({"models": [{
            "name": "kb:v2", "model": "kb:v2", "modified_at": "2024-01-15T00:00:00Z",
            "size": 7365960935u64, "digest": "sha256:lightrag",
            "details": {"parent_model": "", "format": "gguf", "family": "kb", "families": ["kb"],
                        "parameter_size": "13B", "quantization_level": "Q4_0"}
        }]})
    );
    let ps = h.get("/api/ps").await.json();
    assert_eq!(
        ps,
        json!({"models": [{
            "name": "kb:v2", "model": "kb:v2", "size": 7365960935u64, "digest": "sha256:lightrag",
            "details": {"parent_model": "", "format": "gguf", "family": "llama", "families": ["llama"],
                        "parameter_size": "7.2B", "quantization_level": "Q4_0"},
            "expires_at": "2050-12-31T14:38:31.83753-07:00", "size_vram": 7365960935u64
        }]})
    );
    // the model name also names every answer line
    let v = h.post("/api/generate", json!({"model": "x", "prompt": "Hello there"})).await.json();
    assert_eq!(v["model"], "kb:v2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_goes_straight_to_the_llm() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    h.llm.reset_stats();
    let body = json!({"model": "lightrag:latest", "prompt": "Tell me about Acme Corporation", "system": "Be brief."});
    let reply = h.post("/api/generate", body.clone()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let v = reply.json();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    for key in ["model", "created_at", "response", "done", "done_reason", "context"].iter().chain(&TIMING_FIELDS) {
        assert!(keys.contains(key), "{key} missing: {v}");
    }
    assert_eq!(
        (v["done"].clone(), v["done_reason"].clone(), v["context"].clone()),
        (json!(true), json!("stop"), json!([]))
    );
    assert_eq!(v["load_duration"], 0);
    assert!(v["prompt_eval_count"].as_u64().unwrap() >= 4, "{v}");
    assert!(v["eval_count"].as_u64().unwrap() > 0, "{v}");
    let total = v["total_duration"].as_u64().unwrap();
    assert!(total >= v["eval_duration"].as_u64().unwrap() && total > 0, "{v}");
    let answer = v["response"].as_str().unwrap().to_string();
    assert!(answer.starts_with("Answer based on"), "{answer}");
    // no retrieval: no embedding, no keywords; one answer call with the system prompt
    let stats = h.llm.stats();
    assert_eq!((stats.embed, stats.keywords, stats.answer), (0, 0, 1), "{stats:?}");
    let messages = last_messages(&h);
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0], json!({"role": "system", "content": "Be brief."}));
    assert_eq!(messages[1], json!({"role": "user", "content": "Tell me about Acme Corporation"}));

    // streamed: NDJSON pieces that add up to the same answer, then the timings
    let mut body = body;
    body["stream"] = json!(true);
    let lines = ndjson_lines(&h.post("/api/generate", body).await);
    assert!(lines.len() > 2, "the answer comes in several pieces");
    assert_eq!(streamed_answer(&lines, "/response"), answer);
    assert_eq!(lines.last().unwrap()["context"], json!([]));
    assert_eq!(h.llm.stats().embed, 0);
    assert_eq!(h.llm.stats().streamed, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_answers_in_every_mode() {
    // no response cache: the same question in `mix` and with no prefix must both reach the LLM
    let h = Harness::new(&[("ENABLE_LLM_CACHE", "false")]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    for prefix in ["", "/local ", "/global ", "/naive ", "/hybrid ", "/mix "] {
        h.llm.reset_stats();
        let answer = chat_text(&h, &format!("{prefix}{QUESTION}")).await;
        assert!(answer.starts_with("Answer based on"), "{prefix}: {answer}");
        let stats = h.llm.stats();
        assert_eq!(stats.answer, 1, "{prefix}: {stats:?}");
        assert!(stats.embed >= 1, "{prefix}: retrieval embeds the query: {stats:?}");
        let messages = last_messages(&h);
        let system = messages[0]["content"].as_str().unwrap();
        assert!(system.contains("Acme"), "{prefix}: the context is in the system prompt: {system}");
        let graph = system.contains("Knowledge Graph Data");
        assert_eq!(graph, prefix != "/naive ", "{prefix}: graph context only outside naive mode");
        assert_eq!(messages.last().unwrap()["content"], QUESTION, "{prefix}: the prefix is removed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_passes_history_and_bracket_instructions() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    let messages = json!([
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello! Ask me about the documents."},
        {"role": "user", "content": format!("/local[Answer in exactly one line] {QUESTION}")}
    ]);
    let reply = h.post("/api/chat", chat_body(messages, false)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let sent = last_messages(&h);
    assert_eq!(sent.len(), 4, "system, two history turns, question: {sent:?}");
    assert!(sent[0]["content"].as_str().unwrap().contains("Answer in exactly one line"));
    assert_eq!(sent[1], json!({"role": "user", "content": "Hi"}));
    assert_eq!(sent[2]["role"], "assistant");
    assert_eq!(sent[3], json!({"role": "user", "content": QUESTION}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_prefixes_return_the_context_without_an_answer_call() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    h.llm.reset_stats();
    let context = chat_text(&h, &format!("/context {QUESTION}")).await;
    assert!(context.contains("Knowledge Graph Data") && context.contains("Acme"), "{context}");
    let naive = chat_text(&h, &format!("/naivecontext {QUESTION}")).await;
    assert!(!naive.contains("Knowledge Graph Data") && naive.contains("Acme"), "{naive}");
    // streamed: the context as one piece, then the closing line
    let reply =
        h.post("/api/chat", json!({"model": "m", "messages": user(&format!("/localcontext {QUESTION}"))})).await;
    let lines = ndjson_lines(&reply);
    assert_eq!(lines.len(), 2);
    assert!(streamed_answer(&lines, "/message/content").contains("Knowledge Graph Data"));
    let stats = h.llm.stats();
    assert_eq!((stats.answer, stats.streamed), (0, 0), "no answer call: {stats:?}");
    assert!(stats.embed >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bypass_and_open_webui_tasks_skip_retrieval() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    h.llm.reset_stats();
    let body = json!({
        "model": "lightrag:latest",
        "system": "You are terse.",
        "stream": false,
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"},
            {"role": "user", "content": "/bypass Tell me a joke"}
        ]
    });
    let reply = h.post("/api/chat", body.clone()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert!(reply.json()["message"]["content"].as_str().unwrap().starts_with("Answer based on"));
    let sent = last_messages(&h);
    assert_eq!(sent[0], json!({"role": "system", "content": "You are terse."}));
    assert_eq!(sent[1], json!({"role": "user", "content": "Hi"}));
    assert_eq!(sent[3], json!({"role": "user", "content": "Tell me a joke"}));
    // streamed bypass
    let mut streamed = body;
    streamed["stream"] = json!(true);
    let lines = ndjson_lines(&h.post("/api/chat", streamed).await);
    assert!(!streamed_answer(&lines, "/message/content").is_empty());
    // Open WebUI's title task, not streamed: straight to the LLM
    let task =
        "### Task:\nGenerate a title.\n<chat_history>\nUSER: Who is Alice?\nASSISTANT: A person.\n</chat_history>";
    let title = chat_text(&h, task).await;
    assert!(!title.is_empty());
    assert_eq!(last_messages(&h).last().unwrap()["content"], task);
    let stats = h.llm.stats();
    assert_eq!((stats.embed, stats.keywords, stats.answer), (0, 0, 3), "no retrieval: {stats:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_streams_ndjson_by_default() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    let reply = h.post("/api/chat", json!({"model": "lightrag:latest", "messages": user(QUESTION)})).await;
    let lines = ndjson_lines(&reply);
    assert!(lines.len() > 2, "several pieces");
    let streamed = streamed_answer(&lines, "/message/content");
    assert!(lines.iter().all(|l| l.get("context").is_none() && l["message"]["role"] == "assistant"));
    assert_eq!(h.llm.stats().streamed, 1);
    let whole = chat_text(&h, QUESTION).await;
    assert_eq!(streamed, whole);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_are_json_whatever_the_content_type() {
    let h = Harness::new(&[]).await;
    let generate = r#"{"model": "m", "prompt": "Hello there"}"#;
    for ct in [Some("application/json"), Some("application/octet-stream"), Some("text/plain"), None] {
        let reply = raw(&h, "/api/generate", ct, generate).await;
        assert_eq!(reply.status, StatusCode::OK, "{ct:?}: {}", reply.text());
        assert!(!reply.json()["response"].as_str().unwrap().is_empty());
    }
    let chat = r#"{"model": "m", "stream": false, "messages": [{"role": "user", "content": "/bypass hi"}]}"#;
    let reply = raw(&h, "/api/chat", Some("application/octet-stream"), chat).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["done"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_400() {
    let h = Harness::new(&[]).await;
    let detail = |r: &Reply| r.json()["detail"].as_str().unwrap().to_string();
    for uri in ["/api/chat", "/api/generate"] {
        let reply = raw(&h, uri, Some("application/json"), "{not json").await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{uri}");
        assert!(detail(&reply).starts_with("Invalid JSON in request body"), "{}", detail(&reply));
    }
    let reply = h.post("/api/generate", json!({"model": "m"})).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(detail(&reply).contains("prompt"), "{}", detail(&reply));
    let reply = h.post("/api/chat", json!({"model": "m", "messages": [{"role": "user"}]})).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "missing content");
    assert!(detail(&reply).contains("content"), "{}", detail(&reply));

    let reply = h.post("/api/chat", chat_body(json!([]), false)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(detail(&reply), "No messages provided");
    let not_user = json!([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]);
    let reply = h.post("/api/chat", chat_body(not_user, true)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(detail(&reply), "Last message must be from user role");
    let odd_role = json!([{"role": "tool", "content": "x"}, {"role": "user", "content": "Hi"}]);
    let reply = h.post("/api/chat", chat_body(odd_role, false)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(detail(&reply).contains("messages[0].role"), "{}", detail(&reply));
    // an empty question after the prefix
    let reply = h.post("/api/chat", chat_body(user("/local    "), false)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    assert_eq!(h.llm.stats().chat_calls(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_failure_mid_stream_ends_with_an_error_line_then_done() {
    let h = Harness::new(&[("LLM_MAX_RETRIES", "0")]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    let requests = [
        ("/api/generate", json!({"model": "m", "prompt": "Hello there", "stream": true}), "/response"),
        ("/api/chat", json!({"model": "m", "messages": user("/bypass Hello there")}), "/message/content"),
        ("/api/chat", json!({"model": "m", "messages": user(QUESTION)}), "/message/content"),
    ];
    for (uri, body, field) in requests {
        h.llm.push_fault(Fault::invalid_json(1).on_prompt(PromptKind::Answer));
        let lines = ndjson_lines(&h.post(uri, body).await);
        assert_eq!(lines.len(), 2, "{uri}: {lines:?}");
        let error = &lines[0];
        let text = error["error"].as_str().unwrap();
        assert!(text.starts_with("\n\nError: Provider error: "), "{uri}: {error}");
        assert_eq!(error.pointer(field).unwrap(), text, "{uri}: the error is also the content");
        assert_eq!(error["done"], false);
        let done = &lines[1];
        assert_eq!(done["done"], true);
        assert_eq!(done.pointer(field).unwrap(), "");
        assert!(done.get("done_reason").is_none(), "{uri}: no timings after an error: {done}");
    }
    assert!(h.llm.pending_faults().is_empty());
    assert_eq!(h.llm.stats().faults_injected, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_failure_before_the_answer_is_500() {
    let h = Harness::new(&[("LLM_MAX_RETRIES", "0")]).await;
    h.llm.set_faults(vec![Fault::status(401, 2).on_prompt(PromptKind::Answer)]);
    let reply = h.post("/api/generate", json!({"model": "m", "prompt": "Hello there"})).await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR, "{}", reply.text());
    assert!(reply.json()["detail"].as_str().unwrap().starts_with("the LLM failed"), "{}", reply.text());
    let reply = h.post("/api/chat", json!({"model": "m", "messages": user("/bypass hi")})).await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR, "{}", reply.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_llm_direct_calls_are_503_and_chat_returns_the_context() {
    let h = Harness::new(&[("LLM_BINDING", "none")]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    let reply = h.post("/api/generate", json!({"model": "m", "prompt": "Hello there"})).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE, "{}", reply.text());
    assert!(reply.json()["detail"].as_str().unwrap().contains("LLM_BINDING=none"), "{}", reply.text());
    let reply = h.post("/api/chat", chat_body(user("/bypass hi"), true)).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE, "{}", reply.text());
    let context = chat_text(&h, QUESTION).await;
    assert!(context.contains("Acme"), "{context}");
    assert_eq!(h.llm.stats().chat_calls(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workspace_header_selects_the_knowledge_base() {
    let h = Harness::new(&[]).await;
    let ws = [("LIGHTRAG-WORKSPACE", "team_a")];
    h.insert(TEXT_A, "alice.txt", &ws).await;
    let body = chat_body(user(&format!("/context {QUESTION}")), false);
    let reply = h.call(Method::POST, "/api/chat", &ws, Some(body.clone())).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert!(reply.json()["message"]["content"].as_str().unwrap().contains("Acme"));
    // the default workspace is empty: LightRAG's no-context sentence
    let empty = h.post("/api/chat", body).await.json();
    assert!(empty["message"]["content"].as_str().unwrap().contains("[no-context]"), "{empty}");
}
