//! Merge locks (`merge_locks`): entity names a process is merging, each held by one owner until
//! its time runs out. Taken all or none in one `BEGIN IMMEDIATE` transaction, so two processes
//! never hold parts of each other's sets and never wait on each other while holding.

use lightrag_ports::StoreError;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::codec::db_err;

/// Takes `owner`'s locks on `keys` until `until`, or none of them when another owner holds one
/// that has not expired at `now`.
pub(crate) fn lock_keys(
    conn: &mut Connection,
    owner: &str,
    keys: &[String],
    now: i64,
    until: i64,
) -> Result<bool, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    {
        let mut held = tx
            .prepare_cached("SELECT 1 FROM merge_locks WHERE key = ?1 AND owner <> ?2 AND until >= ?3")
            .map_err(db_err)?;
        for key in keys {
            if held.query_row(params![key, owner, now], |_| Ok(())).optional().map_err(db_err)?.is_some() {
                // dropping the transaction rolls it back: nothing was taken
                return Ok(false);
            }
        }
        let mut take = tx
            .prepare_cached(
                "INSERT INTO merge_locks (key, owner, until) VALUES (?1, ?2, ?3) \
                 ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, until = excluded.until",
            )
            .map_err(db_err)?;
        for key in keys {
            take.execute(params![key, owner, until]).map_err(db_err)?;
        }
    }
    tx.commit().map_err(db_err)?;
    Ok(true)
}

/// Releases `owner`'s locks on `keys`.
pub(crate) fn unlock_keys(conn: &mut Connection, owner: &str, keys: &[String]) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    {
        let mut release = tx.prepare_cached("DELETE FROM merge_locks WHERE key = ?1 AND owner = ?2").map_err(db_err)?;
        for key in keys {
            release.execute(params![key, owner]).map_err(db_err)?;
        }
    }
    tx.commit().map_err(db_err)
}

/// Extends `owner`'s locks on `keys` to `until`; returns how many it holds.
pub(crate) fn renew_key_locks(
    conn: &mut Connection,
    owner: &str,
    keys: &[String],
    until: i64,
) -> Result<usize, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    let mut renewed = 0;
    {
        let mut renew =
            tx.prepare_cached("UPDATE merge_locks SET until = ?1 WHERE key = ?2 AND owner = ?3").map_err(db_err)?;
        for key in keys {
            renewed += renew.execute(params![until, key, owner]).map_err(db_err)?;
        }
    }
    tx.commit().map_err(db_err)?;
    Ok(renewed)
}

/// Releases every lock held by one of `owners`.
pub(crate) fn release_locks_of(conn: &mut Connection, owners: &[String]) -> Result<usize, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
    let mut released = 0;
    {
        let mut release = tx.prepare_cached("DELETE FROM merge_locks WHERE owner = ?1").map_err(db_err)?;
        for owner in owners {
            released += release.execute(params![owner]).map_err(db_err)?;
        }
    }
    tx.commit().map_err(db_err)?;
    Ok(released)
}
