//! The three vector sets: rows in the `vectors` table (the truth) and an in-memory matrix per set
//! (derived state, searched by exact brute-force dot product).
//!
//! Each set has a generation counter in `meta` (`vgen:<kind>`), bumped inside every transaction
//! that changes the set. The in-memory index remembers the generation it reflects; when another
//! connection (another process, or another handle on the same file) has committed a newer one,
//! the set is reloaded before searching.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

use lightrag_ports::{StoreError, VectorHit, VectorKind};
use rusqlite::types::Value;
use rusqlite::{Connection, params};

use crate::apply::Applied;
use crate::codec::{blob_to_vector, db_err, meta_get_i64, meta_set, query_in, row_err};

/// Generation value marking a set that must be reloaded before the next search.
pub(crate) const STALE: i64 = -1;

/// Meta key holding the dimension of every vector set.
pub(crate) const DIM_KEY: &str = "vector_dim";

/// Position of a kind in per-kind arrays.
pub(crate) fn slot(kind: VectorKind) -> usize {
    match kind {
        VectorKind::Entity => 0,
        VectorKind::Relation => 1,
        VectorKind::Chunk => 2,
    }
}

fn gen_key(kind: VectorKind) -> String {
    format!("vgen:{}", kind.as_str())
}

/// One change to an in-memory set, replayed after the transaction that made it commits.
#[derive(Debug)]
pub(crate) enum VecOp {
    /// Insert or replace (the vector is already normalised).
    Put(VectorKind, String, Vec<f32>),
    /// Remove.
    Delete(VectorKind, String),
}

/// One vector set as a contiguous row-major matrix.
#[derive(Debug, Default)]
pub(crate) struct VectorSet {
    keys: Vec<String>,
    data: Vec<f32>,
    rows: HashMap<String, usize>,
}

impl VectorSet {
    /// Number of vectors.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    fn upsert(&mut self, dim: usize, key: &str, v: &[f32]) {
        if v.len() != dim {
            return;
        }
        match self.rows.get(key) {
            Some(&row) => self.data[row * dim..(row + 1) * dim].copy_from_slice(v),
            None => {
                self.rows.insert(key.to_string(), self.keys.len());
                self.keys.push(key.to_string());
                self.data.extend_from_slice(v);
            }
        }
    }

    fn remove(&mut self, dim: usize, key: &str) {
        let Some(row) = self.rows.remove(key) else {
            return;
        };
        let last = self.keys.len() - 1;
        if row != last {
            self.data.copy_within(last * dim..(last + 1) * dim, row * dim);
            self.keys.swap(row, last);
            self.rows.insert(self.keys[row].clone(), row);
        }
        self.keys.pop();
        self.data.truncate(last * dim);
    }

    /// The `top_k` best rows by dot product with `query` (normalised) at or above `min_score`.
    pub(crate) fn search(&self, dim: usize, query: &[f32], top_k: usize, min_score: f32) -> Vec<VectorHit> {
        if top_k == 0 || dim == 0 || self.keys.is_empty() {
            return Vec::new();
        }
        let mut scored: Vec<(f32, usize)> = self
            .data
            .chunks_exact(dim)
            .enumerate()
            .filter_map(|(row, v)| {
                let s = dot(v, query);
                (s >= min_score).then_some((s, row))
            })
            .collect();
        let order = |a: &(f32, usize), b: &(f32, usize)| -> Ordering {
            b.0.total_cmp(&a.0).then_with(|| self.keys[a.1].cmp(&self.keys[b.1]))
        };
        if scored.len() > top_k {
            scored.select_nth_unstable_by(top_k - 1, order);
            scored.truncate(top_k);
        }
        scored.sort_unstable_by(order);
        scored.into_iter().map(|(score, row)| VectorHit { key: self.keys[row].clone(), score }).collect()
    }
}

/// Dot product with eight independent accumulators (lets the compiler vectorise).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for ((s, xi), yi) in acc.iter_mut().zip(x).zip(y) {
            *s += xi * yi;
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for (x, y) in ra.iter().zip(rb) {
        sum += x * y;
    }
    sum
}

/// The in-memory index of all three sets.
#[derive(Debug, Default)]
pub(crate) struct VectorIndex {
    /// Dimension of every set, once known.
    pub(crate) dim: Option<usize>,
    /// The sets, by [`slot`].
    pub(crate) sets: [VectorSet; 3],
    /// The generation each set reflects (or [`STALE`]).
    pub(crate) gens: [i64; 3],
}

impl VectorIndex {
    /// Whether any set must be reloaded.
    pub(crate) fn any_stale(&self) -> bool {
        self.gens.contains(&STALE)
    }

    /// Replays committed changes. `before`/`after` are the generations around the commit; a set
    /// that missed commits of other connections is marked stale instead.
    pub(crate) fn replay(&mut self, applied: &Applied) {
        let Applied { ops, before, after, dim, cleared } = applied;
        let dim = *dim;
        if dim.is_some() {
            self.dim = dim;
        }
        let mut apply = [false; 3];
        for i in 0..3 {
            if before[i] == after[i] {
                continue;
            }
            if self.gens[i] == before[i] {
                apply[i] = true;
                self.gens[i] = after[i];
                if *cleared {
                    self.sets[i] = VectorSet::default();
                }
            } else if self.gens[i] < after[i] {
                self.gens[i] = STALE;
            }
        }
        let Some(dim) = self.dim else { return };
        for op in ops {
            match op {
                VecOp::Put(kind, key, v) if apply[slot(*kind)] => self.sets[slot(*kind)].upsert(dim, key, v),
                VecOp::Delete(kind, key) if apply[slot(*kind)] => self.sets[slot(*kind)].remove(dim, key),
                _ => {}
            }
        }
    }
}

/// Generations of the three sets as stored.
pub(crate) fn stored_gens(conn: &Connection) -> Result<[i64; 3], StoreError> {
    let mut out = [0i64; 3];
    for kind in VectorKind::ALL {
        out[slot(kind)] = meta_get_i64(conn, &gen_key(kind))?.unwrap_or(0);
    }
    Ok(out)
}

/// Bumps the generation of `kind` inside the current transaction.
pub(crate) fn bump_gen(conn: &Connection, kind: VectorKind, current: i64) -> Result<i64, StoreError> {
    let next = current + 1;
    meta_set(conn, &gen_key(kind), &next.to_string())?;
    Ok(next)
}

/// The stored dimension of the vector sets, if known.
pub(crate) fn stored_dim(conn: &Connection) -> Result<Option<usize>, StoreError> {
    Ok(meta_get_i64(conn, DIM_KEY)?.map(|d| d.max(0) as usize))
}

/// Loads one set from the table.
pub(crate) fn load_set(conn: &Connection, kind: VectorKind, dim: usize) -> Result<VectorSet, StoreError> {
    let mut set = VectorSet::default();
    let mut stmt = conn.prepare_cached("SELECT key, vector FROM vectors WHERE kind = ?1").map_err(db_err)?;
    let mut rows = stmt.query([kind.as_str()]).map_err(db_err)?;
    while let Some(row) = rows.next().map_err(db_err)? {
        let key: String = row.get(0).map_err(db_err)?;
        let blob = row.get_ref(1).map_err(db_err)?.as_blob().map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let v = blob_to_vector(blob)?;
        if v.len() != dim {
            return Err(StoreError::Corrupt(format!(
                "{} vector '{key}' has dimension {}, the store holds dimension {dim}",
                kind.as_str(),
                v.len()
            )));
        }
        set.upsert(dim, &key, &v);
    }
    Ok(set)
}

/// Writes (replaces) a vector row.
pub(crate) fn put_vector(
    conn: &Connection,
    kind: VectorKind,
    key: &str,
    content: &str,
    vector: &[f32],
) -> Result<(), StoreError> {
    conn.prepare_cached("INSERT OR REPLACE INTO vectors (kind, key, content, vector) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| s.execute(params![kind.as_str(), key, content, crate::codec::vector_to_blob(vector)]))
        .map_err(db_err)?;
    Ok(())
}

/// Deletes a vector row; true when it existed.
pub(crate) fn delete_vector(conn: &Connection, kind: VectorKind, key: &str) -> Result<bool, StoreError> {
    conn.prepare_cached("DELETE FROM vectors WHERE kind = ?1 AND key = ?2")
        .and_then(|mut s| s.execute([kind.as_str(), key]))
        .map(|n| n > 0)
        .map_err(db_err)
}

/// Stored vectors by key, in the order asked.
pub(crate) fn get_vectors(
    conn: &Connection,
    kind: VectorKind,
    keys: &[String],
) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
    let rows = query_in(
        conn,
        "SELECT key, vector FROM vectors WHERE kind = ? AND key IN ({in})",
        &[Value::Text(kind.as_str().to_string())],
        keys,
        |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?)),
    )?;
    let mut by_key = HashMap::with_capacity(rows.len());
    for (key, blob) in rows {
        by_key.insert(key, blob_to_vector(&blob)?);
    }
    Ok(keys.iter().map(|k| by_key.get(k).cloned()).collect())
}

/// Number of vectors per set (every set present, 0 when empty).
pub(crate) fn vector_counts(conn: &Connection) -> Result<BTreeMap<VectorKind, usize>, StoreError> {
    let mut out: BTreeMap<VectorKind, usize> = VectorKind::ALL.iter().map(|k| (*k, 0)).collect();
    let mut stmt = conn.prepare_cached("SELECT kind, count(*) FROM vectors GROUP BY kind").map_err(db_err)?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))).map_err(db_err)?;
    for row in rows {
        let (kind, n) = row.map_err(row_err)?;
        let kind = VectorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == kind)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown vector set '{kind}'")))?;
        out.insert(kind, n.max(0) as usize);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use lightrag_ports::conformance::TestRng;

    use super::*;
    use crate::codec::normalise;

    /// Upserts and swap-removals keep the matrix, keys and row map consistent with a plain map.
    #[test]
    fn set_matches_a_plain_map_after_random_edits() {
        let dim = 8;
        let mut rng = TestRng::new(3);
        let mut set = VectorSet::default();
        let mut model: HashMap<String, Vec<f32>> = HashMap::new();
        for step in 0..2000 {
            let key = format!("k{}", rng.next_u64() % 300);
            if step % 3 == 0 {
                set.remove(dim, &key);
                model.remove(&key);
            } else {
                let mut v = rng.vector(dim);
                normalise(&mut v);
                set.upsert(dim, &key, &v);
                model.insert(key, v);
            }
        }
        assert_eq!(set.len(), model.len());
        assert_eq!(set.data.len(), model.len() * dim);
        for (key, row) in &set.rows {
            assert_eq!(&set.keys[*row], key, "row map points at the right key");
            assert_eq!(&set.data[row * dim..(row + 1) * dim], model[key].as_slice(), "row data of {key}");
        }
        let mut q = rng.vector(dim);
        normalise(&mut q);
        let hits = set.search(dim, &q, 7, -1.0);
        let mut want: Vec<(f32, &String)> = model.iter().map(|(k, v)| (dot(v, &q), k)).collect();
        want.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        let want: Vec<&String> = want.into_iter().take(7).map(|(_, k)| k).collect();
        let got: Vec<&String> = hits.iter().map(|h| &h.key).collect();
        assert_eq!(got, want, "top-k after edits equals brute force");
    }

    #[test]
    fn dot_handles_lengths_that_are_not_multiples_of_eight() {
        let a: Vec<f32> = (0..13).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..13).map(|i| (13 - i) as f32).collect();
        let want: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - want).abs() < 1e-3);
    }
}
