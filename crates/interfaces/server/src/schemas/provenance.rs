//! Answers of the provenance routes (`/graph/entity/sources`, `/graph/relation/sources`; ours,
//! beyond LightRAG). These types are what the handlers serialise, so the OpenAPI document cannot
//! drift from the responses.

use lightrag_engine::retrieval::provenance::{
    EntityMention, EntitySources, RelationMention, RelationSources, SourceChunk, SourceDocument, Sources,
};
use serde::Serialize;
use utoipa::ToSchema;

/// A document that contributed source chunks.
#[derive(Debug, Serialize, ToSchema)]
pub struct SourceDocumentInfo {
    /// Document id.
    pub doc_id: String,
    /// The document's file path.
    pub file_path: String,
    /// `pending`, `processing`, `processed` or `failed`; null when the status row is gone.
    pub status: Option<String>,
    /// Its chunks among the sources (all of them, not only those under `limit`), in order.
    pub chunk_ids: Vec<String>,
}

impl From<SourceDocument> for SourceDocumentInfo {
    fn from(d: SourceDocument) -> Self {
        Self {
            doc_id: d.doc_id,
            file_path: d.file_path,
            status: d.status.map(|s| s.as_str().to_string()),
            chunk_ids: d.chunk_ids,
        }
    }
}

/// What extraction found for the entity in one chunk.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntityExtracted {
    /// Type as extracted.
    pub entity_type: String,
    /// Description as extracted from this chunk.
    pub description: String,
    /// The name this chunk wrote, when the entity was merged from it (`lightrag graph aliases`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_as: Option<String>,
}

/// What extraction found for the relation in one chunk.
#[derive(Debug, Serialize, ToSchema)]
pub struct RelationExtracted {
    /// Comma-separated keywords as extracted.
    pub keywords: String,
    /// Description as extracted from this chunk.
    pub description: String,
    /// Weight as extracted.
    pub weight: f64,
}

/// One source chunk of an entity, with what extraction found for the entity in it.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntitySourceChunk {
    /// Chunk id.
    pub chunk_id: String,
    /// Its document.
    pub doc_id: String,
    /// The document's file path.
    pub file_path: String,
    /// Position in the document, from 0.
    pub chunk_order_index: u32,
    /// Token count.
    pub tokens: u32,
    /// The chunk's text.
    pub content: String,
    /// What extraction found for the entity in this chunk (exact name; empty when the chunk has
    /// no such record, e.g. an entity created by hand).
    pub extracted: Vec<EntityExtracted>,
}

/// One source chunk of a relation, with what extraction found for the relation in it.
#[derive(Debug, Serialize, ToSchema)]
pub struct RelationSourceChunk {
    /// Chunk id.
    pub chunk_id: String,
    /// Its document.
    pub doc_id: String,
    /// The document's file path.
    pub file_path: String,
    /// Position in the document, from 0.
    pub chunk_order_index: u32,
    /// Token count.
    pub tokens: u32,
    /// The chunk's text.
    pub content: String,
    /// What extraction found for the relation in this chunk (either direction; empty when the
    /// chunk has no such record).
    pub extracted: Vec<RelationExtracted>,
}

/// Builds a chunk answer from an engine [`SourceChunk`] (same fields for both kinds).
macro_rules! chunk_answer {
    ($ty:ident, $c:expr) => {{
        let c = $c;
        $ty {
            chunk_id: c.chunk.id,
            doc_id: c.chunk.doc_id,
            file_path: c.chunk.file_path,
            chunk_order_index: c.chunk.order,
            tokens: c.chunk.tokens,
            content: c.chunk.content,
            extracted: c.extracted.into_iter().map(Into::into).collect(),
        }
    }};
}

impl From<SourceChunk<EntityMention>> for EntitySourceChunk {
    fn from(c: SourceChunk<EntityMention>) -> Self {
        chunk_answer!(EntitySourceChunk, c)
    }
}

impl From<SourceChunk<RelationMention>> for RelationSourceChunk {
    fn from(c: SourceChunk<RelationMention>) -> Self {
        chunk_answer!(RelationSourceChunk, c)
    }
}

impl From<EntityMention> for EntityExtracted {
    fn from(m: EntityMention) -> Self {
        Self { entity_type: m.entity_type, description: m.description, written_as: m.written_as }
    }
}

impl From<RelationMention> for RelationExtracted {
    fn from(m: RelationMention) -> Self {
        Self { keywords: m.keywords, description: m.description, weight: m.weight }
    }
}

/// `GET /graph/entity/sources`.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntitySourcesResponse {
    /// The entity's name.
    pub entity_name: String,
    /// Its type.
    pub entity_type: String,
    /// Its merged description.
    pub description: String,
    /// Source chunks that still exist (before `limit`).
    pub total_chunks: usize,
    /// Documents of those chunks, in the order they first contributed.
    pub documents: Vec<SourceDocumentInfo>,
    /// At most `limit` chunks, by document then position.
    pub chunks: Vec<EntitySourceChunk>,
}

/// `GET /graph/relation/sources`.
#[derive(Debug, Serialize, ToSchema)]
pub struct RelationSourcesResponse {
    /// One end (the smaller name: relations are undirected).
    pub source_entity: String,
    /// The other end.
    pub target_entity: String,
    /// Merged, comma-separated keywords.
    pub keywords: String,
    /// Merged description.
    pub description: String,
    /// Source chunks that still exist (before `limit`).
    pub total_chunks: usize,
    /// Documents of those chunks, in the order they first contributed.
    pub documents: Vec<SourceDocumentInfo>,
    /// At most `limit` chunks, by document then position.
    pub chunks: Vec<RelationSourceChunk>,
}

/// `(total_chunks, documents, chunks)` of an engine [`Sources`].
fn parts<M, C: From<SourceChunk<M>>>(s: Sources<M>) -> (usize, Vec<SourceDocumentInfo>, Vec<C>) {
    (s.total_chunks, s.documents.into_iter().map(Into::into).collect(), s.chunks.into_iter().map(C::from).collect())
}

impl From<EntitySources> for EntitySourcesResponse {
    fn from(s: EntitySources) -> Self {
        let (total_chunks, documents, chunks) = parts(s.sources);
        Self {
            entity_name: s.entity.name,
            entity_type: s.entity.entity_type,
            description: s.entity.description,
            total_chunks,
            documents,
            chunks,
        }
    }
}

impl From<RelationSources> for RelationSourcesResponse {
    fn from(s: RelationSources) -> Self {
        let (total_chunks, documents, chunks) = parts(s.sources);
        Self {
            source_entity: s.relation.key.src,
            target_entity: s.relation.key.tgt,
            keywords: s.relation.keywords,
            description: s.relation.description,
            total_chunks,
            documents,
            chunks,
        }
    }
}
