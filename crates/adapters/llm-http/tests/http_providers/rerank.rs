//! The Cohere, Jina and DashScope rerank clients against the scripted rerank routes: request
//! shapes, auth, scores and order, `top_n`, malformed results, errors, Cohere's document chunking.

use std::sync::Arc;

use lightrag_llm_http::{RerankChunking, build_reranker};
use lightrag_ports::{RerankError, Tokenizer};
use lightrag_scripted_llm::{Fault, FaultAction, RouteKind, rerank_score};

use super::bindings::{KEY, rerank_configs, signed_server};

fn docs() -> Vec<String> {
    ["Paris is the capital of France.", "Berlin is in Germany.", "France borders Germany; its capital is Paris."]
        .map(String::from)
        .to_vec()
}

#[tokio::test]
async fn every_service_scores_and_orders_documents() {
    let server = signed_server().await;
    let query = "What is the capital of France?";
    for (name, config) in rerank_configs(&server) {
        let reranker = build_reranker(&config).unwrap();
        let hits = reranker.rerank(query, &docs(), Some(2)).await.unwrap();
        assert_eq!(hits.len(), 2, "{name}");
        let expected: Vec<f64> = docs().iter().map(|d| rerank_score(query, d)).collect();
        for h in &hits {
            assert_eq!(h.relevance_score, expected[h.index], "{name}");
        }
        assert!(hits[0].relevance_score >= hits[1].relevance_score, "{name}");
        let sent = server.last_request().unwrap();
        assert_eq!(sent.header("authorization"), Some(&*format!("Bearer {KEY}")), "{name}");
        match name {
            "aliyun" => {
                assert_eq!(sent.body["input"]["query"], query);
                assert_eq!(sent.body["parameters"]["top_n"], 2);
            }
            _ => {
                assert_eq!(sent.body["top_n"], 2, "{name}");
                assert_eq!(sent.body["documents"].as_array().map(Vec::len), Some(3), "{name}");
            }
        }
    }
    assert_eq!(server.stats().rerank, 3);
}

#[tokio::test]
async fn errors_map_to_their_classes_and_bad_results_are_dropped() {
    let server = signed_server().await;
    for (name, config) in rerank_configs(&server) {
        let reranker = build_reranker(&config).unwrap();
        server.push_fault(Fault::rate_limit(1).on_route(RouteKind::Rerank));
        assert!(matches!(reranker.rerank("q", &docs(), None).await, Err(RerankError::RateLimited { .. })), "{name}");
        server.push_fault(Fault::server_error(1).on_route(RouteKind::Rerank));
        let e = reranker.rerank("q", &docs(), None).await.unwrap_err();
        assert!(matches!(e, RerankError::Server { status: 500, .. }) && e.is_retryable(), "{name}");
        server.push_fault(Fault::new(FaultAction::InvalidJson, 1).on_route(RouteKind::Rerank));
        assert!(matches!(reranker.rerank("q", &docs(), None).await, Err(RerankError::InvalidResponse(_))), "{name}");
        let mut bad_key = config.clone();
        bad_key.api_key = Some("nope".into());
        let e = build_reranker(&bad_key).unwrap().rerank("q", &docs(), None).await.unwrap_err();
        assert!(matches!(e, RerankError::Client { status: 401, .. }) && !e.is_retryable(), "{name}");
    }
}

/// Whitespace "tokens" (one per word), so the test controls where documents split.
struct Words;
impl Tokenizer for Words {
    fn encode(&self, text: &str) -> Vec<u32> {
        (0..text.split_whitespace().count() as u32).collect()
    }
    fn decode(&self, tokens: &[u32]) -> String {
        tokens.iter().map(|t| format!("w{t}")).collect::<Vec<_>>().join(" ")
    }
}

#[tokio::test]
async fn cohere_chunking_scores_every_piece_and_keeps_each_documents_best() {
    let server = signed_server().await;
    let (_, mut config) = rerank_configs(&server).into_iter().next().unwrap();
    config.chunking = Some(RerankChunking { max_tokens_per_doc: 4, tokenizer: Arc::new(Words) });
    let reranker = build_reranker(&config).unwrap();
    let long = "one two three four five six seven eight".to_string();
    let hits = reranker.rerank("w1 w5", &[long, "short doc".to_string()], Some(1)).await.unwrap();
    let sent = server.last_request().unwrap();
    assert!(sent.body.get("top_n").is_none(), "every piece is scored");
    assert!(sent.body["documents"].as_array().unwrap().len() > 2, "the long document was split");
    assert_eq!(hits.len(), 1, "top_n applies after folding pieces back");
    assert_eq!(hits[0].index, 0);
}
