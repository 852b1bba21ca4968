//! Writes outside the document queue: atomic commits of a [`ChangeSet`] and the embedding
//! identity ([`Commits`]), the LLM response cache and the usage ledger ([`CacheAndLedger`]), and
//! re-embedding every vector with another model ([`Reembedding`]).

use async_trait::async_trait;

use super::{ChangeSet, StoreError};
use crate::embed::EmbeddingIdentity;
use crate::records::*;
use crate::reembed::{PendingVector, ReembedProgress, StagedVector, SwitchOutcome};

/// Atomic commits (see the [module docs](super) for the contract), clearing the store, and the
/// embedding model the stored vectors were made with.
#[async_trait]
pub trait Commits: Send + Sync {
    /// Applies a change set atomically (see the [module docs](super)).
    async fn apply(&self, changes: ChangeSet) -> Result<(), StoreError>;
    /// Removes every document, chunk, graph record, vector and link (not the LLM cache, not the
    /// usage ledger, not the embedding identity).
    async fn clear_all(&self) -> Result<(), StoreError>;
    /// Records `identity` on first use; afterwards fails with
    /// [`StoreError::EmbeddingMismatch`] if it differs from the stored one.
    async fn check_embedding_identity(&self, identity: &EmbeddingIdentity) -> Result<(), StoreError>;
    /// The embedding model and dimension recorded by [`Commits::check_embedding_identity`]
    /// (`None` before the first check).
    async fn embedding_identity(&self) -> Result<Option<EmbeddingIdentity>, StoreError>;
}

/// The LLM response cache (LightRAG's `llm_response_cache`) and the usage ledger. Usage is added
/// by a commit ([`ChangeSet::usage`]); cache entries are written here or by a commit
/// ([`ChangeSet::cache`]).
#[async_trait]
pub trait CacheAndLedger: Send + Sync {
    /// A cached response.
    async fn cache_get(&self, key: &str) -> Result<Option<CacheEntry>, StoreError>;
    /// Up to `limit` LLM cache entries with keys after `after` (from the first when `None`), by key
    /// (bytewise order).
    async fn cache_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<CacheEntry>, StoreError>;
    /// Stores a response (replacing any entry with the same key). Durable on return.
    async fn cache_put(&self, entry: CacheEntry) -> Result<(), StoreError>;
    /// Deletes cache entries of the given types (all entries when `types` is empty); returns how many.
    async fn cache_clear(&self, types: &[String]) -> Result<usize, StoreError>;
    /// Deletes the cache entries with the given keys (unknown keys are ignored); returns how many.
    async fn cache_delete(&self, keys: &[String]) -> Result<usize, StoreError>;
    /// The usage ledger.
    async fn usage(&self) -> Result<Usage, StoreError>;
    /// The part of the usage ledger recorded in the current UTC day (by the backend's clock, the
    /// one that dates the ledger's entries): what the daily LLM token quota counts
    /// ([`QuotaKind::LlmTokensPerDay`](crate::quota::QuotaKind)).
    async fn usage_today(&self) -> Result<Usage, StoreError>;
}

/// Re-embedding every stored vector with another embedding model (see [`crate::reembed`]). The
/// default methods answer that this backend cannot re-embed.
#[async_trait]
pub trait Reembedding: Send + Sync {
    /// Starts or resumes re-embedding every vector for `target`: records the target; staged
    /// vectors of another target are discarded, those of the same target kept (a killed run
    /// resumes). Searches keep reading the live vectors. Returns how far it is.
    async fn reembed_begin(&self, target: &EmbeddingIdentity) -> Result<ReembedProgress, StoreError> {
        let _ = target;
        Err(crate::reembed::unsupported())
    }
    /// Up to `limit` live vectors of `kind` with keys after `after`, sorted by key, that have no
    /// staged vector of their current text. Fails when no re-embedding was begun.
    async fn reembed_pending(
        &self,
        kind: VectorKind,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<PendingVector>, StoreError> {
        let _ = (kind, after, limit);
        Err(crate::reembed::unsupported())
    }
    /// Stages new vectors of `kind` in one commit (replacing staged vectors of the same keys).
    /// Fails with [`StoreError::WrongDimension`] (writing nothing) when a vector does not have the
    /// target's dimension, and when no re-embedding was begun.
    async fn reembed_stage(&self, kind: VectorKind, rows: Vec<StagedVector>) -> Result<(), StoreError> {
        let _ = (kind, rows);
        Err(crate::reembed::unsupported())
    }
    /// In one commit: when every live vector has a staged vector of its current text, makes the
    /// staged vectors live, records the target as the embedding identity and ends the
    /// re-embedding; otherwise changes nothing and says how many are missing.
    async fn reembed_switch(&self) -> Result<SwitchOutcome, StoreError> {
        Err(crate::reembed::unsupported())
    }
}
