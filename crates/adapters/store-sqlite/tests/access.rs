//! The shared access-store conformance suite against `access.sqlite` files, and what SQLite adds:
//! a second handle (the CLI beside a running server) sees changes at once.

use std::sync::Arc;

use lightrag_ports::access::{AccessStore, Role};
use lightrag_ports::conformance::access::key_record;
use lightrag_store_sqlite::{ACCESS_FILE, SqliteAccessStore};

lightrag_ports::access_conformance!(sqlite_access, || async {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteAccessStore::open(&dir.path().join(ACCESS_FILE)).expect("open access store");
    (Arc::new(store) as Arc<dyn AccessStore>, dir)
});

#[tokio::test]
async fn a_second_handle_sees_revocations_and_grants_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = SqliteAccessStore::open(&dir.path().join(ACCESS_FILE)).unwrap();
    let cli = SqliteAccessStore::open(&dir.path().join(ACCESS_FILE)).unwrap();
    cli.create_principal(&key_record("ci", "id")).await.unwrap();
    cli.grant("ci", "a", Role::Reader).await.unwrap();
    assert_eq!(server.grants(Some("ci")).await.unwrap().len(), 1);
    cli.revoke("ci").await.unwrap();
    assert!(server.principal_by_key_id("id").await.unwrap().unwrap().revoked);
}
