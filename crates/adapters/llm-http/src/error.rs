//! Construction errors, and the transport-level failure shared by the chat and embedding
//! clients before it becomes an [`LlmError`] or an [`EmbedError`].

use lightrag_ports::{EmbedError, LlmError, RerankError};

/// A provider could not be built from its configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The host is not an absolute http(s) URL.
    #[error(
        "invalid provider host `{host}`: {reason} (expected an http(s) URL such as \
         https://api.openai.com/v1 or http://localhost:11434)"
    )]
    InvalidHost {
        /// The configured host.
        host: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No model name.
    #[error("no model configured: set LLM_MODEL (or EMBEDDING_MODEL for embeddings)")]
    MissingModel,
    /// An embedding dimension of 0.
    #[error("EMBEDDING_DIM must be greater than 0 (it is the vector size of the embedding model)")]
    ZeroDimension,
    /// The HTTP client could not be created (TLS set-up).
    #[error("cannot create the HTTP client: {0}")]
    Client(String),
    /// The provider has no chat API (Jina, Voyage AI).
    #[error("{0} has no chat API; use it for embeddings (EMBEDDING_BINDING) and pick another LLM_BINDING")]
    NoChatApi(&'static str),
    /// The provider has no embedding API through this binding.
    #[error("{0} cannot be used for embeddings here; pick another EMBEDDING_BINDING")]
    NoEmbeddingApi(&'static str),
    /// Bedrock without a region or without credentials.
    #[error("Amazon Bedrock: {0}")]
    Aws(String),
}

/// What went wrong with one HTTP exchange, independent of the provider kind.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Failure {
    RateLimited(Option<f64>),
    Server { status: u16, body: String },
    Client { status: u16, body: String },
    Timeout(u64),
    Connection(String),
    Invalid(String),
}

impl From<Failure> for LlmError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::RateLimited(retry_after_secs) => LlmError::RateLimited { retry_after_secs },
            Failure::Server { status, body } => LlmError::Server { status, body },
            Failure::Client { status, body } => LlmError::Client { status, body },
            Failure::Timeout(secs) => LlmError::Timeout(secs),
            Failure::Connection(m) => LlmError::Connection(m),
            Failure::Invalid(m) => LlmError::InvalidResponse(m),
        }
    }
}

impl From<Failure> for EmbedError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::RateLimited(retry_after_secs) => EmbedError::RateLimited { retry_after_secs },
            Failure::Server { status, body } => EmbedError::Server { status, body },
            Failure::Client { status, body } => EmbedError::Client { status, body },
            Failure::Timeout(secs) => EmbedError::Timeout(secs),
            Failure::Connection(m) => EmbedError::Connection(m),
            Failure::Invalid(m) => EmbedError::InvalidResponse(m),
        }
    }
}

impl From<Failure> for RerankError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::RateLimited(retry_after_secs) => RerankError::RateLimited { retry_after_secs },
            Failure::Server { status, body } => RerankError::Server { status, body },
            Failure::Client { status, body } => RerankError::Client { status, body },
            Failure::Timeout(secs) => RerankError::Timeout(secs),
            Failure::Connection(m) => RerankError::Connection(m),
            Failure::Invalid(m) => RerankError::InvalidResponse(m),
        }
    }
}
