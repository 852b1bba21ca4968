//! Quotas per workspace (issue 30): an insert that would take a workspace over its documents or
//! stored-bytes quota is answered 507 naming the quota, one over the day's LLM tokens 429 with
//! `Retry-After`; nothing of a refused request is stored (no document, no status row, no file in
//! the input folder), and each workspace has a budget of its own.

use std::collections::BTreeSet;

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{Harness, Reply, TEXT_A, TEXT_B};

const WS_A: (&str, &str) = ("LIGHTRAG-WORKSPACE", "quota_a");
const WS_B: (&str, &str) = ("LIGHTRAG-WORKSPACE", "quota_b");

async fn texts(h: &Harness, ws: (&str, &str), docs: &[(&str, &str)]) -> Reply {
    let texts: Vec<&str> = docs.iter().map(|(t, _)| *t).collect();
    let sources: Vec<&str> = docs.iter().map(|(_, s)| *s).collect();
    h.call(Method::POST, "/documents/texts", &[ws], Some(json!({"texts": texts, "file_sources": sources}))).await
}

/// The file paths of every document of the workspace, whatever its status.
async fn stored(h: &Harness, ws: (&str, &str)) -> BTreeSet<String> {
    let reply = h.call(Method::POST, "/documents/paginated", &[ws], Some(json!({"page": 1, "page_size": 100}))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let docs = reply.json()["documents"].as_array().cloned().unwrap_or_default();
    docs.iter().filter_map(|d| d["file_path"].as_str().map(str::to_string)).collect()
}

fn detail(reply: &Reply) -> String {
    reply.json()["detail"].as_str().unwrap_or_default().to_string()
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn inserts_over_the_document_quota_get_507_and_store_nothing() {
    let h = Harness::new(&[("QUOTA_MAX_DOCUMENTS", "2")]).await;
    let ok = texts(&h, WS_A, &[(TEXT_A, "a.txt")]).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text());
    // two more in one request: 3 > 2, so neither is stored
    let over = texts(&h, WS_A, &[(TEXT_B, "b.txt"), ("Carol Diaz founded Delta Works.", "c.txt")]).await;
    assert_eq!(over.status, StatusCode::INSUFFICIENT_STORAGE, "{}", over.text());
    let why = detail(&over);
    assert!(why.contains("QUOTA_MAX_DOCUMENTS") && why.contains("documents") && why.contains("limit of 2"), "{why}");
    assert_eq!(stored(&h, WS_A).await, names(&["a.txt"]), "nothing of the refused request is stored");
    // an upload fills the quota; the next one is refused and leaves no file behind
    let up = h.upload("b.txt", TEXT_B.as_bytes(), &[WS_A]).await;
    assert_eq!(up.status, StatusCode::OK, "{}", up.text());
    let refused = h.upload("c.txt", b"Carol Diaz founded Delta Works in Lyon.", &[WS_A]).await;
    assert_eq!(refused.status, StatusCode::INSUFFICIENT_STORAGE, "{}", refused.text());
    assert!(detail(&refused).contains("QUOTA_MAX_DOCUMENTS"), "{}", refused.text());
    assert_eq!(stored(&h, WS_A).await, names(&["a.txt", "b.txt"]));
    let input = h.input_dir().join("quota_a");
    assert!(input.join("b.txt").exists(), "the admitted upload is kept");
    assert!(!input.join("c.txt").exists(), "the refused upload's file is removed");
    // another workspace has a budget of its own
    let other = texts(&h, WS_B, &[(TEXT_A, "a.txt"), (TEXT_B, "b.txt")]).await;
    assert_eq!(other.status, StatusCode::OK, "{}", other.text());
    // /metrics shows where each workspace stands
    let metrics = h.get("/metrics").await.text();
    for line in [
        "lightrag_quota_used{workspace=\"quota_a\",quota=\"documents\"} 2",
        "lightrag_quota_limit{workspace=\"quota_a\",quota=\"documents\"} 2",
        "lightrag_quota_used{workspace=\"quota_b\",quota=\"documents\"} 2",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} missing from /metrics:\n{metrics}");
    }
}

#[tokio::test]
async fn inserts_over_the_stored_bytes_quota_get_507_naming_it() {
    let h = Harness::new(&[("QUOTA_MAX_STORED_BYTES", "1KB")]).await;
    let text = "x".repeat(600);
    let ok = texts(&h, WS_A, &[(&text, "one.txt")]).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text());
    let other = "y".repeat(600);
    let over = texts(&h, WS_A, &[(&other, "two.txt")]).await;
    assert_eq!(over.status, StatusCode::INSUFFICIENT_STORAGE, "{}", over.text());
    let why = detail(&over);
    assert!(why.contains("QUOTA_MAX_STORED_BYTES") && why.contains("1200") && why.contains("1024"), "{why}");
    assert_eq!(stored(&h, WS_A).await, names(&["one.txt"]));
}

#[tokio::test]
async fn inserts_after_the_day_s_llm_tokens_are_spent_get_429_with_retry_after() {
    let h = Harness::new(&[("QUOTA_MAX_LLM_TOKENS_PER_DAY", "10")]).await;
    // the first insert is admitted (nothing spent yet) and its indexing spends more than 10 tokens
    let status = h.insert(TEXT_A, "a.txt", &[WS_A]).await;
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    let over = texts(&h, WS_A, &[(TEXT_B, "b.txt")]).await;
    assert_eq!(over.status, StatusCode::TOO_MANY_REQUESTS, "{}", over.text());
    let why = detail(&over);
    assert!(why.contains("QUOTA_MAX_LLM_TOKENS_PER_DAY") && why.contains("midnight UTC"), "{why}");
    let retry: u64 =
        over.headers.get("retry-after").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok()).unwrap_or(0);
    assert!((1..=86_400).contains(&retry), "Retry-After until midnight UTC: {retry}");
    assert_eq!(stored(&h, WS_A).await, names(&["a.txt"]));
    // queries still work: the quota guards inserts
    let q = h.call(Method::POST, "/query", &[WS_A], Some(json!({"query": "Who is Alice?", "mode": "naive"}))).await;
    assert_eq!(q.status, StatusCode::OK, "{}", q.text());
    // another workspace spent nothing
    let other = texts(&h, WS_B, &[(TEXT_B, "b.txt")]).await;
    assert_eq!(other.status, StatusCode::OK, "{}", other.text());
    let _: Value = other.json();
}
