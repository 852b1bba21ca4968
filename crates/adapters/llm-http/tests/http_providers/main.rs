//! The HTTP providers against the scripted OpenAI-compatible server: request shapes, answers,
//! streaming, embeddings, and every error class.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may fail loudly

mod azure;
mod bindings;
mod conformance;
mod errors;
mod ollama;
mod openai;
mod rerank;

use std::time::Duration;

use lightrag_llm_http::{HttpEmbedConfig, HttpLlmConfig, LlmBinding};
use lightrag_ports::ChatRequest;
use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, ScriptedServer};

/// A scripted server with the default configuration.
pub async fn server() -> ScriptedServer {
    ScriptedLlm::start(ScriptConfig::default()).await.unwrap()
}

/// An OpenAI-binding chat configuration pointing at `server`.
pub fn llm_config(server: &ScriptedServer) -> HttpLlmConfig {
    HttpLlmConfig {
        binding: LlmBinding::OpenAi,
        host: format!("{}/", server.base_url()),
        model: "test-model".into(),
        timeout: Duration::from_secs(10),
        ..HttpLlmConfig::default()
    }
}

/// An OpenAI-binding embedding configuration pointing at `server` (dim 64, the server default).
pub fn embed_config(server: &ScriptedServer) -> HttpEmbedConfig {
    HttpEmbedConfig {
        binding: LlmBinding::OpenAi,
        host: server.base_url(),
        model: "test-embed".into(),
        dim: 64,
        timeout: Duration::from_secs(10),
        ..HttpEmbedConfig::default()
    }
}

/// An extraction request following the prompt layout contract.
pub fn extraction_request() -> ChatRequest {
    ChatRequest {
        system: Some("Extract entities. Fields are separated by <|#|>.".into()),
        prompt:
            "---Input Text---\n```\nAlice Smith founded Acme Corp in Berlin. Bob Jones joined Acme Corp later.\n```\n"
                .into(),
        ..ChatRequest::default()
    }
}

/// A plain question.
pub fn question(text: &str) -> ChatRequest {
    ChatRequest {
        system: Some("Document Chunks:\nAcme is in Berlin.".into()),
        prompt: text.into(),
        ..ChatRequest::default()
    }
}

/// Collects a text stream into one string, failing on the first error.
pub async fn collect(stream: lightrag_ports::TextStream) -> Result<(String, usize), lightrag_ports::LlmError> {
    use futures::StreamExt;
    let mut stream = stream;
    let mut text = String::new();
    let mut pieces = 0;
    while let Some(piece) = stream.next().await {
        text.push_str(&piece?);
        pieces += 1;
    }
    Ok((text, pieces))
}
