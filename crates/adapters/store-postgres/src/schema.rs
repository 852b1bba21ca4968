//! The schema and its migrations: numbered, self-contained steps recorded in
//! `lightrag_schema_version` (one row per applied step). [`migrate`] runs every missing step in one
//! transaction under a transaction-level advisory lock, so two processes starting at once do not
//! race (the second waits, then finds nothing to do); [`check`] only reads where the schema stands.

use lightrag_ports::StoreError;
use sqlx::{PgConnection, PgPool, Row};

use crate::error::db_err;

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = 6;

/// The advisory lock (two-`int4` form, so it never meets the store's one-`bigint` key locks)
/// taken while the schema is created or migrated.
const MIGRATION_LOCK: (i32, i32) = (0x4c52_5321, 1);

/// One migration step: the version it brings the schema to, what it does, and its SQL.
struct Step {
    version: i64,
    description: &'static str,
    sql: &'static str,
}

// the version is the last step's
const _: () = assert!(SCHEMA_VERSION as usize == STEPS.len());

/// Every step, in order. A step never changes once released: later changes are new steps.
const STEPS: &[Step] = &[
    Step { version: 1, description: "initial schema", sql: V1 },
    Step { version: 2, description: "merge locks", sql: V2 },
    Step { version: 3, description: "full-text index of chunks", sql: V3 },
    Step { version: 4, description: "full-text index of entities", sql: V4 },
    Step { version: 5, description: "previous versions of replaced documents", sql: V5 },
    Step { version: 6, description: "usage ledger by day", sql: V6 },
];

/// Version 1. Text keys use the "C" collation so that PostgreSQL orders them as Rust does (by
/// bytes), whatever the database's locale: paging, ranking ties and listings depend on it.
const V1: &str = r#"
CREATE TABLE lrs_meta (
    workspace TEXT COLLATE "C" NOT NULL,
    key       TEXT COLLATE "C" NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (workspace, key)
);

CREATE TABLE lrs_documents (
    workspace    TEXT COLLATE "C" NOT NULL,
    id           TEXT COLLATE "C" NOT NULL,
    content      TEXT NOT NULL,
    file_path    TEXT NOT NULL,
    content_hash TEXT COLLATE "C" NOT NULL,
    chunking     JSONB NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (workspace, id)
);
CREATE INDEX lrs_documents_by_hash ON lrs_documents (workspace, content_hash, created_at, id);

CREATE TABLE lrs_doc_status (
    workspace       TEXT COLLATE "C" NOT NULL,
    id              TEXT COLLATE "C" NOT NULL,
    status          TEXT COLLATE "C" NOT NULL,
    file_path       TEXT COLLATE "C" NOT NULL,
    track_id        TEXT COLLATE "C" NOT NULL,
    content_summary TEXT NOT NULL,
    content_length  BIGINT NOT NULL,
    content_hash    TEXT NOT NULL,
    chunks_count    BIGINT,
    chunks_list     TEXT[] NOT NULL,
    error_msg       TEXT,
    metadata        JSONB NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    lease_owner     TEXT COLLATE "C",
    lease_until     BIGINT,
    PRIMARY KEY (workspace, id)
);
CREATE INDEX lrs_doc_status_by_status ON lrs_doc_status (workspace, status, created_at, id);
CREATE INDEX lrs_doc_status_by_track ON lrs_doc_status (workspace, track_id);
CREATE INDEX lrs_doc_status_by_created ON lrs_doc_status (workspace, created_at, id);
CREATE INDEX lrs_doc_status_by_updated ON lrs_doc_status (workspace, updated_at, id);

CREATE TABLE lrs_chunks (
    workspace TEXT COLLATE "C" NOT NULL,
    id        TEXT COLLATE "C" NOT NULL,
    doc_id    TEXT COLLATE "C" NOT NULL,
    ord       BIGINT NOT NULL,
    tokens    BIGINT NOT NULL,
    content   TEXT NOT NULL,
    file_path TEXT NOT NULL,
    PRIMARY KEY (workspace, id)
);
CREATE INDEX lrs_chunks_by_doc ON lrs_chunks (workspace, doc_id);

CREATE TABLE lrs_extractions (
    workspace  TEXT COLLATE "C" NOT NULL,
    chunk_id   TEXT COLLATE "C" NOT NULL,
    doc_id     TEXT COLLATE "C" NOT NULL,
    body       JSONB NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (workspace, chunk_id)
);
CREATE INDEX lrs_extractions_by_doc ON lrs_extractions (workspace, doc_id);

CREATE TABLE lrs_entities (
    workspace   TEXT COLLATE "C" NOT NULL,
    name        TEXT COLLATE "C" NOT NULL,
    entity_type TEXT NOT NULL,
    description TEXT NOT NULL,
    source_ids  TEXT[] NOT NULL,
    file_paths  TEXT[] NOT NULL,
    created_at  BIGINT NOT NULL,
    truncate    TEXT NOT NULL,
    version     BIGINT NOT NULL,
    chunk_count BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace, name)
);

-- undirected edges under their sorted pair; the primary key serves a node's edges as `src`,
-- the second index as `tgt`
CREATE TABLE lrs_relations (
    workspace   TEXT COLLATE "C" NOT NULL,
    src         TEXT COLLATE "C" NOT NULL,
    tgt         TEXT COLLATE "C" NOT NULL,
    weight      DOUBLE PRECISION NOT NULL,
    keywords    TEXT NOT NULL,
    description TEXT NOT NULL,
    source_ids  TEXT[] NOT NULL,
    file_paths  TEXT[] NOT NULL,
    created_at  BIGINT NOT NULL,
    truncate    TEXT NOT NULL,
    version     BIGINT NOT NULL,
    chunk_count BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace, src, tgt)
);
CREATE INDEX lrs_relations_by_tgt ON lrs_relations (workspace, tgt, src);

-- relations per entity name (a self-loop counts once), kept with every relation insert and delete
CREATE TABLE lrs_node_degree (
    workspace TEXT COLLATE "C" NOT NULL,
    name      TEXT COLLATE "C" NOT NULL,
    degree    BIGINT NOT NULL,
    PRIMARY KEY (workspace, name)
);
CREATE INDEX lrs_node_degree_rank ON lrs_node_degree (workspace, degree DESC, name);

-- the uncut, ordered chunk lists of entities and relations (provenance rows); `ord` grows with
-- every append and may have gaps
CREATE TABLE lrs_entity_chunks (
    workspace TEXT COLLATE "C" NOT NULL,
    entity    TEXT COLLATE "C" NOT NULL,
    ord       BIGINT NOT NULL,
    chunk_id  TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (workspace, entity, ord)
);
CREATE UNIQUE INDEX lrs_entity_chunks_by_chunk ON lrs_entity_chunks (workspace, chunk_id, entity);

CREATE TABLE lrs_relation_chunks (
    workspace TEXT COLLATE "C" NOT NULL,
    src       TEXT COLLATE "C" NOT NULL,
    tgt       TEXT COLLATE "C" NOT NULL,
    ord       BIGINT NOT NULL,
    chunk_id  TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (workspace, src, tgt, ord)
);
CREATE UNIQUE INDEX lrs_relation_chunks_by_chunk ON lrs_relation_chunks (workspace, chunk_id, src, tgt);

CREATE TABLE lrs_doc_links (
    workspace TEXT COLLATE "C" NOT NULL,
    doc_id    TEXT COLLATE "C" NOT NULL,
    entities  TEXT[] NOT NULL,
    relations JSONB NOT NULL,
    PRIMARY KEY (workspace, doc_id)
);

-- L2-normalised vectors of any dimension; an HNSW index per dimension is added once a workspace
-- fixes its dimension (see vectors.rs)
CREATE TABLE lrs_vectors (
    workspace TEXT COLLATE "C" NOT NULL,
    kind      TEXT COLLATE "C" NOT NULL,
    key       TEXT COLLATE "C" NOT NULL,
    dim       BIGINT NOT NULL,
    embedding vector NOT NULL,
    content   TEXT NOT NULL,
    PRIMARY KEY (workspace, kind, key)
);

CREATE TABLE lrs_llm_cache (
    workspace  TEXT COLLATE "C" NOT NULL,
    key        TEXT COLLATE "C" NOT NULL,
    cache_type TEXT COLLATE "C" NOT NULL,
    response   TEXT NOT NULL,
    chunk_id   TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (workspace, key)
);
CREATE INDEX lrs_llm_cache_by_type ON lrs_llm_cache (workspace, cache_type);

CREATE TABLE lrs_usage (
    workspace  TEXT COLLATE "C" NOT NULL,
    role       TEXT COLLATE "C" NOT NULL,
    calls      BIGINT NOT NULL,
    cache_hits BIGINT NOT NULL,
    tokens_in  BIGINT NOT NULL,
    tokens_out BIGINT NOT NULL,
    PRIMARY KEY (workspace, role)
);

-- takes transaction-level advisory locks in the order given (the caller sorts them), so that
-- every writer locks the keys it touches in one global order
CREATE FUNCTION lrs_lock_keys(keys BIGINT[]) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE k BIGINT;
BEGIN
    FOREACH k IN ARRAY keys LOOP
        PERFORM pg_advisory_xact_lock(k);
    END LOOP;
END
$fn$;
"#;

/// Version 2: the merge locks processes take on the entity names of a document while they merge
/// it (`MergeLocks::lock_keys`).
const V2: &str = r#"
CREATE TABLE lrs_merge_locks (
    workspace TEXT COLLATE "C" NOT NULL,
    key       TEXT COLLATE "C" NOT NULL,
    owner     TEXT COLLATE "C" NOT NULL,
    until     BIGINT NOT NULL,
    PRIMARY KEY (workspace, key)
);
CREATE INDEX lrs_merge_locks_by_owner ON lrs_merge_locks (workspace, owner);
"#;

/// Version 3: the lexical index of chunk contents (`TextSearch::search_chunk_text`): a generated
/// `tsvector` (the `simple` configuration: lower-cased words, no stemming, no stop words) under a
/// GIN index, written with the row in the same transaction.
const V3: &str = r#"
ALTER TABLE lrs_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED;
CREATE INDEX lrs_chunks_text ON lrs_chunks USING gin (tsv);
"#;

/// Version 4: the lexical index of entity names and descriptions
/// (`TextSearch::search_entity_text`): a generated `tsvector` (the `simple` configuration) with
/// the name's words at weight `A` and the description's at `B` (a search ranks them 10 to 1),
/// under a GIN index, written with the row in the same transaction.
const V4: &str = r#"
ALTER TABLE lrs_entities ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', description), 'B')
) STORED;
CREATE INDEX lrs_entities_text ON lrs_entities USING gin (tsv);
"#;

/// Version 5: the indexed version a replacement waiting to be processed replaces (its text, and
/// its status row as JSON), put back when the replacement fails or is cancelled
/// (`DocumentReads::previous_version`).
const V5: &str = r#"
CREATE TABLE lrs_previous_versions (
    workspace    TEXT COLLATE "C" NOT NULL,
    id           TEXT COLLATE "C" NOT NULL,
    content      TEXT NOT NULL,
    file_path    TEXT NOT NULL,
    content_hash TEXT COLLATE "C" NOT NULL,
    chunking     JSONB NOT NULL,
    created_at   BIGINT NOT NULL,
    status_row   JSONB NOT NULL,
    PRIMARY KEY (workspace, id)
);
"#;

/// Version 6: the usage ledger by UTC day (days since the epoch), what the daily LLM token quota
/// reads (`CacheAndLedger::usage_today`).
const V6: &str = r#"
CREATE TABLE lrs_usage_daily (
    workspace  TEXT COLLATE "C" NOT NULL,
    day        BIGINT NOT NULL,
    role       TEXT COLLATE "C" NOT NULL,
    calls      BIGINT NOT NULL,
    cache_hits BIGINT NOT NULL,
    tokens_in  BIGINT NOT NULL,
    tokens_out BIGINT NOT NULL,
    PRIMARY KEY (workspace, day, role)
);
"#;

/// Where a database's schema stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaStatus {
    /// The applied version (`None`: no lightrag-rs schema in this database).
    pub found: Option<i64>,
    /// The version this build needs.
    pub latest: i64,
    /// The installed pgvector version (`None`: the `vector` extension is not installed).
    pub vector_extension: Option<String>,
}

impl SchemaStatus {
    /// Whether the schema is the one this build needs.
    pub fn is_current(&self) -> bool {
        self.found == Some(self.latest) && self.vector_extension.is_some()
    }
}

/// Reads where the schema stands without changing anything (for `lightrag migrate --check`).
pub async fn check(pool: &PgPool) -> Result<SchemaStatus, StoreError> {
    let mut conn = pool.acquire().await.map_err(db_err)?;
    status(&mut conn).await
}

async fn status(conn: &mut PgConnection) -> Result<SchemaStatus, StoreError> {
    let vector_extension: Option<String> =
        sqlx::query_scalar("SELECT extversion::text FROM pg_extension WHERE extname = 'vector'")
            .fetch_optional(&mut *conn)
            .await
            .map_err(db_err)?;
    let has_table: bool = sqlx::query_scalar("SELECT to_regclass('lightrag_schema_version') IS NOT NULL")
        .fetch_one(&mut *conn)
        .await
        .map_err(db_err)?;
    let found = if has_table {
        sqlx::query_scalar::<_, Option<i64>>("SELECT max(version)::bigint FROM lightrag_schema_version")
            .fetch_one(&mut *conn)
            .await
            .map_err(db_err)?
    } else {
        None
    };
    Ok(SchemaStatus { found, latest: SCHEMA_VERSION, vector_extension })
}

/// Creates the `vector` extension and the schema if missing and runs every missing migration step,
/// all in one transaction under an advisory lock. Returns the status after migrating.
pub async fn migrate(pool: &PgPool) -> Result<SchemaStatus, StoreError> {
    let mut tx = pool.begin().await.map_err(db_err)?;
    sqlx::query("SELECT pg_advisory_xact_lock($1, $2)")
        .bind(MIGRATION_LOCK.0)
        .bind(MIGRATION_LOCK.1)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    let before = status(&mut tx).await?;
    if before.vector_extension.is_none() {
        sqlx::query("CREATE EXTENSION IF NOT EXISTS vector").execute(&mut *tx).await.map_err(|e| {
            let message = format!(
                "cannot create the pgvector extension ({e}); install pgvector on the server and run \
                 `CREATE EXTENSION vector;` in this database as a privileged user"
            );
            StoreError::backend_caused(message, e)
        })?;
    }
    if let Some(found) = before.found
        && found > SCHEMA_VERSION
    {
        return Err(StoreError::Corrupt(format!(
            "the database holds lightrag-rs schema version {found}, newer than this build supports \
             ({SCHEMA_VERSION}); upgrade lightrag-rs"
        )));
    }
    sqlx::query(
        "CREATE TABLE IF NOT EXISTS lightrag_schema_version (\
           version BIGINT PRIMARY KEY, \
           description TEXT NOT NULL, \
           applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
    )
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    let from = before.found.unwrap_or(0);
    for step in STEPS.iter().filter(|s| s.version > from) {
        sqlx::raw_sql(step.sql).execute(&mut *tx).await.map_err(|e| {
            StoreError::Corrupt(format!(
                "cannot migrate the lightrag-rs schema to version {} ({}): {e}; nothing was changed",
                step.version, step.description
            ))
        })?;
        sqlx::query("INSERT INTO lightrag_schema_version (version, description) VALUES ($1, $2)")
            .bind(step.version)
            .bind(step.description)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        tracing::info!(version = step.version, step = step.description, "migrated the PostgreSQL schema");
    }
    let after = status(&mut tx).await?;
    tx.commit().await.map_err(db_err)?;
    Ok(after)
}

/// The applied steps, oldest first: `(version, description)`.
pub async fn applied_steps(pool: &PgPool) -> Result<Vec<(i64, String)>, StoreError> {
    let rows = sqlx::query("SELECT version, description FROM lightrag_schema_version ORDER BY version")
        .fetch_all(pool)
        .await
        .map_err(db_err)?;
    rows.iter().map(|r| Ok((r.try_get(0).map_err(db_err)?, r.try_get(1).map_err(db_err)?))).collect()
}

/// The workspaces that hold anything in this database (documents or a recorded embedding model),
/// sorted; none when the schema is not there yet.
pub async fn workspaces(pool: &PgPool) -> Result<Vec<String>, StoreError> {
    let mut conn = pool.acquire().await.map_err(db_err)?;
    let has_schema: bool =
        sqlx::query_scalar("SELECT to_regclass('lrs_meta') IS NOT NULL").fetch_one(&mut *conn).await.map_err(db_err)?;
    if !has_schema {
        return Ok(Vec::new());
    }
    sqlx::query_scalar("SELECT workspace FROM lrs_meta UNION SELECT DISTINCT workspace FROM lrs_doc_status ORDER BY 1")
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)
}
