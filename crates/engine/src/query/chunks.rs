//! Picking source chunks for the retrieved entities and relations (§6.4) and merging them with
//! the vector-search chunks (§6.5).

use std::collections::{HashMap, HashSet};

/// One entity's or relation's candidate chunks, best first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Candidates {
    /// Chunk ids not claimed by an earlier item, sorted by occurrence count (desc, stable).
    pub sorted_chunks: Vec<String>,
}

/// Builds the candidate lists of items (entities or relations, in importance order) from their
/// source chunk ids. A chunk goes to the first item that mentions it; ids in `exclude` are
/// skipped. Items with no source ids are dropped; with `drop_emptied`, so are items left with no
/// chunk after de-duplication (LightRAG does this for relations only).
pub fn candidates<'a, I, S>(items: I, exclude: &HashSet<String>, drop_emptied: bool) -> Vec<Candidates>
where
    I: IntoIterator<Item = &'a [S]>,
    S: AsRef<str> + 'a,
{
    let mut occurrences: HashMap<&str, usize> = HashMap::new();
    let mut lists: Vec<Vec<&str>> = Vec::new();
    for sources in items {
        let ids: Vec<&str> = sources.iter().map(|s| s.as_ref()).filter(|s| !s.is_empty()).collect();
        if ids.is_empty() {
            continue;
        }
        let mut mine = Vec::new();
        for id in ids {
            if exclude.contains(id) {
                continue;
            }
            let n = occurrences.entry(id).or_insert(0);
            *n += 1;
            if *n == 1 {
                mine.push(id);
            }
        }
        lists.push(mine);
    }
    lists
        .into_iter()
        .filter(|l| !(drop_emptied && l.is_empty()))
        .map(|mut l| {
            l.sort_by_key(|id| std::cmp::Reverse(occurrences.get(id).copied().unwrap_or(0)));
            Candidates { sorted_chunks: l.into_iter().map(str::to_string).collect() }
        })
        .collect()
}

/// Python's `round()` (half to even) for the non-negative quotas used here.
fn round_half_even(x: f64) -> usize {
    let floor = x.floor();
    let diff = x - floor;
    let r =
        if (diff - 0.5).abs() < 1e-9 { if (floor as i64) % 2 == 0 { floor } else { floor + 1.0 } } else { x.round() };
    r.max(0.0) as usize
}

/// The per-item quotas of linear-gradient polling: item `i` of `n` gets
/// `round(max − i/(n−1)·(max−min))`.
pub fn polling_quotas(n: usize, max: usize, min: usize) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return vec![max];
    }
    (0..n)
        .map(|i| {
            let ratio = i as f64 / (n - 1) as f64;
            round_half_even(max as f64 - ratio * (max as f64 - min as f64))
        })
        .collect()
}

/// WEIGHT picking: each item takes up to its quota; the quota items could not use goes, one
/// chunk at a time, to the earliest items that still have unused chunks.
pub fn pick_by_weight(items: &[Candidates], max: usize, min: usize) -> Vec<String> {
    let quotas = polling_quotas(items.len(), max, min);
    let mut used = vec![0usize; items.len()];
    let mut picked = Vec::new();
    let mut spare = 0usize;
    for ((item, quota), used) in items.iter().zip(&quotas).zip(used.iter_mut()) {
        let take = (*quota).min(item.sorted_chunks.len());
        picked.extend(item.sorted_chunks[..take].iter().cloned());
        *used = take;
        spare += quota - take;
    }
    // Second round: each unit of spare quota goes to the first item with chunks left, which is the
    // same as filling items in order.
    for (item, used) in items.iter().zip(used.iter_mut()) {
        if spare == 0 {
            break;
        }
        let extra = (item.sorted_chunks.len() - *used).min(spare);
        picked.extend(item.sorted_chunks[*used..*used + extra].iter().cloned());
        *used += extra;
        spare -= extra;
    }
    picked
}

/// Cosine similarity (0 when either vector is zero or the lengths differ).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0f32, 0f32, 0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na.sqrt() * nb.sqrt()) }
}

/// The union of the items' candidate chunks, in first-appearance order.
pub fn union_of(items: &[Candidates]) -> Vec<String> {
    let mut seen = HashSet::new();
    items.iter().flat_map(|i| i.sorted_chunks.iter()).filter(|id| seen.insert(id.as_str())).cloned().collect()
}

/// VECTOR picking: of the candidates with a stored vector, the `int(related · n / 2)` most
/// similar to the query. `vectors` maps chunk ids to stored vectors. Empty when nothing could be
/// scored (the caller then falls back to WEIGHT).
pub fn pick_by_vector(
    items: &[Candidates],
    related_chunk_number: usize,
    query_vector: &[f32],
    vectors: &HashMap<String, Vec<f32>>,
) -> Vec<String> {
    let wanted = related_chunk_number * items.len() / 2;
    let mut scored: Vec<(String, f32)> = union_of(items)
        .into_iter()
        .filter_map(|id| vectors.get(&id).map(|v| (cosine(query_vector, v), id)))
        .map(|(s, id)| (id, s))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.into_iter().take(wanted).map(|(id, _)| id).collect()
}

/// Round-robin merge of several ranked lists (`lists[0][0], lists[1][0], …, lists[0][1], …`),
/// keeping the first occurrence of each key.
pub fn round_robin<T, K, F>(lists: Vec<Vec<T>>, key: F) -> Vec<T>
where
    K: std::hash::Hash + Eq,
    F: Fn(&T) -> K,
{
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    let mut iters: Vec<_> = lists.into_iter().map(|l| l.into_iter()).collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for _ in 0..longest {
        for item in iters.iter_mut().filter_map(Iterator::next) {
            if seen.insert(key(&item)) {
                out.push(item);
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn cands(lists: &[&[&str]]) -> Vec<Candidates> {
        lists.iter().map(|l| Candidates { sorted_chunks: l.iter().map(|s| s.to_string()).collect() }).collect()
    }

    #[test]
    fn quotas_follow_a_linear_gradient_with_python_rounding() {
        assert_eq!(polling_quotas(0, 5, 1), Vec::<usize>::new());
        assert_eq!(polling_quotas(1, 5, 1), vec![5]);
        assert_eq!(polling_quotas(2, 5, 1), vec![5, 1]);
        assert_eq!(polling_quotas(5, 5, 1), vec![5, 4, 3, 2, 1]);
        // 5 - 4/3 = 3.67 → 4; 5 - 8/3 = 2.33 → 2
        assert_eq!(polling_quotas(4, 5, 1), vec![5, 4, 2, 1]);
        // 5 - 0.5 * 3 = 3.5 → 4 (half to even); 4 - 0.5*3 = 2.5 → 2
        assert_eq!(polling_quotas(3, 5, 2), vec![5, 4, 2]);
        assert_eq!(polling_quotas(3, 4, 1), vec![4, 2, 1]);
    }

    #[test]
    fn weight_picking_redistributes_unused_quota_to_earlier_items() {
        // quotas [5, 1]: first has 2 chunks (3 spare), second has 6.
        let items = cands(&[&["a1", "a2"], &["b1", "b2", "b3", "b4", "b5", "b6"]]);
        assert_eq!(pick_by_weight(&items, 5, 1), vec!["a1", "a2", "b1", "b2", "b3", "b4"]);
        // spare quota goes to the earliest item with chunks left
        let items = cands(&[&["a1", "a2", "a3", "a4", "a5", "a6", "a7"], &["b1", "b2"], &[]]);
        // quotas [5, 3, 1] → a1..a5, b1 b2 (1 spare), none (1 spare) → a6, a7
        assert_eq!(pick_by_weight(&items, 5, 1), vec!["a1", "a2", "a3", "a4", "a5", "b1", "b2", "a6", "a7"]);
        assert!(pick_by_weight(&[], 5, 1).is_empty());
        assert_eq!(pick_by_weight(&cands(&[&["x", "y"]]), 1, 1), vec!["x"]);
    }

    #[test]
    fn candidates_go_to_the_first_item_and_sort_by_occurrence() {
        let e1 = vec!["c1".to_string(), "c2".to_string()];
        let e2 = vec!["c3".to_string(), "c2".to_string(), "c4".to_string()];
        let e3: Vec<String> = vec![];
        let e4 = vec!["c4".to_string(), "c2".to_string()];
        let items = [e1.as_slice(), e2.as_slice(), e3.as_slice(), e4.as_slice()];
        let out = candidates(items, &HashSet::new(), false);
        // c2 occurs 3×, c4 2× → c2 first in e1, c4 first in e2; e3 dropped; e4 kept but empty
        assert_eq!(out, cands(&[&["c2", "c1"], &["c4", "c3"], &[]]));
        let exclude: HashSet<String> = ["c2".to_string()].into();
        let out = candidates(items, &exclude, true);
        assert_eq!(out, cands(&[&["c1"], &["c4", "c3"]]));
    }

    #[test]
    fn vector_picking_takes_the_most_similar() {
        let items = cands(&[&["a", "b"], &["c"], &["d"]]);
        let vectors: HashMap<String, Vec<f32>> =
            [("a".to_string(), vec![1.0, 0.0]), ("b".to_string(), vec![0.0, 1.0]), ("c".to_string(), vec![0.7, 0.7])]
                .into();
        // int(2 * 3 / 2) = 3 wanted, d has no vector
        assert_eq!(pick_by_vector(&items, 2, &[0.0, 1.0], &vectors), vec!["b", "c", "a"]);
        assert_eq!(pick_by_vector(&items, 1, &[1.0, 0.0], &vectors), vec!["a"]);
        assert!(pick_by_vector(&items, 2, &[1.0, 0.0], &HashMap::new()).is_empty());
        assert_eq!(cosine(&[1.0, 0.0], &[2.0, 0.0]), 1.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn round_robin_interleaves_and_dedups() {
        let merged = round_robin(vec![vec!["a", "b", "c"], vec!["b", "d"], vec![], vec!["e", "a", "f", "g"]], |s| *s);
        assert_eq!(merged, vec!["a", "b", "e", "d", "c", "f", "g"]);
        let empty: Vec<&str> = round_robin(Vec::<Vec<&str>>::new(), |s| *s);
        assert!(empty.is_empty());
    }
}
