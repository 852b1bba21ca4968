//! The in-memory side of the vector sets: one [`TieredIndex`] per set (exact SIMD search below a
//! size threshold, an HNSW graph above), holding integer row ids only — keys stay in SQLite and
//! are looked up for the few hits a search returns.
//!
//! * **Open.** Each index is read from its snapshot (`<db file>.vectors/<set>.vidx`) and then
//!   catches up with the rows and tombstones committed after the snapshot's watermark; with no
//!   usable snapshot it is built from the table once and saved.
//! * **Own commits** are replayed from memory right after they commit (writer lock held, so in
//!   commit order). **Other connections' commits** (other processes, other handles) are noticed
//!   with `PRAGMA data_version` and applied by catching up from the change log before the next
//!   search — never by reloading the set.
//! * **Snapshots** are rewritten once a set has changed by 10% (at least 2,000 vectors) since the
//!   last one, and when the store is dropped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use lightrag_ports::{
    IndexHit, SearchParams, StoreError, VectorEncoding, VectorIndex, VectorIndexError, VectorKind, catch_up,
};
use lightrag_vector_index::{IndexConfig, TieredIndex};
use rusqlite::Connection;

use crate::apply::Applied;
use crate::vectors::{SqliteFeed, VecOp, slot};

/// Changes since the last snapshot below which a set is not saved again.
const SAVE_MIN_CHANGES: usize = 2_000;

/// Maps an index error to a store error.
pub(crate) fn index_err(e: VectorIndexError) -> StoreError {
    match e {
        VectorIndexError::WrongDimension { expected, got } => StoreError::WrongDimension { expected, got },
        other => StoreError::backend_caused(other.to_string(), other),
    }
}

/// The three indexes, once the dimension is known.
pub(crate) struct Sets {
    pub(crate) dim: usize,
    indexes: [Arc<TieredIndex>; 3],
    unsaved: [AtomicUsize; 3],
    /// Vectors read by full rebuilds since open, per set.
    rebuilt: [AtomicUsize; 3],
    /// Vectors applied by incremental catch-up since open, per set.
    caught_up: [AtomicUsize; 3],
}

impl Sets {
    pub(crate) fn index(&self, kind: VectorKind) -> &Arc<TieredIndex> {
        &self.indexes[slot(kind)]
    }
}

/// Every in-memory vector index of one store.
pub(crate) struct VectorSets {
    config: IndexConfig,
    dir: Option<PathBuf>,
    sets: RwLock<Option<Arc<Sets>>>,
}

impl VectorSets {
    /// No index yet; snapshots under `dir` when given.
    pub(crate) fn new(config: IndexConfig, dir: Option<PathBuf>) -> VectorSets {
        VectorSets { config, dir, sets: RwLock::new(None) }
    }

    /// The snapshot directory beside a database file.
    pub(crate) fn dir_for(db: &Path) -> PathBuf {
        let mut name = db.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".vectors");
        db.with_file_name(name)
    }

    fn snapshot(&self, kind: VectorKind) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(format!("{}.vidx", kind.as_str())))
    }

    /// The indexes, if the dimension is known.
    pub(crate) fn current(&self) -> Option<Arc<Sets>> {
        self.sets.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Drops the indexes when they hold another dimension than `dim` (the store was re-embedded
    /// with another model); the next [`VectorSets::ensure`] opens them for the new one.
    pub(crate) fn forget_unless(&self, dim: usize) {
        let mut guard = self.sets.write().unwrap_or_else(PoisonError::into_inner);
        if guard.as_ref().is_some_and(|sets| sets.dim != dim) {
            tracing::info!(dim, "the stored vector dimension changed: the vector indexes are rebuilt");
            *guard = None;
        }
    }

    /// The indexes for dimension `dim`, loading snapshots (or starting empty) the first time.
    pub(crate) fn ensure(&self, dim: usize) -> Result<Arc<Sets>, StoreError> {
        if let Some(sets) = self.current() {
            return if sets.dim == dim {
                Ok(sets)
            } else {
                Err(StoreError::WrongDimension { expected: sets.dim, got: dim })
            };
        }
        let mut guard = self.sets.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(sets) = guard.as_ref() {
            return Ok(Arc::clone(sets));
        }
        let mut indexes = Vec::with_capacity(3);
        for kind in VectorKind::ALL {
            indexes.push(Arc::new(self.open_index(kind, dim)?));
        }
        let [e, r, c]: [Arc<TieredIndex>; 3] =
            indexes.try_into().map_err(|_| StoreError::backend("vector sets: wrong number of indexes"))?;
        let sets = Arc::new(Sets {
            dim,
            indexes: [e, r, c],
            unsaved: Default::default(),
            rebuilt: Default::default(),
            caught_up: Default::default(),
        });
        *guard = Some(Arc::clone(&sets));
        Ok(sets)
    }

    fn open_index(&self, kind: VectorKind, dim: usize) -> Result<TieredIndex, StoreError> {
        if let Some(path) = self.snapshot(kind).filter(|p| p.exists()) {
            match TieredIndex::load(&path, dim, self.config.clone()) {
                Ok(index) => {
                    tracing::debug!(set = kind.as_str(), vectors = index.len(), "vector index read from its snapshot");
                    return Ok(index);
                }
                Err(e) => tracing::warn!(set = kind.as_str(), "{e}"),
            }
        }
        TieredIndex::new(dim, self.config.clone()).map_err(index_err)
    }

    /// Catches every index up with the feed read through `conn` (one read transaction).
    pub(crate) fn catch_up(&self, conn: &Connection, sets: &Sets) -> Result<(), StoreError> {
        for kind in VectorKind::ALL {
            let index = sets.index(kind);
            let feed = SqliteFeed { conn, kind, dim: sets.dim };
            let report = catch_up(index.as_ref(), &feed).map_err(index_err)?;
            if report.rebuilt {
                tracing::info!(set = kind.as_str(), vectors = index.len(), "vector index built from the store");
                sets.rebuilt[slot(kind)].fetch_add(report.upserted, Ordering::Relaxed);
                sets.unsaved[slot(kind)].store(usize::MAX / 2, Ordering::Relaxed);
            } else if report.upserted + report.deleted > 0 {
                tracing::debug!(set = kind.as_str(), ?report, "vector index caught up with other connections");
                sets.caught_up[slot(kind)].fetch_add(report.upserted + report.deleted, Ordering::Relaxed);
                sets.unsaved[slot(kind)].fetch_add(report.upserted + report.deleted, Ordering::Relaxed);
            }
            self.maybe_save(sets, kind);
        }
        Ok(())
    }

    /// Replays a commit made through this handle. A set whose index missed other connections'
    /// commits (or was never filled) catches up from the log through `conn` instead.
    pub(crate) fn replay(&self, conn: &mut Connection, applied: &Applied) -> Result<(), StoreError> {
        let Some(dim) = applied.dim else { return Ok(()) };
        let sets = self.ensure(dim)?;
        if VectorKind::ALL.iter().any(|k| {
            let i = slot(*k);
            applied.before[i] != applied.after[i] && sets.index(*k).watermark() != applied.before[i]
        }) {
            let tx = conn.transaction().map_err(crate::codec::db_err)?;
            self.catch_up(&tx, &sets)?;
            return tx.finish().map_err(crate::codec::db_err);
        }
        for kind in VectorKind::ALL {
            let i = slot(kind);
            let index = sets.index(kind);
            if applied.before[i] == applied.after[i] {
                continue;
            }
            if applied.cleared {
                index.clear().map_err(index_err)?;
            }
            let mut changed = 0;
            let mut puts: Vec<(u64, &[f32])> = Vec::new();
            let mut deletes: Vec<u64> = Vec::new();
            for op in &applied.ops {
                match op {
                    VecOp::Put(k, id, v) if *k == kind => {
                        if !deletes.is_empty() {
                            changed += index.delete(&deletes).map_err(index_err)?;
                            deletes.clear();
                        }
                        puts.push((*id, v.as_slice()));
                    }
                    VecOp::Delete(k, id) if *k == kind => {
                        if !puts.is_empty() {
                            index.upsert(&puts).map_err(index_err)?;
                            changed += puts.len();
                            puts.clear();
                        }
                        deletes.push(*id);
                    }
                    _ => {}
                }
            }
            if !deletes.is_empty() {
                changed += index.delete(&deletes).map_err(index_err)?;
            }
            if !puts.is_empty() {
                index.upsert(&puts).map_err(index_err)?;
                changed += puts.len();
            }
            index.set_watermark(applied.after[i]);
            sets.unsaved[i].fetch_add(changed.max(1), Ordering::Relaxed);
            self.maybe_save(&sets, kind);
        }
        Ok(())
    }

    /// Saves a set's snapshot when it changed enough since the last one.
    fn maybe_save(&self, sets: &Sets, kind: VectorKind) {
        let index = sets.index(kind);
        let unsaved = sets.unsaved[slot(kind)].load(Ordering::Relaxed);
        if unsaved >= SAVE_MIN_CHANGES.max(index.len() / 10) {
            self.save(sets, kind);
        }
    }

    fn save(&self, sets: &Sets, kind: VectorKind) {
        let Some(path) = self.snapshot(kind) else { return };
        let started = std::time::Instant::now();
        match sets.index(kind).save(&path) {
            Ok(()) => {
                sets.unsaved[slot(kind)].store(0, Ordering::Relaxed);
                tracing::debug!(
                    set = kind.as_str(),
                    seconds = started.elapsed().as_secs_f64(),
                    "vector index snapshot written"
                );
            }
            Err(e) => tracing::warn!(set = kind.as_str(), "cannot write the vector index snapshot: {e}"),
        }
    }

    /// Saves every set changed since its last snapshot (when the store is dropped).
    pub(crate) fn save_changed(&self) {
        let Some(sets) = self.current() else { return };
        for kind in VectorKind::ALL {
            if sets.unsaved[slot(kind)].load(Ordering::Relaxed) > 0 {
                self.save(&sets, kind);
            }
        }
    }

    /// Candidate hits of one search. For `f16`/`int8` sets more candidates than asked are
    /// returned (with a lower score floor) so that the caller can re-score them exactly.
    pub(crate) fn candidates(
        &self,
        sets: &Sets,
        kind: VectorKind,
        query: &[f32],
        top_k: usize,
        min_score: f32,
    ) -> Result<(Vec<IndexHit>, bool), StoreError> {
        let index = sets.index(kind);
        let rescore = index.encoding() != VectorEncoding::F32;
        let (want, floor) = if rescore {
            (top_k.saturating_mul(2).saturating_add(10), min_score - index.score_error())
        } else {
            (top_k, min_score)
        };
        let hits =
            index.search(query, &SearchParams { top_k: want, min_score: floor, filter: None }).map_err(index_err)?;
        Ok((hits, rescore))
    }
}

/// What one set's in-memory index holds (see [`crate::SqliteStore::vector_index_status`]).
#[derive(Debug, Clone, PartialEq)]
pub struct VectorSetStatus {
    /// Which set.
    pub kind: VectorKind,
    /// Vectors held.
    pub vectors: usize,
    /// True once the set moved to the HNSW graph.
    pub approximate: bool,
    /// How vectors are held.
    pub encoding: VectorEncoding,
    /// Approximate heap bytes of the index.
    pub memory_bytes: usize,
    /// Vectors read by full rebuilds from the table since the store was opened.
    pub rebuilt_vectors: usize,
    /// Vectors applied by catching up with other connections' commits since the store was opened.
    pub caught_up_vectors: usize,
}

impl VectorSets {
    /// Status of every set (empty while the dimension is unknown).
    pub(crate) fn status(&self) -> Vec<VectorSetStatus> {
        let Some(sets) = self.current() else { return Vec::new() };
        VectorKind::ALL
            .iter()
            .map(|kind| {
                let index = sets.index(*kind);
                VectorSetStatus {
                    kind: *kind,
                    vectors: index.len(),
                    approximate: !index.is_exact(),
                    encoding: index.encoding(),
                    memory_bytes: index.memory_bytes(),
                    rebuilt_vectors: sets.rebuilt[slot(*kind)].load(Ordering::Relaxed),
                    caught_up_vectors: sets.caught_up[slot(*kind)].load(Ordering::Relaxed),
                }
            })
            .collect()
    }
}
