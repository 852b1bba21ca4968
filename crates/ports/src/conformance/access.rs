//! The checks every [`AccessStore`] runs (`access_conformance!`): principals, grants, the
//! audit log.

use crate::access::{AccessError, AccessStore, AuditEntry, AuditFilter, PrincipalKind, PrincipalRecord, Role};

/// A key record called `name` with key id `id`.
pub fn key_record(name: &str, id: &str) -> PrincipalRecord {
    PrincipalRecord {
        kind: PrincipalKind::Key,
        name: name.into(),
        created: 1_700_000_000,
        expires: Some(1_800_000_000),
        owner: false,
        password_hash: None,
        key_id: Some(id.into()),
        key_hash: Some(format!("hash-of-{id}")),
        revoked: false,
    }
}

/// A managed account record called `name`.
pub fn account_record(name: &str) -> PrincipalRecord {
    PrincipalRecord {
        kind: PrincipalKind::Account,
        name: name.into(),
        created: 1_700_000_001,
        expires: None,
        owner: false,
        password_hash: Some("$2b$04$hash".into()),
        key_id: None,
        key_hash: None,
        revoked: false,
    }
}

/// Principals: created once per name, read back whole, found by key id, revoked, owner flag,
/// removed with their grants.
pub async fn check_access_principals(store: &dyn AccessStore) {
    let key = key_record("ci", "k1");
    store.create_principal(&key).await.expect("create a key");
    store.create_principal(&account_record("alice")).await.expect("create an account");
    let again = store.create_principal(&account_record("ci")).await;
    assert!(matches!(again, Err(AccessError::Exists(ref n)) if n == "ci"), "a taken name must be refused: {again:?}");
    assert_eq!(store.principal("ci").await.expect("read"), Some(key.clone()), "a key reads back whole");
    assert_eq!(store.principal("nobody").await.expect("read"), None);
    assert_eq!(store.principal_by_key_id("k1").await.expect("by id").map(|p| p.name), Some("ci".into()));
    assert_eq!(store.principal_by_key_id("k2").await.expect("by id"), None);
    let names: Vec<String> = store.principals().await.expect("list").into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["alice", "ci"], "principals are listed by name");

    assert!(store.revoke("ci").await.expect("revoke"));
    assert!(!store.revoke("nobody").await.expect("revoke a missing one"));
    assert!(store.principal("ci").await.expect("read").expect("kept").revoked, "a revoked key is kept, marked");

    assert!(store.set_owner("alice", true).await.expect("owner on"));
    assert!(store.principal("alice").await.expect("read").expect("there").owner);
    assert!(store.set_owner("alice", false).await.expect("owner off"));
    assert!(!store.principal("alice").await.expect("read").expect("there").owner);
    assert!(!store.set_owner("nobody", true).await.expect("owner of a missing one"));

    store.grant("alice", "a", Role::Editor).await.expect("grant");
    assert!(store.remove_principal("alice").await.expect("remove"));
    assert!(!store.remove_principal("alice").await.expect("remove twice"));
    assert_eq!(store.principal("alice").await.expect("read"), None);
    assert!(store.grants(Some("alice")).await.expect("grants").is_empty(), "removal takes the grants along");
    // the name is free again
    store.create_principal(&account_record("alice")).await.expect("re-create after removal");
    assert!(store.grants(Some("alice")).await.expect("grants").is_empty(), "no grant comes back with the name");
}

/// Grants: only to principals, one role per workspace (replaced), taken away, listed.
pub async fn check_access_grants(store: &dyn AccessStore) {
    let missing = store.grant("ghost", "a", Role::Reader).await;
    assert!(matches!(missing, Err(AccessError::NotFound(ref n)) if n == "ghost"), "{missing:?}");
    store.create_principal(&key_record("k", "id1")).await.expect("create");
    store.create_principal(&account_record("bob")).await.expect("create");
    store.grant("k", "a", Role::Reader).await.expect("grant");
    store.grant("k", "a", Role::Admin).await.expect("replace");
    store.grant("k", "", Role::Editor).await.expect("the root workspace");
    store.grant("bob", "b", Role::Reader).await.expect("grant");
    let of_k = store.grants(Some("k")).await.expect("grants");
    let pairs: Vec<(&str, Role)> = of_k.iter().map(|g| (g.workspace.as_str(), g.role)).collect();
    assert_eq!(pairs, [("", Role::Editor), ("a", Role::Admin)], "one role per workspace, the last given");
    assert_eq!(store.grants(None).await.expect("all").len(), 3);
    assert!(store.ungrant("k", "a").await.expect("ungrant"));
    assert!(!store.ungrant("k", "a").await.expect("ungrant twice"));
    assert_eq!(store.grants(Some("k")).await.expect("grants").len(), 1);
}

fn entry(time: i64, principal: &str, workspace: &str, action: &str) -> AuditEntry {
    AuditEntry {
        time,
        principal: principal.into(),
        workspace: workspace.into(),
        action: action.into(),
        outcome: 200,
        client: "127.0.0.1".into(),
    }
}

/// The audit log: appended, listed newest first with filters and a limit, pruned by age.
pub async fn check_access_audit(store: &dyn AccessStore) {
    let entries = [
        entry(1_000, "key:ci", "a", "documents.text"),
        entry(2_000, "account:bob", "b", "documents.upload"),
        entry(3_000, "key:ci", "b", "graph.entity.edit"),
        entry(4_000, "master", "", "admin.keys.create"),
    ];
    for e in &entries {
        store.append_audit(e).await.expect("append");
    }
    let all = store.audit(&AuditFilter { limit: 10, ..Default::default() }).await.expect("list");
    assert_eq!(all.iter().map(|e| e.time).collect::<Vec<_>>(), [4_000, 3_000, 2_000, 1_000], "newest first");
    assert_eq!(all[3], entries[0], "an entry reads back whole");
    let limited = store.audit(&AuditFilter { limit: 2, ..Default::default() }).await.expect("list");
    assert_eq!(limited.len(), 2);
    let of_b = store.audit(&AuditFilter { workspace: Some("b".into()), limit: 10, ..Default::default() }).await;
    assert_eq!(of_b.expect("by workspace").iter().map(|e| e.time).collect::<Vec<_>>(), [3_000, 2_000]);
    let of_ci = store.audit(&AuditFilter { principal: Some("key:ci".into()), limit: 10, ..Default::default() }).await;
    assert_eq!(of_ci.expect("by principal").len(), 2);
    let since = store.audit(&AuditFilter { since: Some(3_000), limit: 10, ..Default::default() }).await;
    assert_eq!(since.expect("since").len(), 2);
    assert_eq!(store.prune_audit(2_500).await.expect("prune"), 2);
    let left = store.audit(&AuditFilter { limit: 10, ..Default::default() }).await.expect("list");
    assert_eq!(left.iter().map(|e| e.time).collect::<Vec<_>>(), [4_000, 3_000], "older entries pruned");
}
