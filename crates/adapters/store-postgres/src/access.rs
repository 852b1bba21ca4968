//! [`PostgresAccessStore`]: the [`AccessStore`] in the database of the knowledge bases, tables
//! `lightrag_access_principals`, `lightrag_access_grants` and `lightrag_access_audit` (made on
//! open when missing). Every server and CLI on the database shares them.

use async_trait::async_trait;
use lightrag_ports::access::{
    AccessError, AccessStore, AuditEntry, AuditFilter, Grant, PrincipalKind, PrincipalRecord, Role,
};
// Table names come from a prefix checked to be [a-z0-9_] (`open_with_prefix`); values are bound.
use sqlx::{AssertSqlSafe, PgPool, Row};

/// The prefix of the access tables.
pub const ACCESS_TABLE_PREFIX: &str = "lightrag_access_";

/// The access store on a PostgreSQL pool. Cheap to clone.
#[derive(Clone)]
pub struct PostgresAccessStore {
    pool: PgPool,
    principals: String,
    grants: String,
    audit: String,
}

fn backend(e: sqlx::Error) -> AccessError {
    AccessError::Backend(e.to_string())
}

type PrincipalRow = (String, String, i64, Option<i64>, bool, Option<String>, Option<String>, Option<String>, bool);

fn principal(row: PrincipalRow) -> PrincipalRecord {
    let (kind, name, created, expires, owner, password_hash, key_id, key_hash, revoked) = row;
    PrincipalRecord {
        kind: PrincipalKind::parse(&kind).unwrap_or(PrincipalKind::Key),
        name,
        created,
        expires,
        owner,
        password_hash,
        key_id,
        key_hash,
        revoked,
    }
}

const COLUMNS: &str = "kind, name, created, expires, owner, password_hash, key_id, key_hash, revoked";

impl PostgresAccessStore {
    /// The access store in the tables `lightrag_access_*` of `pool`'s database, made when missing.
    pub async fn open(pool: PgPool) -> Result<Self, AccessError> {
        Self::open_with_prefix(pool, ACCESS_TABLE_PREFIX).await
    }

    /// [`PostgresAccessStore::open`] with tables named `<prefix>principals` … (`[a-z0-9_]` only;
    /// tests use one prefix each).
    pub async fn open_with_prefix(pool: PgPool, prefix: &str) -> Result<Self, AccessError> {
        if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
            return Err(AccessError::Backend(format!("bad access table prefix '{prefix}'")));
        }
        let store = PostgresAccessStore {
            pool,
            principals: format!("{prefix}principals"),
            grants: format!("{prefix}grants"),
            audit: format!("{prefix}audit"),
        };
        let (p, g, a) = (&store.principals, &store.grants, &store.audit);
        let ddl = [
            format!(
                "CREATE TABLE IF NOT EXISTS {p} (name TEXT PRIMARY KEY, kind TEXT NOT NULL, created BIGINT NOT NULL, \
                 expires BIGINT, owner BOOLEAN NOT NULL DEFAULT FALSE, password_hash TEXT, key_id TEXT UNIQUE, \
                 key_hash TEXT, revoked BOOLEAN NOT NULL DEFAULT FALSE)"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {g} (principal TEXT NOT NULL REFERENCES {p}(name) ON DELETE CASCADE, \
                 workspace TEXT NOT NULL, role TEXT NOT NULL, PRIMARY KEY (principal, workspace))"
            ),
            format!(
                "CREATE TABLE IF NOT EXISTS {a} (id BIGSERIAL PRIMARY KEY, time BIGINT NOT NULL, principal TEXT NOT NULL, \
                 workspace TEXT NOT NULL, action TEXT NOT NULL, outcome INTEGER NOT NULL, client TEXT NOT NULL)"
            ),
            format!("CREATE INDEX IF NOT EXISTS {a}_time ON {a} (time)"),
        ];
        for statement in ddl {
            sqlx::query(AssertSqlSafe(statement)).execute(&store.pool).await.map_err(backend)?;
        }
        Ok(store)
    }

    async fn one(&self, column: &str, value: &str) -> Result<Option<PrincipalRecord>, AccessError> {
        let sql = format!("SELECT {COLUMNS} FROM {} WHERE {column} = $1", self.principals);
        let row: Option<PrincipalRow> =
            sqlx::query_as(AssertSqlSafe(sql)).bind(value).fetch_optional(&self.pool).await.map_err(backend)?;
        Ok(row.map(principal))
    }
}

#[async_trait]
impl AccessStore for PostgresAccessStore {
    async fn create_principal(&self, p: &PrincipalRecord) -> Result<(), AccessError> {
        let sql = format!(
            "INSERT INTO {} ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (name) DO NOTHING",
            self.principals
        );
        let done = sqlx::query(AssertSqlSafe(sql))
            .bind(p.kind.as_str())
            .bind(&p.name)
            .bind(p.created)
            .bind(p.expires)
            .bind(p.owner)
            .bind(&p.password_hash)
            .bind(&p.key_id)
            .bind(&p.key_hash)
            .bind(p.revoked)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        if done.rows_affected() == 0 { Err(AccessError::Exists(p.name.clone())) } else { Ok(()) }
    }

    async fn principal(&self, name: &str) -> Result<Option<PrincipalRecord>, AccessError> {
        self.one("name", name).await
    }

    async fn principal_by_key_id(&self, key_id: &str) -> Result<Option<PrincipalRecord>, AccessError> {
        self.one("key_id", key_id).await
    }

    async fn principals(&self) -> Result<Vec<PrincipalRecord>, AccessError> {
        let sql = format!("SELECT {COLUMNS} FROM {} ORDER BY name", self.principals);
        let rows: Vec<PrincipalRow> =
            sqlx::query_as(AssertSqlSafe(sql)).fetch_all(&self.pool).await.map_err(backend)?;
        Ok(rows.into_iter().map(principal).collect())
    }

    async fn revoke(&self, name: &str) -> Result<bool, AccessError> {
        let sql = format!("UPDATE {} SET revoked = TRUE WHERE name = $1", self.principals);
        let done = sqlx::query(AssertSqlSafe(sql)).bind(name).execute(&self.pool).await.map_err(backend)?;
        Ok(done.rows_affected() > 0)
    }

    async fn remove_principal(&self, name: &str) -> Result<bool, AccessError> {
        let sql = format!("DELETE FROM {} WHERE name = $1", self.principals);
        let done = sqlx::query(AssertSqlSafe(sql)).bind(name).execute(&self.pool).await.map_err(backend)?;
        Ok(done.rows_affected() > 0)
    }

    async fn set_owner(&self, name: &str, owner: bool) -> Result<bool, AccessError> {
        let sql = format!("UPDATE {} SET owner = $2 WHERE name = $1", self.principals);
        let done = sqlx::query(AssertSqlSafe(sql)).bind(name).bind(owner).execute(&self.pool).await.map_err(backend)?;
        Ok(done.rows_affected() > 0)
    }

    async fn grant(&self, principal: &str, workspace: &str, role: Role) -> Result<(), AccessError> {
        let sql = format!(
            "INSERT INTO {g} (principal, workspace, role) SELECT name, $2, $3 FROM {p} WHERE name = $1 \
             ON CONFLICT (principal, workspace) DO UPDATE SET role = excluded.role",
            g = self.grants,
            p = self.principals
        );
        let done = sqlx::query(AssertSqlSafe(sql))
            .bind(principal)
            .bind(workspace)
            .bind(role.as_str())
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        if done.rows_affected() == 0 { Err(AccessError::NotFound(principal.to_string())) } else { Ok(()) }
    }

    async fn ungrant(&self, principal: &str, workspace: &str) -> Result<bool, AccessError> {
        let sql = format!("DELETE FROM {} WHERE principal = $1 AND workspace = $2", self.grants);
        let done = sqlx::query(AssertSqlSafe(sql))
            .bind(principal)
            .bind(workspace)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(done.rows_affected() > 0)
    }

    async fn grants(&self, principal: Option<&str>) -> Result<Vec<Grant>, AccessError> {
        let sql = format!(
            "SELECT principal, workspace, role FROM {} WHERE $1::text IS NULL OR principal = $1 \
             ORDER BY principal, workspace",
            self.grants
        );
        let rows: Vec<(String, String, String)> =
            sqlx::query_as(AssertSqlSafe(sql)).bind(principal).fetch_all(&self.pool).await.map_err(backend)?;
        rows.into_iter()
            .map(|(principal, workspace, role)| {
                let role = Role::parse(&role)
                    .ok_or_else(|| AccessError::Backend(format!("unknown role '{role}' in {}", self.grants)))?;
                Ok(Grant { principal, workspace, role })
            })
            .collect()
    }

    async fn append_audit(&self, e: &AuditEntry) -> Result<(), AccessError> {
        let sql = format!(
            "INSERT INTO {} (time, principal, workspace, action, outcome, client) VALUES ($1, $2, $3, $4, $5, $6)",
            self.audit
        );
        sqlx::query(AssertSqlSafe(sql))
            .bind(e.time)
            .bind(&e.principal)
            .bind(&e.workspace)
            .bind(&e.action)
            .bind(i32::from(e.outcome))
            .bind(&e.client)
            .execute(&self.pool)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn audit(&self, f: &AuditFilter) -> Result<Vec<AuditEntry>, AccessError> {
        let sql = format!(
            "SELECT time, principal, workspace, action, outcome, client FROM {} \
             WHERE ($1::text IS NULL OR workspace = $1) AND ($2::text IS NULL OR principal = $2) \
               AND ($3::bigint IS NULL OR time >= $3) ORDER BY time DESC, id DESC LIMIT $4",
            self.audit
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(&f.workspace)
            .bind(&f.principal)
            .bind(f.since)
            .bind(i64::try_from(f.limit).unwrap_or(i64::MAX))
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        rows.iter()
            .map(|r| {
                let outcome: i32 = r.try_get("outcome").map_err(backend)?;
                Ok(AuditEntry {
                    time: r.try_get("time").map_err(backend)?,
                    principal: r.try_get("principal").map_err(backend)?,
                    workspace: r.try_get("workspace").map_err(backend)?,
                    action: r.try_get("action").map_err(backend)?,
                    outcome: u16::try_from(outcome).unwrap_or(0),
                    client: r.try_get("client").map_err(backend)?,
                })
            })
            .collect()
    }

    async fn prune_audit(&self, before: i64) -> Result<u64, AccessError> {
        let sql = format!("DELETE FROM {} WHERE time < $1", self.audit);
        let done = sqlx::query(AssertSqlSafe(sql)).bind(before).execute(&self.pool).await.map_err(backend)?;
        Ok(done.rows_affected())
    }
}
