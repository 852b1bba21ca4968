//! Merge locks (`lrs_merge_locks`): entity names a process is merging, each held by one owner
//! until its time runs out. Taken all or none in one transaction that holds the workspace's
//! merge-lock advisory lock, so two processes never take parts of each other's sets.

use lightrag_ports::StoreError;
use sqlx::PgConnection;

use crate::apply::LockKey;
use crate::error::db_err;

/// Takes `owner`'s locks on `keys` until `until`, or none of them when another owner holds one
/// that has not expired at `now`.
pub(crate) async fn lock_keys(
    store: &crate::PostgresStore,
    owner: &str,
    keys: &[String],
    now: i64,
    until: i64,
) -> Result<bool, StoreError> {
    let ws: &str = &store.workspace;
    // a key twice would make the upsert touch one row twice, which PostgreSQL refuses
    let mut keys = keys.to_vec();
    keys.sort();
    keys.dedup();
    let mut tx = store.begin().await?;
    // acquisitions take turns (each is a few statements): two of them never interleave, so the
    // check below stays true until the upsert
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(LockKey::new(ws, "merge locks", "").0)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    let held_elsewhere: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM lrs_merge_locks \
         WHERE workspace = $1 AND key = ANY($2) AND owner <> $3 AND until >= $4)",
    )
    .bind(ws)
    .bind(&keys)
    .bind(owner)
    .bind(now)
    .fetch_one(&mut *tx)
    .await
    .map_err(db_err)?;
    if held_elsewhere {
        // dropping the transaction rolls it back
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO lrs_merge_locks (workspace, key, owner, until) \
         SELECT $1, k, $3, $4 FROM unnest($2::text[]) AS k \
         ON CONFLICT (workspace, key) DO UPDATE SET owner = excluded.owner, until = excluded.until",
    )
    .bind(ws)
    .bind(&keys)
    .bind(owner)
    .bind(until)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    tx.commit().await.map_err(db_err)?;
    Ok(true)
}

/// Releases `owner`'s locks on `keys`.
pub(crate) async fn unlock_keys(
    conn: &mut PgConnection,
    ws: &str,
    owner: &str,
    keys: &[String],
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM lrs_merge_locks WHERE workspace = $1 AND key = ANY($2) AND owner = $3")
        .bind(ws)
        .bind(keys)
        .bind(owner)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    Ok(())
}

/// Extends `owner`'s locks on `keys` to `until`; returns how many it holds.
pub(crate) async fn renew_key_locks(
    conn: &mut PgConnection,
    ws: &str,
    owner: &str,
    keys: &[String],
    until: i64,
) -> Result<usize, StoreError> {
    let done =
        sqlx::query("UPDATE lrs_merge_locks SET until = $1 WHERE workspace = $2 AND owner = $3 AND key = ANY($4)")
            .bind(until)
            .bind(ws)
            .bind(owner)
            .bind(keys)
            .execute(&mut *conn)
            .await
            .map_err(db_err)?;
    Ok(done.rows_affected() as usize)
}

/// Releases every lock of the workspace held by one of `owners`.
pub(crate) async fn release_locks_of(
    conn: &mut PgConnection,
    ws: &str,
    owners: &[String],
) -> Result<usize, StoreError> {
    let done = sqlx::query("DELETE FROM lrs_merge_locks WHERE workspace = $1 AND owner = ANY($2)")
        .bind(ws)
        .bind(owners)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    Ok(done.rows_affected() as usize)
}
