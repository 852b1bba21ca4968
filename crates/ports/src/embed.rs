//! The embedding provider port.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// Which model produced a vector set, and its dimension. A store remembers the identity it was
/// built with and refuses to mix vectors from another one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbeddingIdentity {
    /// Model name as configured (`EMBEDDING_MODEL`).
    pub model: String,
    /// Vector dimension (`EMBEDDING_DIM`).
    pub dim: usize,
}

/// Errors from an embedding provider.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The provider answered with rate limiting (HTTP 429). Retryable.
    #[error("embedding provider is rate limiting (HTTP 429){}", retry_hint(*.retry_after_secs))]
    RateLimited {
        /// Seconds the provider asked us to wait, when it said.
        retry_after_secs: Option<f64>,
    },
    /// The provider failed on its side (HTTP 5xx). Retryable.
    #[error("embedding provider error (HTTP {status}): {body}")]
    Server {
        /// HTTP status code.
        status: u16,
        /// Response body (truncated).
        body: String,
    },
    /// The request was refused (HTTP 4xx other than 429): bad key, unknown model, bad input.
    #[error("embedding request rejected (HTTP {status}): {body}")]
    Client {
        /// HTTP status code.
        status: u16,
        /// Response body (truncated).
        body: String,
    },
    /// The call took longer than the configured timeout. Retryable.
    #[error("embedding call timed out after {0} s (raise EMBEDDING_TIMEOUT if the server is slow)")]
    Timeout(u64),
    /// The provider could not be reached. Retryable.
    #[error("cannot reach the embedding provider: {0}")]
    Connection(String),
    /// The provider answered with something we cannot use (wrong count or dimension, bad JSON).
    #[error("unusable embedding response: {0}")]
    InvalidResponse(String),
    /// A local model is missing or broken.
    #[error("{0}")]
    Model(String),
}

impl EmbedError {
    /// The kind of failure, as a metric label: `rate_limited`, `server_error`, `refused` (any
    /// other 4xx), `timeout`, `connection`, `invalid_response`, `model` (a local model failed).
    pub fn kind(&self) -> &'static str {
        match self {
            EmbedError::RateLimited { .. } => "rate_limited",
            EmbedError::Server { .. } => "server_error",
            EmbedError::Client { .. } => "refused",
            EmbedError::Timeout(_) => "timeout",
            EmbedError::Connection(_) => "connection",
            EmbedError::InvalidResponse(_) => "invalid_response",
            EmbedError::Model(_) => "model",
        }
    }

    /// Whether retrying the same call may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            EmbedError::RateLimited { .. }
                | EmbedError::Server { .. }
                | EmbedError::Timeout(_)
                | EmbedError::Connection(_)
        )
    }
}

pub(crate) fn retry_hint(secs: Option<f64>) -> String {
    secs.map(|s| format!(", retry after {s} s")).unwrap_or_default()
}

/// What the texts of one embedding call are to the engine, so an embedder that can treat them
/// differently (the local model's `LOCAL_EMBEDDING_LONG_TEXT=pool`) knows which is which.
/// Providers that embed every text alike ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextKind {
    /// Passages of a document (chunks): embedded once, retrieved for what they say as a whole.
    Passage,
    /// Entity and relation descriptions: short as a rule, but embedded again each time a merge
    /// makes them grow.
    Description,
    /// A query, or the keywords drawn from it.
    Query,
}

impl TextKind {
    /// The kind of the texts stored in the vector set `kind`.
    pub fn of(kind: crate::VectorKind) -> TextKind {
        match kind {
            crate::VectorKind::Chunk => TextKind::Passage,
            crate::VectorKind::Entity | crate::VectorKind::Relation => TextKind::Description,
        }
    }
}

/// Turns texts into vectors. One call is one batch; the engine splits work into batches of
/// `EMBEDDING_BATCH_NUM` and bounds concurrency with `EMBEDDING_FUNC_MAX_ASYNC`.
///
/// The engine calls [`Embedder::embed_as`], saying what the texts are; a provider that embeds
/// every text the same way implements [`Embedder::embed`] only.
#[async_trait]
pub trait Embedder: Send + Sync {
    /// The model name and dimension of the vectors this embedder returns.
    fn identity(&self) -> EmbeddingIdentity;
    /// Embeds every text; the result has one vector of `identity().dim` floats per input, in order.
    /// An embedder that tells [`TextKind`]s apart embeds these as [`TextKind::Passage`]s.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;

    /// [`Embedder::embed`] for texts that are all of `kind`. The default ignores the kind.
    async fn embed_as(&self, texts: &[String], kind: TextKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        let _ = kind;
        self.embed(texts).await
    }

    /// Whether `a` and `b`, both of `kind`, are certain to embed to the same vector — e.g. a model
    /// that reads only its first N tokens sees the same N tokens — so a stored vector of `a` can
    /// stand for `b`. The default, equal texts only, is always safe; it only costs a re-embedding.
    fn same_input(&self, kind: TextKind, a: &str, b: &str) -> bool {
        let _ = kind;
        a == b
    }
}
