//! Opening connections, pragmas, and the schema (created on first open, version-checked after).

use std::path::Path;
use std::time::Duration;

use lightrag_ports::StoreError;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use crate::codec::db_err;

/// The schema version this build writes and reads.
pub(crate) const SCHEMA_VERSION: i64 = 8;

/// Every table and index, created in one transaction on first open.
const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS documents (
    id           TEXT PRIMARY KEY,
    content      TEXT NOT NULL,
    file_path    TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    chunking     TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_by_hash ON documents(content_hash);

-- the indexed version a replacement waiting to be processed replaces (its text and status row
-- as JSON), put back when the replacement fails or is cancelled
CREATE TABLE IF NOT EXISTS previous_versions (
    id           TEXT PRIMARY KEY,
    content      TEXT NOT NULL,
    file_path    TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    chunking     TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    status_row   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS doc_status (
    id              TEXT PRIMARY KEY,
    status          TEXT NOT NULL,
    file_path       TEXT NOT NULL,
    track_id        TEXT NOT NULL,
    content_summary TEXT NOT NULL,
    content_length  INTEGER NOT NULL,
    content_hash    TEXT NOT NULL,
    chunks_count    INTEGER,
    chunks_list     TEXT NOT NULL,
    error_msg       TEXT,
    metadata        TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    lease_owner     TEXT,
    lease_until     INTEGER
);
CREATE INDEX IF NOT EXISTS doc_status_by_status ON doc_status(status, created_at, id);
CREATE INDEX IF NOT EXISTS doc_status_by_track ON doc_status(track_id);
CREATE INDEX IF NOT EXISTS doc_status_by_updated ON doc_status(updated_at);
CREATE INDEX IF NOT EXISTS doc_status_by_created ON doc_status(created_at);

CREATE TABLE IF NOT EXISTS chunks (
    id        TEXT PRIMARY KEY,
    doc_id    TEXT NOT NULL,
    ord       INTEGER NOT NULL,
    tokens    INTEGER NOT NULL,
    content   TEXT NOT NULL,
    file_path TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks(doc_id);

CREATE TABLE IF NOT EXISTS extractions (
    chunk_id   TEXT PRIMARY KEY,
    doc_id     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS extractions_by_doc ON extractions(doc_id);

CREATE TABLE IF NOT EXISTS entities (
    name        TEXT PRIMARY KEY,
    entity_type TEXT NOT NULL,
    description TEXT NOT NULL,
    source_ids  TEXT NOT NULL,
    file_paths  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    truncate    TEXT NOT NULL,
    version     INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS relations (
    src         TEXT NOT NULL,
    tgt         TEXT NOT NULL,
    weight      REAL NOT NULL,
    keywords    TEXT NOT NULL,
    description TEXT NOT NULL,
    source_ids  TEXT NOT NULL,
    file_paths  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    truncate    TEXT NOT NULL,
    version     INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (src, tgt)
);
-- edges of a node in rank order without touching the rows (query expansion)
CREATE INDEX IF NOT EXISTS relations_by_src_rank ON relations(src, tgt, weight);
CREATE INDEX IF NOT EXISTS relations_by_tgt_rank ON relations(tgt, src, weight);

-- relations per entity name, kept with every relation insert and delete
CREATE TABLE IF NOT EXISTS node_degree (
    name   TEXT PRIMARY KEY,
    degree INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS node_degree_rank ON node_degree(degree DESC, name);

-- the uncut, ordered chunk lists of entities and relations (provenance rows)
CREATE TABLE IF NOT EXISTS entity_chunks (
    entity   TEXT NOT NULL,
    ord      INTEGER NOT NULL,
    chunk_id TEXT NOT NULL,
    PRIMARY KEY (entity, ord)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS entity_chunks_by_chunk ON entity_chunks(chunk_id, entity);

CREATE TABLE IF NOT EXISTS relation_chunks (
    src      TEXT NOT NULL,
    tgt      TEXT NOT NULL,
    ord      INTEGER NOT NULL,
    chunk_id TEXT NOT NULL,
    PRIMARY KEY (src, tgt, ord)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS relation_chunks_by_chunk ON relation_chunks(chunk_id, src, tgt);

CREATE TABLE IF NOT EXISTS doc_links (
    doc_id    TEXT PRIMARY KEY,
    entities  TEXT NOT NULL,
    relations TEXT NOT NULL
);

-- `content` (the embedded text, often kilobytes) comes last: a read of `vector` then stops before
-- it instead of walking the text's overflow pages.
-- `id` is the hashed id of (kind, key) (see `vectors.rs`), or a low id for a collided key.
CREATE TABLE IF NOT EXISTS vectors (
    id      INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL,
    key     TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    vector  BLOB NOT NULL,
    content TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS vectors_by_key ON vectors(kind, key);
CREATE INDEX IF NOT EXISTS vectors_by_seq ON vectors(kind, seq);

CREATE TABLE IF NOT EXISTS vector_key_collisions (
    kind TEXT NOT NULL,
    key  TEXT NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS vector_tombstones (
    kind TEXT NOT NULL,
    seq  INTEGER NOT NULL,
    id   INTEGER NOT NULL,
    PRIMARY KEY (kind, seq, id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS llm_cache (
    key        TEXT PRIMARY KEY,
    cache_type TEXT NOT NULL,
    response   TEXT NOT NULL,
    chunk_id   TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS llm_cache_by_type ON llm_cache(cache_type);

CREATE TABLE IF NOT EXISTS usage (
    role       TEXT PRIMARY KEY,
    calls      INTEGER NOT NULL,
    cache_hits INTEGER NOT NULL,
    tokens_in  INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS merge_locks (
    key   TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    until INTEGER NOT NULL
) WITHOUT ROWID;
-- the usage ledger by UTC day (days since the epoch): what the daily token quota reads; kept
-- from the day a build with it first wrote usage (older builds leave it alone)
CREATE TABLE IF NOT EXISTS usage_daily (
    day        INTEGER NOT NULL,
    role       TEXT NOT NULL,
    calls      INTEGER NOT NULL,
    cache_hits INTEGER NOT NULL,
    tokens_in  INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    PRIMARY KEY (day, role)
) WITHOUT ROWID;
"#;

/// The full-text index of chunk contents (FTS5 over `chunks`, kept in step by triggers inside
/// every write transaction). Shared by the schema and migration 5 → 6.
pub(crate) const CHUNK_TEXT_INDEX: &str = r#"
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    content, content='chunks', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_fts_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER IF NOT EXISTS chunks_fts_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER IF NOT EXISTS chunks_fts_update AFTER UPDATE OF content ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO chunks_fts(rowid, content) VALUES (new.rowid, new.content);
END;
"#;

/// The full-text index of entity names and descriptions (FTS5 over `entities`, two columns so
/// that a search weighs the name above the description; kept in step by triggers inside every
/// write transaction). Entities are written by upserts (`ON CONFLICT … DO UPDATE`), never by
/// `INSERT OR REPLACE`, whose implicit delete fires no trigger. Shared by the schema and
/// migration 6 → 7.
pub(crate) const ENTITY_TEXT_INDEX: &str = r#"
CREATE VIRTUAL TABLE IF NOT EXISTS entities_fts USING fts5(
    name, description, content='entities', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS entities_fts_insert AFTER INSERT ON entities BEGIN
    INSERT INTO entities_fts(rowid, name, description) VALUES (new.rowid, new.name, new.description);
END;
CREATE TRIGGER IF NOT EXISTS entities_fts_delete AFTER DELETE ON entities BEGIN
    INSERT INTO entities_fts(entities_fts, rowid, name, description)
        VALUES ('delete', old.rowid, old.name, old.description);
END;
CREATE TRIGGER IF NOT EXISTS entities_fts_update AFTER UPDATE OF name, description ON entities BEGIN
    INSERT INTO entities_fts(entities_fts, rowid, name, description)
        VALUES ('delete', old.rowid, old.name, old.description);
    INSERT INTO entities_fts(rowid, name, description) VALUES (new.rowid, new.name, new.description);
END;
"#;

/// The substring index of entity names (FTS5 `trigram`, case-insensitive) that label search
/// reads; triggers on `entities` keep it in the same transaction.
pub(crate) const ENTITY_NAME_INDEX: &str = r#"
CREATE VIRTUAL TABLE IF NOT EXISTS entity_names_fts USING fts5(
    name, content='entities', content_rowid='rowid', tokenize='trigram'
);
CREATE TRIGGER IF NOT EXISTS entity_names_fts_insert AFTER INSERT ON entities BEGIN
    INSERT INTO entity_names_fts(rowid, name) VALUES (new.rowid, new.name);
END;
CREATE TRIGGER IF NOT EXISTS entity_names_fts_delete AFTER DELETE ON entities BEGIN
    INSERT INTO entity_names_fts(entity_names_fts, rowid, name) VALUES ('delete', old.rowid, old.name);
END;
CREATE TRIGGER IF NOT EXISTS entity_names_fts_update AFTER UPDATE OF name ON entities BEGIN
    INSERT INTO entity_names_fts(entity_names_fts, rowid, name) VALUES ('delete', old.rowid, old.name);
    INSERT INTO entity_names_fts(rowid, name) VALUES (new.rowid, new.name);
END;
"#;

/// WAL pages after which a commit checkpoints (see [`connect`]).
pub(crate) const WAL_AUTOCHECKPOINT_PAGES: u32 = 4000;

/// Opens one connection to `path` with the store's pragmas.
pub(crate) fn connect(path: &Path, busy_timeout: Duration, read_only: bool) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, crate::failpoint::open_flags(flags)).map_err(|e| open_err(path, e))?;
    crate::failpoint::on_open(&conn).map_err(|e| open_err(path, e))?;
    conn.busy_timeout(busy_timeout).map_err(|e| open_err(path, e))?;
    // journal_mode returns a row; WAL is persistent in the file, but asking again is harmless.
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).map_err(|e| open_err(path, e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        tracing::warn!(path = %path.display(), mode, "SQLite refused WAL mode; concurrent readers will block");
    }
    conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16000;")
        .map_err(|e| open_err(path, e))?;
    // The committing connection copies the WAL into the database once it holds this many pages. At
    // SQLite's default (1,000 pages, 4 MB) indexing checkpointed every few documents and copied the
    // same hot pages (b-tree interiors, full-text segments, graph rows) again each time: 8 % of the
    // indexing CPU. A commit is durable once in the WAL either way; the WAL file grows to ~16 MB.
    conn.execute_batch(&format!("PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES};"))
        .map_err(|e| open_err(path, e))?;
    if read_only {
        conn.execute_batch("PRAGMA query_only=1;").map_err(|e| open_err(path, e))?;
    }
    conn.set_prepared_statement_cache_capacity(64);
    Ok(conn)
}

fn open_err(path: &Path, e: rusqlite::Error) -> StoreError {
    match db_err(e) {
        StoreError::Corrupt(msg) => StoreError::Corrupt(format!(
            "{} is not a readable lightrag-rs SQLite store ({msg}); move it away or point WORKING_DIR elsewhere",
            path.display()
        )),
        other => other.in_context(&format!("cannot open {}", path.display())),
    }
}

/// Creates the schema if the file is new; checks the schema version otherwise.
pub(crate) fn ensure_schema(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(|e| open_err(path, e))?;
    let has_meta: bool = tx
        .query_row("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'", [], |r| r.get::<_, i64>(0))
        .map(|n| n > 0)
        .map_err(|e| open_err(path, e))?;
    if has_meta {
        let stored: Option<String> = tx
            .query_row("SELECT value FROM meta WHERE key='schema_version'", [], |r| r.get(0))
            .optional()
            .map_err(|e| open_err(path, e))?;
        let Some(stored) = stored else {
            return Err(StoreError::Corrupt(format!(
                "{} has no schema version; it was not written by lightrag-rs — move it away",
                path.display()
            )));
        };
        let version: i64 = stored.trim().parse().map_err(|_| {
            StoreError::Corrupt(format!("{} has an unreadable schema version '{stored}'", path.display()))
        })?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Corrupt(format!(
                "{} uses schema version {version}, newer than this build supports ({SCHEMA_VERSION}); \
                 upgrade lightrag-rs",
                path.display()
            )));
        }
        for from in version..SCHEMA_VERSION {
            crate::migrate::step(&tx, from).map_err(|e| match e {
                StoreError::Corrupt(msg) | StoreError::Backend { message: msg, .. } => StoreError::Corrupt(format!(
                    "{}: cannot migrate from schema version {from}: {msg}; keep a copy of the file and report this",
                    path.display()
                )),
                other => other,
            })?;
            tracing::info!(path = %path.display(), from, to = from + 1, "migrated the store schema");
        }
        // Tables added by later builds of the same version are created idempotently.
        tx.execute_batch(SCHEMA).map_err(|e| open_err(path, e))?;
    } else {
        let user_tables: i64 = tx
            .query_row("SELECT count(*) FROM sqlite_master WHERE type='table'", [], |r| r.get(0))
            .map_err(|e| open_err(path, e))?;
        if user_tables > 0 {
            return Err(StoreError::Corrupt(format!(
                "{} is an SQLite database of another application (no lightrag-rs meta table); \
                 point WORKING_DIR elsewhere",
                path.display()
            )));
        }
        tx.execute_batch(SCHEMA).map_err(|e| open_err(path, e))?;
        tx.execute_batch(CHUNK_TEXT_INDEX).map_err(|e| open_err(path, e))?;
        tx.execute_batch(ENTITY_TEXT_INDEX).map_err(|e| open_err(path, e))?;
        tx.execute_batch(ENTITY_NAME_INDEX).map_err(|e| open_err(path, e))?;
        tx.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?1)", [SCHEMA_VERSION.to_string()])
            .map_err(|e| open_err(path, e))?;
    }
    crate::vectors::ensure_epochs(&tx)?;
    tx.commit().map_err(|e| open_err(path, e))?;
    Ok(())
}
