//! Personalized PageRank on the small graph one query gathers: entities and passages (chunks) as
//! nodes, an entity linked to the chunks that mention it and to the entities it has a relation
//! with.
//!
//! The walk starts from the seeds (in proportion to their weights); at each step it follows an
//! edge (chosen by weight) with probability `damping`, or jumps back to the seeds. A node's score
//! is the share of time the walk spends there in the long run: high for the seeds and for what
//! many short paths from them reach — the passage of the bridge entity that a question's entity is
//! linked to scores higher than a passage that only shares a frequent word with the question.
//! A node without edges hands its score back to the seeds. Nodes may carry a weight: the walk
//! leaves a node towards a neighbour in proportion to the edge's weight times the neighbour's,
//! so that it prefers the entities that resemble the question.

use std::collections::HashMap;

/// A node: an entity (by name) or a chunk (by id).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum NodeKey {
    Entity(String),
    Chunk(String),
}

/// An undirected weighted graph with nodes numbered in insertion order.
#[derive(Debug, Default)]
pub(crate) struct WalkGraph {
    index: HashMap<NodeKey, usize>,
    nodes: Vec<NodeKey>,
    edges: Vec<HashMap<usize, f64>>,
    weights: Vec<f64>,
}

impl WalkGraph {
    /// The node's number, adding it when new.
    pub(crate) fn node(&mut self, key: NodeKey) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.nodes.len();
        self.index.insert(key.clone(), i);
        self.nodes.push(key);
        self.edges.push(HashMap::new());
        self.weights.push(1.0);
        i
    }

    /// Sets node `i`'s weight (1 unless set; non-positive weights count as a tiny one, so the
    /// node stays reachable).
    pub(crate) fn set_weight(&mut self, i: usize, weight: f64) {
        self.weights[i] = if weight.is_finite() && weight > 0.0 { weight } else { 1e-6 };
    }

    /// The key of node `i`.
    pub(crate) fn key(&self, i: usize) -> &NodeKey {
        &self.nodes[i]
    }

    /// Number of neighbours of node `i`.
    pub(crate) fn degree(&self, i: usize) -> usize {
        self.edges[i].len()
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Links `a` and `b` with `weight` (a second link of the same pair keeps the larger weight;
    /// self-links and non-positive weights are ignored).
    pub(crate) fn connect(&mut self, a: usize, b: usize, weight: f64) {
        if a == b || weight <= 0.0 || !weight.is_finite() {
            return;
        }
        for (from, to) in [(a, b), (b, a)] {
            let slot = self.edges[from].entry(to).or_insert(0.0);
            *slot = slot.max(weight);
        }
    }

    /// The personalized PageRank scores of every node (they sum to 1), from `seeds` (node,
    /// weight; weights are normalised, non-positive ones ignored), by power iteration until the
    /// scores move less than `tolerance` in total or `max_iterations` pass. All zero without a
    /// positive seed.
    pub(crate) fn personalized_pagerank(
        &self,
        seeds: &[(usize, f64)],
        damping: f64,
        max_iterations: usize,
        tolerance: f64,
    ) -> Vec<f64> {
        let n = self.nodes.len();
        let mut restart = vec![0.0; n];
        for &(i, w) in seeds {
            if i < n && w > 0.0 && w.is_finite() {
                restart[i] += w;
            }
        }
        let total: f64 = restart.iter().sum();
        if total <= 0.0 {
            return vec![0.0; n];
        }
        restart.iter_mut().for_each(|w| *w /= total);
        // edges as (neighbour, share of the node's walk) once, not re-divided each iteration
        let shares: Vec<Vec<(usize, f64)>> = self
            .edges
            .iter()
            .map(|e| {
                let out: f64 = e.iter().map(|(&j, &x)| x * self.weights[j]).sum();
                e.iter().map(|(&j, &x)| (j, x * self.weights[j] / out)).collect()
            })
            .collect();
        let mut score = restart.clone();
        for _ in 0..max_iterations {
            let mut next = vec![0.0; n];
            let mut dangling = 0.0;
            for (i, &s) in score.iter().enumerate() {
                if s == 0.0 {
                    continue;
                }
                if shares[i].is_empty() {
                    dangling += s;
                    continue;
                }
                for &(j, share) in &shares[i] {
                    next[j] += damping * s * share;
                }
            }
            // the jump back, and the walk of nodes without edges, go to the seeds
            let back = (1.0 - damping) + damping * dangling;
            for (x, r) in next.iter_mut().zip(&restart) {
                *x += back * r;
            }
            let moved: f64 = next.iter().zip(&score).map(|(a, b)| (a - b).abs()).sum();
            score = next;
            if moved < tolerance {
                break;
            }
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(pairs: &[(&str, &str, f64)]) -> WalkGraph {
        let mut g = WalkGraph::default();
        for (a, b, w) in pairs {
            let a = g.node(NodeKey::Entity(a.to_string()));
            let b = g.node(NodeKey::Entity(b.to_string()));
            g.connect(a, b, *w);
        }
        g
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn two_nodes_by_hand() {
        // p_A = (1-d) + d p_B, p_B = d p_A  =>  p_A = 1/(1+d), p_B = d/(1+d)
        let g = graph(&[("A", "B", 1.0)]);
        let p = g.personalized_pagerank(&[(0, 1.0)], 0.5, 200, 1e-14);
        assert!(close(p[0], 2.0 / 3.0) && close(p[1], 1.0 / 3.0), "{p:?}");
    }

    #[test]
    fn a_path_by_hand() {
        // A - B - C, seed A, d = 0.5:
        // p_A = 0.5 + 0.5 (p_B / 2), p_B = 0.5 (p_A + p_C), p_C = 0.5 (p_B / 2)
        // => p_B = 0.5 p_A + 0.125 p_B  =>  p_B = 4/7 p_A; p_A = 0.5 + 1/7 p_A => p_A = 7/12
        let g = graph(&[("A", "B", 1.0), ("B", "C", 1.0)]);
        let p = g.personalized_pagerank(&[(0, 1.0)], 0.5, 500, 1e-15);
        assert!(close(p[0], 7.0 / 12.0), "{p:?}");
        assert!(close(p[1], 4.0 / 12.0), "{p:?}");
        assert!(close(p[2], 1.0 / 12.0), "{p:?}");
        assert!(close(p.iter().sum::<f64>(), 1.0));
    }

    #[test]
    fn weights_steer_the_walk_and_seeds_are_normalised() {
        // B is linked to A three times as strongly as C is
        let g = graph(&[("A", "B", 3.0), ("A", "C", 1.0)]);
        let p = g.personalized_pagerank(&[(0, 5.0)], 0.85, 500, 1e-15);
        assert!(close(p[1], 3.0 * p[2]), "{p:?}");
        assert!(close(p.iter().sum::<f64>(), 1.0));
    }

    #[test]
    fn node_weights_steer_the_walk_towards_heavier_neighbours() {
        // the same as edge weights 3 : 1, set on the nodes instead
        let mut g = graph(&[("A", "B", 1.0), ("A", "C", 1.0)]);
        g.set_weight(1, 3.0);
        let p = g.personalized_pagerank(&[(0, 1.0)], 0.85, 500, 1e-15);
        assert!(close(p[1], 3.0 * p[2]), "{p:?}");
    }

    #[test]
    fn isolated_seeds_keep_their_mass_and_no_seed_scores_nothing() {
        let mut g = graph(&[("A", "B", 1.0)]);
        let lone = g.node(NodeKey::Chunk("c".into()));
        let p = g.personalized_pagerank(&[(lone, 1.0)], 0.5, 100, 1e-12);
        assert!(close(p[lone], 1.0) && close(p[0], 0.0));
        assert!(g.personalized_pagerank(&[], 0.5, 100, 1e-12).iter().all(|&x| x == 0.0));
    }
}
