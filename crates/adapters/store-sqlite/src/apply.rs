//! [`ChangeSet`] application: one `BEGIN IMMEDIATE` transaction, version checks first, then
//! deletions, then upserts. Returns what the in-memory vector index must replay after commit.

use lightrag_ports::{ChangeSet, DocStatus, GraphKey, StoreError, VectorKind, VectorRecord, Watermark};
use rusqlite::{Connection, TransactionBehavior};

use lightrag_vector_index::normalise;

use crate::codec::{db_err, meta_set};
use crate::failpoint::hit;
use crate::lists;
use crate::vectors::{self, DIM_KEY, VecOp, slot};
use crate::{cache, chunks, documents, graph};
use lightrag_ports::backend::ListTally;

/// What a committed change set did to the vector sets.
pub(crate) struct Applied {
    /// Vector changes in commit order.
    pub(crate) ops: Vec<VecOp>,
    /// Change-feed positions before the commit.
    pub(crate) before: [Watermark; 3],
    /// Change-feed positions after the commit.
    pub(crate) after: [Watermark; 3],
    /// The vector dimension after the commit.
    pub(crate) dim: Option<usize>,
    /// Every set was emptied (before `ops`).
    pub(crate) cleared: bool,
}

/// Applies `changes` atomically.
pub(crate) fn apply(conn: &mut Connection, changes: &ChangeSet) -> Result<Applied, StoreError> {
    lightrag_ports::vector_flaw::check_records(&changes.vectors)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;

    for (name, expected) in &changes.expect_entities {
        let found = graph::entity_version(&tx, name)?;
        if found != *expected {
            return Err(StoreError::Conflict(format!(
                "entity '{name}' (expected version {}, found {})",
                show(*expected),
                show(found)
            )));
        }
    }
    for (key, expected) in &changes.expect_relations {
        let found = graph::relation_version(&tx, key)?;
        if found != *expected {
            return Err(StoreError::Conflict(format!(
                "relation '{}' (expected version {}, found {})",
                graph::canonical(key),
                show(*expected),
                show(found)
            )));
        }
    }

    for (doc_id, owner) in &changes.expect_doc_owners {
        let held = documents::get_status(&tx, doc_id)?
            .is_some_and(|r| r.status == DocStatus::Processing && r.lease_owner.as_deref() == Some(owner.as_str()));
        if !held {
            return Err(StoreError::Conflict(format!(
                "document '{doc_id}' (no longer processing under worker '{owner}'; another worker took it over)"
            )));
        }
    }

    let mut ops = Vec::new();
    let mut touched = [false; 3];
    let mut deleted = [false; 3];
    let before = vectors::heads(&tx)?;
    let seq = before.map(|w| w.seq + 1);
    let mut tally = ListTally::default();
    hit("checks")?;

    // Deletions.
    for doc_id in &changes.delete_documents {
        for chunk_id in chunks::chunk_ids_of(&tx, doc_id)? {
            lists::remove_chunk_everywhere(&tx, &chunk_id, &mut tally)?;
            let kind = VectorKind::Chunk;
            if let Some(id) = vectors::delete_vector(&tx, kind, &chunk_id, seq[slot(kind)])? {
                touched[slot(kind)] = true;
                deleted[slot(kind)] = true;
                ops.push(VecOp::Delete(kind, id));
            }
        }
        for sql in [
            "DELETE FROM chunks WHERE doc_id = ?1",
            "DELETE FROM extractions WHERE doc_id = ?1",
            "DELETE FROM documents WHERE id = ?1",
            "DELETE FROM doc_status WHERE id = ?1",
            "DELETE FROM doc_links WHERE doc_id = ?1",
            "DELETE FROM previous_versions WHERE id = ?1",
        ] {
            tx.prepare_cached(sql).and_then(|mut s| s.execute([doc_id])).map_err(db_err)?;
        }
    }
    for chunk_id in &changes.delete_chunks {
        lists::remove_chunk_everywhere(&tx, chunk_id, &mut tally)?;
        let kind = VectorKind::Chunk;
        if let Some(id) = vectors::delete_vector(&tx, kind, chunk_id, seq[slot(kind)])? {
            touched[slot(kind)] = true;
            deleted[slot(kind)] = true;
            ops.push(VecOp::Delete(kind, id));
        }
        for sql in ["DELETE FROM chunks WHERE id = ?1", "DELETE FROM extractions WHERE chunk_id = ?1"] {
            tx.prepare_cached(sql).and_then(|mut s| s.execute([chunk_id])).map_err(db_err)?;
        }
    }
    for (kind, key) in &changes.delete_vectors {
        let kind = *kind;
        let key = match kind {
            VectorKind::Relation => VectorRecord::parse_relation_key(key)
                .map(|k| VectorRecord::relation_key(&k))
                .unwrap_or_else(|| key.clone()),
            _ => key.clone(),
        };
        if let Some(id) = vectors::delete_vector(&tx, kind, &key, seq[slot(kind)])? {
            touched[slot(kind)] = true;
            deleted[slot(kind)] = true;
            ops.push(VecOp::Delete(kind, id));
        }
    }
    for name in &changes.delete_entities {
        graph::delete_entity(&tx, name)?;
        tally.forget(&GraphKey::Entity(name.clone()));
        let kind = VectorKind::Entity;
        if let Some(id) = vectors::delete_vector(&tx, kind, name, seq[slot(kind)])? {
            touched[slot(kind)] = true;
            deleted[slot(kind)] = true;
            ops.push(VecOp::Delete(kind, id));
        }
    }
    hit("deletions")?;
    for key in &changes.delete_relations {
        graph::delete_relation(&tx, key)?;
        tally.forget(&GraphKey::Relation(graph::canonical(key)));
        let vkey = VectorRecord::relation_key(&graph::canonical(key));
        let kind = VectorKind::Relation;
        if let Some(id) = vectors::delete_vector(&tx, kind, &vkey, seq[slot(kind)])? {
            touched[slot(kind)] = true;
            deleted[slot(kind)] = true;
            ops.push(VecOp::Delete(kind, id));
        }
    }

    // Upserts.
    for document in &changes.documents {
        documents::put_document(&tx, document)?;
    }
    for status in &changes.doc_status {
        documents::put_status(&tx, status)?;
    }
    for id in &changes.drop_previous_versions {
        documents::drop_previous_version(&tx, id)?;
    }
    hit("documents")?;
    for chunk in &changes.chunks {
        chunks::put_chunk(&tx, chunk)?;
    }
    hit("chunks")?;
    for x in &changes.extractions {
        chunks::put_extraction(&tx, x)?;
    }
    hit("extractions")?;
    for e in &changes.entities {
        let owner = GraphKey::Entity(e.name.clone());
        if graph::put_entity(&tx, e)? {
            tally.forget(&owner);
        }
        tally.written(owner);
    }
    hit("entities")?;
    for r in &changes.relations {
        let owner = GraphKey::Relation(graph::canonical(&r.key));
        if graph::put_relation(&tx, r)? {
            tally.forget(&owner);
        }
        tally.written(owner);
    }
    hit("relations")?;
    for (owner, edit) in &changes.chunk_lists {
        lists::edit(&tx, owner, edit, &mut tally)?;
    }
    lists::finish(tally, &tx)?;
    hit("chunk_lists")?;
    let mut dim = vectors::stored_dim(&tx)?;
    for rec in &changes.vectors {
        let expected = match dim {
            Some(d) => d,
            None => {
                if rec.vector.is_empty() {
                    return Err(StoreError::Invalid(format!("empty vector for '{}'", rec.key)));
                }
                meta_set(&tx, DIM_KEY, &rec.vector.len().to_string())?;
                dim = Some(rec.vector.len());
                rec.vector.len()
            }
        };
        if rec.vector.len() != expected {
            return Err(StoreError::WrongDimension { expected, got: rec.vector.len() });
        }
        let key = match rec.kind {
            VectorKind::Relation => VectorRecord::parse_relation_key(&rec.key)
                .map(|k| VectorRecord::relation_key(&k))
                .unwrap_or_else(|| rec.key.clone()),
            _ => rec.key.clone(),
        };
        let mut v = rec.vector.clone();
        normalise(&mut v);
        let id = vectors::put_vector(&tx, rec.kind, &key, &rec.content, &v, seq[slot(rec.kind)])?;
        touched[slot(rec.kind)] = true;
        ops.push(VecOp::Put(rec.kind, id, v));
    }
    hit("vectors")?;
    for links in &changes.doc_links {
        chunks::put_links(&tx, links)?;
    }
    hit("links")?;
    for entry in &changes.cache {
        cache::cache_put(&tx, entry)?;
    }
    if !changes.usage.is_empty() {
        cache::add_usage(&tx, &changes.usage)?;
    }

    let mut after = before;
    for kind in VectorKind::ALL {
        let i = slot(kind);
        if touched[i] {
            vectors::set_seq(&tx, kind, seq[i])?;
            after[i].seq = seq[i];
        }
        if deleted[i] {
            vectors::prune_tombstones(&tx, kind)?;
        }
    }
    hit("before_commit")?;
    tx.commit().map_err(db_err)?;
    Ok(Applied { ops, before, after, dim, cleared: false })
}

/// Removes every document, chunk, graph record, vector and link (keeps cache, usage and identity).
pub(crate) fn clear_all(conn: &mut Connection) -> Result<Applied, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    tx.execute_batch(
        "DELETE FROM documents; DELETE FROM doc_status; DELETE FROM chunks; DELETE FROM extractions; \
         DELETE FROM entities; DELETE FROM relations; DELETE FROM doc_links; DELETE FROM vectors; \
         DELETE FROM vector_key_collisions; DELETE FROM entity_chunks; DELETE FROM relation_chunks; DELETE FROM node_degree; \
         DELETE FROM previous_versions;",
    )
    .map_err(db_err)?;
    let before = vectors::invalidate_indexes(&tx)?;
    let after = vectors::heads(&tx)?;
    let dim = vectors::stored_dim(&tx)?;
    tx.commit().map_err(db_err)?;
    Ok(Applied { ops: Vec::new(), before, after, dim, cleared: true })
}

fn show(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "absent".to_string())
}
