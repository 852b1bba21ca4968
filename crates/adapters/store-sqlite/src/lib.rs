//! # lightrag-store-sqlite
//!
//! The embedded lightrag-rs store: one SQLite file (WAL mode) holds every namespace and
//! implements [`lightrag_ports::Store`].
//!
//! ## Schema (version 7, recorded in `meta.schema_version`; older files are migrated on open, see `migrate.rs`)
//!
//! | table | key | holds |
//! |---|---|---|
//! | `meta` | `key` | schema version, embedding identity (`embedding_model`, `vector_dim`), per vector set: last commit sequence number (`vgen:<kind>`), epoch (`vepoch:<kind>`), pruned-log floor (`vfloor:<kind>`); pipeline cancellation requests so far (`pipeline_cancel_generation`) |
//! | `documents` | `id` | full text, file path, content hash (indexed), chunking options (JSON) |
//! | `doc_status` | `id` | the status row; lists and metadata as JSON; indexed by status, track id, created/updated time |
//! | `chunks` | `id` | chunk text, order, tokens; indexed by `doc_id` |
//! | `chunks_fts` | FTS5 over `chunks.content` (external content, `unicode61`, diacritics removed) | the lexical index [`search_chunk_text`](lightrag_ports::TextSearch::search_chunk_text) reads (BM25); triggers on `chunks` keep it in the same transaction |
//! | `extractions` | `chunk_id` | the parsed extraction of a chunk (JSON body); indexed by `doc_id` |
//! | `entities` | `name` | graph nodes with their `version` |
//! | `entities_fts` | FTS5 over `entities.name` and `entities.description` (external content, `unicode61`, diacritics removed) | the lexical index [`search_entity_text`](lightrag_ports::TextSearch::search_entity_text) reads (BM25, the name weighted 10 to 1); triggers on `entities` keep it in the same transaction |
//! | `entity_names_fts` | FTS5 over `entities.name` (external content, `trigram`, case-insensitive) | the substring index label search reads ([`entity_names_containing`](lightrag_ports::TextSearch::entity_names_containing)); triggers on `entities` keep it in the same transaction |
//! | `relations` | `(src, tgt)` sorted pair | undirected edges with `version`; index on `tgt`, so the edges of a node are two indexed lookups |
//! | `doc_links` | `doc_id` | entities and relation keys a document contributed to (JSON) |
//! | `vectors` | `id` (hashed from `(kind, key)`, see `vectors.rs`); unique `(kind, key)` | L2-normalised vectors as little-endian `f32` blobs, the embedded text, and `seq` (the commit that wrote it; indexed with `kind`) |
//! | `vector_key_collisions` | `(kind, key)` | keys whose hashed id another key held first (they have a low id; almost always empty) |
//! | `vector_tombstones` | `(kind, seq, id)` | row ids deleted by commit `seq` (the change log indexes catch up from) |
//! | `llm_cache` | `key` | cached LLM responses; indexed by `cache_type` |
//! | `usage` | `role` | usage counters per role |
//! | `merge_locks` | `key` | merge locks and summary claims of the processes indexing this file (owner, expiry) |
//!
//! ## Concurrency model
//!
//! * One **writer** connection behind a mutex. Every write ([`apply`](lightrag_ports::Commits::apply), `enqueue`, `claim`,
//!   `renew_leases`, cache writes) is one `BEGIN IMMEDIATE` transaction on it, so within a process
//!   writes are serialised and across processes SQLite's write lock (with a `busy_timeout`) does it.
//! * A few **reader** connections (`query_only`), handed out round-robin; WAL lets them read while
//!   a write is in progress. Every read sees every commit that finished before it started.
//! * **Vectors** are searched in memory by one [`lightrag_vector_index::TieredIndex`] per set
//!   (exact SIMD search below `ann_threshold` vectors, an HNSW graph above), holding row ids only.
//!   Each index is saved as a snapshot beside the database (`<file>.vectors/`) and reopened from
//!   it; commits through this handle are replayed while the writer lock is still held; commits by
//!   other connections (other processes, other handles) are noticed with `PRAGMA data_version` on
//!   a dedicated watch connection and applied by reading the rows and tombstones written after the
//!   index's watermark (see `vectors`), not by reloading the set.
//! * All SQLite work runs on `tokio::task::spawn_blocking`.
//!
//! Crash safety comes from SQLite: a change set is one transaction (`synchronous=NORMAL` in WAL
//! mode survives process crashes; a power loss may lose the last commits but never half of one).

pub mod access;
mod apply;
pub mod backup;
mod cache;
mod chunks;
mod codec;
mod documents;
pub mod failpoint;
mod graph;
mod index;
mod integrity;
mod lists;
mod locks;
mod migrate;
mod ranked;
mod reembed;
mod schema;
mod store_impl;
mod vectors;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use lightrag_ports::{StoreError, VectorEncoding, VectorHit, VectorIndex, VectorKind};
pub use lightrag_vector_index::{DEFAULT_ANN_THRESHOLD, HnswParams, IndexConfig};
use rusqlite::Connection;

use lightrag_vector_index::{TieredIndex, normalise};

pub use crate::access::{ACCESS_FILE, SqliteAccessStore};
use crate::codec::db_err;
pub use crate::index::VectorSetStatus;
use crate::index::{Sets, VectorSets};

/// The in-memory vector sets and the row ids of some keys (`None`: read the key from the rows).
type IndexedKeys = (Arc<Sets>, Vec<Option<u64>>);

/// Options for [`SqliteStore::open_with`].
#[derive(Debug, Clone)]
pub struct SqliteOptions {
    /// Number of reader connections (at least 1).
    pub readers: usize,
    /// How long a connection waits for another process's lock before failing.
    pub busy_timeout: Duration,
    /// How the vector sets are indexed in memory (encoding, exact/HNSW threshold, threads).
    pub vectors: IndexConfig,
    /// Save index snapshots beside the database so that reopening does not rebuild them.
    pub vector_snapshots: bool,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            readers: 3,
            busy_timeout: Duration::from_secs(10),
            vectors: IndexConfig::default(),
            vector_snapshots: true,
        }
    }
}

/// The embedded store: one SQLite file. Cheap to clone (clones share connections and the index).
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.inner.path).finish_non_exhaustive()
    }
}

/// The connection used to notice other connections' commits.
struct Watch {
    conn: Connection,
    data_version: Option<i64>,
}

pub(crate) struct Inner {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
    watch: Mutex<Watch>,
    vectors: VectorSets,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.vectors.save_changed();
    }
}

impl SqliteStore {
    /// Opens (creating if needed, with parent directories) the store at `path` with default options.
    ///
    /// Fails with [`StoreError::Corrupt`] when the file is not a lightrag-rs store or has a schema
    /// this build cannot read.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_with(path, SqliteOptions::default())
    }

    /// Opens the store at `path` with `options`: reads each vector index from its snapshot and
    /// catches it up with later commits (or builds it from the table when it has no snapshot).
    pub fn open_with(path: &Path, options: SqliteOptions) -> Result<SqliteStore, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                StoreError::backend(format!("cannot create directory {}: {e} (check permissions)", parent.display()))
            })?;
        }
        let mut writer = schema::connect(path, options.busy_timeout, false)?;
        schema::ensure_schema(&mut writer, path)?;
        let readers = (0..options.readers.max(1))
            .map(|_| schema::connect(path, options.busy_timeout, true).map(Mutex::new))
            .collect::<Result<Vec<_>, _>>()?;
        let watch = schema::connect(path, options.busy_timeout, true)?;
        let snapshots = options.vector_snapshots.then(|| VectorSets::dir_for(path));
        let inner = Inner {
            path: path.to_path_buf(),
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
            watch: Mutex::new(Watch { conn: watch, data_version: None }),
            vectors: VectorSets::new(options.vectors, snapshots),
        };
        inner.refresh()?;
        Ok(SqliteStore { inner: Arc::new(inner) })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// What each in-memory vector index holds, after catching up with other connections.
    pub fn vector_index_status(&self) -> Result<Vec<VectorSetStatus>, StoreError> {
        self.inner.refresh()?;
        Ok(self.inner.vectors.status())
    }

    /// Runs blocking database work off the async runtime.
    pub(crate) async fn run<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Inner) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || f(&inner))
            .await
            .map_err(|e| StoreError::backend(format!("store worker thread failed: {e}")))?
    }

    /// Runs `f` on a reader connection.
    pub(crate) async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.run(move |inner| f(&inner.reader())).await
    }

    /// Runs `f` on the writer connection.
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.run(move |inner| f(&mut inner.writer())).await
    }
}

impl Inner {
    /// A free reader connection (or waits for one).
    fn reader(&self) -> MutexGuard<'_, Connection> {
        let n = self.readers.len();
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed) % n;
        for i in 0..n {
            if let Ok(guard) = self.readers[(start + i) % n].try_lock() {
                return guard;
            }
        }
        self.readers[start].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The writer connection.
    pub(crate) fn writer(&self) -> MutexGuard<'_, Connection> {
        self.writer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Brings the in-memory indexes up to date with commits of other connections.
    fn refresh(&self) -> Result<(), StoreError> {
        let mut watch = self.watch();
        let dv: i64 = watch.conn.query_row("PRAGMA data_version", [], |r| r.get(0)).map_err(db_err)?;
        if watch.data_version == Some(dv) {
            return Ok(());
        }
        let tx = watch.conn.transaction().map_err(db_err)?;
        if let Some(dim) = vectors::stored_dim(&tx)? {
            self.vectors.forget_unless(dim);
            let sets = self.vectors.ensure(dim)?;
            self.vectors.catch_up(&tx, &sets)?;
        }
        tx.finish().map_err(db_err)?;
        watch.data_version = Some(dv);
        Ok(())
    }

    /// The watch connection; holding it serialises every change to the in-memory indexes.
    fn watch(&self) -> MutexGuard<'_, Watch> {
        self.watch.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Replays a commit made through the writer connection (called with the writer lock held).
    pub(crate) fn replay(&self, conn: &mut Connection, applied: &apply::Applied) -> Result<(), StoreError> {
        let _sync = self.watch();
        self.vectors.replay(conn, applied)
    }

    /// Records the dimension fixed by the embedding identity.
    pub(crate) fn set_dim(&self, dim: usize) -> Result<(), StoreError> {
        let _sync = self.watch();
        self.vectors.ensure(dim).map(|_| ())
    }

    /// After a re-embedding switched the vectors to dimension `dim`: drops indexes of another
    /// dimension and catches up (a rebuild: the switch renewed every set's epoch).
    pub(crate) fn switched(&self, dim: usize) -> Result<(), StoreError> {
        let mut watch = self.watch();
        self.vectors.forget_unless(dim);
        watch.data_version = None;
        drop(watch);
        self.refresh()
    }

    /// Searches one set (after catching up with other connections).
    pub(crate) fn search(
        &self,
        kind: VectorKind,
        mut query: Vec<f32>,
        top_k: usize,
        min_score: f32,
    ) -> Result<Vec<VectorHit>, StoreError> {
        self.refresh()?;
        let Some(sets) = self.vectors.current() else {
            return Ok(Vec::new());
        };
        if query.len() != sets.dim {
            return Err(StoreError::WrongDimension { expected: sets.dim, got: query.len() });
        }
        // an unusable query (NaN, infinite, zero) is similar to nothing
        if top_k == 0 || !lightrag_ports::is_usable(&query) {
            return Ok(Vec::new());
        }
        normalise(&mut query);
        let (candidates, rescore) = self.vectors.candidates(&sets, kind, &query, top_k, min_score)?;
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<u64> = candidates.iter().map(|h| h.id).collect();
        let rows = vectors::lookup(&self.reader(), kind, &ids, rescore)?;
        let mut hits: Vec<VectorHit> = candidates
            .iter()
            .filter_map(|h| {
                let (key, stored) = rows.get(&h.id)?;
                let score = match stored {
                    // Stored vectors are normalised on write: their dot product is the cosine.
                    Some(v) if rescore => v.iter().zip(&query).map(|(a, b)| a * b).sum(),
                    _ => h.score,
                };
                (score.is_finite() && score >= min_score).then(|| VectorHit { key: key.clone(), score })
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
        hits.truncate(top_k);
        Ok(hits)
    }

    /// The in-memory sets and the row ids of `keys` in set `kind`, when that set's index holds
    /// `f32` vectors (then exactly what the rows hold: both are normalised on write). A row's id is
    /// the hash of its key, so no key is looked up; a collided key (listed in
    /// `vector_key_collisions`, almost never) gets `None` and is read from the rows.
    fn hashed_ids(&self, kind: VectorKind, keys: &[String]) -> Result<Option<IndexedKeys>, StoreError> {
        self.refresh()?;
        let sets = match self.vectors.current() {
            Some(sets) if sets.index(kind).encoding() == VectorEncoding::F32 => sets,
            _ => return Ok(None),
        };
        let collided = vectors::collided_keys(&self.reader(), kind)?;
        let ids = keys.iter().map(|k| (!collided.contains(k)).then(|| vectors::hashed_id(kind, k))).collect();
        Ok(Some((sets, ids)))
    }

    /// Answers from the in-memory index by row id, then from the rows (in one query) for the keys
    /// it did not answer for: a collided key, a row committed between the catch-up and this read,
    /// an unknown key.
    fn by_index_then_rows<T>(
        &self,
        kind: VectorKind,
        keys: &[String],
        from_index: impl FnOnce(&TieredIndex, &[u64]) -> Result<Vec<Option<T>>, StoreError>,
        from_row: impl Fn(Vec<f32>) -> T,
    ) -> Result<Vec<Option<T>>, StoreError> {
        let Some((sets, ids)) = self.hashed_ids(kind, keys)? else {
            let rows = vectors::get_vectors(&self.reader(), kind, keys)?;
            return Ok(rows.into_iter().map(|v| v.map(&from_row)).collect());
        };
        let present: Vec<u64> = ids.iter().flatten().copied().collect();
        let mut held = from_index(sets.index(kind), &present)?.into_iter();
        let mut out: Vec<Option<T>> = Vec::with_capacity(keys.len());
        let mut missed: Vec<(usize, String)> = Vec::new();
        for (slot, (key, id)) in keys.iter().zip(&ids).enumerate() {
            let v = if id.is_some() { held.next().flatten() } else { None };
            if v.is_none() {
                missed.push((slot, key.clone()));
            }
            out.push(v);
        }
        if !missed.is_empty() {
            let missed_keys: Vec<String> = missed.iter().map(|(_, k)| k.clone()).collect();
            let rows = vectors::get_vectors(&self.reader(), kind, &missed_keys)?;
            for ((slot, _), v) in missed.into_iter().zip(rows) {
                out[slot] = v.map(&from_row);
            }
        }
        Ok(out)
    }

    /// Stored vectors by key (from the in-memory index when it holds `f32`; see
    /// [`Inner::by_index_then_rows`]).
    pub(crate) fn get_vectors(&self, kind: VectorKind, keys: &[String]) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
        self.by_index_then_rows(kind, keys, |index, ids| index.get(ids).map_err(index::index_err), |v| v)
    }

    /// Cosine similarities of stored vectors to `query`, scored inside the in-memory index when
    /// it holds `f32` (no vector is copied out), else from the rows.
    pub(crate) fn similarities(
        &self,
        kind: VectorKind,
        keys: &[String],
        query: &[f32],
    ) -> Result<Vec<Option<f32>>, StoreError> {
        // an unusable query (NaN, infinite, zero) scores nothing
        if !lightrag_ports::is_usable(query) {
            return Ok(vec![None; keys.len()]);
        }
        let scores = self.by_index_then_rows(
            kind,
            keys,
            |index, ids| index.similarities(ids, query).map_err(index::index_err),
            |v| lightrag_ports::cosine(query, &v),
        )?;
        Ok(scores.into_iter().map(|s| s.filter(|s| s.is_finite())).collect())
    }
}
