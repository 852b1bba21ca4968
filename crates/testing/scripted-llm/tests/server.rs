//! The scripted server answers every prompt kind over real HTTP, streams, and injects faults.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may fail loudly

use lightrag_scripted_llm::{Fault, PromptKind, RouteKind, ScriptConfig, ScriptedLlm, ScriptedServer};
use serde_json::{Value, json};

fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().build().unwrap()
}

async fn start() -> ScriptedServer {
    ScriptedLlm::start(ScriptConfig::default()).await.unwrap()
}

async fn chat(server: &ScriptedServer, messages: Value) -> (u16, Value) {
    let resp = client()
        .post(format!("{}/chat/completions", server.base_url()))
        .json(&json!({"model": "m", "messages": messages}))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

fn content(v: &Value) -> &str {
    v["choices"][0]["message"]["content"].as_str().unwrap()
}

const EXTRACT_PROMPT: &str =
    "Extract.\n---Input Text---\n```\nAlice Smith founded Acme Corp in Berlin.\n```\n\nOutput:";

#[tokio::test]
async fn answers_every_prompt_kind() {
    let server = start().await;

    let (status, v) =
        chat(&server, json!([{"role": "system", "content": "rules"}, {"role": "user", "content": EXTRACT_PROMPT}]))
            .await;
    assert_eq!(status, 200);
    let extraction = content(&v).to_string();
    assert!(extraction.starts_with("entity<|#|>Alice Smith<|#|>person<|#|>"), "{extraction}");
    assert!(extraction.contains("entity<|#|>Acme Corp<|#|>organization<|#|>"));
    assert!(extraction.contains("entity<|#|>Berlin<|#|>location<|#|>"));
    assert!(extraction.contains("relation<|#|>Alice Smith<|#|>Acme Corp<|#|>founded<|#|>"));
    assert!(extraction.ends_with("<|COMPLETE|>"));
    assert!(v["usage"]["prompt_tokens"].as_u64().unwrap() > 0);

    let (_, v) = chat(
        &server,
        json!([
            {"role": "user", "content": EXTRACT_PROMPT},
            {"role": "assistant", "content": extraction},
            {"role": "user", "content": "Find what you missed."}
        ]),
    )
    .await;
    assert_eq!(content(&v), "<|COMPLETE|>");

    let summary = "Name: Acme Corp\nDescription List:\n```\n{\"Description\": \"A firm. Big.\"}\n{\"Description\": \"Makes things.\"}\n```\n";
    let (_, v) = chat(&server, json!([{"role": "user", "content": summary}])).await;
    assert_eq!(content(&v), "Acme Corp: A firm. Makes things.");

    let keywords =
        "Give high_level_keywords and low_level_keywords as JSON.\nUser Query:\nWhere is Acme Corp based?\n\n";
    let (_, v) = chat(&server, json!([{"role": "user", "content": keywords}])).await;
    let parsed: Value = serde_json::from_str(content(&v)).unwrap();
    assert_eq!(parsed["low_level_keywords"], json!(["Acme Corp"]));
    assert_eq!(parsed["high_level_keywords"], json!(["based"]));

    let system = "Document Chunks:\n{\"content\": \"Acme is in Berlin\"}\nReference Document List:\n[1] acme.txt\n";
    let (_, v) =
        chat(&server, json!([{"role": "system", "content": system}, {"role": "user", "content": "Where?"}])).await;
    let answer = content(&v);
    assert!(answer.starts_with("Answer based on 4 context lines. {\"content\": \"Acme is in Berlin\"}"), "{answer}");
    assert!(answer.ends_with("### References\n\n- [1] acme.txt"));

    let stats = server.stats();
    assert_eq!((stats.extract, stats.glean, stats.summary, stats.keywords, stats.answer), (1, 1, 1, 1, 1));
    assert_eq!(stats.status_count(200), 5);
    assert_eq!(server.calls(PromptKind::Summary), 1);
    assert_eq!(server.last_request().unwrap().prompt, Some(PromptKind::Answer));
    server.shutdown().await;
}

#[tokio::test]
async fn streams_sse_that_reassembles_to_the_plain_answer() {
    let server = start().await;
    let (_, plain) = chat(&server, json!([{"role": "user", "content": EXTRACT_PROMPT}])).await;
    let body = client()
        .post(format!("{}/chat/completions", server.base_url()))
        .json(&json!({"model": "m", "stream": true, "stream_options": {"include_usage": true},
                      "messages": [{"role": "user", "content": EXTRACT_PROMPT}]}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut text = String::new();
    let mut saw_usage = false;
    let events: Vec<&str> = body.split("\n\n").filter(|e| !e.is_empty()).collect();
    assert_eq!(events.last(), Some(&"data: [DONE]"));
    for event in &events[..events.len() - 1] {
        let v: Value = serde_json::from_str(event.strip_prefix("data: ").unwrap()).unwrap();
        if let Some(piece) = v["choices"][0]["delta"]["content"].as_str() {
            text.push_str(piece);
        }
        saw_usage |= v["usage"]["completion_tokens"].as_u64().is_some();
    }
    assert!(events.len() > 4);
    assert!(saw_usage);
    assert_eq!(text, content(&plain));
    assert_eq!(server.stats().streamed, 1);
}

#[tokio::test]
async fn stream_delay_spreads_the_pieces_over_time() {
    let pause = std::time::Duration::from_millis(40);
    let server = ScriptedLlm::start(ScriptConfig { stream_delay: pause, ..ScriptConfig::default() }).await.unwrap();
    let mut response = client()
        .post(format!("{}/chat/completions", server.base_url()))
        .json(&json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": EXTRACT_PROMPT}]}))
        .send()
        .await
        .unwrap();
    let start = std::time::Instant::now();
    let mut reads = 0;
    let mut body = String::new();
    while let Some(bytes) = response.chunk().await.unwrap() {
        reads += 1;
        body.push_str(std::str::from_utf8(&bytes).unwrap());
    }
    let frames = body.split("\n\n").filter(|e| !e.is_empty()).count();
    // every frame after the first waits `pause`: the last one cannot come earlier than this
    assert!(start.elapsed() >= pause * (frames as u32 - 2), "{frames} frames in {:?}", start.elapsed());
    assert!(reads > 1, "the pieces arrived as {reads} read(s)");
    assert!(body.ends_with("data: [DONE]\n\n"));
}

#[tokio::test]
async fn embeddings_are_ordered_sized_and_deterministic() {
    let server = start().await;
    let post = |input: Value| {
        client().post(format!("{}/embeddings", server.base_url())).json(&json!({"model": "e", "input": input})).send()
    };
    let v: Value = post(json!(["alpha beta", "gamma", "alpha beta"])).await.unwrap().json().await.unwrap();
    let data = v["data"].as_array().unwrap();
    assert_eq!(data.len(), 3);
    assert_eq!(data[1]["index"], 1);
    assert_eq!(data[0]["embedding"].as_array().unwrap().len(), 64);
    assert_eq!(data[0]["embedding"], data[2]["embedding"]);
    assert_ne!(data[0]["embedding"], data[1]["embedding"]);
    let sized: Value = client()
        .post(format!("{}/embeddings", server.base_url()))
        .json(&json!({"model": "e", "input": "one", "dimensions": 16}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(sized["data"][0]["embedding"].as_array().unwrap().len(), 16);
    let stats = server.stats();
    assert_eq!((stats.embed, stats.embed_texts), (2, 4));
}

#[tokio::test]
async fn reversed_embedding_order_keeps_indexes() {
    let config = ScriptConfig { reverse_embedding_order: true, dim: 8, ..ScriptConfig::default() };
    let server = ScriptedLlm::start(config).await.unwrap();
    let v: Value = client()
        .post(format!("{}/embeddings", server.base_url()))
        .json(&json!({"model": "e", "input": ["a", "b"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["data"][0]["index"], 1);
    assert_eq!(v["data"][0]["embedding"].as_array().unwrap().len(), 8);
}

#[tokio::test]
async fn ollama_routes_answer_json_and_ndjson() {
    let server = start().await;
    let url = format!("{}/api/chat", server.root_url());
    let msgs = json!([{"role": "user", "content": "Hello there, how are you doing today my friend?"}]);
    let v: Value = client()
        .post(&url)
        .json(&json!({"model": "o", "stream": false, "messages": msgs}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["done"], true);
    let plain = v["message"]["content"].as_str().unwrap().to_string();
    assert!(plain.starts_with("Answer based on 0 context lines."));
    assert!(v["eval_count"].as_u64().unwrap() > 0);
    // Streaming is the Ollama default.
    let body =
        client().post(&url).json(&json!({"model": "o", "messages": msgs})).send().await.unwrap().text().await.unwrap();
    let lines: Vec<Value> = body.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.len() > 2);
    assert_eq!(lines.last().unwrap()["done"], true);
    let joined: String = lines.iter().filter_map(|l| l["message"]["content"].as_str()).collect();
    assert_eq!(joined, plain);
    let e: Value = client()
        .post(format!("{}/api/embed", server.root_url()))
        .json(&json!({"model": "o", "input": ["x y", "z"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(e["embeddings"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn azure_routes_need_api_version_and_the_key() {
    let config = ScriptConfig { api_key: Some("k1".into()), ..ScriptConfig::default() };
    let server = ScriptedLlm::start(config).await.unwrap();
    let base = format!("{}/openai/deployments/dep/chat/completions", server.root_url());
    let body = json!({"messages": [{"role": "user", "content": "hi"}]});
    let no_version = client().post(&base).header("api-key", "k1").json(&body).send().await.unwrap();
    assert_eq!(no_version.status().as_u16(), 400);
    let url = format!("{base}?api-version=2024-08-01-preview");
    let wrong_key = client().post(&url).header("api-key", "nope").json(&body).send().await.unwrap();
    assert_eq!(wrong_key.status().as_u16(), 401);
    let ok = client().post(&url).header("api-key", "k1").json(&body).send().await.unwrap();
    assert_eq!(ok.status().as_u16(), 200);
    let last = server.last_request().unwrap();
    assert_eq!(last.path, "/openai/deployments/dep/chat/completions?api-version=2024-08-01-preview");
    assert_eq!(last.header("api-key"), Some("k1"));
    let bearer_missing =
        client().post(format!("{}/chat/completions", server.base_url())).json(&body).send().await.unwrap();
    assert_eq!(bearer_missing.status().as_u16(), 401);
    let emb = client()
        .post(format!("{}/openai/deployments/dep/embeddings?api-version=1", server.root_url()))
        .header("api-key", "k1")
        .json(&json!({"input": ["a"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(emb.status().as_u16(), 200);
    assert_eq!(server.stats().status_count(401), 2);
}

#[tokio::test]
async fn faults_apply_in_order_and_by_kind() {
    let server = start().await;
    server.set_faults(vec![
        Fault::rate_limit(1).on_route(RouteKind::Chat),
        Fault::server_error(1).on_route(RouteKind::Embed),
        Fault::malformed_extraction(1),
        Fault::invalid_json(1).on_prompt(PromptKind::Answer),
    ]);
    let user = |c: &str| json!([{"role": "user", "content": c}]);
    let limited = client()
        .post(format!("{}/chat/completions", server.base_url()))
        .json(&json!({"messages": user("hi")}))
        .send()
        .await
        .unwrap();
    assert_eq!(limited.status().as_u16(), 429);
    assert_eq!(limited.headers()["retry-after"], "0");
    let (status, _) = chat(&server, user(EXTRACT_PROMPT)).await;
    assert_eq!(status, 200);
    // The malformed fault was used by that extraction.
    assert_eq!(server.pending_faults().len(), 2);
    let broken = client()
        .post(format!("{}/chat/completions", server.base_url()))
        .json(&json!({"messages": user("plain question")}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(serde_json::from_str::<Value>(&broken).is_err());
    let emb =
        client().post(format!("{}/embeddings", server.base_url())).json(&json!({"input": ["a"]})).send().await.unwrap();
    assert_eq!(emb.status().as_u16(), 500);
    assert!(server.pending_faults().is_empty());
    let stats = server.stats();
    assert_eq!(stats.faults_injected, 4);
    assert_eq!((stats.status_count(429), stats.status_count(500), stats.status_count(200)), (1, 1, 2));
}

#[tokio::test]
async fn malformed_extraction_and_delay_faults_change_the_answer() {
    let server = start().await;
    server.push_fault(Fault::malformed_extraction(1));
    let (_, v) = chat(&server, json!([{"role": "user", "content": EXTRACT_PROMPT}])).await;
    let text = content(&v);
    assert!(!text.contains("<|COMPLETE|>"));
    assert!(text.contains("<|##|>"));
    server.push_fault(Fault::reply("<think>hmm</think>{\"low_level_keywords\": []}", 1).on_prompt(PromptKind::Answer));
    let (_, v) = chat(&server, json!([{"role": "user", "content": EXTRACT_PROMPT}])).await;
    assert!(content(&v).ends_with("<|COMPLETE|>"), "the reply fault must wait for an answer prompt");
    let (_, v) = chat(&server, json!([{"role": "user", "content": "question"}])).await;
    assert_eq!(content(&v), "<think>hmm</think>{\"low_level_keywords\": []}");
    server.push_fault(Fault::delay(300, 1));
    let started = std::time::Instant::now();
    let (status, _) = chat(&server, json!([{"role": "user", "content": "x"}])).await;
    assert_eq!(status, 200);
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
}

#[tokio::test]
async fn control_routes_set_faults_and_report_stats() {
    let server = start().await;
    let c = client();
    let set: Value = c
        .post(format!("{}/_control/faults", server.root_url()))
        .json(&json!({"faults": [{"route": "chat", "prompt": "keywords", "action": {"kind": "server_error"}, "count": 2}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(set["pending"][0]["count"], 2);
    assert_eq!(server.pending_faults(), vec![Fault::server_error(2).on_prompt(PromptKind::Keywords)]);
    let bad = c.post(format!("{}/_control/faults", server.root_url())).body("{\"nope\": 1}").send().await.unwrap();
    assert_eq!(bad.status().as_u16(), 400);
    chat(&server, json!([{"role": "user", "content": "q"}])).await;
    let stats: Value =
        c.get(format!("{}/_control/stats", server.root_url())).send().await.unwrap().json().await.unwrap();
    assert_eq!(stats["answer"], 1);
    assert_eq!(stats["statuses"]["200"], 1);
    let models: Value = c.get(format!("{}/models", server.base_url())).send().await.unwrap().json().await.unwrap();
    assert_eq!(models["data"][0]["id"], "scripted");
    c.post(format!("{}/_control/reset", server.root_url())).send().await.unwrap();
    assert_eq!(server.stats().answer, 0);
    assert!(server.pending_faults().is_empty());
}

#[test]
fn works_without_an_async_runtime_and_stops_on_drop() {
    let server = ScriptedLlm::start_blocking(ScriptConfig::default()).unwrap();
    let addr = server.addr();
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    use std::io::{Read, Write};
    let body = "{\"input\": \"hello\"}";
    write!(
        stream,
        "POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    drop(server);
    let mut refused = false;
    for _ in 0..50 {
        if std::net::TcpStream::connect(addr).is_err() {
            refused = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(refused, "the server still accepts connections after drop");
}
