//! # lightrag-store-postgres
//!
//! The lightrag-rs store on PostgreSQL with pgvector: [`PostgresStore`] implements the whole store
//! port (every trait of [`lightrag_ports::Store`]) and passes the same conformance suite as the
//! SQLite store, so that several API servers and indexing workers on different hosts can share
//! one knowledge base.
//!
//! ## Workspaces are a column
//!
//! Every table has `workspace TEXT` leading its primary key. A [`PostgresStore`] serves one
//! workspace ([`PostgresStore::connect`] takes it; [`PostgresStore::workspace`] gives a handle on
//! another one over the same pool); one database serves any number of knowledge bases.
//!
//! ## Schema (version 4, see `schema.rs`)
//!
//! Tables are prefixed `lrs_` (LightRAG's own PostgreSQL tables are `lightrag_*`, e.g.
//! `lightrag_doc_status`, so both can live in one database): `lrs_meta` (embedding identity,
//! vector dimension), `lrs_documents`, `lrs_doc_status`, `lrs_chunks`, `lrs_extractions`,
//! `lrs_entities`, `lrs_relations` (sorted pair), `lrs_node_degree`, `lrs_entity_chunks` /
//! `lrs_relation_chunks` (the chunk lists as rows), `lrs_doc_links`, `lrs_vectors`,
//! `lrs_previous_versions` (what a waiting replacement replaces), `lrs_llm_cache`, `lrs_usage`. `lrs_chunks` and `lrs_entities` carry a generated `tsvector`
//! (`tsv`, GIN-indexed) for the lexical searches; the entities' one weighs the name's words (`A`)
//! above the description's (`B`). Text keys use the `"C"` collation, so PostgreSQL orders them by
//! bytes as Rust does, whatever the database locale. The schema is created and migrated by
//! [`migrate`] (numbered, self-contained steps recorded in `lightrag_schema_version`, applied in
//! one transaction under an advisory lock); [`check`] tells whether it is current without changing
//! anything. [`PostgresStore::connect`] migrates unless [`PostgresOptions::migrate`] is off, in
//! which case it refuses an out-of-date schema.
//!
//! ## Concurrency: many processes, one database
//!
//! Nothing relies on a process-wide lock; every guarantee holds across processes:
//! * **Claims** are one statement: `SELECT … ORDER BY created_at, id LIMIT n FOR UPDATE SKIP
//!   LOCKED` feeding an `UPDATE … RETURNING`, so two workers never take the same document and
//!   neither waits for the other.
//! * **Commits** ([`apply`](lightrag_ports::Commits::apply)) are one transaction. It first
//!   takes a transaction-level advisory lock for every graph key it reads or writes (entities,
//!   relations, the owners of the chunk lists it edits, the owners of the chunks of documents it
//!   deletes), sorted, through one call of the schema's `lrs_lock_keys` function: two commits that
//!   touch the same entity run one after the other, and since every commit locks in the same
//!   global order, never in a cycle. Only then are the expected versions checked, so a check and
//!   the writes it guards see the same rows (an absent entity cannot appear in between). Rows
//!   shared beyond the locked keys are updated in key order at the end: node degrees, vectors,
//!   then the usage ledger (the one row every commit touches, held only until the commit). A
//!   deadlock or serialisation failure the server reports anyway makes the commit run again (a
//!   few times) before it is reported as a [`lightrag_ports::StoreError::Conflict`].
//! * **Enqueue** locks the ids and content hashes of its documents the same way, so two
//!   processes enqueueing the same content at once record one original and one duplicate.
//! * **Reads** run in PostgreSQL's default `READ COMMITTED`: each sees every commit that returned
//!   before it started.
//!
//! ## Vectors
//!
//! `lrs_vectors` holds L2-normalised vectors in a `vector` column without a fixed dimension
//! (`dim` beside it). Once a workspace's dimension is known (the embedding identity, or the first
//! vector written), the store makes sure an HNSW index exists for it:
//! `CREATE INDEX … USING hnsw ((embedding::vector(N)) vector_cosine_ops) WHERE dim = N` (shared by
//! every workspace of that dimension; pgvector indexes up to 2,000 dimensions, larger ones are
//! searched exactly). A search first counts the set up to [`PostgresOptions::exact_search_below`]:
//! a smaller set is searched exactly (the distance written so that the index cannot serve it,
//! read through the primary key's `(workspace, kind)` prefix), a larger one through the HNSW index
//! (built with [`PostgresOptions::hnsw_m`] and [`PostgresOptions::hnsw_ef_construction`]) with
//! `hnsw.ef_search` at least [`PostgresOptions::hnsw_ef_search`] and the number of hits asked, and
//! pgvector 0.8's
//! `hnsw.iterative_scan` on, so that the workspace and kind filters do not starve the result.
//! Similarity is `1 - (a <=> b)` (cosine); [`lightrag_ports::VectorReads::similarities`] is one
//! query over the asked keys.
//!
//! ## Driver and dependencies
//!
//! `sqlx` 0.9 with only the `postgres` and `runtime-tokio` features: a pool, transactions and the
//! wire protocol, no compile-time-checked macros (they need a live database at build time), no
//! migration framework (the schema steps above are ours), no TLS yet (left for later: the
//! `tls-rustls` feature and `POSTGRES_SSL_*` settings) and no `json` feature — JSON travels as text
//! and is cast to `jsonb` in SQL. `pgvector` 0.4 (feature `sqlx`) adds only the `vector` type.
//! Together they bring 19 crates the workspace did not have (sqlx-core, sqlx-postgres and their
//! small helpers: md-5, hkdf and crc for authentication and framing, whoami for the default user,
//! hashlink for the statement cache, …) and no TLS stack; tokio and serde were there
//! already.

pub mod access;
mod apply;
mod batch;
mod cache;
mod chunks;
mod documents;
mod error;
mod graph;
mod integrity;
mod lists;
mod locks;
mod reembed;
mod schema;
mod store_impl;
mod vectors;

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

pub use access::{ACCESS_TABLE_PREFIX, PostgresAccessStore};
use lightrag_ports::StoreError;
pub use schema::{SCHEMA_VERSION, SchemaStatus, applied_steps, check, migrate, workspaces};
pub use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
pub use sqlx::postgres::{PgConnectOptions, PgSslMode};

use crate::error::db_err;

/// Vector sets up to this size are searched exactly by default.
pub const DEFAULT_EXACT_SEARCH_BELOW: usize = 10_000;

/// How to reach the database and size the pool.
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    /// Host, port, user, password, database (from a `postgres://` URL or built field by field).
    pub connect: PgConnectOptions,
    /// Pooled connections at most (`POSTGRES_MAX_CONNECTIONS`).
    pub max_connections: u32,
    /// How long to wait for a free connection (and for the first one) before failing.
    pub acquire_timeout: Duration,
    /// Create or migrate the schema on connect (else: refuse an out-of-date schema).
    pub migrate: bool,
    /// Vector sets with at most this many vectors are searched exactly, larger ones through
    /// the HNSW index.
    pub exact_search_below: usize,
    /// HNSW graph links per node (`m`), for indexes this store creates (pgvector's default: 16).
    pub hnsw_m: usize,
    /// HNSW candidate list while building (`ef_construction`; pgvector's default: 64).
    pub hnsw_ef_construction: usize,
    /// HNSW candidate list while searching (`hnsw.ef_search`), raised to the hits asked for
    /// (at most 1,000; pgvector's default: 40).
    pub hnsw_ef_search: usize,
}

impl PostgresOptions {
    /// Options for a `postgres://user:password@host:port/database` URL, with default pool settings.
    pub fn from_url(url: &str) -> Result<PostgresOptions, StoreError> {
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(StoreError::Invalid(format!(
                "'{}…' is not a PostgreSQL URL; expected postgres://user:password@host:port/database",
                url.chars().take(12).collect::<String>()
            )));
        }
        let connect: PgConnectOptions = url.parse().map_err(|e| {
            StoreError::Invalid(format!(
                "cannot read the PostgreSQL URL ({e}); expected postgres://user:password@host:port/database"
            ))
        })?;
        Ok(PostgresOptions::new(connect))
    }

    /// Options for explicit connection settings, with default pool settings.
    pub fn new(connect: PgConnectOptions) -> PostgresOptions {
        PostgresOptions {
            connect,
            max_connections: 10,
            acquire_timeout: Duration::from_secs(30),
            migrate: true,
            exact_search_below: DEFAULT_EXACT_SEARCH_BELOW,
            hnsw_m: 16,
            hnsw_ef_construction: 64,
            hnsw_ef_search: 40,
        }
    }

    /// `host:port/database` (no password), for messages.
    pub fn target(&self) -> String {
        format!(
            "{}:{}/{}",
            self.connect.get_host(),
            self.connect.get_port(),
            self.connect.get_database().unwrap_or("(default database)")
        )
    }
}

/// The store on PostgreSQL, serving one workspace. Cheap to clone (clones share the pool).
#[derive(Clone)]
pub struct PostgresStore {
    pub(crate) inner: Arc<Shared>,
    pub(crate) workspace: Arc<str>,
    /// The workspace's vector dimension once known (0 before; changed only by a re-embedding).
    pub(crate) dim: Arc<AtomicUsize>,
}

/// What every workspace handle over one pool shares.
pub(crate) struct Shared {
    pub(crate) pool: PgPool,
    pub(crate) target: String,
    pub(crate) exact_search_below: usize,
    /// `m` and `ef_construction` of the HNSW indexes this store creates.
    pub(crate) hnsw_build: (usize, usize),
    /// The least `hnsw.ef_search`.
    pub(crate) hnsw_ef_search: usize,
    /// pgvector offers `hnsw.iterative_scan` (0.8 and later).
    pub(crate) iterative_scan: bool,
    /// Dimensions whose HNSW index this process has made sure of.
    pub(crate) indexed_dims: std::sync::Mutex<Vec<usize>>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("target", &self.inner.target)
            .field("workspace", &self.workspace)
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects (a pool of `options.max_connections`), creates or migrates the schema (unless
    /// `options.migrate` is off: then an out-of-date schema is refused) and serves `workspace`.
    pub async fn connect(options: PostgresOptions, workspace: &str) -> Result<PostgresStore, StoreError> {
        let target = options.target();
        let pool = PgPoolOptions::new()
            .max_connections(options.max_connections.max(1))
            .acquire_timeout(options.acquire_timeout)
            .connect_with(options.connect.clone())
            .await
            .map_err(|e| connect_err(e, &target))?;
        let status = if options.migrate { migrate(&pool).await? } else { check(&pool).await? };
        if !status.is_current() {
            return Err(StoreError::Corrupt(format!(
                "the database at {target} has lightrag-rs schema version {} (this build needs {}){}; run \
                 `lightrag migrate`",
                status.found.map(|v| v.to_string()).unwrap_or_else(|| "none".to_string()),
                status.latest,
                if status.vector_extension.is_none() { " and no pgvector extension" } else { "" }
            )));
        }
        let iterative_scan = status.vector_extension.as_deref().is_some_and(pgvector_has_iterative_scan);
        let shared = Shared {
            pool,
            target,
            exact_search_below: options.exact_search_below,
            hnsw_build: (options.hnsw_m.clamp(2, 100), options.hnsw_ef_construction.clamp(4, 1000)),
            hnsw_ef_search: options.hnsw_ef_search.clamp(1, 1000),
            iterative_scan,
            indexed_dims: std::sync::Mutex::new(Vec::new()),
        };
        Ok(PostgresStore::on_shared(Arc::new(shared), workspace))
    }

    /// A small pool on the database without touching its schema (for [`check`] and [`migrate`],
    /// e.g. `lightrag migrate --check`); gives up on an unreachable server after at most 10 s.
    pub async fn connect_pool(options: &PostgresOptions) -> Result<PgPool, StoreError> {
        let target = options.target();
        PgPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(options.acquire_timeout.min(Duration::from_secs(10)))
            .connect_with(options.connect.clone())
            .await
            .map_err(|e| connect_err(e, &target))
    }

    /// [`PostgresStore::connect`] with a `postgres://` URL and default options.
    pub async fn connect_url(url: &str, workspace: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::connect(PostgresOptions::from_url(url)?, workspace).await
    }

    fn on_shared(inner: Arc<Shared>, workspace: &str) -> PostgresStore {
        PostgresStore { inner, workspace: Arc::from(workspace), dim: Arc::new(AtomicUsize::new(0)) }
    }

    /// A handle on another workspace of the same database, sharing this handle's pool.
    pub fn workspace(&self, workspace: &str) -> PostgresStore {
        PostgresStore::on_shared(Arc::clone(&self.inner), workspace)
    }

    /// The workspace this handle serves.
    pub fn workspace_name(&self) -> &str {
        &self.workspace
    }

    /// The connection pool (for tools: schema checks, statistics).
    pub fn pool(&self) -> &PgPool {
        &self.inner.pool
    }

    /// A pooled connection.
    pub(crate) async fn conn(&self) -> Result<sqlx::pool::PoolConnection<sqlx::Postgres>, StoreError> {
        self.inner.pool.acquire().await.map_err(db_err)
    }

    /// A transaction.
    pub(crate) async fn begin(&self) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, StoreError> {
        self.inner.pool.begin().await.map_err(db_err)
    }
}

/// pgvector 0.8 added `hnsw.iterative_scan`.
fn pgvector_has_iterative_scan(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (0, 8)
}

/// A failed first connection, with where it tried.
fn connect_err(e: sqlx::Error, target: &str) -> StoreError {
    db_err(e).in_context(&format!("PostgreSQL at {target}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterative_scan_needs_pgvector_0_8() {
        assert!(pgvector_has_iterative_scan("0.8.2"));
        assert!(pgvector_has_iterative_scan("1.0.0"));
        assert!(!pgvector_has_iterative_scan("0.7.4"));
        assert!(!pgvector_has_iterative_scan("junk"));
    }

    #[test]
    fn urls_are_read_and_bad_ones_explained() {
        let o = PostgresOptions::from_url("postgres://u:secret@db.example:5433/kb").unwrap();
        assert_eq!(o.target(), "db.example:5433/kb");
        assert!(matches!(PostgresOptions::from_url("mysql://nope"), Err(StoreError::Invalid(_))));
    }
}
