//! Reopening, sharing a file between handles, and refusing files that are not ours.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use lightrag_ports::conformance::{chunk, entity, extraction, relation, status_row, vector};
use lightrag_ports::prelude::*;
use lightrag_ports::{
    CacheEntry, ChangeSet, DocLinks, DocStatus, EmbeddingIdentity, RelKey, StoreError, Usage, UsageCounters, UsageRole,
    VectorKind, VectorRecord,
};
use lightrag_store_sqlite::{SqliteOptions, SqliteStore};

fn full_change_set() -> ChangeSet {
    let mut usage = Usage::new();
    usage.insert(UsageRole::Embed, UsageCounters { calls: 3, cache_hits: 1, tokens_in: 9, tokens_out: 0 });
    let rkey = RelKey::new("Alpha", "Beta");
    ChangeSet {
        doc_status: vec![status_row("doc-1", DocStatus::Processed, 10)],
        chunks: vec![chunk("doc-1", 0), chunk("doc-1", 1)],
        extractions: vec![extraction("doc-1-chunk-000", "doc-1", 1)],
        entities: vec![entity("Alpha", &["doc-1-chunk-000"]), entity("Beta", &[])],
        relations: vec![relation("Alpha", "Beta", &["doc-1-chunk-001"])],
        vectors: vec![
            vector(VectorKind::Chunk, "doc-1-chunk-000", vec![1.0, 2.0, 3.0]),
            vector(VectorKind::Chunk, "doc-1-chunk-001", vec![3.0, 2.0, 1.0]),
            vector(VectorKind::Entity, "Alpha", vec![0.0, 1.0, 0.0]),
            vector(VectorKind::Relation, &VectorRecord::relation_key(&rkey), vec![0.0, 0.0, 1.0]),
        ],
        doc_links: vec![DocLinks { doc_id: "doc-1".into(), entities: vec!["Alpha".into()], relations: vec![rkey] }],
        usage,
        ..ChangeSet::default()
    }
}

#[tokio::test]
async fn everything_survives_a_reopen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("nested/dirs/store.sqlite");
    {
        let store = SqliteStore::open(&path).expect("open");
        store.check_embedding_identity(&EmbeddingIdentity { model: "m".into(), dim: 3 }).await.expect("identity");
        store.apply(full_change_set()).await.expect("apply");
        store
            .cache_put(CacheEntry {
                key: "k".into(),
                cache_type: "extract".into(),
                response: "r".into(),
                chunk_id: None,
                created_at: 1,
            })
            .await
            .expect("cache");
    }
    let store = SqliteStore::open(&path).expect("reopen");
    assert_eq!(store.path(), path.as_path());
    assert!(store.get_doc_status("doc-1").await.expect("get").is_some());
    assert_eq!(store.get_chunks(&["doc-1-chunk-001".into()]).await.expect("get")[0], Some(chunk("doc-1", 1)));
    assert_eq!(store.get_extractions(&["doc-1-chunk-000".into()]).await.expect("get").len(), 1);
    assert_eq!(lightrag_ports::paging::all_entities(&store).await.expect("all").len(), 2);
    assert_eq!(lightrag_ports::paging::all_relations(&store).await.expect("all")[0].version, 1);
    assert!(store.get_doc_links("doc-1").await.expect("links").is_some());
    assert_eq!(store.usage().await.expect("usage").get(&UsageRole::Embed).map(|c| c.calls), Some(3));
    assert!(store.cache_get("k").await.expect("cache").is_some());
    // Vectors are loaded back into the in-memory index.
    let hits = store.search_vectors(VectorKind::Chunk, &[1.0, 2.0, 3.0], 2, -1.0).await.expect("search");
    assert_eq!(hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(), vec!["doc-1-chunk-000", "doc-1-chunk-001"]);
    assert!((hits[0].score - 1.0).abs() < 1e-5);
    let hits = store.search_vectors(VectorKind::Entity, &[0.0, 2.0, 0.0], 5, 0.5).await.expect("search");
    assert_eq!(hits.len(), 1);
    let hits = store.search_vectors(VectorKind::Relation, &[0.0, 0.0, 1.0], 5, 0.5).await.expect("search");
    assert_eq!(hits.len(), 1);
    // Dimension and identity are remembered.
    let r = store.search_vectors(VectorKind::Chunk, &[1.0, 2.0], 2, -1.0).await;
    assert!(matches!(r, Err(StoreError::WrongDimension { expected: 3, got: 2 })), "{r:?}");
    let r = store.check_embedding_identity(&EmbeddingIdentity { model: "m2".into(), dim: 3 }).await;
    assert!(matches!(r, Err(StoreError::EmbeddingMismatch { .. })), "{r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commits_through_one_handle_are_visible_through_another() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("shared.sqlite");
    let a = SqliteStore::open(&path).expect("open a");
    let b = SqliteStore::open_with(&path, SqliteOptions { readers: 1, ..SqliteOptions::default() }).expect("open b");
    // b has loaded an empty index; a writes.
    assert!(b.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0], 5, -1.0).await.expect("search").is_empty());
    a.apply(full_change_set()).await.expect("apply through a");
    let hits = b.search_vectors(VectorKind::Chunk, &[1.0, 2.0, 3.0], 5, -1.0).await.expect("search through b");
    assert_eq!(hits.len(), 2, "b sees a's vectors without reopening");
    assert_eq!(hits[0].key, "doc-1-chunk-000");
    // Updates and deletions through a are seen by b too.
    a.apply(ChangeSet {
        vectors: vec![vector(VectorKind::Chunk, "doc-1-chunk-001", vec![1.0, 2.0, 3.0])],
        delete_entities: vec!["Alpha".into()],
        ..ChangeSet::default()
    })
    .await
    .expect("update through a");
    let hits = b.search_vectors(VectorKind::Chunk, &[1.0, 2.0, 3.0], 5, 0.999).await.expect("search");
    assert_eq!(hits.len(), 2, "b sees the replaced vector");
    assert!(b.search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0], 5, -1.0).await.expect("search").is_empty());
    // And the other way round, interleaved with b's own writes.
    b.apply(ChangeSet {
        vectors: vec![vector(VectorKind::Entity, "Gamma", vec![1.0, 1.0, 0.0])],
        ..ChangeSet::default()
    })
    .await
    .expect("apply through b");
    a.apply(ChangeSet {
        vectors: vec![vector(VectorKind::Entity, "Delta", vec![1.0, 0.0, 0.0])],
        ..ChangeSet::default()
    })
    .await
    .expect("apply through a");
    for store in [&a, &b] {
        let hits = store.search_vectors(VectorKind::Entity, &[1.0, 0.5, 0.0], 5, -1.0).await.expect("search");
        let mut keys: Vec<&str> = hits.iter().map(|h| h.key.as_str()).collect();
        keys.sort();
        assert_eq!(keys, vec!["Delta", "Gamma"], "both handles see both writes");
    }
    // clear_all through b empties a's index.
    b.clear_all().await.expect("clear");
    assert!(a.search_vectors(VectorKind::Chunk, &[1.0, 2.0, 3.0], 5, -1.0).await.expect("search").is_empty());
}

#[test]
fn a_file_that_is_not_a_database_is_reported_as_corrupt() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("garbage.sqlite");
    std::fs::write(&path, vec![0x42u8; 8192]).expect("write garbage");
    match SqliteStore::open(&path) {
        Err(StoreError::Corrupt(msg)) => assert!(msg.contains("garbage.sqlite"), "message names the file: {msg}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("store.sqlite");
    drop(SqliteStore::open(&path).expect("create"));
    {
        let conn = rusqlite::Connection::open(&path).expect("raw open");
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'", []).expect("bump version");
    }
    match SqliteStore::open(&path) {
        Err(StoreError::Corrupt(msg)) => {
            assert!(msg.contains("99") && msg.contains("upgrade"), "{msg}")
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn a_foreign_database_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("other.sqlite");
    {
        let conn = rusqlite::Connection::open(&path).expect("raw open");
        conn.execute("CREATE TABLE people (name TEXT)", []).expect("create");
    }
    assert!(matches!(SqliteStore::open(&path), Err(StoreError::Corrupt(_))));
}
