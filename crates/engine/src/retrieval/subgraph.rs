//! The part of the graph a viewer shows: breadth first from one entity (each level's new nodes
//! taken by degree, highest first), or the most connected entities of the whole graph. The walk
//! reads relation keys only ([`lightrag_ports::GraphReads::relation_keys_of`]) and loads just the
//! relations among the nodes taken ([`lightrag_ports::GraphReads::relations_among`]).

use std::collections::{BTreeSet, HashSet};

use lightrag_ports::{Entity, Relation};

use crate::engine::Engine;
use crate::error::Result;

/// Where a [`Engine::subgraph`] starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubgraphStart {
    /// The whole graph: the most connected entities.
    Everything,
    /// Breadth first from this entity.
    Entity(String),
}

/// Nodes and the relations among them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Subgraph {
    /// Entities, in the order they were reached.
    pub nodes: Vec<Entity>,
    /// Relations whose two ends are both among `nodes`.
    pub edges: Vec<Relation>,
    /// Whether `max_nodes` cut the walk short (or the graph has more entities than were taken).
    pub truncated: bool,
}

impl Engine {
    /// At most `max_nodes` entities around `start` (at most `max_depth` hops away) and the
    /// relations among them. An unknown start entity gives an empty subgraph.
    pub async fn subgraph(&self, start: &SubgraphStart, max_depth: usize, max_nodes: usize) -> Result<Subgraph> {
        let store = &self.inner.store;
        let (names, truncated) = match start {
            SubgraphStart::Everything => {
                let total = store.graph_counts().await?.nodes;
                let top = store.top_entities(max_nodes).await?;
                (top.into_iter().map(|(n, _)| n).collect::<Vec<_>>(), total > max_nodes)
            }
            SubgraphStart::Entity(name) => {
                if store.get_entities(std::slice::from_ref(name)).await?.first().is_some_and(Option::is_some) {
                    self.breadth_first(name, max_depth, max_nodes).await?
                } else {
                    (Vec::new(), false)
                }
            }
        };
        if names.is_empty() {
            return Ok(Subgraph { truncated, ..Subgraph::default() });
        }
        let nodes: Vec<Entity> = store.get_entities(&names).await?.into_iter().flatten().collect();
        let edges = store.relations_among(&names).await?;
        Ok(Subgraph { nodes, edges, truncated })
    }

    async fn breadth_first(&self, start: &str, max_depth: usize, max_nodes: usize) -> Result<(Vec<String>, bool)> {
        let store = &self.inner.store;
        let mut seen: HashSet<String> = HashSet::from([start.to_string()]);
        let mut order = vec![start.to_string()];
        let mut frontier = vec![start.to_string()];
        for _ in 0..max_depth {
            if frontier.is_empty() {
                break;
            }
            let mut next: BTreeSet<String> = BTreeSet::new();
            for key in store.relation_keys_of(&frontier).await? {
                for end in [&key.src, &key.tgt] {
                    if !seen.contains(end) {
                        next.insert(end.clone());
                    }
                }
            }
            let next: Vec<String> = next.into_iter().collect();
            let degrees = store.node_degrees(&next).await?;
            let mut ranked: Vec<(usize, String)> = degrees.into_iter().zip(next).collect();
            ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            frontier = Vec::new();
            for (_, name) in ranked {
                if order.len() >= max_nodes {
                    return Ok((order, true));
                }
                seen.insert(name.clone());
                order.push(name.clone());
                frontier.push(name);
            }
        }
        Ok((order, false))
    }
}
