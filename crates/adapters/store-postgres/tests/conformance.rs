//! The shared Store conformance suite against PostgreSQL: every check on a fresh workspace of
//! one database (so runs never collide and need no cleanup).

#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use lightrag_ports::Store;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_store_passes_the_conformance_suite() {
    let base = common::fresh_store("conf").await;
    let counter = AtomicUsize::new(0);
    lightrag_ports::conformance::run_all(|| {
        counter.fetch_add(1, Ordering::Relaxed);
        let store = base.workspace(&common::unique_workspace("conf"));
        async move { Arc::new(store) as Arc<dyn Store> }
    })
    .await;
    assert!(counter.load(Ordering::Relaxed) >= 20, "every check ran on its own workspace");
}
