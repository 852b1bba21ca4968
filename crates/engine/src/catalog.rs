//! What the interfaces read and reset outside indexing and querying: document status rows, their
//! counts, graph listings and the LLM cache. The CLI, the server and the tools reach the store
//! through these methods (and the other `Engine` methods), never directly, so a second storage
//! backend only has to implement the ports.

use std::collections::BTreeMap;

use lightrag_ports::{
    ChangeSet, DocFilter, DocStatus, DocStatusRecord, Document, Entity, GraphCounts, RelKey, Relation, paging,
};

use crate::engine::Engine;
use crate::error::Result;

impl Engine {
    /// The status row of one document, `None` when the id is unknown.
    pub async fn document_status(&self, id: &str) -> Result<Option<DocStatusRecord>> {
        Ok(self.inner.store.get_doc_status(id).await?)
    }

    /// The stored document (its full text), `None` when the id is unknown.
    pub async fn document(&self, id: &str) -> Result<Option<Document>> {
        Ok(self.inner.store.get_document(id).await?)
    }

    /// Status rows matching `filter` (its page and sort) and the number of rows matching it in all.
    /// Without a `limit`, every matching row, read from the store a page at a time.
    pub async fn list_documents(&self, filter: &DocFilter) -> Result<(Vec<DocStatusRecord>, usize)> {
        if filter.limit.is_some() {
            return Ok(self.inner.store.list_docs(filter).await?);
        }
        let mut rows: Vec<DocStatusRecord> = Vec::new();
        loop {
            let page = DocFilter { offset: filter.offset + rows.len(), limit: Some(paging::PAGE), ..filter.clone() };
            let (found, total) = self.inner.store.list_docs(&page).await?;
            let done = found.len() < paging::PAGE;
            rows.extend(found);
            if done {
                return Ok((rows, total));
            }
        }
    }

    /// Documents being processed under another process's lease (other workers or servers on
    /// this knowledge base).
    pub async fn processing_elsewhere(&self) -> Result<usize> {
        let filter = DocFilter { statuses: vec![DocStatus::Processing], ..Default::default() };
        let (rows, _) = self.inner.store.list_docs(&filter).await?;
        let mine = self.worker_id();
        Ok(rows.iter().filter(|r| r.lease_owner.as_deref().is_some_and(|o| o != mine)).count())
    }

    /// Documents per status (statuses without documents are absent).
    pub async fn status_counts(&self) -> Result<BTreeMap<DocStatus, usize>> {
        Ok(self.inner.store.status_counts().await?)
    }

    /// Number of entities and relations.
    pub async fn graph_counts(&self) -> Result<GraphCounts> {
        Ok(self.inner.store.graph_counts().await?)
    }

    /// Every entity name, sorted (read from the store a page at a time).
    pub async fn entity_names(&self) -> Result<Vec<String>> {
        Ok(paging::all_entity_names(self.inner.store.as_ref()).await?)
    }

    /// LightRAG's label search: up to `limit` entity names matching `query` case-insensitively,
    /// best first by [`label_score`] (exact, then prefix, then substring — shorter and word
    /// starts first), ties by name. The store's name index gives the candidates (at most
    /// [`LABEL_CANDIDATES`]: those starting with the query, then the shortest), so a search
    /// never reads every name.
    pub async fn search_labels(&self, query: &str, limit: usize) -> Result<Vec<String>> {
        let candidates = self.inner.store.entity_names_containing(query, LABEL_CANDIDATES).await?;
        let mut scored: Vec<(i64, String)> =
            candidates.into_iter().filter_map(|n| label_score(&n, query).map(|s| (s, n))).collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        Ok(scored.into_iter().take(limit).map(|(_, n)| n).collect())
    }

    /// Up to `limit` entity names after `after` (from the first when `None`), sorted.
    pub async fn entity_names_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<String>> {
        Ok(self.inner.store.entity_names(after, limit).await?)
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
        // a query answer still being written would come back after the clear
        self.inner.gateway.settle_cache_writes().await;
        Ok(self.inner.store.cache_clear(&[]).await?)
    }

    /// Removes every document, chunk, entity, relation, vector and cached answer of this
    /// knowledge base. Waits for a merge in progress, so no commit lands half on each side.
    pub async fn clear_all(&self) -> Result<()> {
        let _merging = self.inner.merge_lock.lock().await;
        self.inner.gateway.settle_cache_writes().await;
        Ok(self.inner.store.clear_all().await?)
    }
}

/// How many candidates label search ranks at most (names starting with the query, then the
/// shortest): enough that the best `limit ≤ 100` are among them unless more than this many
/// names contain the query.
pub const LABEL_CANDIDATES: usize = 1_000;

/// LightRAG's fuzzy label score (`None` = no match): exact 1000, prefix 500, substring
/// `100 − length`, plus 50 when a match starts a word. Case-insensitive.
pub fn label_score(name: &str, query: &str) -> Option<i64> {
    let (n, q) = (name.to_lowercase(), query.to_lowercase());
    if q.is_empty() {
        return None;
    }
    if n == q {
        return Some(1000);
    }
    if n.starts_with(&q) {
        return Some(500);
    }
    let positions: Vec<usize> = n.match_indices(&q).map(|(i, _)| i).collect();
    if positions.is_empty() {
        return None;
    }
    let mut score = 100 - n.chars().count() as i64;
    let boundary = positions.iter().any(|&i| n[..i].chars().last().is_some_and(|c| !c.is_alphanumeric()));
    if boundary {
        score += 50;
    }
    Some(score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_scores_follow_lightrag() {
        assert_eq!(label_score("Alice", "alice"), Some(1000));
        assert_eq!(label_score("Alice Smith", "ali"), Some(500));
        assert_eq!(label_score("Dr Alice", "alice"), Some(100 - 8 + 50));
        assert_eq!(label_score("Malice", "alice"), Some(100 - 6));
        assert_eq!(label_score("Bob", "alice"), None);
    }
}
