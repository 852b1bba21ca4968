//! Chunk lists of entities and relations as rows (`lrs_entity_chunks`, `lrs_relation_chunks`):
//! ordered by `ord` per owner, indexed by owner and by chunk. Edits and document deletions record
//! how each owner's list length changed in a [`ListTally`], which [`finish`] writes into the
//! records' `chunk_count` (and version) at the end of the commit — so no edit counts a whole list.

use std::collections::{BTreeMap, HashSet};

use lightrag_ports::backend::{ListTally, canonical_owner};
use lightrag_ports::{ChunkListEdit, GraphKey, ListRange, RelKey, StoreError};
use sqlx::{AssertSqlSafe, PgConnection, Row};

use crate::error::{db_err, to_i64};

/// Writes a commit's new chunk counts, and one version more for every record whose list changed
/// but that the commit did not write.
pub(crate) async fn finish(tally: ListTally, conn: &mut PgConnection, ws: &str) -> Result<(), StoreError> {
    crate::batch::update_counts(conn, ws, &tally.into_changes()).await
}

/// Applies a commit's list edits: when every edit appends (the usual merge), all lists in two
/// statements; otherwise edit by edit, in order.
pub(crate) async fn edit_all(
    conn: &mut PgConnection,
    ws: &str,
    edits: &[(GraphKey, ChunkListEdit)],
    tally: &mut ListTally,
) -> Result<(), StoreError> {
    if edits.iter().all(|(_, e)| matches!(e, ChunkListEdit::Append(_))) {
        let mut appends: BTreeMap<GraphKey, Vec<String>> = BTreeMap::new();
        for (owner, e) in edits {
            if let ChunkListEdit::Append(ids) = e {
                appends.entry(canonical_owner(owner)).or_default().extend(ids.iter().cloned());
            }
        }
        for (owner, n) in crate::batch::append_lists(conn, ws, &appends).await? {
            tally.add(owner, n);
        }
        return Ok(());
    }
    for (owner, e) in edits {
        edit(conn, ws, owner, e, tally).await?;
    }
    Ok(())
}

/// The ids once each, at their first place.
fn first_of_each(ids: &[String]) -> Vec<&str> {
    let mut seen = HashSet::with_capacity(ids.len());
    ids.iter().map(String::as_str).filter(|id| seen.insert(*id)).collect()
}

/// Applies one edit.
pub(crate) async fn edit(
    conn: &mut PgConnection,
    ws: &str,
    owner: &GraphKey,
    edit: &ChunkListEdit,
    tally: &mut ListTally,
) -> Result<(), StoreError> {
    let owner = canonical_owner(owner);
    match edit {
        ChunkListEdit::Append(ids) => {
            let added = append(conn, ws, &owner, ids).await?;
            tally.add(owner, added);
        }
        ChunkListEdit::Remove(ids) => {
            let removed = match &owner {
                GraphKey::Entity(name) => {
                    sqlx::query(
                        "DELETE FROM lrs_entity_chunks WHERE workspace = $1 AND entity = $2 AND chunk_id = ANY($3)",
                    )
                    .bind(ws)
                    .bind(name)
                    .bind(ids)
                    .execute(&mut *conn)
                    .await
                }
                GraphKey::Relation(k) => {
                    sqlx::query(
                        "DELETE FROM lrs_relation_chunks WHERE workspace = $1 AND src = $2 AND tgt = $3 \
                     AND chunk_id = ANY($4)",
                    )
                    .bind(ws)
                    .bind(&k.src)
                    .bind(&k.tgt)
                    .bind(ids)
                    .execute(&mut *conn)
                    .await
                }
            }
            .map_err(db_err)?
            .rows_affected();
            tally.add(owner, -(to_i64(removed)));
        }
        ChunkListEdit::Replace(ids) => {
            match &owner {
                GraphKey::Entity(name) => {
                    sqlx::query("DELETE FROM lrs_entity_chunks WHERE workspace = $1 AND entity = $2")
                        .bind(ws)
                        .bind(name)
                        .execute(&mut *conn)
                        .await
                }
                GraphKey::Relation(k) => {
                    sqlx::query("DELETE FROM lrs_relation_chunks WHERE workspace = $1 AND src = $2 AND tgt = $3")
                        .bind(ws)
                        .bind(&k.src)
                        .bind(&k.tgt)
                        .execute(&mut *conn)
                        .await
                }
            }
            .map_err(db_err)?;
            let added = append(conn, ws, &owner, ids).await?;
            tally.set(owner, added);
        }
    }
    Ok(())
}

/// Appends the ids not listed yet after the last one, in one statement; returns how many were
/// added. (`ord` leaves a gap where a listed id was skipped; only the order matters.)
async fn append(conn: &mut PgConnection, ws: &str, owner: &GraphKey, ids: &[String]) -> Result<i64, StoreError> {
    let ids = first_of_each(ids);
    if ids.is_empty() {
        return Ok(0);
    }
    let added = match owner {
        GraphKey::Entity(name) => {
            sqlx::query(
                "INSERT INTO lrs_entity_chunks (workspace, entity, ord, chunk_id) \
             SELECT $1, $2, base.last + u.i, u.c \
             FROM unnest($3::text[]) WITH ORDINALITY AS u(c, i), \
                  (SELECT coalesce(max(ord), -1) AS last FROM lrs_entity_chunks \
                   WHERE workspace = $1 AND entity = $2) AS base \
             ORDER BY u.i ON CONFLICT DO NOTHING",
            )
            .bind(ws)
            .bind(name)
            .bind(&ids)
            .execute(&mut *conn)
            .await
        }
        GraphKey::Relation(k) => {
            sqlx::query(
                "INSERT INTO lrs_relation_chunks (workspace, src, tgt, ord, chunk_id) \
             SELECT $1, $2, $3, base.last + u.i, u.c \
             FROM unnest($4::text[]) WITH ORDINALITY AS u(c, i), \
                  (SELECT coalesce(max(ord), -1) AS last FROM lrs_relation_chunks \
                   WHERE workspace = $1 AND src = $2 AND tgt = $3) AS base \
             ORDER BY u.i ON CONFLICT DO NOTHING",
            )
            .bind(ws)
            .bind(&k.src)
            .bind(&k.tgt)
            .bind(&ids)
            .execute(&mut *conn)
            .await
        }
    }
    .map_err(db_err)?
    .rows_affected();
    Ok(to_i64(added))
}

/// Takes the given chunks out of every list that holds them.
pub(crate) async fn remove_chunks_everywhere(
    conn: &mut PgConnection,
    ws: &str,
    chunk_ids: &[String],
    tally: &mut ListTally,
) -> Result<(), StoreError> {
    if chunk_ids.is_empty() {
        return Ok(());
    }
    let entities: Vec<String> = sqlx::query_scalar(
        "DELETE FROM lrs_entity_chunks WHERE workspace = $1 AND chunk_id = ANY($2) RETURNING entity",
    )
    .bind(ws)
    .bind(chunk_ids)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    for name in entities {
        tally.add(GraphKey::Entity(name), -1);
    }
    let relations =
        sqlx::query("DELETE FROM lrs_relation_chunks WHERE workspace = $1 AND chunk_id = ANY($2) RETURNING src, tgt")
            .bind(ws)
            .bind(chunk_ids)
            .fetch_all(&mut *conn)
            .await
            .map_err(db_err)?;
    for r in relations {
        let key = RelKey { src: r.try_get(0).map_err(db_err)?, tgt: r.try_get(1).map_err(db_err)? };
        tally.add(GraphKey::Relation(key), -1);
    }
    Ok(())
}

/// A part of one list, in list order.
pub(crate) async fn read(
    conn: &mut PgConnection,
    ws: &str,
    owner: &GraphKey,
    range: ListRange,
) -> Result<Vec<String>, StoreError> {
    let owner = canonical_owner(owner);
    let order = if range.from_end { "DESC" } else { "ASC" };
    let (limit, offset) = (to_i64(range.limit as u64), to_i64(range.offset as u64));
    let mut ids: Vec<String> = match &owner {
        GraphKey::Entity(name) => {
            let sql = format!(
                "SELECT chunk_id FROM lrs_entity_chunks WHERE workspace = $1 AND entity = $2 \
                 ORDER BY ord {order} LIMIT $3 OFFSET $4"
            );
            sqlx::query_scalar(AssertSqlSafe(sql))
                .bind(ws)
                .bind(name)
                .bind(limit)
                .bind(offset)
                .fetch_all(&mut *conn)
                .await
        }
        GraphKey::Relation(k) => {
            let sql = format!(
                "SELECT chunk_id FROM lrs_relation_chunks WHERE workspace = $1 AND src = $2 AND tgt = $3 \
                 ORDER BY ord {order} LIMIT $4 OFFSET $5"
            );
            sqlx::query_scalar(AssertSqlSafe(sql))
                .bind(ws)
                .bind(&k.src)
                .bind(&k.tgt)
                .bind(limit)
                .bind(offset)
                .fetch_all(&mut *conn)
                .await
        }
    }
    .map_err(db_err)?;
    if range.from_end {
        ids.reverse();
    }
    Ok(ids)
}

/// The owners of the lists holding any of `chunk_ids` (for locking before a document deletion).
pub(crate) async fn owners_of(
    conn: &mut PgConnection,
    ws: &str,
    chunk_ids: &[String],
) -> Result<Vec<GraphKey>, StoreError> {
    let mut out: Vec<GraphKey> = owners(conn, ws, chunk_ids).await?.into_iter().map(|(_, o)| o).collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// `(chunk id, owner)` for every list holding one of `chunk_ids`, sorted.
pub(crate) async fn owners(
    conn: &mut PgConnection,
    ws: &str,
    chunk_ids: &[String],
) -> Result<Vec<(String, GraphKey)>, StoreError> {
    if chunk_ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = sqlx::query(
        "SELECT chunk_id, entity, NULL::text FROM lrs_entity_chunks WHERE workspace = $1 AND chunk_id = ANY($2) \
         UNION ALL \
         SELECT chunk_id, src, tgt FROM lrs_relation_chunks WHERE workspace = $1 AND chunk_id = ANY($2)",
    )
    .bind(ws)
    .bind(chunk_ids)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let chunk: String = r.try_get(0).map_err(db_err)?;
        let a: String = r.try_get(1).map_err(db_err)?;
        let b: Option<String> = r.try_get(2).map_err(db_err)?;
        let owner = match b {
            None => GraphKey::Entity(a),
            Some(tgt) => GraphKey::Relation(RelKey { src: a, tgt }),
        };
        out.push((chunk, owner));
    }
    out.sort();
    out.dedup();
    Ok(out)
}
