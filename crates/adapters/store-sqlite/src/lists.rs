//! Chunk lists of entities and relations as rows (`entity_chunks`, `relation_chunks`): ordered
//! by `ord` per owner, indexed by owner and by chunk. Edits and document deletions record how
//! each owner's list length changed in a [`ListTally`], which [`finish`] writes into the
//! records' `chunk_count` (and version) at the end of the commit — so no edit ever counts a
//! whole list.

use lightrag_ports::backend::{ListTally, canonical_owner};
use lightrag_ports::{ChunkListEdit, GraphKey, ListRange, RelKey, StoreError};
use rusqlite::{Connection, params};

use crate::codec::{db_err, query_in, to_i64};

/// Writes a commit's new chunk counts, and one version more for every record whose list changed
/// but that the commit did not write.
pub(crate) fn finish(tally: ListTally, conn: &Connection) -> Result<(), StoreError> {
    for c in tally.into_changes() {
        let (base, delta, bump) = (c.base, c.delta, i64::from(c.bump_version));
        match c.owner {
            GraphKey::Entity(name) => conn
                .prepare_cached(
                    "UPDATE entities SET chunk_count = max(0, coalesce(?2, chunk_count) + ?3), \
                     version = version + ?4 WHERE name = ?1",
                )
                .and_then(|mut s| s.execute(params![name, base, delta, bump])),
            GraphKey::Relation(key) => conn
                .prepare_cached(
                    "UPDATE relations SET chunk_count = max(0, coalesce(?3, chunk_count) + ?4), \
                     version = version + ?5 WHERE src = ?1 AND tgt = ?2",
                )
                .and_then(|mut s| s.execute(params![key.src, key.tgt, base, delta, bump])),
        }
        .map_err(db_err)?;
    }
    Ok(())
}

/// Applies one edit.
pub(crate) fn edit(
    conn: &Connection,
    owner: &GraphKey,
    edit: &ChunkListEdit,
    tally: &mut ListTally,
) -> Result<(), StoreError> {
    let owner = canonical_owner(owner);
    match edit {
        ChunkListEdit::Append(ids) => {
            let added = append(conn, &owner, ids)?;
            tally.add(owner, added);
        }
        ChunkListEdit::Remove(ids) => {
            let mut removed = 0;
            for id in ids {
                removed += remove_one(conn, &owner, id)?;
            }
            tally.add(owner, -removed);
        }
        ChunkListEdit::Replace(ids) => {
            match &owner {
                GraphKey::Entity(name) => conn
                    .prepare_cached("DELETE FROM entity_chunks WHERE entity = ?1")
                    .and_then(|mut s| s.execute([name])),
                GraphKey::Relation(k) => conn
                    .prepare_cached("DELETE FROM relation_chunks WHERE src = ?1 AND tgt = ?2")
                    .and_then(|mut s| s.execute([&k.src, &k.tgt])),
            }
            .map_err(db_err)?;
            let added = append(conn, &owner, ids)?;
            tally.set(owner, added);
        }
    }
    Ok(())
}

/// Appends the ids not listed yet after the last one; returns how many were added.
fn append(conn: &Connection, owner: &GraphKey, ids: &[String]) -> Result<i64, StoreError> {
    let last: i64 = match owner {
        GraphKey::Entity(name) => conn
            .prepare_cached("SELECT coalesce(max(ord), -1) FROM entity_chunks WHERE entity = ?1")
            .and_then(|mut s| s.query_row([name], |r| r.get(0))),
        GraphKey::Relation(k) => conn
            .prepare_cached("SELECT coalesce(max(ord), -1) FROM relation_chunks WHERE src = ?1 AND tgt = ?2")
            .and_then(|mut s| s.query_row([&k.src, &k.tgt], |r| r.get(0))),
    }
    .map_err(db_err)?;
    let mut added = 0i64;
    for id in ids {
        let ord = last + 1 + added;
        let n = match owner {
            GraphKey::Entity(name) => conn
                .prepare_cached("INSERT OR IGNORE INTO entity_chunks (entity, ord, chunk_id) VALUES (?1, ?2, ?3)")
                .and_then(|mut s| s.execute(params![name, ord, id])),
            GraphKey::Relation(k) => conn
                .prepare_cached(
                    "INSERT OR IGNORE INTO relation_chunks (src, tgt, ord, chunk_id) VALUES (?1, ?2, ?3, ?4)",
                )
                .and_then(|mut s| s.execute(params![k.src, k.tgt, ord, id])),
        }
        .map_err(db_err)?;
        added += n as i64;
    }
    Ok(added)
}

fn remove_one(conn: &Connection, owner: &GraphKey, id: &str) -> Result<i64, StoreError> {
    match owner {
        GraphKey::Entity(name) => conn
            .prepare_cached("DELETE FROM entity_chunks WHERE chunk_id = ?1 AND entity = ?2")
            .and_then(|mut s| s.execute(params![id, name])),
        GraphKey::Relation(k) => conn
            .prepare_cached("DELETE FROM relation_chunks WHERE chunk_id = ?1 AND src = ?2 AND tgt = ?3")
            .and_then(|mut s| s.execute(params![id, k.src, k.tgt])),
    }
    .map(|n| n as i64)
    .map_err(db_err)
}

/// Takes `chunk_id` out of every list that holds it.
pub(crate) fn remove_chunk_everywhere(
    conn: &Connection,
    chunk_id: &str,
    tally: &mut ListTally,
) -> Result<(), StoreError> {
    let entities: Vec<String> = conn
        .prepare_cached("DELETE FROM entity_chunks WHERE chunk_id = ?1 RETURNING entity")
        .and_then(|mut s| s.query_map([chunk_id], |r| r.get(0))?.collect())
        .map_err(db_err)?;
    for name in entities {
        tally.add(GraphKey::Entity(name), -1);
    }
    let relations: Vec<(String, String)> = conn
        .prepare_cached("DELETE FROM relation_chunks WHERE chunk_id = ?1 RETURNING src, tgt")
        .and_then(|mut s| s.query_map([chunk_id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .map_err(db_err)?;
    for (src, tgt) in relations {
        tally.add(GraphKey::Relation(RelKey { src, tgt }), -1);
    }
    Ok(())
}

/// A part of one list, in list order.
pub(crate) fn read(conn: &Connection, owner: &GraphKey, range: ListRange) -> Result<Vec<String>, StoreError> {
    let owner = canonical_owner(owner);
    let order = if range.from_end { "DESC" } else { "ASC" };
    let (limit, offset) = (to_i64(range.limit as u64), to_i64(range.offset as u64));
    let mut ids: Vec<String> = match &owner {
        GraphKey::Entity(name) => conn
            .prepare_cached(&format!(
                "SELECT chunk_id FROM entity_chunks WHERE entity = ?1 ORDER BY ord {order} LIMIT ?2 OFFSET ?3"
            ))
            .and_then(|mut s| s.query_map(params![name, limit, offset], |r| r.get(0))?.collect()),
        GraphKey::Relation(k) => conn
            .prepare_cached(&format!(
                "SELECT chunk_id FROM relation_chunks WHERE src = ?1 AND tgt = ?2 ORDER BY ord {order} \
                 LIMIT ?3 OFFSET ?4"
            ))
            .and_then(|mut s| s.query_map(params![k.src, k.tgt, limit, offset], |r| r.get(0))?.collect()),
    }
    .map_err(db_err)?;
    if range.from_end {
        ids.reverse();
    }
    Ok(ids)
}

/// `(chunk id, owner)` for every list holding one of `chunk_ids`, sorted.
pub(crate) fn owners(conn: &Connection, chunk_ids: &[String]) -> Result<Vec<(String, GraphKey)>, StoreError> {
    let mut out: Vec<(String, GraphKey)> =
        query_in(conn, "SELECT chunk_id, entity FROM entity_chunks WHERE chunk_id IN ({in})", &[], chunk_ids, |r| {
            Ok((r.get::<_, String>(0)?, GraphKey::Entity(r.get(1)?)))
        })?;
    out.extend(query_in(
        conn,
        "SELECT chunk_id, src, tgt FROM relation_chunks WHERE chunk_id IN ({in})",
        &[],
        chunk_ids,
        |r| Ok((r.get::<_, String>(0)?, GraphKey::Relation(RelKey { src: r.get(1)?, tgt: r.get(2)? }))),
    )?);
    out.sort();
    out.dedup();
    Ok(out)
}
