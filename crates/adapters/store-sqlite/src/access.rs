//! [`SqliteAccessStore`]: the [`AccessStore`] in its own SQLite file (`WORKING_DIR/access.sqlite`,
//! WAL, so the CLI and a running server use it at once), beside the knowledge bases.
//!
//! | table | key | holds |
//! |---|---|---|
//! | `access_principals` | `name` | kind, created, expiry, owner flag, password hash, key id (unique) and hash, revoked |
//! | `access_grants` | `(principal, workspace)` | the role |
//! | `access_audit` | row id | time (indexed), principal, workspace, action, outcome, client |

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use lightrag_ports::access::{
    AccessError, AccessStore, AuditEntry, AuditFilter, Grant, PrincipalKind, PrincipalRecord, Role,
};
use rusqlite::{Connection, OptionalExtension, Row, params};

/// The file name of the access store in the working directory.
pub const ACCESS_FILE: &str = "access.sqlite";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS access_principals (
    name TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    created INTEGER NOT NULL,
    expires INTEGER,
    owner INTEGER NOT NULL DEFAULT 0,
    password_hash TEXT,
    key_id TEXT UNIQUE,
    key_hash TEXT,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS access_grants (
    principal TEXT NOT NULL REFERENCES access_principals(name) ON DELETE CASCADE,
    workspace TEXT NOT NULL,
    role TEXT NOT NULL,
    PRIMARY KEY (principal, workspace)
);
CREATE TABLE IF NOT EXISTS access_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time INTEGER NOT NULL,
    principal TEXT NOT NULL,
    workspace TEXT NOT NULL,
    action TEXT NOT NULL,
    outcome INTEGER NOT NULL,
    client TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS access_audit_time ON access_audit(time);
";

/// The access store in one SQLite file. Cheap to clone.
#[derive(Clone)]
pub struct SqliteAccessStore {
    conn: Arc<Mutex<Connection>>,
}

fn backend(e: impl std::fmt::Display) -> AccessError {
    AccessError::Backend(e.to_string())
}

impl SqliteAccessStore {
    /// Opens (creating) the access store at `path`.
    pub fn open(path: &Path) -> Result<Self, AccessError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| AccessError::Backend(format!("cannot create {}: {e}", dir.display())))?;
        }
        let conn = Connection::open(path).map_err(|e| AccessError::Backend(format!("{}: {e}", path.display())))?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(backend)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(backend)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(backend)?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(backend)?;
        conn.execute_batch(SCHEMA).map_err(|e| AccessError::Backend(format!("{}: {e}", path.display())))?;
        Ok(Self { conn: Arc::new(Mutex::new(conn)) })
    }

    /// Runs `work` on the connection, off the async threads.
    async fn run<T, F>(&self, work: F) -> Result<T, AccessError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, AccessError> + Send + 'static,
    {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
            work(&conn)
        })
        .await
        .map_err(|e| AccessError::Backend(format!("the access store's task failed: {e}")))?
    }
}

const PRINCIPAL_COLUMNS: &str = "kind, name, created, expires, owner, password_hash, key_id, key_hash, revoked";

fn principal_row(row: &Row<'_>) -> rusqlite::Result<PrincipalRecord> {
    let kind: String = row.get(0)?;
    Ok(PrincipalRecord {
        kind: PrincipalKind::parse(&kind).unwrap_or(PrincipalKind::Key),
        name: row.get(1)?,
        created: row.get(2)?,
        expires: row.get(3)?,
        owner: row.get(4)?,
        password_hash: row.get(5)?,
        key_id: row.get(6)?,
        key_hash: row.get(7)?,
        revoked: row.get(8)?,
    })
}

fn audit_row(row: &Row<'_>) -> rusqlite::Result<AuditEntry> {
    Ok(AuditEntry {
        time: row.get(0)?,
        principal: row.get(1)?,
        workspace: row.get(2)?,
        action: row.get(3)?,
        outcome: row.get(4)?,
        client: row.get(5)?,
    })
}

fn one_principal(conn: &Connection, column: &str, value: &str) -> Result<Option<PrincipalRecord>, AccessError> {
    let sql = format!("SELECT {PRINCIPAL_COLUMNS} FROM access_principals WHERE {column} = ?1");
    conn.query_row(&sql, [value], principal_row).optional().map_err(backend)
}

#[async_trait]
impl AccessStore for SqliteAccessStore {
    async fn create_principal(&self, p: &PrincipalRecord) -> Result<(), AccessError> {
        let p = p.clone();
        self.run(move |conn| {
            let inserted = conn
                .execute(
                    "INSERT INTO access_principals (kind, name, created, expires, owner, password_hash, key_id, key_hash, revoked)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (name) DO NOTHING",
                    params![
                        p.kind.as_str(),
                        p.name,
                        p.created,
                        p.expires,
                        p.owner,
                        p.password_hash,
                        p.key_id,
                        p.key_hash,
                        p.revoked
                    ],
                )
                .map_err(backend)?;
            if inserted == 0 { Err(AccessError::Exists(p.name)) } else { Ok(()) }
        })
        .await
    }

    async fn principal(&self, name: &str) -> Result<Option<PrincipalRecord>, AccessError> {
        let name = name.to_string();
        self.run(move |conn| one_principal(conn, "name", &name)).await
    }

    async fn principal_by_key_id(&self, key_id: &str) -> Result<Option<PrincipalRecord>, AccessError> {
        let key_id = key_id.to_string();
        self.run(move |conn| one_principal(conn, "key_id", &key_id)).await
    }

    async fn principals(&self) -> Result<Vec<PrincipalRecord>, AccessError> {
        self.run(|conn| {
            let sql = format!("SELECT {PRINCIPAL_COLUMNS} FROM access_principals ORDER BY name");
            let mut stmt = conn.prepare(&sql).map_err(backend)?;
            let rows = stmt.query_map([], principal_row).map_err(backend)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(backend)
        })
        .await
    }

    async fn revoke(&self, name: &str) -> Result<bool, AccessError> {
        let name = name.to_string();
        self.run(move |conn| {
            let n =
                conn.execute("UPDATE access_principals SET revoked = 1 WHERE name = ?1", [&name]).map_err(backend)?;
            Ok(n > 0)
        })
        .await
    }

    async fn remove_principal(&self, name: &str) -> Result<bool, AccessError> {
        let name = name.to_string();
        self.run(move |conn| {
            conn.execute("DELETE FROM access_grants WHERE principal = ?1", [&name]).map_err(backend)?;
            let n = conn.execute("DELETE FROM access_principals WHERE name = ?1", [&name]).map_err(backend)?;
            Ok(n > 0)
        })
        .await
    }

    async fn set_owner(&self, name: &str, owner: bool) -> Result<bool, AccessError> {
        let name = name.to_string();
        self.run(move |conn| {
            let n = conn
                .execute("UPDATE access_principals SET owner = ?2 WHERE name = ?1", params![name, owner])
                .map_err(backend)?;
            Ok(n > 0)
        })
        .await
    }

    async fn grant(&self, principal: &str, workspace: &str, role: Role) -> Result<(), AccessError> {
        let (principal, workspace) = (principal.to_string(), workspace.to_string());
        self.run(move |conn| {
            let n = conn
                .execute(
                    "INSERT INTO access_grants (principal, workspace, role)
                     SELECT name, ?2, ?3 FROM access_principals WHERE name = ?1
                     ON CONFLICT (principal, workspace) DO UPDATE SET role = excluded.role",
                    params![principal, workspace, role.as_str()],
                )
                .map_err(backend)?;
            if n == 0 { Err(AccessError::NotFound(principal)) } else { Ok(()) }
        })
        .await
    }

    async fn ungrant(&self, principal: &str, workspace: &str) -> Result<bool, AccessError> {
        let (principal, workspace) = (principal.to_string(), workspace.to_string());
        self.run(move |conn| {
            let n = conn
                .execute("DELETE FROM access_grants WHERE principal = ?1 AND workspace = ?2", [&principal, &workspace])
                .map_err(backend)?;
            Ok(n > 0)
        })
        .await
    }

    async fn grants(&self, principal: Option<&str>) -> Result<Vec<Grant>, AccessError> {
        let principal = principal.map(str::to_string);
        self.run(move |conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT principal, workspace, role FROM access_grants
                     WHERE ?1 IS NULL OR principal = ?1 ORDER BY principal, workspace",
                )
                .map_err(backend)?;
            let rows = stmt
                .query_map([&principal], |row| {
                    let role: String = row.get(2)?;
                    Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, role))
                })
                .map_err(backend)?;
            let mut grants = Vec::new();
            for row in rows {
                let (principal, workspace, role) = row.map_err(backend)?;
                let role = Role::parse(&role)
                    .ok_or_else(|| AccessError::Backend(format!("unknown role '{role}' in access_grants")))?;
                grants.push(Grant { principal, workspace, role });
            }
            Ok(grants)
        })
        .await
    }

    async fn append_audit(&self, e: &AuditEntry) -> Result<(), AccessError> {
        let e = e.clone();
        self.run(move |conn| {
            conn.execute(
                "INSERT INTO access_audit (time, principal, workspace, action, outcome, client)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![e.time, e.principal, e.workspace, e.action, e.outcome, e.client],
            )
            .map_err(backend)?;
            Ok(())
        })
        .await
    }

    async fn audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, AccessError> {
        let f = filter.clone();
        self.run(move |conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT time, principal, workspace, action, outcome, client FROM access_audit
                     WHERE (?1 IS NULL OR workspace = ?1) AND (?2 IS NULL OR principal = ?2)
                       AND (?3 IS NULL OR time >= ?3)
                     ORDER BY time DESC, id DESC LIMIT ?4",
                )
                .map_err(backend)?;
            let limit = i64::try_from(f.limit).unwrap_or(i64::MAX);
            let rows = stmt.query_map(params![f.workspace, f.principal, f.since, limit], audit_row).map_err(backend)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(backend)
        })
        .await
    }

    async fn prune_audit(&self, before: i64) -> Result<u64, AccessError> {
        self.run(move |conn| {
            let n = conn.execute("DELETE FROM access_audit WHERE time < ?1", [before]).map_err(backend)?;
            Ok(n as u64)
        })
        .await
    }
}
