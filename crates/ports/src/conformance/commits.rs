//! Checks of change sets: round trips, versions, atomicity, deletion cascades.

use serde_json::json;

use super::fixtures::*;
use crate::*;

/// Everything a change set writes reads back (status, chunks, extractions, links, graph, vectors).
pub async fn check_apply_round_trip(store: &dyn Store) {
    let mut status = status_row("doc-1", DocStatus::Processed, 100);
    status.chunks_count = Some(2);
    status.chunks_list = names(&["doc-1-chunk-000", "doc-1-chunk-001"]);
    status.error_msg = Some(s("none"));
    status.metadata.insert(s("process_start_time"), json!(123));
    // nested values too (typed extraction's per-document report)
    status
        .metadata
        .insert(s("extraction_schema"), json!({"types_remapped": 2, "relations_dropped": {"unknown_type": 1}}));
    status.lease_owner = Some(s("w"));
    status.lease_until = Some(77);
    let chunks = vec![chunk("doc-1", 0), chunk("doc-1", 1)];
    let mut merged = extraction("doc-1-chunk-001", "doc-1", 5);
    // what a merge leaves in a record: the written names, and a relation folded into one entity
    merged.entities[0].written_as = Some(s("Alfa"));
    merged.relations[0].tgt_written_as = Some(s("Alfa"));
    let mut folded = merged.relations[0].clone();
    folded.src = s("Alpha");
    folded.src_written_as = Some(s("Alpha Prime"));
    merged.folded_relations.push(folded);
    let extractions = vec![merged, extraction("doc-1-chunk-000", "doc-1", 9)];
    let links = DocLinks {
        doc_id: s("doc-1"),
        entities: names(&["Alpha", "Beta"]),
        relations: vec![RelKey::new("Beta", "Alpha")],
    };
    let e = entity("Alpha", &["doc-1-chunk-000"]);
    let r = relation("Beta", "Alpha", &["doc-1-chunk-001"]);
    apply_ok(
        store,
        ChangeSet {
            doc_status: vec![status.clone()],
            chunks: chunks.clone(),
            extractions: extractions.clone(),
            entities: vec![e.clone(), entity("Beta", &[])],
            relations: vec![r.clone()],
            vectors: vec![vector(VectorKind::Entity, "Alpha", vec![3.0, 4.0, 0.0])],
            doc_links: vec![links.clone()],
            ..Default::default()
        },
        "round trip",
    )
    .await;
    assert_eq!(store.get_doc_status("doc-1").await.expect("get"), Some(status), "status row round-trips");
    let ids = names(&["doc-1-chunk-001", "missing", "doc-1-chunk-000", "doc-1-chunk-001"]);
    let got = store.get_chunks(&ids).await.expect("get_chunks");
    assert_eq!(
        got,
        vec![Some(chunks[1].clone()), None, Some(chunks[0].clone()), Some(chunks[1].clone())],
        "get_chunks keeps request order, None for unknown ids"
    );
    let got =
        store.get_extractions(&names(&["doc-1-chunk-000", "nope", "doc-1-chunk-001"])).await.expect("extractions");
    assert_eq!(
        got, extractions,
        "extractions (written names and folded relations included) ordered by created_at then chunk id, unknown skipped"
    );
    assert_eq!(store.get_doc_links("doc-1").await.expect("links"), Some(links));
    assert_eq!(store.get_doc_links("doc-x").await.expect("links"), None);
    let got = store.get_entities(&names(&["Nope", "Alpha"])).await.expect("entities");
    assert!(got[0].is_none(), "unknown entity is None");
    assert_eq!(got[1], Some(Entity { version: 1, ..e }), "entity round-trips with version 1");
    let got = store.get_relations(&[RelKey::new("Alpha", "Beta")]).await.expect("relations");
    assert_eq!(got, vec![Some(Relation { version: 1, ..r })], "relation round-trips with version 1");
    let got = store.get_vectors(VectorKind::Entity, &names(&["Alpha", "Beta"])).await.expect("vectors");
    let v = got[0].as_ref().expect("Alpha vector stored");
    assert!(
        (v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6 && v[2].abs() < 1e-6,
        "stored vectors are normalised: {v:?}"
    );
    assert!(got[1].is_none());
    let counts = store.vector_counts().await.expect("counts");
    assert_eq!(counts.get(&VectorKind::Entity).copied().unwrap_or(0), 1);
    assert_eq!(counts.get(&VectorKind::Chunk).copied().unwrap_or(0), 0);
    store.apply(ChangeSet::default()).await.expect("an empty change set is accepted");
}

/// Versions: 1 on first write, +1 per write; expectations checked.
pub async fn check_versions(store: &dyn Store) {
    let key = RelKey::new("A", "B");
    apply_ok(
        store,
        ChangeSet {
            expect_entities: vec![(s("A"), None)],
            expect_relations: vec![(key.clone(), None)],
            entities: vec![entity("A", &[])],
            relations: vec![relation("A", "B", &[])],
            ..Default::default()
        },
        "first write",
    )
    .await;
    for round in 2..=3u64 {
        apply_ok(
            store,
            ChangeSet {
                expect_entities: vec![(s("A"), Some(round - 1))],
                expect_relations: vec![(RelKey { src: s("B"), tgt: s("A") }, Some(round - 1))],
                entities: vec![entity("A", &[])],
                relations: vec![relation("B", "A", &[])],
                ..Default::default()
            },
            "rewrite",
        )
        .await;
        let e = store.get_entities(&names(&["A"])).await.expect("get")[0].clone().expect("A");
        assert_eq!(e.version, round, "entity version after {round} writes");
        let r = store.get_relations(std::slice::from_ref(&key)).await.expect("get")[0].clone().expect("A-B");
        assert_eq!(r.version, round, "relation version after {round} writes");
    }
    // Stale expectations.
    let r = store
        .apply(ChangeSet {
            expect_entities: vec![(s("A"), Some(1))],
            entities: vec![entity("A", &[])],
            ..Default::default()
        })
        .await;
    assert!(
        matches!(&r, Err(StoreError::Conflict(m)) if m.contains('A')),
        "stale entity version must conflict naming it: {r:?}"
    );
    let r = store.apply(ChangeSet { expect_entities: vec![(s("A"), None)], ..Default::default() }).await;
    assert!(matches!(r, Err(StoreError::Conflict(_))), "expecting absent for an existing entity must conflict");
    let r = store.apply(ChangeSet { expect_entities: vec![(s("Z"), Some(1))], ..Default::default() }).await;
    assert!(matches!(r, Err(StoreError::Conflict(_))), "expecting a version of a missing entity must conflict");
    let r = store.apply(ChangeSet { expect_relations: vec![(key.clone(), Some(7))], ..Default::default() }).await;
    assert!(matches!(r, Err(StoreError::Conflict(_))), "stale relation version must conflict");
    let e = store.get_entities(&names(&["A"])).await.expect("get")[0].clone().expect("A");
    assert_eq!(e.version, 3, "failed applies do not bump versions");
    // Delete then recreate restarts at 1.
    apply_ok(store, ChangeSet { delete_entities: names(&["A"]), ..Default::default() }, "delete").await;
    apply_ok(store, ChangeSet { entities: vec![entity("A", &[])], ..Default::default() }, "recreate").await;
    let e = store.get_entities(&names(&["A"])).await.expect("get")[0].clone().expect("A");
    assert_eq!(e.version, 1, "a re-created entity starts at version 1");
}

/// A conflicting change set writes nothing at all.
pub async fn check_conflict_is_atomic(store: &dyn Store) {
    put_doc(store, "doc-keep", 2).await;
    apply_ok(store, ChangeSet { entities: vec![entity("E", &[])], ..Default::default() }, "entity").await;
    let before_usage = store.usage().await.expect("usage");
    let mut usage = Usage::new();
    usage.insert(UsageRole::Extract, UsageCounters { calls: 1, cache_hits: 0, tokens_in: 10, tokens_out: 5 });
    let bad = ChangeSet {
        expect_entities: vec![(s("N"), None), (s("E"), Some(99))],
        doc_status: vec![status_row("doc-new", DocStatus::Processed, 1)],
        delete_documents: names(&["doc-keep"]),
        chunks: vec![chunk("doc-new", 0)],
        extractions: vec![extraction("doc-new-chunk-000", "doc-new", 1)],
        entities: vec![entity("N", &[]), entity("E", &[])],
        delete_entities: names(&["E"]),
        relations: vec![relation("N", "E", &[])],
        vectors: vec![vector(VectorKind::Chunk, "doc-new-chunk-000", vec![1.0, 0.0, 0.0, 0.0])],
        doc_links: vec![DocLinks { doc_id: s("doc-new"), ..Default::default() }],
        usage,
        ..Default::default()
    };
    let r = store.apply(bad).await;
    assert!(matches!(&r, Err(StoreError::Conflict(m)) if m.contains('E')), "expected a conflict on E, got {r:?}");
    assert!(store.get_doc_status("doc-new").await.expect("get").is_none(), "conflict wrote a status row");
    assert!(store.get_doc_status("doc-keep").await.expect("get").is_some(), "conflict ran a deletion");
    assert_eq!(
        store.get_chunks(&names(&["doc-new-chunk-000"])).await.expect("get"),
        vec![None],
        "conflict wrote a chunk"
    );
    assert!(
        store.get_extractions(&names(&["doc-new-chunk-000"])).await.expect("get").is_empty(),
        "conflict wrote an extraction"
    );
    let ents = store.get_entities(&names(&["N", "E"])).await.expect("get");
    assert!(ents[0].is_none(), "conflict wrote an entity");
    assert_eq!(ents[1].as_ref().map(|e| e.version), Some(1), "conflict touched an entity");
    assert_eq!(store.graph_counts().await.expect("counts").edges, 0, "conflict wrote a relation");
    assert!(store.get_doc_links("doc-new").await.expect("links").is_none(), "conflict wrote doc links");
    assert_eq!(store.usage().await.expect("usage"), before_usage, "conflict added usage");
    let hits = store.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0, 0.0], 10, -1.0).await.expect("search");
    assert!(hits.iter().all(|h| h.key != "doc-new-chunk-000"), "conflict wrote a searchable vector");
    assert_eq!(hits.len(), 2, "the kept document's vectors are still searchable");
}

/// Deleting a document removes its text, status, chunks, chunk vectors, extractions and links.
pub async fn check_delete_documents_cascade(store: &dyn Store) {
    store
        .enqueue(vec![new_document("doc-1", "one", 1, "t"), new_document("doc-2", "two", 2, "t")])
        .await
        .expect("enqueue");
    put_doc(store, "doc-1", 3).await;
    put_doc(store, "doc-2", 2).await;
    apply_ok(
        store,
        ChangeSet { entities: vec![entity("Alpha", &["doc-1-chunk-000"])], ..Default::default() },
        "entity",
    )
    .await;
    apply_ok(store, ChangeSet { delete_documents: names(&["doc-1"]), ..Default::default() }, "delete doc-1").await;
    assert!(store.get_document("doc-1").await.expect("get").is_none(), "full text removed");
    assert!(store.get_doc_status("doc-1").await.expect("get").is_none(), "status removed");
    let c1: Vec<String> = (0..3).map(|i| ids::chunk_id("doc-1", i)).collect();
    assert!(store.get_chunks(&c1).await.expect("get").iter().all(Option::is_none), "chunks removed");
    assert!(store.get_extractions(&c1).await.expect("get").is_empty(), "extractions removed");
    assert!(
        store.get_vectors(VectorKind::Chunk, &c1).await.expect("get").iter().all(Option::is_none),
        "chunk vectors removed"
    );
    assert!(store.get_doc_links("doc-1").await.expect("get").is_none(), "links removed");
    let hits = store.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.5, 0.0], 10, -1.0).await.expect("search");
    let mut keys: Vec<String> = hits.into_iter().map(|h| h.key).collect();
    keys.sort();
    assert_eq!(keys, names(&["doc-2-chunk-000", "doc-2-chunk-001"]), "only doc-2's chunks stay searchable");
    assert!(store.get_document("doc-2").await.expect("get").is_some(), "other documents are kept");
    assert_eq!(store.get_extractions(&names(&["doc-2-chunk-000"])).await.expect("get").len(), 1);
    assert!(store.get_doc_links("doc-2").await.expect("get").is_some());
    assert!(
        store.get_entities(&names(&["Alpha"])).await.expect("get")[0].is_some(),
        "graph is not touched by document deletion"
    );
    assert_eq!(store.vector_counts().await.expect("counts").get(&VectorKind::Chunk).copied(), Some(2));
}

/// Deletions run before upserts, so one change set may delete and re-create a key.
pub async fn check_delete_then_recreate(store: &dyn Store) {
    put_doc(store, "doc-1", 2).await;
    apply_ok(
        store,
        ChangeSet {
            entities: vec![entity("A", &[])],
            vectors: vec![vector(VectorKind::Entity, "A", vec![1.0, 0.0, 0.0, 0.0])],
            ..Default::default()
        },
        "A",
    )
    .await;
    let mut status = status_row("doc-1", DocStatus::Pending, 1);
    status.content_summary = s("recreated");
    apply_ok(
        store,
        ChangeSet {
            delete_documents: names(&["doc-1"]),
            doc_status: vec![status],
            chunks: vec![chunk("doc-1", 0)],
            delete_entities: names(&["A"]),
            entities: vec![entity("A", &[])],
            vectors: vec![vector(VectorKind::Entity, "A", vec![0.0, 1.0, 0.0, 0.0])],
            ..Default::default()
        },
        "delete and recreate",
    )
    .await;
    let st = store.get_doc_status("doc-1").await.expect("get").expect("re-created status");
    assert_eq!(st.content_summary, "recreated");
    let got = store.get_chunks(&names(&["doc-1-chunk-000", "doc-1-chunk-001"])).await.expect("get");
    assert!(got[0].is_some() && got[1].is_none(), "re-created chunk kept, others deleted");
    let e = store.get_entities(&names(&["A"])).await.expect("get")[0].clone().expect("A");
    assert_eq!(e.version, 1, "delete + re-create in one change set starts at version 1");
    let hits = store.search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0, 0.0], 1, 0.0).await.expect("search");
    assert_eq!(hits.len(), 1);
    assert!((hits[0].score - 1.0).abs() < 1e-5, "the re-created vector is the one searched");
}

/// Full texts and LLM cache entries written by a change set read back, replace earlier ones, and
/// are not written when the change set conflicts.
pub async fn check_documents_and_cache_in_change_sets(store: &dyn Store) {
    let cached = |key: &str, response: &str| CacheEntry {
        key: key.to_string(),
        cache_type: s("extract"),
        response: response.to_string(),
        chunk_id: Some(s("doc-imp-chunk-000")),
        created_at: 7,
    };
    let doc = document("doc-imp", "brought over whole", 3);
    let status = status_row("doc-imp", DocStatus::Processed, 3);
    apply_ok(
        store,
        ChangeSet {
            documents: vec![doc.clone()],
            doc_status: vec![status.clone()],
            cache: vec![cached("default:extract:a", "first"), cached("default:extract:b", "second")],
            ..Default::default()
        },
        "documents and cache",
    )
    .await;
    assert_eq!(store.get_document("doc-imp").await.expect("get"), Some(doc.clone()), "document round-trips");
    assert_eq!(store.get_doc_status("doc-imp").await.expect("get"), Some(status));
    assert_eq!(store.cache_get("default:extract:b").await.expect("get"), Some(cached("default:extract:b", "second")));

    let replaced = Document { content: s("replaced text"), ..doc.clone() };
    apply_ok(
        store,
        ChangeSet {
            documents: vec![replaced.clone()],
            cache: vec![cached("default:extract:a", "again")],
            ..Default::default()
        },
        "replace",
    )
    .await;
    assert_eq!(store.get_document("doc-imp").await.expect("get"), Some(replaced), "a document is replaced whole");
    assert_eq!(store.cache_get("default:extract:a").await.expect("get").map(|e| e.response), Some(s("again")));

    let bad = ChangeSet {
        expect_entities: vec![(s("Missing"), Some(4))],
        documents: vec![document("doc-never", "never written", 1)],
        cache: vec![cached("default:extract:never", "never")],
        ..Default::default()
    };
    assert!(matches!(store.apply(bad).await, Err(StoreError::Conflict(_))), "expected a conflict");
    assert!(store.get_document("doc-never").await.expect("get").is_none(), "conflict wrote a document");
    assert!(store.cache_get("default:extract:never").await.expect("get").is_none(), "conflict wrote a cache entry");
}
