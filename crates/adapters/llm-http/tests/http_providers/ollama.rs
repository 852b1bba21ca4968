//! Ollama native chat (JSON and NDJSON streaming) and embeddings.

use lightrag_llm_http::{HttpEmbedConfig, HttpLlmConfig, LlmBinding, build_embedder, build_llm};
use lightrag_ports::{ChatRequest, TokenUsage};
use lightrag_scripted_llm::embed_text;
use serde_json::json;

use super::{collect, embed_config, extraction_request, llm_config, server};

fn ollama_llm(server: &lightrag_scripted_llm::ScriptedServer) -> HttpLlmConfig {
    HttpLlmConfig { binding: LlmBinding::Ollama, host: server.root_url(), num_ctx: Some(8192), ..llm_config(server) }
}

#[tokio::test]
async fn chat_uses_api_chat_with_format_and_options() {
    let server = server().await;
    let llm = build_llm(&ollama_llm(&server)).unwrap();
    assert_eq!(llm.identity(), "ollama:test-model");
    let request = ChatRequest {
        prompt: "Give high_level_keywords and low_level_keywords.\nUser Query:\nWhat did Alice build?\n\n".into(),
        json_mode: true,
        temperature: Some(0.0),
        ..ChatRequest::default()
    };
    let answer = llm.chat(&request).await.unwrap();
    let keywords: serde_json::Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(keywords["low_level_keywords"], json!(["Alice"]));
    assert_eq!(answer.usage, Some(TokenUsage { prompt_tokens: 10, completion_tokens: 1 }));
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/api/chat");
    assert_eq!(sent.body["stream"], json!(false));
    assert_eq!(sent.body["format"], json!("json"));
    assert_eq!(sent.body["options"], json!({"temperature": 0.0, "num_ctx": 8192}));
}

#[tokio::test]
async fn ndjson_stream_reassembles_the_answer() {
    let server = server().await;
    let llm = build_llm(&ollama_llm(&server)).unwrap();
    let plain = llm.chat(&extraction_request()).await.unwrap().content;
    let (streamed, pieces) = collect(llm.chat_stream(&extraction_request()).await.unwrap()).await.unwrap();
    assert_eq!(streamed, plain);
    assert!(pieces > 3);
    assert_eq!(server.last_request().unwrap().body["stream"], json!(true));
}

#[tokio::test]
async fn embeddings_use_api_embed() {
    let server = server().await;
    let config = HttpEmbedConfig { binding: LlmBinding::Ollama, host: server.root_url(), ..embed_config(&server) };
    let embedder = build_embedder(&config).unwrap();
    let texts = vec!["one text".to_string(), "another text".to_string()];
    let vectors = embedder.embed(&texts).await.unwrap();
    assert_eq!(vectors, vec![embed_text("one text", 64), embed_text("another text", 64)]);
    let sent = server.last_request().unwrap();
    assert_eq!(sent.path, "/api/embed");
    assert_eq!(sent.body, json!({"model": "test-embed", "input": texts}));
}
