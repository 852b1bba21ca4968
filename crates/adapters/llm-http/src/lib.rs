//! HTTP LLM and embedding providers for lightrag-rs: OpenAI-compatible, Ollama, Azure OpenAI.
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

mod chat;
mod config;
mod embed;
mod error;
mod http;
mod stream;

pub use chat::HttpLlm;
pub use config::{
    DEFAULT_AZURE_API_VERSION, DEFAULT_OLLAMA_HOST, DEFAULT_OPENAI_HOST, HttpEmbedConfig, HttpLlmConfig, LlmBinding,
    UnknownBinding,
};
pub use embed::HttpEmbedder;
pub use error::BuildError;

/// Builds the chat provider described by `config` (no network call is made).
pub fn build_llm(config: &HttpLlmConfig) -> Result<Arc<dyn Llm>, BuildError> {
    Ok(Arc::new(HttpLlm::new(config)?))
}

/// Builds the embedding provider described by `config` (no network call is made).
pub fn build_embedder(config: &HttpEmbedConfig) -> Result<Arc<dyn Embedder>, BuildError> {
    Ok(Arc::new(HttpEmbedder::new(config)?))
}
