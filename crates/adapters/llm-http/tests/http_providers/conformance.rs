//! The provider conformance checks (`lightrag_ports::conformance::providers`) against every
//! chat, embedding and rerank client, each talking to the scripted server in its own wire format.

use lightrag_llm_http::{build_embedder, build_llm, build_reranker};
use lightrag_ports::conformance::providers::{check_embedder, check_llm, check_reranker};

use super::bindings::{chat_configs, embed_configs, rerank_configs, signed_server};

#[tokio::test]
async fn every_chat_client_conforms() {
    let server = signed_server().await;
    for (name, config) in chat_configs(&server) {
        let llm = build_llm(&config).unwrap_or_else(|e| panic!("{name}: {e}"));
        check_llm(llm.as_ref()).await;
    }
}

#[tokio::test]
async fn every_embedding_client_conforms() {
    let server = signed_server().await;
    for (name, config) in embed_configs(&server) {
        let embedder = build_embedder(&config).unwrap_or_else(|e| panic!("{name}: {e}"));
        check_embedder(embedder.as_ref()).await;
    }
}

#[tokio::test]
async fn every_rerank_client_conforms() {
    let server = signed_server().await;
    for (name, config) in rerank_configs(&server) {
        let reranker = build_reranker(&config).unwrap_or_else(|e| panic!("{name}: {e}"));
        check_reranker(reranker.as_ref()).await;
    }
}
