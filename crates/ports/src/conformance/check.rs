//! Checks of what `lightrag check` relies on: the backend's integrity check, the listings of
//! every chunk and every vector key, and the deletion of single chunks and vectors.

use super::fixtures::*;
use crate::*;

/// Every page of chunk keys, `limit` at a time.
async fn all_chunk_keys(store: &dyn Store, limit: usize) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    loop {
        let after = out.last().map(|(id, _)| id.clone());
        let page = store.chunk_keys_page(after.as_deref(), limit).await.expect("chunk_keys_page");
        assert!(page.len() <= limit, "a page holds at most `limit` rows");
        let done = page.len() < limit;
        out.extend(page);
        if done {
            return out;
        }
    }
}

/// Every page of the keys of `kind`, `limit` at a time.
async fn all_vector_keys(store: &dyn Store, kind: VectorKind, limit: usize) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    loop {
        let after = out.last().map(|(key, _)| key.clone());
        let page = store.vector_keys_page(kind, after.as_deref(), limit).await.expect("vector_keys_page");
        assert!(page.len() <= limit, "a page holds at most `limit` keys");
        assert!(page.iter().all(|v| v.flaw.is_none()), "a store holds no flawed vector it was given: {page:?}");
        let done = page.len() < limit;
        out.extend(page.into_iter().map(|v| (v.key, v.dim)));
        if done {
            return out;
        }
    }
}

/// A sound store reports no integrity problem; chunk and vector keys are listed in bytewise
/// order, page by page, with document ids and dimensions, whatever records exist.
pub async fn check_integrity_and_key_listings(store: &dyn Store) {
    assert!(store.check_integrity().await.expect("check_integrity").is_empty(), "an empty store is sound");
    assert!(all_chunk_keys(store, 3).await.is_empty(), "no chunks yet");
    put_doc(store, "doc-b", 4).await;
    put_doc(store, "doc-a", 3).await;
    // a chunk whose document has no row at all is listed too
    apply_ok(store, ChangeSet { chunks: vec![chunk("doc-gone", 0)], ..Default::default() }, "lone chunk").await;
    let mut want: Vec<(String, String)> = ["doc-a", "doc-b"]
        .iter()
        .flat_map(|d| (0..if *d == "doc-a" { 3 } else { 4 }).map(move |i| (chunk(d, i).id, d.to_string())))
        .collect();
    want.push((chunk("doc-gone", 0).id, s("doc-gone")));
    want.sort();
    assert_eq!(all_chunk_keys(store, 3).await, want, "every chunk once, by id, with its document");
    assert_eq!(all_chunk_keys(store, 100).await, want, "one page");

    apply_ok(
        store,
        ChangeSet {
            vectors: vec![
                vector(VectorKind::Entity, "Zed", vec![1.0, 0.0, 0.0, 0.0]),
                vector(VectorKind::Entity, "Alpha", vec![0.0, 1.0, 0.0, 0.0]),
                vector(VectorKind::Entity, "alpha", vec![0.0, 0.0, 1.0, 0.0]),
                vector(VectorKind::Relation, &VectorRecord::relation_key(&RelKey::new("B", "A")), vec![1.0; 4]),
            ],
            ..Default::default()
        },
        "vectors without records",
    )
    .await;
    assert_eq!(
        all_vector_keys(store, VectorKind::Entity, 2).await,
        vec![(s("Alpha"), 4), (s("Zed"), 4), (s("alpha"), 4)],
        "entity vector keys in bytewise order, with their dimension"
    );
    assert_eq!(
        all_vector_keys(store, VectorKind::Relation, 2).await,
        vec![(VectorRecord::relation_key(&RelKey::new("A", "B")), 4)],
        "relation vector keys in canonical order"
    );
    let chunk_keys: Vec<String> =
        all_vector_keys(store, VectorKind::Chunk, 5).await.into_iter().map(|(k, _)| k).collect();
    let mut want_chunks: Vec<String> = want.iter().filter(|(_, d)| d != "doc-gone").map(|(id, _)| id.clone()).collect();
    want_chunks.sort();
    assert_eq!(chunk_keys, want_chunks, "chunk vector keys");
    assert!(store.check_integrity().await.expect("check_integrity").is_empty(), "a written store is sound");
}

/// `delete_chunks` removes the chunk, its vector, its extraction record and its chunk-list
/// entries and leaves its document; `delete_vectors` removes vectors (relation keys in either
/// order) and leaves the records. Unknown ids and keys are ignored.
pub async fn check_delete_chunks_and_vectors(store: &dyn Store) {
    put_doc(store, "doc-1", 3).await;
    let (c0, c1) = (chunk("doc-1", 0).id, chunk("doc-1", 1).id);
    apply_ok(
        store,
        ChangeSet {
            entities: vec![entity("Alpha", &[&c0, &c1]), entity("Beta", &[&c0])],
            relations: vec![relation("Alpha", "Beta", &[&c1])],
            chunk_lists: vec![
                (GraphKey::Entity(s("Alpha")), ChunkListEdit::Append(vec![c0.clone(), c1.clone()])),
                (GraphKey::Relation(RelKey::new("Alpha", "Beta")), ChunkListEdit::Append(vec![c1.clone()])),
            ],
            vectors: vec![
                vector(VectorKind::Entity, "Alpha", vec![1.0, 0.0, 0.0, 0.0]),
                vector(VectorKind::Entity, "Beta", vec![0.0, 1.0, 0.0, 0.0]),
                vector(VectorKind::Relation, &VectorRecord::relation_key(&RelKey::new("Alpha", "Beta")), vec![1.0; 4]),
            ],
            ..Default::default()
        },
        "graph",
    )
    .await;
    apply_ok(
        store,
        ChangeSet { delete_chunks: vec![c1.clone(), s("chunk-unknown")], ..Default::default() },
        "delete a chunk",
    )
    .await;
    let got = store.get_chunks(&[c0.clone(), c1.clone()]).await.expect("get_chunks");
    assert!(got[0].is_some() && got[1].is_none(), "only the deleted chunk is gone");
    assert!(store.get_extractions(std::slice::from_ref(&c1)).await.expect("extractions").is_empty(), "its record too");
    let v = store.get_vectors(VectorKind::Chunk, &[c0.clone(), c1.clone()]).await.expect("get_vectors");
    assert!(v[0].is_some() && v[1].is_none(), "and its vector");
    assert!(store.get_document("doc-1").await.is_ok(), "reads still work");
    assert!(store.get_doc_status("doc-1").await.expect("status").is_some(), "the document stays");
    let alpha = store.chunk_list(&GraphKey::Entity(s("Alpha")), ListRange::ALL).await.expect("list");
    assert_eq!(alpha, vec![c0.clone()], "the chunk left the entity's list");
    let e = store.get_entities(&names(&["Alpha"])).await.expect("get")[0].clone().expect("Alpha stays");
    assert_eq!(e.chunk_count, 1, "the count follows the list");
    let rel = store.chunk_list(&GraphKey::Relation(RelKey::new("Beta", "Alpha")), ListRange::ALL).await.expect("list");
    assert!(rel.is_empty(), "and the relation's list");

    apply_ok(
        store,
        ChangeSet {
            delete_vectors: vec![
                (VectorKind::Entity, s("Beta")),
                (VectorKind::Relation, VectorRecord::relation_key(&RelKey { src: s("Beta"), tgt: s("Alpha") })),
                (VectorKind::Chunk, s("chunk-unknown")),
            ],
            ..Default::default()
        },
        "delete vectors",
    )
    .await;
    let v = store.get_vectors(VectorKind::Entity, &names(&["Alpha", "Beta"])).await.expect("get_vectors");
    assert!(v[0].is_some() && v[1].is_none(), "only Beta's vector is gone");
    let rk = VectorRecord::relation_key(&RelKey::new("Alpha", "Beta"));
    assert!(store.get_vectors(VectorKind::Relation, &[rk]).await.expect("get")[0].is_none(), "reversed key deleted");
    let hits = store.search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0, 0.0], 5, -1.0).await.expect("search");
    assert!(hits.iter().all(|h| h.key != "Beta"), "a deleted vector is not found: {hits:?}");
    let records = store.get_entities(&names(&["Beta"])).await.expect("get");
    assert!(records[0].is_some(), "the record of a deleted vector stays");
    assert!(
        store.get_relations(&[RelKey::new("Alpha", "Beta")]).await.expect("get")[0].is_some(),
        "the relation stays"
    );
}
