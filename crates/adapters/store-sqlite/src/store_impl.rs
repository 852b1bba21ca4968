//! The store port ([`Store`](lightrag_ports::Store)), one `impl` per trait ([`DocumentReads`],
//! [`GraphReads`], [`TextSearch`], [`VectorReads`], [`Catalog`], [`DocumentQueue`], [`MergeLocks`],
//! [`CacheAndLedger`], [`Commits`], [`Reembedding`]): each method hops to a blocking thread and
//! calls the module that owns the table.

use std::collections::BTreeMap;

use async_trait::async_trait;
use lightrag_ports::{
    CacheAndLedger, CacheEntry, Catalog, ChangeSet, Chunk, ChunkExtraction, ClaimRequest, Commits, DocFilter, DocLinks,
    DocStatus, DocStatusRecord, Document, DocumentQueue, DocumentReads, EmbeddingIdentity, EnqueueLimits,
    EnqueueOutcome, Entity, GraphCounts, GraphKey, GraphReads, ListRange, MergeLocks, PendingVector, PreviousVersion,
    RankedRelations, ReembedProgress, Reembedding, RelKey, Relation, StagedVector, StoreError, SwitchOutcome, TextHit,
    TextSearch, Usage, VectorHit, VectorKind, VectorReads, store::NewDocument,
};

use crate::codec::{db_err, meta_get_i64, meta_set};
use crate::{SqliteStore, apply, cache, chunks, documents, graph, integrity, lists, locks, ranked, reembed, vectors};

#[async_trait]
impl DocumentReads for SqliteStore {
    async fn get_document(&self, id: &str) -> Result<Option<Document>, StoreError> {
        let id = id.to_string();
        self.read(move |c| documents::get_document(c, &id)).await
    }

    async fn get_doc_status(&self, id: &str) -> Result<Option<DocStatusRecord>, StoreError> {
        let id = id.to_string();
        self.read(move |c| documents::get_status(c, &id)).await
    }

    async fn previous_version(&self, id: &str) -> Result<Option<PreviousVersion>, StoreError> {
        let id = id.to_string();
        self.read(move |c| documents::previous_version(c, &id)).await
    }

    async fn list_docs(&self, filter: &DocFilter) -> Result<(Vec<DocStatusRecord>, usize), StoreError> {
        let filter = filter.clone();
        self.read(move |c| documents::list_docs(c, &filter)).await
    }

    async fn status_counts(&self) -> Result<BTreeMap<DocStatus, usize>, StoreError> {
        self.read(documents::status_counts).await
    }

    async fn get_chunks(&self, ids: &[String]) -> Result<Vec<Option<Chunk>>, StoreError> {
        let ids = ids.to_vec();
        self.read(move |c| chunks::get_chunks(c, &ids)).await
    }

    async fn get_extractions(&self, chunk_ids: &[String]) -> Result<Vec<ChunkExtraction>, StoreError> {
        let ids = chunk_ids.to_vec();
        self.read(move |c| chunks::get_extractions(c, &ids)).await
    }

    async fn get_doc_links(&self, doc_id: &str) -> Result<Option<DocLinks>, StoreError> {
        let id = doc_id.to_string();
        self.read(move |c| chunks::get_links(c, &id)).await
    }
}

#[async_trait]
impl GraphReads for SqliteStore {
    async fn get_entities(&self, names: &[String]) -> Result<Vec<Option<Entity>>, StoreError> {
        let names = names.to_vec();
        self.read(move |c| graph::get_entities(c, &names)).await
    }

    async fn get_relations(&self, keys: &[RelKey]) -> Result<Vec<Option<Relation>>, StoreError> {
        let keys = keys.to_vec();
        self.read(move |c| graph::get_relations(c, &keys)).await
    }

    async fn node_degrees(&self, names: &[String]) -> Result<Vec<usize>, StoreError> {
        let names = names.to_vec();
        self.read(move |c| graph::node_degrees(c, &names)).await
    }

    async fn relations_of(&self, names: &[String]) -> Result<Vec<Relation>, StoreError> {
        let names = names.to_vec();
        self.read(move |c| graph::relations_of(c, &names)).await
    }

    async fn relation_keys_of(&self, names: &[String]) -> Result<Vec<RelKey>, StoreError> {
        let names = names.to_vec();
        self.read(move |c| ranked::relation_keys_of(c, &names)).await
    }

    async fn relations_among(&self, names: &[String]) -> Result<Vec<Relation>, StoreError> {
        let names = names.to_vec();
        self.read(move |c| ranked::relations_among(c, &names)).await
    }

    async fn ranked_relations_of(&self, names: &[String], limit: usize) -> Result<RankedRelations, StoreError> {
        let names = names.to_vec();
        self.read(move |c| ranked::ranked_relations_of(c, &names, limit)).await
    }

    async fn chunk_list(&self, owner: &GraphKey, range: ListRange) -> Result<Vec<String>, StoreError> {
        let owner = owner.clone();
        self.read(move |c| lists::read(c, &owner, range)).await
    }

    async fn chunk_lists(&self, owners: &[GraphKey], range: ListRange) -> Result<Vec<Vec<String>>, StoreError> {
        if owners.is_empty() {
            return Ok(Vec::new());
        }
        // one trip to a reader thread for all of them, not one each
        let owners = owners.to_vec();
        self.read(move |c| owners.iter().map(|owner| lists::read(c, owner, range)).collect()).await
    }

    async fn chunk_owners(&self, chunk_ids: &[String]) -> Result<Vec<(String, GraphKey)>, StoreError> {
        let ids = chunk_ids.to_vec();
        self.read(move |c| lists::owners(c, &ids)).await
    }
}

#[async_trait]
impl TextSearch for SqliteStore {
    async fn search_chunk_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError> {
        let terms = terms.to_vec();
        self.read(move |c| chunks::search_chunk_text(c, &terms, top_k)).await
    }

    async fn search_entity_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError> {
        let terms = terms.to_vec();
        self.read(move |c| graph::search_entity_text(c, &terms, top_k)).await
    }

    async fn entity_names_containing(&self, text: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        let text = text.to_string();
        self.read(move |c| graph::entity_names_containing(c, &text, limit)).await
    }
}

#[async_trait]
impl VectorReads for SqliteStore {
    async fn search_vectors(
        &self,
        kind: VectorKind,
        query: &[f32],
        top_k: usize,
        min_score: f32,
    ) -> Result<Vec<VectorHit>, StoreError> {
        let query = query.to_vec();
        self.run(move |inner| inner.search(kind, query, top_k, min_score)).await
    }

    async fn get_vectors(&self, kind: VectorKind, keys: &[String]) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
        let keys = keys.to_vec();
        self.run(move |inner| inner.get_vectors(kind, &keys)).await
    }

    async fn similarities(
        &self,
        kind: VectorKind,
        keys: &[String],
        query: &[f32],
    ) -> Result<Vec<Option<f32>>, StoreError> {
        let (keys, query) = (keys.to_vec(), query.to_vec());
        self.run(move |inner| inner.similarities(kind, &keys, &query)).await
    }
}

#[async_trait]
impl Catalog for SqliteStore {
    async fn graph_counts(&self) -> Result<GraphCounts, StoreError> {
        self.read(graph::graph_counts).await
    }

    async fn top_entities(&self, limit: usize) -> Result<Vec<(String, usize)>, StoreError> {
        self.read(move |c| graph::top_entities(c, limit)).await
    }

    async fn entity_names(&self, after: Option<&str>, limit: usize) -> Result<Vec<String>, StoreError> {
        let after = after.map(str::to_string);
        self.read(move |c| graph::entity_names(c, after.as_deref(), limit)).await
    }

    async fn entities_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<Entity>, StoreError> {
        let after = after.map(str::to_string);
        self.read(move |c| graph::entities_page(c, after.as_deref(), limit)).await
    }

    async fn relations_page(&self, after: Option<&RelKey>, limit: usize) -> Result<Vec<Relation>, StoreError> {
        let after = after.cloned();
        self.read(move |c| graph::relations_page(c, after.as_ref(), limit)).await
    }

    async fn chunk_keys_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<(String, String)>, StoreError> {
        let after = after.map(str::to_string);
        self.read(move |c| chunks::chunk_keys_page(c, after.as_deref(), limit)).await
    }

    async fn vector_keys_page(
        &self,
        kind: VectorKind,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<lightrag_ports::VectorKeyInfo>, StoreError> {
        let after = after.map(str::to_string);
        self.read(move |c| vectors::vector_keys_page(c, kind, after.as_deref(), limit)).await
    }

    async fn vector_counts(&self) -> Result<BTreeMap<VectorKind, usize>, StoreError> {
        self.read(vectors::vector_counts).await
    }

    async fn check_integrity(&self) -> Result<Vec<String>, StoreError> {
        self.read(integrity::check).await
    }
}

#[async_trait]
impl DocumentQueue for SqliteStore {
    async fn enqueue_within(
        &self,
        docs: Vec<NewDocument>,
        limits: &EnqueueLimits,
    ) -> Result<Vec<EnqueueOutcome>, StoreError> {
        let limits = *limits;
        self.write(move |c| documents::enqueue(c, &docs, &limits)).await
    }

    async fn footprint(&self) -> Result<lightrag_ports::Footprint, StoreError> {
        self.read(documents::footprint).await
    }

    async fn claim(&self, request: &ClaimRequest) -> Result<Vec<DocStatusRecord>, StoreError> {
        let request = request.clone();
        self.write(move |c| documents::claim(c, &request)).await
    }

    async fn renew_leases(&self, owner: &str, ids: &[String], lease_until: i64) -> Result<Vec<String>, StoreError> {
        let (owner, ids) = (owner.to_string(), ids.to_vec());
        self.write(move |c| documents::renew_leases(c, &owner, &ids, lease_until)).await
    }

    async fn request_cancel(&self) -> Result<u64, StoreError> {
        self.write(|conn| {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(db_err)?;
            let next = meta_get_i64(&tx, CANCEL_KEY)?.unwrap_or(0).max(0) + 1;
            meta_set(&tx, CANCEL_KEY, &next.to_string())?;
            tx.commit().map_err(db_err)?;
            Ok(next as u64)
        })
        .await
    }

    async fn cancel_generation(&self) -> Result<u64, StoreError> {
        self.read(|c| Ok(meta_get_i64(c, CANCEL_KEY)?.unwrap_or(0).max(0) as u64)).await
    }
}

#[async_trait]
impl MergeLocks for SqliteStore {
    async fn lock_keys(&self, owner: &str, keys: &[String], now: i64, until: i64) -> Result<bool, StoreError> {
        let (owner, keys) = (owner.to_string(), keys.to_vec());
        self.write(move |c| locks::lock_keys(c, &owner, &keys, now, until)).await
    }

    async fn unlock_keys(&self, owner: &str, keys: &[String]) -> Result<(), StoreError> {
        let (owner, keys) = (owner.to_string(), keys.to_vec());
        self.write(move |c| locks::unlock_keys(c, &owner, &keys)).await
    }

    async fn renew_key_locks(&self, owner: &str, keys: &[String], until: i64) -> Result<usize, StoreError> {
        let (owner, keys) = (owner.to_string(), keys.to_vec());
        self.write(move |c| locks::renew_key_locks(c, &owner, &keys, until)).await
    }

    async fn release_locks_of(&self, owners: &[String]) -> Result<usize, StoreError> {
        if owners.is_empty() {
            return Ok(0);
        }
        let owners = owners.to_vec();
        self.write(move |c| locks::release_locks_of(c, &owners)).await
    }
}

#[async_trait]
impl CacheAndLedger for SqliteStore {
    async fn cache_get(&self, key: &str) -> Result<Option<CacheEntry>, StoreError> {
        let key = key.to_string();
        self.read(move |c| cache::cache_get(c, &key)).await
    }

    async fn cache_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<CacheEntry>, StoreError> {
        let after = after.map(str::to_string);
        self.read(move |c| cache::cache_page(c, after.as_deref(), limit)).await
    }

    async fn cache_put(&self, entry: CacheEntry) -> Result<(), StoreError> {
        self.write(move |c| cache::cache_put(c, &entry)).await
    }

    async fn cache_clear(&self, types: &[String]) -> Result<usize, StoreError> {
        let types = types.to_vec();
        self.write(move |c| cache::cache_clear(c, &types)).await
    }

    async fn cache_delete(&self, keys: &[String]) -> Result<usize, StoreError> {
        let keys = keys.to_vec();
        self.write(move |c| cache::cache_delete(c, &keys)).await
    }

    async fn usage_today(&self) -> Result<Usage, StoreError> {
        self.read(cache::usage_today).await
    }

    async fn usage(&self) -> Result<Usage, StoreError> {
        self.read(cache::usage).await
    }
}

#[async_trait]
impl Commits for SqliteStore {
    async fn apply(&self, changes: ChangeSet) -> Result<(), StoreError> {
        if changes.is_empty()
            && changes.expect_entities.is_empty()
            && changes.expect_relations.is_empty()
            && changes.expect_doc_owners.is_empty()
        {
            return Ok(());
        }
        self.run(move |inner| {
            let mut conn = inner.writer();
            let applied = apply::apply(&mut conn, &changes)?;
            // Replayed while the writer lock is held, so replays happen in commit order. The
            // commit stands even if the replay fails: the next search catches up from the log.
            if let Err(e) = inner.replay(&mut conn, &applied) {
                tracing::warn!("vector index replay failed; it will catch up before the next search: {e}");
            }
            Ok(())
        })
        .await
    }

    async fn clear_all(&self) -> Result<(), StoreError> {
        self.run(move |inner| {
            let mut conn = inner.writer();
            let applied = apply::clear_all(&mut conn)?;
            if let Err(e) = inner.replay(&mut conn, &applied) {
                tracing::warn!("vector index replay failed; it will catch up before the next search: {e}");
            }
            Ok(())
        })
        .await
    }

    async fn check_embedding_identity(&self, identity: &EmbeddingIdentity) -> Result<(), StoreError> {
        let identity = identity.clone();
        self.run(move |inner| {
            let mut conn = inner.writer();
            let dim = cache::check_identity(&mut conn, &identity)?;
            inner.set_dim(dim)
        })
        .await
    }

    async fn embedding_identity(&self) -> Result<Option<EmbeddingIdentity>, StoreError> {
        self.read(cache::embedding_identity).await
    }
}

#[async_trait]
impl Reembedding for SqliteStore {
    async fn reembed_begin(&self, target: &EmbeddingIdentity) -> Result<ReembedProgress, StoreError> {
        let target = target.clone();
        self.write(move |c| reembed::begin(c, &target)).await
    }

    async fn reembed_pending(
        &self,
        kind: VectorKind,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<PendingVector>, StoreError> {
        let after = after.map(str::to_string);
        self.read(move |c| reembed::pending(c, kind, after.as_deref(), limit)).await
    }

    async fn reembed_stage(&self, kind: VectorKind, rows: Vec<StagedVector>) -> Result<(), StoreError> {
        self.write(move |c| reembed::stage(c, kind, &rows)).await
    }

    async fn reembed_switch(&self) -> Result<SwitchOutcome, StoreError> {
        self.run(move |inner| {
            let (outcome, dim) = reembed::switch(&mut inner.writer())?;
            if let SwitchOutcome::Switched { .. } = outcome
                && let Err(e) = inner.switched(dim)
            {
                tracing::warn!(
                    "vector index rebuild after the re-embedding failed; it retries before the next search: {e}"
                );
            }
            Ok(outcome)
        })
        .await
    }
}

/// Meta key counting pipeline cancellation requests (see `DocumentQueue::cancel_generation`).
const CANCEL_KEY: &str = "pipeline_cancel_generation";
