//! HTTP LLM, embedding and rerank providers for lightrag-rs.
//!
//! Chat: OpenAI-compatible, Ollama, Azure OpenAI ([`HttpLlm`]), lollms ([`LollmsLlm`]), Google
//! Gemini ([`GeminiLlm`]), Amazon Bedrock ([`BedrockLlm`], SigV4). Embeddings: the same plus
//! Jina AI and Voyage AI ([`ServiceEmbedder`]). Rerank: Cohere, Jina AI, Aliyun DashScope
//! ([`HttpReranker`]). [`build_llm`], [`build_embedder`] and [`build_reranker`] pick the client
//! from the binding.
//!
//! * [`HttpLlm`] implements [`lightrag_ports::Llm`]: `POST {host}/chat/completions`
//!   (OpenAI-compatible, SSE streaming), `POST {host}/api/chat` (Ollama, NDJSON streaming), or
//!   `POST {host}/openai/deployments/{deployment}/chat/completions?api-version=V` (Azure,
//!   `api-key` header).
//! * [`HttpEmbedder`] implements [`lightrag_ports::Embedder`]: `POST {host}/embeddings`,
//!   `POST {host}/api/embed`, or the Azure deployment's `/embeddings`; answers are put in input
//!   order and checked for count and dimension.
//!
//! Errors map to the port's classes: HTTP 429 → `RateLimited` (with `Retry-After`), 5xx →
//! `Server`, other 4xx → `Client` (truncated body), timeouts → `Timeout`, transport errors →
//! `Connection`, unreadable answers → `InvalidResponse`. There is **no retry loop** here: the
//! engine wraps every provider with retry, backoff, concurrency limits, caching and the ledger.
//!
//! ```no_run
//! use std::time::Duration;
//! use lightrag_llm_http::{build_llm, HttpLlmConfig, LlmBinding};
//! let llm = build_llm(&HttpLlmConfig {
//!     binding: LlmBinding::Ollama,
//!     host: "http://localhost:11434".into(),
//!     model: "qwen2.5:7b".into(),
//!     timeout: Duration::from_secs(240),
//!     ..HttpLlmConfig::default()
//! })?;
//! assert_eq!(llm.identity(), "ollama:qwen2.5:7b");
//! # Ok::<(), lightrag_llm_http::BuildError>(())
//! ```

use std::sync::Arc;

use lightrag_ports::{Embedder, Llm};

mod bedrock;
mod chat;
mod config;
mod embed;
mod embed_services;
mod error;
mod gemini;
mod http;
mod lollms;
mod rerank;
mod stream;
#[cfg(test)]
mod stream_measure;
#[cfg(test)]
mod stream_props;

pub use bedrock::{BedrockEmbedder, BedrockLlm};
pub use chat::HttpLlm;
pub use config::{
    AwsConfig, DEFAULT_AZURE_API_VERSION, DEFAULT_GEMINI_HOST, DEFAULT_JINA_HOST, DEFAULT_LOLLMS_HOST,
    DEFAULT_OLLAMA_HOST, DEFAULT_OPENAI_HOST, DEFAULT_VOYAGE_HOST, HttpEmbedConfig, HttpLlmConfig, LlmBinding,
    UnknownBinding,
};
pub use embed::HttpEmbedder;
pub use embed_services::{DEFAULT_JINA_TASK, ServiceEmbedder};
pub use error::BuildError;
pub use gemini::{DEFAULT_GEMINI_TASK, GeminiEmbedder, GeminiLlm};
pub use lollms::{LollmsEmbedder, LollmsLlm};
pub use rerank::{HttpReranker, RerankBinding, RerankChunking, RerankConfig, UnknownRerankBinding, split_documents};

use lightrag_ports::Reranker;

/// Builds the chat provider described by `config` (no network call is made).
pub fn build_llm(config: &HttpLlmConfig) -> Result<Arc<dyn Llm>, BuildError> {
    Ok(match config.binding {
        LlmBinding::OpenAi | LlmBinding::Ollama | LlmBinding::AzureOpenAi => Arc::new(HttpLlm::new(config)?),
        LlmBinding::Lollms => Arc::new(LollmsLlm::new(config)?),
        LlmBinding::Gemini => Arc::new(GeminiLlm::new(config)?),
        LlmBinding::Bedrock => Arc::new(BedrockLlm::new(config)?),
        LlmBinding::Jina | LlmBinding::VoyageAi => return Err(BuildError::NoChatApi(config.binding.as_str())),
    })
}

/// Builds the embedding provider described by `config` (no network call is made).
pub fn build_embedder(config: &HttpEmbedConfig) -> Result<Arc<dyn Embedder>, BuildError> {
    Ok(match config.binding {
        LlmBinding::OpenAi | LlmBinding::Ollama | LlmBinding::AzureOpenAi => Arc::new(HttpEmbedder::new(config)?),
        LlmBinding::Lollms => Arc::new(LollmsEmbedder::new(config)?),
        LlmBinding::Gemini => Arc::new(GeminiEmbedder::new(config)?),
        LlmBinding::Bedrock => Arc::new(BedrockEmbedder::new(config)?),
        LlmBinding::Jina | LlmBinding::VoyageAi => Arc::new(ServiceEmbedder::new(config)?),
    })
}

/// Builds the rerank client described by `config` (no network call is made).
pub fn build_reranker(config: &RerankConfig) -> Result<Arc<dyn Reranker>, BuildError> {
    Ok(Arc::new(HttpReranker::new(config)?))
}
