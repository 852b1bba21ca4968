//! Who may do what (issue 30): the [`Principal`] a request runs as, the [`Rights`] it has, the one
//! decision [`authorize`] every front end applies, API keys ([`keys`]) and the administration use
//! cases ([`admin`]) the CLI (`lightrag admin …`) and the server's `/admin/…` routes share.
//!
//! Managing the server (principals, grants, the audit log) is for owners only: the
//! `LIGHTRAG_API_KEY` holder and principals with the owner flag. `AUTH_ACCOUNTS` logins and guests
//! with `ACCESS_CONTROL=off` have every role in every workspace ([`Rights::Everywhere`]) but are
//! not owners, so they cannot mint keys that would outlive a move to `roles`.
//!
//! Roles per workspace: `reader` (query, read documents and graph) < `editor` (+ insert, upload,
//! scan, delete, graph edits) < `admin` (+ clear, import, re-embed, membership). An `owner`
//! principal, and the `LIGHTRAG_API_KEY` holder ([`Principal::Master`]), have every right on
//! every workspace. With `ACCESS_CONTROL=off` (the default) `AUTH_ACCOUNTS` logins and guests keep
//! LightRAG's behaviour (every workspace, full rights); keys and managed accounts always get only
//! their grants, so creating one never widens anything.

pub mod admin;
pub mod keys;

use std::collections::BTreeMap;

use lightrag_config::AccessControl;
pub use lightrag_ports::access::Role;
use lightrag_ports::access::{AccessError, AccessStore, PrincipalKind};

/// What a request does, by its route or tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Query, list and read documents and the graph.
    Read,
    /// Insert, upload, scan, delete, graph edits.
    Write,
    /// Clear, import, re-embed, membership.
    Admin,
    /// Manage principals, grants and the audit log of the whole server.
    Owner,
}

impl Action {
    /// The lowest role that may do it (`None` for [`Action::Owner`]: owners only).
    pub fn required_role(self) -> Option<Role> {
        match self {
            Action::Read => Some(Role::Reader),
            Action::Write => Some(Role::Editor),
            Action::Admin => Some(Role::Admin),
            Action::Owner => None,
        }
    }

    /// Whether a request doing it is written to the audit log (everything but reads).
    pub fn is_audited(self) -> bool {
        self != Action::Read
    }
}

/// Who a request runs as.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Principal {
    /// The holder of `LIGHTRAG_API_KEY`: every workspace, owner.
    Master,
    /// No credentials (a server without any, or a guest token).
    Guest,
    /// A login from `AUTH_ACCOUNTS`.
    Login(String),
    /// A managed account of the access store.
    Account(String),
    /// An API key of the access store.
    Key(String),
}

impl Principal {
    /// `master`, `guest`, `login:NAME`, `account:NAME` or `key:NAME` (audit log, logs).
    pub fn label(&self) -> String {
        match self {
            Principal::Master => "master".into(),
            Principal::Guest => "guest".into(),
            Principal::Login(n) => format!("login:{n}"),
            Principal::Account(n) => format!("account:{n}"),
            Principal::Key(n) => format!("key:{n}"),
        }
    }
}

/// What a principal may do, read from the access store for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rights {
    /// Everything, everywhere, and managing the server (master, owners).
    All,
    /// Every role in every workspace, but not managing the server (`AUTH_ACCOUNTS` logins and
    /// guests with `ACCESS_CONTROL=off`: LightRAG's full rights, on LightRAG's routes).
    Everywhere,
    /// Its roles by workspace.
    Grants(BTreeMap<String, Role>),
    /// The principal is gone or refused (a removed account, a revoked or expired key, a guest
    /// in `roles` mode).
    Refused(String),
}

impl Rights {
    /// The workspaces it may see: `None` for all.
    pub fn workspaces(&self) -> Option<Vec<String>> {
        match self {
            Rights::All | Rights::Everywhere => None,
            Rights::Grants(g) => Some(g.keys().cloned().collect()),
            Rights::Refused(_) => Some(Vec::new()),
        }
    }
}

/// The answer of [`authorize`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Go ahead.
    Allowed,
    /// No role in that workspace: answer as if it did not exist (404), whether it exists or
    /// not, so a caller learns nothing of workspaces it has no part in.
    NotFound,
    /// A role there, but too low (or an owner's action by a non-owner): 403.
    Forbidden,
}

/// May `rights` do `action` in `workspace`? The one rule every front end applies.
///
/// Unlike the signature first planned (with the workspace's existence as an input), existence is
/// deliberately not an input: the answer must be the same for an existing and a missing workspace
/// the caller has no role in, and a caller with a role may read the (empty) workspace before its
/// first document, or create it with its first write.
pub fn authorize(rights: &Rights, workspace: &str, action: Action) -> Decision {
    let grants = match rights {
        Rights::All => return Decision::Allowed,
        Rights::Everywhere if action == Action::Owner => return Decision::Forbidden,
        Rights::Everywhere => return Decision::Allowed,
        Rights::Refused(_) => return Decision::NotFound,
        Rights::Grants(grants) => grants,
    };
    let Some(required) = action.required_role() else {
        return Decision::Forbidden;
    };
    match grants.get(workspace) {
        None => Decision::NotFound,
        Some(role) if *role >= required => Decision::Allowed,
        Some(_) => Decision::Forbidden,
    }
}

/// The rights of `principal` when they do not depend on the access store (master; guests and
/// `AUTH_ACCOUNTS` logins with `ACCESS_CONTROL=off`; guests with `roles`).
pub fn fixed_rights(principal: &Principal, mode: AccessControl) -> Option<Rights> {
    match (principal, mode) {
        (Principal::Master, _) => Some(Rights::All),
        (Principal::Guest, AccessControl::Off) => Some(Rights::Everywhere),
        (Principal::Guest, AccessControl::Roles) => {
            Some(Rights::Refused("ACCESS_CONTROL=roles: guest access is off; log in or use an API key".into()))
        }
        _ => None,
    }
}

/// The rights of `principal` now, under `mode`: read from `store` on every call (no cache), so a
/// revoked key, a removed account or a changed grant counts from the next request on.
pub async fn rights_of(
    store: &dyn AccessStore,
    principal: &Principal,
    mode: AccessControl,
    now: i64,
) -> Result<Rights, AccessError> {
    if let Some(rights) = fixed_rights(principal, mode) {
        return Ok(rights);
    }
    let (Principal::Login(name) | Principal::Account(name) | Principal::Key(name)) = principal else {
        return Ok(Rights::Refused("no principal".into()));
    };
    let login_off = matches!(principal, Principal::Login(_)) && mode == AccessControl::Off;
    let Some(record) = store.principal(name).await? else {
        // an AUTH_ACCOUNTS login without a record: LightRAG's full rights with `off`, no grants with `roles`
        if login_off {
            return Ok(Rights::Everywhere);
        }
        if matches!(principal, Principal::Login(_)) {
            return Ok(Rights::Grants(BTreeMap::new()));
        }
        return Ok(Rights::Refused(format!("'{name}' no longer exists")));
    };
    let kind_matches = match principal {
        Principal::Key(_) => record.kind == PrincipalKind::Key,
        _ => record.kind == PrincipalKind::Account,
    };
    if !kind_matches {
        return Ok(Rights::Refused(format!("'{name}' no longer exists")));
    }
    if record.revoked {
        return Ok(Rights::Refused(format!("'{name}' was revoked")));
    }
    if record.expires.is_some_and(|t| t <= now) {
        return Ok(Rights::Refused(format!("'{name}' has expired")));
    }
    if record.owner {
        return Ok(Rights::All);
    }
    if login_off {
        return Ok(Rights::Everywhere);
    }
    let grants = store.grants(Some(name)).await?;
    Ok(Rights::Grants(grants.into_iter().map(|g| (g.workspace, g.role)).collect()))
}

/// The key of the access store `presented` is, if any: `Some(Principal::Key(name))` when its id
/// is known and its hash matches (revocation and expiry are [`rights_of`]'s to judge).
pub async fn key_principal(store: &dyn AccessStore, presented: &str) -> Result<Option<Principal>, AccessError> {
    let Some(id) = keys::key_id(presented) else { return Ok(None) };
    let Some(record) = store.principal_by_key_id(id).await? else { return Ok(None) };
    let matched = record.kind == PrincipalKind::Key
        && record.key_hash.as_deref().is_some_and(|stored| keys::matches(presented, stored));
    Ok(matched.then_some(Principal::Key(record.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grants(pairs: &[(&str, Role)]) -> Rights {
        Rights::Grants(pairs.iter().map(|(w, r)| (w.to_string(), *r)).collect())
    }

    #[test]
    fn roles_are_ordered_and_each_allows_what_the_lower_ones_do() {
        let table = [
            (Role::Reader, [Decision::Allowed, Decision::Forbidden, Decision::Forbidden, Decision::Forbidden]),
            (Role::Editor, [Decision::Allowed, Decision::Allowed, Decision::Forbidden, Decision::Forbidden]),
            (Role::Admin, [Decision::Allowed, Decision::Allowed, Decision::Allowed, Decision::Forbidden]),
        ];
        for (role, expected) in table {
            let rights = grants(&[("a", role)]);
            for (action, want) in [Action::Read, Action::Write, Action::Admin, Action::Owner].into_iter().zip(expected)
            {
                assert_eq!(authorize(&rights, "a", action), want, "{role} {action:?}");
            }
        }
    }

    #[test]
    fn no_role_in_a_workspace_is_not_found_whether_or_not_it_exists() {
        let rights = grants(&[("a", Role::Admin)]);
        for action in [Action::Read, Action::Write, Action::Admin] {
            assert_eq!(authorize(&rights, "b", action), Decision::NotFound);
        }
        assert_eq!(authorize(&Rights::Refused("gone".into()), "a", Action::Read), Decision::NotFound);
        assert_eq!(authorize(&Rights::All, "anything", Action::Owner), Decision::Allowed);
        assert_eq!(rights.workspaces(), Some(vec!["a".to_string()]));
        assert_eq!(Rights::All.workspaces(), None);
        // ACCESS_CONTROL=off logins and guests: every workspace, but not the server's management
        for action in [Action::Read, Action::Write, Action::Admin] {
            assert_eq!(authorize(&Rights::Everywhere, "anything", action), Decision::Allowed);
        }
        assert_eq!(authorize(&Rights::Everywhere, "a", Action::Owner), Decision::Forbidden);
        assert_eq!(Rights::Everywhere.workspaces(), None);
    }
}
