//! Vector search and one-hop graph expansion per mode (§6.2), with batched store reads: one
//! search per index, then at most two rounds of graph reads whatever the number of hits.

use std::collections::{HashMap, HashSet};

use lightrag_ports::{Entity, RelKey, Relation, Store, StoreError, VectorHit, VectorKind, VectorRecord};

use super::chunks::round_robin;
use super::trace::{HitScores, first_scores};
use crate::order::dedup_in_order;

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
}

/// Search settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchLimits {
    pub top_k: usize,
    pub chunk_top_k: usize,
    pub min_score: f32,
}

async fn search(
    store: &dyn Store,
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
    store: &dyn Store,
    query: &[f32],
    top_k: usize,
    min_score: f32,
) -> Result<Vec<VectorHit>, StoreError> {
    let hits = store.search_vectors(VectorKind::Chunk, query, top_k, min_score).await?;
    let mut seen = HashSet::new();
    Ok(hits.into_iter().filter(|h| seen.insert(h.key.clone())).collect())
}

/// Runs the searches of `plan` and expands the hits one hop in the graph.
pub(crate) async fn graph_search(
    store: &dyn Store,
    plan: SearchPlan,
    vectors: &QueryVectors,
    limits: SearchLimits,
) -> Result<GraphHits, StoreError> {
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
    // Round 2: hit records and the local neighbourhood.
    let (local_found, neighbourhood, global_found) = futures::try_join!(
        get_entities(store, &local_names),
        relations_of(store, &local_names),
        get_relations(store, &global_keys),
    )?;
    let local_entities: Vec<Entity> = local_found.into_iter().flatten().collect();
    let global_relations: Vec<Relation> = global_found.into_iter().flatten().collect();
    let local_relations = incident_edges(&local_entities, neighbourhood);

    let fetched: HashSet<&str> = local_names.iter().map(String::as_str).collect();
    let endpoint_names = dedup_in_order(global_relations.iter().flat_map(|r| [r.key.src.clone(), r.key.tgt.clone()]));
    let missing: Vec<String> = endpoint_names.iter().filter(|n| !fetched.contains(n.as_str())).cloned().collect();
    let degree_names = dedup_in_order(local_relations.iter().flat_map(|r| [r.key.src.clone(), r.key.tgt.clone()]));
    // Round 3: endpoints of global hits, degrees for ranking local edges.
    let (more_entities, degrees) =
        futures::try_join!(get_entities(store, &missing), node_degrees(store, &degree_names))?;
    let degree_of: HashMap<&str, usize> =
        degree_names.iter().map(String::as_str).zip(degrees.iter().copied()).collect();
    let local_relations = rank_edges(local_relations, &degree_of);

    let mut by_name: HashMap<&str, &Entity> = local_entities.iter().map(|e| (e.name.as_str(), e)).collect();
    let more: Vec<Entity> = more_entities.into_iter().flatten().collect();
    for e in &more {
        by_name.insert(e.name.as_str(), e);
    }
    let global_entities: Vec<Entity> =
        endpoint_names.iter().filter_map(|n| by_name.get(n.as_str()).map(|e| (*e).clone())).collect();

    let entities = round_robin(vec![local_entities, global_entities], |e| e.name.clone());
    let relations = round_robin(vec![local_relations, global_relations], |r| r.key.clone());
    let vector_chunks = chunk_hits.into_iter().map(|h| h.key).collect();
    Ok(GraphHits { entities, relations, vector_chunks, scores })
}

async fn get_entities(store: &dyn Store, names: &[String]) -> Result<Vec<Option<Entity>>, StoreError> {
    if names.is_empty() { Ok(Vec::new()) } else { store.get_entities(names).await }
}

async fn get_relations(store: &dyn Store, keys: &[RelKey]) -> Result<Vec<Option<Relation>>, StoreError> {
    if keys.is_empty() { Ok(Vec::new()) } else { store.get_relations(keys).await }
}

async fn relations_of(store: &dyn Store, names: &[String]) -> Result<Vec<Relation>, StoreError> {
    if names.is_empty() { Ok(Vec::new()) } else { store.relations_of(names).await }
}

async fn node_degrees(store: &dyn Store, names: &[String]) -> Result<Vec<usize>, StoreError> {
    if names.is_empty() { Ok(Vec::new()) } else { store.node_degrees(names).await }
}

/// The edges touching `nodes`, grouped by node in node order, each edge once.
pub(crate) fn incident_edges(nodes: &[Entity], edges: Vec<Relation>) -> Vec<Relation> {
    let mut by_node: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in edges.iter().enumerate() {
        by_node.entry(r.key.src.as_str()).or_default().push(i);
        if r.key.tgt != r.key.src {
            by_node.entry(r.key.tgt.as_str()).or_default().push(i);
        }
    }
    let mut taken = vec![false; edges.len()];
    let mut order = Vec::new();
    for node in nodes {
        for &i in by_node.get(node.name.as_str()).map(Vec::as_slice).unwrap_or(&[]) {
            if !taken[i] {
                taken[i] = true;
                order.push(i);
            }
        }
    }
    let mut slots: Vec<Option<Relation>> = edges.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Sorts edges by edge degree (sum of the endpoint degrees), then weight, both descending; ties
/// keep their order.
pub(crate) fn rank_edges(mut edges: Vec<Relation>, degree_of: &HashMap<&str, usize>) -> Vec<Relation> {
    let degree = |r: &Relation| {
        degree_of.get(r.key.src.as_str()).copied().unwrap_or(0)
            + degree_of.get(r.key.tgt.as_str()).copied().unwrap_or(0)
    };
    edges.sort_by(|a, b| degree(b).cmp(&degree(a)).then(b.weight.total_cmp(&a.weight)));
    edges
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn entity(name: &str) -> Entity {
        Entity {
            name: name.into(),
            entity_type: "t".into(),
            description: String::new(),
            source_ids: vec![],
            chunk_ids: vec![],
            file_paths: vec![],
            created_at: 0,
            truncate: String::new(),
            version: 1,
        }
    }

    fn rel(a: &str, b: &str, weight: f64) -> Relation {
        Relation {
            key: RelKey::new(a, b),
            weight,
            keywords: String::new(),
            description: String::new(),
            source_ids: vec![],
            chunk_ids: vec![],
            file_paths: vec![],
            created_at: 0,
            truncate: String::new(),
            version: 1,
        }
    }

    #[test]
    fn incident_edges_follow_node_order_once_each() {
        let nodes = [entity("B"), entity("A")];
        let edges = vec![rel("A", "C", 1.0), rel("A", "B", 1.0), rel("B", "D", 1.0), rel("X", "Y", 1.0)];
        let out: Vec<String> = incident_edges(&nodes, edges).iter().map(|r| r.key.to_string()).collect();
        assert_eq!(out, vec!["A -- B", "B -- D", "A -- C"]);
    }

    #[test]
    fn edges_rank_by_degree_then_weight() {
        let degrees: HashMap<&str, usize> = [("A", 3), ("B", 1), ("C", 1), ("D", 2)].into();
        let edges = vec![rel("B", "C", 9.0), rel("A", "B", 1.0), rel("A", "C", 2.0), rel("C", "D", 5.0)];
        let out: Vec<String> = rank_edges(edges, &degrees).iter().map(|r| r.key.to_string()).collect();
        assert_eq!(out, vec!["A -- C", "A -- B", "C -- D", "B -- C"]);
    }
}
