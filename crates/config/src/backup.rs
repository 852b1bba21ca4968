//! `lightrag backup` / `lightrag restore`: a consistent copy of a workspace's SQLite store while
//! it is in use, and putting one back (see [`lightrag_store_sqlite::backup`]). PostgreSQL
//! workspaces are backed up with PostgreSQL's own tools (`pg_dump`).

use std::path::Path;

use crate::error::AppError;
use crate::settings::Settings;

fn sqlite_only(settings: &Settings, what: &str) -> Result<(), AppError> {
    if settings.postgres.is_some() {
        return Err(AppError::Config(crate::ConfigError::Conflict(format!(
            "{what} copies a SQLite store; this workspace lives in PostgreSQL: use pg_dump / pg_restore \
             (the lrs_* tables, filtered by the workspace column)"
        ))));
    }
    Ok(())
}

/// Writes a consistent copy of the workspace's store to `dest` (a new file); its size in bytes.
pub fn backup_store(settings: &Settings, dest: &Path) -> Result<u64, AppError> {
    sqlite_only(settings, "backup")?;
    let path = settings.store_path();
    lightrag_store_sqlite::backup::backup(&path, dest).map_err(|source| AppError::Store { path, source })
}

/// Puts the backup at `from` in place of the workspace's store (an existing one only when
/// `replace`). Nothing may be using the store.
pub fn restore_store(settings: &Settings, from: &Path, replace: bool) -> Result<(), AppError> {
    sqlite_only(settings, "restore")?;
    let path = settings.store_path();
    lightrag_store_sqlite::backup::restore(from, &path, replace).map_err(|source| AppError::Store { path, source })
}
