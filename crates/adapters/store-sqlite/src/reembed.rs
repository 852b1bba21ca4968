//! Re-embedding (see [`lightrag_ports::reembed`]): new vectors are staged in `vectors_next`
//! (created on first use, so older binaries are unaffected) under the target recorded in
//! `meta.reembed_target`, and switched into `vectors` by one transaction.

use lightrag_ports::reembed::{check_staged, check_target, decode_target, encode_target, not_begun};
use lightrag_ports::{
    EmbeddingIdentity, PendingVector, ReembedProgress, StagedVector, StoreError, SwitchOutcome, VectorKind,
};
use lightrag_vector_index::normalise;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::codec::{db_err, meta_get, meta_set, to_i64, vector_to_blob};
use crate::vectors::{self, DIM_KEY};

/// Meta key of the target being staged.
const TARGET_KEY: &str = "reembed_target";

const CREATE: &str = "CREATE TABLE IF NOT EXISTS vectors_next (\
    kind TEXT NOT NULL, key TEXT NOT NULL, content TEXT NOT NULL, vector BLOB NOT NULL, \
    PRIMARY KEY (kind, key))";

/// Live vectors without a staged vector of their current text (of one set, or of all).
const PENDING_WHERE: &str = "FROM vectors v LEFT JOIN vectors_next n \
    ON n.kind = v.kind AND n.key = v.key AND n.content = v.content WHERE n.key IS NULL";

fn has_table(conn: &Connection) -> Result<bool, StoreError> {
    conn.query_row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vectors_next'", [], |_| Ok(()))
        .optional()
        .map(|r| r.is_some())
        .map_err(db_err)
}

/// The target being staged, if any.
pub(crate) fn target(conn: &Connection) -> Result<Option<EmbeddingIdentity>, StoreError> {
    Ok(meta_get(conn, TARGET_KEY)?.as_deref().and_then(decode_target))
}

fn progress(conn: &Connection) -> Result<ReembedProgress, StoreError> {
    let total: i64 = conn.query_row("SELECT count(*) FROM vectors", [], |r| r.get(0)).map_err(db_err)?;
    let pending: i64 = conn.query_row(&format!("SELECT count(*) {PENDING_WHERE}"), [], |r| r.get(0)).map_err(db_err)?;
    let pending = pending.max(0) as usize;
    Ok(ReembedProgress { staged: (total.max(0) as usize).saturating_sub(pending), pending })
}

/// Records `target`, keeping what is staged for it and dropping what was staged for another.
pub(crate) fn begin(conn: &mut Connection, target_id: &EmbeddingIdentity) -> Result<ReembedProgress, StoreError> {
    check_target(target_id)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    tx.execute(CREATE, []).map_err(db_err)?;
    if target(&tx)?.as_ref() != Some(target_id) {
        tx.execute("DELETE FROM vectors_next", []).map_err(db_err)?;
        meta_set(&tx, TARGET_KEY, &encode_target(target_id))?;
    }
    let out = progress(&tx)?;
    tx.commit().map_err(db_err)?;
    Ok(out)
}

/// Up to `limit` live vectors of `kind` after `after` still to embed, by key.
pub(crate) fn pending(
    conn: &Connection,
    kind: VectorKind,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<PendingVector>, StoreError> {
    if target(conn)?.is_none() || !has_table(conn)? {
        return Err(not_begun());
    }
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT v.key, v.content {PENDING_WHERE} AND v.kind = ?1 AND (?2 IS NULL OR v.key > ?2) \
             ORDER BY v.key LIMIT ?3"
        ))
        .map_err(db_err)?;
    let rows = stmt
        .query_map(params![kind.as_str(), after, to_i64(limit as u64)], |r| {
            Ok(PendingVector { key: r.get(0)?, content: r.get(1)? })
        })
        .map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(db_err)
}

/// Stages one batch in one transaction.
pub(crate) fn stage(conn: &mut Connection, kind: VectorKind, rows: &[StagedVector]) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    let Some(target_id) = target(&tx)? else { return Err(not_begun()) };
    check_staged(&target_id, kind, rows)?;
    {
        let mut stmt = tx
            .prepare_cached("INSERT OR REPLACE INTO vectors_next (kind, key, content, vector) VALUES (?1, ?2, ?3, ?4)")
            .map_err(db_err)?;
        for row in rows {
            let mut v = row.vector.clone();
            normalise(&mut v);
            stmt.execute(params![kind.as_str(), row.key, row.content, vector_to_blob(&v)]).map_err(db_err)?;
        }
    }
    tx.commit().map_err(db_err)
}

/// Switches the staged vectors in (one transaction), or says how many are missing. On a switch,
/// returns the new dimension too: the caller drops in-memory indexes of another dimension.
pub(crate) fn switch(conn: &mut Connection) -> Result<(SwitchOutcome, usize), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    let Some(target_id) = target(&tx)? else { return Err(not_begun()) };
    let missing = progress(&tx)?.pending;
    if missing > 0 {
        return Ok((SwitchOutcome::Pending(missing), target_id.dim));
    }
    let switched = tx
        .execute(
            "UPDATE vectors SET vector = (SELECT n.vector FROM vectors_next n \
             WHERE n.kind = vectors.kind AND n.key = vectors.key)",
            [],
        )
        .map_err(db_err)?;
    tx.execute("DELETE FROM vectors_next", []).map_err(db_err)?;
    tx.execute("DELETE FROM meta WHERE key = ?1", [TARGET_KEY]).map_err(db_err)?;
    meta_set(&tx, "embedding_model", &target_id.model)?;
    meta_set(&tx, DIM_KEY, &target_id.dim.to_string())?;
    // every index (this process's and others') rebuilds from the table on its next catch-up
    vectors::invalidate_indexes(&tx)?;
    tx.commit().map_err(db_err)?;
    Ok((SwitchOutcome::Switched { vectors: switched }, target_id.dim))
}
