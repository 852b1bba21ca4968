//! The knowledge graph: entities (nodes) and undirected relations (edges keyed by the sorted pair).

use std::collections::{BTreeMap, HashMap};

use lightrag_ports::{Entity, GraphCounts, RelKey, Relation, StoreError, TextHit};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use crate::chunks;
use crate::codec::{BATCH, db_err, in_order, json_ref, query_in, row_err, to_i64, to_json, unsigned};

const ENTITY_COLUMNS: &str =
    "name, entity_type, description, source_ids, file_paths, created_at, truncate, version, chunk_count";
pub(crate) const RELATION_COLUMNS: &str =
    "src, tgt, weight, keywords, description, source_ids, file_paths, created_at, truncate, version, chunk_count";

fn entity_from_row(r: &Row<'_>) -> rusqlite::Result<Entity> {
    Ok(Entity {
        name: r.get(0)?,
        entity_type: r.get(1)?,
        description: r.get(2)?,
        source_ids: json_ref(r, 3, "entity source_ids")?,
        file_paths: json_ref(r, 4, "entity file_paths")?,
        created_at: r.get(5)?,
        truncate: r.get(6)?,
        version: unsigned(r.get(7)?, "entity version")?,
        chunk_count: unsigned(r.get(8)?, "entity chunk_count")? as usize,
    })
}

pub(crate) fn relation_from_row(r: &Row<'_>) -> rusqlite::Result<Relation> {
    Ok(Relation {
        key: RelKey { src: r.get(0)?, tgt: r.get(1)? },
        weight: r.get(2)?,
        keywords: r.get(3)?,
        description: r.get(4)?,
        source_ids: json_ref(r, 5, "relation source_ids")?,
        file_paths: json_ref(r, 6, "relation file_paths")?,
        created_at: r.get(7)?,
        truncate: r.get(8)?,
        version: unsigned(r.get(9)?, "relation version")?,
        chunk_count: unsigned(r.get(10)?, "relation chunk_count")? as usize,
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

/// Upserts an entity; the version becomes 1 for a new one, old + 1 otherwise. A new entity's
/// chunk count is the length of any list already written for it; an update keeps the count.
/// Returns true when the entity is new. An upsert, not `INSERT OR REPLACE`: a replaced row would
/// leave its old text in the full-text index (the replace's delete fires no trigger).
pub(crate) fn put_entity(conn: &Connection, e: &Entity) -> Result<bool, StoreError> {
    let (sources, files) = (to_json(&e.source_ids)?, to_json(&e.file_paths)?);
    let version: i64 = conn
        .prepare_cached(
            "INSERT INTO entities (name, entity_type, description, source_ids, file_paths, created_at, truncate, \
             version, chunk_count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, \
             (SELECT count(*) FROM entity_chunks WHERE entity = ?1)) ON CONFLICT(name) DO UPDATE SET \
             entity_type = excluded.entity_type, description = excluded.description, \
             source_ids = excluded.source_ids, file_paths = excluded.file_paths, created_at = excluded.created_at, \
             truncate = excluded.truncate, version = entities.version + 1 RETURNING version",
        )
        .and_then(|mut s| {
            s.query_row(params![e.name, e.entity_type, e.description, sources, files, e.created_at, e.truncate], |r| {
                r.get(0)
            })
        })
        .map_err(db_err)?;
    Ok(version == 1)
}

/// Upserts a relation under its canonical key; versions and chunk counts as for entities; a new
/// relation adds one to the degree of each end. Returns true when the relation is new.
pub(crate) fn put_relation(conn: &Connection, rel: &Relation) -> Result<bool, StoreError> {
    let key = canonical(&rel.key);
    let (sources, files) = (to_json(&rel.source_ids)?, to_json(&rel.file_paths)?);
    let version: i64 = conn
        .prepare_cached(
            "INSERT INTO relations (src, tgt, weight, keywords, description, source_ids, file_paths, created_at, \
             truncate, version, chunk_count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, \
             (SELECT count(*) FROM relation_chunks WHERE src = ?1 AND tgt = ?2)) \
             ON CONFLICT(src, tgt) DO UPDATE SET weight = excluded.weight, keywords = excluded.keywords, \
             description = excluded.description, source_ids = excluded.source_ids, \
             file_paths = excluded.file_paths, created_at = excluded.created_at, truncate = excluded.truncate, \
             version = relations.version + 1 RETURNING version",
        )
        .and_then(|mut s| {
            s.query_row(
                params![
                    key.src,
                    key.tgt,
                    rel.weight,
                    rel.keywords,
                    rel.description,
                    sources,
                    files,
                    rel.created_at,
                    rel.truncate
                ],
                |r| r.get(0),
            )
        })
        .map_err(db_err)?;
    let created = version == 1;
    if created {
        add_degree(conn, &key, 1)?;
    }
    Ok(created)
}

/// Adds `delta` to the degree of both ends of `key` (once for a self-loop).
fn add_degree(conn: &Connection, key: &RelKey, delta: i64) -> Result<(), StoreError> {
    let ends: &[&String] = if key.src == key.tgt { &[&key.src] } else { &[&key.src, &key.tgt] };
    for name in ends {
        conn.prepare_cached(
            "INSERT INTO node_degree (name, degree) VALUES (?1, ?2) \
             ON CONFLICT(name) DO UPDATE SET degree = degree + excluded.degree",
        )
        .and_then(|mut s| s.execute(params![name, delta]))
        .map_err(db_err)?;
        if delta < 0 {
            conn.prepare_cached("DELETE FROM node_degree WHERE name = ?1 AND degree <= 0")
                .and_then(|mut s| s.execute([name]))
                .map_err(db_err)?;
        }
    }
    Ok(())
}

/// Deletes an entity row and its chunk list; true when the entity existed.
pub(crate) fn delete_entity(conn: &Connection, name: &str) -> Result<bool, StoreError> {
    conn.prepare_cached("DELETE FROM entity_chunks WHERE entity = ?1")
        .and_then(|mut s| s.execute([name]))
        .map_err(db_err)?;
    conn.prepare_cached("DELETE FROM entities WHERE name = ?1")
        .and_then(|mut s| s.execute([name]))
        .map(|n| n > 0)
        .map_err(db_err)
}

/// Deletes a relation row and its chunk list (one less degree for its ends); true when the
/// relation existed.
pub(crate) fn delete_relation(conn: &Connection, key: &RelKey) -> Result<bool, StoreError> {
    let key = canonical(key);
    conn.prepare_cached("DELETE FROM relation_chunks WHERE src = ?1 AND tgt = ?2")
        .and_then(|mut s| s.execute([&key.src, &key.tgt]))
        .map_err(db_err)?;
    let existed = conn
        .prepare_cached("DELETE FROM relations WHERE src = ?1 AND tgt = ?2")
        .and_then(|mut s| s.execute([&key.src, &key.tgt]))
        .map(|n| n > 0)
        .map_err(db_err)?;
    if existed {
        add_degree(conn, &key, -1)?;
    }
    Ok(existed)
}

/// Up to `top_k` entities whose name or description holds any word of `terms`, by BM25 with the
/// name weighted 10 to 1 against the description (FTS5's `bm25()`, negated so that higher is
/// better), ties by name. Nothing in the terms is query syntax (see [`chunks::fts_any_word`]).
pub(crate) fn search_entity_text(
    conn: &Connection,
    terms: &[String],
    top_k: usize,
) -> Result<Vec<TextHit>, StoreError> {
    let Some(query) = chunks::fts_any_word(terms).filter(|_| top_k > 0) else {
        return Ok(Vec::new());
    };
    let mut stmt = conn
        .prepare_cached(
            "SELECT e.name, bm25(entities_fts, 10.0, 1.0) AS rank FROM entities_fts \
             JOIN entities e ON e.rowid = entities_fts.rowid \
             WHERE entities_fts MATCH ?1 ORDER BY rank, e.name LIMIT ?2",
        )
        .map_err(db_err)?;
    let rows = stmt
        .query_map(params![query, to_i64(top_k as u64)], |r| {
            Ok(TextHit { key: r.get(0)?, score: -(r.get::<_, f64>(1)? as f32) })
        })
        .map_err(db_err)?;
    rows.collect::<Result<Vec<_>, _>>().map_err(db_err)
}

/// Up to `limit` names containing `text` (see
/// [`TextSearch::entity_names_containing`](lightrag_ports::TextSearch::entity_names_containing)):
/// from the trigram index for three characters or more (the text is one quoted phrase, so
/// nothing in it is query syntax); shorter texts have no trigram, and are looked for with
/// `instr` over the names (in SQLite, on the store's blocking thread).
pub(crate) fn entity_names_containing(conn: &Connection, text: &str, limit: usize) -> Result<Vec<String>, StoreError> {
    if text.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let lower = text.to_lowercase();
    let len = to_i64(text.chars().count() as u64);
    let order = "ORDER BY substr(lower(e.name), 1, ?2) = ?3 DESC, length(e.name), e.name LIMIT ?4";
    let (sql, needle) = if text.chars().count() >= 3 {
        let phrase = format!("\"{}\"", text.replace('"', "\"\""));
        (
            format!(
                "SELECT e.name FROM entity_names_fts JOIN entities e ON e.rowid = entity_names_fts.rowid \
                 WHERE entity_names_fts MATCH ?1 {order}"
            ),
            phrase,
        )
    } else {
        (format!("SELECT e.name FROM entities e WHERE instr(lower(e.name), ?1) > 0 {order}"), lower.clone())
    };
    let mut stmt = conn.prepare_cached(&sql).map_err(db_err)?;
    let rows =
        stmt.query_map(params![needle, len, lower, to_i64(limit as u64)], |r| r.get::<_, String>(0)).map_err(db_err)?;
    rows.collect::<Result<Vec<_>, _>>().map_err(db_err)
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
    Ok(in_order(names, by_name))
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
    Ok(in_order(&canon, found))
}

/// Number of relations touching each name (a self-loop counts once), in the order asked.
pub(crate) fn node_degrees(conn: &Connection, names: &[String]) -> Result<Vec<usize>, StoreError> {
    let count = |r: &Row<'_>| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?));
    let degree: HashMap<String, i64> =
        query_in(conn, "SELECT name, degree FROM node_degree WHERE name IN ({in})", &[], names, count)?
            .into_iter()
            .collect();
    Ok(names.iter().map(|n| degree.get(n).copied().unwrap_or(0).max(0) as usize).collect())
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

/// Up to `limit` entities by degree (descending), ties by name: entities with relations come
/// from the degree index, the others (degree 0) by name after them.
pub(crate) fn top_entities(conn: &Connection, limit: usize) -> Result<Vec<(String, usize)>, StoreError> {
    let limit_sql = to_i64(limit as u64);
    let mut out: Vec<(String, usize)> = {
        let mut stmt = conn
            .prepare_cached(
                "SELECT d.name, d.degree FROM node_degree d JOIN entities e ON e.name = d.name \
                 WHERE d.degree > 0 ORDER BY d.degree DESC, d.name ASC LIMIT ?1",
            )
            .map_err(db_err)?;
        let rows = stmt
            .query_map([limit_sql], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as usize)))
            .map_err(db_err)?;
        rows.collect::<Result<_, _>>().map_err(db_err)?
    };
    if out.len() < limit {
        let mut stmt = conn
            .prepare_cached(
                "SELECT e.name FROM entities e WHERE NOT EXISTS \
                 (SELECT 1 FROM node_degree d WHERE d.name = e.name AND d.degree > 0) ORDER BY e.name LIMIT ?1",
            )
            .map_err(db_err)?;
        let rest = to_i64((limit - out.len()) as u64);
        let rows = stmt.query_map([rest], |r| r.get::<_, String>(0)).map_err(db_err)?;
        for name in rows {
            out.push((name.map_err(db_err)?, 0));
        }
    }
    Ok(out)
}

/// Up to `limit` entity names after `after`, sorted.
pub(crate) fn entity_names(conn: &Connection, after: Option<&str>, limit: usize) -> Result<Vec<String>, StoreError> {
    let limit = to_i64(limit as u64);
    let mut stmt = match after {
        Some(_) => conn.prepare_cached("SELECT name FROM entities WHERE name > ?1 ORDER BY name LIMIT ?2"),
        None => conn.prepare_cached("SELECT name FROM entities WHERE ?1 IS NULL ORDER BY name LIMIT ?2"),
    }
    .map_err(db_err)?;
    let rows = stmt.query_map(params![after, limit], |r| r.get(0)).map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(db_err)
}

/// Up to `limit` entities after the name `after`, sorted by name.
pub(crate) fn entities_page(conn: &Connection, after: Option<&str>, limit: usize) -> Result<Vec<Entity>, StoreError> {
    let limit = to_i64(limit as u64);
    let sql = match after {
        Some(_) => format!("SELECT {ENTITY_COLUMNS} FROM entities WHERE name > ?1 ORDER BY name LIMIT ?2"),
        None => format!("SELECT {ENTITY_COLUMNS} FROM entities WHERE ?1 IS NULL ORDER BY name LIMIT ?2"),
    };
    let mut stmt = conn.prepare_cached(&sql).map_err(db_err)?;
    let rows = stmt.query_map(params![after, limit], entity_from_row).map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(row_err)
}

/// Up to `limit` relations after the key `after`, sorted by key.
pub(crate) fn relations_page(
    conn: &Connection,
    after: Option<&RelKey>,
    limit: usize,
) -> Result<Vec<Relation>, StoreError> {
    let limit = to_i64(limit as u64);
    let (src, tgt) = match after.map(canonical) {
        Some(k) => (Some(k.src), Some(k.tgt)),
        None => (None, None),
    };
    let sql = match after {
        Some(_) => {
            format!("SELECT {RELATION_COLUMNS} FROM relations WHERE (src, tgt) > (?1, ?2) ORDER BY src, tgt LIMIT ?3")
        }
        None => format!(
            "SELECT {RELATION_COLUMNS} FROM relations WHERE ?1 IS NULL AND ?2 IS NULL ORDER BY src, tgt LIMIT ?3"
        ),
    };
    let mut stmt = conn.prepare_cached(&sql).map_err(db_err)?;
    let rows = stmt.query_map(params![src, tgt, limit], relation_from_row).map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(row_err)
}
