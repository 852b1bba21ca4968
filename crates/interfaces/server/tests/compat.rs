//! LightRAG 1.5.7 compatibility gaps found when LightRAG clients were pointed at `lightrag serve`
//! (issue 9): one test per gap, named after what broke, checking status codes and shapes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeSet;

use axum::http::{Method, StatusCode};
use common::{Harness, TEXT_A, TEXT_B};
use lightrag_scripted_llm::{Fault, FaultAction, RouteKind};
use serde_json::{Value, json};

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn ui_customization_answers_200_without_a_bundle_not_404() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", "s3cret"), ("WEBUI_TITLE", "My KB")]).await;
    // open without credentials: LightRAG's welcome page asks before anyone logs in
    let reply = h.get("/ui/customization").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.headers["cache-control"], "no-store");
    assert_eq!(
        reply.json(),
        json!({"customized": false, "brand": {"title": "My KB", "description": "Simple and Fast RAG"}})
    );
    let with_locale = h.get("/ui/customization?locale=de").await;
    assert_eq!(with_locale.status, StatusCode::OK);
    let asset = h.get("/ui/customization/assets/abc/logo").await;
    assert_eq!(asset.status, StatusCode::NOT_FOUND);
}

const SEVEN: [&str; 7] = ["pending", "parsing", "analyzing", "processing", "preprocessed", "processed", "failed"];

#[tokio::test]
async fn status_counts_and_filters_know_all_seven_lightrag_statuses() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "a.txt", &[]).await;
    let mut all = set(&SEVEN);
    all.insert("all".into());

    let counts = h.get("/documents/status_counts").await.json();
    assert_eq!(keys(&counts["status_counts"]), all, "{counts}");
    assert_eq!(counts["status_counts"]["processed"], 1);
    assert_eq!(counts["status_counts"]["parsing"], 0);
    assert_eq!(counts["status_counts"]["all"], 1);

    let grouped = h.get("/documents").await.json();
    assert_eq!(keys(&grouped["statuses"]), set(&SEVEN), "{grouped}");

    for status in SEVEN {
        let page =
            h.post("/documents/paginated", json!({"page": 1, "page_size": 10, "status_filters": [status]})).await;
        assert_eq!(page.status, StatusCode::OK, "{status}: {}", page.text());
        let page = page.json();
        let expected = usize::from(status == "processed");
        assert_eq!(page["documents"].as_array().unwrap().len(), expected, "{status}");
        assert_eq!(keys(&page["status_counts"]), all);
    }
    let legacy =
        h.post("/documents/paginated", json!({"page": 1, "page_size": 10, "status_filter": "analyzing"})).await;
    assert_eq!(legacy.status, StatusCode::OK);
    let bad = h.post("/documents/paginated", json!({"page": 1, "page_size": 10, "status_filters": ["done"]})).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", bad.text());
}

/// Regression: `{"chunking": {"strategy": ..., "params": {...}}}` was a 422.
#[tokio::test]
async fn text_insert_accepts_lightrag_chunking_config_instead_of_422() {
    let h = Harness::new(&[]).await;
    let text: String = (0..60).map(|i| format!("Sentence number {i} mentions Acme Corporation. ")).collect();
    let body = json!({
        "text": text,
        "file_source": "sized.txt",
        "chunking": {"strategy": "fixed_token", "params": {"chunk_token_size": 120, "chunk_overlap_token_size": 10}},
    });
    let reply = h.post("/documents/text", body).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let track = reply.json()["track_id"].as_str().unwrap().to_string();
    let status = h.wait_track(&track, &[]).await;
    let doc = &status["documents"][0];
    assert_eq!(doc["status"], "processed", "{status}");
    // ~600 tokens in windows of 120 every 110: many more chunks than the default 1200 gives
    assert!(doc["chunks_count"].as_u64().unwrap() >= 5, "{doc}");

    let split = json!({
        "text": "First part.\n\nSecond part.\n\nThird part.",
        "file_source": "split.txt",
        "chunking": {"params": {"split_by_character": "\n\n", "split_by_character_only": true, "chunk_token_size": 5,
                                "chunk_overlap_token_size": 10}},
    });
    let reply = h.post("/documents/text", split).await;
    assert_eq!(reply.status, StatusCode::OK, "delimiter-only splitting never applies the overlap: {}", reply.text());
    let status = h.wait_track(reply.json()["track_id"].as_str().unwrap(), &[]).await;
    assert_eq!(status["documents"][0]["chunks_count"], 3, "{status}");

    for (strategy, params) in [
        ("recursive_character", json!({"separators": ["\n\n", "\n"]})),
        ("paragraph_semantic", json!({"drop_references": true})),
        ("semantic_vector", json!({"breakpoint_threshold_type": "percentile", "breakpoint_threshold_amount": 95})),
    ] {
        let body = json!({"text": "Some text.", "file_source": format!("{strategy}.txt"),
                          "chunking": {"strategy": strategy, "params": params}});
        let reply = h.post("/documents/text", body).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{strategy}: {}", reply.text());
        let detail = reply.json()["detail"].as_str().unwrap().to_string();
        assert!(detail.contains(strategy) && detail.contains("fixed_token"), "{detail}");
    }
    // strict validation, as LightRAG's TextChunkingConfig
    for chunking in [
        json!({"strategy": "fixed_token", "params": {"chunk_size": 100}}),
        json!({"strategy": "fixed_token", "params": {"chunk_token_size": "100"}}),
        json!({"strategy": "fixed_token", "params": {"chunk_token_size": true}}),
        json!({"strategy": "fixed_token", "params": {"chunk_token_size": 0}}),
        json!({"strategy": "fixed_token", "params": {"chunk_token_size": 50}}),
        json!({"strategy": "fixed_token", "params": {"chunk_token_size": 50, "chunk_overlap_token_size": 50}}),
        json!({"strategy": "fixed_token", "extra": 1}),
        json!({"strategy": "bogus"}),
        json!({"strategy": "custom"}),
        json!({"strategy": "semantic_vector", "params": {"breakpoint_threshold_amount": 150}}),
        json!({"strategy": "semantic_vector", "params": {"sentence_split_regex": "(a+)+$"}}),
    ] {
        let body = json!({"text": "Some text.", "file_source": "x.txt", "chunking": chunking});
        let reply = h.post("/documents/text", body).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{chunking}: {}", reply.text());
    }
    let texts = json!({"texts": ["One text."], "file_sources": ["t1.txt"],
                       "chunking": {"strategy": "fixed_token", "params": {"chunk_token_size": 300}}});
    assert_eq!(h.post("/documents/texts", texts).await.status, StatusCode::OK);
}

/// Regression: `/query` had no `llm_generated`/`response_time`, references had no `content` key.
#[tokio::test]
async fn query_carries_llm_generated_response_time_and_null_reference_content() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "a.txt", &[]).await;
    let q = "Where does Alice Smith work?";
    let reply = h.post("/query", json!({"query": q, "mode": "mix"})).await;
    assert_eq!(reply.status, StatusCode::OK);
    let v = reply.json();
    assert_eq!(v["llm_generated"], true, "{v}");
    assert!(v["response_time"].as_f64().unwrap() >= 0.0, "{v}");
    let refs = v["references"].as_array().unwrap();
    assert!(!refs.is_empty());
    for r in refs {
        assert_eq!(keys(r), set(&["content", "file_path", "reference_id"]), "{r}");
        assert!(r["content"].is_null(), "{r}");
    }
    let with_content = h.post("/query", json!({"query": q, "include_chunk_content": true})).await.json();
    assert!(with_content["references"][0]["content"].is_array(), "{with_content}");

    let context = h.post("/query", json!({"query": q, "only_need_context": true})).await.json();
    assert_eq!(context["llm_generated"], false, "the context is not an answer: {context}");
    let none = h.post("/query", json!({"query": q, "include_references": false})).await.json();
    assert!(none["references"].is_null());

    // /query/stream: the one complete line carries the flag; streamed pieces do not
    let line = h.post("/query/stream", json!({"query": q, "stream": false})).await.text();
    let first: Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    assert_eq!(first["llm_generated"], true, "{line}");
    let context_line = h.post("/query/stream", json!({"query": q, "only_need_context": true})).await.text();
    let context_line: Value = serde_json::from_str(context_line.lines().next().unwrap()).unwrap();
    assert_eq!(context_line["llm_generated"], false, "{context_line}");
    let streamed = h.post("/query/stream", json!({"query": q})).await.text();
    for line in streamed.lines().skip(1) {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(v.get("llm_generated").is_none(), "{line}");
    }
}

/// Regression: an embedding failure made `/query` a 500; LightRAG answers 200 with its fallback.
#[tokio::test]
async fn query_answers_fallback_sentence_when_the_embedder_fails() {
    let h = Harness::new(&[("LLM_MAX_RETRIES", "0")]).await;
    h.insert(TEXT_B, "b.txt", &[]).await;
    let fault = Fault { route: RouteKind::Embed, prompt: None, action: FaultAction::Status { code: 400 }, count: 50 };
    h.llm.set_faults(vec![fault]);
    let reply = h.post("/query", json!({"query": "Who leads the Zenith Laboratory?"})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let v = reply.json();
    assert_eq!(v["response"], "No relevant context found for the query.");
    assert_eq!(v["llm_generated"], false);
    assert_eq!(v["references"], json!([]));
    assert!(v["response_time"].is_number());

    let stream = h.post("/query/stream", json!({"query": "Who leads the Zenith Laboratory?"})).await;
    assert_eq!(stream.status, StatusCode::OK);
    let line: Value = serde_json::from_str(stream.text().lines().next().unwrap()).unwrap();
    assert_eq!(line["response"], "No relevant context found for the query.", "{line}");
    assert_eq!(line["llm_generated"], false);
    h.llm.set_faults(Vec::new());
}

const LIVENESS: [&str; 12] = [
    "status",
    "auth_mode",
    "core_version",
    "api_version",
    "webui_available",
    "workspace_available",
    "api_docs_available",
    "webui_title",
    "webui_description",
    "ai_content_notice_enabled",
    "pipeline_busy",
    "pipeline_active",
];

/// Regression: `/health` handed anyone the LLM and embedding hosts, storages and directories.
#[tokio::test]
async fn health_without_credentials_returns_only_liveness_fields() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", "s3cret"), ("ENABLE_AI_CONTENT_NOTICE", "true")]).await;
    let anonymous = h.get("/health").await;
    assert_eq!(anonymous.status, StatusCode::OK);
    let v = anonymous.json();
    assert_eq!(keys(&v), set(&LIVENESS), "{v}");
    assert_eq!(v["ai_content_notice_enabled"], true);
    assert_eq!(v["api_docs_available"], true);
    assert_eq!(v["workspace_available"], false);
    assert!(!v.to_string().contains(&h.llm.base_url()), "no hosts for anonymous callers");
    let wrong = h.call(Method::GET, "/health", &[("X-API-Key", "nope")], None).await.json();
    assert_eq!(keys(&wrong), set(&LIVENESS), "a wrong key is no credential");

    let full = h.call(Method::GET, "/health", &[("X-API-Key", "s3cret")], None).await.json();
    let mut expected = set(&LIVENESS);
    expected.extend(set(&[
        "working_directory",
        "input_directory",
        "configuration",
        "server_mode",
        "workers",
        "pipeline_scanning",
        "pipeline_destructive_busy",
        "pipeline_pending_enqueues",
        "scheduling",
        "capabilities",
        "scheduling_metrics",
        "keyed_locks",
        "llm_queue_status",
        "embedding_queue_status",
        "rerank_queue_status",
    ]));
    assert_eq!(keys(&full), expected, "{full}");
    for key in [
        "llm_binding",
        "llm_binding_host",
        "embedding_model",
        "storage_workspaces",
        "rerank_binding",
        "min_rerank_score",
        "parser_routing",
        "mineru",
        "docling",
        "role_llm_config",
    ] {
        assert!(full["configuration"].get(key).is_some(), "configuration.{key} missing: {full}");
    }
    // an open server: everyone is authenticated, as in LightRAG
    let open = Harness::new(&[]).await;
    assert!(open.get("/health").await.json().get("configuration").is_some());
}

/// Regression: an empty prompt was sent to the LLM (200) instead of LightRAG's 400.
#[tokio::test]
async fn ollama_empty_prompt_is_400_without_an_llm_call() {
    let h = Harness::new(&[]).await;
    let before = h.llm.stats();
    for (uri, body) in [
        ("/api/generate", json!({"model": "lightrag:latest", "prompt": "   ", "stream": false})),
        (
            "/api/chat",
            json!({"model": "lightrag:latest", "stream": false, "messages": [{"role": "user", "content": "  "}]}),
        ),
        (
            "/api/chat",
            json!({"model": "lightrag:latest", "stream": false, "messages": [{"role": "user", "content": "/local[a hint]"}]}),
        ),
        (
            "/api/chat",
            json!({"model": "lightrag:latest", "stream": false, "messages": [{"role": "user", "content": "/bypass "}]}),
        ),
    ] {
        let reply = h.post(uri, body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}: {}", reply.text());
        assert_eq!(reply.json()["detail"], "Query must not be empty.", "{body}");
    }
    let short = h
        .post(
            "/api/chat",
            json!({"model": "lightrag:latest", "stream": false, "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
    assert_eq!(short.status, StatusCode::BAD_REQUEST, "{}", short.text());
    assert!(short.text().contains("RAG query is too short"));
    let after = h.llm.stats();
    assert_eq!((after.answer, after.keywords, after.embed), (before.answer, before.keywords, before.embed));
}

/// Regression: editing or merging a missing entity or relation answered 404; LightRAG says 400.
#[tokio::test]
async fn graph_edit_or_merge_of_missing_entity_is_400_not_404() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "a.txt", &[]).await;
    for (uri, body) in [
        ("/graph/entity/edit", json!({"entity_name": "Nobody", "updated_data": {"description": "x"}})),
        (
            "/graph/relation/edit",
            json!({"source_id": "Nobody", "target_id": "Alice Smith", "updated_data": {"weight": 2.0}}),
        ),
        ("/graph/entities/merge", json!({"entities_to_change": ["Nobody"], "entity_to_change_into": "Alice Smith"})),
        (
            "/graph/relation/create",
            json!({"source_entity": "Nobody", "target_entity": "Alice Smith",
                                          "relation_data": {"description": "knows", "keywords": "k"}}),
        ),
    ] {
        let reply = h.post(uri, body).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{uri}: {}", reply.text());
        assert!(reply.json()["detail"].as_str().unwrap().contains("Nobody"), "{uri}");
    }
    // the delete routes keep LightRAG's 404
    let gone = h.call(Method::DELETE, "/graph/entity/delete", &[], Some(json!({"entity_name": "Nobody"}))).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
}

/// Regression: `MAX_UPLOAD_SIZE=0` stopped the server ("must be a positive integer"); LightRAG
/// reads it as no limit.
#[tokio::test]
async fn max_upload_size_zero_means_unlimited() {
    for value in ["0", "-1", "None"] {
        let h = Harness::new(&[("MAX_UPLOAD_SIZE", value)]).await;
        assert_eq!(h.state.settings().server.max_upload_size, None, "{value}");
        let big = "Acme Corporation hires engineers in Berlin. ".repeat(4000);
        let reply = h.upload("big.txt", big.as_bytes(), &[]).await;
        assert_eq!(reply.status, StatusCode::OK, "{value}: {}", reply.text());
    }
    let limited = Harness::new(&[("MAX_UPLOAD_SIZE", "1000")]).await;
    let reply = limited.upload("big.txt", &[b'a'; 5000], &[]).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
}

/// Regression: history roles other than user/assistant/system were a 422; LightRAG accepts any
/// non-empty role string.
#[tokio::test]
async fn conversation_history_accepts_the_roles_lightrag_accepts() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "a.txt", &[]).await;
    let history = json!([
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi", "name": "bot"},
        {"role": "tool", "content": "lookup done", "tool_call_id": "1"},
        {"role": "Human", "content": "Tell me more"},
    ]);
    let reply =
        h.post("/query", json!({"query": "Where does Alice Smith work?", "conversation_history": history})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    for bad in [
        json!([{"content": "no role"}]),
        json!([{"role": "", "content": "empty role"}]),
        json!([{"role": 3, "content": "number role"}]),
        json!([{"role": "user"}]),
        json!([{"role": "user", "content": 5}]),
        json!([{"role": "r".repeat(65), "content": "long role"}]),
    ] {
        let reply =
            h.post("/query", json!({"query": "Where does Alice Smith work?", "conversation_history": bad})).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {}", reply.text());
    }
}

/// Regression: `/redoc` was a 404 (and LightRAG's page needs a CDN).
#[tokio::test]
async fn redoc_is_served_from_the_binary() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", "s3cret")]).await;
    let page = h.get("/redoc").await;
    assert_eq!(page.status, StatusCode::OK);
    let html = page.text();
    assert!(
        html.contains("<redoc spec-url=\"/openapi.json\">") && html.contains("/redoc/redoc.standalone.js"),
        "{html}"
    );
    let js = h.get("/redoc/redoc.standalone.js").await;
    assert_eq!(js.status, StatusCode::OK, "open without credentials, like the page");
    assert!(js.headers["content-type"].to_str().unwrap().starts_with("text/javascript"));
    assert!(js.body.len() > 500_000 && js.text().contains("ReDoc"));

    let off = Harness::new(&[("ENABLE_API_DOCS", "false")]).await;
    for uri in ["/redoc", "/docs", "/openapi.json"] {
        assert_eq!(off.get(uri).await.status, StatusCode::NOT_FOUND, "{uri}");
    }
    assert_eq!(off.get("/health").await.json()["api_docs_available"], false);
}

/// Regression: `EMBEDDING_TOKEN_LIMIT`, `OPENAI_LLM_MAX_COMPLETION_TOKENS` and
/// `OPENAI_LLM_REASONING_EFFORT` were read by nobody (LightRAG truncates long texts before
/// embedding and sends the two fields with every chat request).
#[tokio::test]
async fn embedding_token_limit_and_reasoning_options_reach_the_provider() {
    let h = Harness::new(&[
        ("EMBEDDING_TOKEN_LIMIT", "8"),
        ("OPENAI_LLM_MAX_COMPLETION_TOKENS", "900"),
        ("OPENAI_LLM_REASONING_EFFORT", "low"),
    ])
    .await;
    h.insert(TEXT_B, "b.txt", &[]).await;
    let requests = h.llm.requests();
    let embedded: Vec<String> = requests
        .iter()
        .filter(|r| r.path.ends_with("/embeddings"))
        .flat_map(|r| r.body["input"].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    assert!(!embedded.is_empty(), "{requests:?}");
    // the chunk (about 30 tokens) goes to the embedder as its first 8 tokens
    assert!(embedded.iter().any(|t| TEXT_B.starts_with(t.as_str()) && t.len() < TEXT_B.len() / 2), "{embedded:?}");
    assert!(embedded.iter().all(|t| t.split_whitespace().count() <= 8), "{embedded:?}");
    let chats: Vec<_> = requests.iter().filter(|r| r.path.ends_with("/chat/completions")).collect();
    assert!(!chats.is_empty());
    for chat in chats {
        assert_eq!(chat.body["max_completion_tokens"], 900, "{}", chat.body);
        assert_eq!(chat.body["reasoning_effort"], "low", "{}", chat.body);
    }
    let plain = Harness::new(&[]).await;
    plain.insert(TEXT_A, "a.txt", &[]).await;
    let chat = plain.llm.requests().into_iter().find(|r| r.path.ends_with("/chat/completions")).unwrap();
    assert!(chat.body.get("reasoning_effort").is_none(), "not sent unless set: {}", chat.body);
}
