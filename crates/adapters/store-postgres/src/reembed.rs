//! Re-embedding (see [`lightrag_ports::reembed`]): new vectors are staged in `lrs_vectors_next`
//! (created on first use) under the target recorded in `lrs_meta` (`reembed_target`), and switched
//! into `lrs_vectors` by one transaction holding the workspace lock exclusively, so no commit of
//! another process lands between the check that nothing is pending and the switch.

use std::sync::atomic::Ordering;

use lightrag_ports::reembed::{check_staged, check_target, decode_target, encode_target, not_begun};
use lightrag_ports::{
    EmbeddingIdentity, PendingVector, ReembedProgress, StagedVector, StoreError, SwitchOutcome, VectorKind,
};
use pgvector::Vector;
use sqlx::PgConnection;

use crate::PostgresStore;
use crate::apply::LockKey;
use crate::cache::{meta_get, meta_set};
use crate::error::{db_err, to_i64};
use crate::vectors::{DIM_KEY, normalise};

/// Meta key of the target being staged.
const TARGET_KEY: &str = "reembed_target";

const CREATE: &str = "CREATE TABLE IF NOT EXISTS lrs_vectors_next (\
    workspace TEXT COLLATE \"C\" NOT NULL, kind TEXT COLLATE \"C\" NOT NULL, key TEXT COLLATE \"C\" NOT NULL, \
    content TEXT NOT NULL, dim BIGINT NOT NULL, embedding vector NOT NULL, PRIMARY KEY (workspace, kind, key))";

/// Live vectors of the workspace without a staged vector of their current text.
const PENDING_FROM: &str = "FROM lrs_vectors v LEFT JOIN lrs_vectors_next n ON n.workspace = v.workspace \
    AND n.kind = v.kind AND n.key = v.key AND n.content = v.content WHERE v.workspace = $1 AND n.key IS NULL";

async fn target(conn: &mut PgConnection, ws: &str) -> Result<Option<EmbeddingIdentity>, StoreError> {
    Ok(meta_get(conn, ws, TARGET_KEY).await?.as_deref().and_then(decode_target))
}

async fn progress(conn: &mut PgConnection, ws: &str) -> Result<ReembedProgress, StoreError> {
    let total: i64 = sqlx::query_scalar("SELECT count(*) FROM lrs_vectors WHERE workspace = $1")
        .bind(ws)
        .fetch_one(&mut *conn)
        .await
        .map_err(db_err)?;
    let pending: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) {PENDING_FROM}")))
        .bind(ws)
        .fetch_one(&mut *conn)
        .await
        .map_err(db_err)?;
    let pending = pending.max(0) as usize;
    Ok(ReembedProgress { staged: (total.max(0) as usize).saturating_sub(pending), pending })
}

/// Takes the workspace lock exclusively (every commit takes it shared first).
async fn lock_workspace(conn: &mut PgConnection, ws: &str) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(LockKey::new(ws, "workspace", "").0)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    Ok(())
}

/// Records `target`, keeping what is staged for it and dropping what was staged for another.
pub(crate) async fn begin(store: &PostgresStore, target_id: &EmbeddingIdentity) -> Result<ReembedProgress, StoreError> {
    check_target(target_id)?;
    let ws: &str = &store.workspace;
    let mut tx = store.begin().await?;
    // one creator at a time: concurrent CREATE TABLE IF NOT EXISTS may collide
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(LockKey::new("", "schema", "lrs_vectors_next").0)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    sqlx::query(CREATE).execute(&mut *tx).await.map_err(db_err)?;
    if target(&mut tx, ws).await?.as_ref() != Some(target_id) {
        sqlx::query("DELETE FROM lrs_vectors_next WHERE workspace = $1")
            .bind(ws)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        meta_set(&mut tx, ws, TARGET_KEY, &encode_target(target_id)).await?;
    }
    let out = progress(&mut tx, ws).await?;
    tx.commit().await.map_err(db_err)?;
    Ok(out)
}

/// Up to `limit` live vectors of `kind` after `after` still to embed, by key.
pub(crate) async fn pending(
    store: &PostgresStore,
    kind: VectorKind,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<PendingVector>, StoreError> {
    let ws: &str = &store.workspace;
    let mut conn = store.conn().await?;
    if target(&mut conn, ws).await?.is_none() {
        return Err(not_begun());
    }
    let rows: Vec<(String, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT v.key, v.content {PENDING_FROM} AND v.kind = $2 AND ($3::text IS NULL OR v.key > $3) \
         ORDER BY v.key LIMIT $4"
    )))
    .bind(ws)
    .bind(kind.as_str())
    .bind(after)
    .bind(to_i64(limit as u64))
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(rows.into_iter().map(|(key, content)| PendingVector { key, content }).collect())
}

/// Stages one batch in one transaction.
pub(crate) async fn stage(store: &PostgresStore, kind: VectorKind, rows: &[StagedVector]) -> Result<(), StoreError> {
    let ws: &str = &store.workspace;
    let mut tx = store.begin().await?;
    let Some(target_id) = target(&mut tx, ws).await? else { return Err(not_begun()) };
    check_staged(&target_id, kind, rows)?;
    if rows.is_empty() {
        return Ok(());
    }
    let mut keys = Vec::with_capacity(rows.len());
    let mut contents = Vec::with_capacity(rows.len());
    let mut embeddings = Vec::with_capacity(rows.len());
    for row in rows {
        let mut v = row.vector.clone();
        normalise(&mut v);
        keys.push(row.key.as_str());
        contents.push(row.content.as_str());
        embeddings.push(Vector::from(v));
    }
    sqlx::query(
        "INSERT INTO lrs_vectors_next (workspace, kind, key, content, dim, embedding) \
         SELECT DISTINCT ON (key) $1, $2, key, c, $3, e \
         FROM unnest($4::text[], $5::text[], $6::vector[]) WITH ORDINALITY AS u(key, c, e, i) ORDER BY key, i DESC \
         ON CONFLICT (workspace, kind, key) DO UPDATE SET content = excluded.content, dim = excluded.dim, \
         embedding = excluded.embedding",
    )
    .bind(ws)
    .bind(kind.as_str())
    .bind(to_i64(target_id.dim as u64))
    .bind(&keys)
    .bind(&contents)
    .bind(&embeddings)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    tx.commit().await.map_err(db_err)
}

/// Switches the staged vectors in (one transaction), or says how many are missing.
pub(crate) async fn switch(store: &PostgresStore) -> Result<SwitchOutcome, StoreError> {
    let ws: &str = &store.workspace;
    let mut tx = store.begin().await?;
    lock_workspace(&mut tx, ws).await?;
    let Some(target_id) = target(&mut tx, ws).await? else { return Err(not_begun()) };
    let missing = progress(&mut tx, ws).await?.pending;
    if missing > 0 {
        return Ok(SwitchOutcome::Pending(missing));
    }
    let switched = sqlx::query(
        "UPDATE lrs_vectors v SET embedding = n.embedding, dim = n.dim FROM lrs_vectors_next n \
         WHERE v.workspace = $1 AND n.workspace = v.workspace AND n.kind = v.kind AND n.key = v.key",
    )
    .bind(ws)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?
    .rows_affected();
    sqlx::query("DELETE FROM lrs_vectors_next WHERE workspace = $1")
        .bind(ws)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    sqlx::query("DELETE FROM lrs_meta WHERE workspace = $1 AND key = $2")
        .bind(ws)
        .bind(TARGET_KEY)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    meta_set(&mut tx, ws, "embedding_model", &target_id.model).await?;
    meta_set(&mut tx, ws, DIM_KEY, &target_id.dim.to_string()).await?;
    tx.commit().await.map_err(db_err)?;
    store.dim.store(target_id.dim, Ordering::Relaxed);
    if let Err(e) = crate::vectors::ensure_index(store, target_id.dim).await {
        tracing::warn!("cannot create the HNSW index for dimension {}: {e}", target_id.dim);
    }
    Ok(SwitchOutcome::Switched { vectors: switched as usize })
}
