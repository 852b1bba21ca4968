//! The knowledge graph: entities (nodes), undirected relations (edges under the sorted pair),
//! node degrees, listings and ranked expansion.

use std::collections::HashMap;
use std::hash::Hash;

use lightrag_ports::{Entity, GraphCounts, RankedRelations, RelKey, Relation, StoreError, TextHit};
use sqlx::postgres::PgRow;
use sqlx::{AssertSqlSafe, PgConnection, Row};

use crate::chunks;
use crate::error::{db_err, to_i64, unsigned};

const ENTITY_COLUMNS: &str =
    "name, entity_type, description, source_ids, file_paths, created_at, truncate, version, chunk_count";
const RELATION_COLUMNS: &str =
    "src, tgt, weight, keywords, description, source_ids, file_paths, created_at, truncate, version, chunk_count";

fn entity_from_row(r: &PgRow) -> Result<Entity, StoreError> {
    Ok(Entity {
        name: r.try_get(0).map_err(db_err)?,
        entity_type: r.try_get(1).map_err(db_err)?,
        description: r.try_get(2).map_err(db_err)?,
        source_ids: r.try_get(3).map_err(db_err)?,
        file_paths: r.try_get(4).map_err(db_err)?,
        created_at: r.try_get(5).map_err(db_err)?,
        truncate: r.try_get(6).map_err(db_err)?,
        version: unsigned(r.try_get(7).map_err(db_err)?, "entity version")?,
        chunk_count: unsigned(r.try_get(8).map_err(db_err)?, "entity chunk_count")? as usize,
    })
}

fn relation_from_row(r: &PgRow) -> Result<Relation, StoreError> {
    Ok(Relation {
        key: RelKey { src: r.try_get(0).map_err(db_err)?, tgt: r.try_get(1).map_err(db_err)? },
        weight: r.try_get(2).map_err(db_err)?,
        keywords: r.try_get(3).map_err(db_err)?,
        description: r.try_get(4).map_err(db_err)?,
        source_ids: r.try_get(5).map_err(db_err)?,
        file_paths: r.try_get(6).map_err(db_err)?,
        created_at: r.try_get(7).map_err(db_err)?,
        truncate: r.try_get(8).map_err(db_err)?,
        version: unsigned(r.try_get(9).map_err(db_err)?, "relation version")?,
        chunk_count: unsigned(r.try_get(10).map_err(db_err)?, "relation chunk_count")? as usize,
    })
}

/// The records found, in the order of `keys` (`None` for keys not found).
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

/// The key in canonical (sorted) order, whatever order the caller gave.
pub(crate) fn canonical(key: &RelKey) -> RelKey {
    RelKey::new(key.src.clone(), key.tgt.clone())
}

/// `(sources, targets)` of canonical keys, as two arrays for `unnest`.
fn split_keys(keys: &[RelKey]) -> (Vec<&str>, Vec<&str>) {
    keys.iter().map(|k| (k.src.as_str(), k.tgt.as_str())).unzip()
}

/// The stored versions of some entities (absent ones are missing from the map).
pub(crate) async fn entity_versions(
    conn: &mut PgConnection,
    ws: &str,
    names: &[String],
) -> Result<HashMap<String, u64>, StoreError> {
    let rows = sqlx::query("SELECT name, version FROM lrs_entities WHERE workspace = $1 AND name = ANY($2)")
        .bind(ws)
        .bind(names)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    rows.iter()
        .map(|r| Ok((r.try_get(0).map_err(db_err)?, unsigned(r.try_get(1).map_err(db_err)?, "entity version")?)))
        .collect()
}

/// The stored versions of some relations, by canonical key.
pub(crate) async fn relation_versions(
    conn: &mut PgConnection,
    ws: &str,
    keys: &[RelKey],
) -> Result<HashMap<RelKey, u64>, StoreError> {
    let canon: Vec<RelKey> = keys.iter().map(canonical).collect();
    let (src, tgt) = split_keys(&canon);
    let rows = sqlx::query(
        "SELECT r.src, r.tgt, r.version FROM lrs_relations r \
         JOIN unnest($2::text[], $3::text[]) AS k(src, tgt) ON r.src = k.src AND r.tgt = k.tgt \
         WHERE r.workspace = $1",
    )
    .bind(ws)
    .bind(&src)
    .bind(&tgt)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    rows.iter()
        .map(|r| {
            let key = RelKey { src: r.try_get(0).map_err(db_err)?, tgt: r.try_get(1).map_err(db_err)? };
            Ok((key, unsigned(r.try_get(2).map_err(db_err)?, "relation version")?))
        })
        .collect()
}

/// Upserts an entity; the version becomes 1 for a new one, old + 1 otherwise. A new entity's
/// chunk count is the length of any list already written for it; an update keeps the count.
/// Returns true when the entity is new.
pub(crate) async fn put_entity(conn: &mut PgConnection, ws: &str, e: &Entity) -> Result<bool, StoreError> {
    let version: i64 = sqlx::query_scalar(
        "INSERT INTO lrs_entities (workspace, name, entity_type, description, source_ids, file_paths, created_at, \
         truncate, version, chunk_count) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, \
         (SELECT count(*) FROM lrs_entity_chunks WHERE workspace = $1 AND entity = $2)) \
         ON CONFLICT (workspace, name) DO UPDATE SET entity_type = excluded.entity_type, \
         description = excluded.description, source_ids = excluded.source_ids, file_paths = excluded.file_paths, \
         created_at = excluded.created_at, truncate = excluded.truncate, version = lrs_entities.version + 1 \
         RETURNING version",
    )
    .bind(ws)
    .bind(&e.name)
    .bind(&e.entity_type)
    .bind(&e.description)
    .bind(&e.source_ids)
    .bind(&e.file_paths)
    .bind(e.created_at)
    .bind(&e.truncate)
    .fetch_one(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(version == 1)
}

/// Upserts a relation under its canonical key; versions and chunk counts as for entities.
/// Returns true when the relation is new (the caller adds to the degrees of its ends).
pub(crate) async fn put_relation(conn: &mut PgConnection, ws: &str, rel: &Relation) -> Result<bool, StoreError> {
    let key = canonical(&rel.key);
    let version: i64 = sqlx::query_scalar(
        "INSERT INTO lrs_relations (workspace, src, tgt, weight, keywords, description, source_ids, file_paths, \
         created_at, truncate, version, chunk_count) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1, \
         (SELECT count(*) FROM lrs_relation_chunks WHERE workspace = $1 AND src = $2 AND tgt = $3)) \
         ON CONFLICT (workspace, src, tgt) DO UPDATE SET weight = excluded.weight, keywords = excluded.keywords, \
         description = excluded.description, source_ids = excluded.source_ids, file_paths = excluded.file_paths, \
         created_at = excluded.created_at, truncate = excluded.truncate, version = lrs_relations.version + 1 \
         RETURNING version",
    )
    .bind(ws)
    .bind(&key.src)
    .bind(&key.tgt)
    .bind(rel.weight)
    .bind(&rel.keywords)
    .bind(&rel.description)
    .bind(&rel.source_ids)
    .bind(&rel.file_paths)
    .bind(rel.created_at)
    .bind(&rel.truncate)
    .fetch_one(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(version == 1)
}

/// Deletes an entity row and its chunk list.
pub(crate) async fn delete_entity(conn: &mut PgConnection, ws: &str, name: &str) -> Result<(), StoreError> {
    for sql in [
        "DELETE FROM lrs_entity_chunks WHERE workspace = $1 AND entity = $2",
        "DELETE FROM lrs_entities WHERE workspace = $1 AND name = $2",
    ] {
        sqlx::query(sql).bind(ws).bind(name).execute(&mut *conn).await.map_err(db_err)?;
    }
    Ok(())
}

/// Deletes a relation row and its chunk list; true when the relation existed (the caller takes
/// one from the degrees of its ends).
pub(crate) async fn delete_relation(conn: &mut PgConnection, ws: &str, key: &RelKey) -> Result<bool, StoreError> {
    let key = canonical(key);
    sqlx::query("DELETE FROM lrs_relation_chunks WHERE workspace = $1 AND src = $2 AND tgt = $3")
        .bind(ws)
        .bind(&key.src)
        .bind(&key.tgt)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    let n = sqlx::query("DELETE FROM lrs_relations WHERE workspace = $1 AND src = $2 AND tgt = $3")
        .bind(ws)
        .bind(&key.src)
        .bind(&key.tgt)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?
        .rows_affected();
    Ok(n > 0)
}

/// Entities by name, in the order asked.
pub(crate) async fn get_entities(
    conn: &mut PgConnection,
    ws: &str,
    names: &[String],
) -> Result<Vec<Option<Entity>>, StoreError> {
    let sql = format!("SELECT {ENTITY_COLUMNS} FROM lrs_entities WHERE workspace = $1 AND name = ANY($2)");
    let rows = sqlx::query(AssertSqlSafe(sql)).bind(ws).bind(names).fetch_all(&mut *conn).await.map_err(db_err)?;
    let mut found = HashMap::with_capacity(rows.len());
    for r in &rows {
        let e = entity_from_row(r)?;
        found.insert(e.name.clone(), e);
    }
    Ok(in_order(names, found))
}

/// Relations by key (either order), in the order asked.
pub(crate) async fn get_relations(
    conn: &mut PgConnection,
    ws: &str,
    keys: &[RelKey],
) -> Result<Vec<Option<Relation>>, StoreError> {
    let canon: Vec<RelKey> = keys.iter().map(canonical).collect();
    let (src, tgt) = split_keys(&canon);
    let sql = format!(
        "SELECT {} FROM lrs_relations r JOIN (SELECT DISTINCT * FROM unnest($2::text[], $3::text[])) AS k(src, tgt) \
         ON r.src = k.src AND r.tgt = k.tgt WHERE r.workspace = $1",
        RELATION_COLUMNS.split(", ").map(|c| format!("r.{c}")).collect::<Vec<_>>().join(", ")
    );
    let rows =
        sqlx::query(AssertSqlSafe(sql)).bind(ws).bind(&src).bind(&tgt).fetch_all(&mut *conn).await.map_err(db_err)?;
    let mut found = HashMap::with_capacity(rows.len());
    for r in &rows {
        let rel = relation_from_row(r)?;
        found.insert(rel.key.clone(), rel);
    }
    Ok(in_order(&canon, found))
}

/// Number of relations touching each name (a self-loop counts once), in the order asked.
pub(crate) async fn node_degrees(
    conn: &mut PgConnection,
    ws: &str,
    names: &[String],
) -> Result<Vec<usize>, StoreError> {
    let rows = sqlx::query("SELECT name, degree FROM lrs_node_degree WHERE workspace = $1 AND name = ANY($2)")
        .bind(ws)
        .bind(names)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    let mut degree: HashMap<String, i64> = HashMap::with_capacity(rows.len());
    for r in &rows {
        degree.insert(r.try_get(0).map_err(db_err)?, r.try_get(1).map_err(db_err)?);
    }
    Ok(names.iter().map(|n| degree.get(n).copied().unwrap_or(0).max(0) as usize).collect())
}

/// Relations touching any of `names` (`both`: with both ends among them), each once, by key.
async fn relations_where(
    conn: &mut PgConnection,
    ws: &str,
    names: &[String],
    both: bool,
) -> Result<Vec<Relation>, StoreError> {
    let join = if both { "AND" } else { "OR" };
    let sql = format!(
        "SELECT {RELATION_COLUMNS} FROM lrs_relations WHERE workspace = $1 \
         AND (src = ANY($2) {join} tgt = ANY($2)) ORDER BY src, tgt"
    );
    let rows = sqlx::query(AssertSqlSafe(sql)).bind(ws).bind(names).fetch_all(&mut *conn).await.map_err(db_err)?;
    rows.iter().map(relation_from_row).collect()
}

/// Every relation touching any of the names, each once, sorted by key.
pub(crate) async fn relations_of(
    conn: &mut PgConnection,
    ws: &str,
    names: &[String],
) -> Result<Vec<Relation>, StoreError> {
    relations_where(conn, ws, names, false).await
}

/// The relations with both ends among `names`, sorted by key.
pub(crate) async fn relations_among(
    conn: &mut PgConnection,
    ws: &str,
    names: &[String],
) -> Result<Vec<Relation>, StoreError> {
    relations_where(conn, ws, names, true).await
}

/// The keys of every relation touching `names`, sorted (read from the indexes).
pub(crate) async fn relation_keys_of(
    conn: &mut PgConnection,
    ws: &str,
    names: &[String],
) -> Result<Vec<RelKey>, StoreError> {
    let rows = sqlx::query(
        "SELECT src, tgt FROM lrs_relations WHERE workspace = $1 AND src = ANY($2) \
         UNION SELECT src, tgt FROM lrs_relations WHERE workspace = $1 AND tgt = ANY($2) ORDER BY 1, 2",
    )
    .bind(ws)
    .bind(names)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    rows.iter().map(|r| Ok(RelKey { src: r.try_get(0).map_err(db_err)?, tgt: r.try_get(1).map_err(db_err)? })).collect()
}

/// The first `limit` relations touching `names` in the order of [`lightrag_ports::ranking`] (edge
/// degree, weight, position of the first entity touched, key), and how many touch them — ranked
/// in one query, so only the kept relations travel.
pub(crate) async fn ranked_relations_of(
    conn: &mut PgConnection,
    ws: &str,
    names: &[String],
    limit: usize,
) -> Result<RankedRelations, StoreError> {
    if names.is_empty() {
        return Ok(RankedRelations::default());
    }
    let columns = RELATION_COLUMNS.split(", ").map(|c| format!("e.{c}")).collect::<Vec<_>>().join(", ");
    let sql = format!(
        "WITH pos AS (SELECT n, min(i) AS i FROM unnest($2::text[]) WITH ORDINALITY AS u(n, i) GROUP BY n), \
         edges AS ( \
           SELECT * FROM lrs_relations WHERE workspace = $1 AND (src = ANY($2) OR tgt = ANY($2))), \
         ranked AS ( \
           SELECT {columns}, \
             CASE WHEN e.src = e.tgt THEN 2 * coalesce(ds.degree, 0) \
                  ELSE coalesce(ds.degree, 0) + coalesce(dt.degree, 0) END AS edge_degree, \
             least(ps.i, pt.i) AS first_entity, \
             count(*) OVER () AS total \
           FROM edges e \
           LEFT JOIN lrs_node_degree ds ON ds.workspace = $1 AND ds.name = e.src \
           LEFT JOIN lrs_node_degree dt ON dt.workspace = $1 AND dt.name = e.tgt \
           LEFT JOIN pos ps ON ps.n = e.src \
           LEFT JOIN pos pt ON pt.n = e.tgt) \
         SELECT * FROM ranked ORDER BY edge_degree DESC, weight DESC, first_entity, src, tgt LIMIT $3"
    );
    // One row more than asked at least, so that the total is known even for limit 0.
    let fetch = limit.max(1);
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(ws)
        .bind(names)
        .bind(to_i64(fetch as u64))
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    let total = match rows.first() {
        Some(r) => unsigned(r.try_get("total").map_err(db_err)?, "relation count")? as usize,
        None => 0,
    };
    let relations = rows.iter().take(limit).map(relation_from_row).collect::<Result<Vec<_>, _>>()?;
    Ok(RankedRelations { relations, total })
}

/// Up to `top_k` entities whose name or description holds any word of `terms`, by `ts_rank_cd`
/// over the weighted `tsvector` (`simple` configuration): a word of the name (weight `A`) counts
/// 1.0, one of the description (weight `B`) 0.1, as SQLite's BM25 weighs the columns 10 to 1.
/// Ties by name. No query syntax gets through (see [`chunks::tsquery_any_word`]).
pub(crate) async fn search_entity_text(
    conn: &mut PgConnection,
    ws: &str,
    terms: &[String],
    top_k: usize,
) -> Result<Vec<TextHit>, StoreError> {
    let Some(query) = chunks::tsquery_any_word(terms).filter(|_| top_k > 0) else {
        return Ok(Vec::new());
    };
    // weights in the order D, C, B, A
    let rows = sqlx::query(
        "SELECT name, ts_rank_cd('{0.1, 0.1, 0.1, 1.0}'::real[], tsv, q) AS score \
         FROM lrs_entities, to_tsquery('simple', $2) AS q \
         WHERE workspace = $1 AND tsv @@ q ORDER BY score DESC, name LIMIT $3",
    )
    .bind(ws)
    .bind(query)
    .bind(to_i64(top_k as u64))
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    rows.iter()
        .map(|r| Ok(TextHit { key: r.try_get("name").map_err(db_err)?, score: r.try_get("score").map_err(db_err)? }))
        .collect()
}

/// Up to `limit` names of the workspace containing `text` (see
/// [`TextSearch::entity_names_containing`](lightrag_ports::TextSearch::entity_names_containing)),
/// compared with `strpos` on `lower()` (no pattern syntax). PostgreSQL looks at the workspace's
/// names itself (its own scan, off the server); names starting with the text first, then
/// shorter, ties by name.
pub(crate) async fn entity_names_containing(
    conn: &mut PgConnection,
    ws: &str,
    text: &str,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    if text.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let rows = sqlx::query(
        "SELECT name FROM lrs_entities WHERE workspace = $1 AND strpos(lower(name), lower($2)) > 0 \
         ORDER BY strpos(lower(name), lower($2)) = 1 DESC, char_length(name), name LIMIT $3",
    )
    .bind(ws)
    .bind(text)
    .bind(to_i64(limit as u64))
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    rows.iter().map(|r| r.try_get::<String, _>("name").map_err(db_err)).collect()
}

/// Node and edge counts.
pub(crate) async fn graph_counts(conn: &mut PgConnection, ws: &str) -> Result<GraphCounts, StoreError> {
    let (nodes, edges): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM lrs_entities WHERE workspace = $1), \
                (SELECT count(*) FROM lrs_relations WHERE workspace = $1)",
    )
    .bind(ws)
    .fetch_one(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(GraphCounts { nodes: nodes.max(0) as usize, edges: edges.max(0) as usize })
}

/// Up to `limit` entities by degree (descending), ties by name: entities with relations from the
/// degree index, then the others (degree 0) by name.
pub(crate) async fn top_entities(
    conn: &mut PgConnection,
    ws: &str,
    limit: usize,
) -> Result<Vec<(String, usize)>, StoreError> {
    let rows = sqlx::query(
        "SELECT d.name, d.degree FROM lrs_node_degree d \
         JOIN lrs_entities e ON e.workspace = d.workspace AND e.name = d.name \
         WHERE d.workspace = $1 AND d.degree > 0 ORDER BY d.degree DESC, d.name LIMIT $2",
    )
    .bind(ws)
    .bind(to_i64(limit as u64))
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let degree: i64 = r.try_get(1).map_err(db_err)?;
        out.push((r.try_get(0).map_err(db_err)?, degree.max(0) as usize));
    }
    if out.len() < limit {
        let rest: Vec<String> = sqlx::query_scalar(
            "SELECT e.name FROM lrs_entities e WHERE e.workspace = $1 AND NOT EXISTS \
             (SELECT 1 FROM lrs_node_degree d WHERE d.workspace = $1 AND d.name = e.name AND d.degree > 0) \
             ORDER BY e.name LIMIT $2",
        )
        .bind(ws)
        .bind(to_i64((limit - out.len()) as u64))
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
        out.extend(rest.into_iter().map(|n| (n, 0)));
    }
    Ok(out)
}

/// Up to `limit` entity names after `after`, sorted.
pub(crate) async fn entity_names(
    conn: &mut PgConnection,
    ws: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    sqlx::query_scalar(
        "SELECT name FROM lrs_entities WHERE workspace = $1 AND ($2::text IS NULL OR name > $2) \
         ORDER BY name LIMIT $3",
    )
    .bind(ws)
    .bind(after)
    .bind(to_i64(limit as u64))
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)
}

/// Up to `limit` entities after the name `after`, sorted by name.
pub(crate) async fn entities_page(
    conn: &mut PgConnection,
    ws: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<Entity>, StoreError> {
    let sql = format!(
        "SELECT {ENTITY_COLUMNS} FROM lrs_entities WHERE workspace = $1 AND ($2::text IS NULL OR name > $2) \
         ORDER BY name LIMIT $3"
    );
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(ws)
        .bind(after)
        .bind(to_i64(limit as u64))
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    rows.iter().map(entity_from_row).collect()
}

/// Up to `limit` relations after the key `after`, sorted by key.
pub(crate) async fn relations_page(
    conn: &mut PgConnection,
    ws: &str,
    after: Option<&RelKey>,
    limit: usize,
) -> Result<Vec<Relation>, StoreError> {
    let after = after.map(canonical);
    let sql = format!(
        "SELECT {RELATION_COLUMNS} FROM lrs_relations WHERE workspace = $1 \
         AND ($2::text IS NULL OR (src, tgt) > ($2::text, $3::text)) ORDER BY src, tgt LIMIT $4"
    );
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(ws)
        .bind(after.as_ref().map(|k| k.src.as_str()))
        .bind(after.as_ref().map(|k| k.tgt.as_str()))
        .bind(to_i64(limit as u64))
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    rows.iter().map(relation_from_row).collect()
}
