//! Bounded best-k selection.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use lightrag_ports::{IndexHit, VectorId};

/// A hit ordered so that the heap's top is the worst kept hit (lowest score, then highest id).
#[derive(Debug, Clone, Copy)]
struct Worst(IndexHit);

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        better(&self.0, &other.0)
    }
}

/// `Less` when `a` ranks before `b`: higher score first, then lower id.
pub fn better(a: &IndexHit, b: &IndexHit) -> Ordering {
    b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id))
}

/// Keeps the `k` best hits seen.
#[derive(Debug)]
pub struct TopK {
    k: usize,
    heap: BinaryHeap<Worst>,
}

impl TopK {
    /// An empty selection of at most `k` hits.
    pub fn new(k: usize) -> TopK {
        TopK { k, heap: BinaryHeap::with_capacity(k.min(4096) + 1) }
    }

    /// Offers a hit (a NaN or infinite score is never kept: it would sort above every number).
    #[inline]
    pub fn offer(&mut self, id: VectorId, score: f32) {
        if self.k == 0 || !score.is_finite() {
            return;
        }
        let hit = IndexHit { id, score };
        if self.heap.len() < self.k {
            self.heap.push(Worst(hit));
        } else if let Some(mut worst) = self.heap.peek_mut()
            && better(&hit, &worst.0) == Ordering::Less
        {
            *worst = Worst(hit);
        }
    }

    /// The lowest score that would still be kept (`-inf` while not full).
    #[inline]
    pub fn floor(&self) -> f32 {
        if self.heap.len() < self.k {
            f32::NEG_INFINITY
        } else {
            self.heap.peek().map_or(f32::NEG_INFINITY, |w| w.0.score)
        }
    }

    /// Merges another selection into this one.
    pub fn merge(&mut self, other: TopK) {
        for w in other.heap {
            self.offer(w.0.id, w.0.score);
        }
    }

    /// The hits, best first.
    pub fn into_sorted(self) -> Vec<IndexHit> {
        let mut out: Vec<IndexHit> = self.heap.into_iter().map(|w| w.0).collect();
        out.sort_unstable_by(better);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_k_in_order() {
        let mut t = TopK::new(3);
        for (id, s) in [(1, 0.1), (2, 0.9), (3, 0.5), (4, 0.7), (5, 0.2), (6, 0.9)] {
            t.offer(id, s);
        }
        let ids: Vec<u64> = t.into_sorted().iter().map(|h| h.id).collect();
        assert_eq!(ids, vec![2, 6, 4]);
    }

    #[test]
    fn a_nan_or_infinite_score_is_never_kept() {
        let mut t = TopK::new(3);
        for (id, s) in [(1, f32::NAN), (2, 0.1), (3, f32::INFINITY), (4, -f32::NAN), (5, f32::NEG_INFINITY)] {
            t.offer(id, s);
        }
        let ids: Vec<u64> = t.into_sorted().iter().map(|h| h.id).collect();
        assert_eq!(ids, vec![2]);
    }
}
