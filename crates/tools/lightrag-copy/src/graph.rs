//! Graph records with what the target needs to hold them: the record, its vector (the text it
//! stands for is rebuilt as the engine builds it) and its chunk list, in the source's state.

use std::collections::HashSet;

use lightrag_engine::indexing::merge::{entity_vector_content, relation_vector_content};
use lightrag_ports::{ChangeSet, ChunkListEdit, GraphKey, RelKey, Store, VectorKind, VectorRecord, paging};

use crate::CopyError;
use crate::run::usable;

/// Adds to `changes` the entities of `names` that the target lacks and no earlier change set of
/// this run wrote (`written`, updated); returns how many. An entity without a usable vector in
/// the source is added without one and counted in `missing_vectors`.
pub(crate) async fn add_entities(
    from: &dyn Store,
    to: &dyn Store,
    names: &[String],
    written: &mut HashSet<String>,
    changes: &mut ChangeSet,
    missing_vectors: &mut usize,
) -> Result<usize, CopyError> {
    let fresh: Vec<String> = names.iter().filter(|n| !written.contains(*n)).cloned().collect();
    if fresh.is_empty() {
        return Ok(0);
    }
    let present = to.get_entities(&fresh).await.map_err(CopyError::Target)?;
    let missing: Vec<String> =
        fresh.into_iter().zip(present).filter_map(|(name, found)| found.is_none().then_some(name)).collect();
    let records = from.get_entities(&missing).await.map_err(CopyError::Source)?;
    let vectors = from.get_vectors(VectorKind::Entity, &missing).await.map_err(CopyError::Source)?;
    let mut added = 0;
    for ((name, record), vector) in missing.into_iter().zip(records).zip(vectors) {
        written.insert(name.clone());
        // a name linked by a document but gone from the graph (deleted by an edit) stays gone
        let Some(entity) = record else { continue };
        let key = GraphKey::Entity(name.clone());
        let list = paging::whole_chunk_list(from, &key).await.map_err(CopyError::Source)?;
        match usable(vector) {
            Some(vector) => {
                let content = entity_vector_content(&entity.name, &entity.description);
                changes.vectors.push(VectorRecord { kind: VectorKind::Entity, key: name, content, vector });
            }
            None => *missing_vectors += 1,
        }
        changes.entities.push(entity);
        changes.chunk_lists.push((key, ChunkListEdit::Replace(list)));
        added += 1;
    }
    Ok(added)
}

/// [`add_entities`] for relations.
pub(crate) async fn add_relations(
    from: &dyn Store,
    to: &dyn Store,
    keys: &[RelKey],
    written: &mut HashSet<RelKey>,
    changes: &mut ChangeSet,
    missing_vectors: &mut usize,
) -> Result<usize, CopyError> {
    let fresh: Vec<RelKey> = keys.iter().filter(|k| !written.contains(*k)).cloned().collect();
    if fresh.is_empty() {
        return Ok(0);
    }
    let present = to.get_relations(&fresh).await.map_err(CopyError::Target)?;
    let missing: Vec<RelKey> =
        fresh.into_iter().zip(present).filter_map(|(key, found)| found.is_none().then_some(key)).collect();
    let records = from.get_relations(&missing).await.map_err(CopyError::Source)?;
    let vector_keys: Vec<String> = missing.iter().map(VectorRecord::relation_key).collect();
    let vectors = from.get_vectors(VectorKind::Relation, &vector_keys).await.map_err(CopyError::Source)?;
    let mut added = 0;
    for (((key, record), vector), vector_key) in missing.into_iter().zip(records).zip(vectors).zip(vector_keys) {
        written.insert(key.clone());
        let Some(relation) = record else { continue };
        let owner = GraphKey::Relation(key.clone());
        let list = paging::whole_chunk_list(from, &owner).await.map_err(CopyError::Source)?;
        match usable(vector) {
            Some(vector) => {
                let content = relation_vector_content(&relation.key, &relation.keywords, &relation.description);
                changes.vectors.push(VectorRecord { kind: VectorKind::Relation, key: vector_key, content, vector });
            }
            None => *missing_vectors += 1,
        }
        changes.relations.push(relation);
        changes.chunk_lists.push((owner, ChunkListEdit::Replace(list)));
        added += 1;
    }
    Ok(added)
}
