//! A store written by the schema-1 code (chunk lists as JSON columns) opens and is migrated:
//! every list becomes rows in the same order, counts and versions are right, degrees are kept,
//! and the migrated store reads and writes like a new one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lightrag_ports::conformance::entity;
use lightrag_ports::prelude::*;
use lightrag_ports::{ChangeSet, ChunkListEdit, Entity, GraphKey, ListRange, RelKey, paging};
use lightrag_store_sqlite::SqliteStore;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema1.sqlite")
}

/// A copy of the fixture in a fresh folder.
fn copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lightrag.db");
    std::fs::copy(fixture(), &path).unwrap();
    (dir, path)
}

/// What the schema-1 file holds: lists and versions per record, straight from SQL.
struct Before {
    entities: BTreeMap<String, (Vec<String>, u64)>,
    relations: BTreeMap<RelKey, (Vec<String>, u64)>,
}

fn read_before(path: &Path) -> Before {
    let conn = rusqlite::Connection::open(path).unwrap();
    let version: String =
        conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(version, "1", "the fixture is a schema-1 store");
    let mut entities = BTreeMap::new();
    let mut stmt = conn.prepare("SELECT name, chunk_ids, version FROM entities").unwrap();
    for row in
        stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?))).unwrap()
    {
        let (name, list, version) = row.unwrap();
        entities.insert(name, (serde_json::from_str(&list).unwrap(), version as u64));
    }
    let mut relations = BTreeMap::new();
    let mut stmt = conn.prepare("SELECT src, tgt, chunk_ids, version FROM relations").unwrap();
    for row in stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, i64>(3)?))
        })
        .unwrap()
    {
        let (src, tgt, list, version) = row.unwrap();
        relations.insert(RelKey { src, tgt }, (serde_json::from_str(&list).unwrap(), version as u64));
    }
    Before { entities, relations }
}

#[tokio::test]
async fn a_schema_1_store_is_migrated_to_provenance_rows() {
    let (_dir, path) = copy();
    let before = read_before(&path);
    let hub = &before.entities["United States"].0;
    assert!(hub.len() > 6, "the fixture has a hub cut by its limit of 6: {hub:?}");

    let store = SqliteStore::open(&path).expect("a schema-1 store opens");
    let entities = paging::all_entities(&store).await.unwrap();
    assert_eq!(entities.len(), before.entities.len());
    for e in &entities {
        let (list, version) = &before.entities[&e.name];
        let owner = GraphKey::Entity(e.name.clone());
        assert_eq!(&paging::whole_chunk_list(&store, &owner).await.unwrap(), list, "list of {}", e.name);
        assert_eq!((e.chunk_count, e.version), (list.len(), *version), "count and version of {}", e.name);
    }
    let relations = paging::all_relations(&store).await.unwrap();
    assert_eq!(relations.len(), before.relations.len());
    let mut degree: BTreeMap<String, usize> = BTreeMap::new();
    for r in &relations {
        let (list, version) = &before.relations[&r.key];
        let owner = GraphKey::Relation(r.key.clone());
        assert_eq!(&paging::whole_chunk_list(&store, &owner).await.unwrap(), list, "list of {}", r.key);
        assert_eq!((r.chunk_count, r.version), (list.len(), *version), "count and version of {}", r.key);
        *degree.entry(r.key.src.clone()).or_default() += 1;
        if r.key.tgt != r.key.src {
            *degree.entry(r.key.tgt.clone()).or_default() += 1;
        }
    }
    let names: Vec<String> = degree.keys().cloned().collect();
    let got = store.node_degrees(&names).await.unwrap();
    assert_eq!(got, degree.values().copied().collect::<Vec<_>>(), "degrees filled from the relations");
    let top = store.top_entities(1).await.unwrap();
    assert_eq!(top[0].1, *degree.values().max().unwrap());

    // the hub's list is read in parts and found by chunk
    let last = store.chunk_list(&GraphKey::Entity("United States".into()), ListRange::last(2)).await.unwrap();
    assert_eq!(last, hub[hub.len() - 2..].to_vec());
    let owners = store.chunk_owners(&hub[..1]).await.unwrap();
    assert!(owners.contains(&(hub[0].clone(), GraphKey::Entity("United States".into()))));

    // the migration filled the full-text index from the stored chunks
    let chunk = store.get_chunks(&hub[..1]).await.unwrap().remove(0).expect("a chunk of the hub");
    let word =
        chunk.content.split(|c: char| !c.is_alphanumeric()).find(|w| w.len() >= 6).expect("a long word").to_string();
    let hits = store.search_chunk_text(std::slice::from_ref(&word), 1000).await.unwrap();
    assert!(hits.iter().any(|h| h.key == chunk.id), "{word} finds its chunk after the migration");

    // ... and the entity text index from the stored entities
    let hits = store.search_entity_text(&["states".to_string()], 1000).await.unwrap();
    assert!(hits.iter().any(|h| h.key == "United States"), "the entity is found by a word of its name: {hits:?}");

    // writes work on the migrated store, and it opens again as the current schema (7) without migrating
    let change = ChangeSet {
        chunk_lists: vec![(GraphKey::Entity("United States".into()), ChunkListEdit::Append(vec!["new-chunk".into()]))],
        ..Default::default()
    };
    store.apply(change).await.unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: String =
        conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(version, "8");
    let has_json: i64 = conn
        .query_row("SELECT count(*) FROM pragma_table_info('entities') WHERE name = 'chunk_ids'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(has_json, 0, "the JSON list column is gone");
    drop(conn);
    let store = SqliteStore::open(&path).unwrap();
    let e = store.get_entities(&["United States".to_string()]).await.unwrap().remove(0).unwrap();
    assert_eq!(e.chunk_count, hub.len() + 1);
}

/// A failed migration leaves the file as it was (one transaction): here the schema-1 file has a
/// list that is not JSON.
#[tokio::test]
async fn a_migration_that_fails_changes_nothing() {
    let (_dir, path) = copy();
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute("UPDATE entities SET chunk_ids = 'not json' WHERE name = 'United States'", []).unwrap();
    }
    let err = SqliteStore::open(&path).expect_err("a broken list stops the migration");
    assert!(err.to_string().contains("migrate"), "{err}");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: String =
        conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(version, "1", "still schema 1");
    let rows: i64 =
        conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'entity_chunks'", [], |r| r.get(0)).unwrap();
    assert_eq!(rows, 0, "no table of the new schema was left behind");
}

fn described(name: &str, description: &str) -> Entity {
    Entity { description: description.to_string(), ..entity(name, &[]) }
}

async fn entity_hits(store: &SqliteStore, word: &str) -> Vec<String> {
    store.search_entity_text(&[word.to_string()], 10).await.unwrap().into_iter().map(|h| h.key).collect()
}

/// A schema-6 store (a chunk index, no entity index) gets the entity text index on open, filled
/// from the entities as they are, and kept in step by later writes.
#[tokio::test]
async fn a_schema_6_store_gets_the_entity_text_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lightrag.db");
    {
        let store = SqliteStore::open(&path).unwrap();
        let entities = vec![described("Naples", "A city of Italy."), described("Rome", "The capital.")];
        store.apply(ChangeSet { entities, ..Default::default() }).await.unwrap();
    }
    {
        // back to schema 6, then a write the new index has never seen
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TRIGGER entities_fts_insert; DROP TRIGGER entities_fts_delete; DROP TRIGGER entities_fts_update; \
             DROP TABLE entities_fts; UPDATE meta SET value = '6' WHERE key = 'schema_version'; \
             UPDATE entities SET description = 'A city below the volcano.' WHERE name = 'Naples';",
        )
        .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(entity_hits(&store, "volcano").await, vec!["Naples"], "filled from the entities as they are");
    assert!(entity_hits(&store, "italy").await.is_empty(), "not from older text");
    assert_eq!(entity_hits(&store, "rome").await, vec!["Rome"]);
    let rewrite = ChangeSet {
        entities: vec![described("Naples", "A harbour.")],
        delete_entities: vec!["Rome".into()],
        ..Default::default()
    };
    store.apply(rewrite).await.unwrap();
    assert!(entity_hits(&store, "volcano").await.is_empty(), "the triggers run after the migration");
    assert_eq!(entity_hits(&store, "harbour").await, vec!["Naples"]);
    assert!(entity_hits(&store, "rome").await.is_empty());
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: String =
        conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(version, "8");
    let check: rusqlite::Result<usize> =
        conn.execute("INSERT INTO entities_fts(entities_fts, rank) VALUES ('integrity-check', 1)", []);
    assert!(check.is_ok(), "the index matches the entities table: {check:?}");
}

/// A schema-7 store (no name index) gets the label search's trigram index of entity names on
/// open, filled from the entities as they are, and kept in step by later writes.
#[tokio::test]
async fn a_schema_7_store_gets_the_entity_name_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lightrag.db");
    {
        let store = SqliteStore::open(&path).unwrap();
        let entities = vec![described("Naples", "A city."), described("Rome", "The capital.")];
        store.apply(ChangeSet { entities, ..Default::default() }).await.unwrap();
    }
    {
        // back to schema 7, then a write the new index has never seen
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TRIGGER entity_names_fts_insert; DROP TRIGGER entity_names_fts_delete; \
             DROP TRIGGER entity_names_fts_update; DROP TABLE entity_names_fts; \
             UPDATE meta SET value = '7' WHERE key = 'schema_version'; \
             INSERT INTO entities (name, entity_type, description, source_ids, file_paths, created_at, truncate, version, chunk_count) \
                 SELECT 'Napoli', entity_type, description, source_ids, file_paths, created_at, truncate, version, chunk_count \
                 FROM entities WHERE name = 'Naples';",
        )
        .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    let found = |text: &'static str| {
        let store = &store;
        async move { store.entity_names_containing(text, 10).await.unwrap() }
    };
    assert_eq!(found("apl").await, vec!["Naples"], "filled from the entities as they are");
    assert_eq!(found("apo").await, vec!["Napoli"]);
    store.apply(ChangeSet { delete_entities: vec!["Naples".into()], ..Default::default() }).await.unwrap();
    assert!(found("apl").await.is_empty(), "the triggers run after the migration");
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: String =
        conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(version, "8");
    let check: rusqlite::Result<usize> =
        conn.execute("INSERT INTO entity_names_fts(entity_names_fts, rank) VALUES ('integrity-check', 1)", []);
    assert!(check.is_ok(), "the index matches the entities table: {check:?}");
}
