//! The LLM response cache, the usage ledger and the embedding identity.

use lightrag_ports::{CacheEntry, EmbeddingIdentity, StoreError, Usage, UsageCounters, UsageRole};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params, params_from_iter};

use crate::codec::{db_err, meta_get, meta_set, placeholders, to_i64, unsigned};
use crate::vectors::{DIM_KEY, stored_dim};

/// Up to `limit` entries with keys after `after`, by key.
pub(crate) fn cache_page(conn: &Connection, after: Option<&str>, limit: usize) -> Result<Vec<CacheEntry>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT key, cache_type, response, chunk_id, created_at FROM llm_cache \
             WHERE ?1 IS NULL OR key > ?1 ORDER BY key LIMIT ?2",
        )
        .map_err(db_err)?;
    let rows = stmt.query_map(params![after, to_i64(limit as u64)], entry_from_row).map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(db_err)
}

/// The recorded embedding model and dimension.
pub(crate) fn embedding_identity(conn: &Connection) -> Result<Option<EmbeddingIdentity>, StoreError> {
    let model = meta_get(conn, "embedding_model")?;
    let dim = stored_dim(conn)?;
    Ok(model.zip(dim).map(|(model, dim)| EmbeddingIdentity { model, dim }))
}

/// A cached response.
pub(crate) fn cache_get(conn: &Connection, key: &str) -> Result<Option<CacheEntry>, StoreError> {
    conn.prepare_cached("SELECT key, cache_type, response, chunk_id, created_at FROM llm_cache WHERE key = ?1")
        .and_then(|mut s| s.query_row([key], entry_from_row).optional())
        .map_err(db_err)
}

/// A cache entry from `key, cache_type, response, chunk_id, created_at`.
fn entry_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CacheEntry> {
    Ok(CacheEntry {
        key: r.get(0)?,
        cache_type: r.get(1)?,
        response: r.get(2)?,
        chunk_id: r.get(3)?,
        created_at: r.get(4)?,
    })
}

/// Stores a response, replacing any entry with the same key.
pub(crate) fn cache_put(conn: &Connection, e: &CacheEntry) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO llm_cache (key, cache_type, response, chunk_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .and_then(|mut s| s.execute(params![e.key, e.cache_type, e.response, e.chunk_id, e.created_at]))
    .map_err(db_err)?;
    Ok(())
}

/// Deletes entries of the given types (all when empty); returns how many.
pub(crate) fn cache_clear(conn: &Connection, types: &[String]) -> Result<usize, StoreError> {
    if types.is_empty() {
        return conn.execute("DELETE FROM llm_cache", []).map_err(db_err);
    }
    let sql = format!("DELETE FROM llm_cache WHERE cache_type IN ({})", placeholders(types.len()));
    conn.execute(&sql, params_from_iter(types.iter().map(|t| Value::Text(t.clone())))).map_err(db_err)
}

/// Deletes the entries with the given keys, in batches that stay under SQLite's variable limit.
pub(crate) fn cache_delete(conn: &Connection, keys: &[String]) -> Result<usize, StoreError> {
    let mut removed = 0;
    for batch in keys.chunks(500) {
        let sql = format!("DELETE FROM llm_cache WHERE key IN ({})", placeholders(batch.len()));
        removed +=
            conn.execute(&sql, params_from_iter(batch.iter().map(|k| Value::Text(k.clone())))).map_err(db_err)?;
    }
    Ok(removed)
}

/// Adds counters to the ledger (inside the caller's transaction).
pub(crate) fn add_usage(conn: &Connection, usage: &Usage) -> Result<(), StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "INSERT INTO usage (role, calls, cache_hits, tokens_in, tokens_out) VALUES (?1, ?2, ?3, ?4, ?5) \
             ON CONFLICT(role) DO UPDATE SET calls = calls + excluded.calls, \
             cache_hits = cache_hits + excluded.cache_hits, tokens_in = tokens_in + excluded.tokens_in, \
             tokens_out = tokens_out + excluded.tokens_out",
        )
        .map_err(db_err)?;
    // the same counts, under the current UTC day (what the daily token quota reads)
    let mut daily = conn
        .prepare_cached(
            "INSERT INTO usage_daily (day, role, calls, cache_hits, tokens_in, tokens_out) \
             VALUES (unixepoch() / 86400, ?1, ?2, ?3, ?4, ?5) ON CONFLICT(day, role) DO UPDATE SET \
             calls = calls + excluded.calls, cache_hits = cache_hits + excluded.cache_hits, \
             tokens_in = tokens_in + excluded.tokens_in, tokens_out = tokens_out + excluded.tokens_out",
        )
        .map_err(db_err)?;
    for (role, c) in usage {
        let values =
            params![role.as_str(), to_i64(c.calls), to_i64(c.cache_hits), to_i64(c.tokens_in), to_i64(c.tokens_out)];
        stmt.execute(values).map_err(db_err)?;
        daily.execute(values).map_err(db_err)?;
    }
    Ok(())
}

/// The usage recorded in the current UTC day.
pub(crate) fn usage_today(conn: &Connection) -> Result<Usage, StoreError> {
    usage_rows(
        conn,
        "SELECT role, calls, cache_hits, tokens_in, tokens_out FROM usage_daily WHERE day = unixepoch() / 86400",
    )
}

/// The usage ledger.
pub(crate) fn usage(conn: &Connection) -> Result<Usage, StoreError> {
    usage_rows(conn, "SELECT role, calls, cache_hits, tokens_in, tokens_out FROM usage")
}

/// Usage rows `(role, calls, cache_hits, tokens_in, tokens_out)` selected by `sql`.
fn usage_rows(conn: &Connection, sql: &str) -> Result<Usage, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(db_err)?;
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                UsageCounters {
                    calls: unsigned(r.get(1)?, "calls")?,
                    cache_hits: unsigned(r.get(2)?, "cache_hits")?,
                    tokens_in: unsigned(r.get(3)?, "tokens_in")?,
                    tokens_out: unsigned(r.get(4)?, "tokens_out")?,
                },
            ))
        })
        .map_err(db_err)?;
    let mut out = Usage::new();
    for row in rows {
        let (role, counters) = row.map_err(crate::codec::row_err)?;
        let Some(role) = UsageRole::ALL.into_iter().find(|r| r.as_str() == role) else {
            tracing::warn!(role, "ignoring usage row of an unknown role");
            continue;
        };
        out.insert(role, counters);
    }
    Ok(out)
}

/// Records the identity on first use; afterwards checks it. Returns the dimension now in force.
pub(crate) fn check_identity(conn: &mut Connection, id: &EmbeddingIdentity) -> Result<usize, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    let model = meta_get(&tx, "embedding_model")?;
    let dim = stored_dim(&tx)?;
    if id.check_recorded(model, dim)? {
        meta_set(&tx, "embedding_model", &id.model)?;
        meta_set(&tx, DIM_KEY, &id.dim.to_string())?;
    }
    tx.commit().map_err(db_err)?;
    Ok(id.dim)
}
