//! The vector sets in `lrs_vectors` (pgvector): writes with the dimension check, exact or HNSW
//! search, reads and similarities by key, and the HNSW index per dimension.

use std::collections::{BTreeMap, HashMap};

use lightrag_ports::{StoreError, VectorFlaw, VectorHit, VectorKeyInfo, VectorKind, VectorRecord, is_usable};
use pgvector::Vector;
use sqlx::{AssertSqlSafe, Connection, PgConnection, Row};

use crate::PostgresStore;
use crate::error::{db_err, to_i64};

/// Meta key holding the workspace's vector dimension.
pub(crate) const DIM_KEY: &str = "vector_dim";

/// pgvector's HNSW index takes `vector` columns of at most this many dimensions.
const HNSW_MAX_DIM: usize = 2000;

/// `hnsw.ef_search` at most (pgvector's limit).
const EF_SEARCH_MAX: usize = 1000;

/// Scales `v` to unit length (a zero vector stays zero). The norm is summed in `f64`: the squares
/// of large `f32` components would overflow to infinity (and the vector to zeros) in `f32`.
pub(crate) fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in v.iter_mut() {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
}

/// The stored dimension of the workspace's vectors, if known.
pub(crate) async fn stored_dim(conn: &mut PgConnection, ws: &str) -> Result<Option<usize>, StoreError> {
    let v: Option<String> = sqlx::query_scalar("SELECT value FROM lrs_meta WHERE workspace = $1 AND key = $2")
        .bind(ws)
        .bind(DIM_KEY)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db_err)?;
    v.map(|v| {
        v.trim()
            .parse::<usize>()
            .map_err(|_| StoreError::Corrupt(format!("stored vector dimension '{v}' is not a number")))
    })
    .transpose()
}

/// The workspace's dimension: remembered once known (a re-embedding by this handle updates it).
pub(crate) async fn dim(store: &PostgresStore, conn: &mut PgConnection) -> Result<Option<usize>, StoreError> {
    let known = store.dim.load(std::sync::atomic::Ordering::Relaxed);
    if known > 0 {
        return Ok(Some(known));
    }
    let d = stored_dim(conn, &store.workspace).await?;
    if let Some(d) = d {
        store.dim.store(d, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(d)
}

/// The key under which a record is stored (relation keys in canonical order).
fn stored_key(rec: &VectorRecord) -> String {
    match rec.kind {
        VectorKind::Relation => VectorRecord::parse_relation_key(&rec.key)
            .map(|k| VectorRecord::relation_key(&k))
            .unwrap_or_else(|| rec.key.clone()),
        _ => rec.key.clone(),
    }
}

/// Writes vectors (normalised; the last of a repeated key wins), fixing the workspace's
/// dimension with the first one if none is known. Returns the dimension if this call fixed it.
pub(crate) async fn put(
    store: &PostgresStore,
    conn: &mut PgConnection,
    records: &[VectorRecord],
) -> Result<Option<usize>, StoreError> {
    if records.is_empty() {
        return Ok(None);
    }
    let ws: &str = &store.workspace;
    let mut fixed = None;
    // read in the commit, not from the handle's memory: a re-embedding by another process may
    // have switched the dimension (its switch and this commit exclude each other)
    let expected = match stored_dim(conn, ws).await? {
        Some(d) => {
            store.dim.store(d, std::sync::atomic::Ordering::Relaxed);
            d
        }
        None => {
            let first = records[0].vector.len();
            if first == 0 {
                return Err(StoreError::Invalid(format!("empty vector for '{}'", records[0].key)));
            }
            // A concurrent commit may fix it first: whatever is stored after this statement wins.
            sqlx::query(
                "INSERT INTO lrs_meta (workspace, key, value) VALUES ($1, $2, $3) ON CONFLICT (workspace, key) DO NOTHING",
            )
            .bind(ws)
            .bind(DIM_KEY)
            .bind(first.to_string())
            .execute(&mut *conn)
            .await
            .map_err(db_err)?;
            let d = stored_dim(conn, ws).await?.unwrap_or(first);
            fixed = Some(d);
            d
        }
    };
    let mut rows: BTreeMap<(VectorKind, String), (&str, Vec<f32>)> = BTreeMap::new();
    for rec in records {
        if rec.vector.len() != expected {
            return Err(StoreError::WrongDimension { expected, got: rec.vector.len() });
        }
        let mut v = rec.vector.clone();
        normalise(&mut v);
        rows.insert((rec.kind, stored_key(rec)), (rec.content.as_str(), v));
    }
    let mut kinds = Vec::with_capacity(rows.len());
    let mut keys = Vec::with_capacity(rows.len());
    let mut contents = Vec::with_capacity(rows.len());
    let mut embeddings = Vec::with_capacity(rows.len());
    for ((kind, key), (content, v)) in rows {
        kinds.push(kind.as_str());
        keys.push(key);
        contents.push(content);
        embeddings.push(Vector::from(v));
    }
    sqlx::query(
        "INSERT INTO lrs_vectors (workspace, kind, key, dim, embedding, content) \
         SELECT $1, k, key, $2, e, c FROM unnest($3::text[], $4::text[], $5::vector[], $6::text[]) AS u(k, key, e, c) \
         ON CONFLICT (workspace, kind, key) DO UPDATE SET dim = excluded.dim, embedding = excluded.embedding, \
         content = excluded.content",
    )
    .bind(ws)
    .bind(to_i64(expected as u64))
    .bind(&kinds)
    .bind(&keys)
    .bind(&embeddings)
    .bind(&contents)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(fixed)
}

/// Deletes the vectors of some keys of one set.
pub(crate) async fn delete(
    conn: &mut PgConnection,
    ws: &str,
    kind: VectorKind,
    keys: &[String],
) -> Result<(), StoreError> {
    if keys.is_empty() {
        return Ok(());
    }
    sqlx::query("DELETE FROM lrs_vectors WHERE workspace = $1 AND kind = $2 AND key = ANY($3)")
        .bind(ws)
        .bind(kind.as_str())
        .bind(keys)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    Ok(())
}

/// Up to `limit` keys of `kind` after `after` (bytewise: the column's collation is "C"), sorted,
/// with the dimensions of their stored vectors and their flaws (pgvector stores no NaN or
/// infinite value, so only a zero vector — written before writes refused them — is flawed).
pub(crate) async fn keys_page(
    conn: &mut PgConnection,
    ws: &str,
    kind: VectorKind,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<VectorKeyInfo>, StoreError> {
    let rows: Vec<(String, i32, bool)> = sqlx::query_as(
        "SELECT key, vector_dims(embedding), vector_norm(embedding) = 0 FROM lrs_vectors WHERE workspace = $1 \
         AND kind = $2 AND ($3::text IS NULL OR key > $3) ORDER BY key LIMIT $4",
    )
    .bind(ws)
    .bind(kind.as_str())
    .bind(after)
    .bind(to_i64(limit as u64))
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(rows
        .into_iter()
        .map(|(key, dim, zero)| VectorKeyInfo { key, dim: dim.max(0) as usize, flaw: zero.then_some(VectorFlaw::Zero) })
        .collect())
}

/// Makes sure the HNSW index for `dim` exists (once per process and dimension; under an
/// advisory lock, so that concurrent creators do not race).
pub(crate) async fn ensure_index(store: &PostgresStore, dim: usize) -> Result<(), StoreError> {
    if dim == 0 || dim > HNSW_MAX_DIM {
        if dim > HNSW_MAX_DIM {
            tracing::info!(dim, "vectors over {HNSW_MAX_DIM} dimensions get no HNSW index; search is exact");
        }
        return Ok(());
    }
    {
        let done = store.inner.indexed_dims.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if done.contains(&dim) {
            return Ok(());
        }
    }
    let name = format!("lrs_vectors_hnsw_{dim}");
    let (m, ef) = store.inner.hnsw_build;
    let exists = "SELECT to_regclass($1) IS NOT NULL";
    let mut tx = store.begin().await?;
    // Most calls find the index made: they neither wait for the lock nor touch the table.
    let found: bool = sqlx::query_scalar(exists).bind(&name).fetch_one(&mut *tx).await.map_err(db_err)?;
    if !found {
        sqlx::query("SELECT pg_advisory_xact_lock($1, $2)")
            .bind(0x4c52_5321_i32)
            .bind(2_i32)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        let sql = format!(
            "CREATE INDEX IF NOT EXISTS {name} ON lrs_vectors \
             USING hnsw ((embedding::vector({dim})) vector_cosine_ops) WITH (m = {m}, ef_construction = {ef}) \
             WHERE dim = {dim}"
        );
        sqlx::query(AssertSqlSafe(sql)).execute(&mut *tx).await.map_err(db_err)?;
        tracing::info!(dim, "created the HNSW index for {dim}-dimensional vectors");
    }
    tx.commit().await.map_err(db_err)?;
    store.inner.indexed_dims.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(dim);
    Ok(())
}

/// The `top_k` most similar vectors of `kind` with similarity ≥ `min_score`, best first.
pub(crate) async fn search(
    store: &PostgresStore,
    kind: VectorKind,
    query: &[f32],
    top_k: usize,
    min_score: f32,
) -> Result<Vec<VectorHit>, StoreError> {
    let ws: &str = &store.workspace;
    let mut conn = store.conn().await?;
    let Some(dim) = dim(store, &mut conn).await? else {
        return Ok(Vec::new());
    };
    if query.len() != dim {
        return Err(StoreError::WrongDimension { expected: dim, got: query.len() });
    }
    // an unusable query (NaN, infinite, zero) is similar to nothing
    if top_k == 0 || !is_usable(query) {
        return Ok(Vec::new());
    }
    let mut q = query.to_vec();
    normalise(&mut q);
    let q = Vector::from(q);
    let limit = store.inner.exact_search_below;
    let size: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT 1 FROM lrs_vectors WHERE workspace = $1 AND kind = $2 LIMIT $3) AS s",
    )
    .bind(ws)
    .bind(kind.as_str())
    .bind(to_i64((limit as u64).saturating_add(1)))
    .fetch_one(&mut *conn)
    .await
    .map_err(db_err)?;
    let exact = size as usize <= limit || dim > HNSW_MAX_DIM;
    let rows = if exact {
        // `embedding <=> $3` (no cast) is not the indexed expression: the set is read through
        // the primary key and every distance computed. A zero vector's distance is NaN, which
        // PostgreSQL orders above every number and finds `>=` any: it is left out by name.
        sqlx::query(
            "SELECT key, 1 - (embedding <=> $3) AS score FROM lrs_vectors WHERE workspace = $1 AND kind = $2 \
             AND (embedding <=> $3) <> 'NaN'::float8 AND 1 - (embedding <=> $3) >= $4 \
             ORDER BY embedding <=> $3, key LIMIT $5",
        )
        .bind(ws)
        .bind(kind.as_str())
        .bind(&q)
        .bind(f64::from(min_score))
        .bind(to_i64(top_k as u64))
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?
    } else {
        ensure_index(store, dim).await?;
        // The search settings hold for this transaction only.
        let mut tx = conn.begin().await.map_err(db_err)?;
        let ef = top_k.max(store.inner.hnsw_ef_search).min(EF_SEARCH_MAX);
        sqlx::query("SELECT set_config('hnsw.ef_search', $1, true)")
            .bind(ef.to_string())
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        if store.inner.iterative_scan {
            sqlx::query("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
                .execute(&mut *tx)
                .await
                .map_err(db_err)?;
        }
        let sql = format!(
            "SELECT key, 1 - (embedding::vector({dim}) <=> $3::vector({dim})) AS score FROM lrs_vectors \
             WHERE workspace = $1 AND kind = $2 AND dim = {dim} \
             ORDER BY embedding::vector({dim}) <=> $3::vector({dim}) LIMIT $4"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(ws)
            .bind(kind.as_str())
            .bind(&q)
            .bind(to_i64(top_k as u64))
            .fetch_all(&mut *tx)
            .await
            .map_err(db_err)?;
        tx.commit().await.map_err(db_err)?;
        rows
    };
    let mut hits = Vec::with_capacity(rows.len());
    for r in &rows {
        let score: f64 = r.try_get(1).map_err(db_err)?;
        let score = score as f32;
        // (pgvector's HNSW index leaves zero vectors out of cosine graphs; this is the last guard)
        if score.is_finite() && score >= min_score {
            hits.push(VectorHit { key: r.try_get(0).map_err(db_err)?, score });
        }
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
    hits.truncate(top_k);
    Ok(hits)
}

/// Stored vectors by key, in the order asked.
pub(crate) async fn get(
    conn: &mut PgConnection,
    ws: &str,
    kind: VectorKind,
    keys: &[String],
) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
    let rows =
        sqlx::query("SELECT key, embedding FROM lrs_vectors WHERE workspace = $1 AND kind = $2 AND key = ANY($3)")
            .bind(ws)
            .bind(kind.as_str())
            .bind(keys)
            .fetch_all(&mut *conn)
            .await
            .map_err(db_err)?;
    let mut found: HashMap<String, Vec<f32>> = HashMap::with_capacity(rows.len());
    for r in &rows {
        let v: Vector = r.try_get(1).map_err(db_err)?;
        let v = v.to_vec();
        // a zero vector stored before writes refused it reads as absent
        if is_usable(&v) {
            found.insert(r.try_get(0).map_err(db_err)?, v);
        }
    }
    Ok(crate::graph::in_order(keys, found))
}

/// Cosine similarity of each stored vector of `keys` to `query`, computed in the database.
pub(crate) async fn similarities(
    store: &PostgresStore,
    kind: VectorKind,
    keys: &[String],
    query: &[f32],
) -> Result<Vec<Option<f32>>, StoreError> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let mut conn = store.conn().await?;
    if let Some(dim) = dim(store, &mut conn).await?
        && query.len() != dim
    {
        return Err(StoreError::WrongDimension { expected: dim, got: query.len() });
    }
    if !is_usable(query) {
        return Ok(vec![None; keys.len()]);
    }
    let mut q = query.to_vec();
    normalise(&mut q);
    let rows = sqlx::query(
        "SELECT key, 1 - (embedding <=> $4) FROM lrs_vectors WHERE workspace = $1 AND kind = $2 AND key = ANY($3)",
    )
    .bind(&*store.workspace)
    .bind(kind.as_str())
    .bind(keys)
    .bind(Vector::from(q))
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    let mut found: HashMap<String, f32> = HashMap::with_capacity(rows.len());
    for r in &rows {
        let score: f64 = r.try_get(1).map_err(db_err)?;
        // a zero vector's distance is NaN: it scores nothing
        if score.is_finite() {
            found.insert(r.try_get(0).map_err(db_err)?, score as f32);
        }
    }
    Ok(keys.iter().map(|k| found.get(k).copied()).collect())
}

/// Number of vectors per set (every set listed).
pub(crate) async fn counts(conn: &mut PgConnection, ws: &str) -> Result<BTreeMap<VectorKind, usize>, StoreError> {
    let rows = sqlx::query("SELECT kind, count(*) FROM lrs_vectors WHERE workspace = $1 GROUP BY kind")
        .bind(ws)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    let mut out: BTreeMap<VectorKind, usize> = VectorKind::ALL.iter().map(|k| (*k, 0)).collect();
    for r in &rows {
        let kind: String = r.try_get(0).map_err(db_err)?;
        let n: i64 = r.try_get(1).map_err(db_err)?;
        let kind = VectorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == kind)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown vector set '{kind}'")))?;
        out.insert(kind, n.max(0) as usize);
    }
    Ok(out)
}
