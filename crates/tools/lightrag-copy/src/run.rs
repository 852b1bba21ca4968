//! The copy itself: documents one change set each, then unlinked graph records, the LLM cache and
//! the usage ledger (see the crate docs).

use std::collections::{BTreeSet, HashSet};

use lightrag_ports::{
    CacheEntry, ChangeSet, DocFilter, DocSort, DocStatus, DocStatusRecord, RelKey, Store, Usage, VectorKind,
    VectorRecord,
};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::CopyError;
use crate::graph::{add_entities, add_relations};

/// Documents listed per page of the source.
const DOC_PAGE: usize = 500;
/// Graph records per change set after the documents.
const GRAPH_BATCH: usize = 200;
/// Cache entries per change set.
const CACHE_BATCH: usize = 1000;

/// Progress of a copy.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum CopyEvent {
    /// The documents were listed.
    Started {
        /// Documents (status rows) in the source.
        documents: usize,
        /// Of those, already in the target (an earlier run).
        already_copied: usize,
    },
    /// A document was copied or skipped.
    Document {
        /// Its id.
        doc_id: String,
        /// Whether it was already in the target.
        skipped: bool,
    },
    /// Graph records no document links to were copied.
    Graph {
        /// Copied so far.
        copied: usize,
    },
    /// LLM cache entries were copied.
    Cache {
        /// Copied so far.
        copied: usize,
    },
}

/// Receives [`CopyEvent`]s.
pub trait CopyProgress: Send + Sync {
    /// Called for each event.
    fn event(&self, event: &CopyEvent);
}

/// Ignores events.
pub struct NoCopyProgress;

impl CopyProgress for NoCopyProgress {
    fn event(&self, _event: &CopyEvent) {}
}

/// What a copy did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CopyReport {
    /// Documents (status rows) copied by this run.
    pub documents_copied: usize,
    /// Documents already in the target.
    pub documents_skipped: usize,
    /// Source documents that were `processing` there, copied as `pending`.
    pub documents_pending_again: usize,
    /// Chunks copied.
    pub chunks: usize,
    /// Entities copied.
    pub entities: usize,
    /// Relations copied.
    pub relations: usize,
    /// Vectors copied (chunks, entities, relations).
    pub vectors: usize,
    /// Records copied without a vector because the source holds no usable one for them: none,
    /// or one with NaN, infinite values or only zeros (refused: no search can use it).
    /// `lightrag check --repair` on the target embeds them with the configured model.
    pub vectors_missing: usize,
    /// LLM cache entries written.
    pub cache_entries: usize,
    /// Whether the usage ledger was copied (only into a target whose ledger is empty).
    pub usage_copied: bool,
    /// Stopped early by the cancellation token (running again continues).
    pub cancelled: bool,
}

/// Copies the knowledge base in `from` into `to`. Stops between change sets when `cancel` fires
/// (the report says so; running again continues).
pub async fn copy(
    from: &dyn Store,
    to: &dyn Store,
    progress: &dyn CopyProgress,
    cancel: &CancellationToken,
) -> Result<CopyReport, CopyError> {
    let mut report = CopyReport::default();
    if let Some(identity) = from.embedding_identity().await.map_err(CopyError::Source)? {
        match to.check_embedding_identity(&identity).await {
            Ok(()) => {}
            Err(lightrag_ports::StoreError::EmbeddingMismatch { stored_model, stored_dim, .. }) => {
                return Err(CopyError::EmbeddingMismatch {
                    source_model: identity.model,
                    source_dim: identity.dim,
                    target_model: stored_model,
                    target_dim: stored_dim,
                });
            }
            Err(e) => return Err(CopyError::Target(e)),
        }
    }
    let rows = all_docs(from).await.map_err(CopyError::Source)?;
    if rows.is_empty() && from.graph_counts().await.map_err(CopyError::Source)?.nodes == 0 {
        return Err(CopyError::SourceEmpty);
    }
    let present = present_docs(to, &rows).await?;
    progress.event(&CopyEvent::Started { documents: rows.len(), already_copied: present.len() });

    let mut entities_written: HashSet<String> = HashSet::new();
    let mut relations_written: HashSet<RelKey> = HashSet::new();
    for row in rows {
        if cancel.is_cancelled() {
            report.cancelled = true;
            return Ok(report);
        }
        let doc_id = row.id.clone();
        let skipped = present.contains(&doc_id);
        if skipped {
            report.documents_skipped += 1;
        } else {
            let changes =
                document_changes(from, to, row, &mut entities_written, &mut relations_written, &mut report).await?;
            to.apply(changes).await.map_err(CopyError::Target)?;
            report.documents_copied += 1;
        }
        progress.event(&CopyEvent::Document { doc_id, skipped });
    }

    copy_unlinked_graph(from, to, &mut entities_written, &mut relations_written, progress, cancel, &mut report).await?;
    if report.cancelled {
        return Ok(report);
    }
    copy_cache(from, to, progress, cancel, &mut report).await?;
    if report.cancelled {
        return Ok(report);
    }
    let usage = from.usage().await.map_err(CopyError::Source)?;
    if !is_empty(&usage) && is_empty(&to.usage().await.map_err(CopyError::Target)?) {
        to.apply(ChangeSet { usage, ..ChangeSet::default() }).await.map_err(CopyError::Target)?;
        report.usage_copied = true;
    }
    Ok(report)
}

/// Every status row of the source, oldest first.
async fn all_docs(store: &dyn Store) -> Result<Vec<DocStatusRecord>, lightrag_ports::StoreError> {
    let mut rows = Vec::new();
    loop {
        let filter =
            DocFilter { sort: DocSort::CreatedAsc, offset: rows.len(), limit: Some(DOC_PAGE), ..DocFilter::default() };
        let (page, _) = store.list_docs(&filter).await?;
        let done = page.len() < DOC_PAGE;
        rows.extend(page);
        if done {
            return Ok(rows);
        }
    }
}

/// The target's documents, which must all come from the source (an earlier run of this copy).
async fn present_docs(to: &dyn Store, source_rows: &[DocStatusRecord]) -> Result<BTreeSet<String>, CopyError> {
    let target = all_docs(to).await.map_err(CopyError::Target)?;
    let source: HashSet<&str> = source_rows.iter().map(|r| r.id.as_str()).collect();
    let foreign: Vec<&DocStatusRecord> = target.iter().filter(|r| !source.contains(r.id.as_str())).collect();
    if let Some(example) = foreign.first() {
        return Err(CopyError::TargetNotEmpty { count: foreign.len(), example: example.id.clone() });
    }
    Ok(target.into_iter().map(|r| r.id).collect())
}

/// One document's change set: its text, status row, chunks, extraction records, chunk vectors,
/// links, cache entries, and the graph records it links that the target lacks.
async fn document_changes(
    from: &dyn Store,
    to: &dyn Store,
    mut row: DocStatusRecord,
    entities_written: &mut HashSet<String>,
    relations_written: &mut HashSet<RelKey>,
    report: &mut CopyReport,
) -> Result<ChangeSet, CopyError> {
    let mut changes = ChangeSet::default();
    if let Some(document) = from.get_document(&row.id).await.map_err(CopyError::Source)? {
        changes.documents.push(document);
    }
    let chunk_ids = row.chunks_list.clone();
    let chunks: Vec<_> = from.get_chunks(&chunk_ids).await.map_err(CopyError::Source)?.into_iter().flatten().collect();
    let ids: Vec<String> = chunks.iter().map(|c| c.id.clone()).collect();
    let vectors = from.get_vectors(VectorKind::Chunk, &ids).await.map_err(CopyError::Source)?;
    for (chunk, vector) in chunks.iter().zip(vectors) {
        match usable(vector) {
            Some(vector) => {
                let (key, content) = (chunk.id.clone(), chunk.content.clone());
                changes.vectors.push(VectorRecord { kind: VectorKind::Chunk, key, content, vector });
            }
            None => report.vectors_missing += 1,
        }
    }
    let extractions = from.get_extractions(&ids).await.map_err(CopyError::Source)?;
    let mut cache_keys: Vec<&String> = extractions.iter().flat_map(|x| &x.cache_keys).collect();
    cache_keys.sort();
    cache_keys.dedup();
    for key in cache_keys {
        if let Some(entry) = from.cache_get(key).await.map_err(CopyError::Source)? {
            changes.cache.push(entry);
        }
    }
    if let Some(links) = from.get_doc_links(&row.id).await.map_err(CopyError::Source)? {
        let missing = &mut report.vectors_missing;
        report.entities += add_entities(from, to, &links.entities, entities_written, &mut changes, missing).await?;
        let missing = &mut report.vectors_missing;
        report.relations += add_relations(from, to, &links.relations, relations_written, &mut changes, missing).await?;
        changes.doc_links.push(links);
    }
    if row.status == DocStatus::Processing {
        // its run did not finish in the source: the target indexes it again
        row.status = DocStatus::Pending;
        report.documents_pending_again += 1;
    }
    row.lease_owner = None;
    row.lease_until = None;
    changes.doc_status.push(row);
    report.chunks += chunks.len();
    report.vectors += changes.vectors.len();
    report.cache_entries += changes.cache.len();
    changes.chunks = chunks;
    changes.extractions = extractions;
    Ok(changes)
}

/// The graph records no document links to (made by graph edits), in batches.
async fn copy_unlinked_graph(
    from: &dyn Store,
    to: &dyn Store,
    entities_written: &mut HashSet<String>,
    relations_written: &mut HashSet<RelKey>,
    progress: &dyn CopyProgress,
    cancel: &CancellationToken,
    report: &mut CopyReport,
) -> Result<(), CopyError> {
    let mut copied = 0;
    let mut after: Option<String> = None;
    loop {
        let page = from.entities_page(after.as_deref(), GRAPH_BATCH).await.map_err(CopyError::Source)?;
        let Some(last) = page.last() else { break };
        after = Some(last.name.clone());
        let names: Vec<String> = page.into_iter().map(|e| e.name).collect();
        let (mut changes, mut missing) = (ChangeSet::default(), 0);
        let added = add_entities(from, to, &names, entities_written, &mut changes, &mut missing).await?;
        if !write_graph_batch(to, changes, cancel, report).await? {
            return Ok(());
        }
        report.entities += added;
        report.vectors_missing += missing;
        copied += added;
        progress.event(&CopyEvent::Graph { copied });
    }
    let mut after: Option<RelKey> = None;
    loop {
        let page = from.relations_page(after.as_ref(), GRAPH_BATCH).await.map_err(CopyError::Source)?;
        let Some(last) = page.last() else { break };
        after = Some(last.key.clone());
        let keys: Vec<RelKey> = page.into_iter().map(|r| r.key).collect();
        let (mut changes, mut missing) = (ChangeSet::default(), 0);
        let added = add_relations(from, to, &keys, relations_written, &mut changes, &mut missing).await?;
        if !write_graph_batch(to, changes, cancel, report).await? {
            return Ok(());
        }
        report.relations += added;
        report.vectors_missing += missing;
        copied += added;
        progress.event(&CopyEvent::Graph { copied });
    }
    Ok(())
}

/// Writes one batch of graph records; `false` when the copy was cancelled before it (nothing
/// written, `report.cancelled` set). An empty batch is not written.
async fn write_graph_batch(
    to: &dyn Store,
    changes: ChangeSet,
    cancel: &CancellationToken,
    report: &mut CopyReport,
) -> Result<bool, CopyError> {
    if changes.is_empty() {
        return Ok(true);
    }
    if cancel.is_cancelled() {
        report.cancelled = true;
        return Ok(false);
    }
    report.vectors += changes.vectors.len();
    to.apply(changes).await.map_err(CopyError::Target)?;
    Ok(true)
}

/// Every LLM cache entry (an entry already in the target is written again: same key, same text).
async fn copy_cache(
    from: &dyn Store,
    to: &dyn Store,
    progress: &dyn CopyProgress,
    cancel: &CancellationToken,
    report: &mut CopyReport,
) -> Result<(), CopyError> {
    let mut after: Option<String> = None;
    let mut copied = 0;
    loop {
        if cancel.is_cancelled() {
            report.cancelled = true;
            return Ok(());
        }
        let page: Vec<CacheEntry> = from.cache_page(after.as_deref(), CACHE_BATCH).await.map_err(CopyError::Source)?;
        let Some(last) = page.last() else { return Ok(()) };
        after = Some(last.key.clone());
        copied += page.len();
        to.apply(ChangeSet { cache: page, ..ChangeSet::default() }).await.map_err(CopyError::Target)?;
        progress.event(&CopyEvent::Cache { copied });
        report.cache_entries = report.cache_entries.max(copied);
    }
}

/// A source vector the target can hold: present, finite and not zero (a store never serves
/// another, but the copy does not rely on it).
pub(crate) fn usable(vector: Option<Vec<f32>>) -> Option<Vec<f32>> {
    vector.filter(|v| lightrag_ports::is_usable(v))
}

fn is_empty(usage: &Usage) -> bool {
    usage.values().all(|c| c.calls == 0 && c.cache_hits == 0 && c.tokens_in == 0 && c.tokens_out == 0)
}
