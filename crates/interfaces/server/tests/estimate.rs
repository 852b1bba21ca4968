//! `POST /documents/estimate`: the cost of inserting texts, without calling a model or storing
//! anything; documents already stored are left out.

use axum::http::StatusCode;
use serde_json::json;

use crate::common::Harness;

const TEXT: &str = "Captain Ahab commanded the Pequod on a long voyage. Ishmael sailed on the Pequod from \
Nantucket with Queequeg. Starbuck warned Captain Ahab about Moby Dick.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_estimate_counts_the_texts_without_calling_a_model() {
    let h = Harness::new(&[("LLM_PRICE_INPUT", "1"), ("LLM_PRICE_OUTPUT", "4"), ("EMBEDDING_PRICE", "0")]).await;
    let reply = h
        .post(
            "/documents/estimate",
            json!({"texts": [TEXT, "Moby Dick is a whale."], "file_sources": ["a.txt", "b.txt"]}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let e = reply.json();
    assert_eq!(e["documents"], 2, "{e:#}");
    assert_eq!(e["chunks"], 2, "{e:#}");
    assert_eq!(e["llm"]["extraction_calls"], 2, "{e:#}");
    assert_eq!(e["llm"]["gleaning_calls"], 2, "MAX_GLEANING=1: {e:#}");
    assert!(e["llm"]["tokens_in"].as_u64().unwrap() > e["chunk_tokens"].as_u64().unwrap(), "{e:#}");
    assert!(e["embedding"]["tokens"].as_u64().unwrap() >= e["chunk_tokens"].as_u64().unwrap(), "{e:#}");
    let tokens_in = e["llm"]["tokens_in"].as_f64().unwrap();
    let tokens_out = e["llm"]["tokens_out"].as_f64().unwrap();
    let total = e["cost"]["total_usd"].as_f64().unwrap();
    assert!((total - (tokens_in + 4.0 * tokens_out) / 1e6).abs() < 1e-9, "{e:#}");
    assert_eq!(e["per_document"][0]["file_path"], "a.txt");
    let stats = h.llm.stats();
    assert_eq!((stats.chat_calls(), stats.embed), (0, 0), "no model was called");
    let counts = h.get("/documents/status_counts").await.json();
    assert_eq!(counts["status_counts"]["all"], 0, "nothing was stored: {counts}");

    // a stored document is left out
    let track = h.post("/documents/text", json!({"text": TEXT, "file_source": "a.txt"})).await.json()["track_id"]
        .as_str()
        .unwrap()
        .to_string();
    h.wait_track(&track, &[]).await;
    let e = h.post("/documents/estimate", json!({"texts": [TEXT]})).await.json();
    assert_eq!(e["documents"], 1, "without a file name the id comes from the content: {e:#}");
    let e = h.post("/documents/estimate", json!({"texts": [TEXT], "file_sources": ["a.txt"]})).await.json();
    assert_eq!(e["documents"], 0, "{e:#}");
    assert!(e["skipped"][0]["reason"].as_str().unwrap().starts_with("already stored"), "{e:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_estimate_body_is_a_422() {
    let h = Harness::new(&[]).await;
    for body in [json!({}), json!({"texts": []}), json!({"texts": ["  "]}), json!({"texts": "not a list"})] {
        let reply = h.post("/documents/estimate", body.clone()).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {}", reply.text());
        assert!(reply.json()["detail"].is_array(), "{body}: {}", reply.text());
    }
    let reply = h.post("/documents/estimate", json!({"texts": ["a"], "file_sources": []})).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
}
