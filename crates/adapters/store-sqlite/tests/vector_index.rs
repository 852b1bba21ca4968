//! The store's vector indexes: snapshots reopened without a rebuild, catch-up after another
//! handle's commit reads only what changed, schema-1 files are migrated, approximate and
//! quantised indexes behave like the exact one behind the Store API, searches during a commit.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use lightrag_ports::conformance::{TestRng, vector};
use lightrag_ports::prelude::*;
use lightrag_ports::{ChangeSet, Store, VectorEncoding, VectorKind, VectorRecord};
use lightrag_store_sqlite::{IndexConfig, SqliteOptions, SqliteStore, VectorSetStatus};

fn chunk_vectors(rng: &mut TestRng, from: usize, n: usize, dim: usize) -> Vec<VectorRecord> {
    (from..from + n).map(|i| vector(VectorKind::Chunk, &format!("c-{i:05}"), rng.vector(dim))).collect()
}

fn chunk_status(store: &SqliteStore) -> VectorSetStatus {
    store
        .vector_index_status()
        .expect("status")
        .into_iter()
        .find(|s| s.kind == VectorKind::Chunk)
        .expect("chunk set status")
}

fn options(encoding: VectorEncoding, ann_threshold: usize) -> SqliteOptions {
    SqliteOptions {
        vectors: IndexConfig { encoding, ann_threshold, ..IndexConfig::default() },
        ..SqliteOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopening_reads_the_snapshot_and_catches_up_instead_of_rebuilding() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("kb.sqlite");
    let mut rng = TestRng::new(1);
    {
        let store = SqliteStore::open(&path).expect("open");
        let vectors = chunk_vectors(&mut rng, 0, 3000, 16);
        store.apply(ChangeSet { vectors, ..ChangeSet::default() }).await.expect("apply");
    } // dropped: the snapshot is written
    assert!(path.with_file_name("kb.sqlite.vectors").join("chunk.vidx").exists(), "snapshot beside the database");
    // Another process commits while no handle has the index open.
    {
        let options = SqliteOptions { vector_snapshots: false, ..SqliteOptions::default() };
        let writer = SqliteStore::open_with(&path, options).expect("open writer");
        let vectors = chunk_vectors(&mut rng, 3000, 20, 16);
        writer.apply(ChangeSet { vectors, ..ChangeSet::default() }).await.expect("apply");
    }
    let store = SqliteStore::open(&path).expect("reopen");
    let status = chunk_status(&store);
    assert_eq!(status.vectors, 3020, "every vector is searchable after reopening");
    assert_eq!(status.rebuilt_vectors, 0, "the snapshot was used, not a rebuild: {status:?}");
    assert_eq!(status.caught_up_vectors, 20, "only the later commit was read: {status:?}");
    let probe = store.get_vectors(VectorKind::Chunk, &["c-03010".to_string()]).await.expect("get")[0].clone();
    let hits = store.search_vectors(VectorKind::Chunk, &probe.expect("stored"), 1, 0.0).await.expect("search");
    assert_eq!(hits[0].key, "c-03010");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_handles_commit_is_applied_by_catching_up_not_by_reloading() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("kb.sqlite");
    let a = SqliteStore::open(&path).expect("open a");
    let b = SqliteStore::open(&path).expect("open b");
    let mut rng = TestRng::new(2);
    a.apply(ChangeSet { vectors: chunk_vectors(&mut rng, 0, 2000, 8), ..ChangeSet::default() }).await.expect("apply");
    assert_eq!(chunk_status(&b).vectors, 2000, "b sees a's first commit");
    let before = chunk_status(&b);
    // Updates, deletions (through a document's chunks) and inserts through a.
    let entities: Vec<VectorRecord> =
        (0..10).map(|i| vector(VectorKind::Entity, &format!("E{i}"), rng.vector(8))).collect();
    a.apply(ChangeSet { vectors: chunk_vectors(&mut rng, 1990, 15, 8), ..ChangeSet::default() }).await.expect("apply");
    a.apply(ChangeSet { vectors: entities, ..ChangeSet::default() }).await.expect("entities");
    let entity_status = |b: &SqliteStore| {
        b.vector_index_status().expect("status").into_iter().find(|s| s.kind == VectorKind::Entity).expect("entity")
    };
    let entities_before = entity_status(&b);
    assert_eq!(entities_before.vectors, 10);
    a.apply(ChangeSet { delete_entities: vec!["E1".into(), "E2".into(), "E3".into()], ..ChangeSet::default() })
        .await
        .expect("delete");
    let entities_after = entity_status(&b);
    assert_eq!(entities_after.vectors, 7, "b applies a's deletions");
    assert_eq!(entities_after.caught_up_vectors - entities_before.caught_up_vectors, 3, "three tombstones read");
    assert_eq!(entities_after.rebuilt_vectors, entities_before.rebuilt_vectors, "no rebuild for deletions");
    let after = chunk_status(&b);
    assert_eq!(after.vectors, 2005, "b holds the inserts");
    assert_eq!(after.rebuilt_vectors, before.rebuilt_vectors, "no rebuild for a small commit: {after:?}");
    assert_eq!(after.caught_up_vectors - before.caught_up_vectors, 15, "only the 15 changed rows were read");
    let q = rng.vector(8);
    let (ha, hb) = (
        a.search_vectors(VectorKind::Chunk, &q, 10, -1.0).await.expect("search a"),
        b.search_vectors(VectorKind::Chunk, &q, 10, -1.0).await.expect("search b"),
    );
    assert_eq!(ha, hb, "both handles answer alike");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_1_store_is_migrated_and_its_vectors_stay_searchable() {
    // The store written by the schema-1 code (the provenance migration test uses it too).
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema1.sqlite");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("old.sqlite");
    std::fs::copy(&fixture, &path).expect("copy the schema-1 fixture");
    let before: Vec<(String, Vec<f32>)> = {
        let conn = rusqlite::Connection::open(&path).expect("raw open");
        let mut stmt = conn.prepare("SELECT key, vector FROM vectors WHERE kind = 'chunk' ORDER BY key").expect("sql");
        let rows = stmt
            .query_map([], |r| {
                let blob: Vec<u8> = r.get(1)?;
                let v = blob.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
                Ok((r.get::<_, String>(0)?, v))
            })
            .expect("rows");
        rows.map(|r| r.expect("row")).collect()
    };
    assert!(before.len() >= 10, "the fixture holds chunk vectors");

    let store = SqliteStore::open(&path).expect("open migrates");
    for (key, v) in &before {
        let hits = store.search_vectors(VectorKind::Chunk, v, 1, -1.0).await.expect("search");
        assert_eq!(hits.first().map(|h| h.key.as_str()), Some(key.as_str()), "a migrated vector finds itself");
    }
    let (first, _) = &before[0];
    let mut turned = vec![0.0f32; before[0].1.len()];
    turned[0] = -1.0;
    store
        .apply(ChangeSet { vectors: vec![vector(VectorKind::Chunk, first, turned.clone())], ..ChangeSet::default() })
        .await
        .expect("update after migration");
    let hits = store.search_vectors(VectorKind::Chunk, &turned, 1, -1.0).await.expect("search");
    assert_eq!(hits[0].key, *first, "the migrated row was updated in place");
    assert!((hits[0].score - 1.0).abs() < 1e-5, "{hits:?}");
    let all = store.search_vectors(VectorKind::Chunk, &turned, before.len() + 5, -1.0).await.expect("search");
    assert_eq!(all.len(), before.len(), "no row was duplicated by the update");
    drop(store);
    let conn = rusqlite::Connection::open(&path).expect("raw open");
    let version: String =
        conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).expect("version");
    assert_eq!(version, "8");
    let unhashed: i64 =
        conn.query_row("SELECT count(*) FROM vectors WHERE id < ?1", [1i64 << 61], |r| r.get(0)).expect("count");
    assert_eq!(unhashed, 0, "every migrated row moved to its hashed id");
}

/// A store on a new file in a directory of its own, with `options`.
async fn fresh_store(options: SqliteOptions) -> (Arc<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open_with(&dir.path().join("lightrag.sqlite"), options).expect("open store");
    (Arc::new(store), dir)
}

// The Store conformance suite (exact search included) through an int8 and an f16 index with exact
// re-scoring, and through an HNSW index from the first vector on: one test per check
// (`vector_index::sqlite_int8::check_…`).
lightrag_ports::store_conformance!(sqlite_int8, || fresh_store(options(VectorEncoding::I8, usize::MAX)));
lightrag_ports::store_conformance!(sqlite_f16, || fresh_store(options(VectorEncoding::F16, usize::MAX)));
lightrag_ports::store_conformance!(sqlite_hnsw, || fresh_store(options(VectorEncoding::F32, 0)));

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_during_a_commit_never_fail_and_see_it_once_it_returns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("kb.sqlite");
    let store = SqliteStore::open_with(&path, options(VectorEncoding::F32, 1500)).expect("open");
    let mut rng = TestRng::new(3);
    store.apply(ChangeSet { vectors: chunk_vectors(&mut rng, 0, 1000, 16), ..ChangeSet::default() }).await.expect("a");
    let readers: Vec<_> = (0..3)
        .map(|r| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut rng = TestRng::new(100 + r);
                for _ in 0..40 {
                    let hits = store.search_vectors(VectorKind::Chunk, &rng.vector(16), 5, -1.0).await.expect("search");
                    assert_eq!(hits.len(), 5, "a search during a commit finds hits");
                }
            })
        })
        .collect();
    // This commit crosses the ANN threshold: the set moves to the graph while readers search.
    for part in 0..4 {
        let vectors = chunk_vectors(&mut rng, 1000 + part * 500, 500, 16);
        store.apply(ChangeSet { vectors, ..ChangeSet::default() }).await.expect("commit during searches");
    }
    for r in readers {
        r.await.expect("reader");
    }
    let status = chunk_status(&store);
    assert!(status.approximate && status.vectors == 3000, "{status:?}");
    let probe = store.get_vectors(VectorKind::Chunk, &["c-02999".to_string()]).await.expect("get")[0].clone();
    let hits = store.search_vectors(VectorKind::Chunk, &probe.expect("stored"), 1, 0.0).await.expect("search");
    assert_eq!(hits[0].key, "c-02999", "the last commit is visible once it returned");
}
