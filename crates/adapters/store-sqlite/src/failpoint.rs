//! Fail points between the steps of a commit, for fault-injection tests. With the `failpoints`
//! feature (test builds only), the `FAILPOINTS` environment variable arms them — e.g.
//! `FAILPOINTS="sqlite::apply::entities=1*return(crash)"` aborts the process once that step has
//! run inside the open transaction (a crash between two statements), and `…=1*return` fails the
//! commit with an error instead. Without the feature [`hit`] is an empty inline function.
//!
//! The feature also simulates two states of the disk, on every connection the store opens:
//! `LIGHTRAG_SQLITE_MAX_PAGES=N` sets `PRAGMA max_page_count=N`, so that a write growing the file
//! past N pages fails with `SQLITE_FULL` exactly as on a full disk (SQLite never lowers the limit
//! below the current size: N=1 means "not one page more"); `LIGHTRAG_SQLITE_READ_ONLY=1` opens the
//! file read-only, so that writes fail with `SQLITE_READONLY` as on a write-protected file (which
//! `chmod` cannot produce for root). Without the feature these variables are not read.

use lightrag_ports::StoreError;
use rusqlite::{Connection, OpenFlags};

/// The commit steps that have a fail point after them, in order (`sqlite::apply::<step>`).
pub const APPLY_STEPS: [&str; 11] = [
    "checks",
    "deletions",
    "documents",
    "chunks",
    "extractions",
    "entities",
    "relations",
    "chunk_lists",
    "vectors",
    "links",
    "before_commit",
];

/// Passes the fail point `sqlite::apply::<step>`: aborts the process when armed with
/// `return(crash)`, returns an error when armed with `return`, else nothing.
#[cfg(feature = "failpoints")]
pub(crate) fn hit(step: &str) -> Result<(), StoreError> {
    static SETUP: std::sync::Once = std::sync::Once::new();
    // reads FAILPOINTS once per process; the scenario stays configured until the process ends
    SETUP.call_once(|| std::mem::forget(fail::FailScenario::setup()));
    let name = format!("sqlite::apply::{step}");
    fail::fail_point!(&name, |arg: Option<String>| {
        if arg.as_deref() == Some("crash") {
            std::process::abort();
        }
        Err(StoreError::backend(format!("fail point {name} fired")))
    });
    Ok(())
}

/// Without the `failpoints` feature: nothing.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn hit(_step: &str) -> Result<(), StoreError> {
    Ok(())
}

/// The flags to open the store's file with: read-only when `LIGHTRAG_SQLITE_READ_ONLY` is set.
#[cfg(feature = "failpoints")]
pub(crate) fn open_flags(flags: OpenFlags) -> OpenFlags {
    if std::env::var_os("LIGHTRAG_SQLITE_READ_ONLY").is_some_and(|v| !v.is_empty() && v != "0") {
        (flags - OpenFlags::SQLITE_OPEN_READ_WRITE - OpenFlags::SQLITE_OPEN_CREATE) | OpenFlags::SQLITE_OPEN_READ_ONLY
    } else {
        flags
    }
}

/// Without the `failpoints` feature: `flags` unchanged.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn open_flags(flags: OpenFlags) -> OpenFlags {
    flags
}

/// Applies `LIGHTRAG_SQLITE_MAX_PAGES` to a connection just opened.
#[cfg(feature = "failpoints")]
pub(crate) fn on_open(conn: &Connection) -> rusqlite::Result<()> {
    let pages = std::env::var("LIGHTRAG_SQLITE_MAX_PAGES").ok().and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(pages) = pages {
        // the pragma answers with the limit now in force
        conn.query_row(&format!("PRAGMA max_page_count={pages}"), [], |_| Ok(()))?;
    }
    Ok(())
}

/// Without the `failpoints` feature: nothing.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn on_open(_conn: &Connection) -> rusqlite::Result<()> {
    Ok(())
}
