//! Deleting many documents in one pass ([`Engine::delete_documents`]).
//!
//! Deleting documents one at a time rebuilds an entity they share once per document, with a
//! summary each time (LightRAG users' most common complaint about deletion, their issue #2795).
//! Here the documents' chunks are removed together: the records that lose chunks are planned
//! once over the union of the chunks, each is rebuilt once from the extraction records of the
//! chunks that remain, and the summaries that rebuild needs are asked once. The result is the
//! graph, vectors, chunk lists and status rows that deleting the documents one after the other
//! gives (a deletion equals a build without the document, whatever came before it).
//!
//! **Passes.** The documents go in passes of whole documents holding up to
//! `DELETE_BATCH_CHUNKS` chunks (5000; a larger document is a pass of its own), so that what one
//! pass reads, holds in memory and writes in one transaction stays bounded. Each pass is one
//! change set: a process killed during a pass leaves the store as it was before the pass, one
//! killed between passes leaves the earlier passes done, and asking for the same deletion again
//! deletes what is left (documents already gone are reported as not found, not as errors).
//!
//! **Steps of a pass.** Read the documents' status rows (a document being processed under a live
//! lease is skipped, see [`BatchDeletionReport::busy`]); plan and rebuild the records their chunks
//! are in, making the summaries the rebuild needs (no store lock is held: other processes go on
//! merging); take the store's merge locks on every entity the pass read (as a merge does, so
//! that several processes never interleave on the same records); commit. A commit refused
//! because another writer changed one of those records meanwhile is built again under the locks,
//! keeping the summaries and vectors already made ([`crate::indexing::pipeline`]'s commit does the same).
//!
//! **Cancellation** is looked at between steps and while a pass is being built: a cancelled
//! pass writes nothing; the passes committed before it stay; the documents not deleted are listed
//! in [`BatchDeletionReport::cancelled`].

use std::collections::HashSet;

use lightrag_ports::{ChangeSet, ChunkListEdit, DocStatus, DocStatusRecord, StoreError, VectorKind, VectorRecord};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::{DeleteOptions, DeletionReport, Removal, removal};
use crate::engine::{Engine, Inner};
use crate::error::{EngineError, Result};
use crate::indexing::merge::{MadeSummary, MergeMode, SummaryPolicy};
use crate::indexing::pipeline::{lock_held, merge_backoff};
use crate::time::now_ms;

/// Builds of a pass tried before the deletion gives up (with the merge locks held, a conflict
/// comes only from a writer that takes none: an edit of the graph through the API).
const PASS_ATTEMPTS: u32 = 10;

/// A deleted document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeletedDocument {
    /// The document.
    pub doc_id: String,
    /// Its file path.
    pub file_path: String,
    /// Its chunks, removed.
    pub chunks_deleted: usize,
}

/// What a deletion of several documents did ([`Engine::delete_documents`]). The graph lists are
/// sorted, each name once, and say where each record ended: an entity rebuilt by one pass and
/// deleted by a later one is only in `entities_deleted`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BatchDeletionReport {
    /// Documents deleted, in the order asked.
    pub deleted: Vec<DeletedDocument>,
    /// Ids of no stored document (never there, or deleted already): nothing to do for them.
    pub not_found: Vec<String>,
    /// Documents being processed right now (under a live lease), left in place: cancel the
    /// processing or wait for it, then delete them.
    pub busy: Vec<String>,
    /// Documents left in place because the deletion was cancelled before their pass committed.
    pub cancelled: Vec<String>,
    /// Passes committed.
    pub passes: usize,
    /// Entities removed.
    pub entities_deleted: Vec<String>,
    /// Entities rebuilt from the remaining chunks.
    pub entities_rebuilt: Vec<String>,
    /// Relations removed.
    pub relations_deleted: Vec<lightrag_ports::RelKey>,
    /// Relations rebuilt.
    pub relations_rebuilt: Vec<lightrag_ports::RelKey>,
    /// Entities that lost the documents' chunks but whose shown record did not depend on them
    /// (only their chunk list and count changed).
    pub entities_kept: Vec<String>,
    /// Relations likewise.
    pub relations_kept: Vec<lightrag_ports::RelKey>,
    /// LLM cache entries of the documents' extractions removed (`delete_llm_cache`).
    pub cache_entries_deleted: usize,
    /// Store records read (rows; each entry of a chunk list counts one).
    pub records_read: usize,
    /// Store records written or removed (counted the same way).
    pub records_written: usize,
}

impl BatchDeletionReport {
    /// Adds what one committed pass did.
    fn absorb(&mut self, pass: DeletionReport) {
        self.passes += 1;
        self.entities_deleted.extend(pass.entities_deleted);
        self.entities_rebuilt.extend(pass.entities_rebuilt);
        self.relations_deleted.extend(pass.relations_deleted);
        self.relations_rebuilt.extend(pass.relations_rebuilt);
        self.entities_kept.extend(pass.entities_kept);
        self.relations_kept.extend(pass.relations_kept);
        self.records_read += pass.records_read;
        self.records_written += pass.records_written;
    }

    /// Sorts the graph lists and keeps each record in the list of where it ended (deleted, else
    /// rebuilt, else kept): a later pass may delete what an earlier one rebuilt.
    fn settle(&mut self) {
        fn sorted<T: Ord>(list: &mut Vec<T>) {
            list.sort();
            list.dedup();
        }
        for list in [&mut self.entities_deleted, &mut self.entities_rebuilt, &mut self.entities_kept] {
            sorted(list);
        }
        for list in [&mut self.relations_deleted, &mut self.relations_rebuilt, &mut self.relations_kept] {
            sorted(list);
        }
        let gone: HashSet<String> = self.entities_deleted.iter().cloned().collect();
        self.entities_rebuilt.retain(|n| !gone.contains(n));
        let rebuilt: HashSet<String> = self.entities_rebuilt.iter().cloned().collect();
        self.entities_kept.retain(|n| !gone.contains(n) && !rebuilt.contains(n));
        let gone: HashSet<_> = self.relations_deleted.iter().cloned().collect();
        self.relations_rebuilt.retain(|k| !gone.contains(k));
        let rebuilt: HashSet<_> = self.relations_rebuilt.iter().cloned().collect();
        self.relations_kept.retain(|k| !gone.contains(k) && !rebuilt.contains(k));
    }

    /// The report of a deletion of one document (its first deleted document, and everything).
    pub fn into_single(self) -> DeletionReport {
        let doc = self.deleted.into_iter().next().unwrap_or_default();
        DeletionReport {
            doc_id: doc.doc_id,
            file_path: doc.file_path,
            chunks_deleted: doc.chunks_deleted,
            entities_deleted: self.entities_deleted,
            entities_rebuilt: self.entities_rebuilt,
            relations_deleted: self.relations_deleted,
            relations_rebuilt: self.relations_rebuilt,
            entities_kept: self.entities_kept,
            relations_kept: self.relations_kept,
            cache_entries_deleted: self.cache_entries_deleted,
            records_read: self.records_read,
            records_written: self.records_written,
        }
    }
}

/// Progress of [`Engine::delete_documents`], in order: `Planned`, then `Skipped` for the
/// documents left in place, then per pass `PassStarted`, `PassBuilt`, `PassCommitted`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeletionEvent {
    /// The documents were looked up.
    Planned {
        /// Documents to delete.
        documents: usize,
        /// Their chunks.
        chunks: usize,
        /// Passes they are deleted in.
        passes: usize,
    },
    /// A document is left in place.
    Skipped {
        /// Its id.
        doc_id: String,
        /// Why, for a person ("not found", "being processed right now").
        reason: String,
    },
    /// A pass starts.
    PassStarted {
        /// Its number, from 1.
        pass: usize,
        /// Passes in all.
        passes: usize,
        /// Its documents.
        documents: usize,
        /// Their chunks.
        chunks: usize,
    },
    /// A pass's records are rebuilt (summaries made, vectors computed); its commit follows.
    PassBuilt {
        /// Its number, from 1.
        pass: usize,
        /// Entities and relations rebuilt.
        rebuilt: usize,
        /// Entities and relations removed.
        deleted: usize,
    },
    /// A pass was committed: its documents are gone.
    PassCommitted {
        /// Its number, from 1.
        pass: usize,
        /// Passes in all.
        passes: usize,
        /// Documents deleted so far.
        deleted: usize,
        /// Documents to delete in all.
        documents: usize,
    },
}

/// Receives [`DeletionEvent`]s (the server's `pipeline_status`, the CLI's lines). Any
/// `Fn(&DeletionEvent) + Send + Sync` is one.
pub trait DeletionProgress: Send + Sync {
    /// Called for each event.
    fn event(&self, event: &DeletionEvent);
}

impl<F: Fn(&DeletionEvent) + Send + Sync> DeletionProgress for F {
    fn event(&self, event: &DeletionEvent) {
        self(event)
    }
}

/// Ignores deletion events.
pub struct NoDeletionProgress;

impl DeletionProgress for NoDeletionProgress {
    fn event(&self, _event: &DeletionEvent) {}
}

/// Whether `row` is being processed under a live lease (a dead worker's document is not).
fn busy(row: &DocStatusRecord) -> bool {
    row.status == DocStatus::Processing && row.lease_until.is_some_and(|t| t > now_ms())
}

/// The documents cut into passes of whole documents, at most `max_chunks` chunks each (a larger
/// document alone), in the order given.
fn passes(docs: Vec<DocStatusRecord>, max_chunks: usize) -> Vec<Vec<DocStatusRecord>> {
    let mut out: Vec<Vec<DocStatusRecord>> = Vec::new();
    let mut chunks = 0;
    for doc in docs {
        let size = doc.chunks_list.len();
        match out.last_mut() {
            Some(pass) if chunks + size <= max_chunks.max(1) => pass.push(doc),
            _ => {
                chunks = 0;
                out.push(vec![doc]);
            }
        }
        chunks += size;
    }
    out
}

/// A pass built and not applied: its change set (without usage), what it did, the merge locks
/// its commit takes, and what a build under the locks reuses.
struct Built {
    changes: ChangeSet,
    report: DeletionReport,
    locks: Vec<String>,
    summaries: Vec<MadeSummary>,
}

/// Builds the deletion of `docs` as one change set.
async fn build(inner: &Inner, docs: &[DocStatusRecord], mode: &MergeMode<'_>) -> Result<Built> {
    let ids: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
    let chunks: Vec<String> = docs.iter().flat_map(|d| d.chunks_list.iter().cloned()).collect();
    let mut report = DeletionReport { chunks_deleted: chunks.len(), ..Default::default() };
    let removal = removal(inner, &ids, &chunks, mode, &mut report).await?;
    let locks = removal.lock_names();
    let Removal { entities, relations, extra_relations, finished, lists, lost } = removal;
    report.relations_deleted.sort();
    report.relations_deleted.dedup();
    report.entities_deleted.sort();
    report.entities_deleted.dedup();
    let changes = ChangeSet {
        expect_entities: entities.iter().map(|e| (e.name.clone(), Some(e.version))).collect(),
        expect_relations: relations.iter().chain(&extra_relations).map(|r| (r.key.clone(), Some(r.version))).collect(),
        delete_documents: ids,
        delete_entities: report.entities_deleted.clone(),
        delete_relations: report.relations_deleted.clone(),
        entities: finished.entities,
        relations: finished.relations,
        vectors: finished.vectors,
        chunk_lists: lists,
        ..Default::default()
    };
    // the documents' rows (text, status, links, and per chunk: chunk, extraction, vector),
    // their entries in chunk lists, and every record written, deleted or re-listed
    report.records_written = 3 * docs.len()
        + 3 * report.chunks_deleted
        + lost.values().map(Vec::len).sum::<usize>()
        + changes.entities.len()
        + changes.relations.len()
        + changes.delete_entities.len()
        + changes.delete_relations.len()
        + changes.vectors.len()
        + changes
            .chunk_lists
            .iter()
            .map(|(_, edit)| match edit {
                ChunkListEdit::Append(ids) | ChunkListEdit::Remove(ids) | ChunkListEdit::Replace(ids) => ids.len(),
            })
            .sum::<usize>();
    Ok(Built { changes, report, locks, summaries: finished.summaries })
}

/// How a pass ended.
enum Pass {
    Committed(Box<DeletionReport>),
    /// Its documents were all gone or busy by the time it started.
    Empty,
    Cancelled,
}

impl Engine {
    /// Deletes the documents `ids` in one pass — or in a few, each of whole documents holding up
    /// to `DELETE_BATCH_CHUNKS` chunks — so that an entity or relation they share is rebuilt
    /// once, with the summaries its rebuild needs asked once, instead of once per document. The
    /// end state equals deleting the documents one after the other with
    /// [`Engine::delete_document`] (graph, vectors, chunk lists, status rows); see the
    /// [module docs](self) for passes, crash safety and concurrency.
    ///
    /// Ids are taken in the order given, repeats once. An id with no document is reported in
    /// [`BatchDeletionReport::not_found`] (so the same request, asked again after an
    /// interruption, finishes); a document being processed right now in
    /// [`BatchDeletionReport::busy`]. `progress` hears of every step. When `cancel` fires, the
    /// pass under way stops before its commit (nothing of it is written) and the documents not
    /// deleted are listed in [`BatchDeletionReport::cancelled`].
    ///
    /// Errors: a store, LLM or embedding failure. The passes committed before it stay (their
    /// `PassCommitted` events were sent); asking again deletes the rest.
    pub async fn delete_documents(
        &self,
        ids: &[String],
        options: DeleteOptions,
        progress: &dyn DeletionProgress,
        cancel: &CancellationToken,
    ) -> Result<BatchDeletionReport> {
        let store = self.inner.store.as_ref();
        let mut report = BatchDeletionReport::default();
        let mut seen = HashSet::new();
        let mut found = Vec::new();
        for id in ids.iter().filter(|id| seen.insert(id.as_str())) {
            report.records_read += 1;
            match store.get_doc_status(id).await? {
                None => report.not_found.push(id.clone()),
                Some(row) if busy(&row) => report.busy.push(id.clone()),
                Some(row) => found.push(row),
            }
        }
        let plan = passes(found, self.inner.config.pipeline.delete_batch_chunks);
        let total: usize = plan.iter().map(Vec::len).sum();
        progress.event(&DeletionEvent::Planned {
            documents: total,
            chunks: plan.iter().flatten().map(|d| d.chunks_list.len()).sum(),
            passes: plan.len(),
        });
        for (doc_id, reason) in report
            .not_found
            .iter()
            .map(|id| (id, "not found"))
            .chain(report.busy.iter().map(|id| (id, "being processed right now")))
        {
            progress.event(&DeletionEvent::Skipped { doc_id: doc_id.clone(), reason: reason.to_string() });
        }

        let count = plan.len();
        let mut plan = plan.into_iter().enumerate();
        while let Some((i, docs)) = plan.next() {
            if cancel.is_cancelled() {
                report.cancelled.extend(docs.into_iter().chain(plan.flat_map(|(_, d)| d)).map(|d| d.id));
                break;
            }
            let pass = i + 1;
            let chunks = docs.iter().map(|d| d.chunks_list.len()).sum();
            progress.event(&DeletionEvent::PassStarted { pass, passes: count, documents: docs.len(), chunks });
            match self.delete_pass(docs, pass, options, progress, cancel, &mut report).await? {
                Pass::Committed(done) => {
                    report.absorb(*done);
                    let deleted = report.deleted.len();
                    progress.event(&DeletionEvent::PassCommitted { pass, passes: count, deleted, documents: total });
                }
                Pass::Empty => {}
                Pass::Cancelled => {
                    report.cancelled.extend(plan.flat_map(|(_, d)| d).map(|d| d.id));
                    break;
                }
            }
        }
        report.settle();
        Ok(report)
    }

    /// One pass: the documents `docs` deleted in one commit (see the module docs), or nothing
    /// when cancelled before it. Adds the documents to `report` as they are deleted, skipped or
    /// left in place.
    async fn delete_pass(
        &self,
        docs: Vec<DocStatusRecord>,
        pass: usize,
        options: DeleteOptions,
        progress: &dyn DeletionProgress,
        cancel: &CancellationToken,
        report: &mut BatchDeletionReport,
    ) -> Result<Pass> {
        let inner = &self.inner;
        let store = inner.store.as_ref();
        // one merge at a time in this process; status rows read again under it (time passed)
        let _writer = inner.merge_lock.lock().await;
        let mut rows = Vec::with_capacity(docs.len());
        for doc in &docs {
            report.records_read += 1;
            match store.get_doc_status(&doc.id).await? {
                None => {
                    progress.event(&DeletionEvent::Skipped { doc_id: doc.id.clone(), reason: "not found".into() });
                    report.not_found.push(doc.id.clone());
                }
                Some(row) if busy(&row) => {
                    let reason = "being processed right now".to_string();
                    progress.event(&DeletionEvent::Skipped { doc_id: doc.id.clone(), reason });
                    report.busy.push(doc.id.clone());
                }
                Some(row) => rows.push(row),
            }
        }
        if rows.is_empty() {
            return Ok(Pass::Empty);
        }
        let ids = || rows.iter().map(|r| r.id.clone());
        // the cache keys are read before the extraction records go with the chunks
        let cache_keys: Vec<String> = if options.delete_llm_cache {
            let chunks: Vec<String> = rows.iter().flat_map(|r| r.chunks_list.iter().cloned()).collect();
            let records = store.get_extractions(&chunks).await?;
            report.records_read += records.len();
            records.into_iter().flat_map(|e| e.cache_keys).collect()
        } else {
            Vec::new()
        };

        // built without store locks: summaries and vectors are made while others go on merging
        let mode = MergeMode::default();
        let built = tokio::select! {
            biased;
            _ = cancel.cancelled() => None,
            built = build(inner, &rows, &mode) => Some(built?),
        };
        let Some(built) = built.filter(|_| !cancel.is_cancelled()) else {
            report.cancelled.extend(ids());
            return Ok(Pass::Cancelled);
        };
        let rebuilt = built.report.entities_rebuilt.len() + built.report.relations_rebuilt.len();
        let deleted = built.report.entities_deleted.len() + built.report.relations_deleted.len();
        progress.event(&DeletionEvent::PassBuilt { pass, rebuilt, deleted });
        tracing::info!(
            pass,
            documents = rows.len(),
            records_read = built.report.records_read,
            records_written = built.report.records_written,
            rebuilt,
            kept = built.report.entities_kept.len() + built.report.relations_kept.len(),
            "deleting documents"
        );

        let what = format!("the deletion of {} document(s)", rows.len());
        let locks = built.locks.clone();
        let taken = tokio::select! {
            biased;
            _ = cancel.cancelled() => None,
            taken = self.take_merge_locks(&what, &locks) => Some(taken),
        };
        let Some(taken) = taken else {
            // a lock granted while the wait was dropped is released here, or expires
            self.release_merge_locks(&what, &locks).await;
            report.cancelled.extend(ids());
            return Ok(Pass::Cancelled);
        };
        taken?;
        *lock_held(inner) = locks.clone();
        // removed just before the commit: a deletion interrupted after this still finishes when
        // asked again (the documents are still there), and the cache entries never outlive them
        if !cache_keys.is_empty() {
            report.cache_entries_deleted += store.cache_delete(&cache_keys).await?;
        }
        let committed = self.commit_pass(&rows, built).await;
        self.release_merge_locks(&what, &locks).await;
        let done = committed?;
        report.deleted.extend(rows.into_iter().map(|r| DeletedDocument {
            chunks_deleted: r.chunks_list.len(),
            doc_id: r.id,
            file_path: r.file_path,
        }));
        Ok(Pass::Committed(Box::new(done)))
    }

    /// Applies a built pass (the merge locks are held), building it again after a conflict with
    /// the summaries and vectors the first build made.
    async fn commit_pass(&self, rows: &[DocStatusRecord], first: Built) -> Result<DeletionReport> {
        let inner = &self.inner;
        let summaries = first.summaries.clone();
        let known: Vec<VectorRecord> =
            first.changes.vectors.iter().filter(|v| v.kind != VectorKind::Chunk).cloned().collect();
        let mode =
            MergeMode { summaries: SummaryPolicy::CachedOnly, known_vectors: &known, earlier_summaries: &summaries };
        let mut built = first;
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let Built { mut changes, report, .. } = built;
            changes.usage = inner.gateway.take_unflushed();
            let usage = changes.usage.clone();
            let what = match inner.store.apply(changes).await {
                Ok(()) => return Ok(report),
                Err(StoreError::Conflict(what)) => what,
                Err(e) => {
                    inner.gateway.restore_unflushed(usage);
                    return Err(e.into());
                }
            };
            inner.gateway.restore_unflushed(usage);
            if attempt >= PASS_ATTEMPTS {
                return Err(EngineError::Store(StoreError::Conflict(format!(
                    "{what}, {attempt} times while deleting documents; nothing of this pass was written: \
                     ask for the deletion again"
                ))));
            }
            tracing::debug!("{what} changed while documents were being deleted; building the deletion again");
            tokio::time::sleep(merge_backoff(attempt)).await;
            built = build(inner, rows, &mode).await?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, chunks: usize) -> DocStatusRecord {
        DocStatusRecord {
            id: id.into(),
            status: DocStatus::Processed,
            file_path: format!("{id}.txt"),
            track_id: String::new(),
            content_summary: String::new(),
            content_length: 0,
            content_hash: String::new(),
            chunks_count: Some(chunks),
            chunks_list: (0..chunks).map(|i| format!("{id}-chunk-{i}")).collect(),
            error_msg: None,
            metadata: Default::default(),
            created_at: 0,
            updated_at: 0,
            lease_owner: None,
            lease_until: None,
        }
    }

    fn ids(plan: &[Vec<DocStatusRecord>]) -> Vec<Vec<&str>> {
        plan.iter().map(|p| p.iter().map(|d| d.id.as_str()).collect()).collect()
    }

    #[test]
    fn passes_hold_whole_documents_up_to_the_chunk_limit_in_the_order_given() {
        let docs = vec![row("a", 3), row("b", 2), row("c", 4), row("d", 9), row("e", 0), row("f", 1)];
        assert_eq!(ids(&passes(docs.clone(), 5)), vec![vec!["a", "b"], vec!["c"], vec!["d"], vec!["e", "f"]]);
        assert_eq!(ids(&passes(docs.clone(), 100)), vec![vec!["a", "b", "c", "d", "e", "f"]]);
        let one_chunk = vec![vec!["a"], vec!["b"], vec!["c"], vec!["d"], vec!["e", "f"]];
        assert_eq!(ids(&passes(docs, 0)), one_chunk, "a limit of 0 counts as 1");
        assert!(passes(Vec::new(), 5).is_empty());
    }

    #[test]
    fn a_record_is_reported_where_it_ended_after_several_passes() {
        let mut report = BatchDeletionReport::default();
        report.absorb(DeletionReport {
            entities_rebuilt: vec!["Hub".into(), "Shared".into()],
            entities_kept: vec!["Kept".into()],
            ..Default::default()
        });
        report.absorb(DeletionReport {
            entities_deleted: vec!["Shared".into()],
            entities_rebuilt: vec!["Kept".into(), "Hub".into()],
            ..Default::default()
        });
        report.settle();
        assert_eq!(report.passes, 2);
        assert_eq!(report.entities_deleted, vec!["Shared"]);
        assert_eq!(report.entities_rebuilt, vec!["Hub", "Kept"]);
        assert!(report.entities_kept.is_empty());
    }
}
