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

/// The re-embedding check on its own (also part of the suite above), then a second handle on the
/// workspace: it reads the switched identity and searches the new vectors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reembedded_workspace_switches_its_vectors_for_every_handle() {
    use lightrag_ports::{EmbeddingIdentity, VectorKind};
    let base = common::fresh_store("reembed").await;
    let ws = common::unique_workspace("reembed");
    let store = base.workspace(&ws);
    lightrag_ports::conformance::check_reembed(&store).await;
    let again: Arc<dyn Store> = Arc::new(base.workspace(&ws));
    let id = again.embedding_identity().await.expect("identity").expect("recorded");
    assert_eq!(id, EmbeddingIdentity { model: "model-d".into(), dim: 2 });
    let hits = again.search_vectors(VectorKind::Chunk, &[0.0, 1.0], 1, 0.5).await.expect("search");
    assert_eq!(hits.first().map(|h| h.key.as_str()), Some("c2"));
}
