//! The writes of a commit in few statements: entities, relations, chunk-list appends, list-length
//! counts and degrees each go to the server as arrays (`unnest`), not row by row, so a document's
//! commit costs a few round trips however many records it touches. Each function keeps the
//! semantics of the row-by-row code in `graph.rs` / `lists.rs`, which it falls back to where a
//! batch could not (a key repeated in one change set).

use std::collections::{BTreeMap, HashMap, HashSet};

use lightrag_ports::backend::CountChange;
use lightrag_ports::{Entity, GraphKey, RelKey, Relation, StoreError};
use sqlx::{PgConnection, Row};

use crate::error::{db_err, to_i64, to_json};
use crate::graph::{self, canonical};

/// Upserts entities (see [`graph::put_entity`]); returns, in input order, whether each was new.
pub(crate) async fn put_entities(
    conn: &mut PgConnection,
    ws: &str,
    entities: &[Entity],
) -> Result<Vec<bool>, StoreError> {
    let mut seen = HashSet::with_capacity(entities.len());
    if !entities.iter().all(|e| seen.insert(e.name.as_str())) {
        let mut out = Vec::with_capacity(entities.len());
        for e in entities {
            out.push(graph::put_entity(conn, ws, e).await?);
        }
        return Ok(out);
    }
    if entities.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<&str> = entities.iter().map(|e| e.name.as_str()).collect();
    let types: Vec<&str> = entities.iter().map(|e| e.entity_type.as_str()).collect();
    let descriptions: Vec<&str> = entities.iter().map(|e| e.description.as_str()).collect();
    let sources = entities.iter().map(|e| to_json(&e.source_ids)).collect::<Result<Vec<_>, _>>()?;
    let files = entities.iter().map(|e| to_json(&e.file_paths)).collect::<Result<Vec<_>, _>>()?;
    let created: Vec<i64> = entities.iter().map(|e| e.created_at).collect();
    let truncates: Vec<&str> = entities.iter().map(|e| e.truncate.as_str()).collect();
    let rows = sqlx::query(
        "INSERT INTO lrs_entities (workspace, name, entity_type, description, source_ids, file_paths, created_at, \
         truncate, version, chunk_count) \
         SELECT $1, u.n, u.t, u.d, ARRAY(SELECT jsonb_array_elements_text(u.s::jsonb)), \
                ARRAY(SELECT jsonb_array_elements_text(u.f::jsonb)), u.c, u.tr, 1, \
                (SELECT count(*) FROM lrs_entity_chunks k WHERE k.workspace = $1 AND k.entity = u.n) \
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[]) \
              AS u(n, t, d, s, f, c, tr) \
         ORDER BY u.n \
         ON CONFLICT (workspace, name) DO UPDATE SET entity_type = excluded.entity_type, \
         description = excluded.description, source_ids = excluded.source_ids, file_paths = excluded.file_paths, \
         created_at = excluded.created_at, truncate = excluded.truncate, version = lrs_entities.version + 1 \
         RETURNING name, version",
    )
    .bind(ws)
    .bind(&names)
    .bind(&types)
    .bind(&descriptions)
    .bind(&sources)
    .bind(&files)
    .bind(&created)
    .bind(&truncates)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    let mut version: HashMap<String, i64> = HashMap::with_capacity(rows.len());
    for r in &rows {
        version.insert(r.try_get(0).map_err(db_err)?, r.try_get(1).map_err(db_err)?);
    }
    Ok(entities.iter().map(|e| version.get(&e.name) == Some(&1)).collect())
}

/// Upserts relations under their canonical keys (see [`graph::put_relation`]); returns, in input
/// order, whether each was new.
pub(crate) async fn put_relations(
    conn: &mut PgConnection,
    ws: &str,
    relations: &[Relation],
) -> Result<Vec<bool>, StoreError> {
    let keys: Vec<RelKey> = relations.iter().map(|r| canonical(&r.key)).collect();
    let mut seen = HashSet::with_capacity(keys.len());
    if !keys.iter().all(|k| seen.insert(k)) {
        let mut out = Vec::with_capacity(relations.len());
        for r in relations {
            out.push(graph::put_relation(conn, ws, r).await?);
        }
        return Ok(out);
    }
    if relations.is_empty() {
        return Ok(Vec::new());
    }
    let src: Vec<&str> = keys.iter().map(|k| k.src.as_str()).collect();
    let tgt: Vec<&str> = keys.iter().map(|k| k.tgt.as_str()).collect();
    let weights: Vec<f64> = relations.iter().map(|r| r.weight).collect();
    let keywords: Vec<&str> = relations.iter().map(|r| r.keywords.as_str()).collect();
    let descriptions: Vec<&str> = relations.iter().map(|r| r.description.as_str()).collect();
    let sources = relations.iter().map(|r| to_json(&r.source_ids)).collect::<Result<Vec<_>, _>>()?;
    let files = relations.iter().map(|r| to_json(&r.file_paths)).collect::<Result<Vec<_>, _>>()?;
    let created: Vec<i64> = relations.iter().map(|r| r.created_at).collect();
    let truncates: Vec<&str> = relations.iter().map(|r| r.truncate.as_str()).collect();
    let rows = sqlx::query(
        "INSERT INTO lrs_relations (workspace, src, tgt, weight, keywords, description, source_ids, file_paths, \
         created_at, truncate, version, chunk_count) \
         SELECT $1, u.a, u.b, u.w, u.k, u.d, ARRAY(SELECT jsonb_array_elements_text(u.s::jsonb)), \
                ARRAY(SELECT jsonb_array_elements_text(u.f::jsonb)), u.c, u.tr, 1, \
                (SELECT count(*) FROM lrs_relation_chunks x WHERE x.workspace = $1 AND x.src = u.a AND x.tgt = u.b) \
         FROM unnest($2::text[], $3::text[], $4::float8[], $5::text[], $6::text[], $7::text[], $8::text[], \
                     $9::bigint[], $10::text[]) AS u(a, b, w, k, d, s, f, c, tr) \
         ORDER BY u.a, u.b \
         ON CONFLICT (workspace, src, tgt) DO UPDATE SET weight = excluded.weight, keywords = excluded.keywords, \
         description = excluded.description, source_ids = excluded.source_ids, file_paths = excluded.file_paths, \
         created_at = excluded.created_at, truncate = excluded.truncate, version = lrs_relations.version + 1 \
         RETURNING src, tgt, version",
    )
    .bind(ws)
    .bind(&src)
    .bind(&tgt)
    .bind(&weights)
    .bind(&keywords)
    .bind(&descriptions)
    .bind(&sources)
    .bind(&files)
    .bind(&created)
    .bind(&truncates)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    let mut version: HashMap<RelKey, i64> = HashMap::with_capacity(rows.len());
    for r in &rows {
        let key = RelKey { src: r.try_get(0).map_err(db_err)?, tgt: r.try_get(1).map_err(db_err)? };
        version.insert(key, r.try_get(2).map_err(db_err)?);
    }
    Ok(keys.iter().map(|k| version.get(k) == Some(&1)).collect())
}

/// Appends to many chunk lists at once: `appends` maps each (canonical) owner to its ids in edit
/// order. Ids already listed (or repeated) are skipped. Returns how many ids each owner gained.
pub(crate) async fn append_lists(
    conn: &mut PgConnection,
    ws: &str,
    appends: &BTreeMap<GraphKey, Vec<String>>,
) -> Result<BTreeMap<GraphKey, i64>, StoreError> {
    // Per owner: each id once, numbered from 1 in list order.
    let (mut e_owner, mut e_chunk, mut e_pos) = (Vec::new(), Vec::new(), Vec::new());
    let (mut r_src, mut r_tgt, mut r_chunk, mut r_pos) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (owner, ids) in appends {
        let mut seen = HashSet::with_capacity(ids.len());
        let unique = ids.iter().filter(|id| seen.insert(id.as_str()));
        for (i, id) in unique.enumerate() {
            let pos = to_i64(i as u64 + 1);
            match owner {
                GraphKey::Entity(name) => {
                    e_owner.push(name.as_str());
                    e_chunk.push(id.as_str());
                    e_pos.push(pos);
                }
                GraphKey::Relation(k) => {
                    r_src.push(k.src.as_str());
                    r_tgt.push(k.tgt.as_str());
                    r_chunk.push(id.as_str());
                    r_pos.push(pos);
                }
            }
        }
    }
    let mut added: BTreeMap<GraphKey, i64> = BTreeMap::new();
    // The lateral `max(ord)` reads the lists as they were before the statement, so every new id
    // of an owner lands after its last listed one, in order.
    if !e_owner.is_empty() {
        let owners: Vec<String> = sqlx::query_scalar(
            "INSERT INTO lrs_entity_chunks (workspace, entity, ord, chunk_id) \
             SELECT $1, u.o, coalesce(m.last, -1) + u.i, u.c \
             FROM unnest($2::text[], $3::text[], $4::bigint[]) AS u(o, c, i) \
             LEFT JOIN LATERAL (SELECT max(ord) AS last FROM lrs_entity_chunks x \
                                WHERE x.workspace = $1 AND x.entity = u.o) m ON true \
             ON CONFLICT DO NOTHING RETURNING entity",
        )
        .bind(ws)
        .bind(&e_owner)
        .bind(&e_chunk)
        .bind(&e_pos)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
        for o in owners {
            *added.entry(GraphKey::Entity(o)).or_default() += 1;
        }
    }
    if !r_src.is_empty() {
        let rows = sqlx::query(
            "INSERT INTO lrs_relation_chunks (workspace, src, tgt, ord, chunk_id) \
             SELECT $1, u.a, u.b, coalesce(m.last, -1) + u.i, u.c \
             FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) AS u(a, b, c, i) \
             LEFT JOIN LATERAL (SELECT max(ord) AS last FROM lrs_relation_chunks x \
                                WHERE x.workspace = $1 AND x.src = u.a AND x.tgt = u.b) m ON true \
             ON CONFLICT DO NOTHING RETURNING src, tgt",
        )
        .bind(ws)
        .bind(&r_src)
        .bind(&r_tgt)
        .bind(&r_chunk)
        .bind(&r_pos)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
        for r in &rows {
            let key = RelKey { src: r.try_get(0).map_err(db_err)?, tgt: r.try_get(1).map_err(db_err)? };
            *added.entry(GraphKey::Relation(key)).or_default() += 1;
        }
    }
    Ok(added)
}

/// Writes list-length changes, entities then relations, each in one statement.
pub(crate) async fn update_counts(
    conn: &mut PgConnection,
    ws: &str,
    changes: &[CountChange],
) -> Result<(), StoreError> {
    let (mut e_name, mut e_base, mut e_delta, mut e_bump) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut r_src, mut r_tgt, mut r_base, mut r_delta, mut r_bump) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // the count becomes max(0, (base or the stored count) + delta), the version goes up by bump
    for CountChange { owner, base, delta, bump_version } in changes {
        let bump = i64::from(*bump_version);
        match owner {
            GraphKey::Entity(name) => {
                e_name.push(name.as_str());
                e_base.push(*base);
                e_delta.push(*delta);
                e_bump.push(bump);
            }
            GraphKey::Relation(k) => {
                r_src.push(k.src.as_str());
                r_tgt.push(k.tgt.as_str());
                r_base.push(*base);
                r_delta.push(*delta);
                r_bump.push(bump);
            }
        }
    }
    if !e_name.is_empty() {
        sqlx::query(
            "UPDATE lrs_entities e SET chunk_count = greatest(0, coalesce(u.base, e.chunk_count) + u.delta), \
             version = e.version + u.bump \
             FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::bigint[]) AS u(n, base, delta, bump) \
             WHERE e.workspace = $1 AND e.name = u.n",
        )
        .bind(ws)
        .bind(&e_name)
        .bind(&e_base)
        .bind(&e_delta)
        .bind(&e_bump)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    }
    if !r_src.is_empty() {
        sqlx::query(
            "UPDATE lrs_relations r SET chunk_count = greatest(0, coalesce(u.base, r.chunk_count) + u.delta), \
             version = r.version + u.bump \
             FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[]) \
                  AS u(a, b, base, delta, bump) \
             WHERE r.workspace = $1 AND r.src = u.a AND r.tgt = u.b",
        )
        .bind(ws)
        .bind(&r_src)
        .bind(&r_tgt)
        .bind(&r_base)
        .bind(&r_delta)
        .bind(&r_bump)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    }
    Ok(())
}

/// Adds degree changes (name → delta; rows locked in name order), dropping rows that reach zero.
pub(crate) async fn add_degrees(
    conn: &mut PgConnection,
    ws: &str,
    deltas: &BTreeMap<String, i64>,
) -> Result<(), StoreError> {
    let (names, values): (Vec<&str>, Vec<i64>) =
        deltas.iter().filter(|(_, d)| **d != 0).map(|(n, d)| (n.as_str(), *d)).unzip();
    if names.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO lrs_node_degree (workspace, name, degree) \
         SELECT $1, u.n, u.d FROM unnest($2::text[], $3::bigint[]) AS u(n, d) ORDER BY u.n \
         ON CONFLICT (workspace, name) DO UPDATE SET degree = lrs_node_degree.degree + excluded.degree",
    )
    .bind(ws)
    .bind(&names)
    .bind(&values)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    if values.iter().any(|d| *d < 0) {
        sqlx::query("DELETE FROM lrs_node_degree WHERE workspace = $1 AND name = ANY($2) AND degree <= 0")
            .bind(ws)
            .bind(&names)
            .execute(&mut *conn)
            .await
            .map_err(db_err)?;
    }
    Ok(())
}
