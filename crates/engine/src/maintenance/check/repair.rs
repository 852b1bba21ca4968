//! `lightrag check --repair`: fixes what a [`CheckReport`] found that needs no LLM. Vectors and
//! chunks without their record are deleted; lost chunk rows are cut again from their document's
//! text (chunking is deterministic, so they come back with the same ids and text); missing or
//! wrong-sized vectors are embedded again with the configured model; documents stuck in
//! `processing` go back to `pending`; a `failed` replacement whose old chunks still answer
//! queries gets its previous version back (or, when none is kept, goes back to `pending` to be
//! finished). Each step commits in batches; a repair interrupted halfway leaves a store that the
//! next check reports on.

use std::collections::HashMap;

use lightrag_ports::backend::REPLACING_KEY;
use lightrag_ports::{ChangeSet, DocStatus, Store, VectorKind, VectorRecord};
use serde::Serialize;

use super::{CheckReport, PAGE, is_stuck};
use crate::engine::Engine;
use crate::error::Result;
use crate::indexing::merge::{entity_vector_content, relation_vector_content};
use crate::time::now_ms;

/// Texts embedded per commit.
const EMBED_BATCH: usize = 64;

/// What a repair did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RepairSummary {
    /// Vectors embedded again.
    pub vectors_embedded: usize,
    /// Vectors deleted.
    pub vectors_deleted: usize,
    /// Chunks restored from their document's text.
    pub chunks_restored: usize,
    /// Chunks deleted.
    pub chunks_deleted: usize,
    /// Documents set back to pending.
    pub documents_reset: usize,
    /// Failed replacements whose previous version was given back.
    pub documents_restored: usize,
    /// What could not be repaired, and why.
    pub not_repaired: Vec<String>,
}

impl Engine {
    /// Repairs what `report` found that needs no LLM (see the module docs), then returns what it
    /// did. Run [`Engine::check`] again to see what is left.
    pub async fn repair(&self, report: &CheckReport) -> Result<RepairSummary> {
        let store = self.inner.store.as_ref();
        let work = &report.work;
        let mut summary = RepairSummary::default();

        for part in work.drop_vectors.chunks(PAGE) {
            self.commit_edit(ChangeSet { delete_vectors: part.to_vec(), ..Default::default() }).await?;
            summary.vectors_deleted += part.len();
        }
        for part in work.drop_chunks.chunks(PAGE) {
            self.commit_edit(ChangeSet { delete_chunks: part.to_vec(), ..Default::default() }).await?;
            summary.chunks_deleted += part.len();
        }

        let mut embed = work.embed.clone();
        for (doc_id, lost) in &work.restore_chunks {
            let Some(doc) = store.get_document(doc_id).await? else {
                summary.not_repaired.push(format!(
                    "document {doc_id}: its text is gone, so its chunks cannot be cut again; delete it and insert it again"
                ));
                continue;
            };
            let cut = self.document_chunks(&doc).await?;
            let by_id: HashMap<&str, _> = cut.iter().map(|c| (c.id.as_str(), c)).collect();
            let mut chunks = Vec::new();
            for (id, has_vector) in lost {
                match by_id.get(id.as_str()) {
                    Some(chunk) => {
                        chunks.push((*chunk).clone());
                        if !has_vector {
                            embed.push((VectorKind::Chunk, id.clone()));
                        }
                    }
                    None => summary.not_repaired.push(format!(
                        "chunk {id} of document {doc_id}: cutting the text again does not give it back (the chunking \
                         settings changed?); delete the document and insert it again"
                    )),
                }
            }
            summary.chunks_restored += chunks.len();
            if !chunks.is_empty() {
                self.commit_edit(ChangeSet { chunks, ..Default::default() }).await?;
            }
        }

        for part in embed.chunks(EMBED_BATCH) {
            let items = texts_of(store, part, &mut summary.not_repaired).await?;
            if items.is_empty() {
                continue;
            }
            let vectors = self.embed_records(items).await?;
            summary.vectors_embedded += vectors.len();
            self.commit_edit(ChangeSet { vectors, ..Default::default() }).await?;
        }

        let host = self.inner.worker_id.split('/').next().unwrap_or_default().to_string();
        for id in &work.reset_documents {
            // read again: a worker may have taken it over since the check
            let Some(mut row) = store.get_doc_status(id).await? else { continue };
            let now = now_ms();
            if row.status != DocStatus::Processing || !is_stuck(&row, now, &host, &self.inner.worker_id) {
                continue;
            }
            row.status = DocStatus::Pending;
            row.lease_owner = None;
            row.lease_until = None;
            row.updated_at = now;
            self.commit_edit(ChangeSet { doc_status: vec![row], ..Default::default() }).await?;
            summary.documents_reset += 1;
        }
        for id in &work.failed_with_chunks {
            self.repair_failed_with_chunks(id, &mut summary).await?;
        }
        Ok(summary)
    }

    /// A `failed` document whose chunks are stored: a replacement that ended without giving its
    /// previous version back. That version is given back when the store kept it; otherwise a
    /// waiting replacement goes back to `pending` (the next run finishes it).
    async fn repair_failed_with_chunks(&self, id: &str, summary: &mut RepairSummary) -> Result<()> {
        // read again: it may have been retried since the check
        let Some(mut row) = self.inner.store.get_doc_status(id).await? else { return Ok(()) };
        if row.status != DocStatus::Failed {
            return Ok(());
        }
        let error = row.error_msg.clone().unwrap_or_else(|| "failed".into());
        if let Some(restored) = crate::indexing::pipeline::given_back(&self.inner, &row, &error).await? {
            self.commit_edit(restored).await?;
            summary.documents_restored += 1;
        } else if row.metadata.contains_key(REPLACING_KEY) {
            row.status = DocStatus::Pending;
            row.error_msg = None;
            row.updated_at = now_ms();
            self.commit_edit(ChangeSet { doc_status: vec![row], ..Default::default() }).await?;
            summary.documents_reset += 1;
        } else {
            summary.not_repaired.push(format!(
                "document {id}: failed, yet its chunks are stored and no replacement of it is waiting; delete it and \
                 insert it again"
            ));
        }
        Ok(())
    }
}

/// The `(set, key, text)` to embed for each record (the text its vector stands for), skipping
/// records that are gone by now.
async fn texts_of(
    store: &dyn Store,
    part: &[(VectorKind, String)],
    not_repaired: &mut Vec<String>,
) -> Result<Vec<(VectorKind, String, String)>> {
    let keys = |kind: VectorKind| -> Vec<String> {
        part.iter().filter(|(k, _)| *k == kind).map(|(_, key)| key.clone()).collect()
    };
    let mut out = Vec::new();
    let names = keys(VectorKind::Entity);
    for (name, entity) in names.iter().zip(store.get_entities(&names).await?) {
        if let Some(e) = entity {
            out.push((VectorKind::Entity, name.clone(), entity_vector_content(&e.name, &e.description)));
        }
    }
    let relation_keys = keys(VectorKind::Relation);
    let mut parsed = Vec::new();
    for key in &relation_keys {
        match VectorRecord::parse_relation_key(key) {
            Some(k) => parsed.push((key.clone(), k)),
            None => not_repaired.push(format!("relation vector key {key:?} does not name two entities")),
        }
    }
    let rel_keys: Vec<_> = parsed.iter().map(|(_, k)| k.clone()).collect();
    for ((key, _), relation) in parsed.iter().zip(store.get_relations(&rel_keys).await?) {
        if let Some(r) = relation {
            let text = relation_vector_content(&r.key, &r.keywords, &r.description);
            out.push((VectorKind::Relation, key.clone(), text));
        }
    }
    let chunk_ids = keys(VectorKind::Chunk);
    for (id, chunk) in chunk_ids.iter().zip(store.get_chunks(&chunk_ids).await?) {
        if let Some(c) = chunk {
            out.push((VectorKind::Chunk, id.clone(), c.content));
        }
    }
    Ok(out)
}
