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
