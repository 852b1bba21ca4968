//! The access port: who may use the server ([`PrincipalRecord`]: managed accounts and API keys),
//! their roles per workspace ([`Grant`]) and the audit log ([`AuditEntry`]), behind
//! [`AccessStore`]. The rules (what a role allows, how keys are made and checked) live in
//! `lightrag-application::access`; a store only keeps the records.
//!
//! Secrets are never stored: a managed account keeps a bcrypt hash of its password, a key the
//! SHA-256 of its secret, found by its non-secret key id.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// A role in one workspace; each includes the rights of the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Query, read documents and the graph.
    Reader,
    /// + insert, upload, scan, delete, graph edits.
    Editor,
    /// + clear, import, re-embed, membership.
    Admin,
}

impl Role {
    /// `reader`, `editor` or `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Reader => "reader",
            Role::Editor => "editor",
            Role::Admin => "admin",
        }
    }

    /// The role called `name` (`reader`, `editor`, `admin`, any case).
    pub fn parse(name: &str) -> Option<Role> {
        match name.trim().to_ascii_lowercase().as_str() {
            "reader" => Some(Role::Reader),
            "editor" => Some(Role::Editor),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a principal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrincipalKind {
    /// A login: managed here (with a password hash) or from `AUTH_ACCOUNTS` (without one).
    Account,
    /// An API key.
    Key,
}

impl PrincipalKind {
    /// `account` or `key`.
    pub fn as_str(self) -> &'static str {
        match self {
            PrincipalKind::Account => "account",
            PrincipalKind::Key => "key",
        }
    }

    /// The kind called `name`.
    pub fn parse(name: &str) -> Option<PrincipalKind> {
        match name {
            "account" => Some(PrincipalKind::Account),
            "key" => Some(PrincipalKind::Key),
            _ => None,
        }
    }
}

/// One principal as stored. Names are unique across kinds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrincipalRecord {
    /// Account or key.
    pub kind: PrincipalKind,
    /// Its unique name.
    pub name: String,
    /// When it was created (Unix seconds).
    pub created: i64,
    /// When a key stops working (Unix seconds); `None`: never.
    pub expires: Option<i64>,
    /// Whether it has every right on every workspace and manages principals.
    pub owner: bool,
    /// The bcrypt hash of a managed account's password (`None` for keys and for `AUTH_ACCOUNTS`
    /// logins, whose password is in the settings).
    #[serde(skip_serializing)]
    pub password_hash: Option<String>,
    /// The non-secret id of a key (the `<id>` of `lrk_<id>_<secret>`).
    pub key_id: Option<String>,
    /// The SHA-256 of a key (hex).
    #[serde(skip_serializing)]
    pub key_hash: Option<String>,
    /// Whether a key was revoked (it is kept, refused, and listed as revoked).
    pub revoked: bool,
}

/// A principal's role in one workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// The principal's name.
    pub principal: String,
    /// The workspace (`""`: the root of the working directory).
    pub workspace: String,
    /// Its role there.
    pub role: Role,
}

/// One line of the audit log. Never holds bodies, keys, passwords or document text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// When (Unix milliseconds).
    pub time: i64,
    /// Who: `kind:name` (`master`, `guest`, `login:alice`, `account:bob`, `key:ci`), or the user
    /// name a failed login gave.
    pub principal: String,
    /// The workspace, `""` for none.
    pub workspace: String,
    /// What: the route's name (`documents.upload`, `graph.entity.edit`, `login`, …).
    pub action: String,
    /// The outcome: the HTTP status code.
    pub outcome: u16,
    /// The client's address.
    pub client: String,
}

/// Which audit entries to list, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    /// Only this workspace.
    pub workspace: Option<String>,
    /// Only this principal (`kind:name` as in [`AuditEntry::principal`]).
    pub principal: Option<String>,
    /// Only entries at or after this time (Unix milliseconds).
    pub since: Option<i64>,
    /// At most this many.
    pub limit: usize,
}

/// What an access store refuses or fails with.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// A principal of that name exists already.
    #[error("a principal named '{0}' exists already; pick another name or remove it first")]
    Exists(String),
    /// No principal of that name.
    #[error("no principal named '{0}'; `lightrag admin key list` and `lightrag admin account list` show them")]
    NotFound(String),
    /// The database failed.
    #[error("the access store failed: {0}")]
    Backend(String),
}

/// The records of who may do what, and the audit log. Implemented by the SQLite store
/// (`WORKING_DIR/access.sqlite`) and the PostgreSQL store (`lightrag_access_*` tables); every
/// implementation passes `access_conformance!`.
#[async_trait]
pub trait AccessStore: Send + Sync {
    /// Adds `principal`; [`AccessError::Exists`] when its name is taken.
    async fn create_principal(&self, principal: &PrincipalRecord) -> Result<(), AccessError>;
    /// The principal called `name`.
    async fn principal(&self, name: &str) -> Result<Option<PrincipalRecord>, AccessError>;
    /// The key whose id is `key_id`.
    async fn principal_by_key_id(&self, key_id: &str) -> Result<Option<PrincipalRecord>, AccessError>;
    /// Every principal, by name.
    async fn principals(&self) -> Result<Vec<PrincipalRecord>, AccessError>;
    /// Marks `name` revoked; whether it existed.
    async fn revoke(&self, name: &str) -> Result<bool, AccessError>;
    /// Removes `name` and its grants; whether it existed.
    async fn remove_principal(&self, name: &str) -> Result<bool, AccessError>;
    /// Sets the owner flag of `name`; whether it existed.
    async fn set_owner(&self, name: &str, owner: bool) -> Result<bool, AccessError>;
    /// Gives `principal` the role `role` in `workspace` (replacing its former role there);
    /// [`AccessError::NotFound`] when there is no such principal.
    async fn grant(&self, principal: &str, workspace: &str, role: Role) -> Result<(), AccessError>;
    /// Takes away `principal`'s role in `workspace`; whether it had one.
    async fn ungrant(&self, principal: &str, workspace: &str) -> Result<bool, AccessError>;
    /// The grants of one principal (`Some`) or of all, by principal then workspace.
    async fn grants(&self, principal: Option<&str>) -> Result<Vec<Grant>, AccessError>;
    /// Appends `entry` to the audit log.
    async fn append_audit(&self, entry: &AuditEntry) -> Result<(), AccessError>;
    /// Audit entries matching `filter`, newest first.
    async fn audit(&self, filter: &AuditFilter) -> Result<Vec<AuditEntry>, AccessError>;
    /// Removes audit entries older than `before` (Unix milliseconds); how many.
    async fn prune_audit(&self, before: i64) -> Result<u64, AccessError>;
}
