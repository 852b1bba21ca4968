//! Checks of re-embedding: staging beside the live vectors, resuming, and the atomic switch.

use super::fixtures::*;
use crate::*;

fn staged(key: &str, content: &str, v: Vec<f32>) -> StagedVector {
    StagedVector { key: s(key), content: s(content), vector: v }
}

async fn pending_keys(store: &dyn Store, kind: VectorKind) -> Vec<String> {
    let mut keys = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = store.reembed_pending(kind, after.as_deref(), 2).await.expect("pending vectors");
        let Some(last) = page.last() else { break };
        after = Some(last.key.clone());
        keys.extend(page.into_iter().map(|p| p.key));
    }
    keys
}

/// New vectors are staged beside the live ones (searches and the identity unchanged), a second
/// begin with the same target resumes, a record rewritten meanwhile is pending again, the switch
/// refuses while anything is pending and then swaps vectors and identity in one step.
pub async fn check_reembed(store: &dyn Store) {
    let old = EmbeddingIdentity { model: s("model-a"), dim: 4 };
    store.check_embedding_identity(&old).await.expect("identity");
    let target = EmbeddingIdentity { model: s("model-b"), dim: 2 };
    assert!(store.reembed_pending(VectorKind::Chunk, None, 10).await.is_err(), "pending before begin must fail");
    let live = vec![
        vector(VectorKind::Chunk, "c1", vec![1.0, 0.0, 0.0, 0.0]),
        vector(VectorKind::Chunk, "c2", vec![0.0, 1.0, 0.0, 0.0]),
        vector(VectorKind::Entity, "e1", vec![0.0, 0.0, 1.0, 0.0]),
    ];
    let r = store.apply(ChangeSet { vectors: live, ..Default::default() }).await;
    r.expect("live vectors");

    let p = store.reembed_begin(&target).await.expect("begin");
    assert_eq!(p, ReembedProgress { staged: 0, pending: 3 });
    let chunks = store.reembed_pending(VectorKind::Chunk, None, 10).await.expect("pending");
    let got: Vec<(&str, &str)> = chunks.iter().map(|p| (p.key.as_str(), p.content.as_str())).collect();
    assert_eq!(got, vec![("c1", "text of c1"), ("c2", "text of c2")], "pending rows carry the stored text");
    let wrong = store.reembed_stage(VectorKind::Chunk, vec![staged("c1", "text of c1", vec![1.0, 0.0, 0.0])]).await;
    assert!(matches!(wrong, Err(StoreError::WrongDimension { expected: 2, got: 3 })), "got {wrong:?}");
    let nan = store.reembed_stage(VectorKind::Chunk, vec![staged("c1", "text of c1", vec![f32::NAN, 0.0])]).await;
    assert!(matches!(&nan, Err(StoreError::Invalid(m)) if m.contains("c1")), "a NaN vector is not staged: {nan:?}");
    let ok = store.reembed_stage(VectorKind::Chunk, vec![staged("c1", "text of c1", vec![3.0, 0.0])]).await;
    ok.expect("stage c1");
    assert_eq!(pending_keys(store, VectorKind::Chunk).await, vec![s("c2")], "c1 is staged");

    // the live side is untouched until the switch
    assert_eq!(store.embedding_identity().await.expect("identity"), Some(old.clone()));
    let hits = store.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0, 0.0], 1, 0.0).await.expect("old search");
    assert_eq!(hits.first().map(|h| h.key.as_str()), Some("c1"), "searches read the old vectors");

    // a second begin with the same target resumes
    let p = store.reembed_begin(&target).await.expect("resume");
    assert_eq!(p, ReembedProgress { staged: 1, pending: 2 }, "a second begin keeps what is staged");
    assert_eq!(store.reembed_switch().await.expect("switch"), SwitchOutcome::Pending(2));
    assert_eq!(store.embedding_identity().await.expect("identity"), Some(old.clone()), "no switch while pending");

    // c1 rewritten with the old model: pending again; e2 written, then deleted
    let rewrite = ChangeSet {
        vectors: vec![
            VectorRecord { content: s("new text of c1"), ..vector(VectorKind::Chunk, "c1", vec![1.0, 0.0, 0.0, 0.0]) },
            vector(VectorKind::Entity, "e2", vec![0.0, 0.0, 0.0, 1.0]),
        ],
        ..Default::default()
    };
    store.apply(rewrite).await.expect("rewrite");
    assert_eq!(pending_keys(store, VectorKind::Chunk).await, vec![s("c1"), s("c2")], "a rewritten text is pending");
    let rows = vec![staged("c1", "new text of c1", vec![0.0, 5.0]), staged("c2", "text of c2", vec![1.0, 0.0])];
    store.reembed_stage(VectorKind::Chunk, rows).await.expect("stage chunks");
    let rows = vec![staged("e1", "text of e1", vec![1.0, 1.0]), staged("e2", "text of e2", vec![1.0, -1.0])];
    store.reembed_stage(VectorKind::Entity, rows).await.expect("stage entities");
    store
        .apply(ChangeSet { delete_vectors: vec![(VectorKind::Entity, s("e2"))], ..Default::default() })
        .await
        .expect("delete e2");

    assert_eq!(store.reembed_switch().await.expect("switch"), SwitchOutcome::Switched { vectors: 3 });
    assert_eq!(store.embedding_identity().await.expect("identity"), Some(target.clone()), "the target is recorded");
    store.check_embedding_identity(&target).await.expect("the new identity is accepted");
    assert!(matches!(store.check_embedding_identity(&old).await, Err(StoreError::EmbeddingMismatch { .. })));
    let v = store.get_vectors(VectorKind::Chunk, &[s("c1"), s("c2")]).await.expect("vectors");
    assert_eq!(v, vec![Some(vec![0.0, 1.0]), Some(vec![1.0, 0.0])], "the staged vectors, normalised, are live");
    let hits = store.search_vectors(VectorKind::Chunk, &[0.0, 2.0], 2, 0.5).await.expect("new search");
    assert_eq!(hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(), vec!["c1"], "search uses the new vectors");
    let hits = store.search_vectors(VectorKind::Entity, &[1.0, 1.0], 5, -1.0).await.expect("entity search");
    assert_eq!(hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(), vec!["e1"], "deleted e2 stays deleted");
    let old_query = store.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0, 0.0], 1, 0.0).await;
    assert!(matches!(old_query, Err(StoreError::WrongDimension { expected: 2, got: 4 })), "got {old_query:?}");
    let counts = store.vector_counts().await.expect("counts");
    assert_eq!(counts.get(&VectorKind::Chunk), Some(&2));
    assert!(store.reembed_stage(VectorKind::Chunk, vec![]).await.is_err(), "the re-embedding is over");

    // a begin for another target than the one staged starts over
    let c = EmbeddingIdentity { model: s("model-c"), dim: 2 };
    store.reembed_begin(&c).await.expect("begin c");
    store.reembed_stage(VectorKind::Chunk, vec![staged("c1", "new text of c1", vec![1.0, 0.0])]).await.expect("stage");
    let d = EmbeddingIdentity { model: s("model-d"), dim: 2 };
    let p = store.reembed_begin(&d).await.expect("begin d");
    assert_eq!(p, ReembedProgress { staged: 0, pending: 3 }, "another target drops what was staged");

    // same dimension, another model: the search indexes take the new vectors too
    let rows = vec![staged("c1", "new text of c1", vec![1.0, 0.0]), staged("c2", "text of c2", vec![0.0, 1.0])];
    store.reembed_stage(VectorKind::Chunk, rows).await.expect("stage chunks for d");
    store.reembed_stage(VectorKind::Entity, vec![staged("e1", "text of e1", vec![1.0, 0.0])]).await.expect("e1");
    assert_eq!(store.reembed_switch().await.expect("switch"), SwitchOutcome::Switched { vectors: 3 });
    assert_eq!(store.embedding_identity().await.expect("identity"), Some(d));
    let hits = store.search_vectors(VectorKind::Chunk, &[0.0, 2.0], 1, 0.5).await.expect("search after d");
    assert_eq!(hits.first().map(|h| h.key.as_str()), Some("c2"), "the vectors of model-d are searched");
}
