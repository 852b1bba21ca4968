//! The store port ([`Store`](lightrag_ports::Store)), one `impl` per trait ([`DocumentReads`],
//! [`GraphReads`], [`TextSearch`], [`VectorReads`], [`Catalog`], [`DocumentQueue`], [`MergeLocks`],
//! [`CacheAndLedger`], [`Commits`], [`Reembedding`]): each method takes a pooled connection (or a
//! transaction) and calls the module that owns the table.

use std::collections::BTreeMap;

use async_trait::async_trait;
use lightrag_ports::{
    CacheAndLedger, CacheEntry, Catalog, ChangeSet, Chunk, ChunkExtraction, ClaimRequest, Commits, DocFilter, DocLinks,
    DocStatus, DocStatusRecord, Document, DocumentQueue, DocumentReads, EmbeddingIdentity, EnqueueLimits,
    EnqueueOutcome, Entity, GraphCounts, GraphKey, GraphReads, ListRange, MergeLocks, PendingVector, PreviousVersion,
    RankedRelations, ReembedProgress, Reembedding, RelKey, Relation, StagedVector, StoreError, SwitchOutcome, TextHit,
    TextSearch, Usage, VectorHit, VectorKind, VectorReads, store::NewDocument,
};

use crate::{PostgresStore, apply, cache, chunks, documents, graph, integrity, lists, locks, reembed, vectors};

#[async_trait]
impl DocumentReads for PostgresStore {
    async fn get_document(&self, id: &str) -> Result<Option<Document>, StoreError> {
        documents::get_document(&mut *self.conn().await?, &self.workspace, id).await
    }

    async fn get_doc_status(&self, id: &str) -> Result<Option<DocStatusRecord>, StoreError> {
        documents::get_status(&mut *self.conn().await?, &self.workspace, id).await
    }

    async fn previous_version(&self, id: &str) -> Result<Option<PreviousVersion>, StoreError> {
        documents::previous_version(&mut *self.conn().await?, &self.workspace, id).await
    }

    async fn list_docs(&self, filter: &DocFilter) -> Result<(Vec<DocStatusRecord>, usize), StoreError> {
        documents::list_docs(self, filter).await
    }

    async fn status_counts(&self) -> Result<BTreeMap<DocStatus, usize>, StoreError> {
        documents::status_counts(&mut *self.conn().await?, &self.workspace).await
    }

    async fn get_chunks(&self, ids: &[String]) -> Result<Vec<Option<Chunk>>, StoreError> {
        chunks::get_chunks(&mut *self.conn().await?, &self.workspace, ids).await
    }

    async fn get_extractions(&self, chunk_ids: &[String]) -> Result<Vec<ChunkExtraction>, StoreError> {
        chunks::get_extractions(&mut *self.conn().await?, &self.workspace, chunk_ids).await
    }

    async fn get_doc_links(&self, doc_id: &str) -> Result<Option<DocLinks>, StoreError> {
        chunks::get_links(&mut *self.conn().await?, &self.workspace, doc_id).await
    }
}

#[async_trait]
impl GraphReads for PostgresStore {
    async fn get_entities(&self, names: &[String]) -> Result<Vec<Option<Entity>>, StoreError> {
        graph::get_entities(&mut *self.conn().await?, &self.workspace, names).await
    }

    async fn get_relations(&self, keys: &[RelKey]) -> Result<Vec<Option<Relation>>, StoreError> {
        graph::get_relations(&mut *self.conn().await?, &self.workspace, keys).await
    }

    async fn node_degrees(&self, names: &[String]) -> Result<Vec<usize>, StoreError> {
        graph::node_degrees(&mut *self.conn().await?, &self.workspace, names).await
    }

    async fn relations_of(&self, names: &[String]) -> Result<Vec<Relation>, StoreError> {
        graph::relations_of(&mut *self.conn().await?, &self.workspace, names).await
    }

    async fn relation_keys_of(&self, names: &[String]) -> Result<Vec<RelKey>, StoreError> {
        graph::relation_keys_of(&mut *self.conn().await?, &self.workspace, names).await
    }

    async fn relations_among(&self, names: &[String]) -> Result<Vec<Relation>, StoreError> {
        graph::relations_among(&mut *self.conn().await?, &self.workspace, names).await
    }

    async fn ranked_relations_of(&self, names: &[String], limit: usize) -> Result<RankedRelations, StoreError> {
        graph::ranked_relations_of(&mut *self.conn().await?, &self.workspace, names, limit).await
    }

    async fn chunk_list(&self, owner: &GraphKey, range: ListRange) -> Result<Vec<String>, StoreError> {
        lists::read(&mut *self.conn().await?, &self.workspace, owner, range).await
    }

    async fn chunk_owners(&self, chunk_ids: &[String]) -> Result<Vec<(String, GraphKey)>, StoreError> {
        lists::owners(&mut *self.conn().await?, &self.workspace, chunk_ids).await
    }
}

#[async_trait]
impl TextSearch for PostgresStore {
    async fn search_chunk_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError> {
        chunks::search_chunk_text(&mut *self.conn().await?, &self.workspace, terms, top_k).await
    }

    async fn search_entity_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError> {
        graph::search_entity_text(&mut *self.conn().await?, &self.workspace, terms, top_k).await
    }

    async fn entity_names_containing(&self, text: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        graph::entity_names_containing(&mut *self.conn().await?, &self.workspace, text, limit).await
    }
}

#[async_trait]
impl VectorReads for PostgresStore {
    async fn search_vectors(
        &self,
        kind: VectorKind,
        query: &[f32],
        top_k: usize,
        min_score: f32,
    ) -> Result<Vec<VectorHit>, StoreError> {
        vectors::search(self, kind, query, top_k, min_score).await
    }

    async fn get_vectors(&self, kind: VectorKind, keys: &[String]) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
        vectors::get(&mut *self.conn().await?, &self.workspace, kind, keys).await
    }

    async fn similarities(
        &self,
        kind: VectorKind,
        keys: &[String],
        query: &[f32],
    ) -> Result<Vec<Option<f32>>, StoreError> {
        vectors::similarities(self, kind, keys, query).await
    }
}

#[async_trait]
impl Catalog for PostgresStore {
    async fn graph_counts(&self) -> Result<GraphCounts, StoreError> {
        graph::graph_counts(&mut *self.conn().await?, &self.workspace).await
    }

    async fn top_entities(&self, limit: usize) -> Result<Vec<(String, usize)>, StoreError> {
        graph::top_entities(&mut *self.conn().await?, &self.workspace, limit).await
    }

    async fn entity_names(&self, after: Option<&str>, limit: usize) -> Result<Vec<String>, StoreError> {
        graph::entity_names(&mut *self.conn().await?, &self.workspace, after, limit).await
    }

    async fn entities_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<Entity>, StoreError> {
        graph::entities_page(&mut *self.conn().await?, &self.workspace, after, limit).await
    }

    async fn relations_page(&self, after: Option<&RelKey>, limit: usize) -> Result<Vec<Relation>, StoreError> {
        graph::relations_page(&mut *self.conn().await?, &self.workspace, after, limit).await
    }

    async fn chunk_keys_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<(String, String)>, StoreError> {
        chunks::chunk_keys_page(&mut *self.conn().await?, &self.workspace, after, limit).await
    }

    async fn vector_keys_page(
        &self,
        kind: VectorKind,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<lightrag_ports::VectorKeyInfo>, StoreError> {
        vectors::keys_page(&mut *self.conn().await?, &self.workspace, kind, after, limit).await
    }

    async fn vector_counts(&self) -> Result<BTreeMap<VectorKind, usize>, StoreError> {
        vectors::counts(&mut *self.conn().await?, &self.workspace).await
    }

    async fn check_integrity(&self) -> Result<Vec<String>, StoreError> {
        integrity::check(&mut *self.conn().await?, &self.workspace).await
    }
}

#[async_trait]
impl DocumentQueue for PostgresStore {
    async fn enqueue_within(
        &self,
        docs: Vec<NewDocument>,
        limits: &EnqueueLimits,
    ) -> Result<Vec<EnqueueOutcome>, StoreError> {
        documents::enqueue(self, &docs, limits).await
    }

    async fn footprint(&self) -> Result<lightrag_ports::Footprint, StoreError> {
        documents::footprint(&mut *self.conn().await?, &self.workspace).await
    }

    async fn claim(&self, request: &ClaimRequest) -> Result<Vec<DocStatusRecord>, StoreError> {
        documents::claim(&mut *self.conn().await?, &self.workspace, request).await
    }

    async fn renew_leases(&self, owner: &str, ids: &[String], lease_until: i64) -> Result<Vec<String>, StoreError> {
        documents::renew_leases(&mut *self.conn().await?, &self.workspace, owner, ids, lease_until).await
    }

    async fn request_cancel(&self) -> Result<u64, StoreError> {
        cache::request_cancel(&mut *self.conn().await?, &self.workspace).await
    }

    async fn cancel_generation(&self) -> Result<u64, StoreError> {
        cache::cancel_generation(&mut *self.conn().await?, &self.workspace).await
    }
}

#[async_trait]
impl MergeLocks for PostgresStore {
    async fn lock_keys(&self, owner: &str, keys: &[String], now: i64, until: i64) -> Result<bool, StoreError> {
        locks::lock_keys(self, owner, keys, now, until).await
    }

    async fn unlock_keys(&self, owner: &str, keys: &[String]) -> Result<(), StoreError> {
        locks::unlock_keys(&mut *self.conn().await?, &self.workspace, owner, keys).await
    }

    async fn renew_key_locks(&self, owner: &str, keys: &[String], until: i64) -> Result<usize, StoreError> {
        locks::renew_key_locks(&mut *self.conn().await?, &self.workspace, owner, keys, until).await
    }

    async fn release_locks_of(&self, owners: &[String]) -> Result<usize, StoreError> {
        if owners.is_empty() {
            return Ok(0);
        }
        locks::release_locks_of(&mut *self.conn().await?, &self.workspace, owners).await
    }
}

#[async_trait]
impl CacheAndLedger for PostgresStore {
    async fn cache_get(&self, key: &str) -> Result<Option<CacheEntry>, StoreError> {
        cache::cache_get(&mut *self.conn().await?, &self.workspace, key).await
    }

    async fn cache_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<CacheEntry>, StoreError> {
        cache::cache_page(&mut *self.conn().await?, &self.workspace, after, limit).await
    }

    async fn cache_put(&self, entry: CacheEntry) -> Result<(), StoreError> {
        cache::cache_put(&mut *self.conn().await?, &self.workspace, &entry).await
    }

    async fn cache_clear(&self, types: &[String]) -> Result<usize, StoreError> {
        cache::cache_clear(&mut *self.conn().await?, &self.workspace, types).await
    }

    async fn cache_delete(&self, keys: &[String]) -> Result<usize, StoreError> {
        cache::cache_delete(&mut *self.conn().await?, &self.workspace, keys).await
    }

    async fn usage_today(&self) -> Result<Usage, StoreError> {
        cache::usage_today(&mut *self.conn().await?, &self.workspace).await
    }

    async fn usage(&self) -> Result<Usage, StoreError> {
        cache::usage(&mut *self.conn().await?, &self.workspace).await
    }
}

#[async_trait]
impl Commits for PostgresStore {
    async fn apply(&self, changes: ChangeSet) -> Result<(), StoreError> {
        if changes.is_empty()
            && changes.expect_entities.is_empty()
            && changes.expect_relations.is_empty()
            && changes.expect_doc_owners.is_empty()
        {
            return Ok(());
        }
        if let Some(dim) = apply::apply(self, &changes).await? {
            self.dim.store(dim, std::sync::atomic::Ordering::Relaxed);
            // The commit stands without the index; a large-set search makes sure of it again.
            if let Err(e) = vectors::ensure_index(self, dim).await {
                tracing::warn!("cannot create the HNSW index for dimension {dim}: {e}");
            }
        }
        Ok(())
    }

    async fn clear_all(&self) -> Result<(), StoreError> {
        apply::clear_all(self).await
    }

    async fn check_embedding_identity(&self, identity: &EmbeddingIdentity) -> Result<(), StoreError> {
        let dim = cache::check_identity(self, identity).await?;
        self.dim.store(dim, std::sync::atomic::Ordering::Relaxed);
        vectors::ensure_index(self, dim).await
    }

    async fn embedding_identity(&self) -> Result<Option<EmbeddingIdentity>, StoreError> {
        cache::embedding_identity(&mut *self.conn().await?, &self.workspace).await
    }
}

#[async_trait]
impl Reembedding for PostgresStore {
    async fn reembed_begin(&self, target: &EmbeddingIdentity) -> Result<ReembedProgress, StoreError> {
        reembed::begin(self, target).await
    }

    async fn reembed_pending(
        &self,
        kind: VectorKind,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<PendingVector>, StoreError> {
        reembed::pending(self, kind, after, limit).await
    }

    async fn reembed_stage(&self, kind: VectorKind, rows: Vec<StagedVector>) -> Result<(), StoreError> {
        reembed::stage(self, kind, &rows).await
    }

    async fn reembed_switch(&self) -> Result<SwitchOutcome, StoreError> {
        reembed::switch(self).await
    }
}
