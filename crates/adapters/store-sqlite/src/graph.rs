//! The knowledge graph: entities (nodes) and undirected relations (edges keyed by the sorted pair).

use std::collections::{BTreeMap, HashMap};

use lightrag_ports::{Entity, GraphCounts, RelKey, Relation, StoreError};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use crate::codec::{BATCH, db_err, json_col, query_in, row_err, to_i64, to_json, unsigned};

const ENTITY_COLUMNS: &str =
    "name, entity_type, description, source_ids, chunk_ids, file_paths, created_at, truncate, version";
const RELATION_COLUMNS: &str =
    "src, tgt, weight, keywords, description, source_ids, chunk_ids, file_paths, created_at, truncate, version";

fn entity_from_row(r: &Row<'_>) -> rusqlite::Result<Entity> {
    Ok(Entity {
        name: r.get(0)?,
        entity_type: r.get(1)?,
        description: r.get(2)?,
        source_ids: json_col(&r.get::<_, String>(3)?, "entity source_ids")?,
        chunk_ids: json_col(&r.get::<_, String>(4)?, "entity chunk_ids")?,
        file_paths: json_col(&r.get::<_, String>(5)?, "entity file_paths")?,
        created_at: r.get(6)?,
        truncate: r.get(7)?,
        version: unsigned(r.get(8)?, "entity version")?,
    })
}

fn relation_from_row(r: &Row<'_>) -> rusqlite::Result<Relation> {
    Ok(Relation {
        key: RelKey { src: r.get(0)?, tgt: r.get(1)? },
        weight: r.get(2)?,
        keywords: r.get(3)?,
        description: r.get(4)?,
        source_ids: json_col(&r.get::<_, String>(5)?, "relation source_ids")?,
        chunk_ids: json_col(&r.get::<_, String>(6)?, "relation chunk_ids")?,
        file_paths: json_col(&r.get::<_, String>(7)?, "relation file_paths")?,
        created_at: r.get(8)?,
        truncate: r.get(9)?,
        version: unsigned(r.get(10)?, "relation version")?,
    })
}

/// The key in canonical (sorted) order, whatever order the caller gave.
pub(crate) fn canonical(key: &RelKey) -> RelKey {
    RelKey::new(key.src.clone(), key.tgt.clone())
}

/// The stored version of an entity (`None` = absent).
pub(crate) fn entity_version(conn: &Connection, name: &str) -> Result<Option<u64>, StoreError> {
    let v: Option<i64> = conn
        .prepare_cached("SELECT version FROM entities WHERE name = ?1")
        .and_then(|mut s| s.query_row([name], |r| r.get(0)).optional())
        .map_err(db_err)?;
    Ok(v.map(|v| v.max(0) as u64))
}

/// The stored version of a relation (`None` = absent).
pub(crate) fn relation_version(conn: &Connection, key: &RelKey) -> Result<Option<u64>, StoreError> {
    let key = canonical(key);
    let v: Option<i64> = conn
        .prepare_cached("SELECT version FROM relations WHERE src = ?1 AND tgt = ?2")
        .and_then(|mut s| s.query_row([&key.src, &key.tgt], |r| r.get(0)).optional())
        .map_err(db_err)?;
    Ok(v.map(|v| v.max(0) as u64))
}

/// Upserts an entity; the version becomes 1 for a new one, old + 1 otherwise.
pub(crate) fn put_entity(conn: &Connection, e: &Entity) -> Result<(), StoreError> {
    let (sources, chunks, files) = (to_json(&e.source_ids)?, to_json(&e.chunk_ids)?, to_json(&e.file_paths)?);
    conn.prepare_cached(
        "INSERT INTO entities (name, entity_type, description, source_ids, chunk_ids, file_paths, created_at, \
         truncate, version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1) ON CONFLICT(name) DO UPDATE SET \
         entity_type = excluded.entity_type, description = excluded.description, source_ids = excluded.source_ids, \
         chunk_ids = excluded.chunk_ids, file_paths = excluded.file_paths, created_at = excluded.created_at, \
         truncate = excluded.truncate, version = entities.version + 1",
    )
    .and_then(|mut s| {
        s.execute(params![e.name, e.entity_type, e.description, sources, chunks, files, e.created_at, e.truncate,])
    })
    .map_err(db_err)?;
    Ok(())
}

/// Upserts a relation under its canonical key; versions as for entities.
pub(crate) fn put_relation(conn: &Connection, rel: &Relation) -> Result<(), StoreError> {
    let key = canonical(&rel.key);
    let (sources, chunks, files) = (to_json(&rel.source_ids)?, to_json(&rel.chunk_ids)?, to_json(&rel.file_paths)?);
    conn.prepare_cached(
        "INSERT INTO relations (src, tgt, weight, keywords, description, source_ids, chunk_ids, file_paths, \
         created_at, truncate, version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 1) \
         ON CONFLICT(src, tgt) DO UPDATE SET weight = excluded.weight, keywords = excluded.keywords, \
         description = excluded.description, source_ids = excluded.source_ids, chunk_ids = excluded.chunk_ids, \
         file_paths = excluded.file_paths, created_at = excluded.created_at, truncate = excluded.truncate, \
         version = relations.version + 1",
    )
    .and_then(|mut s| {
        s.execute(params![
            key.src,
            key.tgt,
            rel.weight,
            rel.keywords,
            rel.description,
            sources,
            chunks,
            files,
            rel.created_at,
            rel.truncate
        ])
    })
    .map_err(db_err)?;
    Ok(())
}

/// Deletes an entity row; true when it existed.
pub(crate) fn delete_entity(conn: &Connection, name: &str) -> Result<bool, StoreError> {
    conn.prepare_cached("DELETE FROM entities WHERE name = ?1")
        .and_then(|mut s| s.execute([name]))
        .map(|n| n > 0)
        .map_err(db_err)
}

/// Deletes a relation row; true when it existed.
pub(crate) fn delete_relation(conn: &Connection, key: &RelKey) -> Result<bool, StoreError> {
    let key = canonical(key);
    conn.prepare_cached("DELETE FROM relations WHERE src = ?1 AND tgt = ?2")
        .and_then(|mut s| s.execute([&key.src, &key.tgt]))
        .map(|n| n > 0)
        .map_err(db_err)
}

/// Entities by name, in the order asked.
pub(crate) fn get_entities(conn: &Connection, names: &[String]) -> Result<Vec<Option<Entity>>, StoreError> {
    let rows = query_in(
        conn,
        &format!("SELECT {ENTITY_COLUMNS} FROM entities WHERE name IN ({{in}})"),
        &[],
        names,
        entity_from_row,
    )?;
    let by_name: HashMap<String, Entity> = rows.into_iter().map(|e| (e.name.clone(), e)).collect();
    Ok(names.iter().map(|n| by_name.get(n).cloned()).collect())
}

/// Relations by key (either order), in the order asked.
pub(crate) fn get_relations(conn: &Connection, keys: &[RelKey]) -> Result<Vec<Option<Relation>>, StoreError> {
    let canon: Vec<RelKey> = keys.iter().map(canonical).collect();
    let mut found: HashMap<RelKey, Relation> = HashMap::new();
    for batch in canon.chunks(BATCH / 2) {
        let values = vec!["(?,?)"; batch.len()].join(",");
        let sql = format!("SELECT {RELATION_COLUMNS} FROM relations WHERE (src, tgt) IN (VALUES {values})");
        let mut stmt = conn.prepare_cached(&sql).map_err(db_err)?;
        let params = batch.iter().flat_map(|k| [Value::Text(k.src.clone()), Value::Text(k.tgt.clone())]);
        let rows = stmt.query_map(params_from_iter(params), relation_from_row).map_err(db_err)?;
        for row in rows {
            let rel = row.map_err(row_err)?;
            found.insert(rel.key.clone(), rel);
        }
    }
    Ok(canon.iter().map(|k| found.get(k).cloned()).collect())
}

/// Number of relations touching each name (a self-loop counts once), in the order asked.
pub(crate) fn node_degrees(conn: &Connection, names: &[String]) -> Result<Vec<usize>, StoreError> {
    let mut degree: HashMap<String, usize> = HashMap::new();
    let count = |r: &Row<'_>| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?));
    for (name, n) in
        query_in(conn, "SELECT src, count(*) FROM relations WHERE src IN ({in}) GROUP BY src", &[], names, count)?
    {
        *degree.entry(name).or_default() += n.max(0) as usize;
    }
    for (name, n) in query_in(
        conn,
        "SELECT tgt, count(*) FROM relations WHERE tgt IN ({in}) AND src <> tgt GROUP BY tgt",
        &[],
        names,
        count,
    )? {
        *degree.entry(name).or_default() += n.max(0) as usize;
    }
    Ok(names.iter().map(|n| degree.get(n).copied().unwrap_or(0)).collect())
}

/// Every relation touching any of the names, each once, sorted by key.
pub(crate) fn relations_of(conn: &Connection, names: &[String]) -> Result<Vec<Relation>, StoreError> {
    let mut found: BTreeMap<RelKey, Relation> = BTreeMap::new();
    for sql in [
        format!("SELECT {RELATION_COLUMNS} FROM relations WHERE src IN ({{in}})"),
        format!("SELECT {RELATION_COLUMNS} FROM relations WHERE tgt IN ({{in}})"),
    ] {
        for rel in query_in(conn, &sql, &[], names, relation_from_row)? {
            found.entry(rel.key.clone()).or_insert(rel);
        }
    }
    Ok(found.into_values().collect())
}

/// Node and edge counts.
pub(crate) fn graph_counts(conn: &Connection) -> Result<GraphCounts, StoreError> {
    let nodes: i64 = conn.query_row("SELECT count(*) FROM entities", [], |r| r.get(0)).map_err(db_err)?;
    let edges: i64 = conn.query_row("SELECT count(*) FROM relations", [], |r| r.get(0)).map_err(db_err)?;
    Ok(GraphCounts { nodes: nodes.max(0) as usize, edges: edges.max(0) as usize })
}

/// Up to `limit` entities by degree (descending), ties by name.
pub(crate) fn top_entities(conn: &Connection, limit: usize) -> Result<Vec<(String, usize)>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT e.name, coalesce(s.c, 0) + coalesce(t.c, 0) AS degree FROM entities e \
             LEFT JOIN (SELECT src AS n, count(*) AS c FROM relations GROUP BY src) s ON s.n = e.name \
             LEFT JOIN (SELECT tgt AS n, count(*) AS c FROM relations WHERE src <> tgt GROUP BY tgt) t ON t.n = e.name \
             ORDER BY degree DESC, e.name ASC LIMIT ?1",
        )
        .map_err(db_err)?;
    let rows = stmt
        .query_map([to_i64(limit as u64)], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as usize)))
        .map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(db_err)
}

/// Every entity name, sorted.
pub(crate) fn entity_names(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT name FROM entities ORDER BY name").map_err(db_err)?;
    let rows = stmt.query_map([], |r| r.get(0)).map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(db_err)
}

/// Every entity, sorted by name.
pub(crate) fn all_entities(conn: &Connection) -> Result<Vec<Entity>, StoreError> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {ENTITY_COLUMNS} FROM entities ORDER BY name")).map_err(db_err)?;
    let rows = stmt.query_map([], entity_from_row).map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(row_err)
}

/// Every relation, sorted by key.
pub(crate) fn all_relations(conn: &Connection) -> Result<Vec<Relation>, StoreError> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {RELATION_COLUMNS} FROM relations ORDER BY src, tgt")).map_err(db_err)?;
    let rows = stmt.query_map([], relation_from_row).map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(row_err)
}
