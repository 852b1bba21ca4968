//! Two handles on one file (as two processes would have): concurrent read-modify-write and
//! concurrent claims stay correct across connections, and both in-memory indexes converge.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use futures::future::join_all;
use lightrag_ports::conformance::{entity, status_row, vector};
use lightrag_ports::prelude::*;
use lightrag_ports::{ChangeSet, ClaimRequest, DocStatus, StoreError, VectorKind};
use lightrag_store_sqlite::SqliteStore;

fn two_handles() -> (tempfile::TempDir, SqliteStore, SqliteStore) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("shared.sqlite");
    let a = SqliteStore::open(&path).expect("open a");
    let b = SqliteStore::open(&path).expect("open b");
    (dir, a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_modify_write_across_handles_loses_nothing() {
    let (_dir, a, b) = two_handles();
    let worker = |w: usize| {
        let store = [&a, &b][w % 2].clone();
        async move {
            for round in 0..10 {
                loop {
                    let current = store.get_entities(&["Counter".to_string()]).await.expect("read").remove(0);
                    let version = current.as_ref().map(|e| e.version);
                    let count: usize = current.map(|e| e.description.parse().expect("number")).unwrap_or(0);
                    let mut next = entity("Counter", &[]);
                    next.description = (count + 1).to_string();
                    let changes = ChangeSet {
                        expect_entities: vec![("Counter".to_string(), version)],
                        entities: vec![next],
                        vectors: vec![vector(
                            VectorKind::Entity,
                            &format!("w{w}-r{round}"),
                            vec![1.0, w as f32, round as f32],
                        )],
                        ..ChangeSet::default()
                    };
                    match store.apply(changes).await {
                        Ok(()) => break,
                        Err(StoreError::Conflict(_)) => continue,
                        Err(e) => panic!("worker {w}: {e}"),
                    }
                }
            }
        }
    };
    join_all((0..4).map(worker)).await;
    for (name, store) in [("a", &a), ("b", &b)] {
        let counter = store.get_entities(&["Counter".to_string()]).await.expect("read").remove(0).expect("counter");
        assert_eq!(counter.description, "40", "{name}: no increment lost");
        assert_eq!(counter.version, 40, "{name}: one version per write");
        let hits = store.search_vectors(VectorKind::Entity, &[1.0, 0.0, 0.0], 100, -1.0).await.expect("search");
        assert_eq!(hits.len(), 40, "{name}: index holds every vector once");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_across_handles_never_overlap() {
    let (_dir, a, b) = two_handles();
    let rows = (0..60).map(|i| status_row(&format!("doc-{i:02}"), DocStatus::Pending, i)).collect();
    a.apply(ChangeSet { doc_status: rows, ..ChangeSet::default() }).await.expect("rows");
    let worker = |w: usize| {
        let store = [&a, &b][w % 2].clone();
        async move {
            let mut mine = Vec::new();
            loop {
                let req = ClaimRequest {
                    owner: format!("w{w}"),
                    lease_until: 1_000_000,
                    now: 1_000,
                    dead_owners: vec![],
                    include_failed: false,
                    only_ids: vec![],
                    limit: 2,
                };
                let got = store.claim(&req).await.expect("claim");
                if got.is_empty() {
                    return mine;
                }
                mine.extend(got.into_iter().map(|r| r.id));
            }
        }
    };
    let mut all: Vec<String> = join_all((0..4).map(worker)).await.into_iter().flatten().collect();
    let claimed = all.len();
    all.sort();
    all.dedup();
    assert_eq!(claimed, all.len(), "a document was claimed twice");
    assert_eq!(all.len(), 60, "every document was claimed");
}

/// Another process holding the file's write lock beyond the busy timeout is a transient
/// failure (`Unavailable`, with when to try again and SQLite's error as the cause), not a
/// backend failure: servers answer 503 with `Retry-After`, and indexing keeps the document
/// claimable. Once the lock goes, the same write succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_lock_held_by_another_process_is_unavailable_for_now() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("locked.sqlite");
    let options = lightrag_store_sqlite::SqliteOptions {
        busy_timeout: std::time::Duration::from_millis(100),
        ..Default::default()
    };
    let store = SqliteStore::open_with(&path, options).expect("open");
    let other = rusqlite::Connection::open(&path).expect("second connection");
    other.execute_batch("BEGIN IMMEDIATE").expect("take the write lock");
    let write = || ChangeSet { entities: vec![entity("Alice", &[])], ..ChangeSet::default() };

    match store.apply(write()).await {
        Err(e @ StoreError::Unavailable { .. }) => {
            assert!(e.retry_after().is_some_and(|d| !d.is_zero()), "says when to try again: {e}");
            assert!(e.to_string().contains("another process"), "says what holds it: {e}");
            let cause = std::error::Error::source(&e).expect("keeps SQLite's error as the cause");
            assert!(cause.downcast_ref::<rusqlite::Error>().is_some(), "the cause is SQLite's error: {cause}");
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }

    other.execute_batch("ROLLBACK").expect("release the write lock");
    store.apply(write()).await.expect("the same write succeeds once the lock is gone");
    let found = store.get_entities(&["Alice".to_string()]).await.expect("read").remove(0);
    assert!(found.is_some(), "the write was kept");
}
