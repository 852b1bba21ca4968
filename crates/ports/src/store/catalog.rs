//! What the store holds, for administration rather than queries ([`Catalog`]): paged listings
//! of every entity, relation, chunk and vector key, counts, and the backend's integrity check.
//! `lightrag check`, `lightrag copy`, the graph viewer's label lists and `/health` read these.

use std::collections::BTreeMap;

use async_trait::async_trait;

use super::StoreError;
use crate::records::*;

/// Paged listings, counts and the integrity check of the whole store.
#[async_trait]
pub trait Catalog: Send + Sync {
    /// Node and edge counts.
    async fn graph_counts(&self) -> Result<GraphCounts, StoreError>;
    /// Up to `limit` entity names with the highest degree, with their degree (ties by name).
    async fn top_entities(&self, limit: usize) -> Result<Vec<(String, usize)>, StoreError>;
    /// Up to `limit` entity names after `after` (all from the first when `None`), sorted.
    async fn entity_names(&self, after: Option<&str>, limit: usize) -> Result<Vec<String>, StoreError>;
    /// Up to `limit` entities whose names sort after `after`, sorted by name.
    async fn entities_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<Entity>, StoreError>;
    /// Up to `limit` relations whose keys sort after `after`, sorted by key.
    async fn relations_page(&self, after: Option<&RelKey>, limit: usize) -> Result<Vec<Relation>, StoreError>;
    /// Up to `limit` chunk rows whose ids sort (bytewise) after `after`, as `(chunk id, doc id)`,
    /// sorted by chunk id. Walks every chunk, with or without a document (`lightrag check`).
    async fn chunk_keys_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<(String, String)>, StoreError>;
    /// Up to `limit` keys of the set `kind` that sort (bytewise) after `after`, sorted, each with
    /// the dimension of its stored vector and its [flaw](crate::VectorFlaw) (NaN, infinite or
    /// zero: a vector stored before writes refused them). Walks a whole set, whatever records
    /// exist (`lightrag check`).
    async fn vector_keys_page(
        &self,
        kind: VectorKind,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<VectorKeyInfo>, StoreError>;
    /// Number of vectors per set.
    async fn vector_counts(&self) -> Result<BTreeMap<VectorKind, usize>, StoreError>;
    /// The backend's own integrity check (SQLite's `integrity_check` and `foreign_key_check`,
    /// PostgreSQL's invalid indexes and stored dimensions that disagree with the vectors): one
    /// line per problem found, empty when the store is sound.
    async fn check_integrity(&self) -> Result<Vec<String>, StoreError>;
}

/// One stored vector as [`Catalog::vector_keys_page`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorKeyInfo {
    /// The record's key.
    pub key: String,
    /// The dimension of its stored vector.
    pub dim: usize,
    /// Why no search can use it, when none can.
    pub flaw: Option<crate::VectorFlaw>,
}

impl VectorKeyInfo {
    /// A key with its vector, as a listing reports it.
    pub fn of(key: String, vector: &[f32]) -> VectorKeyInfo {
        VectorKeyInfo { key, dim: vector.len(), flaw: crate::vector_flaw(vector) }
    }
}
