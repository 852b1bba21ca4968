//! OpenAI-compatible chat, streaming and embeddings.

use lightrag_llm_http::{HttpEmbedConfig, build_embedder, build_llm};
use lightrag_ports::{ChatRequest, EmbedError, TokenUsage};
use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, embed_text};
use serde_json::json;

use super::{collect, embed_config, extraction_request, llm_config, question, server};

#[tokio::test]
async fn chat_returns_content_usage_and_identity() {
    let server = server().await;
    let llm = build_llm(&llm_config(&server)).unwrap();
    assert_eq!(llm.identity(), "openai:test-model");
    let answer = llm.chat(&question("Where is Acme?")).await.unwrap();
    assert_eq!(answer.content, "Answer based on 2 context lines. Acme is in Berlin.");
    // The scripted server counts words as tokens.
    assert_eq!(answer.usage, Some(TokenUsage { prompt_tokens: 9, completion_tokens: 10 }));
    let extraction = llm.chat(&extraction_request()).await.unwrap();
    assert!(extraction.content.contains("entity<|#|>Acme Corp<|#|>organization<|#|>"), "{}", extraction.content);
    assert_eq!(server.stats().extract, 1);
    let request = server.last_request().unwrap();
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), None);
}

#[tokio::test]
async fn json_mode_and_sampling_options_are_in_the_body_with_the_bearer_key() {
    let server =
        ScriptedLlm::start(ScriptConfig { api_key: Some("sk-test".into()), ..ScriptConfig::default() }).await.unwrap();
    let config = lightrag_llm_http::HttpLlmConfig {
        api_key: Some("sk-test".into()),
        temperature: Some(0.25),
        max_tokens: Some(500),
        ..llm_config(&server)
    };
    let llm = build_llm(&config).unwrap();
    let request = ChatRequest {
        system: Some("Return high_level_keywords and low_level_keywords.".into()),
        prompt: "User Query:\nWho runs Acme Corp?\n\n".into(),
        json_mode: true,
        max_tokens: Some(100),
        ..ChatRequest::default()
    };
    let answer = llm.chat(&request).await.unwrap();
    let keywords: serde_json::Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(keywords["low_level_keywords"], json!(["Acme Corp"]));
    let sent = server.last_request().unwrap();
    assert_eq!(sent.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(
        sent.body,
        json!({
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "Return high_level_keywords and low_level_keywords."},
                {"role": "user", "content": "User Query:\nWho runs Acme Corp?\n\n"}
            ],
            "temperature": 0.25,
            "max_tokens": 100,
            "response_format": {"type": "json_object"}
        })
    );
}

#[tokio::test]
async fn streaming_reassembles_the_full_answer() {
    let server = server().await;
    let llm = build_llm(&llm_config(&server)).unwrap();
    let plain = llm.chat(&extraction_request()).await.unwrap().content;
    let (streamed, pieces) = collect(llm.chat_stream(&extraction_request()).await.unwrap()).await.unwrap();
    assert_eq!(streamed, plain);
    assert!(pieces > 3, "expected several deltas, got {pieces}");
    assert_eq!(server.last_request().unwrap().body["stream"], json!(true));
    assert_eq!(server.stats().streamed, 1);
}

#[tokio::test]
async fn embeddings_come_back_in_input_order_with_the_right_dimension() {
    let server = ScriptedLlm::start(ScriptConfig { reverse_embedding_order: true, dim: 16, ..ScriptConfig::default() })
        .await
        .unwrap();
    let embedder = build_embedder(&HttpEmbedConfig { dim: 16, ..embed_config(&server) }).unwrap();
    assert_eq!(embedder.identity().dim, 16);
    assert_eq!(embedder.identity().model, "test-embed");
    let texts: Vec<String> = ["graph retrieval", "banana bread", "graph retrieval"].map(String::from).to_vec();
    let vectors = embedder.embed(&texts).await.unwrap();
    assert_eq!(vectors.len(), 3);
    assert_eq!(vectors[0], embed_text("graph retrieval", 16));
    assert_eq!(vectors[1], embed_text("banana bread", 16));
    assert_eq!(vectors[0], vectors[2]);
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/v1/embeddings");
    assert_eq!(sent.body, json!({"model": "test-embed", "input": texts}));
    assert!(embedder.embed(&[]).await.unwrap().is_empty());
    assert_eq!(server.stats().embed, 1, "an empty batch must not call the server");
}

#[tokio::test]
async fn dimensions_are_sent_when_configured_and_mismatches_are_reported() {
    let server = server().await;
    let sized = build_embedder(&HttpEmbedConfig { dim: 32, send_dimensions: true, ..embed_config(&server) }).unwrap();
    let v = sized.embed(&["hello".to_string()]).await.unwrap();
    assert_eq!(v[0].len(), 32);
    assert_eq!(server.last_request().unwrap().body["dimensions"], json!(32));

    let wrong = build_embedder(&HttpEmbedConfig { dim: 1024, ..embed_config(&server) }).unwrap();
    match wrong.embed(&["hello".to_string()]).await {
        Err(EmbedError::InvalidResponse(m)) => {
            assert!(m.contains("server returned dim 64, EMBEDDING_DIM is 1024"), "{m}")
        }
        other => panic!("expected InvalidResponse, got {other:?}"),
    }
}
