//! Full texts and status rows: enqueue with duplicate detection, listings, claims, leases.

use std::collections::BTreeMap;

use lightrag_ports::backend::{Admit, Stored};
use lightrag_ports::store::NewDocument;
use lightrag_ports::{
    ClaimRequest, DocFilter, DocSort, DocStatus, DocStatusRecord, Document, EnqueueOutcome, PreviousVersion, StoreError,
};
use lightrag_ports::{EnqueueLimits, Footprint};
use sqlx::postgres::PgRow;
use sqlx::{AssertSqlSafe, PgConnection, Row};

use crate::apply::{LockKey, lock_keys};
use crate::error::{db_err, from_json, to_i64, to_json, unsigned};

/// The columns [`status_from_row`] reads, in its order.
pub(crate) const STATUS_COLUMNS: &str = "id, status, file_path, track_id, content_summary, content_length, \
     content_hash, chunks_count, chunks_list, error_msg, metadata::text, created_at, updated_at, lease_owner, \
     lease_until";

/// Reads a status row selected with [`STATUS_COLUMNS`].
pub(crate) fn status_from_row(r: &PgRow) -> Result<DocStatusRecord, StoreError> {
    let status: String = r.try_get(1).map_err(db_err)?;
    let metadata: String = r.try_get(10).map_err(db_err)?;
    let chunks_count: Option<i64> = r.try_get(7).map_err(db_err)?;
    Ok(DocStatusRecord {
        id: r.try_get(0).map_err(db_err)?,
        status: status.parse().map_err(StoreError::Corrupt)?,
        file_path: r.try_get(2).map_err(db_err)?,
        track_id: r.try_get(3).map_err(db_err)?,
        content_summary: r.try_get(4).map_err(db_err)?,
        content_length: unsigned(r.try_get(5).map_err(db_err)?, "content_length")? as usize,
        content_hash: r.try_get(6).map_err(db_err)?,
        chunks_count: chunks_count.map(|v| unsigned(v, "chunks_count")).transpose()?.map(|v| v as usize),
        chunks_list: r.try_get(8).map_err(db_err)?,
        error_msg: r.try_get(9).map_err(db_err)?,
        metadata: from_json(&metadata, "metadata")?,
        created_at: r.try_get(11).map_err(db_err)?,
        updated_at: r.try_get(12).map_err(db_err)?,
        lease_owner: r.try_get(13).map_err(db_err)?,
        lease_until: r.try_get(14).map_err(db_err)?,
    })
}

/// Writes (replaces) a whole status row.
pub(crate) async fn put_status(conn: &mut PgConnection, ws: &str, s: &DocStatusRecord) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO lrs_doc_status (workspace, id, status, file_path, track_id, content_summary, content_length, \
         content_hash, chunks_count, chunks_list, error_msg, metadata, created_at, updated_at, lease_owner, \
         lease_until) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16) \
         ON CONFLICT (workspace, id) DO UPDATE SET status = excluded.status, file_path = excluded.file_path, \
         track_id = excluded.track_id, content_summary = excluded.content_summary, \
         content_length = excluded.content_length, content_hash = excluded.content_hash, \
         chunks_count = excluded.chunks_count, chunks_list = excluded.chunks_list, error_msg = excluded.error_msg, \
         metadata = excluded.metadata, created_at = excluded.created_at, updated_at = excluded.updated_at, \
         lease_owner = excluded.lease_owner, lease_until = excluded.lease_until",
    )
    .bind(ws)
    .bind(&s.id)
    .bind(s.status.as_str())
    .bind(&s.file_path)
    .bind(&s.track_id)
    .bind(&s.content_summary)
    .bind(to_i64(s.content_length as u64))
    .bind(&s.content_hash)
    .bind(s.chunks_count.map(|c| to_i64(c as u64)))
    .bind(&s.chunks_list)
    .bind(&s.error_msg)
    .bind(to_json(&s.metadata)?)
    .bind(s.created_at)
    .bind(s.updated_at)
    .bind(&s.lease_owner)
    .bind(s.lease_until)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// One status row.
pub(crate) async fn get_status(
    conn: &mut PgConnection,
    ws: &str,
    id: &str,
) -> Result<Option<DocStatusRecord>, StoreError> {
    let sql = format!("SELECT {STATUS_COLUMNS} FROM lrs_doc_status WHERE workspace = $1 AND id = $2");
    let row = sqlx::query(AssertSqlSafe(sql)).bind(ws).bind(id).fetch_optional(&mut *conn).await.map_err(db_err)?;
    row.as_ref().map(status_from_row).transpose()
}

/// A document's full text.
pub(crate) async fn get_document(conn: &mut PgConnection, ws: &str, id: &str) -> Result<Option<Document>, StoreError> {
    let row = sqlx::query(
        "SELECT id, content, file_path, content_hash, chunking::text, created_at FROM lrs_documents \
         WHERE workspace = $1 AND id = $2",
    )
    .bind(ws)
    .bind(id)
    .fetch_optional(&mut *conn)
    .await
    .map_err(db_err)?;
    let Some(r) = row else { return Ok(None) };
    let chunking: String = r.try_get(4).map_err(db_err)?;
    Ok(Some(Document {
        id: r.try_get(0).map_err(db_err)?,
        content: r.try_get(1).map_err(db_err)?,
        file_path: r.try_get(2).map_err(db_err)?,
        content_hash: r.try_get(3).map_err(db_err)?,
        chunking: from_json(&chunking, "chunking")?,
        created_at: r.try_get(5).map_err(db_err)?,
    }))
}

/// Writes (replaces) a full text.
pub(crate) async fn put_document(conn: &mut PgConnection, ws: &str, d: &Document) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO lrs_documents (workspace, id, content, file_path, content_hash, chunking, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) ON CONFLICT (workspace, id) DO UPDATE SET \
         content = excluded.content, file_path = excluded.file_path, content_hash = excluded.content_hash, \
         chunking = excluded.chunking, created_at = excluded.created_at",
    )
    .bind(ws)
    .bind(&d.id)
    .bind(&d.content)
    .bind(&d.file_path)
    .bind(&d.content_hash)
    .bind(to_json(&d.chunking)?)
    .bind(d.created_at)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// The oldest stored document with this content hash, if any.
async fn doc_with_hash(conn: &mut PgConnection, ws: &str, hash: &str) -> Result<Option<String>, StoreError> {
    sqlx::query_scalar(
        "SELECT id FROM lrs_documents WHERE workspace = $1 AND content_hash = $2 ORDER BY created_at, id LIMIT 1",
    )
    .bind(ws)
    .bind(hash)
    .fetch_optional(&mut *conn)
    .await
    .map_err(db_err)
}

async fn doc_exists(conn: &mut PgConnection, ws: &str, id: &str) -> Result<bool, StoreError> {
    let found: Option<i32> = sqlx::query_scalar("SELECT 1 FROM lrs_documents WHERE workspace = $1 AND id = $2")
        .bind(ws)
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db_err)?;
    Ok(found.is_some())
}

/// Stores documents as pending (or records duplicates, or refuses them) in one transaction. The
/// ids and content hashes are locked first, so concurrent enqueues of the same name or content —
/// in this process or another — are decided one after the other ([`NewDocument::admit`]): each
/// reads what the ones before it committed (every statement of a `READ COMMITTED` transaction
/// sees the rows committed before it started).
///
/// Within `limits`, the workspace is measured before and after the writes under one more lock (its
/// quota lock, so quota'd enqueues of one workspace are measured one after the other); a request
/// that grows it past a limit is rolled back whole.
pub(crate) async fn enqueue(
    store: &crate::PostgresStore,
    docs: &[NewDocument],
    limits: &EnqueueLimits,
) -> Result<Vec<EnqueueOutcome>, StoreError> {
    let ws: &str = &store.workspace;
    let mut tx = store.begin().await?;
    let mut keys: Vec<LockKey> = docs
        .iter()
        .flat_map(|d| [LockKey::new(ws, "doc", &d.document.id), LockKey::new(ws, "hash", &d.document.content_hash)])
        .collect();
    if !limits.is_none() {
        keys.push(LockKey::new(ws, "quota", ""));
    }
    lock_keys(&mut tx, ws, keys).await?;
    let before = if limits.is_none() { None } else { Some(footprint(&mut tx, ws).await?) };
    let mut out = Vec::with_capacity(docs.len());
    for new in docs {
        let doc = &new.document;
        let row = get_status(&mut tx, ws, &doc.id).await?;
        let text = row.is_none() && doc_exists(&mut tx, ws, &doc.id).await?;
        let other = doc_with_hash(&mut tx, ws, &doc.content_hash).await?.filter(|other| *other != doc.id);
        let other_row = match &other {
            Some(other) => get_status(&mut tx, ws, other).await?,
            None => None,
        };
        let stored =
            Stored { row: row.as_ref(), text, same_content: other.as_deref().map(|o| (o, other_row.as_ref())) };
        match new.admit(stored) {
            Admit::New => {
                put_document(&mut tx, ws, doc).await?;
                put_status(&mut tx, ws, &new.pending_row()).await?;
                out.push(EnqueueOutcome::Enqueued { doc_id: doc.id.clone() });
            }
            Admit::Replace { row: replacement, keep_previous, outcome } => {
                if keep_previous && let Some(existing) = &row {
                    keep_previous_version(&mut tx, ws, existing).await?;
                }
                let created_at = row.as_ref().map_or(doc.created_at, |r| r.created_at);
                put_document(&mut tx, ws, &Document { created_at, ..doc.clone() }).await?;
                put_status(&mut tx, ws, &replacement).await?;
                out.push(outcome);
            }
            Admit::Record { row, outcome } => {
                put_status(&mut tx, ws, &row).await?;
                out.push(outcome);
            }
            Admit::Refuse(outcome) => out.push(outcome),
        }
    }
    if let Some(before) = before {
        // dropping `tx` on the error rolls the whole request back
        limits.check(before, footprint(&mut tx, ws).await?)?;
    }
    tx.commit().await.map_err(db_err)?;
    Ok(out)
}

/// What workspace `ws` holds: documents with text, and the text's bytes (`octet_length` of a
/// stored text reads its size without decompressing it).
pub(crate) async fn footprint(conn: &mut PgConnection, ws: &str) -> Result<Footprint, StoreError> {
    let (documents, bytes): (i64, i64) = sqlx::query_as(
        "SELECT COUNT(*), COALESCE(SUM(octet_length(content)), 0)::bigint FROM lrs_documents WHERE workspace = $1",
    )
    .bind(ws)
    .fetch_one(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(Footprint { documents: documents.max(0).unsigned_abs(), bytes: bytes.max(0).unsigned_abs() })
}

/// Keeps the stored text and status row of `existing` as its previous version (replacing one
/// kept before).
async fn keep_previous_version(
    conn: &mut PgConnection,
    ws: &str,
    existing: &DocStatusRecord,
) -> Result<(), StoreError> {
    let Some(text) = get_document(conn, ws, &existing.id).await? else {
        // nothing to keep: the text went missing; a failed replacement then stays failed
        return Ok(());
    };
    sqlx::query(
        "INSERT INTO lrs_previous_versions (workspace, id, content, file_path, content_hash, chunking, created_at, \
         status_row) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::jsonb) ON CONFLICT (workspace, id) DO UPDATE SET \
         content = excluded.content, file_path = excluded.file_path, content_hash = excluded.content_hash, \
         chunking = excluded.chunking, created_at = excluded.created_at, status_row = excluded.status_row",
    )
    .bind(ws)
    .bind(&text.id)
    .bind(&text.content)
    .bind(&text.file_path)
    .bind(&text.content_hash)
    .bind(to_json(&text.chunking)?)
    .bind(text.created_at)
    .bind(to_json(existing)?)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// The previous version kept for `id` (see [`PreviousVersion`]).
pub(crate) async fn previous_version(
    conn: &mut PgConnection,
    ws: &str,
    id: &str,
) -> Result<Option<PreviousVersion>, StoreError> {
    let row = sqlx::query(
        "SELECT id, content, file_path, content_hash, chunking::text, created_at, status_row::text \
         FROM lrs_previous_versions WHERE workspace = $1 AND id = $2",
    )
    .bind(ws)
    .bind(id)
    .fetch_optional(&mut *conn)
    .await
    .map_err(db_err)?;
    let Some(r) = row else { return Ok(None) };
    let chunking: String = r.try_get(4).map_err(db_err)?;
    let status_row: String = r.try_get(6).map_err(db_err)?;
    Ok(Some(PreviousVersion {
        document: Document {
            id: r.try_get(0).map_err(db_err)?,
            content: r.try_get(1).map_err(db_err)?,
            file_path: r.try_get(2).map_err(db_err)?,
            content_hash: r.try_get(3).map_err(db_err)?,
            chunking: from_json(&chunking, "chunking")?,
            created_at: r.try_get(5).map_err(db_err)?,
        },
        status: from_json(&status_row, "status_row")?,
    }))
}

/// Drops the previous versions kept for `ids`, if any.
pub(crate) async fn drop_previous_versions(
    conn: &mut PgConnection,
    ws: &str,
    ids: &[String],
) -> Result<(), StoreError> {
    if ids.is_empty() {
        return Ok(());
    }
    sqlx::query("DELETE FROM lrs_previous_versions WHERE workspace = $1 AND id = ANY($2)")
        .bind(ws)
        .bind(ids)
        .execute(&mut *conn)
        .await
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

/// Status rows matching a filter, plus the total before paging (both from one snapshot).
pub(crate) async fn list_docs(
    store: &crate::PostgresStore,
    f: &DocFilter,
) -> Result<(Vec<DocStatusRecord>, usize), StoreError> {
    let ws: &str = &store.workspace;
    let statuses: Vec<String> = f.statuses.iter().map(|s| s.as_str().to_string()).collect();
    let filter = "workspace = $1 AND (cardinality($2::text[]) = 0 OR status = ANY($2)) \
                  AND ($3::text IS NULL OR track_id = $3)";
    let mut tx = store.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    let total: i64 = sqlx::query_scalar(AssertSqlSafe(format!("SELECT count(*) FROM lrs_doc_status WHERE {filter}")))
        .bind(ws)
        .bind(&statuses)
        .bind(&f.track_id)
        .fetch_one(&mut *tx)
        .await
        .map_err(db_err)?;
    let sql = format!(
        "SELECT {STATUS_COLUMNS} FROM lrs_doc_status WHERE {filter} ORDER BY {} LIMIT $4 OFFSET $5",
        order_by(f.sort)
    );
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(ws)
        .bind(&statuses)
        .bind(&f.track_id)
        .bind(f.limit.map(|l| to_i64(l as u64)))
        .bind(to_i64(f.offset as u64))
        .fetch_all(&mut *tx)
        .await
        .map_err(db_err)?;
    tx.commit().await.map_err(db_err)?;
    let docs = rows.iter().map(status_from_row).collect::<Result<Vec<_>, _>>()?;
    Ok((docs, total.max(0) as usize))
}

/// Number of status rows per status (statuses with no rows are absent).
pub(crate) async fn status_counts(conn: &mut PgConnection, ws: &str) -> Result<BTreeMap<DocStatus, usize>, StoreError> {
    let rows = sqlx::query("SELECT status, count(*) FROM lrs_doc_status WHERE workspace = $1 GROUP BY status")
        .bind(ws)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    let mut out = BTreeMap::new();
    for r in rows {
        let status: String = r.try_get(0).map_err(db_err)?;
        let n: i64 = r.try_get(1).map_err(db_err)?;
        let status: DocStatus = status.parse().map_err(StoreError::Corrupt)?;
        *out.entry(status).or_insert(0) += n.max(0) as usize;
    }
    Ok(out)
}

/// Moves claimable documents to `processing` under the request's lease, oldest first: one
/// statement, whose `FOR UPDATE SKIP LOCKED` makes concurrent claims take disjoint rows without
/// waiting for each other.
pub(crate) async fn claim(
    conn: &mut PgConnection,
    ws: &str,
    req: &ClaimRequest,
) -> Result<Vec<DocStatusRecord>, StoreError> {
    if req.limit == 0 {
        return Ok(Vec::new());
    }
    let sql = format!(
        "WITH picked AS ( \
           SELECT id FROM lrs_doc_status \
           WHERE workspace = $1 AND id NOT LIKE 'dup-%' \
             AND (status = 'pending' \
               OR (status = 'processing' \
                   AND (lease_until IS NULL OR lease_until < $2 OR lease_owner = ANY($3::text[]))) \
               OR ($4 AND status = 'failed' AND NOT coalesce(metadata -> 'is_duplicate' = 'true'::jsonb, false))) \
             AND (cardinality($5::text[]) = 0 OR id = ANY($5::text[])) \
           ORDER BY created_at, id LIMIT $6 \
           FOR UPDATE SKIP LOCKED) \
         UPDATE lrs_doc_status d SET status = 'processing', lease_owner = $7, lease_until = $8, updated_at = $2 \
         FROM picked WHERE d.workspace = $1 AND d.id = picked.id \
         RETURNING {}",
        STATUS_COLUMNS
            .split(", ")
            .map(|c| if c.starts_with("metadata") { "d.metadata::text".to_string() } else { format!("d.{c}") })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(ws)
        .bind(req.now)
        .bind(&req.dead_owners)
        .bind(req.include_failed)
        .bind(&req.only_ids)
        .bind(to_i64(req.limit as u64))
        .bind(&req.owner)
        .bind(req.lease_until)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    let mut out = rows.iter().map(status_from_row).collect::<Result<Vec<_>, _>>()?;
    out.sort_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
    Ok(out)
}

/// Extends `owner`'s leases; returns the ids it no longer holds (in the order asked).
pub(crate) async fn renew_leases(
    conn: &mut PgConnection,
    ws: &str,
    owner: &str,
    ids: &[String],
    lease_until: i64,
) -> Result<Vec<String>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let held: Vec<String> = sqlx::query_scalar(
        "UPDATE lrs_doc_status SET lease_until = $1 \
         WHERE workspace = $2 AND id = ANY($3) AND status = 'processing' AND lease_owner = $4 RETURNING id",
    )
    .bind(lease_until)
    .bind(ws)
    .bind(ids)
    .bind(owner)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    let held: std::collections::HashSet<String> = held.into_iter().collect();
    Ok(ids.iter().filter(|id| !held.contains(*id)).cloned().collect())
}
