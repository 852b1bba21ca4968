//! Stores named on the command line (`lightrag copy --from … --to …`): `sqlite:PATH` or a
//! PostgreSQL URL.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lightrag_ports::{Store, StoreError};
use lightrag_store_postgres::{PostgresOptions, PostgresStore};

use crate::error::AppError;
use crate::postgres::is_postgres_url;
use crate::secret::Secret;
use crate::settings::{STORE_FILE, Settings};

/// Where a store is.
#[derive(Debug, Clone, PartialEq)]
pub enum StoreLocation {
    /// A SQLite store file (`sqlite:PATH`; a folder means its `lightrag.db`).
    Sqlite(PathBuf),
    /// A PostgreSQL database (`postgres://…` or `postgresql://…`).
    Postgres(Secret),
}

impl StoreLocation {
    /// Reads `sqlite:PATH`, `postgres://…` or `postgresql://…`.
    pub fn parse(text: &str) -> Result<StoreLocation, String> {
        let text = text.trim();
        if is_postgres_url(text) {
            return Ok(StoreLocation::Postgres(Secret::new(text.to_string())));
        }
        match text.strip_prefix("sqlite:") {
            Some(path) if !path.trim().is_empty() => Ok(StoreLocation::Sqlite(sqlite_file(Path::new(path.trim())))),
            _ => Err(format!(
                "'{text}' names no store: use sqlite:PATH (a store file, or a folder holding {STORE_FILE}) or a \
                 postgres://user:password@host:port/database URL"
            )),
        }
    }

    /// For messages: the file, or the database without the password.
    pub fn describe(&self, workspace: &str) -> String {
        match self {
            StoreLocation::Sqlite(path) => path.display().to_string(),
            StoreLocation::Postgres(url) => match PostgresOptions::from_url(url.expose()) {
                Ok(options) => format!("PostgreSQL {} (workspace '{workspace}')", options.target()),
                Err(_) => format!("PostgreSQL (workspace '{workspace}')"),
            },
        }
    }
}

/// `PATH` itself when it is a file (or names one that does not exist yet with an extension),
/// otherwise the store file inside the folder `PATH`.
fn sqlite_file(path: &Path) -> PathBuf {
    if path.is_dir() || (!path.exists() && path.extension().is_none()) {
        path.join(STORE_FILE)
    } else {
        path.to_path_buf()
    }
}

/// Opens the store at `location`: an existing one unless `create`. A PostgreSQL store serves
/// `workspace` (the schema is created or migrated as by every command).
pub async fn open_store_at(
    settings: &Settings,
    location: &StoreLocation,
    workspace: &str,
    create: bool,
) -> Result<Arc<dyn Store>, AppError> {
    match location {
        StoreLocation::Sqlite(path) => {
            if !create && !path.is_file() {
                return Err(AppError::Store {
                    path: path.clone(),
                    source: StoreError::backend("no such store file (check the path after sqlite:)"),
                });
            }
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .map_err(|e| AppError::WorkingDir { path: dir.to_path_buf(), reason: e.to_string() })?;
            }
            let owned = settings.clone();
            let file = path.clone();
            tokio::task::spawn_blocking(move || crate::wiring::open_sqlite_file(&owned, &file)).await.map_err(|e| {
                AppError::Store {
                    path: path.clone(),
                    source: StoreError::backend(format!("the opening task failed: {e}")),
                }
            })?
        }
        StoreLocation::Postgres(url) => {
            let err = |source| AppError::Postgres { workspace: workspace.to_string(), source };
            let mut options = PostgresOptions::from_url(url.expose()).map_err(err)?;
            if let Some(pg) = &settings.postgres {
                options.connect = pg.tls.apply(options.connect).map_err(err)?;
                options.max_connections = pg.max_connections;
                options.acquire_timeout = pg.acquire_timeout;
                options.hnsw_m = pg.hnsw_m;
                options.hnsw_ef_search = pg.hnsw_ef;
            }
            let store = PostgresStore::connect(options, workspace).await.map_err(err)?;
            Ok(Arc::new(store))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_read_from_their_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().display().to_string();
        assert_eq!(
            StoreLocation::parse(&format!("sqlite:{folder}")).unwrap(),
            StoreLocation::Sqlite(dir.path().join(STORE_FILE))
        );
        let file = dir.path().join("kb.sqlite");
        assert_eq!(StoreLocation::parse(&format!("sqlite:{}", file.display())).unwrap(), StoreLocation::Sqlite(file));
        assert!(matches!(StoreLocation::parse("postgres://u:p@h:5/db").unwrap(), StoreLocation::Postgres(_)));
        assert!(matches!(StoreLocation::parse("postgresql://h/db").unwrap(), StoreLocation::Postgres(_)));
        for bad in ["", "sqlite:", "kb.db", "mysql://h/db"] {
            assert!(StoreLocation::parse(bad).unwrap_err().contains("sqlite:PATH"), "{bad}");
        }
    }
}
