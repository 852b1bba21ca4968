//! What the interfaces read and reset outside indexing and querying: document status rows, their
//! counts, graph listings and the LLM cache. The CLI, the server and the tools reach the store
//! through these methods (and the other `Engine` methods), never directly, so a second storage
//! backend only has to implement the ports.

use std::collections::BTreeMap;

use lightrag_ports::{ChangeSet, DocFilter, DocStatus, DocStatusRecord, Entity, GraphCounts, RelKey, Relation};

use crate::engine::Engine;
use crate::error::Result;

impl Engine {
    /// The status row of one document, `None` when the id is unknown.
    pub async fn document_status(&self, id: &str) -> Result<Option<DocStatusRecord>> {
        Ok(self.inner.store.get_doc_status(id).await?)
    }

    /// Status rows matching `filter` (its page and sort) and the number of rows matching it in all.
    pub async fn list_documents(&self, filter: &DocFilter) -> Result<(Vec<DocStatusRecord>, usize)> {
        Ok(self.inner.store.list_docs(filter).await?)
    }

    /// Documents per status (statuses without documents are absent).
    pub async fn status_counts(&self) -> Result<BTreeMap<DocStatus, usize>> {
        Ok(self.inner.store.status_counts().await?)
    }

    /// Number of entities and relations.
    pub async fn graph_counts(&self) -> Result<GraphCounts> {
        Ok(self.inner.store.graph_counts().await?)
    }

    /// Every entity name, sorted.
    pub async fn entity_names(&self) -> Result<Vec<String>> {
        Ok(self.inner.store.entity_names().await?)
    }

    /// The `limit` entities with the most relations, with their degree (highest first).
    pub async fn top_entities(&self, limit: usize) -> Result<Vec<(String, usize)>> {
        Ok(self.inner.store.top_entities(limit).await?)
    }

    /// The entities of these names, in the same order (`None` for an unknown name).
    pub async fn entities(&self, names: &[String]) -> Result<Vec<Option<Entity>>> {
        Ok(self.inner.store.get_entities(names).await?)
    }

    /// The relations of these keys, in the same order (`None` for an unknown pair).
    pub async fn relations(&self, keys: &[RelKey]) -> Result<Vec<Option<Relation>>> {
        Ok(self.inner.store.get_relations(keys).await?)
    }

    /// Commits a change set built outside the pipeline (an import tool bringing documents, graph
    /// records, vectors and cache entries over) as one atomic transaction, after any merge in
    /// progress. The caller is responsible for its consistency, as the pipeline is for its own.
    pub async fn commit_changes(&self, changes: ChangeSet) -> Result<()> {
        let _merging = self.inner.merge_lock.lock().await;
        Ok(self.inner.store.apply(changes).await?)
    }

    /// Removes every cached LLM answer; returns how many there were.
    pub async fn clear_llm_cache(&self) -> Result<usize> {
        Ok(self.inner.store.cache_clear(&[]).await?)
    }

    /// Removes every document, chunk, entity, relation, vector and cached answer of this
    /// knowledge base. Waits for a merge in progress, so no commit lands half on each side.
    pub async fn clear_all(&self) -> Result<()> {
        let _merging = self.inner.merge_lock.lock().await;
        Ok(self.inner.store.clear_all().await?)
    }
}
