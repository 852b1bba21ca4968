//! Provenance: where an entity or a relation comes from — the chunks it cites (`source_ids`),
//! their documents, and what extraction stated about it in each chunk.
//!
//! [`Engine::entity_sources`] and [`Engine::relation_sources`] read the graph record, its chunks
//! (chunks deleted since are skipped), the documents' status rows and the chunks' extraction
//! records. Chunks come grouped by document — documents in the order they first appear in
//! `source_ids` (the order they were merged) — and by position within a document. Only the first
//! `limit` chunks are returned with their text; `documents` and `total_chunks` cover them all.
//!
//! Errors: [`EngineError::NotFound`] when the entity or relation does not exist.

use std::collections::HashMap;

use lightrag_ports::{Chunk, ChunkExtraction, DocStatus, Entity, RelKey, Relation, Store};
use serde::Serialize;

use crate::engine::Engine;
use crate::error::{EngineError, Result};

/// What one chunk's extraction said about an entity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntityMention {
    /// Type as extracted.
    pub entity_type: String,
    /// Description as extracted from this chunk.
    pub description: String,
    /// The name this chunk wrote, when a merge renamed it to the entity's (see
    /// [`Engine::unmerge_entity`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_as: Option<String>,
}

/// What one chunk's extraction said about a relation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationMention {
    /// Keywords as extracted.
    pub keywords: String,
    /// Description as extracted from this chunk.
    pub description: String,
    /// Weight as extracted.
    pub weight: f64,
}

/// A document that contributed chunks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceDocument {
    /// Document id.
    pub doc_id: String,
    /// Its file path (from its status row, else from its chunks).
    pub file_path: String,
    /// Its status, `None` when the status row is gone.
    pub status: Option<DocStatus>,
    /// Its chunks among the sources, in document order.
    pub chunk_ids: Vec<String>,
}

/// One source chunk and what its extraction said.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceChunk<M> {
    /// The chunk.
    pub chunk: Chunk,
    /// The extraction records' statements about the entity or relation (empty when there is no
    /// such record, e.g. for an entity created by hand).
    pub extracted: Vec<M>,
}

/// The sources of an entity or a relation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sources<M> {
    /// Source chunks that still exist (before `limit`).
    pub total_chunks: usize,
    /// Their documents.
    pub documents: Vec<SourceDocument>,
    /// The first `limit` chunks, by document then position.
    pub chunks: Vec<SourceChunk<M>>,
}

/// An entity and its sources.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntitySources {
    /// The entity.
    pub entity: Entity,
    /// Its sources.
    pub sources: Sources<EntityMention>,
}

/// A relation and its sources.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationSources {
    /// The relation (its key is sorted; relations are undirected).
    pub relation: Relation,
    /// Its sources.
    pub sources: Sources<RelationMention>,
}

impl Engine {
    /// The sources of the entity `name` (exact name), at most `limit` chunks with their text.
    pub async fn entity_sources(&self, name: &str, limit: usize) -> Result<EntitySources> {
        let store = self.inner.store.as_ref();
        let entity = store
            .get_entities(&[name.to_string()])
            .await?
            .into_iter()
            .flatten()
            .next()
            .ok_or_else(|| EngineError::NotFound(format!("Entity '{name}' does not exist")))?;
        let sources = collect(store, &entity.source_ids, limit, |x| entity_mentions(x, &entity.name)).await?;
        Ok(EntitySources { entity, sources })
    }

    /// The sources of the relation between `a` and `b` (either direction), at most `limit`
    /// chunks with their text.
    pub async fn relation_sources(&self, a: &str, b: &str, limit: usize) -> Result<RelationSources> {
        let store = self.inner.store.as_ref();
        let key = RelKey::new(a, b);
        let relation = store
            .get_relations(std::slice::from_ref(&key))
            .await?
            .into_iter()
            .flatten()
            .next()
            .ok_or_else(|| EngineError::NotFound(format!("Relation between '{a}' and '{b}' does not exist")))?;
        let sources = collect(store, &relation.source_ids, limit, |x| relation_mentions(x, &key)).await?;
        Ok(RelationSources { relation, sources })
    }
}

/// Reads the chunks `ids`, their documents and (for the first `limit`) their extraction
/// records, keeping what `mentions` picks out of each record.
async fn collect<M>(
    store: &dyn Store,
    ids: &[String],
    limit: usize,
    mentions: impl Fn(&ChunkExtraction) -> Vec<M>,
) -> Result<Sources<M>> {
    let chunks = arrange(store.get_chunks(ids).await?.into_iter().flatten().collect());
    let mut documents: Vec<SourceDocument> = Vec::new();
    for chunk in &chunks {
        match documents.last_mut() {
            Some(doc) if doc.doc_id == chunk.doc_id => doc.chunk_ids.push(chunk.id.clone()),
            _ => documents.push(SourceDocument {
                doc_id: chunk.doc_id.clone(),
                file_path: chunk.file_path.clone(),
                status: None,
                chunk_ids: vec![chunk.id.clone()],
            }),
        }
    }
    for doc in &mut documents {
        if let Some(row) = store.get_doc_status(&doc.doc_id).await? {
            doc.status = Some(row.status);
            doc.file_path = row.file_path;
        }
    }
    let total_chunks = chunks.len();
    let shown: Vec<Chunk> = chunks.into_iter().take(limit).collect();
    let shown_ids: Vec<String> = shown.iter().map(|c| c.id.clone()).collect();
    let mut by_chunk: HashMap<String, Vec<M>> = HashMap::new();
    for record in store.get_extractions(&shown_ids).await? {
        by_chunk.entry(record.chunk_id.clone()).or_default().extend(mentions(&record));
    }
    let chunks = shown
        .into_iter()
        .map(|chunk| {
            let extracted = by_chunk.remove(&chunk.id).unwrap_or_default();
            SourceChunk { chunk, extracted }
        })
        .collect();
    Ok(Sources { total_chunks, documents, chunks })
}

/// `chunks` grouped by document (documents in order of first appearance) and sorted by
/// position within each; a chunk listed twice is kept once.
pub fn arrange(chunks: Vec<Chunk>) -> Vec<Chunk> {
    let mut rank: HashMap<String, usize> = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<Chunk> = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        if seen.insert(chunk.id.clone()) {
            let next = rank.len();
            rank.entry(chunk.doc_id.clone()).or_insert(next);
            kept.push(chunk);
        }
    }
    kept.sort_by_key(|c| (rank.get(&c.doc_id).copied().unwrap_or(usize::MAX), c.order));
    kept
}

/// The statements of `record` about the entity `name` (exact match).
pub fn entity_mentions(record: &ChunkExtraction, name: &str) -> Vec<EntityMention> {
    record
        .entities
        .iter()
        .filter(|e| e.name == name)
        .map(|e| EntityMention {
            entity_type: e.entity_type.clone(),
            description: e.description.clone(),
            written_as: e.written_as.clone(),
        })
        .collect()
}

/// The statements of `record` about the relation `key`, in either direction.
pub fn relation_mentions(record: &ChunkExtraction, key: &RelKey) -> Vec<RelationMention> {
    record
        .relations
        .iter()
        .filter(|r| RelKey::new(r.src.as_str(), r.tgt.as_str()) == *key)
        .map(|r| RelationMention { keywords: r.keywords.clone(), description: r.description.clone(), weight: r.weight })
        .collect()
}

#[cfg(test)]
mod tests {
    use lightrag_ports::{ExtractedEntity, ExtractedRelation};

    use super::*;

    fn chunk(id: &str, doc: &str, order: u32) -> Chunk {
        Chunk {
            id: id.into(),
            doc_id: doc.into(),
            order,
            tokens: 1,
            content: String::new(),
            file_path: format!("{doc}.txt"),
        }
    }

    #[test]
    fn chunks_are_grouped_by_first_appearing_document_then_position() {
        let got = arrange(vec![
            chunk("b-2", "b", 2),
            chunk("a-1", "a", 1),
            chunk("b-0", "b", 0),
            chunk("a-0", "a", 0),
            chunk("b-2", "b", 2),
        ]);
        let ids: Vec<&str> = got.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["b-0", "b-2", "a-0", "a-1"]);
    }

    #[test]
    fn mentions_match_names_exactly_and_relations_either_way() {
        let record = ChunkExtraction {
            chunk_id: "c".into(),
            doc_id: "d".into(),
            entities: vec![
                ExtractedEntity {
                    name: "Alice".into(),
                    entity_type: "person".into(),
                    description: "A.".into(),
                    written_as: None,
                },
                ExtractedEntity {
                    name: "alice".into(),
                    entity_type: "person".into(),
                    description: "a.".into(),
                    written_as: None,
                },
            ],
            relations: vec![ExtractedRelation {
                src: "Bob".into(),
                tgt: "Alice".into(),
                keywords: "friends".into(),
                description: "Know each other.".into(),
                weight: 2.0,
                src_written_as: None,
                tgt_written_as: None,
            }],
            cache_keys: vec![],
            created_at: 0,
            folded_relations: Vec::new(),
        };
        assert_eq!(
            entity_mentions(&record, "Alice"),
            vec![EntityMention { entity_type: "person".into(), description: "A.".into(), written_as: None }]
        );
        assert!(entity_mentions(&record, "Carol").is_empty());
        let mentions = relation_mentions(&record, &RelKey::new("Alice", "Bob"));
        assert_eq!(mentions.len(), 1);
        assert_eq!(mentions[0].weight, 2.0);
        assert!(relation_mentions(&record, &RelKey::new("Alice", "Carol")).is_empty());
    }
}
