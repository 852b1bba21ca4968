//! Reranking over REST: `enable_rerank` on `/query/data` and `/query`, `RERANK_BY_DEFAULT`, the
//! rerank settings in `/health`, and rerank calls in `/metrics`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::Harness;
use lightrag_scripted_llm::rerank_score;
use serde_json::json;

const QUESTION: &str = "Who sailed with Queequeg on the Pequod voyage from Nantucket?";

async fn harness(extra: &[(&str, &str)]) -> Harness {
    let extra: Vec<(String, String)> = extra.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let h = Harness::new_with(move |llm| {
        let mut env = vec![
            ("RERANK_BINDING".to_string(), "jina".to_string()),
            ("RERANK_BINDING_HOST".to_string(), format!("{}/jina/v1/rerank", llm.root_url())),
            ("RERANK_MODEL".to_string(), "jina-reranker-test".to_string()),
            ("CHUNK_SIZE".to_string(), "30".to_string()),
            ("CHUNK_OVERLAP_SIZE".to_string(), "5".to_string()),
        ];
        env.extend(extra);
        env
    })
    .await;
    let texts = [
        "Captain Ahab commanded the Pequod. Ishmael sailed on the Pequod from Nantucket with Queequeg.",
        "Nantucket had many ships. The port was busy in winter and quiet in summer.",
        "Nantucketers sailing voyages: Pequods, Queequegs, sailors from Nantucketers.",
        "Queequeg and Ishmael shared a room before the voyage of the Pequod began.",
    ];
    for (i, text) in texts.iter().enumerate() {
        h.insert(text, &format!("doc{i}.txt"), &[]).await;
    }
    h
}

fn scores(data: &serde_json::Value) -> Vec<f64> {
    data["data"]["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| rerank_score(QUESTION, c["content"].as_str().unwrap()))
        .collect()
}

#[tokio::test]
async fn enable_rerank_reorders_query_chunks() {
    let h = harness(&[]).await;
    let ask = |enable: Option<bool>| {
        let mut body = json!({"query": QUESTION, "mode": "naive"});
        if let Some(e) = enable {
            body["enable_rerank"] = json!(e);
        }
        body
    };
    let plain = h.post("/query/data", ask(Some(false))).await;
    assert_eq!(plain.status, 200, "{}", plain.text());
    assert_eq!(h.llm.stats().rerank, 0, "enable_rerank=false: no call");
    let reranked = h.post("/query/data", ask(None)).await.json();
    assert_eq!(h.llm.stats().rerank, 1, "RERANK_BY_DEFAULT is true");
    let got = scores(&reranked);
    let mut sorted = scores(&plain.json());
    sorted.sort_by(|a, b| b.total_cmp(a));
    assert_eq!(got, sorted);
    let request = h.llm.last_request().unwrap();
    assert_eq!(request.path, "/jina/v1/rerank");
    assert_eq!(request.body["query"], QUESTION);
    assert_eq!(request.body["model"], "jina-reranker-test");
    let answer =
        h.post("/query", json!({"query": QUESTION, "mode": "mix", "stream": false, "enable_rerank": true})).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(h.llm.stats().rerank, 2);
    let traced = h.post("/query/data", json!({"query": QUESTION, "mode": "naive", "include_trace": true})).await.json();
    assert_eq!(traced["trace"]["usage"]["rerank"]["calls"], 1, "{}", traced["trace"]["usage"]);
    let unranked = json!({"query": QUESTION, "mode": "naive", "include_trace": true, "enable_rerank": false});
    let unranked = h.post("/query/data", unranked).await.json();
    assert!(unranked["trace"]["usage"].get("rerank").is_none(), "no rerank part without a rerank call");
    let metrics = h.get("/metrics").await.text();
    assert!(metrics.contains("lightrag_rerank_requests_total{workspace=\"\"} 3"), "{metrics}");
}

#[tokio::test]
async fn rerank_by_default_false_needs_the_query_to_ask() {
    let h = harness(&[("RERANK_BY_DEFAULT", "false"), ("MIN_RERANK_SCORE", "0.4")]).await;
    h.post("/query/data", json!({"query": QUESTION, "mode": "naive"})).await;
    assert_eq!(h.llm.stats().rerank, 0);
    let data = h.post("/query/data", json!({"query": QUESTION, "mode": "naive", "enable_rerank": true})).await.json();
    assert_eq!(h.llm.stats().rerank, 1);
    let kept = scores(&data);
    assert!(!kept.is_empty() && kept.iter().all(|s| *s >= 0.4), "MIN_RERANK_SCORE: {kept:?}");
}

#[tokio::test]
async fn health_shows_the_rerank_settings() {
    let h = harness(&[("MIN_RERANK_SCORE", "0.2"), ("MAX_ASYNC_RERANK", "3"), ("RERANK_TIMEOUT", "12")]).await;
    let health = h.get("/health").await.json();
    let c = &health["configuration"];
    assert_eq!(c["enable_rerank"], true);
    assert_eq!(c["rerank_binding"], "jina");
    assert_eq!(c["rerank_model"], "jina-reranker-test");
    assert!(c["rerank_binding_host"].as_str().unwrap().ends_with("/jina/v1/rerank"));
    assert_eq!(c["rerank_max_async"], 3);
    assert_eq!(c["rerank_timeout"], 12);
    assert_eq!(c["min_rerank_score"], 0.2);
    let plain = Harness::new(&[]).await.get("/health").await.json();
    assert_eq!(plain["configuration"]["enable_rerank"], false);
    assert_eq!(plain["configuration"]["rerank_binding"], "null");
    assert_eq!(plain["configuration"]["rerank_model"], serde_json::Value::Null);
}
