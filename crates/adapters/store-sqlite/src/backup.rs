//! Online backup and restore of a store file, with SQLite's backup API: the copy is one
//! consistent snapshot even while other connections (a running server, workers) write, and
//! writers are not stopped meanwhile (WAL mode: the backup reads one snapshot).
//!
//! The vector-index snapshots beside the database (`<file>.vectors/`) are a cache: a backup
//! leaves them out, and a restore removes the target's, so the indexes are rebuilt from the
//! restored vectors when the store is next opened.

use std::path::{Path, PathBuf};

use lightrag_ports::StoreError;
use rusqlite::{Connection, OpenFlags};

fn backend<E: std::error::Error + Send + Sync + 'static>(what: &str, path: &Path, e: E) -> StoreError {
    StoreError::backend_caused(format!("{what} {}: {e}", path.display()), e)
}

/// The vector snapshot folder of a store file.
fn snapshots_of(store: &Path) -> PathBuf {
    let mut name = store.as_os_str().to_owned();
    name.push(".vectors");
    PathBuf::from(name)
}

/// Copies the store at `store` into a new file at `dest` (refused if `dest` exists), as one
/// consistent snapshot, and checks the copy (`PRAGMA integrity_check`). Returns its size in bytes.
pub fn backup(store: &Path, dest: &Path) -> Result<u64, StoreError> {
    if !store.is_file() {
        return Err(StoreError::backend(format!("there is no store at {}", store.display())));
    }
    if dest.exists() {
        return Err(StoreError::backend(format!(
            "{} exists; choose a new file name (a backup never overwrites)",
            dest.display()
        )));
    }
    let source = Connection::open_with_flags(store, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| backend("cannot open", store, e))?;
    let partial = dest.with_extension("partial");
    let _ = std::fs::remove_file(&partial);
    let result = (|| {
        let mut target = Connection::open(&partial).map_err(|e| backend("cannot create", &partial, e))?;
        {
            let copy =
                rusqlite::backup::Backup::new(&source, &mut target).map_err(|e| backend("cannot back up", store, e))?;
            // all pages in one step: one read snapshot, never restarted by concurrent writers
            copy.step(-1).map_err(|e| backend("backup of", store, e))?;
        }
        target.execute_batch("PRAGMA journal_mode = DELETE;").map_err(|e| backend("cannot finish", &partial, e))?;
        check(&target, &partial)?;
        drop(target);
        std::fs::rename(&partial, dest).map_err(|e| backend("cannot move the backup to", dest, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result?;
    std::fs::metadata(dest).map(|m| m.len()).map_err(|e| backend("cannot read", dest, e))
}

/// Replaces the store at `store` with the backup at `from` (checked first). The store must not be
/// in use: stop servers and workers on it. An existing store is replaced only with `replace`.
pub fn restore(from: &Path, store: &Path, replace: bool) -> Result<(), StoreError> {
    let backup = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| backend("cannot open the backup", from, e))?;
    check(&backup, from)?;
    drop(backup);
    if store.exists() && !replace {
        return Err(StoreError::backend(format!(
            "{} exists; stop what uses it and pass --force to replace it with the backup",
            store.display()
        )));
    }
    if let Some(dir) = store.parent() {
        std::fs::create_dir_all(dir).map_err(|e| backend("cannot create", dir, e))?;
    }
    let partial = store.with_extension("restoring");
    std::fs::copy(from, &partial).map_err(|e| backend("cannot copy the backup to", &partial, e))?;
    for stale in ["-wal", "-shm"] {
        let mut name = store.as_os_str().to_owned();
        name.push(stale);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
    let snapshots = snapshots_of(store);
    if snapshots.exists() {
        std::fs::remove_dir_all(&snapshots)
            .map_err(|e| backend("cannot remove the stale vector snapshots", &snapshots, e))?;
    }
    std::fs::rename(&partial, store).map_err(|e| backend("cannot put the backup in place at", store, e))
}

fn check(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let verdict: String =
        conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).map_err(|e| backend("cannot check", path, e))?;
    if verdict == "ok" {
        Ok(())
    } else {
        Err(StoreError::Corrupt(format!("{}: integrity check says {verdict}", path.display())))
    }
}
