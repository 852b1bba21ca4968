//! Replacing an indexed document by its new version (a known file inserted again with other
//! content), in place and in one commit.
//!
//! Enqueueing the new version ([`lightrag_ports::DocumentQueue::enqueue`], outcome
//! [`EnqueueOutcome::Replaced`](lightrag_ports::EnqueueOutcome::Replaced)) stores its text and
//! puts the document back to `pending` with the replacement marked under
//! [`REPLACING_KEY`]; its chunk list, chunks and graph stay those of the version indexed, so
//! queries keep answering from the old version. Processing it:
//!
//! 1. cuts the new text into chunks and matches them with the old ones by the hash of their text:
//!    a chunk whose text was already indexed takes that chunk's extraction record (re-keyed to its
//!    new id) and vector — no LLM or embedding call; only the other chunks are extracted
//!    ([`reusable`]);
//! 2. under the merge locks of every entity the old or the new version touches, builds one change
//!    set that is exactly "delete the old version, then insert the new one": the old chunks'
//!    contributions are removed and the records they shared rebuilt from the remaining chunks'
//!    stored records (the deletion's planning, [`crate::maintenance::delete`]), then the new version's records
//!    are folded on top of that state as an insert folds them into the stored graph ([`Base`]
//!    stands in for the store there). A graph built from one document therefore equals a fresh
//!    build of its new version, and with other documents the replaced document's chunks simply
//!    move to the end of the chunk lists they are in, as after a delete and re-insert.
//!
//! The document keeps its id and `created_at`; its status row gets the new content hash, chunk
//! list and track id, and a `revisions` entry in its metadata (what was reused, extracted again
//! and removed). A crash before the commit leaves the old version whole and the new one
//! `pending` (or `processing` until its lease runs out): the next run does it again.
//!
//! A replacement that fails or is cancelled by the user never leaves a `failed` document whose
//! old chunks still answer queries: the store kept the indexed version's text and status row
//! when the replacement was enqueued ([`lightrag_ports::PreviousVersion`]), and [`given_back`]
//! writes them back — `processed`, chunks, metadata as before — with the failed revision in its
//! `revisions` history.

use std::collections::{HashMap, HashSet};

use lightrag_ports::backend::REPLACING_KEY;
use lightrag_ports::{
    Chunk, ChunkExtraction, DocStatusRecord, Entity, GraphKey, RelKey, Relation, StoreError, VectorKind, ids,
};
use serde::Serialize;

use super::commit::{Committed, build_commit, lock_held, lock_names, merge_backoff};
use super::{Engine, PipelineEvent, Prepared, ProcessReport, ProgressSink};
use crate::engine::Inner;
use crate::error::Result;
use crate::indexing::merge::{EntityDraft, MergeMode, RelationDraft};
use crate::maintenance::delete::{DeletionReport, Removal, removal};
use crate::time::now_ms;

/// Status-row metadata key of the list of replacements a document went through.
pub const REVISIONS_KEY: &str = "revisions";

/// Builds of a replacement tried before the document fails (a conflict comes only from writers
/// that take no merge locks: graph edits through the API).
const REPLACE_ATTEMPTS: u32 = 10;

/// What replacing a document did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReplacementReport {
    /// Chunks of the new version.
    pub chunks: usize,
    /// New chunks whose text was indexed before: their extraction records were reused.
    pub chunks_reused: usize,
    /// New chunks sent to extraction.
    pub chunks_extracted: usize,
    /// Old chunks whose text is not in the new version.
    pub chunks_removed: usize,
}

/// The version a replacement replaces, and what it reuses of it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ReplaceInfo {
    /// The chunks of the indexed version.
    old_chunks: Vec<String>,
    /// The replacement's marker in the status row.
    marker: serde_json::Value,
    report: ReplacementReport,
}

/// What a new version reuses of the old one, per new chunk.
pub(super) struct Reuse {
    pub(super) info: ReplaceInfo,
    /// The old extraction record of a chunk with the same text, re-keyed to the new chunk.
    pub(super) extractions: Vec<Option<ChunkExtraction>>,
    /// The old vector of a chunk with the same text.
    pub(super) vectors: Vec<Option<Vec<f32>>>,
}

/// When `record` is a pending replacement of an indexed version: what its new `chunks` can take
/// from the old chunks with the same text (matched by the MD5 of the chunk text).
pub(super) async fn reusable(inner: &Inner, record: &DocStatusRecord, chunks: &[Chunk]) -> Result<Option<Reuse>> {
    let Some(marker) = record.metadata.get(REPLACING_KEY) else {
        return Ok(None);
    };
    if record.chunks_list.is_empty() {
        return Ok(None);
    }
    let store = inner.store.as_ref();
    let old_ids = record.chunks_list.clone();
    let old_chunks = store.get_chunks(&old_ids).await?;
    let records: HashMap<String, ChunkExtraction> =
        store.get_extractions(&old_ids).await?.into_iter().map(|x| (x.chunk_id.clone(), x)).collect();
    let old_vectors = store.get_vectors(VectorKind::Chunk, &old_ids).await?;
    let old_hashes: Vec<Option<String>> =
        old_chunks.iter().map(|c| c.as_ref().map(|c| ids::md5_hex(&c.content))).collect();
    // the first old chunk of each text that has an extraction record
    let mut by_hash: HashMap<&str, usize> = HashMap::new();
    for (i, (chunk, hash)) in old_chunks.iter().zip(&old_hashes).enumerate() {
        if let (Some(chunk), Some(hash)) = (chunk, hash)
            && records.contains_key(&chunk.id)
        {
            by_hash.entry(hash.as_str()).or_insert(i);
        }
    }
    let new_hashes: Vec<String> = chunks.iter().map(|c| ids::md5_hex(&c.content)).collect();
    let now = now_ms();
    let mut extractions = Vec::with_capacity(chunks.len());
    let mut vectors = Vec::with_capacity(chunks.len());
    for (chunk, hash) in chunks.iter().zip(&new_hashes) {
        let old = by_hash.get(hash.as_str()).copied();
        let record = old.and_then(|i| records.get(&old_ids[i])).map(|x| ChunkExtraction {
            chunk_id: chunk.id.clone(),
            doc_id: chunk.doc_id.clone(),
            created_at: now,
            ..x.clone()
        });
        vectors.push(old.and_then(|i| old_vectors.get(i).cloned().flatten()).filter(|_| record.is_some()));
        extractions.push(record);
    }
    let kept: HashSet<&String> = new_hashes.iter().collect();
    let removed = old_hashes.iter().flatten().filter(|h| !kept.contains(h)).count();
    let reused = extractions.iter().filter(|x| x.is_some()).count();
    let report = ReplacementReport {
        chunks: chunks.len(),
        chunks_reused: reused,
        chunks_extracted: chunks.len() - reused,
        chunks_removed: removed,
    };
    let info = ReplaceInfo { old_chunks: old_ids, marker: marker.clone(), report };
    Ok(Some(Reuse { info, extractions, vectors }))
}

/// The graph as it is once the old version is removed: what the insert of the new version folds
/// into instead of the stored records (for the records the removal read; the others are read
/// from the store).
pub(crate) struct Base {
    entities: HashMap<String, Option<Entity>>,
    relations: HashMap<RelKey, Option<Relation>>,
    /// Records the removal rebuilt: their stored vector is not the vector of their new text.
    rebuilt_entities: HashSet<String>,
    rebuilt_relations: HashSet<RelKey>,
}

impl Base {
    fn new(removal: &Removal, report: &DeletionReport) -> Self {
        let deleted_entities: HashSet<&String> = report.entities_deleted.iter().collect();
        let deleted_relations: HashSet<&RelKey> = report.relations_deleted.iter().collect();
        let rebuilt_entities: HashMap<&String, &Entity> =
            removal.finished.entities.iter().map(|e| (&e.name, e)).collect();
        let rebuilt_relations: HashMap<&RelKey, &Relation> =
            removal.finished.relations.iter().map(|r| (&r.key, r)).collect();
        let lost = |owner: GraphKey| removal.lost.get(&owner).map_or(0, Vec::len);
        let mut entities = HashMap::new();
        for e in &removal.entities {
            let after = if deleted_entities.contains(&e.name) {
                None
            } else if let Some(rebuilt) = rebuilt_entities.get(&e.name) {
                Some((*rebuilt).clone())
            } else {
                let chunk_count = e.chunk_count.saturating_sub(lost(GraphKey::Entity(e.name.clone())));
                Some(Entity { chunk_count, ..e.clone() })
            };
            entities.insert(e.name.clone(), after);
        }
        let mut relations = HashMap::new();
        for r in removal.relations.iter().chain(&removal.extra_relations) {
            let after = if deleted_relations.contains(&r.key) {
                None
            } else if let Some(rebuilt) = rebuilt_relations.get(&r.key) {
                Some((*rebuilt).clone())
            } else {
                let chunk_count = r.chunk_count.saturating_sub(lost(GraphKey::Relation(r.key.clone())));
                Some(Relation { chunk_count, ..r.clone() })
            };
            relations.insert(r.key.clone(), after);
        }
        Base {
            entities,
            relations,
            rebuilt_entities: rebuilt_entities.keys().map(|n| (*n).clone()).collect(),
            rebuilt_relations: rebuilt_relations.keys().map(|k| (*k).clone()).collect(),
        }
    }

    /// Entities by name after the removal, in the order asked.
    pub(crate) async fn entities(&self, inner: &Inner, names: &[String]) -> Result<Vec<Option<Entity>>> {
        let unknown: Vec<String> = names.iter().filter(|n| !self.entities.contains_key(*n)).cloned().collect();
        let mut stored = inner.store.get_entities(&unknown).await?.into_iter();
        Ok(names
            .iter()
            .map(|n| match self.entities.get(n) {
                Some(after) => after.clone(),
                None => stored.next().flatten(),
            })
            .collect())
    }

    /// Relations by key after the removal, in the order asked.
    pub(crate) async fn relations(&self, inner: &Inner, keys: &[RelKey]) -> Result<Vec<Option<Relation>>> {
        let unknown: Vec<RelKey> = keys.iter().filter(|k| !self.relations.contains_key(*k)).cloned().collect();
        let mut stored = inner.store.get_relations(&unknown).await?.into_iter();
        Ok(keys
            .iter()
            .map(|k| match self.relations.get(k) {
                Some(after) => after.clone(),
                None => stored.next().flatten(),
            })
            .collect())
    }

    /// A draft folded into a rebuilt entity: its stored vector is not the vector of the rebuilt
    /// text, so it is not reused for the new one.
    pub(crate) fn rebased_entity(&self, mut draft: EntityDraft) -> EntityDraft {
        if self.rebuilt_entities.contains(&draft.name) {
            draft.previous_vector_text = None;
        }
        draft
    }

    /// [`Base::rebased_entity`] for relations.
    pub(crate) fn rebased_relation(&self, mut draft: RelationDraft) -> RelationDraft {
        if self.rebuilt_relations.contains(&draft.key) {
            draft.previous_vector_text = None;
        }
        draft
    }
}

/// The change set replacing the old version of `prepared` by the new one (see the module docs).
async fn build_replacement(
    inner: &Inner,
    prepared: &Prepared,
    info: &ReplaceInfo,
) -> Result<lightrag_ports::ChangeSet> {
    let mut removed = DeletionReport::default();
    let doc_ids = std::slice::from_ref(&prepared.doc.id);
    let removal = removal(inner, doc_ids, &info.old_chunks, &MergeMode::default(), &mut removed).await?;
    let base = Base::new(&removal, &removed);
    let (mut changes, _) = build_commit(inner, prepared, &MergeMode::default(), Some(&base)).await?;

    // what the removal read is expected at its stored versions
    changes.expect_entities.retain(|(name, _)| !base.entities.contains_key(name));
    changes.expect_entities.extend(removal.entities.iter().map(|e| (e.name.clone(), Some(e.version))));
    changes.expect_relations.retain(|(key, _)| !base.relations.contains_key(key));
    changes
        .expect_relations
        .extend(removal.relations.iter().chain(&removal.extra_relations).map(|r| (r.key.clone(), Some(r.version))));
    // the old chunks go first (rows, vectors, records, list entries); new chunks may reuse their ids
    changes.delete_chunks = info.old_chunks.clone();
    let mut deleted_entities = removed.entities_deleted;
    deleted_entities.sort();
    deleted_entities.dedup();
    let mut deleted_relations = removed.relations_deleted;
    deleted_relations.sort();
    deleted_relations.dedup();
    changes.delete_entities = deleted_entities;
    changes.delete_relations = deleted_relations;
    // the removal's rebuilt records, unless the insert wrote them again
    let written: HashSet<String> = changes.entities.iter().map(|e| e.name.clone()).collect();
    let mut entities: Vec<Entity> =
        removal.finished.entities.into_iter().filter(|e| !written.contains(&e.name)).collect();
    entities.append(&mut changes.entities);
    changes.entities = entities;
    // (a relation the removal rebuilt kept its creation time there, as after a deletion)
    let written: HashSet<RelKey> = changes.relations.iter().map(|r| r.key.clone()).collect();
    let mut relations: Vec<Relation> =
        removal.finished.relations.into_iter().filter(|r| !written.contains(&r.key)).collect();
    relations.append(&mut changes.relations);
    changes.relations = relations;
    let written: HashSet<(VectorKind, String)> = changes.vectors.iter().map(|v| (v.kind, v.key.clone())).collect();
    let mut vectors: Vec<_> =
        removal.finished.vectors.into_iter().filter(|v| !written.contains(&(v.kind, v.key.clone()))).collect();
    vectors.append(&mut changes.vectors);
    changes.vectors = vectors;
    let mut lists = removal.lists;
    lists.append(&mut changes.chunk_lists);
    changes.chunk_lists = lists;

    // the status row: the new version, its history; the kept previous version is not needed now
    changes.drop_previous_versions = vec![prepared.doc.id.clone()];
    if let Some(status) = changes.doc_status.first_mut() {
        status.metadata.remove(REPLACING_KEY);
        let report = &info.report;
        let entry = serde_json::json!({
            "outcome": "replaced",
            "content_hash": prepared.doc.content_hash,
            "previous_content_hash": info.marker.get("previous_content_hash"),
            "previous_track_id": info.marker.get("previous_track_id"),
            "track_id": prepared.record.track_id,
            "replaced_at": now_ms() / 1000,
            "chunks_reused": report.chunks_reused,
            "chunks_extracted": report.chunks_extracted,
            "chunks_removed": report.chunks_removed,
        });
        add_revision(&mut status.metadata, entry);
    }
    Ok(changes)
}

/// Appends `entry` to the `revisions` history in a status row's metadata.
fn add_revision(metadata: &mut serde_json::Map<String, serde_json::Value>, entry: serde_json::Value) {
    match metadata.get_mut(REVISIONS_KEY) {
        Some(serde_json::Value::Array(list)) => list.push(entry),
        _ => {
            metadata.insert(REVISIONS_KEY.into(), serde_json::Value::Array(vec![entry]));
        }
    }
}

/// The error of a user's cancel (a revision ended so is recorded as `cancelled`).
pub(crate) const CANCELLED_BY_USER: &str = "cancelled by user";

/// When `record` is the replacement of an indexed version that ended without committing
/// (`error`, [`CANCELLED_BY_USER`] for a user's cancel), and the store kept that version: the
/// change set giving it back — its text, and its status row as before the replacement began
/// (`processed`, chunk list, metadata), with the ended revision appended to its `revisions`
/// history — and dropping the kept copy. The row takes the replacement's track id, so that the
/// track id its caller got still shows the document (and, in its history, what became of the new
/// version). `None` when `record` is no such replacement, or no previous version was kept (a store
/// written by an older build): the document then fails as any other.
pub(crate) async fn given_back(
    inner: &Inner,
    record: &DocStatusRecord,
    error: &str,
) -> Result<Option<lightrag_ports::ChangeSet>> {
    let Some(marker) = record.metadata.get(REPLACING_KEY) else {
        return Ok(None);
    };
    let Some(previous) = inner.store.previous_version(&record.id).await? else {
        return Ok(None);
    };
    let now = now_ms();
    let outcome = if error == CANCELLED_BY_USER { "cancelled" } else { "failed" };
    let entry = serde_json::json!({
        "outcome": outcome,
        "error": error,
        "content_hash": record.content_hash,
        "previous_content_hash": marker.get("previous_content_hash"),
        "previous_track_id": marker.get("previous_track_id"),
        "track_id": record.track_id,
        "requested_at": marker.get("requested_at"),
        "ended_at": now / 1000,
    });
    let mut row = previous.status;
    add_revision(&mut row.metadata, entry);
    row.metadata.remove(REPLACING_KEY);
    row.track_id = record.track_id.clone();
    row.updated_at = now;
    row.lease_owner = None;
    row.lease_until = None;
    tracing::info!(doc_id = %record.id, "the replacement {outcome} ({error}); the previous version is indexed again");
    Ok(Some(lightrag_ports::ChangeSet {
        documents: vec![previous.document],
        doc_status: vec![row],
        drop_previous_versions: vec![record.id.clone()],
        ..Default::default()
    }))
}

/// Every entity name the replacement may write: the new version's (entities and relation ends),
/// and those the old version's links and chunk lists name.
async fn replacement_lock_names(inner: &Inner, prepared: &Prepared, old_chunks: &[String]) -> Result<Vec<String>> {
    let store = inner.store.as_ref();
    let mut names = lock_names(prepared);
    if let Some(links) = store.get_doc_links(&prepared.doc.id).await? {
        names.extend(links.entities);
        names.extend(links.relations.into_iter().flat_map(|k| [k.src, k.tgt]));
    }
    for (_, owner) in store.chunk_owners(old_chunks).await? {
        match owner {
            GraphKey::Entity(name) => names.push(name),
            GraphKey::Relation(key) => names.extend([key.src, key.tgt]),
        }
    }
    names.sort();
    names.dedup();
    Ok(names)
}

impl Engine {
    /// Commits a prepared replacement (see the module docs): under the merge locks of everything
    /// the old and the new version touch, one change set.
    pub(super) async fn commit_replacement(
        &self,
        prepared: Prepared,
        progress: &dyn ProgressSink,
        report: &mut ProcessReport,
    ) -> Result<()> {
        let Some(info) = prepared.replacement.clone() else {
            return self.commit(prepared, progress, report).await;
        };
        let inner = &self.inner;
        let doc_id = prepared.doc.id.clone();
        let writer = inner.merge_lock.lock().await;
        let keys = replacement_lock_names(inner, &prepared, &info.old_chunks).await?;
        let what = format!("document {doc_id}");
        self.take_merge_locks(&what, &keys).await?;
        *lock_held(inner) = keys.clone();
        let outcome = self.apply_replacement(&prepared, &info).await;
        self.release_merge_locks(&what, &keys).await;
        drop(writer);
        match outcome? {
            Committed::Done { entities, relations } => {
                tracing::info!(
                    doc_id,
                    reused = info.report.chunks_reused,
                    extracted = info.report.chunks_extracted,
                    removed = info.report.chunks_removed,
                    "replaced a document by its new version"
                );
                report.processed.push(doc_id.clone());
                report.chunks += prepared.chunks.len();
                report.entities_extracted += prepared.extractions.iter().map(|e| e.entities.len()).sum::<usize>();
                report.relations_extracted += prepared.extractions.iter().map(|e| e.relations.len()).sum::<usize>();
                if let Some(schema) = prepared.schema {
                    report.schema.insert(doc_id.clone(), schema);
                }
                report.replaced.insert(doc_id.clone(), info.report);
                progress.event(&PipelineEvent::DocProcessed { doc_id, entities, relations });
                Ok(())
            }
            Committed::TakenOver => {
                tracing::warn!(
                    "document {doc_id}: another worker took its replacement over; leaving it to that worker"
                );
                Ok(())
            }
            Committed::Failed(msg) => self.fail(prepared.record, &msg, progress, report).await,
        }
    }

    /// Builds and applies the replacement, building it again after a conflict (the merge locks
    /// are held, so only writers that take none conflict).
    async fn apply_replacement(&self, prepared: &Prepared, info: &ReplaceInfo) -> Result<Committed> {
        let inner = &self.inner;
        let mut last = String::new();
        for attempt in 1..=REPLACE_ATTEMPTS {
            let changes = match build_replacement(inner, prepared, info).await {
                Ok(changes) => changes,
                Err(e) if e.is_store_outage() => return Err(e),
                Err(e) => return Ok(Committed::Failed(e.to_string())),
            };
            let (entities, relations) = (changes.entities.len(), changes.relations.len());
            let usage = changes.usage.clone();
            match inner.store.apply(changes).await {
                Ok(()) => return Ok(Committed::Done { entities, relations }),
                Err(StoreError::Conflict(what)) => {
                    inner.gateway.restore_unflushed(usage);
                    if !self.still_mine(&prepared.doc.id).await? {
                        return Ok(Committed::TakenOver);
                    }
                    last = what;
                    tokio::time::sleep(merge_backoff(attempt)).await;
                }
                Err(e) => {
                    inner.gateway.restore_unflushed(usage);
                    return Err(e.into());
                }
            }
        }
        Ok(Committed::Failed(format!(
            "gave up replacing the document after repeated concurrent updates ({last}); run `lightrag process` again"
        )))
    }
}
