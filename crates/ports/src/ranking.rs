//! How query expansion ranks the relations around a set of entities (LightRAG's local mode): by
//! edge degree — the degrees of both ends added — then weight, both descending. Ties keep the
//! order of the entities (a relation counts for the first entity it touches) and then the order
//! of the keys. [`crate::GraphReads::ranked_relations_of`] returns relations in this order; its default
//! implementation ranks in memory with [`rank_relations`], a backend may rank in the database.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::records::{RelKey, Relation};

/// Where a relation stands in the ranking: compares as the ranking orders (best first).
#[derive(Debug, Clone, PartialEq)]
pub struct RankKey {
    /// Degrees of both ends added.
    pub edge_degree: usize,
    /// Weight.
    pub weight: f64,
    /// Position (in the ranked entity list) of the first entity the relation touches.
    pub first_entity: usize,
    /// The relation's key.
    pub key: RelKey,
}

impl RankKey {
    /// Orders best first.
    pub fn cmp_rank(&self, other: &RankKey) -> Ordering {
        other
            .edge_degree
            .cmp(&self.edge_degree)
            .then(other.weight.total_cmp(&self.weight))
            .then(self.first_entity.cmp(&other.first_entity))
            .then_with(|| self.key.cmp(&other.key))
    }
}

/// Ranks `relations` (each touching at least one of `names`) and keeps the first `limit`.
/// `degree_of` gives the degree of every end (missing names count 0).
pub fn rank_relations(
    names: &[String],
    relations: Vec<Relation>,
    degree_of: &HashMap<String, usize>,
    limit: usize,
) -> Vec<Relation> {
    let position: HashMap<&str, usize> = names.iter().enumerate().rev().map(|(i, n)| (n.as_str(), i)).collect();
    let degree = |n: &str| degree_of.get(n).copied().unwrap_or(0);
    let mut keyed: Vec<(RankKey, Relation)> = relations
        .into_iter()
        .filter_map(|r| {
            let first =
                [r.key.src.as_str(), r.key.tgt.as_str()].iter().filter_map(|n| position.get(n)).min().copied()?;
            let edge_degree =
                if r.key.src == r.key.tgt { degree(&r.key.src) * 2 } else { degree(&r.key.src) + degree(&r.key.tgt) };
            let key = RankKey { edge_degree, weight: r.weight, first_entity: first, key: r.key.clone() };
            Some((key, r))
        })
        .collect();
    keyed.sort_by(|a, b| a.0.cmp_rank(&b.0));
    keyed.dedup_by(|a, b| a.0.key == b.0.key);
    keyed.truncate(limit);
    keyed.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn rel(a: &str, b: &str, weight: f64) -> Relation {
        Relation {
            key: RelKey::new(a, b),
            weight,
            keywords: String::new(),
            description: String::new(),
            source_ids: vec![],
            chunk_count: 0,
            file_paths: vec![],
            created_at: 0,
            truncate: String::new(),
            version: 1,
        }
    }

    fn keys(r: &[Relation]) -> Vec<String> {
        r.iter().map(|r| r.key.to_string()).collect()
    }

    #[test]
    fn relations_rank_by_degree_then_weight_then_entity_order_then_key() {
        let degrees: HashMap<String, usize> =
            [("A", 3), ("B", 1), ("C", 1), ("D", 2)].into_iter().map(|(n, d)| (n.to_string(), d)).collect();
        let names: Vec<String> = ["B", "C", "A"].into_iter().map(String::from).collect();
        let edges = vec![rel("B", "C", 9.0), rel("A", "B", 1.0), rel("A", "C", 2.0), rel("C", "D", 5.0)];
        assert_eq!(
            keys(&rank_relations(&names, edges.clone(), &degrees, 10)),
            ["A -- C", "A -- B", "C -- D", "B -- C"]
        );
        assert_eq!(keys(&rank_relations(&names, edges, &degrees, 2)), ["A -- C", "A -- B"]);
        // equal degree and weight: the relation of the earlier entity first, then by key
        let flat = vec![rel("X", "C", 1.0), rel("B", "Y", 1.0), rel("B", "A", 1.0)];
        let none = HashMap::new();
        assert_eq!(keys(&rank_relations(&names, flat, &none, 10)), ["A -- B", "B -- Y", "C -- X"]);
    }
}
