//! The vector-index port: an in-process nearest-neighbour index over integer ids.
//!
//! A store keeps the truth (each vector's row, its key and its text) and maps its keys to
//! [`VectorId`]s; a [`VectorIndex`] holds only ids and vectors and answers "which ids are closest
//! to this query". Keys are never held by the index, so an index costs about the vector bytes
//! plus a few bytes of id and graph per vector.
//!
//! Contract (checked by `conformance::vector_index`):
//! * **Cosine similarity.** Vectors are L2-normalised by the index on write and queries on search;
//!   a hit's `score` is their cosine similarity (exactly, or within the encoding's error — see
//!   [`VectorIndex::score_error`]). Hits come best first and none scores below `min_score`.
//! * **Recall.** An exact index returns the true top-k. An approximate one returns at least
//!   [`VectorIndex::min_recall`] of the true top-k on data with structure (clustered embeddings).
//! * **Upsert and delete.** Upserting an id replaces its vector; deleting it removes it from every
//!   later search. Unknown ids are ignored by delete.
//! * **Unusable vectors.** A vector with a NaN or infinite component, or only zeros
//!   ([`crate::vector_flaw`]), is never held: upserting one takes its id out (as a delete would).
//!   No hit ever has a NaN or infinite score, and an unusable query finds nothing (search) and
//!   scores nothing (`similarities`). A store with such a vector in its rows (written before
//!   writes refused them) thus still ranks the others, and `lightrag check` finds it.
//! * **Concurrency.** Every method takes `&self`; searches may run while a batch is being written
//!   and see the index either before or after each single upsert or delete, never a torn vector.
//! * **Persistence and catch-up.** The index remembers the [`Watermark`] of the change feed it
//!   reflects. [`VectorIndex::save`] writes a snapshot (with the watermark) that the
//!   implementation's loader reads back; [`catch_up`] then applies only what the [`VectorFeed`]
//!   changed after that watermark, or rebuilds from the feed when the feed cannot say (another
//!   epoch, or changes older than the feed keeps).

use std::cell::RefCell;
use std::path::Path;

/// The integer id of a vector (a row id of the store that owns the keys).
pub type VectorId = u64;

/// One search hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexHit {
    /// The vector's id.
    pub id: VectorId,
    /// Cosine similarity with the query.
    pub score: f32,
}

/// How vectors are held in memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum VectorEncoding {
    /// 32-bit floats (4 bytes per dimension; exact scores).
    #[default]
    F32,
    /// IEEE half floats (2 bytes per dimension).
    F16,
    /// Signed bytes with one scale per vector (1 byte per dimension).
    I8,
}

impl VectorEncoding {
    /// Bytes per dimension.
    pub fn bytes_per_dim(self) -> usize {
        match self {
            VectorEncoding::F32 => 4,
            VectorEncoding::F16 => 2,
            VectorEncoding::I8 => 1,
        }
    }

    /// The setting's spelling (`f32`, `f16`, `int8`).
    pub fn as_str(self) -> &'static str {
        match self {
            VectorEncoding::F32 => "f32",
            VectorEncoding::F16 => "f16",
            VectorEncoding::I8 => "int8",
        }
    }

    /// Parses the setting's spelling (`f32`, `f16`/`half`, `int8`/`i8`), case-insensitively.
    pub fn parse(text: &str) -> Option<VectorEncoding> {
        match text.trim().to_ascii_lowercase().as_str() {
            "f32" | "float32" => Some(VectorEncoding::F32),
            "f16" | "float16" | "half" => Some(VectorEncoding::F16),
            "int8" | "i8" => Some(VectorEncoding::I8),
            _ => None,
        }
    }
}

/// A position in a change feed: which generation of the data (`epoch`, changed when the data is
/// replaced wholesale) and how far into it (`seq`, the sequence number of the last change).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Watermark {
    /// Generation of the data; a different epoch means "start over".
    pub epoch: u64,
    /// Sequence number of the last change applied.
    pub seq: u64,
}

/// Options of one search.
#[derive(Clone, Copy)]
pub struct SearchParams<'a> {
    /// At most this many hits.
    pub top_k: usize,
    /// Hits below this cosine similarity are dropped.
    pub min_score: f32,
    /// When set, only ids for which it returns true are considered.
    pub filter: Option<&'a (dyn Fn(VectorId) -> bool + Sync)>,
}

impl std::fmt::Debug for SearchParams<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchParams")
            .field("top_k", &self.top_k)
            .field("min_score", &self.min_score)
            .field("filter", &self.filter.is_some())
            .finish()
    }
}

impl SearchParams<'_> {
    /// `top_k` hits at any score, no filter.
    pub fn top(top_k: usize) -> SearchParams<'static> {
        SearchParams { top_k, min_score: f32::NEG_INFINITY, filter: None }
    }
}

/// Errors from a vector index or a change feed.
#[derive(Debug, thiserror::Error)]
pub enum VectorIndexError {
    /// A vector or query of another dimension.
    #[error("vector has dimension {got}, the index holds dimension {expected}")]
    WrongDimension {
        /// The index's dimension.
        expected: usize,
        /// Offered dimension.
        got: usize,
    },
    /// A snapshot file is damaged or was written by another version or for other settings.
    #[error("vector index snapshot {path} is unusable ({reason}); it will be rebuilt from the store")]
    BadSnapshot {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// Reading or writing a snapshot failed.
    #[error("vector index file {path}: {source} (check the directory's permissions and free space)")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The index library failed (for example out of memory while growing).
    #[error("vector index failed: {0}")]
    Backend(String),
    /// The change feed (the store) failed.
    #[error("reading the vector change feed failed: {0}")]
    Feed(String),
}

/// An in-process nearest-neighbour index over [`VectorId`]s. See the module docs for the contract.
pub trait VectorIndex: Send + Sync {
    /// Dimension of every vector.
    fn dim(&self) -> usize;
    /// How vectors are held.
    fn encoding(&self) -> VectorEncoding;
    /// Number of vectors.
    fn len(&self) -> usize;
    /// True when the index holds no vector.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether `id` is held.
    fn contains(&self, id: VectorId) -> bool;
    /// True when search returns the exact top-k (a brute-force index).
    fn is_exact(&self) -> bool;
    /// The recall@10 an approximate index promises on clustered data (1.0 when exact).
    fn min_recall(&self) -> f64 {
        1.0
    }
    /// Largest difference between a reported score and the true cosine (0 for `f32`, about
    /// 1e-3 for `f16`, 1e-2 for `int8`).
    fn score_error(&self) -> f32 {
        match self.encoding() {
            VectorEncoding::F32 => 1e-4,
            VectorEncoding::F16 => 2e-3,
            VectorEncoding::I8 => 2e-2,
        }
    }

    /// Inserts or replaces vectors (normalised by the index).
    fn upsert(&self, batch: &[(VectorId, &[f32])]) -> Result<(), VectorIndexError>;
    /// Removes vectors; returns how many were held.
    fn delete(&self, ids: &[VectorId]) -> Result<usize, VectorIndexError>;
    /// Removes every vector (the watermark is kept).
    fn clear(&self) -> Result<(), VectorIndexError>;
    /// The best hits for `query` (normalised by the index), best first.
    fn search(&self, query: &[f32], params: &SearchParams<'_>) -> Result<Vec<IndexHit>, VectorIndexError>;
    /// The held vectors of `ids`, in the order asked (`None` for ids not held): normalised, and
    /// decoded from the index's encoding — equal to what was upserted (after normalising) for
    /// `f32`, within [`VectorIndex::score_error`] of it for `f16` and `int8`.
    fn get(&self, ids: &[VectorId]) -> Result<Vec<Option<Vec<f32>>>, VectorIndexError>;
    /// The cosine similarity of each held vector of `ids` to `query`, in the order asked (`None`
    /// for ids not held), within [`VectorIndex::score_error`]. What [`VectorIndex::get`] and a
    /// cosine would give; an index should answer without copying the vectors out (a graph query
    /// scores thousands of candidate chunks).
    fn similarities(&self, ids: &[VectorId], query: &[f32]) -> Result<Vec<Option<f32>>, VectorIndexError> {
        Ok(self.get(ids)?.into_iter().map(|v| v.map(|v| cosine(query, &v))).collect())
    }

    /// The change-feed position the contents reflect.
    fn watermark(&self) -> Watermark;
    /// Records the change-feed position the contents now reflect.
    fn set_watermark(&self, watermark: Watermark);
    /// Writes a snapshot (contents and watermark) to `path`, replacing it atomically.
    fn save(&self, path: &Path) -> Result<(), VectorIndexError>;
    /// Approximate heap bytes held.
    fn memory_bytes(&self) -> usize;
}

/// What changed in a feed after a watermark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedDelta {
    /// The changes can be listed; the visitor was called for each.
    Changes,
    /// The feed cannot list them (another epoch, or older than the feed keeps): rebuild.
    Rebuild,
}

/// The source of truth an index catches up from (the store's vector rows and their change log).
pub trait VectorFeed {
    /// The feed's current position.
    fn head(&self) -> Result<Watermark, VectorIndexError>;
    /// Visits what changed after `since` up to the head: every id deleted, then every id upserted
    /// with its current vector. Returns [`FeedDelta::Rebuild`] (visiting nothing) when it cannot.
    fn changes_since(
        &self,
        since: Watermark,
        on_delete: &mut dyn FnMut(VectorId),
        on_upsert: &mut dyn FnMut(VectorId, &[f32]),
    ) -> Result<FeedDelta, VectorIndexError>;
    /// Visits every current vector.
    fn scan(&self, visit: &mut dyn FnMut(VectorId, &[f32])) -> Result<(), VectorIndexError>;
}

/// What [`catch_up`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CatchUpReport {
    /// The index was emptied and rebuilt from the whole feed.
    pub rebuilt: bool,
    /// Vectors upserted.
    pub upserted: usize,
    /// Vectors deleted.
    pub deleted: usize,
}

/// Upserts per index call while catching up (lets an index parallelise a batch).
const CATCH_UP_BATCH: usize = 1024;

/// Brings `index` up to the feed's head: applies only the changes after the index's watermark,
/// or empties and rebuilds it when the feed cannot list them. The feed must not change while this
/// runs (read it inside one transaction).
pub fn catch_up(index: &dyn VectorIndex, feed: &dyn VectorFeed) -> Result<CatchUpReport, VectorIndexError> {
    let head = feed.head()?;
    let mark = index.watermark();
    if mark == head {
        return Ok(CatchUpReport::default());
    }
    let state = RefCell::new(Applier {
        index,
        deleted: Vec::new(),
        deletes_applied: false,
        batch: Batch::default(),
        report: CatchUpReport::default(),
        failure: None,
    });
    let delta = if mark.epoch == head.epoch && mark.seq <= head.seq {
        feed.changes_since(mark, &mut |id| state.borrow_mut().deleted.push(id), &mut |id, v| {
            state.borrow_mut().upsert(id, v)
        })?
    } else {
        FeedDelta::Rebuild
    };
    let mut state = state.into_inner();
    if delta == FeedDelta::Rebuild {
        state = Applier {
            index,
            deleted: Vec::new(),
            deletes_applied: true,
            batch: Batch::default(),
            report: CatchUpReport { rebuilt: true, ..CatchUpReport::default() },
            failure: None,
        };
        index.clear()?;
        let cell = RefCell::new(state);
        feed.scan(&mut |id, v| cell.borrow_mut().upsert(id, v))?;
        state = cell.into_inner();
    }
    state.finish()?;
    index.set_watermark(head);
    Ok(state.report)
}

/// Applies a feed's changes: deletions (all listed before the first upsert) then batched upserts.
struct Applier<'a> {
    index: &'a dyn VectorIndex,
    deleted: Vec<VectorId>,
    deletes_applied: bool,
    batch: Batch,
    report: CatchUpReport,
    failure: Option<VectorIndexError>,
}

impl Applier<'_> {
    fn apply_deletes(&mut self) -> Result<(), VectorIndexError> {
        if !self.deletes_applied {
            self.deletes_applied = true;
            if !self.deleted.is_empty() {
                self.index.delete(&self.deleted)?;
                self.report.deleted += self.deleted.len();
            }
        }
        Ok(())
    }

    fn upsert(&mut self, id: VectorId, v: &[f32]) {
        if self.failure.is_some() {
            return;
        }
        let result = self.apply_deletes().and_then(|()| self.batch.push(self.index, id, v, &mut self.report.upserted));
        if let Err(e) = result {
            self.failure = Some(e);
        }
    }

    fn finish(&mut self) -> Result<(), VectorIndexError> {
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        self.apply_deletes()?;
        self.batch.flush(self.index, &mut self.report.upserted)
    }
}

/// Upserts buffered into batches.
#[derive(Default)]
struct Batch {
    ids: Vec<VectorId>,
    data: Vec<f32>,
    dim: usize,
}

impl Batch {
    fn push(
        &mut self,
        index: &dyn VectorIndex,
        id: VectorId,
        v: &[f32],
        count: &mut usize,
    ) -> Result<(), VectorIndexError> {
        if self.ids.is_empty() {
            self.dim = v.len();
        } else if v.len() != self.dim {
            self.flush(index, count)?;
            self.dim = v.len();
        }
        self.ids.push(id);
        self.data.extend_from_slice(v);
        if self.ids.len() >= CATCH_UP_BATCH {
            self.flush(index, count)?;
        }
        Ok(())
    }

    fn flush(&mut self, index: &dyn VectorIndex, count: &mut usize) -> Result<(), VectorIndexError> {
        if self.ids.is_empty() {
            return Ok(());
        }
        let dim = self.dim.max(1);
        let batch: Vec<(VectorId, &[f32])> = self.ids.iter().copied().zip(self.data.chunks(dim)).collect();
        index.upsert(&batch)?;
        *count += self.ids.len();
        self.ids.clear();
        self.data.clear();
        Ok(())
    }
}

/// Cosine similarity of two vectors (0 when either is zero or the lengths differ).
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
