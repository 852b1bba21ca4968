//! The LLM response cache, the usage ledger and the embedding identity.

use lightrag_ports::{CacheEntry, EmbeddingIdentity, StoreError, Usage, UsageCounters, UsageRole};
use sqlx::{PgConnection, Row};

use crate::PostgresStore;
use crate::apply::{LockKey, lock_keys};
use crate::error::{db_err, to_i64, unsigned};
use crate::vectors::{DIM_KEY, stored_dim};

/// Up to `limit` entries with keys after `after`, by key.
pub(crate) async fn cache_page(
    conn: &mut PgConnection,
    ws: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<CacheEntry>, StoreError> {
    let rows = sqlx::query(
        "SELECT key, cache_type, response, chunk_id, created_at FROM lrs_llm_cache \
         WHERE workspace = $1 AND ($2::text IS NULL OR key > $2) ORDER BY key LIMIT $3",
    )
    .bind(ws)
    .bind(after)
    .bind(to_i64(limit as u64))
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    rows.iter().map(entry_from_row).collect()
}

/// The recorded embedding model and dimension.
pub(crate) async fn embedding_identity(
    conn: &mut PgConnection,
    ws: &str,
) -> Result<Option<EmbeddingIdentity>, StoreError> {
    let model = meta_get(conn, ws, "embedding_model").await?;
    let dim = stored_dim(conn, ws).await?;
    Ok(model.zip(dim).map(|(model, dim)| EmbeddingIdentity { model, dim }))
}

/// A cached response.
pub(crate) async fn cache_get(conn: &mut PgConnection, ws: &str, key: &str) -> Result<Option<CacheEntry>, StoreError> {
    let row = sqlx::query(
        "SELECT key, cache_type, response, chunk_id, created_at FROM lrs_llm_cache WHERE workspace = $1 AND key = $2",
    )
    .bind(ws)
    .bind(key)
    .fetch_optional(&mut *conn)
    .await
    .map_err(db_err)?;
    row.as_ref().map(entry_from_row).transpose()
}

/// A cache entry from `key, cache_type, response, chunk_id, created_at`.
fn entry_from_row(r: &sqlx::postgres::PgRow) -> Result<CacheEntry, StoreError> {
    Ok(CacheEntry {
        key: r.try_get(0).map_err(db_err)?,
        cache_type: r.try_get(1).map_err(db_err)?,
        response: r.try_get(2).map_err(db_err)?,
        chunk_id: r.try_get(3).map_err(db_err)?,
        created_at: r.try_get(4).map_err(db_err)?,
    })
}

/// Stores a response, replacing any entry with the same key.
pub(crate) async fn cache_put(conn: &mut PgConnection, ws: &str, e: &CacheEntry) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO lrs_llm_cache (workspace, key, cache_type, response, chunk_id, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (workspace, key) DO UPDATE SET \
         cache_type = excluded.cache_type, response = excluded.response, chunk_id = excluded.chunk_id, \
         created_at = excluded.created_at",
    )
    .bind(ws)
    .bind(&e.key)
    .bind(&e.cache_type)
    .bind(&e.response)
    .bind(&e.chunk_id)
    .bind(e.created_at)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// Deletes entries of the given types (all when empty); returns how many.
pub(crate) async fn cache_clear(conn: &mut PgConnection, ws: &str, types: &[String]) -> Result<usize, StoreError> {
    let n = sqlx::query(
        "DELETE FROM lrs_llm_cache WHERE workspace = $1 AND (cardinality($2::text[]) = 0 OR cache_type = ANY($2))",
    )
    .bind(ws)
    .bind(types)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?
    .rows_affected();
    Ok(n as usize)
}

/// Deletes the entries with the given keys; returns how many.
pub(crate) async fn cache_delete(conn: &mut PgConnection, ws: &str, keys: &[String]) -> Result<usize, StoreError> {
    if keys.is_empty() {
        return Ok(0);
    }
    let n = sqlx::query("DELETE FROM lrs_llm_cache WHERE workspace = $1 AND key = ANY($2)")
        .bind(ws)
        .bind(keys)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?
        .rows_affected();
    Ok(n as usize)
}

/// Adds counters to the ledger (inside the caller's transaction), role by role in one order.
pub(crate) async fn add_usage(conn: &mut PgConnection, ws: &str, usage: &Usage) -> Result<(), StoreError> {
    // the totals and the same counts under the current UTC day (what the daily token quota
    // reads), in one statement per role
    for (role, c) in usage {
        sqlx::query(
            "WITH total AS (INSERT INTO lrs_usage (workspace, role, calls, cache_hits, tokens_in, tokens_out) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (workspace, role) DO UPDATE SET \
             calls = lrs_usage.calls + excluded.calls, cache_hits = lrs_usage.cache_hits + excluded.cache_hits, \
             tokens_in = lrs_usage.tokens_in + excluded.tokens_in, \
             tokens_out = lrs_usage.tokens_out + excluded.tokens_out) \
             INSERT INTO lrs_usage_daily (workspace, day, role, calls, cache_hits, tokens_in, tokens_out) \
             VALUES ($1, floor(extract(epoch FROM now()))::bigint / 86400, $2, $3, $4, $5, $6) \
             ON CONFLICT (workspace, day, role) DO UPDATE SET \
             calls = lrs_usage_daily.calls + excluded.calls, \
             cache_hits = lrs_usage_daily.cache_hits + excluded.cache_hits, \
             tokens_in = lrs_usage_daily.tokens_in + excluded.tokens_in, \
             tokens_out = lrs_usage_daily.tokens_out + excluded.tokens_out",
        )
        .bind(ws)
        .bind(role.as_str())
        .bind(to_i64(c.calls))
        .bind(to_i64(c.cache_hits))
        .bind(to_i64(c.tokens_in))
        .bind(to_i64(c.tokens_out))
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    }
    Ok(())
}

/// The usage recorded in the current UTC day (days since the epoch, by the database's clock).
pub(crate) async fn usage_today(conn: &mut PgConnection, ws: &str) -> Result<Usage, StoreError> {
    let sql = "SELECT role, calls, cache_hits, tokens_in, tokens_out FROM lrs_usage_daily WHERE workspace = $1 \
               AND day = floor(extract(epoch FROM now()))::bigint / 86400";
    usage_rows(conn, ws, sql).await
}

/// The usage ledger.
pub(crate) async fn usage(conn: &mut PgConnection, ws: &str) -> Result<Usage, StoreError> {
    usage_rows(conn, ws, "SELECT role, calls, cache_hits, tokens_in, tokens_out FROM lrs_usage WHERE workspace = $1")
        .await
}

/// Usage rows `(role, calls, cache_hits, tokens_in, tokens_out)` of workspace `ws` (`$1`) selected by `sql`.
async fn usage_rows(conn: &mut PgConnection, ws: &str, sql: &'static str) -> Result<Usage, StoreError> {
    let rows = sqlx::query(sql).bind(ws).fetch_all(&mut *conn).await.map_err(db_err)?;
    let mut out = Usage::new();
    for r in &rows {
        let role: String = r.try_get(0).map_err(db_err)?;
        let Some(role) = UsageRole::ALL.into_iter().find(|x| x.as_str() == role) else {
            tracing::warn!(role, "ignoring usage row of an unknown role");
            continue;
        };
        let counters = UsageCounters {
            calls: unsigned(r.try_get(1).map_err(db_err)?, "calls")?,
            cache_hits: unsigned(r.try_get(2).map_err(db_err)?, "cache_hits")?,
            tokens_in: unsigned(r.try_get(3).map_err(db_err)?, "tokens_in")?,
            tokens_out: unsigned(r.try_get(4).map_err(db_err)?, "tokens_out")?,
        };
        out.insert(role, counters);
    }
    Ok(out)
}

pub(crate) async fn meta_get(conn: &mut PgConnection, ws: &str, key: &str) -> Result<Option<String>, StoreError> {
    sqlx::query_scalar("SELECT value FROM lrs_meta WHERE workspace = $1 AND key = $2")
        .bind(ws)
        .bind(key)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db_err)
}

pub(crate) async fn meta_set(conn: &mut PgConnection, ws: &str, key: &str, value: &str) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO lrs_meta (workspace, key, value) VALUES ($1, $2, $3) \
         ON CONFLICT (workspace, key) DO UPDATE SET value = excluded.value",
    )
    .bind(ws)
    .bind(key)
    .bind(value)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// Records the identity on first use; afterwards checks it. Returns the dimension now in force.
pub(crate) async fn check_identity(store: &PostgresStore, id: &EmbeddingIdentity) -> Result<usize, StoreError> {
    let ws: &str = &store.workspace;
    let mut tx = store.begin().await?;
    lock_keys(&mut tx, ws, vec![LockKey::new(ws, "meta", "embedding identity")]).await?;
    let model = meta_get(&mut tx, ws, "embedding_model").await?;
    let dim = stored_dim(&mut tx, ws).await?;
    if id.check_recorded(model, dim)? {
        meta_set(&mut tx, ws, "embedding_model", &id.model).await?;
        meta_set(&mut tx, ws, DIM_KEY, &id.dim.to_string()).await?;
    }
    tx.commit().await.map_err(db_err)?;
    Ok(id.dim)
}

/// Meta key counting pipeline cancellation requests (see `DocumentQueue::cancel_generation`).
const CANCEL_KEY: &str = "pipeline_cancel_generation";

/// How many pipeline cancellations were requested in the workspace.
pub(crate) async fn cancel_generation(conn: &mut PgConnection, ws: &str) -> Result<u64, StoreError> {
    match meta_get(conn, ws, CANCEL_KEY).await? {
        None => Ok(0),
        Some(v) => v
            .trim()
            .parse::<u64>()
            .map_err(|_| StoreError::Corrupt(format!("the cancellation count '{v}' is not a number"))),
    }
}

/// Raises the cancellation count by one (one atomic statement, so concurrent requests all count)
/// and returns the new count.
pub(crate) async fn request_cancel(conn: &mut PgConnection, ws: &str) -> Result<u64, StoreError> {
    let value: String = sqlx::query_scalar(
        "INSERT INTO lrs_meta (workspace, key, value) VALUES ($1, $2, '1') ON CONFLICT (workspace, key) \
         DO UPDATE SET value = (lrs_meta.value::bigint + 1)::text RETURNING value",
    )
    .bind(ws)
    .bind(CANCEL_KEY)
    .fetch_one(&mut *conn)
    .await
    .map_err(db_err)?;
    value.parse::<u64>().map_err(|_| StoreError::Corrupt(format!("the cancellation count '{value}' is not a number")))
}
