//! The provenance a merge shows: which chunk ids (`source_id`) and file paths an entity or a
//! relation cites, cut to `MAX_SOURCE_IDS_PER_*` / `MAX_FILE_PATHS` by the KEEP or FIFO method.
//!
//! The uncut chunk list is the store's (rows, see [`lightrag_ports::ChunkListEdit`]); a merge
//! only needs the stored record's shown ids, its file paths and the list's length, plus the new
//! chunks — never the list itself. The shown ids are taken as the list's first (KEEP) or last
//! (FIFO) ids, which they are unless someone edited them by hand (then a merge extends the edited
//! list). A rebuild after a deletion reads the new first or last ids from the store instead.

use std::collections::HashSet;

use crate::config::SourceIdsLimitMethod;

/// The provenance fields of a merged or rebuilt record.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    /// Shown chunk ids.
    pub source_ids: Vec<String>,
    /// Shown file paths (cut, maybe with a placeholder).
    pub file_paths: Vec<String>,
    /// How the source ids were cut (`""`, `KEEP Old`, `FIFO n/m`).
    pub truncate: String,
    /// Chunks this merge adds to the record's chunk list, in order.
    pub appended: Vec<String>,
    /// Length of the chunk list after the merge.
    pub chunk_count: usize,
}

/// What is stored of a record's provenance before a merge.
#[derive(Debug, Clone, Copy)]
pub struct Stored<'a> {
    /// Shown chunk ids.
    pub source_ids: &'a [String],
    /// Shown file paths.
    pub file_paths: &'a [String],
    /// Length of the uncut chunk list.
    pub chunk_count: usize,
}

/// The cut settings.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `MAX_SOURCE_IDS_PER_ENTITY` or `_PER_RELATION`.
    pub max_source_ids: usize,
    /// `SOURCE_IDS_LIMIT_METHOD`.
    pub method: SourceIdsLimitMethod,
    /// `MAX_FILE_PATHS`.
    pub max_file_paths: usize,
}

pub(crate) fn is_placeholder(path: &str) -> bool {
    path.starts_with("...truncated...")
}

fn push_unique(list: &mut Vec<String>, seen: &mut HashSet<String>, value: &str) {
    if !value.is_empty() && seen.insert(value.to_string()) {
        list.push(value.to_string());
    }
}

/// How a list of `total` chunk ids is shown when `shown` is its start (KEEP) or end (FIFO).
fn cut(shown: Vec<String>, total: usize, limits: Limits) -> (Vec<String>, String) {
    let limit = limits.max_source_ids.max(1);
    if total <= limit {
        return (shown, String::new());
    }
    match limits.method {
        SourceIdsLimitMethod::Keep => (shown.into_iter().take(limit).collect(), "KEEP Old".to_string()),
        SourceIdsLimitMethod::Fifo => {
            let skip = shown.len().saturating_sub(limit);
            (shown.into_iter().skip(skip).collect(), format!("FIFO {limit}/{total}"))
        }
    }
}

/// Caps file paths, adding LightRAG's placeholder when some were left out.
fn cap_paths(paths: Vec<String>, limits: Limits) -> Vec<String> {
    let keep = limits.max_file_paths.max(1);
    if paths.len() <= keep {
        return paths;
    }
    match limits.method {
        SourceIdsLimitMethod::Keep => {
            let mut p = paths[..keep].to_vec();
            p.push("...truncated...(KEEP Old)".to_string());
            p
        }
        SourceIdsLimitMethod::Fifo => {
            let mut p = paths[paths.len() - keep..].to_vec();
            p.push("...truncated...(FIFO)".to_string());
            p
        }
    }
}

/// Provenance after merging `new` `(chunk, file path)` contributions into `stored` (none for a
/// new record), and which new chunks are shown (their contributions count; the others are only
/// listed).
pub fn merged(stored: Option<Stored<'_>>, new: &[(&str, &str)], limits: Limits) -> (Provenance, HashSet<String>) {
    let shown_before: &[String] = stored.map(|s| s.source_ids).unwrap_or(&[]);
    let count_before = stored.map(|s| s.chunk_count.max(s.source_ids.len())).unwrap_or(0);
    let mut seen: HashSet<String> = shown_before.iter().cloned().collect();
    let mut appended = Vec::new();
    for (chunk, _) in new {
        push_unique(&mut appended, &mut seen, chunk);
    }
    let total = count_before + appended.len();
    let mut list = shown_before.to_vec();
    list.extend(appended.iter().cloned());
    let (source_ids, truncate) = cut(list, total, limits);
    let shown: HashSet<&String> = source_ids.iter().collect();
    let surviving: HashSet<String> = new.iter().map(|(c, _)| c.to_string()).filter(|c| shown.contains(c)).collect();

    let mut path_seen = HashSet::new();
    let mut paths = Vec::new();
    for p in stored.map(|s| s.file_paths).unwrap_or(&[]).iter().filter(|p| !is_placeholder(p)) {
        push_unique(&mut paths, &mut path_seen, p);
    }
    for (chunk, path) in new {
        if surviving.contains(*chunk) {
            push_unique(&mut paths, &mut path_seen, path);
        }
    }
    let file_paths = cap_paths(paths, limits);
    (Provenance { source_ids, file_paths, truncate, appended, chunk_count: total }, surviving)
}

/// Provenance of a record rebuilt after a deletion: `window` is the part of its remaining chunk
/// list that is shown (the first ids under KEEP, the last under FIFO, in list order), `total` the
/// remaining list's length, `contributing` the `(chunk, file path)` of the contributions found in
/// the window, in window order.
pub fn rebuilt(window: &[String], total: usize, contributing: &[(&str, &str)], limits: Limits) -> Provenance {
    let (source_ids, truncate) = cut(window.to_vec(), total.max(window.len()), limits);
    let mut path_seen = HashSet::new();
    let mut paths = Vec::new();
    for (_, path) in contributing {
        push_unique(&mut paths, &mut path_seen, path);
    }
    Provenance {
        source_ids,
        file_paths: cap_paths(paths, limits),
        truncate,
        appended: Vec::new(),
        chunk_count: total.max(window.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(n: usize, method: SourceIdsLimitMethod) -> Limits {
        Limits { max_source_ids: n, method, max_file_paths: 2 }
    }

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn keep_shows_the_oldest_and_counts_every_chunk() {
        let shown = ids(&["c1", "c2"]);
        let paths = ids(&["a"]);
        let stored = Stored { source_ids: &shown, file_paths: &paths, chunk_count: 5 };
        let (p, surviving) = merged(Some(stored), &[("c9", "b")], limits(2, SourceIdsLimitMethod::Keep));
        assert_eq!(p.source_ids, ids(&["c1", "c2"]));
        assert_eq!(p.truncate, "KEEP Old");
        assert_eq!(p.appended, ids(&["c9"]), "listed though not shown");
        assert_eq!(p.chunk_count, 6);
        assert!(surviving.is_empty());
        assert_eq!(p.file_paths, ids(&["a"]));
    }

    #[test]
    fn fifo_shows_the_newest_with_the_total() {
        let shown = ids(&["c4", "c5"]);
        let stored = Stored { source_ids: &shown, file_paths: &[], chunk_count: 5 };
        let (p, surviving) = merged(Some(stored), &[("c6", "b"), ("c6", "b")], limits(2, SourceIdsLimitMethod::Fifo));
        assert_eq!(p.source_ids, ids(&["c5", "c6"]));
        assert_eq!(p.truncate, "FIFO 2/6");
        assert!(surviving.contains("c6"));
    }

    #[test]
    fn rebuilt_provenance_shows_the_window_with_the_remaining_total() {
        let window = ids(&["c2", "c3"]);
        let p = rebuilt(&window, 7, &[("c2", "a"), ("c3", "b"), ("c3", "c")], limits(2, SourceIdsLimitMethod::Keep));
        assert_eq!(p.source_ids, window);
        assert_eq!(p.truncate, "KEEP Old");
        assert_eq!(p.file_paths, ids(&["a", "b", "...truncated...(KEEP Old)"]));
        let p = rebuilt(&window, 2, &[], limits(2, SourceIdsLimitMethod::Fifo));
        assert_eq!((p.truncate.as_str(), p.chunk_count), ("", 2));
    }
}
