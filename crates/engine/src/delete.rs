//! Deleting a document: its chunks, vectors and provenance go; entities and relations supported
//! only by it go; those it shared are rebuilt from the stored extraction records of the chunks that
//! remain — no extraction LLM calls (a summary call only where a description needs one).

use std::collections::{HashMap, HashSet};

use lightrag_ports::{ChangeSet, DocStatus, Entity, RelKey, Relation};
use serde::Serialize;

use crate::engine::Engine;
use crate::error::{EngineError, Result};
use crate::merge::{self, SourcedExtraction};
use crate::time::now_ms;

/// What a deletion did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeletionReport {
    /// The document.
    pub doc_id: String,
    /// Its file path.
    pub file_path: String,
    /// Chunks removed.
    pub chunks_deleted: usize,
    /// Entities removed.
    pub entities_deleted: Vec<String>,
    /// Entities rebuilt from the remaining chunks.
    pub entities_rebuilt: Vec<String>,
    /// Relations removed.
    pub relations_deleted: Vec<RelKey>,
    /// Relations rebuilt.
    pub relations_rebuilt: Vec<RelKey>,
    /// Entities that lost the document's chunks but whose shown record did not depend on them
    /// (only their chunk list and count changed; no rebuild).
    pub entities_kept: Vec<String>,
    /// Relations likewise.
    pub relations_kept: Vec<RelKey>,
    /// LLM cache entries of the document's extractions removed (`delete_llm_cache`).
    pub cache_entries_deleted: usize,
    /// Store records the deletion read (rows, and each entry of a stored provenance list).
    pub records_read: usize,
    /// Store records the deletion wrote or removed (counted the same way).
    pub records_written: usize,
}

/// How a deletion treats what surrounds the document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    /// Also remove the cached LLM responses of the document's extraction (LightRAG's
    /// `delete_llm_cache`), so a re-insert asks the LLM again.
    pub delete_llm_cache: bool,
}

fn remaining(list: &[String], deleted: &HashSet<String>) -> Vec<String> {
    list.iter().filter(|c| !deleted.contains(*c)).cloned().collect()
}

/// Orders a rebuild's contributions by their chunk's place in the record's chunk list (the order
/// the chunks were merged in), keeping the order within a chunk — as LightRAG's rebuild does —
/// so the rebuilt provenance and description read like the merges that made them, whatever the
/// extraction times were.
fn in_chunk_order<T>(contributions: &mut [T], chunks: &[String], chunk_of: impl Fn(&T) -> &str) {
    let position: HashMap<&str, usize> = chunks.iter().enumerate().map(|(i, c)| (c.as_str(), i)).collect();
    contributions.sort_by_key(|c| position.get(chunk_of(c)).copied().unwrap_or(usize::MAX));
}

impl Engine {
    /// Deletes a document and everything only it supported; rebuilds what it shared.
    pub async fn delete_document(&self, doc_id: &str) -> Result<DeletionReport> {
        self.delete_document_with(doc_id, DeleteOptions::default()).await
    }

    /// [`Engine::delete_document`] with options (e.g. also dropping its extraction cache).
    pub async fn delete_document_with(&self, doc_id: &str, options: DeleteOptions) -> Result<DeletionReport> {
        let inner = &self.inner;
        let _writer = inner.merge_lock.lock().await;
        let status = inner
            .store
            .get_doc_status(doc_id)
            .await?
            .ok_or_else(|| EngineError::NotFound(format!("no document with id {doc_id}")))?;
        if status.status == DocStatus::Processing && status.lease_until.is_some_and(|t| t > now_ms()) {
            return Err(EngineError::Invalid(format!(
                "document {doc_id} is being processed right now; cancel or wait, then delete it"
            )));
        }
        let deleted_chunks: HashSet<String> = status.chunks_list.iter().cloned().collect();
        // the cache keys are read before the extraction records go with the chunks
        let cache_keys: Vec<String> = if options.delete_llm_cache {
            inner.store.get_extractions(&status.chunks_list).await?.into_iter().flat_map(|e| e.cache_keys).collect()
        } else {
            Vec::new()
        };
        let links = inner.store.get_doc_links(doc_id).await?.unwrap_or_default();
        let entities: Vec<Entity> = inner.store.get_entities(&links.entities).await?.into_iter().flatten().collect();
        let relations: Vec<Relation> =
            inner.store.get_relations(&links.relations).await?.into_iter().flatten().collect();

        let mut report = DeletionReport {
            doc_id: doc_id.to_string(),
            file_path: status.file_path.clone(),
            chunks_deleted: deleted_chunks.len(),
            ..Default::default()
        };
        report.records_read = 2
            + links.entities.len()
            + links.relations.len()
            + entities.iter().map(|e| 1 + e.chunk_ids.len()).sum::<usize>()
            + relations.iter().map(|r| 1 + r.chunk_ids.len()).sum::<usize>();
        // which relations survive, and on which chunks
        let mut relation_chunks: HashMap<RelKey, Vec<String>> = HashMap::new();
        for r in &relations {
            let left = remaining(&r.chunk_ids, &deleted_chunks);
            if left.is_empty() {
                report.relations_deleted.push(r.key.clone());
            } else {
                relation_chunks.insert(r.key.clone(), left);
            }
        }
        let deleted_relations: HashSet<RelKey> = report.relations_deleted.iter().cloned().collect();
        // which entities survive; an entity left without chunks but still an endpoint of a
        // surviving relation is kept, rebuilt from that relation's chunks
        let mut entity_chunks: HashMap<String, Vec<String>> = HashMap::new();
        let mut orphans = Vec::new();
        for e in &entities {
            let left = remaining(&e.chunk_ids, &deleted_chunks);
            if left.is_empty() {
                orphans.push(e.name.clone());
            } else {
                entity_chunks.insert(e.name.clone(), left);
            }
        }
        if !orphans.is_empty() {
            let touching = inner.store.relations_of(&orphans).await?;
            report.records_read += touching.iter().map(|r| 1 + r.chunk_ids.len()).sum::<usize>();
            let orphan_set: HashSet<&String> = orphans.iter().collect();
            let mut kept: HashMap<String, Vec<String>> = HashMap::new();
            for r in touching.iter().filter(|r| !deleted_relations.contains(&r.key)) {
                let chunks =
                    relation_chunks.get(&r.key).cloned().unwrap_or_else(|| remaining(&r.chunk_ids, &deleted_chunks));
                for end in [&r.key.src, &r.key.tgt] {
                    if orphan_set.contains(end) {
                        kept.entry(end.clone()).or_default().extend(chunks.iter().cloned());
                    }
                }
            }
            for name in orphans {
                match kept.remove(&name) {
                    Some(chunks) => {
                        entity_chunks.insert(name, chunks);
                    }
                    None => report.entities_deleted.push(name),
                }
            }
        }

        // load the extraction records of every chunk a rebuild needs
        let mut needed: Vec<String> =
            entity_chunks.values().chain(relation_chunks.values()).flatten().cloned().collect();
        needed.sort();
        needed.dedup();
        let extractions = inner.store.get_extractions(&needed).await?;
        let chunks = inner.store.get_chunks(&needed).await?;
        report.records_read += extractions.len() + chunks.len();
        let paths: HashMap<String, String> = chunks.into_iter().flatten().map(|c| (c.id, c.file_path)).collect();
        let sourced: Vec<SourcedExtraction<'_>> = extractions
            .iter()
            .map(|e| SourcedExtraction {
                file_path: paths.get(&e.chunk_id).map(String::as_str).unwrap_or_default(),
                extraction: e,
            })
            .collect();
        let grouped = merge::group(&sourced);
        let endpoints = merge::endpoint_records(&sourced, false);

        let mut entity_drafts = Vec::new();
        let mut names: Vec<&String> = entity_chunks.keys().collect();
        names.sort();
        for name in names {
            let allowed: HashSet<&String> = entity_chunks[name].iter().collect();
            let mut contributions: Vec<merge::EntityContribution<'_>> = grouped
                .entities
                .get(name)
                .map(|list| list.iter().filter(|c| allowed.contains(&c.chunk_id.to_string())).cloned().collect())
                .unwrap_or_default();
            if contributions.is_empty() {
                contributions = endpoints
                    .get(name)
                    .map(|list| {
                        merge::endpoint_contributions(list)
                            .into_iter()
                            .filter(|c| allowed.contains(&c.chunk_id.to_string()))
                            .collect()
                    })
                    .unwrap_or_default();
            }
            if contributions.is_empty() {
                report.entities_deleted.push(name.clone());
                continue;
            }
            in_chunk_order(&mut contributions, &entity_chunks[name], |c| c.chunk_id);
            report.entities_rebuilt.push(name.clone());
            entity_drafts.push(merge::fold_entity(&inner.config.merge, name, None, &contributions));
        }
        let mut relation_drafts = Vec::new();
        let mut keys: Vec<&RelKey> = relation_chunks.keys().collect();
        keys.sort();
        for key in keys {
            let allowed: HashSet<&String> = relation_chunks[key].iter().collect();
            let mut contributions: Vec<merge::RelationContribution<'_>> = grouped
                .relations
                .get(key)
                .map(|list| list.iter().filter(|c| allowed.contains(&c.chunk_id.to_string())).cloned().collect())
                .unwrap_or_default();
            if contributions.is_empty() {
                report.relations_deleted.push(key.clone());
                continue;
            }
            in_chunk_order(&mut contributions, &relation_chunks[key], |c| c.chunk_id);
            report.relations_rebuilt.push(key.clone());
            relation_drafts.push(merge::fold_relation(&inner.config.merge, key, None, &contributions));
        }
        // relations touching deleted entities cannot stay
        let gone: HashSet<&String> = report.entities_deleted.iter().collect();
        relation_drafts.retain(|d| {
            let keep = !gone.contains(&d.key.src) && !gone.contains(&d.key.tgt);
            if !keep {
                report.relations_deleted.push(d.key.clone());
                report.relations_rebuilt.retain(|k| k != &d.key);
            }
            keep
        });
        // relations outside this document's links that touch a deleted entity (possible after
        // hand edits) cannot stay either: no dangling edges
        let mut extra_relations = Vec::new();
        if !report.entities_deleted.is_empty() {
            let known: HashSet<RelKey> =
                report.relations_deleted.iter().chain(relation_drafts.iter().map(|d| &d.key)).cloned().collect();
            let touching = inner.store.relations_of(&report.entities_deleted).await?;
            report.records_read += touching.iter().map(|r| 1 + r.chunk_ids.len()).sum::<usize>();
            for r in touching {
                if !known.contains(&r.key) {
                    report.relations_deleted.push(r.key.clone());
                    extra_relations.push(r);
                }
            }
        }
        let mut finished = merge::finish(inner, entity_drafts, relation_drafts).await?;
        // a rebuilt relation keeps its creation time (LightRAG's rebuild does; entities get a new one)
        let created: HashMap<&RelKey, i64> = relations.iter().map(|r| (&r.key, r.created_at)).collect();
        for r in &mut finished.relations {
            if let Some(at) = created.get(&r.key) {
                r.created_at = *at;
            }
        }

        let changes = ChangeSet {
            expect_entities: entities.iter().map(|e| (e.name.clone(), Some(e.version))).collect(),
            expect_relations: relations
                .iter()
                .chain(&extra_relations)
                .map(|r| (r.key.clone(), Some(r.version)))
                .collect(),
            delete_documents: vec![doc_id.to_string()],
            delete_entities: report.entities_deleted.clone(),
            delete_relations: report.relations_deleted.clone(),
            entities: finished.entities,
            relations: finished.relations,
            vectors: finished.vectors,
            usage: inner.gateway.take_unflushed(),
            ..Default::default()
        };
        report.records_written = 3 * report.chunks_deleted
            + 3
            + links.entities.len()
            + links.relations.len()
            + changes.entities.iter().map(|e| 1 + e.chunk_ids.len()).sum::<usize>()
            + changes.relations.iter().map(|r| 1 + r.chunk_ids.len()).sum::<usize>()
            + changes.delete_entities.len()
            + changes.delete_relations.len()
            + changes.vectors.len();
        tracing::info!(
            doc_id,
            records_read = report.records_read,
            records_written = report.records_written,
            "deleting a document"
        );
        let usage = changes.usage.clone();
        if let Err(e) = inner.store.apply(changes).await {
            inner.gateway.restore_unflushed(usage);
            return Err(e.into());
        }
        if !cache_keys.is_empty() {
            report.cache_entries_deleted = inner.store.cache_delete(&cache_keys).await?;
        }
        report.entities_deleted.sort();
        report.relations_deleted.sort();
        report.relations_deleted.dedup();
        Ok(report)
    }
}
