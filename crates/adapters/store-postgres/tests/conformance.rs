//! The shared Store conformance suite against PostgreSQL: every check on a fresh workspace of
//! one database (so runs never collide and need no cleanup).

#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use lightrag_ports::Store;

// One test per check (`conformance::postgres::check_…`), each on a fresh workspace.
lightrag_ports::store_conformance!(postgres, || async {
    Arc::new(common::fresh_store("conf").await) as Arc<dyn Store>
});

/// The re-embedding check (also one of the suite's tests), then a second handle on the
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
