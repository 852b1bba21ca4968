//! The commit of one extracted document: merge its records into the current graph, then apply
//! the result as one change set.
//!
//! Several processes (workers, servers) may merge documents into one store at once. Each merge is
//! first built without holding anything, so its LLM summaries run in parallel with other
//! processes' merges. Then the process takes the store's merge locks on every entity name the
//! document touches (all or none, so processes never wait on each other while holding) and
//! applies the change set. When another process committed one of those entities in the meantime,
//! the version check refuses the change set and the merge is built again *under the locks*, where
//! nobody else can move those entities. That second build calls no chat model: it keeps the first
//! build's summary of a record when other processes only appended fragments to it meanwhile
//! (`merge::summary` explains this rebasing), takes a summary from the LLM cache, or leaves it for
//! the record's next merge (its description fragments stay joined until then); vectors of
//! unchanged texts are reused; only the records that changed are embedded. While the first build
//! runs, the process holds the *summary claims* of the records it summarises, so that a process
//! merging the same record at the same time appends to it instead of summarising it too. The time a process
//! holds locks is therefore short and bounded, and a merge never starves behind a busier process,
//! which a purely optimistic retry did on hub entities ("Senate" in every State of the Union
//! address). Writers that take no merge locks (graph edits from the API) can still win a race: the
//! merge is then built again, up to [`MERGE_ATTEMPTS`] times.

use std::time::{Duration, Instant};

use lightrag_ports::{ChangeSet, DocLinks, DocStatus, StoreError, VectorKind, VectorRecord};

use super::{Engine, PipelineEvent, Prepared, ProcessReport, ProgressSink};
use crate::engine::Inner;
use crate::error::Result;
use crate::indexing::extract::schema::REPORT_KEY;
use crate::indexing::merge::{self, MadeSummary, MergeMode, SourcedExtraction, SummaryClaims, SummaryPolicy};
use crate::time::now_ms;

pub(super) use super::replace::Base;

/// Merges of one document tried before it fails. With the merge locks held, a conflict comes only
/// from a writer that takes none (an edit of the graph through the API).
const MERGE_ATTEMPTS: u32 = 40;

/// How long a process waits for other processes' merge locks before it says so in the log (it
/// keeps waiting: the locks of a process that died expire with its leases).
const LOCK_WAIT_NOTICE: Duration = Duration::from_secs(30);

/// How a commit ended.
pub(super) enum Committed {
    Done {
        entities: usize,
        relations: usize,
    },
    /// The document's lease passed to another process (this one was too slow to renew it): the
    /// other process indexes it; nothing of this attempt was written.
    TakenOver,
    Failed(String),
}

impl Engine {
    pub(super) async fn commit(
        &self,
        prepared: Prepared,
        progress: &dyn ProgressSink,
        report: &mut ProcessReport,
    ) -> Result<()> {
        let inner = &self.inner;
        let writer = inner.merge_lock.lock().await;
        let keys = lock_names(&prepared);
        let what = format!("document {}", prepared.doc.id);
        // built before the merge locks are taken: see the module docs
        let claims = SummaryClaims::default();
        let built = build_commit(
            inner,
            &prepared,
            &MergeMode { summaries: SummaryPolicy::Claim(&claims), ..MergeMode::default() },
            None,
        )
        .await;
        let claimed = claims.into_keys();
        let (first, summaries) = match built {
            Ok(built) => built,
            Err(e) => {
                self.release_merge_locks(&what, &claimed).await;
                drop(writer);
                if e.is_store_outage() {
                    // not the document's fault: it stays claimable and resumes when there is space
                    // (or the store is reachable again)
                    return Err(e);
                }
                return self.fail(prepared.record, &e.to_string(), progress, report).await;
            }
        };
        if let Err(e) = self.take_merge_locks(&what, &keys).await {
            inner.gateway.restore_unflushed(first.usage);
            self.release_merge_locks(&what, &claimed).await;
            return Err(e);
        }
        *lock_held(inner) = keys.clone();
        let outcome = self.apply_merge(&prepared, first, &summaries).await;
        let held: Vec<String> = keys.into_iter().chain(claimed).collect();
        self.release_merge_locks(&what, &held).await;
        drop(writer);
        match outcome? {
            Committed::Done { entities, relations } => {
                report.processed.push(prepared.doc.id.clone());
                report.chunks += prepared.chunks.len();
                report.entities_extracted += prepared.extractions.iter().map(|e| e.entities.len()).sum::<usize>();
                report.relations_extracted += prepared.extractions.iter().map(|e| e.relations.len()).sum::<usize>();
                if let Some(schema) = prepared.schema {
                    report.schema.insert(prepared.doc.id.clone(), schema);
                }
                progress.event(&PipelineEvent::DocProcessed { doc_id: prepared.doc.id.clone(), entities, relations });
                Ok(())
            }
            Committed::TakenOver => {
                tracing::warn!(
                    "document {}: another worker took it over (this process held it past its lease); \
                     leaving it to that worker",
                    prepared.doc.id
                );
                Ok(())
            }
            Committed::Failed(msg) => self.fail(prepared.record, &msg, progress, report).await,
        }
    }

    /// Applies `changes`, building the merge again after a conflict (the merge locks are held).
    /// Merges built again keep the first build's `summaries` where they still apply, take other
    /// summaries only from the LLM cache, and reuse the vectors of the first build where the text
    /// did not change: what holds the locks calls no model but the embedder (see the module docs).
    async fn apply_merge(
        &self,
        prepared: &Prepared,
        mut changes: ChangeSet,
        summaries: &[MadeSummary],
    ) -> Result<Committed> {
        let inner = &self.inner;
        // the first build's graph vectors, for rebuilds (chunk vectors come from the extraction)
        let known_vectors: Vec<_> = changes.vectors.iter().filter(|v| v.kind != VectorKind::Chunk).cloned().collect();
        let mode = MergeMode {
            summaries: SummaryPolicy::CachedOnly,
            known_vectors: &known_vectors,
            earlier_summaries: summaries,
        };
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let (entities, relations) = (changes.entities.len(), changes.relations.len());
            let usage = changes.usage.clone();
            let what = match inner.store.apply(changes).await {
                Ok(()) => return Ok(Committed::Done { entities, relations }),
                Err(StoreError::Conflict(what)) => what,
                Err(e) => {
                    inner.gateway.restore_unflushed(usage);
                    return Err(e.into());
                }
            };
            inner.gateway.restore_unflushed(usage);
            if !self.still_mine(&prepared.doc.id).await? {
                return Ok(Committed::TakenOver);
            }
            if attempt >= MERGE_ATTEMPTS {
                return Ok(Committed::Failed(format!(
                    "gave up after repeated concurrent updates ({what}); run `lightrag process` again"
                )));
            }
            tracing::debug!("document {}: {what} changed since the merge was built; merging again", prepared.doc.id);
            if attempt > 1 {
                // the first conflict is expected (a merge of another process landed while this one
                // was built); later ones come from writers without merge locks: let them finish
                tokio::time::sleep(merge_backoff(attempt)).await;
            }
            changes = match build_commit(inner, prepared, &mode, None).await {
                Ok((changes, _)) => changes,
                Err(e) if e.is_store_outage() => return Err(e),
                Err(e) => return Ok(Committed::Failed(e.to_string())),
            };
        }
    }

    /// Releases the merge locks `what` (e.g. "document doc-…") held (a few tries; a lock left
    /// behind is no longer renewed and expires within `LEASE_SECS`).
    pub(crate) async fn release_merge_locks(&self, what: &str, keys: &[String]) {
        let inner = &self.inner;
        lock_held(inner).clear();
        if keys.is_empty() {
            return;
        }
        for attempt in 1..=3u32 {
            match inner.store.unlock_keys(&inner.worker_id, keys).await {
                Ok(()) => return,
                Err(e) if attempt == 3 => tracing::warn!(
                    "could not release the merge locks of {what} ({e}); other processes wait for \
                     them until they expire (LEASE_SECS)"
                ),
                Err(_) => tokio::time::sleep(merge_backoff(attempt + 3)).await,
            }
        }
    }

    /// Whether this process still holds the document's lease.
    pub(super) async fn still_mine(&self, doc_id: &str) -> Result<bool> {
        let row = self.inner.store.get_doc_status(doc_id).await?;
        Ok(row.is_some_and(|r| {
            r.status == DocStatus::Processing && r.lease_owner.as_deref() == Some(self.inner.worker_id.as_str())
        }))
    }

    /// Waits until the store grants this process the merge locks on `keys` (for `what`, e.g.
    /// "document doc-…", in the log).
    pub(crate) async fn take_merge_locks(&self, what: &str, keys: &[String]) -> Result<()> {
        let inner = &self.inner;
        let lease_ms = (inner.config.pipeline.lease_secs.max(3) * 1000) as i64;
        let started = Instant::now();
        let mut noticed = false;
        let mut attempt = 0;
        loop {
            let now = now_ms();
            if inner.store.lock_keys(&inner.worker_id, keys, now, now + lease_ms).await? {
                return Ok(());
            }
            if !noticed && started.elapsed() >= LOCK_WAIT_NOTICE {
                noticed = true;
                tracing::info!(
                    "{what}: waiting for other processes to finish merging the same entities \
                     ({} s so far)",
                    started.elapsed().as_secs()
                );
            }
            attempt += 1;
            tokio::time::sleep(merge_backoff(attempt.min(6))).await;
        }
    }
}

/// The entity names a document's merge writes or reads: its entities and every endpoint of its
/// relations (so a relation's key is covered by its two endpoints), sorted and without repeats.
pub(super) fn lock_names(prepared: &Prepared) -> Vec<String> {
    let mut names: Vec<String> = prepared
        .extractions
        .iter()
        .flat_map(|x| {
            x.entities
                .iter()
                .map(|e| e.name.clone())
                .chain(x.relations.iter().flat_map(|r| [r.src.clone(), r.tgt.clone()]))
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Merges a prepared document against the current graph and builds its change set; also returns
/// the summaries the build made (see [`MergeMode::earlier_summaries`]).
pub(super) async fn build_commit(
    inner: &Inner,
    prepared: &Prepared,
    mode: &MergeMode<'_>,
    base: Option<&Base>,
) -> Result<(ChangeSet, Vec<MadeSummary>)> {
    let sourced: Vec<SourcedExtraction> = prepared
        .extractions
        .iter()
        .map(|extraction| SourcedExtraction { file_path: &prepared.doc.file_path, extraction })
        .collect();
    let grouped = merge::group(&sourced);
    let endpoints = merge::endpoint_records(&sourced, true);
    let mut endpoint_names: Vec<&String> = endpoints.keys().collect();
    endpoint_names.sort();

    let mut names: Vec<String> = grouped.entity_order.clone();
    names.extend(endpoint_names.iter().map(|n| n.to_string()));
    let (existing_entities, existing_relations) = match base {
        Some(base) => (base.entities(inner, &names).await?, base.relations(inner, &grouped.relation_order).await?),
        None => (inner.store.get_entities(&names).await?, inner.store.get_relations(&grouped.relation_order).await?),
    };

    let mut entity_drafts = Vec::new();
    let mut linked_entities = Vec::new();
    for (name, existing) in names.iter().zip(&existing_entities) {
        let draft = match grouped.entities.get(name) {
            Some(contributions) => merge::fold_entity(&inner.config.merge, name, existing.as_ref(), contributions),
            // an endpoint only: create it when missing, leave an existing entity alone
            None if existing.is_none() => {
                let list = endpoints.get(name).map(Vec::as_slice).unwrap_or(&[]);
                merge::fold_entity(&inner.config.merge, name, None, &merge::endpoint_contributions(list))
            }
            None => continue,
        };
        linked_entities.push(name.clone());
        entity_drafts.push(match base {
            Some(b) => b.rebased_entity(draft),
            None => draft,
        });
    }
    let mut relation_drafts = Vec::new();
    for (key, existing) in grouped.relation_order.iter().zip(&existing_relations) {
        let contributions = grouped.relations.get(key).map(Vec::as_slice).unwrap_or(&[]);
        let draft = merge::fold_relation(&inner.config.merge, key, existing.as_ref(), contributions);
        relation_drafts.push(match base {
            Some(b) => b.rebased_relation(draft),
            None => draft,
        });
    }
    let finished = merge::finish(inner, entity_drafts, relation_drafts, mode).await?;

    let now = now_ms();
    let mut status = prepared.record.clone();
    status.status = DocStatus::Processed;
    status.chunks_count = Some(prepared.chunks.len());
    status.chunks_list = prepared.chunks.iter().map(|c| c.id.clone()).collect();
    status.error_msg = None;
    status.lease_owner = None;
    status.lease_until = None;
    status.updated_at = now;
    status.metadata.insert("process_start_time".into(), serde_json::json!(prepared.started_at / 1000));
    status.metadata.insert("process_end_time".into(), serde_json::json!(now / 1000));
    // typed extraction: what the schema changed in this document (a re-run replaces it)
    match &prepared.schema {
        Some(schema) => {
            status.metadata.insert(REPORT_KEY.into(), serde_json::to_value(schema).unwrap_or_default());
        }
        None => {
            status.metadata.remove(REPORT_KEY);
        }
    }
    if inner.config.extraction.method == crate::config::ExtractionMethod::Llm {
        let (estimated, actual) = &prepared.extraction;
        status.metadata.insert(crate::indexing::estimate::DOC_ESTIMATE_KEY.into(), serde_json::json!(estimated));
        status.metadata.insert(crate::indexing::estimate::DOC_USAGE_KEY.into(), serde_json::json!(actual));
    }

    let mut vectors: Vec<VectorRecord> = prepared
        .chunks
        .iter()
        .zip(&prepared.chunk_vectors)
        .map(|(c, v)| VectorRecord {
            kind: VectorKind::Chunk,
            key: c.id.clone(),
            content: c.content.clone(),
            vector: v.clone(),
        })
        .collect();
    vectors.extend(finished.vectors);

    let changes = ChangeSet {
        expect_entities: names
            .iter()
            .cloned()
            .zip(existing_entities.iter().map(|e| e.as_ref().map(|e| e.version)))
            .collect(),
        expect_relations: grouped
            .relation_order
            .iter()
            .cloned()
            .zip(existing_relations.iter().map(|r| r.as_ref().map(|r| r.version)))
            .collect(),
        expect_doc_owners: vec![(prepared.doc.id.clone(), inner.worker_id.clone())],
        doc_status: vec![status],
        chunks: prepared.chunks.clone(),
        extractions: prepared.extractions.clone(),
        entities: finished.entities,
        relations: finished.relations,
        vectors,
        chunk_lists: finished.chunk_lists,
        doc_links: vec![DocLinks {
            doc_id: prepared.doc.id.clone(),
            entities: linked_entities,
            relations: grouped.relation_order.clone(),
        }],
        usage: inner.gateway.take_unflushed(),
        ..Default::default()
    };
    Ok((changes, finished.summaries))
}

/// The wait before attempt `attempt + 1`: 10 ms doubling up to 1 s, times a random factor in
/// [0.5, 1.5) (so that two processes colliding again and again drift apart).
pub(crate) fn merge_backoff(attempt: u32) -> Duration {
    use std::hash::BuildHasher;
    let base = (10u64 << attempt.min(7)).min(1000) as f64;
    let random = std::collections::hash_map::RandomState::new().hash_one(attempt) as f64 / u64::MAX as f64;
    Duration::from_secs_f64(base * (0.5 + random) / 1000.0)
}

/// The merge locks held for the commit in progress.
pub(crate) fn lock_held(inner: &Inner) -> std::sync::MutexGuard<'_, Vec<String>> {
    inner.merge_keys_held.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
