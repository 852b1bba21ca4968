//! Vector row ids are hashed from set and key (so reading the vectors of known keys needs no key
//! lookup): the hash is pinned, because stores written by one version are read by the next, and a
//! key whose hashed id another key holds is stored under a low id and still read back right.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::hash::Hasher;

use lightrag_ports::conformance::vector;
use lightrag_ports::prelude::*;
use lightrag_ports::{ChangeSet, VectorKind};
use lightrag_store_sqlite::SqliteStore;

const HASHED_IDS: u64 = 1 << 61;

/// The documented formula: SipHash-1-3 with zero keys over `set name, 0, key`, 61 bits, above 2^61.
fn expected_id(kind: VectorKind, key: &str) -> u64 {
    let mut h = siphasher::sip::SipHasher13::new_with_keys(0, 0);
    h.write(kind.as_str().as_bytes());
    h.write_u8(0);
    h.write(key.as_bytes());
    HASHED_IDS | (h.finish() & (HASHED_IDS - 1))
}

fn row_id(path: &std::path::Path, kind: VectorKind, key: &str) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("SELECT id FROM vectors WHERE kind = ?1 AND key = ?2", [kind.as_str(), key], |r| r.get(0)).unwrap()
}

fn axis(dim: usize, i: usize) -> Vec<f32> {
    let mut v = vec![0.0; dim];
    v[i] = 1.0;
    v
}

#[tokio::test]
async fn vector_row_ids_are_the_pinned_hash_of_set_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kb.sqlite");
    let store = SqliteStore::open(&path).unwrap();
    let vectors = vec![
        vector(VectorKind::Chunk, "chunk-0123456789abcdef0123456789abcdef", axis(8, 0)),
        vector(VectorKind::Entity, "United States", axis(8, 1)),
    ];
    store.apply(ChangeSet { vectors, ..ChangeSet::default() }).await.unwrap();
    let chunk = row_id(&path, VectorKind::Chunk, "chunk-0123456789abcdef0123456789abcdef");
    assert_eq!(chunk as u64, expected_id(VectorKind::Chunk, "chunk-0123456789abcdef0123456789abcdef"));
    assert_eq!(
        row_id(&path, VectorKind::Entity, "United States") as u64,
        expected_id(VectorKind::Entity, "United States")
    );
    // The same formula in numbers: changing it strands every stored vector.
    assert_eq!(expected_id(VectorKind::Entity, "United States"), PINNED_UNITED_STATES);
}

/// `expected_id(Entity, "United States")` as computed when the format was fixed (schema 4).
const PINNED_UNITED_STATES: u64 = 4_072_061_020_726_797_314;

#[tokio::test]
async fn a_key_whose_hashed_id_is_taken_is_stored_under_a_low_id_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kb.sqlite");
    let dim = 8;
    {
        let store = SqliteStore::open(&path).unwrap();
        let vectors = vec![vector(VectorKind::Entity, "a", axis(dim, 0))];
        store.apply(ChangeSet { vectors, ..ChangeSet::default() }).await.unwrap();
    }
    // Make "a" sit on the id "b" hashes to — what a hash collision would do — and make the next
    // open rebuild its index from the table (new epoch).
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let taken = expected_id(VectorKind::Entity, "b") as i64;
        conn.execute("UPDATE vectors SET id = ?1 WHERE key = 'a'", [taken]).unwrap();
        conn.execute("UPDATE meta SET value = '12345' WHERE key = 'vepoch:entity'", []).unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    let vectors = vec![vector(VectorKind::Entity, "b", axis(dim, 1))];
    store.apply(ChangeSet { vectors, ..ChangeSet::default() }).await.unwrap();
    let b_id = row_id(&path, VectorKind::Entity, "b");
    assert!((b_id as u64) < HASHED_IDS, "the newcomer got a low id: {b_id}");

    let got = store.get_vectors(VectorKind::Entity, &["a".to_string(), "b".to_string()]).await.unwrap();
    assert_eq!(got[0].as_deref(), Some(axis(dim, 0).as_slice()), "a keeps its own vector");
    assert_eq!(got[1].as_deref(), Some(axis(dim, 1).as_slice()), "b is read by key, not by a's id");
    let hits = store.search_vectors(VectorKind::Entity, &axis(dim, 1), 1, 0.5).await.unwrap();
    assert_eq!(hits[0].key, "b");

    // Deleting the collided key clears its listing; it comes back on its hashed id once free.
    store.apply(ChangeSet { delete_entities: vec!["b".into()], ..ChangeSet::default() }).await.unwrap();
    store.apply(ChangeSet { delete_entities: vec!["a".into()], ..ChangeSet::default() }).await.unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let listed: i64 = conn.query_row("SELECT count(*) FROM vector_key_collisions", [], |r| r.get(0)).unwrap();
    assert_eq!(listed, 0, "a deleted key leaves the collision list");
    let vectors = vec![vector(VectorKind::Entity, "b", axis(dim, 2))];
    store.apply(ChangeSet { vectors, ..ChangeSet::default() }).await.unwrap();
    assert_eq!(row_id(&path, VectorKind::Entity, "b") as u64, expected_id(VectorKind::Entity, "b"));
    let got = store.get_vectors(VectorKind::Entity, &["b".to_string(), "a".to_string()]).await.unwrap();
    assert_eq!(got, vec![Some(axis(dim, 2)), None]);
}

/// A schema-3 file (auto-assigned row ids) with an index snapshot of those ids: the migration
/// moves the rows to their hashed ids and the snapshot is not trusted any more (rebuilt once).
#[tokio::test]
async fn migrating_from_schema_3_rebuilds_the_index_instead_of_reading_old_ids_from_its_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kb.sqlite");
    let dim = 8;
    let keys: Vec<String> = (0..dim).map(|i| format!("Entity {i}")).collect();
    {
        let store = SqliteStore::open(&path).unwrap();
        let vectors = keys.iter().enumerate().map(|(i, k)| vector(VectorKind::Entity, k, axis(dim, i))).collect();
        store.apply(ChangeSet { vectors, ..ChangeSet::default() }).await.unwrap();
    }
    // Give the rows small ids, as schema 3 did, and let an open index them so (new epoch).
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "UPDATE vectors SET id = (SELECT count(*) FROM vectors v WHERE v.key <= vectors.key); \
             UPDATE meta SET value = '777' WHERE key = 'vepoch:entity';",
        )
        .unwrap();
    }
    {
        let store = SqliteStore::open(&path).unwrap();
        store.get_vectors(VectorKind::Entity, &keys[..1]).await.unwrap();
    } // dropped: the snapshot holds the small ids
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TABLE vector_key_collisions; UPDATE meta SET value = '3' WHERE key = 'schema_version';",
        )
        .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    for (i, key) in keys.iter().enumerate() {
        assert_eq!(row_id(&path, VectorKind::Entity, key) as u64, expected_id(VectorKind::Entity, key));
        let hits = store.search_vectors(VectorKind::Entity, &axis(dim, i), 1, 0.5).await.unwrap();
        assert_eq!(hits.first().map(|h| h.key.as_str()), Some(key.as_str()), "search after the migration");
    }
    let got = store.get_vectors(VectorKind::Entity, &keys).await.unwrap();
    assert_eq!(got, (0..dim).map(|i| Some(axis(dim, i))).collect::<Vec<_>>());
    let status = store.vector_index_status().unwrap();
    let entity = status.iter().find(|s| s.kind == VectorKind::Entity).unwrap();
    assert_eq!(entity.rebuilt_vectors, dim, "the old snapshot was not used: {entity:?}");
}
