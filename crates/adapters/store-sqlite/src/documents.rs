//! Documents and their status rows: enqueue with duplicate detection, listings, claims, leases.

use std::collections::BTreeMap;

use lightrag_ports::backend::{Admit, Stored};
use lightrag_ports::store::NewDocument;
use lightrag_ports::{
    ClaimRequest, DocFilter, DocSort, DocStatus, DocStatusRecord, Document, EnqueueOutcome, PreviousVersion, StoreError,
};
use lightrag_ports::{EnqueueLimits, Footprint};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params, params_from_iter};

use crate::codec::{db_err, from_json, json_col, row_err, to_i64, to_json, unsigned};

const STATUS_COLUMNS: &str = "id, status, file_path, track_id, content_summary, content_length, content_hash, \
     chunks_count, chunks_list, error_msg, metadata, created_at, updated_at, lease_owner, lease_until";

/// Reads a status row selected with [`STATUS_COLUMNS`].
fn status_from_row(r: &Row<'_>) -> rusqlite::Result<DocStatusRecord> {
    let status: String = r.get(1)?;
    let chunks_list: String = r.get(8)?;
    let metadata: String = r.get(10)?;
    Ok(DocStatusRecord {
        id: r.get(0)?,
        status: status.parse().map_err(crate::codec::conv_err)?,
        file_path: r.get(2)?,
        track_id: r.get(3)?,
        content_summary: r.get(4)?,
        content_length: unsigned(r.get(5)?, "content_length")? as usize,
        content_hash: r.get(6)?,
        chunks_count: r.get::<_, Option<i64>>(7)?.map(|v| unsigned(v, "chunks_count")).transpose()?.map(|v| v as usize),
        chunks_list: json_col(&chunks_list, "chunks_list")?,
        error_msg: r.get(9)?,
        metadata: json_col(&metadata, "metadata")?,
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
        lease_owner: r.get(13)?,
        lease_until: r.get(14)?,
    })
}

/// Writes (replaces) a whole status row.
pub(crate) fn put_status(conn: &Connection, s: &DocStatusRecord) -> Result<(), StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "INSERT OR REPLACE INTO doc_status (id, status, file_path, track_id, content_summary, content_length, \
             content_hash, chunks_count, chunks_list, error_msg, metadata, created_at, updated_at, lease_owner, \
             lease_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        )
        .map_err(db_err)?;
    stmt.execute(params![
        s.id,
        s.status.as_str(),
        s.file_path,
        s.track_id,
        s.content_summary,
        to_i64(s.content_length as u64),
        s.content_hash,
        s.chunks_count.map(|c| to_i64(c as u64)),
        to_json(&s.chunks_list)?,
        s.error_msg,
        to_json(&s.metadata)?,
        s.created_at,
        s.updated_at,
        s.lease_owner,
        s.lease_until,
    ])
    .map_err(db_err)?;
    Ok(())
}

/// One status row.
pub(crate) fn get_status(conn: &Connection, id: &str) -> Result<Option<DocStatusRecord>, StoreError> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {STATUS_COLUMNS} FROM doc_status WHERE id = ?1")).map_err(db_err)?;
    stmt.query_row([id], status_from_row).optional().map_err(row_err)
}

/// A document's full text.
pub(crate) fn get_document(conn: &Connection, id: &str) -> Result<Option<Document>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT id, content, file_path, content_hash, chunking, created_at FROM documents WHERE id = ?1",
        )
        .map_err(db_err)?;
    let row = stmt
        .query_row([id], |r| {
            Ok((r.get::<_, String>(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get::<_, String>(4)?, r.get(5)?))
        })
        .optional()
        .map_err(db_err)?;
    match row {
        None => Ok(None),
        Some((id, content, file_path, content_hash, chunking, created_at)) => Ok(Some(Document {
            id,
            content,
            file_path,
            content_hash,
            chunking: from_json(&chunking, "chunking")?,
            created_at,
        })),
    }
}

pub(crate) fn put_document(conn: &Connection, d: &Document) -> Result<(), StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "INSERT OR REPLACE INTO documents (id, content, file_path, content_hash, chunking, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .map_err(db_err)?;
    stmt.execute(params![d.id, d.content, d.file_path, d.content_hash, to_json(&d.chunking)?, d.created_at])
        .map_err(db_err)?;
    Ok(())
}

/// The id of a stored document with this content hash, if any.
fn doc_with_hash(conn: &Connection, hash: &str) -> Result<Option<String>, StoreError> {
    let mut stmt = conn
        .prepare_cached("SELECT id FROM documents WHERE content_hash = ?1 ORDER BY created_at, id LIMIT 1")
        .map_err(db_err)?;
    stmt.query_row([hash], |r| r.get(0)).optional().map_err(db_err)
}

fn doc_exists(conn: &Connection, id: &str) -> Result<bool, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT 1 FROM documents WHERE id = ?1").map_err(db_err)?;
    stmt.exists([id]).map_err(db_err)
}

/// Stores documents as pending (or records duplicates, or refuses them) in one transaction: the
/// write lock is taken first (`BEGIN IMMEDIATE`), so each decision ([`NewDocument::admit`]) sees
/// every enqueue that committed before it, in this process or another.
/// Within `limits`, the knowledge base is measured before and after the writes, in the same
/// transaction; a request that grows it past a limit is rolled back whole.
pub(crate) fn enqueue(
    conn: &mut Connection,
    docs: &[NewDocument],
    limits: &EnqueueLimits,
) -> Result<Vec<EnqueueOutcome>, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    let before = if limits.is_none() { None } else { Some(footprint(&tx)?) };
    let mut out = Vec::with_capacity(docs.len());
    for new in docs {
        let doc = &new.document;
        let row = get_status(&tx, &doc.id)?;
        let text = row.is_none() && doc_exists(&tx, &doc.id)?;
        let other = doc_with_hash(&tx, &doc.content_hash)?.filter(|other| *other != doc.id);
        let other_row = match &other {
            Some(other) => get_status(&tx, other)?,
            None => None,
        };
        let stored =
            Stored { row: row.as_ref(), text, same_content: other.as_deref().map(|o| (o, other_row.as_ref())) };
        match new.admit(stored) {
            Admit::New => {
                put_document(&tx, doc)?;
                put_status(&tx, &new.pending_row())?;
                out.push(EnqueueOutcome::Enqueued { doc_id: doc.id.clone() });
            }
            Admit::Replace { row: replacement, keep_previous, outcome } => {
                if keep_previous && let Some(existing) = &row {
                    keep_previous_version(&tx, existing)?;
                }
                let created_at = row.as_ref().map_or(doc.created_at, |r| r.created_at);
                put_document(&tx, &Document { created_at, ..doc.clone() })?;
                put_status(&tx, &replacement)?;
                out.push(outcome);
            }
            Admit::Record { row, outcome } => {
                put_status(&tx, &row)?;
                out.push(outcome);
            }
            Admit::Refuse(outcome) => out.push(outcome),
        }
    }
    if let Some(before) = before {
        // dropping `tx` on the error rolls the whole request back
        limits.check(before, footprint(&tx)?)?;
    }
    tx.commit().map_err(db_err)?;
    Ok(out)
}

/// What the knowledge base holds: documents with text, and the text's bytes (`octet_length`
/// reads the size from the record header, not the text).
pub(crate) fn footprint(conn: &Connection) -> Result<Footprint, StoreError> {
    let mut stmt = conn
        .prepare_cached("SELECT COUNT(*), COALESCE(SUM(octet_length(content)), 0) FROM documents")
        .map_err(db_err)?;
    let (documents, bytes): (i64, i64) = stmt.query_row([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(db_err)?;
    Ok(Footprint { documents: documents.max(0).unsigned_abs(), bytes: bytes.max(0).unsigned_abs() })
}

/// Keeps the stored text and status row of `existing` as its previous version (replacing one
/// kept before).
fn keep_previous_version(conn: &Connection, existing: &DocStatusRecord) -> Result<(), StoreError> {
    let Some(text) = get_document(conn, &existing.id)? else {
        // nothing to keep: the text went missing; a failed replacement then stays failed
        return Ok(());
    };
    let mut stmt = conn
        .prepare_cached(
            "INSERT OR REPLACE INTO previous_versions (id, content, file_path, content_hash, chunking, created_at, \
             status_row) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .map_err(db_err)?;
    stmt.execute(params![
        text.id,
        text.content,
        text.file_path,
        text.content_hash,
        to_json(&text.chunking)?,
        text.created_at,
        to_json(existing)?,
    ])
    .map_err(db_err)?;
    Ok(())
}

/// The previous version kept for `id` (see [`PreviousVersion`]).
pub(crate) fn previous_version(conn: &Connection, id: &str) -> Result<Option<PreviousVersion>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT id, content, file_path, content_hash, chunking, created_at, status_row FROM previous_versions \
             WHERE id = ?1",
        )
        .map_err(db_err)?;
    let row = stmt
        .query_row([id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, i64>(5)?,
                r.get::<_, String>(6)?,
            ))
        })
        .optional()
        .map_err(db_err)?;
    let Some((id, content, file_path, content_hash, chunking, created_at, status_row)) = row else {
        return Ok(None);
    };
    Ok(Some(PreviousVersion {
        document: Document {
            id,
            content,
            file_path,
            content_hash,
            chunking: from_json(&chunking, "chunking")?,
            created_at,
        },
        status: from_json(&status_row, "status_row")?,
    }))
}

/// Drops the previous version kept for `id`, if any.
pub(crate) fn drop_previous_version(conn: &Connection, id: &str) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM previous_versions WHERE id = ?1")
        .and_then(|mut s| s.execute([id]))
        .map_err(db_err)?;
    Ok(())
}

fn order_by(sort: DocSort) -> &'static str {
    match sort {
        DocSort::UpdatedDesc => "updated_at DESC, id DESC",
        DocSort::UpdatedAsc => "updated_at ASC, id ASC",
        DocSort::CreatedDesc => "created_at DESC, id DESC",
        DocSort::CreatedAsc => "created_at ASC, id ASC",
        DocSort::IdAsc => "id ASC",
        DocSort::IdDesc => "id DESC",
        DocSort::FilePathAsc => "file_path ASC, id ASC",
        DocSort::FilePathDesc => "file_path DESC, id DESC",
    }
}

/// Status rows matching a filter, plus the total before paging.
pub(crate) fn list_docs(conn: &Connection, f: &DocFilter) -> Result<(Vec<DocStatusRecord>, usize), StoreError> {
    // One read transaction, so the total and the page come from the same snapshot.
    let tx = conn.unchecked_transaction().map_err(db_err)?;
    let (docs, total) = list_docs_in(&tx, f)?;
    tx.finish().map_err(db_err)?;
    Ok((docs, total))
}

fn list_docs_in(conn: &Connection, f: &DocFilter) -> Result<(Vec<DocStatusRecord>, usize), StoreError> {
    let mut conds = Vec::new();
    let mut params: Vec<Value> = Vec::new();
    if !f.statuses.is_empty() {
        conds.push(format!("status IN ({})", crate::codec::placeholders(f.statuses.len())));
        params.extend(f.statuses.iter().map(|s| Value::Text(s.as_str().to_string())));
    }
    if let Some(track) = &f.track_id {
        conds.push("track_id = ?".to_string());
        params.push(Value::Text(track.clone()));
    }
    let where_sql = if conds.is_empty() { String::new() } else { format!("WHERE {}", conds.join(" AND ")) };
    let total: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM doc_status {where_sql}"))
        .and_then(|mut s| s.query_row(params_from_iter(params.iter()), |r| r.get(0)))
        .map_err(db_err)?;
    let limit = f.limit.map(|l| to_i64(l as u64)).unwrap_or(-1);
    let sql =
        format!("SELECT {STATUS_COLUMNS} FROM doc_status {where_sql} ORDER BY {} LIMIT ? OFFSET ?", order_by(f.sort));
    params.push(Value::Integer(limit));
    params.push(Value::Integer(to_i64(f.offset as u64)));
    let mut stmt = conn.prepare_cached(&sql).map_err(db_err)?;
    let rows = stmt.query_map(params_from_iter(params.iter()), status_from_row).map_err(db_err)?;
    let docs = rows.collect::<Result<Vec<_>, _>>().map_err(row_err)?;
    Ok((docs, total.max(0) as usize))
}

/// Number of status rows per status (statuses with no rows are absent).
pub(crate) fn status_counts(conn: &Connection) -> Result<BTreeMap<DocStatus, usize>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT status, count(*) FROM doc_status GROUP BY status").map_err(db_err)?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))).map_err(db_err)?;
    let mut out = BTreeMap::new();
    for row in rows {
        let (status, n) = row.map_err(db_err)?;
        let status: DocStatus = status.parse().map_err(StoreError::Corrupt)?;
        *out.entry(status).or_insert(0) += n.max(0) as usize;
    }
    Ok(out)
}

/// Moves claimable documents to `processing` under the request's lease, oldest first.
pub(crate) fn claim(conn: &mut Connection, req: &ClaimRequest) -> Result<Vec<DocStatusRecord>, StoreError> {
    if req.limit == 0 {
        return Ok(Vec::new());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    let mut params: Vec<Value> = vec![Value::Integer(req.now)];
    let mut processing = "lease_until IS NULL OR lease_until < ?".to_string();
    if !req.dead_owners.is_empty() {
        processing.push_str(&format!(" OR lease_owner IN ({})", crate::codec::placeholders(req.dead_owners.len())));
        params.extend(req.dead_owners.iter().map(|o| Value::Text(o.clone())));
    }
    let failed = if req.include_failed {
        " OR (status = 'failed' AND coalesce(json_extract(metadata, '$.is_duplicate'), 0) = 0)"
    } else {
        ""
    };
    let mut sql = format!(
        "SELECT id FROM doc_status WHERE id NOT LIKE 'dup-%' AND (status = 'pending' \
         OR (status = 'processing' AND ({processing})){failed})"
    );
    if !req.only_ids.is_empty() {
        sql.push_str(&format!(" AND id IN ({})", crate::codec::placeholders(req.only_ids.len())));
        params.extend(req.only_ids.iter().map(|o| Value::Text(o.clone())));
    }
    sql.push_str(" ORDER BY created_at, id LIMIT ?");
    params.push(Value::Integer(to_i64(req.limit as u64)));
    let ids: Vec<String> = {
        let mut stmt = tx.prepare(&sql).map_err(db_err)?;
        let rows = stmt.query_map(params_from_iter(params.iter()), |r| r.get(0)).map_err(db_err)?;
        rows.collect::<Result<_, _>>().map_err(db_err)?
    };
    let mut out = Vec::with_capacity(ids.len());
    {
        let mut update = tx
            .prepare_cached(
                "UPDATE doc_status SET status = 'processing', lease_owner = ?1, lease_until = ?2, updated_at = ?3 \
                 WHERE id = ?4",
            )
            .map_err(db_err)?;
        for id in &ids {
            update.execute(params![req.owner, req.lease_until, req.now, id]).map_err(db_err)?;
            if let Some(row) = get_status(&tx, id)? {
                out.push(row);
            }
        }
    }
    tx.commit().map_err(db_err)?;
    Ok(out)
}

/// Extends `owner`'s leases; returns the ids it no longer holds.
pub(crate) fn renew_leases(
    conn: &mut Connection,
    owner: &str,
    ids: &[String],
    lease_until: i64,
) -> Result<Vec<String>, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    let mut lost = Vec::new();
    {
        let mut stmt = tx
            .prepare_cached(
                "UPDATE doc_status SET lease_until = ?1 WHERE id = ?2 AND status = 'processing' AND lease_owner = ?3",
            )
            .map_err(db_err)?;
        for id in ids {
            if stmt.execute(params![lease_until, id, owner]).map_err(db_err)? == 0 {
                lost.push(id.clone());
            }
        }
    }
    tx.commit().map_err(db_err)?;
    Ok(lost)
}
