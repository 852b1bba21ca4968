//! The engine's error type.

use std::time::Duration;

use lightrag_ports::{EmbedError, LlmError, StoreError};

/// Errors from engine operations. Each keeps the error it came from as its `source()` chain
/// (print it with [`lightrag_ports::ErrorChain`]).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The store failed (its message and `source()` are the store error's own).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An LLM call failed after retries.
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// An embedding call failed after retries.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// A request or input is invalid.
    #[error("{0}")]
    Invalid(String),
    /// A piece of text is larger than the chunk size with `split_by_character_only`.
    #[error(
        "a piece split by {separator:?} has {tokens} tokens, more than CHUNK_SIZE={limit}; \
         raise CHUNK_SIZE or do not use --split-by-character-only"
    )]
    ChunkTooLarge {
        /// The separator.
        separator: String,
        /// Tokens in the piece.
        tokens: usize,
        /// The chunk size.
        limit: usize,
    },
    /// Something was not found.
    #[error("{0}")]
    NotFound(String),
    /// The operation was cancelled.
    #[error("cancelled by user")]
    Cancelled,
}

impl EngineError {
    /// Whether the store refused a write for lack of disk space: not the document's fault, so it
    /// is not marked failed; it stays claimable and resumes once there is space again.
    pub fn is_out_of_space(&self) -> bool {
        matches!(self, EngineError::Store(StoreError::Full(_)))
    }

    /// How long to wait before the same call can succeed, when the store was only unavailable
    /// for now ([`StoreError::Unavailable`]: no free connection, a lost connection, a database
    /// locked by another process).
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            EngineError::Store(e) => e.retry_after(),
            _ => None,
        }
    }

    /// Whether the store could not take the work now — out of space, or unavailable for the
    /// moment: not the document's fault, so a document being indexed is not marked failed; it
    /// stays claimable and resumes in a later run.
    pub fn is_store_outage(&self) -> bool {
        self.is_out_of_space() || self.retry_after().is_some()
    }
}

/// Result alias.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;
