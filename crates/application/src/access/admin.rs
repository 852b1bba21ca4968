//! The administration use cases of the access store, shared by `lightrag admin …` and the
//! server's `/admin/keys`, `/admin/accounts`, `/admin/grants` and `/admin/audit` routes: one copy
//! of the rules (names, roles, key making, password hashing, grants to `AUTH_ACCOUNTS` logins).

use lightrag_ports::access::{
    AccessError, AccessStore, AuditEntry, AuditFilter, Grant, PrincipalKind, PrincipalRecord, Role,
};
use serde::Serialize;

use super::keys;

/// The longest principal name.
pub const MAX_NAME: usize = 64;

/// The most audit entries one listing returns.
pub const MAX_AUDIT_LIMIT: usize = 10_000;

/// What an administration use case refuses or fails with.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// A name, role or value is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// The principal does not exist (or is of the other kind).
    #[error("{0}")]
    NotFound(String),
    /// The access store refused or failed.
    #[error(transparent)]
    Store(#[from] AccessError),
}

/// Checks a principal name: 1 to [`MAX_NAME`] of `A-Z a-z 0-9 _ . @ -`.
pub fn check_name(name: &str) -> Result<(), AdminError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '@' | '-'));
    if ok {
        Ok(())
    } else {
        Err(AdminError::Invalid(format!(
            "'{}' is not a valid name: use 1 to {MAX_NAME} of the letters A-Z a-z, digits, _ . @ -",
            name.escape_default()
        )))
    }
}

/// Checks a workspace name as the header gives it (`[A-Za-z0-9_]`, at most 64, not `__…`); `""`
/// is the root of the working directory.
pub fn check_workspace(workspace: &str) -> Result<(), AdminError> {
    let ok = workspace.len() <= 64
        && workspace.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !workspace.starts_with("__");
    if ok {
        Ok(())
    } else {
        Err(AdminError::Invalid(format!(
            "'{}' is not a workspace name: letters A-Z a-z, digits and _, at most 64, not starting with __",
            workspace.escape_default()
        )))
    }
}

/// Parses a role name.
pub fn parse_role(name: &str) -> Result<Role, AdminError> {
    Role::parse(name).ok_or_else(|| AdminError::Invalid(format!("unknown role '{name}': reader, editor or admin")))
}

/// A key just made. `key` is shown once and never again.
#[derive(Debug, Clone, Serialize)]
pub struct CreatedKey {
    /// Its name.
    pub name: String,
    /// The key itself (`lrk_…`).
    pub key: String,
    /// When it expires (Unix seconds), if ever.
    pub expires: Option<i64>,
}

/// A principal as listed: never its hashes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrincipalView {
    /// `account` or `key`.
    pub kind: PrincipalKind,
    /// Its name.
    pub name: String,
    /// When it was made (Unix seconds).
    pub created: i64,
    /// When a key expires (Unix seconds).
    pub expires: Option<i64>,
    /// Whether it is an owner.
    pub owner: bool,
    /// Whether a key was revoked.
    pub revoked: bool,
    /// Whether an account's password is managed here (`false`: an `AUTH_ACCOUNTS` login).
    pub managed: bool,
    /// Its roles: `(workspace, role)`.
    pub grants: Vec<(String, Role)>,
}

/// Makes the key `name` with `role` in `workspace`, expiring after `expires_days` if given.
pub async fn create_key(
    store: &dyn AccessStore,
    name: &str,
    workspace: &str,
    role: Role,
    expires_days: Option<u64>,
    now: i64,
) -> Result<CreatedKey, AdminError> {
    check_name(name)?;
    check_workspace(workspace)?;
    let expires = match expires_days {
        None => None,
        Some(0) => return Err(AdminError::Invalid("--expires-days must be at least 1".into())),
        Some(days) => Some(
            i64::try_from(days)
                .ok()
                .and_then(|d| d.checked_mul(86_400))
                .and_then(|s| now.checked_add(s))
                .ok_or_else(|| AdminError::Invalid(format!("--expires-days {days} is too far away")))?,
        ),
    };
    let (key_id, key) = keys::generate();
    let record = PrincipalRecord {
        kind: PrincipalKind::Key,
        name: name.to_string(),
        created: now,
        expires,
        owner: false,
        password_hash: None,
        key_id: Some(key_id),
        key_hash: Some(keys::hash(&key)),
        revoked: false,
    };
    store.create_principal(&record).await?;
    store.grant(name, workspace, role).await?;
    Ok(CreatedKey { name: name.to_string(), key, expires })
}

/// Revokes the key `name` (kept and listed as revoked; refused from the next request on).
pub async fn revoke_key(store: &dyn AccessStore, name: &str) -> Result<(), AdminError> {
    match store.principal(name).await? {
        Some(p) if p.kind == PrincipalKind::Key => {
            store.revoke(name).await?;
            Ok(())
        }
        _ => Err(AdminError::NotFound(format!("no key named '{name}'; `lightrag admin key list` shows the keys"))),
    }
}

/// Every principal with its grants, by name (`kind` to list only keys or accounts).
pub async fn list(store: &dyn AccessStore, kind: Option<PrincipalKind>) -> Result<Vec<PrincipalView>, AdminError> {
    let grants = store.grants(None).await?;
    let principals = store.principals().await?;
    Ok(principals
        .into_iter()
        .filter(|p| kind.is_none_or(|k| p.kind == k))
        .map(|p| PrincipalView {
            grants: grants.iter().filter(|g| g.principal == p.name).map(|g| (g.workspace.clone(), g.role)).collect(),
            managed: p.password_hash.is_some(),
            kind: p.kind,
            name: p.name,
            created: p.created,
            expires: p.expires,
            owner: p.owner,
            revoked: p.revoked,
        })
        .collect())
}

/// The bcrypt cost of managed accounts' passwords.
pub const PASSWORD_COST: u32 = bcrypt::DEFAULT_COST;

/// Adds the managed account `name` with `password` (bcrypt-hashed, off the async threads).
pub async fn add_account(store: &dyn AccessStore, name: &str, password: &str, now: i64) -> Result<(), AdminError> {
    check_name(name)?;
    if password.is_empty() {
        return Err(AdminError::Invalid("the password must not be empty".into()));
    }
    if password.len() > 72 {
        return Err(AdminError::Invalid("the password must be at most 72 bytes (bcrypt)".into()));
    }
    let password = password.to_string();
    let hash = tokio::task::spawn_blocking(move || bcrypt::hash(password, PASSWORD_COST))
        .await
        .map_err(|e| AdminError::Invalid(format!("hashing the password failed: {e}")))?
        .map_err(|e| AdminError::Invalid(format!("hashing the password failed: {e}")))?;
    let record = PrincipalRecord {
        kind: PrincipalKind::Account,
        name: name.to_string(),
        created: now,
        expires: None,
        owner: false,
        password_hash: Some(hash),
        key_id: None,
        key_hash: None,
        revoked: false,
    };
    store.create_principal(&record).await?;
    Ok(())
}

/// Whether `password` is the password of the managed account `name` (bcrypt, off the async
/// threads). `false` for unknown names, keys and `AUTH_ACCOUNTS` logins.
pub async fn verify_account(store: &dyn AccessStore, name: &str, password: &str) -> Result<bool, AdminError> {
    let Some(hash) = store
        .principal(name)
        .await?
        .filter(|p| p.kind == PrincipalKind::Account && !p.revoked)
        .and_then(|p| p.password_hash)
    else {
        return Ok(false);
    };
    let password = password.to_string();
    tokio::task::spawn_blocking(move || bcrypt::verify(password, &hash).unwrap_or(false))
        .await
        .map_err(|e| AdminError::Invalid(format!("checking the password failed: {e}")))
}

/// Removes the account `name` and its grants; its tokens stop working at their next request.
pub async fn remove_account(store: &dyn AccessStore, name: &str) -> Result<(), AdminError> {
    match store.principal(name).await? {
        Some(p) if p.kind == PrincipalKind::Account => {
            store.remove_principal(name).await?;
            Ok(())
        }
        _ => Err(AdminError::NotFound(format!(
            "no account named '{name}'; `lightrag admin account list` shows the accounts"
        ))),
    }
}

/// Makes sure `name` has a record: a principal of the store, or an `AUTH_ACCOUNTS` login (in
/// `logins`), which gets a record without a password on its first grant.
async fn ensure_principal(store: &dyn AccessStore, name: &str, logins: &[String], now: i64) -> Result<(), AdminError> {
    check_name(name)?;
    if store.principal(name).await?.is_some() {
        return Ok(());
    }
    if !logins.iter().any(|l| l == name) {
        return Err(AdminError::NotFound(format!(
            "no key, account or AUTH_ACCOUNTS login named '{name}'; create it first (`lightrag admin key create` or \
             `lightrag admin account add`)"
        )));
    }
    let record = PrincipalRecord {
        kind: PrincipalKind::Account,
        name: name.to_string(),
        created: now,
        expires: None,
        owner: false,
        password_hash: None,
        key_id: None,
        key_hash: None,
        revoked: false,
    };
    match store.create_principal(&record).await {
        Ok(()) | Err(AccessError::Exists(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Gives `name` the role `role` in `workspace` (replacing its role there).
pub async fn grant(
    store: &dyn AccessStore,
    name: &str,
    workspace: &str,
    role: Role,
    logins: &[String],
    now: i64,
) -> Result<(), AdminError> {
    check_workspace(workspace)?;
    ensure_principal(store, name, logins, now).await?;
    store.grant(name, workspace, role).await?;
    Ok(())
}

/// Takes away `name`'s role in `workspace`.
pub async fn ungrant(store: &dyn AccessStore, name: &str, workspace: &str) -> Result<(), AdminError> {
    if store.ungrant(name, workspace).await? {
        Ok(())
    } else {
        Err(AdminError::NotFound(format!("'{name}' has no role in workspace '{workspace}'")))
    }
}

/// Turns the owner flag of `name` on or off.
pub async fn set_owner(
    store: &dyn AccessStore,
    name: &str,
    owner: bool,
    logins: &[String],
    now: i64,
) -> Result<(), AdminError> {
    ensure_principal(store, name, logins, now).await?;
    store.set_owner(name, owner).await?;
    Ok(())
}

/// Every grant of one workspace (`Some`) or of all.
pub async fn grants(store: &dyn AccessStore, workspace: Option<&str>) -> Result<Vec<Grant>, AdminError> {
    let all = store.grants(None).await?;
    Ok(all.into_iter().filter(|g| workspace.is_none_or(|w| g.workspace == w)).collect())
}

/// Audit entries, newest first; the limit is capped at [`MAX_AUDIT_LIMIT`].
pub async fn audit(store: &dyn AccessStore, mut filter: AuditFilter) -> Result<Vec<AuditEntry>, AdminError> {
    filter.limit = filter.limit.clamp(1, MAX_AUDIT_LIMIT);
    Ok(store.audit(&filter).await?)
}

/// Removes audit entries older than `retention_days` before `now_ms`; how many.
pub async fn prune_audit(store: &dyn AccessStore, retention_days: u64, now_ms: i64) -> Result<u64, AdminError> {
    let days = i64::try_from(retention_days).unwrap_or(i64::MAX / 86_400_000);
    let before = now_ms.saturating_sub(days.saturating_mul(86_400_000));
    Ok(store.prune_audit(before).await?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use lightrag_store_sqlite::{ACCESS_FILE, SqliteAccessStore};

    use super::*;
    use crate::access::{Principal, Rights, rights_of};

    #[tokio::test]
    async fn keys_and_logins_get_only_their_grants_and_lose_them_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteAccessStore::open(&dir.path().join(ACCESS_FILE)).unwrap();
        let made = create_key(&store, "ci", "a", Role::Reader, Some(1), 100).await.unwrap();
        assert!(made.key.starts_with("lrk_"));
        assert_eq!(made.expires, Some(100 + 86_400));
        let key = Principal::Key("ci".into());
        let off = lightrag_config::AccessControl::Off;
        let rights = rights_of(&store, &key, off, 200).await.unwrap();
        assert_eq!(rights, Rights::Grants([("a".to_string(), Role::Reader)].into()));
        assert!(matches!(rights_of(&store, &key, off, 100 + 86_400).await.unwrap(), Rights::Refused(_)));
        revoke_key(&store, "ci").await.unwrap();
        assert!(matches!(rights_of(&store, &key, off, 200).await.unwrap(), Rights::Refused(_)));
        // AUTH_ACCOUNTS logins: every workspace with ACCESS_CONTROL=off (not owners), their grants with roles
        let alice = Principal::Login("alice".into());
        let roles = lightrag_config::AccessControl::Roles;
        assert_eq!(rights_of(&store, &alice, off, 0).await.unwrap(), Rights::Everywhere);
        assert_eq!(rights_of(&store, &alice, roles, 0).await.unwrap(), Rights::Grants(Default::default()));
        let missing = grant(&store, "alice", "b", Role::Editor, &[], 0).await;
        assert!(matches!(missing, Err(AdminError::NotFound(_))), "{missing:?}");
        grant(&store, "alice", "b", Role::Editor, &["alice".into()], 0).await.unwrap();
        assert_eq!(
            rights_of(&store, &alice, roles, 0).await.unwrap(),
            Rights::Grants([("b".to_string(), Role::Editor)].into())
        );
        assert_eq!(rights_of(&store, &alice, off, 0).await.unwrap(), Rights::Everywhere, "a grant does not narrow off");
        set_owner(&store, "alice", true, &[], 0).await.unwrap();
        assert_eq!(rights_of(&store, &alice, roles, 0).await.unwrap(), Rights::All);
        assert_eq!(rights_of(&store, &alice, off, 0).await.unwrap(), Rights::All, "the owner flag makes an owner");
        assert!(matches!(rights_of(&store, &Principal::Guest, roles, 0).await.unwrap(), Rights::Refused(_)));
    }

    #[tokio::test]
    async fn managed_accounts_check_their_password_and_removal_ends_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteAccessStore::open(&dir.path().join(ACCESS_FILE)).unwrap();
        add_account(&store, "bob", "s3cret", 0).await.unwrap();
        assert!(verify_account(&store, "bob", "s3cret").await.unwrap());
        assert!(!verify_account(&store, "bob", "wrong").await.unwrap());
        let listed = list(&store, None).await.unwrap();
        assert!(listed[0].managed);
        assert!(!serde_json::to_string(&listed).unwrap().contains("$2"), "no hash in listings");
        remove_account(&store, "bob").await.unwrap();
        assert!(!verify_account(&store, "bob", "s3cret").await.unwrap());
        let bob = Principal::Account("bob".into());
        let rights = rights_of(&store, &bob, lightrag_config::AccessControl::Off, 0).await.unwrap();
        assert!(matches!(rights, Rights::Refused(_)));
        assert!(matches!(check_name("a b"), Err(AdminError::Invalid(_))));
        assert!(matches!(check_workspace("__x"), Err(AdminError::Invalid(_))));
    }
}
