//! Ranked expansion: the best relations around a set of entities, ranked in SQL.
//!
//! For each entity, one query reads its edges from the covering indexes
//! (`relations_by_src_rank`, `relations_by_tgt_rank`) joined with `node_degree`, sorts them by
//! edge degree, weight and key and keeps `limit` — the relations' rows are not read. An edge in
//! the overall first `limit` is always among the first `limit` of the first entity it touches
//! (everything ranked before it there is ranked before it overall), so merging the per-entity
//! lists by [`RankKey`] gives exactly the ranking of [`lightrag_ports::ranking`]. Only the
//! relations finally kept are loaded. Cost: proportional to the degrees of the asked entities
//! (index entries), not to the size of their relations.

use std::collections::{HashMap, HashSet};

use lightrag_ports::ranking::{RankKey, rank_relations};
use lightrag_ports::{RankedRelations, RelKey, Relation, StoreError};
use rusqlite::types::Value;
use rusqlite::{Connection, params, params_from_iter};

use crate::codec::{BATCH, db_err, placeholders, query_in, to_i64};
use crate::graph;

/// The first `limit` relations touching `names` in rank order, and how many touch them.
pub(crate) fn ranked_relations_of(
    conn: &Connection,
    names: &[String],
    limit: usize,
) -> Result<RankedRelations, StoreError> {
    let mut unique: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        if !unique.contains(n) {
            unique.push(n.clone());
        }
    }
    if unique.is_empty() {
        return Ok(RankedRelations::default());
    }
    if unique.len() > BATCH {
        return in_memory(conn, &unique, limit);
    }
    let total = touching_count(conn, &unique)?;
    let position: HashMap<&str, usize> = unique.iter().enumerate().rev().map(|(i, n)| (n.as_str(), i)).collect();
    let mut candidates: Vec<RankKey> = Vec::new();
    // Every edge of `name` has `name` at one end, so its edge degree is `name`'s degree (read
    // once, ?3) plus the other end's: one degree lookup per edge instead of two.
    let mut stmt = conn
        .prepare_cached(
            "SELECT src, tgt, weight, ed FROM ( \
               SELECT r.src, r.tgt, r.weight, ?3 + coalesce(d.degree, 0) AS ed \
               FROM relations r INDEXED BY relations_by_src_rank \
               LEFT JOIN node_degree d ON d.name = r.tgt \
               WHERE r.src = ?1 \
               UNION ALL \
               SELECT r.src, r.tgt, r.weight, ?3 + coalesce(d.degree, 0) AS ed \
               FROM relations r INDEXED BY relations_by_tgt_rank \
               LEFT JOIN node_degree d ON d.name = r.src \
               WHERE r.tgt = ?1 AND r.src <> ?1 \
             ) ORDER BY ed DESC, weight DESC, src, tgt LIMIT ?2",
        )
        .map_err(db_err)?;
    let degrees = graph::node_degrees(conn, &unique)?;
    for (name, degree) in unique.iter().zip(degrees) {
        let rows = stmt
            .query_map(params![name, to_i64(limit as u64), to_i64(degree as u64)], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, f64>(2)?, r.get::<_, i64>(3)?))
            })
            .map_err(db_err)?;
        for row in rows {
            let (src, tgt, weight, edge_degree) = row.map_err(db_err)?;
            let first = [src.as_str(), tgt.as_str()].iter().filter_map(|n| position.get(n)).min().copied();
            candidates.push(RankKey {
                edge_degree: edge_degree.max(0) as usize,
                weight,
                first_entity: first.unwrap_or(usize::MAX),
                key: RelKey { src, tgt },
            });
        }
    }
    candidates.sort_by(|a, b| a.cmp_rank(b));
    candidates.dedup_by(|a, b| a.key == b.key);
    candidates.truncate(limit);
    let keys: Vec<RelKey> = candidates.into_iter().map(|c| c.key).collect();
    let relations = graph::get_relations(conn, &keys)?.into_iter().flatten().collect();
    Ok(RankedRelations { relations, total })
}

/// Relations touching `names` (each once), counted from the indexes.
fn touching_count(conn: &Connection, names: &[String]) -> Result<usize, StoreError> {
    let values = placeholders(names.len()).split(',').map(|p| format!("({p})")).collect::<Vec<_>>().join(",");
    let sql = format!(
        "WITH s(name) AS (VALUES {values}) SELECT \
         (SELECT count(*) FROM relations WHERE src IN (SELECT name FROM s)) + \
         (SELECT count(*) FROM relations WHERE tgt IN (SELECT name FROM s) AND src NOT IN (SELECT name FROM s))"
    );
    let mut stmt = conn.prepare_cached(&sql).map_err(db_err)?;
    let n: i64 =
        stmt.query_row(params_from_iter(names.iter().map(|n| Value::Text(n.clone()))), |r| r.get(0)).map_err(db_err)?;
    Ok(n.max(0) as usize)
}

/// Very large requests: every touching relation, ranked in memory.
fn in_memory(conn: &Connection, names: &[String], limit: usize) -> Result<RankedRelations, StoreError> {
    let relations = graph::relations_of(conn, names)?;
    let total = relations.len();
    let mut ends: Vec<String> = relations.iter().flat_map(|r| [r.key.src.clone(), r.key.tgt.clone()]).collect();
    ends.sort();
    ends.dedup();
    let degrees = graph::node_degrees(conn, &ends)?;
    let degree_of: HashMap<String, usize> = ends.into_iter().zip(degrees).collect();
    Ok(RankedRelations { relations: rank_relations(names, relations, &degree_of, limit), total })
}

/// The keys of every relation touching `names`, from the indexes (no row is read).
pub(crate) fn relation_keys_of(conn: &Connection, names: &[String]) -> Result<Vec<RelKey>, StoreError> {
    let key = |r: &rusqlite::Row<'_>| Ok(RelKey { src: r.get(0)?, tgt: r.get(1)? });
    let mut keys = query_in(conn, "SELECT src, tgt FROM relations WHERE src IN ({in})", &[], names, key)?;
    keys.extend(query_in(conn, "SELECT src, tgt FROM relations WHERE tgt IN ({in})", &[], names, key)?);
    keys.sort();
    keys.dedup();
    Ok(keys)
}

/// The relations with both ends among `names`: their keys from the index, then only those rows.
pub(crate) fn relations_among(conn: &Connection, names: &[String]) -> Result<Vec<Relation>, StoreError> {
    let set: HashSet<&str> = names.iter().map(String::as_str).collect();
    let key = |r: &rusqlite::Row<'_>| Ok(RelKey { src: r.get(0)?, tgt: r.get(1)? });
    let mut keys: Vec<RelKey> = query_in(conn, "SELECT src, tgt FROM relations WHERE src IN ({in})", &[], names, key)?
        .into_iter()
        .filter(|k| set.contains(k.tgt.as_str()))
        .collect();
    keys.sort();
    keys.dedup();
    Ok(graph::get_relations(conn, &keys)?.into_iter().flatten().collect())
}
