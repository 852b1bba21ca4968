//! Whether LightRAG's stored vectors can be kept, and the vector of each imported record.
//!
//! LightRAG does not record which embedding model made its vectors. They are kept when the
//! dimension is the configured one **and** re-embedding a few stored texts with the configured
//! embedder gives (almost) the stored vectors; otherwise every vector is made again. A stored
//! vector holding NaN, infinite values or only zeros is never kept (nor used as a sample): no
//! search can use it, so it is made again like an unreadable one.

use std::collections::HashMap;

use lightrag_engine::Engine;
use lightrag_engine::indexing::merge::{entity_vector_content, relation_vector_content};
use lightrag_engine::retrieval::query::chunks::cosine;
use lightrag_ports::{Entity, RelKey, Relation, TextKind, VectorKind, VectorRecord};
use serde::Serialize;

use crate::error::ImportError;
use crate::load::LightragData;
use crate::source::vdb::VectorFile;

/// Smallest cosine between a stored vector and our embedding of its text for the stored vectors
/// to be kept (float16/float32 rounding and batching noise stay far above it; another model of
/// the same dimension falls far below).
pub const MIN_COSINE: f32 = 0.99;

/// Stored texts re-embedded for the check.
const SAMPLE: usize = 4;

/// A stored vector and the text it was made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The embedded text.
    pub content: String,
    /// The vector.
    pub vector: Vec<f32>,
}

/// LightRAG's vectors by our keys.
#[derive(Debug, Default)]
pub struct StoredVectors {
    /// Dimension of the files (the first one that says).
    pub dim: Option<usize>,
    /// Entity vectors by name.
    pub entities: HashMap<String, Stored>,
    /// Relation vectors by key.
    pub relations: HashMap<RelKey, Stored>,
    /// Chunk vectors by chunk id.
    pub chunks: HashMap<String, Stored>,
    /// Records whose vector could not be read.
    pub unreadable: usize,
    /// Records whose vector holds NaN, infinite values or only zeros (refused), with the first
    /// few keys.
    pub unusable: Unusable,
}

/// Stored vectors refused for holding NaN, infinite values or only zeros.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unusable {
    /// How many.
    pub count: usize,
    /// The `__id__` of the first [`NAMED`].
    pub named: Vec<String>,
}

/// Keys of refused vectors named in the report.
const NAMED: usize = 5;

fn rows(
    file: &VectorFile,
    unusable: &mut Unusable,
    mut key: impl FnMut(&crate::source::vdb::VectorRow) -> Option<String>,
) -> Vec<(String, Stored)> {
    file.rows
        .iter()
        .filter_map(|r| {
            let vector = r.vector.clone()?;
            if !lightrag_ports::is_usable(&vector) {
                unusable.count += 1;
                if unusable.named.len() < NAMED {
                    unusable.named.push(r.id.clone());
                }
                return None;
            }
            let k = key(r)?;
            Some((k, Stored { content: r.field("content").unwrap_or_default().to_string(), vector }))
        })
        .collect()
}

/// Collects the three vector files under our keys.
pub fn stored_vectors(data: &LightragData) -> StoredVectors {
    let dim = data.vdb_chunks.dim.or(data.vdb_entities.dim).or(data.vdb_relationships.dim);
    let mut unusable = Unusable::default();
    let entities =
        rows(&data.vdb_entities, &mut unusable, |r| r.field("entity_name").map(str::to_string)).into_iter().collect();
    let relations = rows(&data.vdb_relationships, &mut unusable, |r| {
        Some(VectorRecord::relation_key(&RelKey::new(r.field("src_id")?, r.field("tgt_id")?)))
    })
    .into_iter()
    .filter_map(|(k, v)| VectorRecord::parse_relation_key(&k).map(|key| (key, v)))
    .collect();
    let chunks =
        rows(&data.vdb_chunks, &mut unusable, |r| (!r.id.is_empty()).then(|| r.id.clone())).into_iter().collect();
    StoredVectors {
        dim,
        entities,
        relations,
        chunks,
        unreadable: data.vdb_chunks.unreadable + data.vdb_entities.unreadable + data.vdb_relationships.unreadable,
        unusable,
    }
}

/// The decision about LightRAG's vectors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VectorCheck {
    /// Dimension of LightRAG's vectors (`None`: no vector file).
    pub lightrag_dim: Option<usize>,
    /// The configured embedding model.
    pub model: String,
    /// Its dimension.
    pub dim: usize,
    /// Cosines of the re-embedded samples with their stored vectors.
    pub sample_cosines: Vec<f32>,
    /// Whether the stored vectors are kept.
    pub reuse: bool,
    /// Why.
    pub reason: String,
}

/// Decides whether the stored vectors can be kept (embeds up to [`SAMPLE`] stored texts).
pub async fn check(engine: &Engine, stored: &StoredVectors) -> Result<VectorCheck, ImportError> {
    let identity = engine.embedding_identity();
    let mut out = VectorCheck {
        lightrag_dim: stored.dim,
        model: identity.model.clone(),
        dim: identity.dim,
        sample_cosines: Vec::new(),
        reuse: false,
        reason: String::new(),
    };
    let Some(dim) = stored.dim else {
        out.reason = "LightRAG's vector files are missing: every vector is made with the configured embedder".into();
        return Ok(out);
    };
    if dim != identity.dim {
        out.reason = format!(
            "LightRAG's vectors have dimension {dim}, the configured embedder ('{}') {}: every vector is made again",
            identity.model, identity.dim
        );
        return Ok(out);
    }
    // a few samples of each kind, in a fixed order
    // (each embedded as its set's texts are: a chunk as a passage, the others as descriptions)
    let mut samples: Vec<(TextKind, &Stored)> = Vec::new();
    let mut chunk_keys: Vec<&String> = stored.chunks.keys().collect();
    chunk_keys.sort();
    let passage = |s| (TextKind::of(VectorKind::Chunk), s);
    samples.extend(chunk_keys.iter().take(SAMPLE / 2).filter_map(|k| stored.chunks.get(*k)).map(passage));
    let description = |s| (TextKind::of(VectorKind::Entity), s);
    let mut entity_keys: Vec<&String> = stored.entities.keys().collect();
    entity_keys.sort();
    samples.extend(entity_keys.first().and_then(|k| stored.entities.get(*k)).map(description));
    let mut relation_keys: Vec<&RelKey> = stored.relations.keys().collect();
    relation_keys.sort();
    samples.extend(relation_keys.first().and_then(|k| stored.relations.get(*k)).map(description));
    samples.retain(|(_, s)| !s.content.is_empty());
    if samples.is_empty() {
        out.reason = "LightRAG's vector files hold no usable record: every vector is made again".into();
        return Ok(out);
    }
    let texts: Vec<(TextKind, String)> = samples.iter().map(|(k, s)| (*k, s.content.clone())).collect();
    let ours = engine.embed_each(&texts).await?;
    out.sample_cosines = samples.iter().zip(&ours).map(|((_, s), v)| cosine(&s.vector, v)).collect();
    // a NaN cosine is the worst (`f32::min` would skip it, and NaN never passes the bar)
    let worst = out
        .sample_cosines
        .iter()
        .copied()
        .fold(f32::INFINITY, |m, c| if m.is_nan() || c.is_nan() { f32::NAN } else { m.min(c) });
    out.reuse = worst >= MIN_COSINE;
    out.reason = if out.reuse {
        format!(
            "the configured embedder ('{}', dimension {dim}) reproduces LightRAG's vectors (lowest cosine {worst:.4} \
             over {} samples): they are kept",
            identity.model,
            texts.len()
        )
    } else {
        format!(
            "the configured embedder ('{}', dimension {dim}) does not reproduce LightRAG's vectors (lowest cosine \
             {worst:.4} < {MIN_COSINE}): LightRAG used another model, every vector is made again",
            identity.model
        )
    };
    Ok(out)
}

/// A vector to write: kept (`Some`) or to be made from `content` (`None`).
#[derive(Debug, Clone, PartialEq)]
pub struct Wanted {
    /// Which set.
    pub kind: VectorKind,
    /// Our key.
    pub key: String,
    /// The text embedded.
    pub content: String,
    /// The kept vector.
    pub vector: Option<Vec<f32>>,
}

/// The vector of an entity: the stored one when kept, else to be made from our text.
pub fn for_entity(stored: &StoredVectors, reuse: bool, e: &Entity) -> Wanted {
    let kept = stored.entities.get(&e.name).filter(|_| reuse);
    Wanted {
        kind: VectorKind::Entity,
        key: e.name.clone(),
        content: kept.map(|s| s.content.clone()).unwrap_or_else(|| entity_vector_content(&e.name, &e.description)),
        vector: kept.map(|s| s.vector.clone()),
    }
}

/// The vector of a relation.
pub fn for_relation(stored: &StoredVectors, reuse: bool, r: &Relation) -> Wanted {
    let kept = stored.relations.get(&r.key).filter(|_| reuse);
    Wanted {
        kind: VectorKind::Relation,
        key: VectorRecord::relation_key(&r.key),
        content: kept
            .map(|s| s.content.clone())
            .unwrap_or_else(|| relation_vector_content(&r.key, &r.keywords, &r.description)),
        vector: kept.map(|s| s.vector.clone()),
    }
}

/// The vector of a chunk.
pub fn for_chunk(stored: &StoredVectors, reuse: bool, chunk_id: &str, content: &str) -> Wanted {
    let kept = stored.chunks.get(chunk_id).filter(|_| reuse);
    Wanted {
        kind: VectorKind::Chunk,
        key: chunk_id.to_string(),
        content: kept.map(|s| s.content.clone()).unwrap_or_else(|| content.to_string()),
        vector: kept.map(|s| s.vector.clone()),
    }
}

/// Makes the missing vectors (one batched embedding call through the gateway) and returns the
/// records, and how many were embedded.
pub async fn resolve(engine: &Engine, wanted: Vec<Wanted>) -> Result<(Vec<VectorRecord>, usize), ImportError> {
    let texts: Vec<(TextKind, String)> =
        wanted.iter().filter(|w| w.vector.is_none()).map(|w| (TextKind::of(w.kind), w.content.clone())).collect();
    let embedded = texts.len();
    let mut made = engine.embed_each(&texts).await?.into_iter();
    let mut out = Vec::with_capacity(wanted.len());
    for w in wanted {
        let vector = match w.vector {
            Some(v) => v,
            None => made.next().ok_or_else(|| {
                ImportError::Engine(lightrag_engine::EngineError::Invalid(
                    "the embedder returned fewer vectors than asked for".into(),
                ))
            })?,
        };
        out.push(VectorRecord { kind: w.kind, key: w.key, content: w.content, vector });
    }
    Ok((out, embedded))
}
