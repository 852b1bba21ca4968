//! Schema migrations, one self-contained step per version. A step runs inside the opening
//! transaction, brings every table from version `from` to `from + 1` with its own statements
//! (never the current schema text, which describes the latest version only) and records the new
//! version; a failed step leaves the file as it was.

use std::collections::HashSet;

use lightrag_ports::{StoreError, VectorKind};
use rusqlite::{Transaction, params};

use crate::codec::{db_err, row_err};
use crate::vectors::hashed_id;

/// Migrates from schema `from` to `from + 1`.
pub(crate) fn step(tx: &Transaction<'_>, from: i64) -> Result<(), StoreError> {
    match from {
        1 => provenance_rows(tx),
        2 => vector_row_ids(tx),
        3 => hashed_vector_ids(tx),
        4 => merge_locks(tx),
        5 => chunk_text_index(tx),
        6 => entity_text_index(tx),
        7 => entity_name_index(tx),
        other => Err(StoreError::Corrupt(format!("no migration from schema version {other}"))),
    }
}

/// 1 → 2: the chunk lists of entities and relations leave their JSON column for rows
/// (`entity_chunks`, `relation_chunks`, indexed by owner and by chunk), each record keeps its
/// list's length (`chunk_count`), degrees are kept in `node_degree`, and relations get the
/// covering indexes that rank the edges of a node without reading the rows.
fn provenance_rows(tx: &Transaction<'_>) -> Result<(), StoreError> {
    tx.execute_batch(
        r#"
CREATE TABLE entity_chunks (
    entity   TEXT NOT NULL,
    ord      INTEGER NOT NULL,
    chunk_id TEXT NOT NULL,
    PRIMARY KEY (entity, ord)
) WITHOUT ROWID;
CREATE UNIQUE INDEX entity_chunks_by_chunk ON entity_chunks(chunk_id, entity);
INSERT OR IGNORE INTO entity_chunks (entity, ord, chunk_id)
    SELECT e.name, j.key, j.value FROM entities e, json_each(e.chunk_ids) j WHERE j.type = 'text';
ALTER TABLE entities ADD COLUMN chunk_count INTEGER NOT NULL DEFAULT 0;
UPDATE entities SET chunk_count = (SELECT count(*) FROM entity_chunks c WHERE c.entity = entities.name);
ALTER TABLE entities DROP COLUMN chunk_ids;

CREATE TABLE relation_chunks (
    src      TEXT NOT NULL,
    tgt      TEXT NOT NULL,
    ord      INTEGER NOT NULL,
    chunk_id TEXT NOT NULL,
    PRIMARY KEY (src, tgt, ord)
) WITHOUT ROWID;
CREATE UNIQUE INDEX relation_chunks_by_chunk ON relation_chunks(chunk_id, src, tgt);
INSERT OR IGNORE INTO relation_chunks (src, tgt, ord, chunk_id)
    SELECT r.src, r.tgt, j.key, j.value FROM relations r, json_each(r.chunk_ids) j WHERE j.type = 'text';
ALTER TABLE relations ADD COLUMN chunk_count INTEGER NOT NULL DEFAULT 0;
UPDATE relations SET chunk_count =
    (SELECT count(*) FROM relation_chunks c WHERE c.src = relations.src AND c.tgt = relations.tgt);
ALTER TABLE relations DROP COLUMN chunk_ids;

DROP INDEX IF EXISTS relations_by_tgt;
CREATE INDEX relations_by_src_rank ON relations(src, tgt, weight);
CREATE INDEX relations_by_tgt_rank ON relations(tgt, src, weight);

CREATE TABLE node_degree (
    name   TEXT PRIMARY KEY,
    degree INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX node_degree_rank ON node_degree(degree DESC, name);
INSERT INTO node_degree (name, degree)
    SELECT name, sum(n) FROM (
        SELECT src AS name, count(*) AS n FROM relations GROUP BY src
        UNION ALL
        SELECT tgt AS name, count(*) AS n FROM relations WHERE tgt <> src GROUP BY tgt
    ) GROUP BY name;

UPDATE meta SET value = '2' WHERE key = 'schema_version';
"#,
    )
    .map_err(db_err)
}

/// 2 → 3: vectors get an integer row id (what the in-memory index holds) and the sequence number
/// of the commit that wrote them (0 for what was there before); deletions are logged in
/// `vector_tombstones` so that another handle catches up instead of reloading. The embedded text
/// moves to the end of the row, so reading a vector does not walk the text's overflow pages.
fn vector_row_ids(tx: &Transaction<'_>) -> Result<(), StoreError> {
    tx.execute_batch(
        r#"
ALTER TABLE vectors RENAME TO vectors_v2;
DROP INDEX IF EXISTS vectors_by_key;
CREATE TABLE vectors (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    kind    TEXT NOT NULL,
    key     TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    vector  BLOB NOT NULL,
    content TEXT NOT NULL
);
INSERT INTO vectors (kind, key, content, vector, seq)
    SELECT kind, key, content, vector, 0 FROM vectors_v2;
DROP TABLE vectors_v2;
CREATE UNIQUE INDEX vectors_by_key ON vectors(kind, key);
CREATE INDEX vectors_by_seq ON vectors(kind, seq);
CREATE TABLE vector_tombstones (
    kind TEXT NOT NULL,
    seq  INTEGER NOT NULL,
    id   INTEGER NOT NULL,
    PRIMARY KEY (kind, seq, id)
) WITHOUT ROWID;

UPDATE meta SET value = '3' WHERE key = 'schema_version';
"#,
    )
    .map_err(db_err)
}

/// 3 → 4: every vector row moves to the row id hashed from its set and key (so that reading the
/// vectors of known keys needs no key lookup); a key whose hashed id another key took first keeps
/// a low id and is listed in `vector_key_collisions`. The change log is emptied and every set's
/// epoch moves on: in-memory index snapshots hold the old ids and are rebuilt from the table on
/// the next open (once; HNSW sets take minutes per million vectors).
fn hashed_vector_ids(tx: &Transaction<'_>) -> Result<(), StoreError> {
    tx.execute_batch(
        r#"
CREATE TABLE vectors_v4 (
    id      INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL,
    key     TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    vector  BLOB NOT NULL,
    content TEXT NOT NULL
);
CREATE TABLE vector_key_collisions (
    kind TEXT NOT NULL,
    key  TEXT NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
"#,
    )
    .map_err(db_err)?;
    let rows: Vec<(i64, String, String)> = {
        let mut stmt = tx.prepare("SELECT id, kind, key FROM vectors ORDER BY id").map_err(db_err)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(db_err)?;
        rows.map(|r| r.map_err(row_err)).collect::<Result<_, _>>()?
    };
    let mut taken: HashSet<u64> = HashSet::with_capacity(rows.len());
    let mut next_low: i64 = 1;
    {
        let mut copy = tx
            .prepare(
                "INSERT INTO vectors_v4 (id, kind, key, seq, vector, content) \
                 SELECT ?1, kind, key, seq, vector, content FROM vectors WHERE id = ?2",
            )
            .map_err(db_err)?;
        let mut collided =
            tx.prepare("INSERT INTO vector_key_collisions (kind, key) VALUES (?1, ?2)").map_err(db_err)?;
        for (old, kind_name, key) in &rows {
            let kind = VectorKind::ALL
                .into_iter()
                .find(|k| k.as_str() == kind_name)
                .ok_or_else(|| StoreError::Corrupt(format!("unknown vector set '{kind_name}'")))?;
            let hashed = hashed_id(kind, key);
            let id = if taken.insert(hashed) {
                hashed as i64
            } else {
                collided.execute([kind_name, key]).map_err(db_err)?;
                next_low += 1;
                next_low - 1
            };
            copy.execute(params![id, old]).map_err(db_err)?;
        }
    }
    tx.execute_batch(
        r#"
DROP TABLE vectors;
ALTER TABLE vectors_v4 RENAME TO vectors;
CREATE UNIQUE INDEX vectors_by_key ON vectors(kind, key);
CREATE INDEX vectors_by_seq ON vectors(kind, seq);
DELETE FROM vector_tombstones;
-- a different epoch (the lowest bit flipped, staying non-negative)
UPDATE meta SET value = (CAST(value AS INTEGER) | 1) - (CAST(value AS INTEGER) & 1) WHERE key LIKE 'vepoch:%';

UPDATE meta SET value = '4' WHERE key = 'schema_version';
"#,
    )
    .map_err(db_err)
}

/// 4 → 5: the merge locks that processes sharing the file take on entity names while they merge
/// a document (`MergeLocks::lock_keys`).
fn merge_locks(tx: &Transaction<'_>) -> Result<(), StoreError> {
    tx.execute_batch(
        r#"
CREATE TABLE IF NOT EXISTS merge_locks (
    key   TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    until INTEGER NOT NULL
) WITHOUT ROWID;
UPDATE meta SET value = '5' WHERE key = 'schema_version';
"#,
    )
    .map_err(db_err)
}

/// 5 → 6: the full-text index of chunk contents (`chunks_fts`, FTS5, kept in step by triggers),
/// filled from the chunks already stored.
fn chunk_text_index(tx: &Transaction<'_>) -> Result<(), StoreError> {
    text_index(tx, crate::schema::CHUNK_TEXT_INDEX, "chunks_fts", 6)
}

/// 6 → 7: the full-text index of entity names and descriptions (`entities_fts`, FTS5, kept in
/// step by triggers), filled from the entities already stored.
fn entity_text_index(tx: &Transaction<'_>) -> Result<(), StoreError> {
    text_index(tx, crate::schema::ENTITY_TEXT_INDEX, "entities_fts", 7)
}

/// 7 → 8: the substring index of entity names (`entity_names_fts`, FTS5 `trigram`, kept in step
/// by triggers) that label search reads, filled from the entities already stored.
fn entity_name_index(tx: &Transaction<'_>) -> Result<(), StoreError> {
    text_index(tx, crate::schema::ENTITY_NAME_INDEX, "entity_names_fts", 8)
}

/// Creates an FTS5 index with `ddl`, fills `table` from its content table and records `version`.
fn text_index(tx: &Transaction<'_>, ddl: &str, table: &str, version: u32) -> Result<(), StoreError> {
    tx.execute_batch(ddl).map_err(db_err)?;
    tx.execute_batch(&format!(
        "INSERT INTO {table}({table}) VALUES ('rebuild');
         UPDATE meta SET value = '{version}' WHERE key = 'schema_version';"
    ))
    .map_err(db_err)
}
