//! Checks of vector sets: identity, exact search, updates, deletions, dimensions, unusable vectors.

use super::fixtures::*;
use crate::*;

/// Identity is recorded on first use, accepted again, refused when model or dimension differ.
pub async fn check_embedding_identity(store: &dyn Store) {
    let id = EmbeddingIdentity { model: s("model-a"), dim: 4 };
    assert_eq!(store.embedding_identity().await.expect("read identity"), None, "nothing recorded yet");
    store.check_embedding_identity(&id).await.expect("first identity check must record it");
    assert_eq!(store.embedding_identity().await.expect("read identity"), Some(id.clone()), "the recorded identity");
    store.check_embedding_identity(&id).await.expect("same identity must be accepted again");
    let other_model = EmbeddingIdentity { model: s("model-b"), dim: 4 };
    match store.check_embedding_identity(&other_model).await {
        Err(StoreError::EmbeddingMismatch { stored_model, stored_dim, configured_model, configured_dim }) => {
            assert_eq!((stored_model.as_str(), stored_dim), ("model-a", 4), "mismatch must report the stored identity");
            assert_eq!((configured_model.as_str(), configured_dim), ("model-b", 4));
        }
        other => panic!("a different model must give EmbeddingMismatch, got {other:?}"),
    }
    let other_dim = EmbeddingIdentity { model: s("model-a"), dim: 8 };
    assert!(
        matches!(store.check_embedding_identity(&other_dim).await, Err(StoreError::EmbeddingMismatch { .. })),
        "a different dimension must give EmbeddingMismatch"
    );
    // The identity fixes the dimension of vectors.
    let r = store
        .apply(ChangeSet { vectors: vec![vector(VectorKind::Chunk, "c", vec![1.0; 8])], ..Default::default() })
        .await;
    assert!(
        matches!(r, Err(StoreError::WrongDimension { expected: 4, got: 8 })),
        "vectors must match the identity dim, got {r:?}"
    );
}

/// Search equals brute force on random data: order, scores, top-k, min_score.
pub async fn check_vector_search_exact(store: &dyn Store) {
    let dim = 24;
    let mut rng = TestRng::new(42);
    let data: Vec<(String, Vec<f32>)> = (0..400).map(|i| (format!("chunk-{i:04}"), rng.vector(dim))).collect();
    // Written in two change sets to exercise incremental index updates.
    for part in data.chunks(250) {
        let vectors = part.iter().map(|(k, v)| vector(VectorKind::Chunk, k, v.clone())).collect();
        apply_ok(store, ChangeSet { vectors, ..Default::default() }, "random vectors").await;
    }
    apply_ok(
        store,
        ChangeSet { vectors: vec![vector(VectorKind::Entity, "other-set", rng.vector(dim))], ..Default::default() },
        "entity",
    )
    .await;
    let units: Vec<(String, Vec<f32>)> = data.iter().map(|(k, v)| (k.clone(), unit(v))).collect();
    for q in 0..8 {
        let query: Vec<f32> = rng.vector(dim).iter().map(|x| x * 3.0).collect(); // not normalised
        let qn = unit(&query);
        let mut expected: Vec<(f32, &str)> = units.iter().map(|(k, v)| (dot(v, &qn), k.as_str())).collect();
        expected.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (top_k, min_score) in [(10usize, -1.0f32), (1, -1.0), (50, 0.3), (1000, 0.0)] {
            let hits = store.search_vectors(VectorKind::Chunk, &query, top_k, min_score).await.expect("search");
            let want: Vec<&(f32, &str)> = expected.iter().filter(|(sc, _)| *sc >= min_score).take(top_k).collect();
            assert_eq!(hits.len(), want.len(), "query {q} top_k {top_k} min {min_score}: hit count");
            for (h, (sc, k)) in hits.iter().zip(want) {
                assert_eq!(&h.key, k, "query {q} top_k {top_k} min {min_score}: order differs from brute force");
                assert!((h.score - sc).abs() < 1e-4, "score {} vs brute force {sc}", h.score);
            }
            assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "hits best first");
            assert!(hits.iter().all(|h| h.score >= min_score), "min_score respected");
        }
    }
    // A stored vector finds itself with similarity 1 whatever its length.
    let (k, v) = &data[17];
    let scaled: Vec<f32> = v.iter().map(|x| x * 0.01).collect();
    let hits = store.search_vectors(VectorKind::Chunk, &scaled, 1, 0.0).await.expect("search");
    assert_eq!(&hits[0].key, k);
    assert!((hits[0].score - 1.0).abs() < 1e-4, "cosine of a vector with itself is 1, got {}", hits[0].score);
    assert!(store.search_vectors(VectorKind::Chunk, &scaled, 0, -1.0).await.expect("search").is_empty(), "top_k 0");
    assert!(
        store.search_vectors(VectorKind::Chunk, &scaled, 5, 1.5).await.expect("search").is_empty(),
        "min_score above 1"
    );
    let hits = store.search_vectors(VectorKind::Entity, &scaled, 10, -1.0).await.expect("search");
    assert_eq!(hits.len(), 1, "sets are separate");
    assert!(store.search_vectors(VectorKind::Relation, &scaled, 10, -1.0).await.expect("search").is_empty());
    let counts = store.vector_counts().await.expect("counts");
    assert_eq!(counts.get(&VectorKind::Chunk).copied(), Some(400));
    let stored =
        store.get_vectors(VectorKind::Chunk, std::slice::from_ref(k)).await.expect("get")[0].clone().expect("stored");
    let norm: f32 = stored.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-5, "stored vector is unit length ({norm})");

    // Similarities: the exact cosine of each stored vector to an unnormalised query, in the order
    // asked, None for a key without a vector (or of another set), repeats answered each time.
    let query: Vec<f32> = rng.vector(dim).iter().map(|x| x * 7.0).collect();
    let qn = unit(&query);
    let asked = names(&["chunk-0003", "no-such-chunk", "chunk-0399", "other-set", "chunk-0003"]);
    let got = store.similarities(VectorKind::Chunk, &asked, &query).await.expect("similarities");
    assert_eq!(got.len(), asked.len(), "one answer per key, in order");
    assert!(got[1].is_none() && got[3].is_none(), "no vector, no similarity: {got:?}");
    for slot in [0, 2, 4] {
        let want = units.iter().find(|(k, _)| *k == asked[slot]).map(|(_, v)| dot(v, &qn)).expect("known key");
        let sim = got[slot].unwrap_or_else(|| panic!("{} has a vector", asked[slot]));
        assert!((sim - want).abs() < 1e-4, "{}: similarity {sim}, cosine {want}", asked[slot]);
    }
    assert!(store.similarities(VectorKind::Chunk, &[], &query).await.expect("empty").is_empty());
}

/// Updating a vector replaces it; deleting removes it from search.
pub async fn check_vector_update_and_delete(store: &dyn Store) {
    let rkey = VectorRecord::relation_key(&RelKey::new("A", "B"));
    apply_ok(
        store,
        ChangeSet {
            relations: vec![relation("A", "B", &[])],
            vectors: vec![
                vector(VectorKind::Relation, &rkey, vec![1.0, 0.0, 0.0]),
                vector(VectorKind::Entity, "X", vec![1.0, 0.0, 0.0]),
                vector(VectorKind::Entity, "Y", vec![0.0, 1.0, 0.0]),
                vector(VectorKind::Entity, "Z", vec![0.0, 0.0, 1.0]),
            ],
            ..Default::default()
        },
        "vectors",
    )
    .await;
    apply_ok(
        store,
        ChangeSet { vectors: vec![vector(VectorKind::Entity, "X", vec![0.0, 5.0, 0.0])], ..Default::default() },
        "update",
    )
    .await;
    let hits = store.search_vectors(VectorKind::Entity, &[1.0, 0.0, 0.0], 3, 0.5).await.expect("search");
    assert!(hits.is_empty(), "the old vector of X must be gone: {hits:?}");
    let hits = store.search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0], 3, 0.5).await.expect("search");
    let mut keys: Vec<&str> = hits.iter().map(|h| h.key.as_str()).collect();
    keys.sort();
    assert_eq!(keys, vec!["X", "Y"], "updated vector replaces the old one");
    assert_eq!(
        store.vector_counts().await.expect("counts").get(&VectorKind::Entity).copied(),
        Some(3),
        "update does not add"
    );
    apply_ok(store, ChangeSet { delete_entities: names(&["Y"]), ..Default::default() }, "delete Y").await;
    let hits = store.search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0], 3, -1.0).await.expect("search");
    assert!(hits.iter().all(|h| h.key != "Y") && hits.len() == 2, "deleted vector gone: {hits:?}");
    let hits = store.search_vectors(VectorKind::Relation, &[1.0, 0.0, 0.0], 3, 0.0).await.expect("search");
    assert_eq!(hits.len(), 1);
    assert_eq!(
        VectorRecord::parse_relation_key(&hits[0].key),
        Some(RelKey::new("A", "B")),
        "relation vector keys parse back"
    );
}

/// Vectors and queries of another dimension are refused; a refused change set writes nothing.
pub async fn check_wrong_dimension(store: &dyn Store) {
    apply_ok(
        store,
        ChangeSet { vectors: vec![vector(VectorKind::Chunk, "c1", vec![1.0, 0.0, 0.0])], ..Default::default() },
        "first",
    )
    .await;
    let r = store
        .apply(ChangeSet {
            entities: vec![entity("Ghost", &[])],
            vectors: vec![
                vector(VectorKind::Entity, "ok", vec![0.0, 1.0, 0.0]),
                vector(VectorKind::Chunk, "c2", vec![1.0, 0.0]),
            ],
            ..Default::default()
        })
        .await;
    assert!(matches!(r, Err(StoreError::WrongDimension { expected: 3, got: 2 })), "wrong write dimension: {r:?}");
    assert!(
        store.get_entities(&names(&["Ghost"])).await.expect("get")[0].is_none(),
        "a refused change set writes nothing"
    );
    assert!(
        store.search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0], 5, -1.0).await.expect("search").is_empty(),
        "no partial vectors"
    );
    let r = store.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0, 0.0], 5, -1.0).await;
    assert!(matches!(r, Err(StoreError::WrongDimension { expected: 3, got: 4 })), "wrong query dimension: {r:?}");
    let r = store.search_vectors(VectorKind::Relation, &[1.0], 5, -1.0).await;
    assert!(
        matches!(r, Err(StoreError::WrongDimension { .. })),
        "wrong dimension on an empty set of a dimensioned store: {r:?}"
    );
}

/// A NaN, infinite or zero vector is refused (the whole change set is, naming the record), also
/// when staged by a re-embedding; an unusable query finds and scores nothing.
pub async fn check_unusable_vectors(store: &dyn Store) {
    apply_ok(
        store,
        ChangeSet {
            vectors: vec![
                vector(VectorKind::Chunk, "c1", vec![1.0, 0.0, 0.0]),
                vector(VectorKind::Chunk, "c2", vec![0.6, 0.8, 0.0]),
            ],
            ..Default::default()
        },
        "usable vectors",
    )
    .await;
    for (bad, flaw) in [
        (vec![f32::NAN, 1.0, 0.0], "NaN or infinite"),
        (vec![0.0, f32::INFINITY, 0.0], "NaN or infinite"),
        (vec![0.0, 0.0, 0.0], "only zeros"),
    ] {
        let r = store
            .apply(ChangeSet {
                entities: vec![entity("Ghost", &[])],
                vectors: vec![
                    vector(VectorKind::Entity, "fine", vec![0.0, 1.0, 0.0]),
                    vector(VectorKind::Entity, "Ghost", bad.clone()),
                ],
                ..Default::default()
            })
            .await;
        assert!(
            matches!(&r, Err(StoreError::Invalid(m)) if m.contains("Ghost") && m.contains(flaw)),
            "{bad:?} is refused, naming the record: {r:?}"
        );
        assert!(store.get_entities(&names(&["Ghost"])).await.expect("get")[0].is_none(), "nothing was written");
        let held = store.get_vectors(VectorKind::Entity, &names(&["fine", "Ghost"])).await.expect("get");
        assert_eq!(held, vec![None, None], "no vector of the refused change set");
    }
    for query in [vec![f32::NAN, 0.0, 0.0], vec![0.0, 0.0, 0.0]] {
        let hits = store.search_vectors(VectorKind::Chunk, &query, 5, -1.0).await.expect("search");
        assert!(hits.is_empty(), "an unusable query finds nothing: {hits:?}");
        let sims = store.similarities(VectorKind::Chunk, &names(&["c1", "c2"]), &query).await.expect("similarities");
        assert_eq!(sims, vec![None, None], "an unusable query scores nothing");
    }
    let hits = store.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0], 5, -1.0).await.expect("search");
    assert_eq!(hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(), vec!["c1", "c2"], "{hits:?}");
    assert!(hits.iter().all(|h| h.score.is_finite()));
}
