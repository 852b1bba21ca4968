//! # lightrag-store-sqlite
//!
//! The embedded lightrag-rs store: one SQLite file (WAL mode) holds every namespace and
//! implements [`lightrag_ports::Store`].
//!
//! ## Schema (version 1, recorded in `meta.schema_version`)
//!
//! | table | key | holds |
//! |---|---|---|
//! | `meta` | `key` | schema version, embedding identity (`embedding_model`, `vector_dim`), vector-set generations (`vgen:<kind>`) |
//! | `documents` | `id` | full text, file path, content hash (indexed), chunking options (JSON) |
//! | `doc_status` | `id` | the status row; lists and metadata as JSON; indexed by status, track id, created/updated time |
//! | `chunks` | `id` | chunk text, order, tokens; indexed by `doc_id` |
//! | `extractions` | `chunk_id` | the parsed extraction of a chunk (JSON body); indexed by `doc_id` |
//! | `entities` | `name` | graph nodes with their `version` |
//! | `relations` | `(src, tgt)` sorted pair | undirected edges with `version`; index on `tgt`, so the edges of a node are two indexed lookups |
//! | `doc_links` | `doc_id` | entities and relation keys a document contributed to (JSON) |
//! | `vectors` | `(kind, key)` | L2-normalised vectors as little-endian `f32` blobs, plus the embedded text |
//! | `llm_cache` | `key` | cached LLM responses; indexed by `cache_type` |
//! | `usage` | `role` | usage counters per role |
//!
//! ## Concurrency model
//!
//! * One **writer** connection behind a mutex. Every write ([`apply`](lightrag_ports::Store::apply), `enqueue`, `claim`,
//!   `renew_leases`, cache writes) is one `BEGIN IMMEDIATE` transaction on it, so within a process
//!   writes are serialised and across processes SQLite's write lock (with a `busy_timeout`) does it.
//! * A few **reader** connections (`query_only`), handed out round-robin; WAL lets them read while
//!   a write is in progress. Every read sees every commit that finished before it started.
//! * **Vectors** are searched in memory: each set is a contiguous `f32` matrix with a key→row map,
//!   loaded on open and searched by exact brute-force dot product with a partial top-k selection.
//!   After a commit through this handle, the index replays the change while the writer lock is
//!   still held. Commits by other connections (other processes, other handles on the file) are
//!   detected with `PRAGMA data_version` on a dedicated watch connection plus per-set generation
//!   counters in `meta`; a changed set is reloaded before the next search.
//! * All SQLite work runs on `tokio::task::spawn_blocking`.
//!
//! Crash safety comes from SQLite: a change set is one transaction (`synchronous=NORMAL` in WAL
//! mode survives process crashes; a power loss may lose the last commits but never half of one).

mod apply;
mod cache;
mod chunks;
mod codec;
mod documents;
mod graph;
mod lists;
mod migrate;
mod ranked;
mod schema;
mod store_impl;
mod vectors;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use lightrag_ports::{StoreError, VectorHit, VectorKind};
use rusqlite::Connection;

use crate::codec::{db_err, normalise};
use crate::vectors::{STALE, VectorIndex, VectorSet, slot};

/// Options for [`SqliteStore::open_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqliteOptions {
    /// Number of reader connections (at least 1).
    pub readers: usize,
    /// How long a connection waits for another process's lock before failing.
    pub busy_timeout: Duration,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions { readers: 3, busy_timeout: Duration::from_secs(10) }
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
    index: RwLock<VectorIndex>,
}

impl SqliteStore {
    /// Opens (creating if needed, with parent directories) the store at `path` with default options.
    ///
    /// Fails with [`StoreError::Corrupt`] when the file is not a lightrag-rs store or has a schema
    /// this build cannot read.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        SqliteStore::open_with(path, SqliteOptions::default())
    }

    /// Opens the store at `path` with `options`. Loads every vector set into memory.
    pub fn open_with(path: &Path, options: SqliteOptions) -> Result<SqliteStore, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                StoreError::Backend(format!("cannot create directory {}: {e} (check permissions)", parent.display()))
            })?;
        }
        let mut writer = schema::connect(path, options.busy_timeout, false)?;
        schema::ensure_schema(&mut writer, path)?;
        let readers = (0..options.readers.max(1))
            .map(|_| schema::connect(path, options.busy_timeout, true).map(Mutex::new))
            .collect::<Result<Vec<_>, _>>()?;
        let watch = schema::connect(path, options.busy_timeout, true)?;
        let index = VectorIndex { gens: [STALE; 3], ..VectorIndex::default() };
        let inner = Inner {
            path: path.to_path_buf(),
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
            watch: Mutex::new(Watch { conn: watch, data_version: None }),
            index: RwLock::new(index),
        };
        inner.refresh()?;
        Ok(SqliteStore { inner: Arc::new(inner) })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
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
            .map_err(|e| StoreError::Backend(format!("store worker thread failed: {e}")))?
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

    pub(crate) fn index_read(&self) -> RwLockReadGuard<'_, VectorIndex> {
        self.index.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn index_write(&self) -> RwLockWriteGuard<'_, VectorIndex> {
        self.index.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Brings the in-memory index up to date with commits of other connections.
    fn refresh(&self) -> Result<(), StoreError> {
        let mut watch = self.watch.lock().unwrap_or_else(PoisonError::into_inner);
        let dv: i64 = watch.conn.query_row("PRAGMA data_version", [], |r| r.get(0)).map_err(db_err)?;
        let (current_gens, stale) = {
            let idx = self.index_read();
            (idx.gens, idx.any_stale())
        };
        if watch.data_version == Some(dv) && !stale {
            return Ok(());
        }
        let tx = watch.conn.transaction().map_err(db_err)?;
        let gens = vectors::stored_gens(&tx)?;
        let dim = vectors::stored_dim(&tx)?;
        let mut loaded: Vec<(usize, i64, VectorSet)> = Vec::new();
        for kind in VectorKind::ALL {
            let i = slot(kind);
            if current_gens[i] < gens[i] || current_gens[i] == STALE {
                let set = match dim {
                    Some(d) => vectors::load_set(&tx, kind, d)?,
                    None => VectorSet::default(),
                };
                loaded.push((i, gens[i], set));
            }
        }
        tx.finish().map_err(db_err)?;
        watch.data_version = Some(dv);
        let mut idx = self.index_write();
        if dim.is_some() {
            idx.dim = dim;
        }
        for (i, generation, set) in loaded {
            if idx.gens[i] < generation || idx.gens[i] == STALE {
                tracing::debug!(set = i, generation, vectors = set.len(), "reloaded vector set");
                idx.sets[i] = set;
                idx.gens[i] = generation;
            }
        }
        Ok(())
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
        let idx = self.index_read();
        let Some(dim) = idx.dim else {
            return Ok(Vec::new());
        };
        if query.len() != dim {
            return Err(StoreError::WrongDimension { expected: dim, got: query.len() });
        }
        normalise(&mut query);
        Ok(idx.sets[slot(kind)].search(dim, &query, top_k, min_score))
    }
}
