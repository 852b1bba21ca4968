//! Vector search and one-hop graph expansion per mode (§6.2), with batched store reads: one
//! search per index, two rounds of record reads whatever the number of hits, then the local
//! neighbourhood — only its best relations, ranked by the store ([`GraphReads::ranked_relations_of`](lightrag_ports::GraphReads::ranked_relations_of)),
//! never every edge of a much-connected entity.

use std::collections::{HashMap, HashSet};

use lightrag_ports::{
    Entity, RankedRelations, RelKey, Relation, RetrievalStore, StoreError, VectorHit, VectorKind, VectorRecord,
};

use super::chunks::round_robin;
use super::trace::{HitScores, first_scores};
use crate::indexing::order::dedup_in_order;

/// Which searches a graph query runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SearchPlan {
    /// Search the entity index with the low-level keywords.
    pub local: bool,
    /// Search the relation index with the high-level keywords.
    pub global: bool,
    /// Search the chunk index with the raw query (mix mode).
    pub vector_chunks: bool,
}

/// Query vectors of a graph query.
#[derive(Debug, Clone, Default)]
pub(crate) struct QueryVectors {
    /// The raw question.
    pub query: Option<Vec<f32>>,
    /// Low-level keywords joined with `, `.
    pub low: Option<Vec<f32>>,
    /// High-level keywords joined with `, `.
    pub high: Option<Vec<f32>>,
}

/// What the graph search found, in final order.
#[derive(Debug, Clone, Default)]
pub(crate) struct GraphHits {
    /// Entities: local hits and global endpoints interleaved.
    pub entities: Vec<Entity>,
    /// Relations: local neighbourhood and global hits interleaved.
    pub relations: Vec<Relation>,
    /// Chunk ids from the chunk index (mix mode), best first.
    pub vector_chunks: Vec<String>,
    /// Similarities of the vector hits (for the trace).
    pub scores: HitScores,
    /// The local neighbourhood's relations among `relations` (the best `edge_limit` of them).
    pub local_relations: Vec<RelKey>,
    /// Whether `local_relations` holds every relation of the local entities.
    pub local_complete: bool,
    /// Relations found in all: the whole neighbourhood and the global hits, each once.
    pub total_relations: usize,
}

/// Search settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchLimits {
    pub top_k: usize,
    pub chunk_top_k: usize,
    pub min_score: f32,
}

/// The vector hits and their records, before the local neighbourhood is expanded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Found {
    local_entities: Vec<Entity>,
    global_relations: Vec<Relation>,
    /// Global endpoints that are not local hits, fetched.
    more_entities: Vec<Entity>,
    endpoint_names: Vec<String>,
    vector_chunks: Vec<String>,
    scores: HitScores,
}

impl Found {
    /// Whether nothing at all was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.local_entities.is_empty() && self.global_relations.is_empty() && self.vector_chunks.is_empty()
    }
}

async fn search(
    store: &dyn RetrievalStore,
    kind: VectorKind,
    vector: Option<&Vec<f32>>,
    top_k: usize,
    min_score: f32,
) -> Result<Vec<VectorHit>, StoreError> {
    match vector {
        Some(v) => store.search_vectors(kind, v, top_k, min_score).await,
        None => Ok(Vec::new()),
    }
}

/// The chunk hits most similar to the query (naive and mix modes), best first, each id once.
pub(crate) async fn vector_chunks(
    store: &dyn RetrievalStore,
    query: &[f32],
    top_k: usize,
    min_score: f32,
) -> Result<Vec<VectorHit>, StoreError> {
    let hits = store.search_vectors(VectorKind::Chunk, query, top_k, min_score).await?;
    let mut seen = HashSet::new();
    Ok(hits.into_iter().filter(|h| seen.insert(h.key.clone())).collect())
}

/// Runs the searches of `plan` and reads the hits' records (two rounds of store reads).
pub(crate) async fn find(
    store: &dyn RetrievalStore,
    plan: SearchPlan,
    vectors: &QueryVectors,
    limits: SearchLimits,
) -> Result<Found, StoreError> {
    let local_vec = vectors.low.as_ref().filter(|_| plan.local);
    let global_vec = vectors.high.as_ref().filter(|_| plan.global);
    let chunk_vec = vectors.query.as_ref().filter(|_| plan.vector_chunks);
    // Round 1: the three vector searches.
    let (entity_hits, relation_hits, chunk_hits) = futures::try_join!(
        search(store, VectorKind::Entity, local_vec, limits.top_k, limits.min_score),
        search(store, VectorKind::Relation, global_vec, limits.top_k, limits.min_score),
        async {
            match chunk_vec {
                Some(v) => vector_chunks(store, v, limits.chunk_top_k, limits.min_score).await,
                None => Ok(Vec::new()),
            }
        },
    )?;
    let scores = HitScores {
        entities: first_scores(&entity_hits, |k| Some(k.to_string())),
        relations: first_scores(&relation_hits, VectorRecord::parse_relation_key),
        chunks: first_scores(&chunk_hits, |k| Some(k.to_string())),
    };
    let local_names = dedup_in_order(entity_hits.into_iter().map(|h| h.key));
    let global_keys: Vec<RelKey> = {
        let mut seen = HashSet::new();
        relation_hits
            .iter()
            .filter_map(|h| VectorRecord::parse_relation_key(&h.key))
            .filter(|k| seen.insert(k.clone()))
            .collect()
    };
    // Round 2: the hits' records, and the global hits' endpoints that are not local hits.
    let (local_found, global_found) =
        futures::try_join!(get_entities(store, &local_names), get_relations(store, &global_keys))?;
    let local_entities: Vec<Entity> = local_found.into_iter().flatten().collect();
    let global_relations: Vec<Relation> = global_found.into_iter().flatten().collect();
    let fetched: HashSet<&str> = local_names.iter().map(String::as_str).collect();
    let endpoint_names = dedup_in_order(global_relations.iter().flat_map(|r| [r.key.src.clone(), r.key.tgt.clone()]));
    let missing: Vec<String> = endpoint_names.iter().filter(|n| !fetched.contains(n.as_str())).cloned().collect();
    let more_entities = get_entities(store, &missing).await?.into_iter().flatten().collect();
    let vector_chunks = chunk_hits.into_iter().map(|h| h.key).collect();
    Ok(Found { local_entities, global_relations, more_entities, endpoint_names, vector_chunks, scores })
}

/// Expands the local hits one hop — their best `edge_limit` relations, ranked by the store
/// (edge degree, then weight) — and interleaves local and global records.
pub(crate) async fn expand(
    store: &dyn RetrievalStore,
    found: &Found,
    edge_limit: usize,
) -> Result<GraphHits, StoreError> {
    let local_names: Vec<String> = found.local_entities.iter().map(|e| e.name.clone()).collect();
    let ranked = if local_names.is_empty() {
        RankedRelations::default()
    } else {
        store.ranked_relations_of(&local_names, edge_limit).await?
    };
    let local_complete = ranked.relations.len() >= ranked.total;
    let local: HashSet<&str> = local_names.iter().map(String::as_str).collect();
    let global_only = found
        .global_relations
        .iter()
        .filter(|r| !local.contains(r.key.src.as_str()) && !local.contains(r.key.tgt.as_str()))
        .count();
    let total_relations = ranked.total + global_only;
    let local_relations: Vec<RelKey> = ranked.relations.iter().map(|r| r.key.clone()).collect();

    let mut by_name: HashMap<&str, &Entity> = found.local_entities.iter().map(|e| (e.name.as_str(), e)).collect();
    for e in &found.more_entities {
        by_name.insert(e.name.as_str(), e);
    }
    let global_entities: Vec<Entity> =
        found.endpoint_names.iter().filter_map(|n| by_name.get(n.as_str()).map(|e| (*e).clone())).collect();
    let entities = round_robin(vec![found.local_entities.clone(), global_entities], |e| e.name.clone());
    let relations = round_robin(vec![ranked.relations, found.global_relations.clone()], |r| r.key.clone());
    Ok(GraphHits {
        entities,
        relations,
        vector_chunks: found.vector_chunks.clone(),
        scores: found.scores.clone(),
        local_relations,
        local_complete,
        total_relations,
    })
}

async fn get_entities(store: &dyn RetrievalStore, names: &[String]) -> Result<Vec<Option<Entity>>, StoreError> {
    if names.is_empty() { Ok(Vec::new()) } else { store.get_entities(names).await }
}

async fn get_relations(store: &dyn RetrievalStore, keys: &[RelKey]) -> Result<Vec<Option<Relation>>, StoreError> {
    if keys.is_empty() { Ok(Vec::new()) } else { store.get_relations(keys).await }
}
