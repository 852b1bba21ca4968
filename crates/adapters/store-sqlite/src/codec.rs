//! Conversions between records and rows: errors, JSON columns, vector blobs, meta values, and
//! the `IN (...)` batching helper.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::Duration;

use lightrag_ports::StoreError;
use rusqlite::types::Value;
use rusqlite::{Connection, ErrorCode, OptionalExtension};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Ids per `IN (...)` query (well below SQLite's variable limit).
pub(crate) const BATCH: usize = 500;

/// How long a caller should wait after the database stayed locked by another process for the
/// whole busy timeout.
pub(crate) const BUSY_RETRY_AFTER: Duration = Duration::from_secs(5);

/// Maps an SQLite error to a store error: damaged files become `Corrupt`, a lock held by another
/// process beyond the busy timeout `Unavailable` (transient), the rest `Backend`; the SQLite
/// error stays the cause.
pub(crate) fn db_err(e: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::SqliteFailure(f, _) = &e {
        match f.code {
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => {
                return StoreError::Corrupt(e.to_string());
            }
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                return StoreError::unavailable(
                    format!(
                        "{e}; another process holds the database's write lock for too long (when it lasts, stop \
                         the other writer: a second server or `lightrag` command on the same WORKING_DIR)"
                    ),
                    BUSY_RETRY_AFTER,
                    Some(Box::new(e)),
                );
            }
            ErrorCode::DiskFull => return StoreError::Full(e.to_string()),
            ErrorCode::ReadOnly => {
                let message = format!(
                    "{e}: the store is read-only; give this user write access to the working directory and its \
                     lightrag.db, lightrag.db-wal and lightrag.db-shm files, or point WORKING_DIR elsewhere"
                );
                return StoreError::backend_caused(message, e);
            }
            _ => {}
        }
    }
    StoreError::backend_caused(e.to_string(), e)
}

/// Serialises a value for a JSON text column.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Invalid(format!("cannot serialise a record: {e}")))
}

/// Parses a JSON text column; a bad value means the file was damaged or edited by hand.
pub(crate) fn from_json<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("unreadable {what} column: {e}")))
}

/// Wraps a conversion failure inside a row-mapping closure.
pub(crate) fn conv_err(msg: String) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, msg.into())
}

/// Turns the wrapped conversion failure back into the store error it came from.
pub(crate) fn row_err(e: rusqlite::Error) -> StoreError {
    match e {
        rusqlite::Error::FromSqlConversionFailure(_, _, inner) => StoreError::Corrupt(inner.to_string()),
        other => db_err(other),
    }
}

/// Parses a JSON column inside a row-mapping closure.
pub(crate) fn json_col<T: DeserializeOwned>(text: &str, what: &str) -> rusqlite::Result<T> {
    serde_json::from_str(text).map_err(|e| conv_err(format!("unreadable {what} column: {e}")))
}

/// Reads a JSON text column without copying it first.
pub(crate) fn json_ref<T: DeserializeOwned>(r: &rusqlite::Row<'_>, column: usize, what: &str) -> rusqlite::Result<T> {
    json_col(r.get_ref(column)?.as_str()?, what)
}

/// The records found, in the order of `keys` (`None` for keys not found). Each record is moved
/// to the last place that asks for it and cloned only for earlier repeats of its key.
pub(crate) fn in_order<K: Hash + Eq, V: Clone>(keys: &[K], mut found: HashMap<K, V>) -> Vec<Option<V>> {
    let mut last: HashMap<&K, usize> = HashMap::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        last.insert(k, i);
    }
    keys.iter()
        .enumerate()
        .map(|(i, k)| if last.get(k) == Some(&i) { found.remove(k) } else { found.get(k).cloned() })
        .collect()
}

/// Reads a non-negative integer column as `u64`/`usize`.
pub(crate) fn unsigned(v: i64, what: &str) -> rusqlite::Result<u64> {
    u64::try_from(v).map_err(|_| conv_err(format!("negative {what} ({v})")))
}

/// Converts a count to SQLite's integer type.
pub(crate) fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Encodes a vector as little-endian f32 bytes.
pub(crate) fn vector_to_blob(v: &[f32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * 4);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// Decodes a vector blob.
pub(crate) fn blob_to_vector(blob: &[u8]) -> Result<Vec<f32>, StoreError> {
    let words = blob.chunks_exact(4);
    if !words.remainder().is_empty() {
        return Err(StoreError::Corrupt(format!("vector blob of {} bytes is not a whole number of f32", blob.len())));
    }
    Ok(words.map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
}

/// Reads a meta value.
pub(crate) fn meta_get(conn: &Connection, key: &str) -> Result<Option<String>, StoreError> {
    conn.prepare_cached("SELECT value FROM meta WHERE key = ?1")
        .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
        .map_err(db_err)
}

/// Writes a meta value.
pub(crate) fn meta_set(conn: &Connection, key: &str, value: &str) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    )
    .and_then(|mut s| s.execute([key, value]))
    .map(|_| ())
    .map_err(db_err)
}

/// Reads an integer meta value (absent = `None`).
pub(crate) fn meta_get_i64(conn: &Connection, key: &str) -> Result<Option<i64>, StoreError> {
    match meta_get(conn, key)? {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| StoreError::Corrupt(format!("meta value '{key}' is not an integer: '{v}'"))),
    }
}

/// `?,?,…` with `n` placeholders.
pub(crate) fn placeholders(n: usize) -> String {
    let mut s = String::with_capacity(n * 2);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push('?');
    }
    s
}

/// Runs `sql` (which holds one `{in}` marker for the `IN` list, plus `prefix` leading parameters)
/// over `items` in batches, collecting the mapped rows.
pub(crate) fn query_in<T>(
    conn: &Connection,
    sql: &str,
    prefix: &[Value],
    items: &[String],
    map: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>, StoreError> {
    let mut out = Vec::new();
    for batch in items.chunks(BATCH) {
        let text = sql.replace("{in}", &placeholders(batch.len()));
        let mut stmt = conn.prepare_cached(&text).map_err(db_err)?;
        let params = prefix.iter().cloned().chain(batch.iter().map(|s| Value::Text(s.clone())));
        let rows = stmt.query_map(rusqlite::params_from_iter(params), &map).map_err(db_err)?;
        for row in rows {
            out.push(row.map_err(row_err)?);
        }
    }
    Ok(out)
}
