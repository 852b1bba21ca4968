//! The `vectors` table (the truth: key, text and f32 vector of every record, under an integer row
//! id) and its change log, read by the in-memory indexes ([`crate::index`]) as a [`VectorFeed`].
//!
//! Per set, `meta` holds:
//! * `vgen:<kind>` — the sequence number of the last commit that changed the set. Every row a
//!   commit writes carries that number in `seq`; every row it deletes leaves a tombstone
//!   `(kind, seq, id)`. An index at watermark `w` catches up by reading tombstones and rows with
//!   `seq > w`.
//! * `vepoch:<kind>` — a random number, replaced when the set is emptied wholesale (`clear_all`)
//!   or the store is created, so an index of other data never mistakes itself for current.
//! * `vfloor:<kind>` — tombstones at or below it were pruned; an index older than it rebuilds.
//!
//! **Row ids come from keys.** A vector's row id is [`hashed_id`] of its set and key (61 bits of a
//! SipHash, above [`HASHED_IDS`]), so reading the vectors of known keys — a graph query's chunk
//! picking asks for thousands — needs no key lookup at all: the in-memory index is asked for the
//! hashed ids. When another key already holds a key's hashed id (a hash collision: about one in
//! five million stores of a million vectors), the newcomer gets the next free id below
//! `HASHED_IDS` and is listed in `vector_key_collisions`; readers look listed keys up by key.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};

use lightrag_ports::{
    FeedDelta, StoreError, VectorFeed, VectorId, VectorIndexError, VectorKeyInfo, VectorKind, Watermark,
};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params};

use crate::codec::{BATCH, blob_to_vector, db_err, meta_get_i64, meta_set, placeholders, query_in, row_err};

/// Meta key holding the dimension of every vector set.
pub(crate) const DIM_KEY: &str = "vector_dim";

/// Tombstones kept per set; beyond twice this many, the oldest are pruned.
const TOMBSTONES_KEPT: i64 = 100_000;

/// Position of a kind in per-kind arrays.
pub(crate) fn slot(kind: VectorKind) -> usize {
    match kind {
        VectorKind::Entity => 0,
        VectorKind::Relation => 1,
        VectorKind::Chunk => 2,
    }
}

fn gen_key(kind: VectorKind) -> String {
    format!("vgen:{}", kind.as_str())
}

fn epoch_key(kind: VectorKind) -> String {
    format!("vepoch:{}", kind.as_str())
}

fn floor_key(kind: VectorKind) -> String {
    format!("vfloor:{}", kind.as_str())
}

/// A fresh random epoch (from the standard library's per-process random hasher keys and the clock).
fn new_epoch() -> i64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.write_u32(std::process::id());
    (h.finish() >> 1) as i64
}

/// Gives every set an epoch if it has none (new stores, migrated stores).
pub(crate) fn ensure_epochs(conn: &Connection) -> Result<(), StoreError> {
    for kind in VectorKind::ALL {
        if meta_get_i64(conn, &epoch_key(kind))?.is_none() {
            meta_set(conn, &epoch_key(kind), &new_epoch().to_string())?;
        }
    }
    Ok(())
}

/// Replaces every set's epoch (after the sets were emptied wholesale).
pub(crate) fn renew_epochs(conn: &Connection) -> Result<(), StoreError> {
    for kind in VectorKind::ALL {
        meta_set(conn, &epoch_key(kind), &new_epoch().to_string())?;
    }
    Ok(())
}

/// The change-feed position of one set as stored.
pub(crate) fn head(conn: &Connection, kind: VectorKind) -> Result<Watermark, StoreError> {
    let seq = meta_get_i64(conn, &gen_key(kind))?.unwrap_or(0).max(0) as u64;
    let epoch = meta_get_i64(conn, &epoch_key(kind))?.unwrap_or(0).max(0) as u64;
    Ok(Watermark { epoch, seq })
}

/// Positions of the three sets.
pub(crate) fn heads(conn: &Connection) -> Result<[Watermark; 3], StoreError> {
    let mut out = [Watermark::default(); 3];
    for kind in VectorKind::ALL {
        out[slot(kind)] = head(conn, kind)?;
    }
    Ok(out)
}

/// Records the sequence number of the commit in progress for `kind`.
pub(crate) fn set_seq(conn: &Connection, kind: VectorKind, seq: u64) -> Result<(), StoreError> {
    meta_set(conn, &gen_key(kind), &seq.to_string())
}

/// The stored dimension of the vector sets, if known.
pub(crate) fn stored_dim(conn: &Connection) -> Result<Option<usize>, StoreError> {
    Ok(meta_get_i64(conn, DIM_KEY)?.map(|d| d.max(0) as usize))
}

/// One change to an in-memory index, replayed after the transaction that made it commits.
#[derive(Debug)]
pub(crate) enum VecOp {
    /// Insert or replace.
    Put(VectorKind, VectorId, Vec<f32>),
    /// Remove.
    Delete(VectorKind, VectorId),
}

/// The first row id of the hashed range; ids below it are handed out only on a collision (and
/// were auto-assigned before schema 4).
pub(crate) const HASHED_IDS: VectorId = 1 << 61;

/// The row id of `key` in set `kind`: SipHash-1-3 (fixed keys, so every process and version
/// agrees) of the set name and the key, folded into `[HASHED_IDS, 2 × HASHED_IDS)`.
pub(crate) fn hashed_id(kind: VectorKind, key: &str) -> VectorId {
    let mut h = siphasher::sip::SipHasher13::new_with_keys(0, 0);
    h.write(kind.as_str().as_bytes());
    h.write_u8(0);
    h.write(key.as_bytes());
    HASHED_IDS | (h.finish() & (HASHED_IDS - 1))
}

/// Whether a statement failed because the row id it gave is taken.
fn is_row_id_conflict(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY)
}

/// Writes (inserts or replaces) a vector row under commit `seq`; returns its row id, which an
/// update keeps. A new key gets its [`hashed_id`], or — when another key holds that id — the next
/// free id below [`HASHED_IDS`] and an entry in `vector_key_collisions`.
pub(crate) fn put_vector(
    conn: &Connection,
    kind: VectorKind,
    key: &str,
    content: &str,
    vector: &[f32],
    seq: u64,
) -> Result<VectorId, StoreError> {
    let blob = crate::codec::vector_to_blob(vector);
    let upsert = |id: i64| -> rusqlite::Result<i64> {
        conn.prepare_cached(
            "INSERT INTO vectors (id, kind, key, content, vector, seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
             ON CONFLICT(kind, key) DO UPDATE SET content = excluded.content, vector = excluded.vector, \
             seq = excluded.seq RETURNING id",
        )
        .and_then(|mut s| s.query_row(params![id, kind.as_str(), key, content, blob, seq as i64], |r| r.get(0)))
    };
    match upsert(hashed_id(kind, key) as i64) {
        Ok(id) => Ok(id as VectorId),
        Err(e) if is_row_id_conflict(&e) => {
            let free: i64 = conn
                .prepare_cached("SELECT coalesce(max(id), 0) + 1 FROM vectors WHERE id < ?1")
                .and_then(|mut s| s.query_row([HASHED_IDS as i64], |r| r.get(0)))
                .map_err(db_err)?;
            let id = upsert(free).map_err(db_err)?;
            conn.prepare_cached("INSERT OR IGNORE INTO vector_key_collisions (kind, key) VALUES (?1, ?2)")
                .and_then(|mut s| s.execute([kind.as_str(), key]))
                .map_err(db_err)?;
            tracing::debug!(set = kind.as_str(), key, id, "vector row id collision: the key is looked up by key");
            Ok(id as VectorId)
        }
        Err(e) => Err(db_err(e)),
    }
}

/// The keys of `kind` whose row id is not their [`hashed_id`] (almost always none).
pub(crate) fn collided_keys(conn: &Connection, kind: VectorKind) -> Result<HashSet<String>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT key FROM vector_key_collisions WHERE kind = ?1").map_err(db_err)?;
    let rows = stmt.query_map([kind.as_str()], |r| r.get::<_, String>(0)).map_err(db_err)?;
    rows.map(|r| r.map_err(row_err)).collect()
}

/// Deletes a vector row under commit `seq`, leaving a tombstone; returns its row id if it existed.
pub(crate) fn delete_vector(
    conn: &Connection,
    kind: VectorKind,
    key: &str,
    seq: u64,
) -> Result<Option<VectorId>, StoreError> {
    let id: Option<i64> = conn
        .prepare_cached("DELETE FROM vectors WHERE kind = ?1 AND key = ?2 RETURNING id")
        .and_then(|mut s| s.query_row([kind.as_str(), key], |r| r.get(0)).optional())
        .map_err(db_err)?;
    if let Some(id) = id {
        conn.prepare_cached("INSERT OR IGNORE INTO vector_tombstones (kind, seq, id) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![kind.as_str(), seq as i64, id]))
            .map_err(db_err)?;
        if (id as VectorId) < HASHED_IDS {
            // a collided key that comes back may find its hashed id free
            conn.prepare_cached("DELETE FROM vector_key_collisions WHERE kind = ?1 AND key = ?2")
                .and_then(|mut s| s.execute([kind.as_str(), key]))
                .map_err(db_err)?;
        }
    }
    Ok(id.map(|id| id as VectorId))
}

/// Drops the oldest tombstones of `kind` when there are more than twice [`TOMBSTONES_KEPT`],
/// raising the set's floor so that indexes older than what is kept rebuild.
pub(crate) fn prune_tombstones(conn: &Connection, kind: VectorKind) -> Result<(), StoreError> {
    let count: i64 = conn
        .prepare_cached("SELECT count(*) FROM vector_tombstones WHERE kind = ?1")
        .and_then(|mut s| s.query_row([kind.as_str()], |r| r.get(0)))
        .map_err(db_err)?;
    if count <= 2 * TOMBSTONES_KEPT {
        return Ok(());
    }
    let cut: Option<i64> = conn
        .prepare_cached("SELECT seq FROM vector_tombstones WHERE kind = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2")
        .and_then(|mut s| s.query_row(params![kind.as_str(), TOMBSTONES_KEPT], |r| r.get(0)).optional())
        .map_err(db_err)?;
    if let Some(cut) = cut {
        conn.prepare_cached("DELETE FROM vector_tombstones WHERE kind = ?1 AND seq <= ?2")
            .and_then(|mut s| s.execute(params![kind.as_str(), cut]))
            .map_err(db_err)?;
        meta_set(conn, &floor_key(kind), &cut.to_string())?;
    }
    Ok(())
}

/// Makes every vector index (this process's and other processes') rebuild from the table on its
/// next catch-up, after a change the change log cannot describe (clearing everything, switching
/// to re-embedded vectors): clears the log, renews the epochs, moves each sequence past its head
/// and drops the floors. Returns the heads before.
pub(crate) fn invalidate_indexes(conn: &Connection) -> Result<[Watermark; 3], StoreError> {
    let before = heads(conn)?;
    clear_log(conn)?;
    renew_epochs(conn)?;
    for kind in VectorKind::ALL {
        set_seq(conn, kind, before[slot(kind)].seq + 1)?;
    }
    conn.execute("DELETE FROM meta WHERE key LIKE 'vfloor:%'", []).map_err(db_err)?;
    Ok(before)
}

/// Empties the change log (the sets were emptied wholesale).
pub(crate) fn clear_log(conn: &Connection) -> Result<(), StoreError> {
    conn.execute("DELETE FROM vector_tombstones", []).map_err(db_err)?;
    Ok(())
}

/// One set's rows and change log, read inside the caller's transaction.
pub(crate) struct SqliteFeed<'c> {
    pub(crate) conn: &'c Connection,
    pub(crate) kind: VectorKind,
    pub(crate) dim: usize,
}

fn feed_err(e: StoreError) -> VectorIndexError {
    VectorIndexError::Feed(e.to_string())
}

impl SqliteFeed<'_> {
    fn visit_rows(&self, since: Option<u64>, visit: &mut dyn FnMut(VectorId, &[f32])) -> Result<(), StoreError> {
        let (sql, seq) = match since {
            Some(seq) => ("SELECT id, vector FROM vectors WHERE kind = ?1 AND seq > ?2", seq as i64),
            None => ("SELECT id, vector FROM vectors WHERE kind = ?1 AND ?2 = ?2", 0),
        };
        let mut stmt = self.conn.prepare_cached(sql).map_err(db_err)?;
        let mut rows = stmt.query(params![self.kind.as_str(), seq]).map_err(db_err)?;
        while let Some(row) = rows.next().map_err(db_err)? {
            let id: i64 = row.get(0).map_err(db_err)?;
            let blob = row.get_ref(1).map_err(db_err)?.as_blob().map_err(|e| StoreError::Corrupt(e.to_string()))?;
            let v = blob_to_vector(blob)?;
            if v.len() != self.dim {
                return Err(StoreError::Corrupt(format!(
                    "{} vector row {id} has dimension {}, the store holds dimension {}",
                    self.kind.as_str(),
                    v.len(),
                    self.dim
                )));
            }
            visit(id as VectorId, &v);
        }
        Ok(())
    }
}

impl VectorFeed for SqliteFeed<'_> {
    fn head(&self) -> Result<Watermark, VectorIndexError> {
        head(self.conn, self.kind).map_err(feed_err)
    }

    fn changes_since(
        &self,
        since: Watermark,
        on_delete: &mut dyn FnMut(VectorId),
        on_upsert: &mut dyn FnMut(VectorId, &[f32]),
    ) -> Result<FeedDelta, VectorIndexError> {
        let head = self.head()?;
        let floor = meta_get_i64(self.conn, &floor_key(self.kind)).map_err(feed_err)?.unwrap_or(0).max(0) as u64;
        if since.epoch != head.epoch || since.seq < floor || since.seq > head.seq {
            return Ok(FeedDelta::Rebuild);
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id FROM vector_tombstones WHERE kind = ?1 AND seq > ?2")
            .map_err(|e| feed_err(db_err(e)))?;
        let ids = stmt
            .query_map(params![self.kind.as_str(), since.seq as i64], |r| r.get::<_, i64>(0))
            .map_err(|e| feed_err(db_err(e)))?;
        for id in ids {
            on_delete(id.map_err(|e| feed_err(row_err(e)))? as VectorId);
        }
        self.visit_rows(Some(since.seq), on_upsert).map_err(feed_err)?;
        Ok(FeedDelta::Changes)
    }

    fn scan(&self, visit: &mut dyn FnMut(VectorId, &[f32])) -> Result<(), VectorIndexError> {
        self.visit_rows(None, visit).map_err(feed_err)
    }
}

/// A row's key and, when asked for, its stored vector.
pub(crate) type KeyedRow = (String, Option<Vec<f32>>);

/// Keys (and, when `with_vectors`, stored vectors) of the given row ids of `kind`; ids that no
/// longer exist are left out.
pub(crate) fn lookup(
    conn: &Connection,
    kind: VectorKind,
    ids: &[VectorId],
    with_vectors: bool,
) -> Result<HashMap<VectorId, KeyedRow>, StoreError> {
    let column = if with_vectors { "vector" } else { "NULL" };
    let mut rows = Vec::with_capacity(ids.len());
    for batch in ids.chunks(BATCH) {
        let sql =
            // `+kind`: look the rows up by id; an index on `kind` would make SQLite walk the set
            format!("SELECT id, key, {column} FROM vectors WHERE +kind = ? AND id IN ({})", placeholders(batch.len()));
        let mut stmt = conn.prepare_cached(&sql).map_err(db_err)?;
        let params = std::iter::once(Value::Text(kind.as_str().to_string()))
            .chain(batch.iter().map(|id| Value::Integer(*id as i64)));
        let found = stmt
            .query_map(rusqlite::params_from_iter(params), |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<Vec<u8>>>(2)?))
            })
            .map_err(db_err)?;
        for row in found {
            rows.push(row.map_err(row_err)?);
        }
    }
    let mut out = HashMap::with_capacity(rows.len());
    for (id, key, blob) in rows {
        let vector = blob.map(|b| blob_to_vector(&b)).transpose()?;
        out.insert(id as VectorId, (key, vector));
    }
    Ok(out)
}

/// Stored vectors by key, in the order asked; a flawed one (NaN, infinite or zero: stored before
/// writes refused them) reads as absent.
pub(crate) fn get_vectors(
    conn: &Connection,
    kind: VectorKind,
    keys: &[String],
) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
    let rows = query_in(
        conn,
        "SELECT key, vector FROM vectors WHERE kind = ? AND key IN ({in})",
        &[Value::Text(kind.as_str().to_string())],
        keys,
        |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?)),
    )?;
    let mut by_key = HashMap::with_capacity(rows.len());
    for (key, blob) in rows {
        let v = blob_to_vector(&blob)?;
        if lightrag_ports::is_usable(&v) {
            by_key.insert(key, v);
        }
    }
    Ok(crate::codec::in_order(keys, by_key))
}

/// Up to `limit` keys of `kind` after `after` (bytewise), sorted, with their vectors' dimensions
/// and flaws (the vectors are read: a page of a thousand 1,536-dimension vectors is 6 MB).
pub(crate) fn vector_keys_page(
    conn: &Connection,
    kind: VectorKind,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<VectorKeyInfo>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT key, vector FROM vectors WHERE kind = ?1 AND (?2 IS NULL OR key > ?2) ORDER BY key LIMIT ?3",
        )
        .map_err(db_err)?;
    let mut rows = stmt.query(params![kind.as_str(), after, crate::codec::to_i64(limit as u64)]).map_err(db_err)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(db_err)? {
        let key: String = row.get(0).map_err(db_err)?;
        let blob = row.get_ref(1).map_err(db_err)?.as_blob().map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let info = match blob_to_vector(blob) {
            Ok(v) => VectorKeyInfo::of(key, &v),
            // a blob cut mid-float: its whole floats give the dimension the check reports
            Err(_) => VectorKeyInfo { key, dim: blob.len() / 4, flaw: None },
        };
        out.push(info);
    }
    Ok(out)
}

/// Number of vectors per set (every set present, 0 when empty).
pub(crate) fn vector_counts(conn: &Connection) -> Result<BTreeMap<VectorKind, usize>, StoreError> {
    let mut out: BTreeMap<VectorKind, usize> = VectorKind::ALL.iter().map(|k| (*k, 0)).collect();
    let mut stmt = conn.prepare_cached("SELECT kind, count(*) FROM vectors GROUP BY kind").map_err(db_err)?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))).map_err(db_err)?;
    for row in rows {
        let (kind, n) = row.map_err(row_err)?;
        let kind = VectorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == kind)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown vector set '{kind}'")))?;
        out.insert(kind, n.max(0) as usize);
    }
    Ok(out)
}
