//! The PostgreSQL store's settings: chosen by `DATABASE_URL`, or by LightRAG's storage selectors
//! naming a PostgreSQL backend (`LIGHTRAG_KV_STORAGE=PGKVStorage`, … — any `PG…` value), with the
//! connection from LightRAG's `POSTGRES_*` settings. Without either, the store is the SQLite file.

use std::path::PathBuf;
use std::time::Duration;

use lightrag_ports::StoreError;
use lightrag_store_postgres::{PgConnectOptions, PgSslMode, PostgresOptions};

use crate::error::ConfigError;
use crate::parse::Reader;
use crate::secret::Secret;

type Result<T> = std::result::Result<T, ConfigError>;

/// LightRAG's storage selectors; a `PG…` value in any of them selects PostgreSQL.
pub const STORAGE_SELECTORS: [&str; 4] =
    ["LIGHTRAG_KV_STORAGE", "LIGHTRAG_DOC_STATUS_STORAGE", "LIGHTRAG_GRAPH_STORAGE", "LIGHTRAG_VECTOR_STORAGE"];

/// The `POSTGRES_*` settings this build reads (the others are named in the start-up warning).
pub const READ_POSTGRES: [&str; 14] = [
    "POSTGRES_HOST",
    "POSTGRES_PORT",
    "POSTGRES_USER",
    "POSTGRES_PASSWORD",
    "POSTGRES_DATABASE",
    "POSTGRES_WORKSPACE",
    "POSTGRES_MAX_CONNECTIONS",
    "POSTGRES_ACQUIRE_TIMEOUT",
    "POSTGRES_HNSW_M",
    "POSTGRES_HNSW_EF",
    "POSTGRES_SSL_MODE",
    "POSTGRES_SSL_ROOT_CERT",
    "POSTGRES_SSL_CERT",
    "POSTGRES_SSL_KEY",
];

/// Whether a storage selector's value names a PostgreSQL backend (`PGKVStorage`, …).
pub fn is_postgres_backend(value: &str) -> bool {
    value.trim().get(..2).is_some_and(|p| p.eq_ignore_ascii_case("pg"))
}

/// Whether `url` is a PostgreSQL URL (`postgres://…` or `postgresql://…`).
pub fn is_postgres_url(url: &str) -> bool {
    let url = url.trim();
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Where the PostgreSQL store is and how it is used.
#[derive(Debug, Clone, PartialEq)]
pub struct PostgresSettings {
    /// `DATABASE_URL` (`postgres://user:password@host:port/database`; a URL of another kind is not
    /// read); wins over the fields below.
    pub url: Option<Secret>,
    /// `POSTGRES_HOST` (localhost).
    pub host: String,
    /// `POSTGRES_PORT` (5432).
    pub port: u16,
    /// `POSTGRES_USER` (postgres).
    pub user: String,
    /// `POSTGRES_PASSWORD`.
    pub password: Option<Secret>,
    /// `POSTGRES_DATABASE` (postgres).
    pub database: String,
    /// `POSTGRES_WORKSPACE`: the workspace used when `WORKSPACE` is empty ("default" when unset too).
    pub workspace: String,
    /// `POSTGRES_MAX_CONNECTIONS` (12): pooled connections per process (the workspaces it opens share them).
    pub max_connections: u32,
    /// `POSTGRES_ACQUIRE_TIMEOUT` (30 s, ours): how long a call waits for a free pooled connection
    /// (or for a new one to open) before it fails as transient (a server answers 503 with
    /// `Retry-After`).
    pub acquire_timeout: Duration,
    /// `POSTGRES_HNSW_M` (16).
    pub hnsw_m: usize,
    /// `POSTGRES_HNSW_EF` (200): the least `hnsw.ef_search`.
    pub hnsw_ef: usize,
    /// TLS (`POSTGRES_SSL_*`).
    pub tls: PostgresTls,
}

/// TLS to the database, with LightRAG's settings (libpq's meanings). Unset: what the URL says,
/// else `prefer` (TLS when the server offers it, unverified), as LightRAG's driver does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PostgresTls {
    /// `POSTGRES_SSL_MODE`: `disable`, `allow`, `prefer`, `require`, `verify-ca`, `verify-full`.
    pub mode: Option<String>,
    /// `POSTGRES_SSL_ROOT_CERT`: the CA certificate(s) to trust (PEM; default: the system's).
    pub root_cert: Option<PathBuf>,
    /// `POSTGRES_SSL_CERT`: a client certificate (PEM), with `POSTGRES_SSL_KEY`.
    pub cert: Option<PathBuf>,
    /// `POSTGRES_SSL_KEY`: the client certificate's private key (PEM).
    pub key: Option<PathBuf>,
}

impl PostgresTls {
    pub(crate) fn apply(&self, mut connect: PgConnectOptions) -> std::result::Result<PgConnectOptions, StoreError> {
        if let Some(mode) = &self.mode {
            let mode: PgSslMode = mode.parse().map_err(|_| {
                StoreError::Invalid(format!(
                    "POSTGRES_SSL_MODE '{mode}' is not one of disable, allow, prefer, require, verify-ca, verify-full"
                ))
            })?;
            connect = connect.ssl_mode(mode);
        }
        if let Some(path) = &self.root_cert {
            connect = connect.ssl_root_cert(path);
        }
        match (&self.cert, &self.key) {
            (Some(cert), Some(key)) => connect = connect.ssl_client_cert(cert).ssl_client_key(key),
            (None, None) => {}
            _ => {
                return Err(StoreError::Invalid(
                    "POSTGRES_SSL_CERT and POSTGRES_SSL_KEY go together: set both (a client certificate and its key) \
                     or neither"
                        .into(),
                ));
            }
        }
        Ok(connect)
    }
}

impl PostgresSettings {
    /// The store's options.
    pub fn options(&self) -> std::result::Result<PostgresOptions, StoreError> {
        let mut options = match &self.url {
            Some(url) => PostgresOptions::from_url(url.expose())?,
            None => {
                let mut connect = PgConnectOptions::new_without_pgpass()
                    .host(&self.host)
                    .port(self.port)
                    .username(&self.user)
                    .database(&self.database);
                if let Some(password) = &self.password {
                    connect = connect.password(password.expose());
                }
                PostgresOptions::new(connect)
            }
        };
        options.connect = self.tls.apply(options.connect)?;
        options.max_connections = self.max_connections;
        options.acquire_timeout = self.acquire_timeout;
        options.hnsw_m = self.hnsw_m;
        options.hnsw_ef_search = self.hnsw_ef;
        Ok(options)
    }

    /// The PostgreSQL workspace of a lightrag-rs workspace (`WORKSPACE`, or a server's
    /// `LIGHTRAG-WORKSPACE`): itself, or for the unnamed one `POSTGRES_WORKSPACE` / "default".
    pub fn workspace_for(&self, workspace: &str) -> String {
        if workspace.is_empty() { self.workspace.clone() } else { workspace.to_string() }
    }
}

/// Reads the PostgreSQL settings when PostgreSQL is selected (`None`: the SQLite store).
pub(crate) fn postgres_settings(r: Reader<'_>) -> Result<Option<PostgresSettings>> {
    // A DATABASE_URL of another kind (set for another program) is not ours to read.
    let url = r.secret("DATABASE_URL").filter(|u| is_postgres_url(u.expose()));
    let selected = STORAGE_SELECTORS.iter().any(|k| r.opt_string(k).is_some_and(|v| is_postgres_backend(&v)));
    if url.is_none() && !selected {
        return Ok(None);
    }
    let port = r.with("POSTGRES_PORT", 5432u16, "a port number (1-65535)", |s| {
        s.trim().parse::<u16>().ok().filter(|p| *p > 0)
    })?;
    let workspace = r.string("POSTGRES_WORKSPACE", "");
    Ok(Some(PostgresSettings {
        url,
        host: r.string("POSTGRES_HOST", "localhost"),
        port,
        user: r.string("POSTGRES_USER", "postgres"),
        password: r.secret("POSTGRES_PASSWORD").filter(|p| !p.expose().is_empty()),
        database: r.string("POSTGRES_DATABASE", "postgres"),
        workspace: if workspace.trim().is_empty() { "default".to_string() } else { workspace },
        max_connections: r.positive("POSTGRES_MAX_CONNECTIONS", 12u32)?,
        acquire_timeout: Duration::from_secs_f64(r.float_in("POSTGRES_ACQUIRE_TIMEOUT", 30.0, 0.1, 3600.0)?),
        hnsw_m: r.positive("POSTGRES_HNSW_M", 16usize)?,
        hnsw_ef: r.positive("POSTGRES_HNSW_EF", 200usize)?,
        tls: PostgresTls {
            mode: r
                .opt_with("POSTGRES_SSL_MODE", "disable, allow, prefer, require, verify-ca or verify-full", |s| {
                    let mode = s.trim().to_ascii_lowercase();
                    (mode.is_empty() || mode.parse::<PgSslMode>().is_ok()).then_some(mode)
                })?
                .filter(|m| !m.is_empty()),
            root_cert: r.opt_string("POSTGRES_SSL_ROOT_CERT").filter(|p| !p.trim().is_empty()).map(PathBuf::from),
            cert: r.opt_string("POSTGRES_SSL_CERT").filter(|p| !p.trim().is_empty()).map(PathBuf::from),
            key: r.opt_string("POSTGRES_SSL_KEY").filter(|p| !p.trim().is_empty()).map(PathBuf::from),
        },
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use crate::raw::RawConfig;
    use crate::settings::Settings;

    fn settings(pairs: &[(&str, &str)]) -> Result<Settings, crate::ConfigError> {
        let env = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        Settings::from_raw(&RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap())
    }

    #[test]
    fn the_sqlite_file_is_the_store_unless_postgres_is_selected() {
        assert_eq!(settings(&[("LLM_BINDING", "none"), ("LIGHTRAG_MODEL_DIR", "/m")]).unwrap().postgres, None);
        let s = settings(&[("LLM_BINDING", "none"), ("LIGHTRAG_MODEL_DIR", "/m"), ("POSTGRES_HOST", "db")]).unwrap();
        assert_eq!(s.postgres, None, "POSTGRES_* alone selects nothing (and is warned about)");
    }

    #[test]
    fn a_pg_storage_selector_reads_lightrags_postgres_settings() {
        let s = settings(&[
            ("LLM_BINDING", "none"),
            ("LIGHTRAG_MODEL_DIR", "/nonexistent"),
            ("LIGHTRAG_DOC_STATUS_STORAGE", "PGDocStatusStorage"),
            ("POSTGRES_HOST", "db.internal"),
            ("POSTGRES_PORT", "6543"),
            ("POSTGRES_USER", "rag"),
            ("POSTGRES_PASSWORD", "pw"),
            ("POSTGRES_DATABASE", "kb"),
            ("POSTGRES_MAX_CONNECTIONS", "30"),
        ])
        .unwrap();
        let pg = s.postgres.expect("PostgreSQL selected");
        assert_eq!(
            (pg.host.as_str(), pg.port, pg.user.as_str(), pg.database.as_str()),
            ("db.internal", 6543, "rag", "kb")
        );
        assert_eq!(pg.password.as_ref().map(|p| p.expose()), Some("pw"));
        assert_eq!((pg.max_connections, pg.workspace.as_str()), (30, "default"));
        assert_eq!(pg.acquire_timeout, std::time::Duration::from_secs(30), "POSTGRES_ACQUIRE_TIMEOUT's default");
        let o = pg.options().unwrap();
        assert_eq!(o.target(), "db.internal:6543/kb");
        assert_eq!(o.max_connections, 30);
        assert_eq!(pg.workspace_for(""), "default");
        assert_eq!(pg.workspace_for("team_a"), "team_a", "a named workspace keeps its name");
    }

    #[test]
    fn database_url_selects_postgres_and_wins_over_the_fields() {
        let s = settings(&[
            ("LLM_BINDING", "none"),
            ("LIGHTRAG_MODEL_DIR", "/nonexistent"),
            ("DATABASE_URL", "postgres://u:p@h:1234/d"),
            ("POSTGRES_HOST", "ignored-host"),
            ("POSTGRES_WORKSPACE", "kb1"),
        ])
        .unwrap();
        let pg = s.postgres.expect("selected");
        assert_eq!(pg.options().unwrap().target(), "h:1234/d");
        assert_eq!(pg.workspace_for(""), "kb1");
        let other = settings(&[("LLM_BINDING", "none"), ("LIGHTRAG_MODEL_DIR", "/m"), ("DATABASE_URL", "mysql://x")]);
        assert_eq!(other.unwrap().postgres, None, "another program's DATABASE_URL selects nothing");
        let bad = settings(&[
            ("LLM_BINDING", "none"),
            ("LIGHTRAG_MODEL_DIR", "/m"),
            ("DATABASE_URL", "postgres://h/d"),
            ("POSTGRES_PORT", "0"),
        ]);
        assert!(matches!(bad, Err(crate::ConfigError::Invalid { .. })), "{bad:?}");
    }
}
