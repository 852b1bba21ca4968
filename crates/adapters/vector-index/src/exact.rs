//! Exact search: every vector in one contiguous matrix, scanned with SIMD dot products, split
//! across the search pool's threads for large sets.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use lightrag_ports::{
    IndexHit, SearchParams, VectorEncoding, VectorId, VectorIndex, VectorIndexError, Watermark, is_usable,
};

use crate::encoding::{Matrix, Query, normalised};
use crate::snapshot::{self, Header, IndexType};
use crate::topk::TopK;

/// Rows per thread below which a search stays on the calling thread.
const ROWS_PER_THREAD: usize = 8_192;

/// The contents: rows, the id of each row and the row of each id.
#[derive(Debug)]
pub(crate) struct Rows {
    pub(crate) ids: Vec<VectorId>,
    pub(crate) slots: HashMap<VectorId, u32>,
    pub(crate) matrix: Matrix,
}

impl Rows {
    pub(crate) fn new(encoding: VectorEncoding) -> Rows {
        Rows { ids: Vec::new(), slots: HashMap::new(), matrix: Matrix::new(encoding) }
    }

    pub(crate) fn upsert(&mut self, dim: usize, id: VectorId, v: &[f32]) {
        match self.slots.get(&id) {
            Some(&row) => self.matrix.set(dim, row as usize, v),
            None => {
                self.slots.insert(id, self.ids.len() as u32);
                self.ids.push(id);
                self.matrix.push(v);
            }
        }
    }

    pub(crate) fn remove(&mut self, dim: usize, id: VectorId) -> bool {
        let Some(row) = self.slots.remove(&id) else { return false };
        let (row, rows) = (row as usize, self.ids.len());
        self.matrix.swap_remove(dim, row, rows);
        self.ids.swap_remove(row);
        if row < self.ids.len() {
            self.slots.insert(self.ids[row], row as u32);
        }
        true
    }

    fn scan(&self, dim: usize, query: &Query, params: &SearchParams<'_>, rows: std::ops::Range<usize>) -> TopK {
        let mut top = TopK::new(params.top_k);
        for row in rows {
            let score = self.matrix.score(dim, row, query);
            if score < params.min_score || score < top.floor() {
                continue;
            }
            let id = self.ids[row];
            if params.filter.is_some_and(|f| !f(id)) {
                continue;
            }
            top.offer(id, score);
        }
        top
    }

    pub(crate) fn bytes(&self) -> usize {
        // hashbrown: key + value per bucket at 7/8 load, plus one control byte.
        self.ids.capacity() * 8 + self.slots.capacity() * 13 + self.matrix.bytes()
    }
}

/// Brute-force cosine search, exact. Small sets; also the fallback of the tiered index.
pub struct ExactIndex {
    dim: usize,
    encoding: VectorEncoding,
    rows: RwLock<Rows>,
    mark: Mutex<Watermark>,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl std::fmt::Debug for ExactIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExactIndex").field("dim", &self.dim).field("encoding", &self.encoding).finish_non_exhaustive()
    }
}

impl ExactIndex {
    /// An empty index. Searches of large sets are split across `pool`'s threads when given.
    pub fn new(dim: usize, encoding: VectorEncoding, pool: Option<Arc<rayon::ThreadPool>>) -> ExactIndex {
        ExactIndex::from_rows(dim, Rows::new(encoding), Watermark::default(), pool)
    }

    pub(crate) fn from_rows(
        dim: usize,
        rows: Rows,
        mark: Watermark,
        pool: Option<Arc<rayon::ThreadPool>>,
    ) -> ExactIndex {
        ExactIndex { dim, encoding: rows.matrix.encoding(), rows: RwLock::new(rows), mark: Mutex::new(mark), pool }
    }

    /// Reads a snapshot written by [`VectorIndex::save`] of an exact index.
    pub fn load(path: &Path, pool: Option<Arc<rayon::ThreadPool>>) -> Result<ExactIndex, VectorIndexError> {
        let (header, rows) = snapshot::read_exact(path)?;
        Ok(ExactIndex::from_rows(header.dim, rows, header.mark, pool))
    }

    pub(crate) fn read_rows(&self) -> std::sync::RwLockReadGuard<'_, Rows> {
        self.rows.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_rows(&self) -> std::sync::RwLockWriteGuard<'_, Rows> {
        self.rows.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every id and its vector (decoded), for moving into another index.
    pub(crate) fn export(&self, visit: &mut dyn FnMut(VectorId, &[f32])) {
        let rows = self.read_rows();
        for (row, id) in rows.ids.iter().enumerate() {
            visit(*id, &rows.matrix.row(self.dim, row));
        }
    }

    fn check_dim(&self, got: usize) -> Result<(), VectorIndexError> {
        if got == self.dim { Ok(()) } else { Err(VectorIndexError::WrongDimension { expected: self.dim, got }) }
    }
}

impl VectorIndex for ExactIndex {
    fn dim(&self) -> usize {
        self.dim
    }

    fn encoding(&self) -> VectorEncoding {
        self.encoding
    }

    fn len(&self) -> usize {
        self.read_rows().ids.len()
    }

    fn contains(&self, id: VectorId) -> bool {
        self.read_rows().slots.contains_key(&id)
    }

    fn get(&self, ids: &[VectorId]) -> Result<Vec<Option<Vec<f32>>>, VectorIndexError> {
        let rows = self.read_rows();
        let decode = |row: u32| {
            let mut v = rows.matrix.row(self.dim, row as usize);
            if self.encoding != VectorEncoding::F32 {
                // f16/int8 rounding leaves the decoded vector slightly off unit length
                crate::encoding::normalise(&mut v);
            }
            v
        };
        // (an unusable vector is never upserted; one read from an older snapshot is not served)
        Ok(ids.iter().map(|id| rows.slots.get(id).map(|&row| decode(row)).filter(|v| is_usable(v))).collect())
    }

    fn similarities(&self, ids: &[VectorId], query: &[f32]) -> Result<Vec<Option<f32>>, VectorIndexError> {
        self.check_dim(query.len())?;
        if !is_usable(query) {
            return Ok(vec![None; ids.len()]);
        }
        let query = Query::new(self.encoding, &normalised(query));
        let rows = self.read_rows();
        Ok(ids
            .iter()
            .map(|id| {
                rows.slots
                    .get(id)
                    .map(|&row| rows.matrix.score(self.dim, row as usize, &query))
                    .filter(|s| s.is_finite())
            })
            .collect())
    }

    fn is_exact(&self) -> bool {
        true
    }

    fn upsert(&self, batch: &[(VectorId, &[f32])]) -> Result<(), VectorIndexError> {
        for (_, v) in batch {
            self.check_dim(v.len())?;
        }
        // an unusable vector (NaN, infinite, zero) is not held: it takes its id out instead
        let prepared: Vec<(VectorId, Option<Vec<f32>>)> =
            batch.iter().map(|(id, v)| (*id, is_usable(v).then(|| normalised(v)))).collect();
        let mut rows = self.write_rows();
        rows.matrix.reserve(self.dim, prepared.len());
        for (id, v) in &prepared {
            match v {
                Some(v) => rows.upsert(self.dim, *id, v),
                None => {
                    rows.remove(self.dim, *id);
                }
            }
        }
        Ok(())
    }

    fn delete(&self, ids: &[VectorId]) -> Result<usize, VectorIndexError> {
        let mut rows = self.write_rows();
        Ok(ids.iter().filter(|id| rows.remove(self.dim, **id)).count())
    }

    fn clear(&self) -> Result<(), VectorIndexError> {
        let mut rows = self.write_rows();
        *rows = Rows::new(self.encoding);
        Ok(())
    }

    fn search(&self, query: &[f32], params: &SearchParams<'_>) -> Result<Vec<IndexHit>, VectorIndexError> {
        self.check_dim(query.len())?;
        if params.top_k == 0 || !is_usable(query) {
            return Ok(Vec::new());
        }
        let query = Query::new(self.encoding, &normalised(query));
        let rows = self.read_rows();
        let n = rows.ids.len();
        let threads = self.pool.as_ref().map_or(1, |p| p.current_num_threads()).min(n / ROWS_PER_THREAD).max(1);
        let top = match (&self.pool, threads) {
            (Some(pool), t) if t > 1 => {
                let per = n.div_ceil(t);
                let parts: Vec<TopK> = pool.install(|| {
                    use rayon::prelude::*;
                    (0..t)
                        .into_par_iter()
                        .map(|i| rows.scan(self.dim, &query, params, i * per..((i + 1) * per).min(n)))
                        .collect()
                });
                let mut top = TopK::new(params.top_k);
                for part in parts {
                    top.merge(part);
                }
                top
            }
            _ => rows.scan(self.dim, &query, params, 0..n),
        };
        Ok(top.into_sorted())
    }

    fn watermark(&self) -> Watermark {
        *self.mark.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set_watermark(&self, watermark: Watermark) {
        *self.mark.lock().unwrap_or_else(PoisonError::into_inner) = watermark;
    }

    fn save(&self, path: &Path) -> Result<(), VectorIndexError> {
        let rows = self.read_rows();
        let header = Header {
            index_type: IndexType::Exact,
            encoding: self.encoding,
            dim: self.dim,
            mark: self.watermark(),
            count: rows.ids.len() as u64,
        };
        snapshot::write_exact(path, &header, &rows)
    }

    fn memory_bytes(&self) -> usize {
        self.read_rows().bytes()
    }
}

#[cfg(test)]
mod tests {
    use lightrag_ports::{SearchParams, VectorEncoding, VectorIndex};

    use super::*;

    /// A scan split across threads (sets above `2 × ROWS_PER_THREAD`) returns what one thread does.
    #[test]
    fn a_scan_split_across_threads_equals_a_single_thread_scan() {
        let (dim, n) = (8usize, 3 * ROWS_PER_THREAD + 17);
        let pool = crate::IndexConfig::pool_of(2).expect("pool");
        let split = ExactIndex::new(dim, VectorEncoding::F32, Some(pool));
        let single = ExactIndex::new(dim, VectorEncoding::F32, None);
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2001) as f32 / 1000.0 - 1.0
        };
        let data: Vec<(u64, Vec<f32>)> = (0..n as u64).map(|i| (i, (0..dim).map(|_| next()).collect())).collect();
        let batch: Vec<(u64, &[f32])> = data.iter().map(|(i, v)| (*i, v.as_slice())).collect();
        split.upsert(&batch).expect("upsert");
        single.upsert(&batch).expect("upsert");
        let even = |id: u64| id.is_multiple_of(2);
        for q in 0..5 {
            let query: Vec<f32> = (0..dim).map(|_| next()).collect();
            for params in [
                SearchParams::top(25),
                SearchParams { top_k: 10, min_score: 0.5, filter: None },
                SearchParams { top_k: 10, min_score: -1.0, filter: Some(&even) },
            ] {
                let a = split.search(&query, &params).expect("split");
                let b = single.search(&query, &params).expect("single");
                assert_eq!(a, b, "query {q}, {params:?}");
                assert!(!a.is_empty());
            }
        }
    }
}
