//! Picking source chunks for the retrieved entities and relations (§6.4) and merging them with
//! the vector-search chunks (§6.5).

// Chunk ids are hashed by the thousand per query: maps and sets with a fast hasher.
pub use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

/// One entity's or relation's candidate chunks, best first (borrowed from the records' source
/// ids: a graph query at 50,000 chunks weighs thousands of them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Candidates<'a> {
    /// Chunk ids not claimed by an earlier item, sorted by occurrence count (desc, stable).
    pub sorted_chunks: Vec<&'a str>,
}

/// Builds the candidate lists of items (entities or relations, in importance order) from their
/// source chunk ids. A chunk goes to the first item that mentions it; ids in `exclude` are
/// skipped. Items with no source ids are dropped; with `drop_emptied`, so are items left with no
/// chunk after de-duplication (LightRAG does this for relations only).
pub fn candidates<'a, I, S>(items: I, exclude: &HashSet<&str>, drop_emptied: bool) -> Vec<Candidates<'a>>
where
    I: IntoIterator<Item = &'a [S]>,
    S: AsRef<str> + 'a,
{
    let mut occurrences: HashMap<&'a str, usize> = HashMap::new();
    let mut lists: Vec<Vec<&'a str>> = Vec::new();
    for sources in items {
        let mut any = false;
        let mut mine = Vec::new();
        for id in sources.iter().map(|s| s.as_ref()).filter(|s| !s.is_empty()) {
            any = true;
            if exclude.contains(id) {
                continue;
            }
            let n = occurrences.entry(id).or_insert(0);
            *n += 1;
            if *n == 1 {
                mine.push(id);
            }
        }
        if any {
            lists.push(mine);
        }
    }
    lists
        .into_iter()
        .filter(|l| !(drop_emptied && l.is_empty()))
        .map(|l| {
            let mut counted: Vec<(usize, &'a str)> =
                l.into_iter().map(|id| (occurrences.get(id).copied().unwrap_or(0), id)).collect();
            counted.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
            Candidates { sorted_chunks: counted.into_iter().map(|(_, id)| id).collect() }
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
pub fn pick_by_weight<'a>(items: &[Candidates<'a>], max: usize, min: usize) -> Vec<&'a str> {
    let quotas = polling_quotas(items.len(), max, min);
    let mut used = vec![0usize; items.len()];
    let mut picked = Vec::new();
    let mut spare = 0usize;
    for ((item, quota), used) in items.iter().zip(&quotas).zip(used.iter_mut()) {
        let take = (*quota).min(item.sorted_chunks.len());
        picked.extend_from_slice(&item.sorted_chunks[..take]);
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
        picked.extend_from_slice(&item.sorted_chunks[*used..*used + extra]);
        *used += extra;
        spare -= extra;
    }
    picked
}

pub use lightrag_ports::cosine;

/// The union of the items' candidate chunks, in first-appearance order.
pub fn union_of<'a>(items: &[Candidates<'a>]) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    items.iter().flat_map(|i| i.sorted_chunks.iter().copied()).filter(|id| seen.insert(*id)).collect()
}

/// VECTOR picking: of the candidates with a known similarity to the query, the
/// `int(related · n / 2)` most similar (ties in first-appearance order). `similarity` maps chunk
/// ids to their cosine with the query. Empty when nothing could be scored (the caller then falls
/// back to WEIGHT).
pub fn pick_by_vector<'a>(
    items: &[Candidates<'a>],
    related_chunk_number: usize,
    similarity: &HashMap<&str, f32>,
) -> Vec<&'a str> {
    let wanted = related_chunk_number * items.len() / 2;
    let mut scored: Vec<(&'a str, f32)> =
        union_of(items).into_iter().filter_map(|id| similarity.get(id).map(|s| (id, *s))).collect();
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

    fn cands<'a>(lists: &[&[&'a str]]) -> Vec<Candidates<'a>> {
        lists.iter().map(|l| Candidates { sorted_chunks: l.to_vec() }).collect()
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
        let exclude: HashSet<&str> = ["c2"].into_iter().collect();
        let out = candidates(items, &exclude, true);
        assert_eq!(out, cands(&[&["c1"], &["c4", "c3"]]));
    }

    #[test]
    fn vector_picking_takes_the_most_similar() {
        let items = cands(&[&["a", "b"], &["c"], &["d"]]);
        let towards = |q: &[f32]| -> HashMap<&str, f32> {
            [("a", vec![1.0, 0.0]), ("b", vec![0.0, 1.0]), ("c", vec![0.7, 0.7])]
                .into_iter()
                .map(|(id, v)| (id, cosine(q, &v)))
                .collect()
        };
        // int(2 * 3 / 2) = 3 wanted, d has no vector
        assert_eq!(pick_by_vector(&items, 2, &towards(&[0.0, 1.0])), vec!["b", "c", "a"]);
        assert_eq!(pick_by_vector(&items, 1, &towards(&[1.0, 0.0])), vec!["a"]);
        assert!(pick_by_vector(&items, 2, &HashMap::new()).is_empty());
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
