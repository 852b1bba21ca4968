//! The index a store uses: exact below a size threshold, HNSW from it on. The move happens inside
//! the upsert that crosses the threshold; searches keep using the exact index until the graph is
//! complete, then switch.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use lightrag_ports::{IndexHit, SearchParams, VectorEncoding, VectorId, VectorIndex, VectorIndexError, Watermark};

use crate::exact::ExactIndex;
use crate::hnsw::{HnswIndex, HnswParams};
use crate::snapshot::{self, IndexType};

/// How a store's vector sets are indexed.
#[derive(Clone)]
pub struct IndexConfig {
    /// How vectors are held in memory.
    pub encoding: VectorEncoding,
    /// Sets with at least this many vectors move to the HNSW graph (0 = always HNSW,
    /// `usize::MAX` = always exact).
    pub ann_threshold: usize,
    /// Graph parameters.
    pub hnsw: HnswParams,
    /// Threads for exact scans and graph inserts (`None` = the calling thread only).
    pub pool: Option<Arc<rayon::ThreadPool>>,
}

impl std::fmt::Debug for IndexConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexConfig")
            .field("encoding", &self.encoding)
            .field("ann_threshold", &self.ann_threshold)
            .field("hnsw", &self.hnsw)
            .field("threads", &self.pool.as_ref().map(|p| p.current_num_threads()))
            .finish()
    }
}

/// Default [`IndexConfig::ann_threshold`].
pub const DEFAULT_ANN_THRESHOLD: usize = 50_000;

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            encoding: VectorEncoding::F32,
            ann_threshold: DEFAULT_ANN_THRESHOLD,
            hnsw: HnswParams::default(),
            pool: None,
        }
    }
}

impl IndexConfig {
    /// A search/insert pool of `threads` threads (at least 1).
    pub fn pool_of(threads: usize) -> Result<Arc<rayon::ThreadPool>, VectorIndexError> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("vector-index-{i}"))
            .build()
            .map(Arc::new)
            .map_err(|e| VectorIndexError::Backend(format!("cannot start the vector search threads: {e}")))
    }
}

#[derive(Clone)]
enum Tier {
    Exact(Arc<ExactIndex>),
    Hnsw(Arc<HnswIndex>),
}

impl Tier {
    fn index(&self) -> &dyn VectorIndex {
        match self {
            Tier::Exact(i) => i.as_ref(),
            Tier::Hnsw(i) => i.as_ref(),
        }
    }
}

/// Exact search for small sets, HNSW for large ones (see the module docs).
pub struct TieredIndex {
    dim: usize,
    config: IndexConfig,
    tier: RwLock<Tier>,
    mutate: Mutex<()>,
}

impl std::fmt::Debug for TieredIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TieredIndex")
            .field("dim", &self.dim)
            .field("config", &self.config)
            .field("approximate", &!self.is_exact())
            .finish_non_exhaustive()
    }
}

impl TieredIndex {
    /// An empty index (exact until it reaches the threshold).
    pub fn new(dim: usize, config: IndexConfig) -> Result<TieredIndex, VectorIndexError> {
        let tier = if config.ann_threshold == 0 {
            Tier::Hnsw(Arc::new(HnswIndex::new(dim, config.encoding, config.hnsw, config.pool.clone())?))
        } else {
            Tier::Exact(Arc::new(ExactIndex::new(dim, config.encoding, config.pool.clone())))
        };
        Ok(TieredIndex { dim, config, tier: RwLock::new(tier), mutate: Mutex::new(()) })
    }

    /// Reads a snapshot written by [`VectorIndex::save`]. Fails with
    /// [`VectorIndexError::BadSnapshot`] when it was written for another dimension or encoding
    /// (the caller rebuilds from the store).
    pub fn load(path: &Path, dim: usize, config: IndexConfig) -> Result<TieredIndex, VectorIndexError> {
        let header = snapshot::read_header(path)?;
        if header.dim != dim || header.encoding != config.encoding {
            return Err(snapshot::bad(path, "written for another dimension or encoding"));
        }
        let tier = match header.index_type {
            IndexType::Exact => Tier::Exact(Arc::new(ExactIndex::load(path, config.pool.clone())?)),
            IndexType::Hnsw => {
                Tier::Hnsw(Arc::new(HnswIndex::load(path, dim, config.encoding, config.hnsw, config.pool.clone())?))
            }
        };
        let index = TieredIndex { dim, config, tier: RwLock::new(tier), mutate: Mutex::new(()) };
        index.promote_if_large()?;
        Ok(index)
    }

    fn current(&self) -> Tier {
        self.tier.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Moves an exact index that reached the threshold into a new graph (caller holds `mutate`
    /// or owns the index exclusively). Searches use the exact index until the swap.
    fn promote_if_large(&self) -> Result<(), VectorIndexError> {
        let Tier::Exact(exact) = self.current() else { return Ok(()) };
        if exact.len() < self.config.ann_threshold {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let graph = HnswIndex::new(self.dim, self.config.encoding, self.config.hnsw, self.config.pool.clone())?;
        let mut ids = Vec::with_capacity(4096);
        let mut data: Vec<f32> = Vec::with_capacity(4096 * self.dim);
        let mut failure = None;
        let mut flush = |ids: &mut Vec<VectorId>, data: &mut Vec<f32>| {
            let batch: Vec<(VectorId, &[f32])> = ids.iter().copied().zip(data.chunks(self.dim)).collect();
            if let Err(e) = graph.upsert(&batch) {
                failure.get_or_insert(e);
            }
            ids.clear();
            data.clear();
        };
        exact.export(&mut |id, v| {
            ids.push(id);
            data.extend_from_slice(v);
            if ids.len() == 4096 {
                flush(&mut ids, &mut data);
            }
        });
        flush(&mut ids, &mut data);
        if let Some(e) = failure {
            return Err(e);
        }
        graph.set_watermark(exact.watermark());
        tracing::info!(
            vectors = graph.len(),
            seconds = started.elapsed().as_secs_f64(),
            "vector set reached the ANN threshold; moved to an HNSW graph"
        );
        *self.tier.write().unwrap_or_else(PoisonError::into_inner) = Tier::Hnsw(Arc::new(graph));
        Ok(())
    }
}

impl VectorIndex for TieredIndex {
    fn dim(&self) -> usize {
        self.dim
    }

    fn encoding(&self) -> VectorEncoding {
        self.config.encoding
    }

    fn len(&self) -> usize {
        self.current().index().len()
    }

    fn contains(&self, id: VectorId) -> bool {
        self.current().index().contains(id)
    }

    fn get(&self, ids: &[VectorId]) -> Result<Vec<Option<Vec<f32>>>, VectorIndexError> {
        self.current().index().get(ids)
    }

    fn similarities(&self, ids: &[VectorId], query: &[f32]) -> Result<Vec<Option<f32>>, VectorIndexError> {
        self.current().index().similarities(ids, query)
    }

    fn is_exact(&self) -> bool {
        self.current().index().is_exact()
    }

    fn min_recall(&self) -> f64 {
        self.current().index().min_recall()
    }

    fn upsert(&self, batch: &[(VectorId, &[f32])]) -> Result<(), VectorIndexError> {
        let _writer = self.mutate.lock().unwrap_or_else(PoisonError::into_inner);
        self.current().index().upsert(batch)?;
        self.promote_if_large()
    }

    fn delete(&self, ids: &[VectorId]) -> Result<usize, VectorIndexError> {
        let _writer = self.mutate.lock().unwrap_or_else(PoisonError::into_inner);
        self.current().index().delete(ids)
    }

    fn clear(&self) -> Result<(), VectorIndexError> {
        let _writer = self.mutate.lock().unwrap_or_else(PoisonError::into_inner);
        let mark = self.watermark();
        let fresh = TieredIndex::new(self.dim, self.config.clone())?;
        let tier = fresh.current();
        tier.index().set_watermark(mark);
        *self.tier.write().unwrap_or_else(PoisonError::into_inner) = tier;
        Ok(())
    }

    fn search(&self, query: &[f32], params: &SearchParams<'_>) -> Result<Vec<IndexHit>, VectorIndexError> {
        self.current().index().search(query, params)
    }

    fn watermark(&self) -> Watermark {
        self.current().index().watermark()
    }

    fn set_watermark(&self, watermark: Watermark) {
        self.current().index().set_watermark(watermark);
    }

    fn save(&self, path: &Path) -> Result<(), VectorIndexError> {
        let _writer = self.mutate.lock().unwrap_or_else(PoisonError::into_inner);
        self.current().index().save(path)
    }

    fn memory_bytes(&self) -> usize {
        self.current().index().memory_bytes()
    }
}
