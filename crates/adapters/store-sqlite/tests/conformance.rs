//! The shared Store conformance suite against SQLite files in temporary directories.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use lightrag_ports::Store;
use lightrag_store_sqlite::SqliteStore;

// One test per check (`conformance::sqlite::check_…`), each on a new file in a directory of its own.
lightrag_ports::store_conformance!(sqlite, || async {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("lightrag.sqlite")).expect("open store");
    (Arc::new(store) as Arc<dyn Store>, dir)
});

/// The re-embedding check (also one of the suite's tests), then the file reopened: the
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
