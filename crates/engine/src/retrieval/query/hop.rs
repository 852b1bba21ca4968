//! The second hop of a bridge question, offline: from the passages the first hop ranks best to
//! the passages about the things those passages name.
//!
//! "Grace Krilanovich's first novel was published by a house founded in 2005, based where?": the
//! question finds Grace Krilanovich's passage, which names "Two Dollar Radio"; the passage that
//! answers is Two Dollar Radio's own, which shares few words with the question. The hop:
//!
//! 1. **Bridges**: the entities of the first [`PprConfig::hop_from`] passages (the graph's
//!    mentions), less the ones the question names itself, each once, in passage order. An entity
//!    with more than [`BRIDGE_CHUNKS`] passages is common ("United States"): a bridge to
//!    everywhere, left out.
//! 2. **Candidates**: each bridge's passages, less the first passages themselves.
//! 3. **Order**: by the similarity of the candidate's vector to the question — among the few
//!    passages a bridge leads to, the one the question is about comes first.
//!
//! The list is one more channel of the fusion ([`super::fused`]).
//!
//! [`PprConfig::hop_from`]: crate::config::PprConfig::hop_from

use std::collections::HashSet;

use lightrag_ports::{GraphKey, ListRange, RetrievalStore, VectorKind};

use crate::error::Result;

/// An entity mentioned in more passages than this is too common to be a bridge.
pub(crate) const BRIDGE_CHUNKS: usize = 10;

/// The bridges of a second hop: the entities of `from` (as `(chunk id, entity)` pairs, in any
/// order) in the order of the passages in `from`, then of their names; each once, without the
/// names in `named` (compared lower-cased).
pub(crate) fn bridges(from: &[String], owners: &[(String, GraphKey)], named: &[String]) -> Vec<String> {
    let named: HashSet<String> = named.iter().map(|n| n.to_lowercase()).collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for passage in from {
        let mut names: Vec<&str> = owners
            .iter()
            .filter(|(chunk, _)| chunk == passage)
            .filter_map(|(_, owner)| match owner {
                GraphKey::Entity(name) => Some(name.as_str()),
                GraphKey::Relation(_) => None,
            })
            .collect();
        names.sort_unstable();
        for name in names {
            if !named.contains(&name.to_lowercase()) && seen.insert(name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// The candidates of the bridges' passage lists (`lists[i]` belongs to the i-th bridge): the
/// passages not in `from`, each once, in bridge order; a list longer than [`BRIDGE_CHUNKS`] is a
/// common entity's and is skipped.
pub(crate) fn candidates(from: &[String], lists: &[Vec<String>]) -> Vec<String> {
    let first: HashSet<&str> = from.iter().map(String::as_str).collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for list in lists.iter().filter(|l| l.len() <= BRIDGE_CHUNKS) {
        for id in list {
            if !first.contains(id.as_str()) && seen.insert(id.as_str()) {
                out.push(id.clone());
            }
        }
    }
    out
}

/// The second hop from the passages `from`: up to `top_k` passages about the things they name,
/// most similar to the question first (see the module's description).
pub(crate) async fn second_hop(
    store: &dyn RetrievalStore,
    from: &[String],
    named: &[String],
    query_vector: &[f32],
    top_k: usize,
) -> Result<Vec<String>> {
    if from.is_empty() || top_k == 0 {
        return Ok(Vec::new());
    }
    let owners = store.chunk_owners(from).await?;
    let bridge_names = bridges(from, &owners, named);
    // one more than the limit tells a common entity from one at the limit
    let range = ListRange { from_end: false, offset: 0, limit: BRIDGE_CHUNKS + 1 };
    let keys: Vec<GraphKey> = bridge_names.into_iter().map(GraphKey::Entity).collect();
    let lists = store.chunk_lists(&keys, range).await?;
    let candidates = candidates(from, &lists);
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let similarities = store.similarities(VectorKind::Chunk, &candidates, query_vector).await?;
    let mut scored: Vec<(String, f32)> =
        candidates.into_iter().zip(similarities).filter_map(|(id, s)| s.map(|s| (id, s))).collect();
    // stable: equal similarities keep bridge order
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.truncate(top_k);
    Ok(scored.into_iter().map(|(id, _)| id).collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn owner(chunk: &str, entity: &str) -> (String, GraphKey) {
        (chunk.to_string(), GraphKey::Entity(entity.to_string()))
    }

    #[test]
    fn bridges_follow_the_first_passages_order_without_the_question_names() {
        let from = ids(&["c2", "c1"]);
        // chunk_owners sorts by chunk id: the hop reorders by the first hop's ranking
        let owners = vec![
            owner("c1", "Two Dollar Radio"),
            owner("c1", "Grace Krilanovich"),
            owner("c2", "Zed"),
            owner("c2", "Amazon"),
            owner("c9", "Elsewhere"),
            (
                "c1".to_string(),
                GraphKey::Relation(lightrag_ports::RelKey::new("Grace Krilanovich", "Two Dollar Radio")),
            ),
        ];
        let named = ids(&["grace krilanovich"]);
        assert_eq!(bridges(&from, &owners, &named), ids(&["Amazon", "Zed", "Two Dollar Radio"]));
    }

    #[test]
    fn candidates_skip_the_first_passages_and_common_entities() {
        let from = ids(&["c1"]);
        let common: Vec<String> = (0..=BRIDGE_CHUNKS).map(|i| format!("x{i}")).collect();
        let lists = vec![ids(&["c1", "c5"]), common, ids(&["c5", "c6"])];
        assert_eq!(candidates(&from, &lists), ids(&["c5", "c6"]));
        // a list exactly at the limit is still a bridge
        let at_limit: Vec<String> = (0..BRIDGE_CHUNKS).map(|i| format!("y{i}")).collect();
        assert_eq!(candidates(&from, std::slice::from_ref(&at_limit)), at_limit);
    }
}
