//! The shared Store conformance suite against SQLite files in a temporary directory.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use lightrag_ports::Store;
use lightrag_store_sqlite::SqliteStore;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_store_passes_the_conformance_suite() {
    let dir = tempfile::tempdir().expect("temp dir");
    let counter = AtomicUsize::new(0);
    let root = dir.path().to_path_buf();
    lightrag_ports::conformance::run_all(|| {
        let n = counter.fetch_add(1, Ordering::Relaxed);
        let path = root.join(format!("store-{n}/lightrag.sqlite"));
        async move { Arc::new(SqliteStore::open(&path).expect("open store")) as Arc<dyn Store> }
    })
    .await;
    assert!(counter.load(Ordering::Relaxed) >= 20, "every check ran on its own store");
}

/// The re-embedding check on its own (also part of the suite above), then the file reopened: the
/// switched vectors and their dimension are what a new handle reads and searches.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reembedded_store_switches_its_vectors_and_reopens_with_the_new_dimension() {
    use lightrag_ports::prelude::*;
    use lightrag_ports::{EmbeddingIdentity, VectorKind};
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("lightrag.sqlite");
    {
        let store = SqliteStore::open(&path).expect("open store");
        lightrag_ports::conformance::check_reembed(&store).await;
    }
    let store = SqliteStore::open(&path).expect("reopen store");
    let id = store.embedding_identity().await.expect("identity").expect("recorded");
    assert_eq!(id, EmbeddingIdentity { model: "model-d".into(), dim: 2 });
    let hits = store.search_vectors(VectorKind::Chunk, &[0.0, 1.0], 1, 0.5).await.expect("search");
    assert_eq!(hits.first().map(|h| h.key.as_str()), Some("c2"), "the reopened index holds the switched vectors");
}
