//! Approximate search: an HNSW graph (`usearch`), built incrementally, saved with `usearch`'s own
//! file format beside a snapshot header.
//!
//! Locking: writers (upsert, delete, clear, save) are serialised by `mutate`. New vectors are
//! added while searches run (usearch supports concurrent adds and searches); replacing a vector
//! (remove + add) and growing the graph's capacity take the `gate` exclusively, so a search never
//! sees an id missing half-way through an update. Every call into usearch holds one of the
//! thread contexts reserved in the graph (`Permits`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};

use lightrag_ports::{
    IndexHit, SearchParams, VectorEncoding, VectorId, VectorIndex, VectorIndexError, Watermark, is_usable,
};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use crate::encoding::normalised;
use crate::snapshot::{self, Header, IndexType};
use crate::topk::better;

/// Graph parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HnswParams {
    /// Links per node (`M`); level 0 keeps twice as many.
    pub connectivity: usize,
    /// Candidate list size while inserting (`efConstruction`).
    pub expansion_add: usize,
    /// Candidate list size while searching (`ef`); raised to `top_k` when smaller.
    pub expansion_search: usize,
    /// Calls into the graph that may run at once (searches and inserts together).
    pub max_concurrency: usize,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams { connectivity: 16, expansion_add: 128, expansion_search: 128, max_concurrency: 16 }
    }
}

/// A counting semaphore over the graph's thread contexts.
struct Permits {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Permits {
    fn acquire(&self) -> PermitGuard<'_> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        PermitGuard(self)
    }
}

struct PermitGuard<'a>(&'a Permits);

impl Drop for PermitGuard<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.0.freed.notify_one();
    }
}

/// HNSW search through `usearch` (approximate; recall ≥ 0.95 on clustered embeddings).
pub struct HnswIndex {
    dim: usize,
    encoding: VectorEncoding,
    params: HnswParams,
    index: Index,
    gate: RwLock<()>,
    mutate: Mutex<()>,
    permits: Permits,
    mark: Mutex<Watermark>,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl std::fmt::Debug for HnswIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HnswIndex")
            .field("dim", &self.dim)
            .field("encoding", &self.encoding)
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

fn backend<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> VectorIndexError + '_ {
    move |e| VectorIndexError::Backend(format!("{what}: {e}"))
}

fn options(dim: usize, encoding: VectorEncoding, params: &HnswParams) -> IndexOptions {
    IndexOptions {
        dimensions: dim,
        // int8 vectors are scaled to fill the byte range, which only cosine ignores.
        metric: if encoding == VectorEncoding::I8 { MetricKind::Cos } else { MetricKind::IP },
        quantization: match encoding {
            VectorEncoding::F32 => ScalarKind::F32,
            VectorEncoding::F16 => ScalarKind::F16,
            VectorEncoding::I8 => ScalarKind::I8,
        },
        connectivity: params.connectivity,
        expansion_add: params.expansion_add,
        expansion_search: params.expansion_search,
        multi: false,
    }
}

impl HnswIndex {
    /// An empty graph. Batches of new vectors are inserted on `pool`'s threads when given.
    pub fn new(
        dim: usize,
        encoding: VectorEncoding,
        params: HnswParams,
        pool: Option<Arc<rayon::ThreadPool>>,
    ) -> Result<HnswIndex, VectorIndexError> {
        let index = Index::new(&options(dim, encoding, &params)).map_err(backend("creating the HNSW graph"))?;
        HnswIndex::wrap(index, dim, encoding, params, Watermark::default(), pool)
    }

    fn wrap(
        index: Index,
        dim: usize,
        encoding: VectorEncoding,
        mut params: HnswParams,
        mark: Watermark,
        pool: Option<Arc<rayon::ThreadPool>>,
    ) -> Result<HnswIndex, VectorIndexError> {
        params.max_concurrency = params.max_concurrency.max(1);
        let capacity = index.size().max(1024);
        index
            .reserve_capacity_and_threads(capacity, params.max_concurrency)
            .map_err(backend("reserving the HNSW graph"))?;
        Ok(HnswIndex {
            dim,
            encoding,
            params,
            index,
            gate: RwLock::new(()),
            mutate: Mutex::new(()),
            permits: Permits { free: Mutex::new(params.max_concurrency), freed: Condvar::new() },
            mark: Mutex::new(mark),
            pool,
        })
    }

    /// Reads a snapshot written by [`VectorIndex::save`] of an HNSW index. Fails with
    /// [`VectorIndexError::BadSnapshot`] when it was written with another dimension or encoding.
    pub fn load(
        path: &Path,
        dim: usize,
        encoding: VectorEncoding,
        params: HnswParams,
        pool: Option<Arc<rayon::ThreadPool>>,
    ) -> Result<HnswIndex, VectorIndexError> {
        let (header, payload) = snapshot::read_hnsw_header(path)?;
        if header.dim != dim || header.encoding != encoding {
            return Err(snapshot::bad(path, "written for another dimension or encoding"));
        }
        let index = Index::new(&options(dim, encoding, &params)).map_err(backend("creating the HNSW graph"))?;
        let payload_str = payload.to_str().ok_or_else(|| snapshot::bad(path, "payload path is not UTF-8"))?;
        index.load(payload_str).map_err(|e| snapshot::bad(&payload, &format!("usearch cannot load it: {e}")))?;
        if index.size() as u64 != header.count {
            return Err(snapshot::bad(path, "its payload holds another number of vectors than the header says"));
        }
        index.change_expansion_search(params.expansion_search);
        HnswIndex::wrap(index, dim, encoding, params, header.mark, pool)
    }

    /// The vector as usearch receives it: normalised, and for int8 scaled to fill the byte range.
    fn prepare(&self, v: &[f32]) -> Vec<f32> {
        let mut out = normalised(v);
        if self.encoding == VectorEncoding::I8 {
            let max = out.iter().fold(0f32, |m, x| m.max(x.abs()));
            if max > 0.0 && max.is_finite() {
                for x in out.iter_mut() {
                    *x /= max;
                }
            }
        }
        out
    }

    fn check_dim(&self, got: usize) -> Result<(), VectorIndexError> {
        if got == self.dim { Ok(()) } else { Err(VectorIndexError::WrongDimension { expected: self.dim, got }) }
    }

    /// Makes room for `more` vectors (exclusive: usearch cannot grow while in use).
    fn ensure_capacity(&self, more: usize) -> Result<(), VectorIndexError> {
        let needed = self.index.size() + more;
        if needed < self.index.capacity() {
            return Ok(());
        }
        let _excl = self.gate.write().unwrap_or_else(PoisonError::into_inner);
        let grown = needed.max(self.index.capacity() + self.index.capacity() / 2).max(1024);
        self.index
            .reserve_capacity_and_threads(grown, self.params.max_concurrency)
            .map_err(backend("growing the HNSW graph"))
    }

    fn add(&self, id: VectorId, v: &[f32]) -> Result<(), VectorIndexError> {
        let _permit = self.permits.acquire();
        self.index.add(id, v).map_err(backend("inserting into the HNSW graph"))
    }

    fn mark_lock(&self) -> std::sync::MutexGuard<'_, Watermark> {
        self.mark.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The graph's parameters.
    pub fn params(&self) -> HnswParams {
        self.params
    }

    /// Changes the search width (`ef`) of later searches.
    pub fn set_expansion_search(&self, ef: usize) {
        let _excl = self.gate.write().unwrap_or_else(PoisonError::into_inner);
        self.index.change_expansion_search(ef);
    }
}

impl VectorIndex for HnswIndex {
    fn dim(&self) -> usize {
        self.dim
    }

    fn encoding(&self) -> VectorEncoding {
        self.encoding
    }

    fn len(&self) -> usize {
        self.index.size()
    }

    fn contains(&self, id: VectorId) -> bool {
        self.index.contains(id)
    }

    fn get(&self, ids: &[VectorId]) -> Result<Vec<Option<Vec<f32>>>, VectorIndexError> {
        let _shared = self.gate.read().unwrap_or_else(PoisonError::into_inner);
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            let mut v = vec![0f32; self.dim];
            let found = self.index.get(id, &mut v).map_err(backend("reading a vector of the HNSW graph"))?;
            out.push(
                (found > 0)
                    .then(|| {
                        // int8 is held as scaled cosine vectors: bring it back to unit length
                        crate::encoding::normalise(&mut v);
                        v
                    })
                    .filter(|v| is_usable(v)),
            );
        }
        Ok(out)
    }

    fn similarities(&self, ids: &[VectorId], query: &[f32]) -> Result<Vec<Option<f32>>, VectorIndexError> {
        self.check_dim(query.len())?;
        if !is_usable(query) {
            return Ok(vec![None; ids.len()]);
        }
        let query = normalised(query);
        let _shared = self.gate.read().unwrap_or_else(PoisonError::into_inner);
        // one buffer for every id: nothing is allocated per vector
        let mut v = vec![0f32; self.dim];
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            let found = self.index.get(id, &mut v).map_err(backend("reading a vector of the HNSW graph"))?;
            out.push(
                (found > 0)
                    .then(|| {
                        if self.encoding != VectorEncoding::F32 {
                            crate::encoding::normalise(&mut v);
                        }
                        crate::encoding::dot(&v, &query)
                    })
                    .filter(|s| s.is_finite()),
            );
        }
        Ok(out)
    }

    fn is_exact(&self) -> bool {
        false
    }

    fn min_recall(&self) -> f64 {
        0.9
    }

    fn upsert(&self, batch: &[(VectorId, &[f32])]) -> Result<(), VectorIndexError> {
        for (_, v) in batch {
            self.check_dim(v.len())?;
        }
        let _writer = self.mutate.lock().unwrap_or_else(PoisonError::into_inner);
        // The last value of an id repeated in the batch wins.
        let mut last: HashMap<VectorId, usize> = HashMap::with_capacity(batch.len());
        for (i, (id, _)) in batch.iter().enumerate() {
            last.insert(*id, i);
        }
        let (mut replaced, mut fresh, mut unusable) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (id, v)) in batch.iter().enumerate() {
            if last.get(id) != Some(&i) {
                continue;
            }
            if !is_usable(v) {
                // not held (a NaN distance would corrupt the graph): it takes its id out instead
                if self.index.contains(*id) {
                    unusable.push(*id);
                }
                continue;
            }
            let item = (*id, self.prepare(v));
            if self.index.contains(*id) { replaced.push(item) } else { fresh.push(item) }
        }
        self.ensure_capacity(replaced.len() + fresh.len())?;
        if !replaced.is_empty() || !unusable.is_empty() {
            let _excl = self.gate.write().unwrap_or_else(PoisonError::into_inner);
            for id in &unusable {
                self.index.remove(*id).map_err(backend("removing from the HNSW graph"))?;
            }
            for (id, v) in &replaced {
                self.index.remove(*id).map_err(backend("replacing in the HNSW graph"))?;
                self.add(*id, v)?;
            }
        }
        let _shared = self.gate.read().unwrap_or_else(PoisonError::into_inner);
        match &self.pool {
            Some(pool) if fresh.len() > 1 && pool.current_num_threads() > 1 => pool.install(|| {
                use rayon::prelude::*;
                fresh.par_iter().try_for_each(|(id, v)| self.add(*id, v))
            }),
            _ => fresh.iter().try_for_each(|(id, v)| self.add(*id, v)),
        }
    }

    fn delete(&self, ids: &[VectorId]) -> Result<usize, VectorIndexError> {
        let _writer = self.mutate.lock().unwrap_or_else(PoisonError::into_inner);
        let _excl = self.gate.write().unwrap_or_else(PoisonError::into_inner);
        let mut removed = 0;
        for id in ids {
            removed += self.index.remove(*id).map_err(backend("removing from the HNSW graph"))?.min(1);
        }
        Ok(removed)
    }

    fn clear(&self) -> Result<(), VectorIndexError> {
        let _writer = self.mutate.lock().unwrap_or_else(PoisonError::into_inner);
        let _excl = self.gate.write().unwrap_or_else(PoisonError::into_inner);
        self.index.reset().map_err(backend("clearing the HNSW graph"))?;
        self.index
            .reserve_capacity_and_threads(1024, self.params.max_concurrency)
            .map_err(backend("reserving the HNSW graph"))
    }

    fn search(&self, query: &[f32], params: &SearchParams<'_>) -> Result<Vec<IndexHit>, VectorIndexError> {
        self.check_dim(query.len())?;
        if params.top_k == 0 || !is_usable(query) {
            return Ok(Vec::new());
        }
        let q = self.prepare(query);
        let _shared = self.gate.read().unwrap_or_else(PoisonError::into_inner);
        let _permit = self.permits.acquire();
        let found = match params.filter {
            Some(filter) => self.index.filtered_search(&q, params.top_k, filter),
            None => self.index.search(&q, params.top_k),
        }
        .map_err(backend("searching the HNSW graph"))?;
        let mut hits: Vec<IndexHit> = found
            .keys
            .iter()
            .zip(&found.distances)
            .map(|(id, d)| IndexHit { id: *id, score: 1.0 - d })
            .filter(|h| h.score.is_finite() && h.score >= params.min_score)
            .collect();
        hits.sort_unstable_by(better);
        Ok(hits)
    }

    fn watermark(&self) -> Watermark {
        *self.mark_lock()
    }

    fn set_watermark(&self, watermark: Watermark) {
        *self.mark_lock() = watermark;
    }

    fn save(&self, path: &Path) -> Result<(), VectorIndexError> {
        let _writer = self.mutate.lock().unwrap_or_else(PoisonError::into_inner);
        let _shared = self.gate.read().unwrap_or_else(PoisonError::into_inner);
        let header = Header {
            index_type: IndexType::Hnsw,
            encoding: self.encoding,
            dim: self.dim,
            mark: self.watermark(),
            count: self.index.size() as u64,
        };
        let stem = path.file_name().and_then(|n| n.to_str()).unwrap_or("vectors");
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let payload_name = format!("{stem}.{}-{nonce}.usearch", std::process::id());
        let payload = path.with_file_name(&payload_name);
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(snapshot::io(dir))?;
        }
        let payload_str = payload.to_str().ok_or_else(|| snapshot::bad(&payload, "path is not UTF-8"))?;
        {
            let _permit = self.permits.acquire();
            self.index.save(payload_str).map_err(backend("saving the HNSW graph"))?;
        }
        std::fs::File::open(&payload).and_then(|f| f.sync_all()).map_err(snapshot::io(&payload))?;
        snapshot::write_hnsw_header(path, &header, &payload_name)?;
        snapshot::remove_stale_payloads(path, &payload);
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        self.index.memory_usage()
    }
}
