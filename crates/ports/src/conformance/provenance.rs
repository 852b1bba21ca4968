//! Checks of chunk lists (provenance rows) and of ranked expansion.

use std::collections::HashMap;

use super::fixtures::*;
use crate::*;

fn ent(name: &str) -> GraphKey {
    GraphKey::Entity(name.to_string())
}

fn rel(a: &str, b: &str) -> GraphKey {
    GraphKey::Relation(RelKey::new(a, b))
}

async fn list(store: &dyn Store, owner: &GraphKey, range: ListRange) -> Vec<String> {
    store.chunk_list(owner, range).await.expect("chunk_list")
}

async fn stored_entity(store: &dyn Store, name: &str) -> Entity {
    store.get_entities(&names(&[name])).await.expect("get")[0].clone().expect("entity exists")
}

/// Appends, removals, replacements and reads of chunk lists; counts and versions follow.
pub async fn check_chunk_lists(store: &dyn Store) {
    let a = ent("A");
    apply_ok(
        store,
        ChangeSet {
            entities: vec![entity("A", &["c1"]), entity("B", &[])],
            relations: vec![relation("A", "B", &[])],
            chunk_lists: vec![
                (a.clone(), ChunkListEdit::Append(names(&["c1", "c2", "c2", "c3"]))),
                (GraphKey::Relation(RelKey { src: s("B"), tgt: s("A") }), ChunkListEdit::Append(names(&["c2"]))),
            ],
            ..Default::default()
        },
        "records with lists",
    )
    .await;
    let e = stored_entity(store, "A").await;
    assert_eq!((e.chunk_count, e.version), (3, 1), "count = list length; one commit, one version");
    assert_eq!(e.source_ids, names(&["c1"]), "the shown ids are the record's, not the list");
    assert_eq!(list(store, &a, ListRange::ALL).await, names(&["c1", "c2", "c3"]), "a repeated id is listed once");
    assert_eq!(list(store, &a, ListRange::first(2)).await, names(&["c1", "c2"]));
    assert_eq!(list(store, &a, ListRange::last(2)).await, names(&["c2", "c3"]), "the end, in list order");
    let from_end = ListRange { from_end: true, offset: 1, limit: 5 };
    assert_eq!(list(store, &a, from_end).await, names(&["c1", "c2"]), "offset from the end");
    let from_start = ListRange { from_end: false, offset: 2, limit: 5 };
    assert_eq!(list(store, &a, from_start).await, names(&["c3"]), "offset from the start");
    assert!(list(store, &ent("Nobody"), ListRange::ALL).await.is_empty(), "no list for an unknown owner");
    let r = store.get_relations(&[RelKey::new("A", "B")]).await.expect("get")[0].clone().expect("A-B");
    assert_eq!(r.chunk_count, 1, "relation lists are keyed by the sorted pair");
    assert_eq!(list(store, &rel("B", "A"), ListRange::ALL).await, names(&["c2"]));
    // several lists at once: each as it is read alone, in the order asked
    let owners = [ent("Nobody"), a.clone(), rel("A", "B"), a.clone()];
    for range in [ListRange::ALL, ListRange::first(2), ListRange::last(1), from_start] {
        let lists = store.chunk_lists(&owners, range).await.expect("chunk_lists");
        let mut one_by_one = Vec::new();
        for owner in &owners {
            one_by_one.push(list(store, owner, range).await);
        }
        assert_eq!(lists, one_by_one, "chunk_lists reads what chunk_list reads ({range:?})");
    }
    assert!(store.chunk_lists(&[], ListRange::ALL).await.expect("no owners").is_empty(), "no owners, no lists");

    // An edit alone is a write of the record.
    apply_ok(
        store,
        ChangeSet { chunk_lists: vec![(a.clone(), ChunkListEdit::Append(names(&["c3", "c4"])))], ..Default::default() },
        "append",
    )
    .await;
    assert_eq!(list(store, &a, ListRange::ALL).await, names(&["c1", "c2", "c3", "c4"]), "listed ids are skipped");
    let e = stored_entity(store, "A").await;
    assert_eq!((e.chunk_count, e.version), (4, 2));
    apply_ok(
        store,
        ChangeSet { chunk_lists: vec![(a.clone(), ChunkListEdit::Remove(names(&["c2", "zz"])))], ..Default::default() },
        "remove",
    )
    .await;
    assert_eq!(list(store, &a, ListRange::ALL).await, names(&["c1", "c3", "c4"]), "the others keep their order");
    assert_eq!(stored_entity(store, "A").await.chunk_count, 3);
    // Writing the record leaves its list alone; the count written is ignored.
    apply_ok(
        store,
        ChangeSet { entities: vec![Entity { chunk_count: 99, ..entity("A", &[]) }], ..Default::default() },
        "rewrite",
    )
    .await;
    let e = stored_entity(store, "A").await;
    assert_eq!((e.chunk_count, e.version), (3, 4));
    apply_ok(
        store,
        ChangeSet {
            chunk_lists: vec![
                (a.clone(), ChunkListEdit::Replace(names(&["c9", "c8", "c9"]))),
                (a.clone(), ChunkListEdit::Append(names(&["c1"]))),
            ],
            ..Default::default()
        },
        "replace",
    )
    .await;
    assert_eq!(list(store, &a, ListRange::ALL).await, names(&["c9", "c8", "c1"]), "edits apply in order");
    let e = stored_entity(store, "A").await;
    assert_eq!((e.chunk_count, e.version), (3, 5), "several edits in one commit: one version");

    let owners = store.chunk_owners(&names(&["c9", "c2", "c1", "nope"])).await.expect("owners");
    assert_eq!(
        owners,
        vec![(s("c1"), a.clone()), (s("c2"), rel("A", "B")), (s("c9"), a.clone())],
        "owners by chunk id, then owner"
    );

    // A conflicting change set edits no list.
    let bad = ChangeSet {
        expect_entities: vec![(s("A"), Some(1))],
        chunk_lists: vec![(a.clone(), ChunkListEdit::Append(names(&["never"])))],
        ..Default::default()
    };
    assert!(matches!(store.apply(bad).await, Err(StoreError::Conflict(_))), "expected a conflict");
    assert!(store.chunk_owners(&names(&["never"])).await.expect("owners").is_empty(), "a conflict edited a list");

    // Deleting a record drops its list; a list edited before its record exists is counted when
    // the record is written.
    apply_ok(
        store,
        ChangeSet {
            delete_entities: names(&["A"]),
            delete_relations: vec![RelKey::new("A", "B")],
            chunk_lists: vec![(ent("Later"), ChunkListEdit::Append(names(&["c5", "c6"])))],
            ..Default::default()
        },
        "delete",
    )
    .await;
    assert!(store.chunk_owners(&names(&["c1", "c2", "c8", "c9"])).await.expect("owners").is_empty(), "lists dropped");
    apply_ok(
        store,
        ChangeSet { entities: vec![entity("A", &[]), entity("Later", &[])], ..Default::default() },
        "again",
    )
    .await;
    assert_eq!(stored_entity(store, "A").await.chunk_count, 0, "a re-created entity starts without a list");
    assert_eq!(stored_entity(store, "Later").await.chunk_count, 2, "rows written before the record are counted");
}

/// Deleting a document takes its chunks out of every chunk list.
pub async fn check_delete_document_prunes_chunk_lists(store: &dyn Store) {
    put_doc(store, "doc-1", 3).await;
    put_doc(store, "doc-2", 1).await;
    let d1: Vec<String> = (0..3).map(|i| ids::chunk_id("doc-1", i)).collect();
    let d2 = ids::chunk_id("doc-2", 0);
    let mut mixed = vec![d1[0].clone(), d2.clone()];
    mixed.extend(d1[1..].iter().cloned());
    apply_ok(
        store,
        ChangeSet {
            entities: vec![entity("Alpha", &[]), entity("Beta", &[])],
            relations: vec![relation("Alpha", "Beta", &[])],
            chunk_lists: vec![
                (ent("Alpha"), ChunkListEdit::Append(mixed)),
                (rel("Alpha", "Beta"), ChunkListEdit::Append(d1.clone())),
            ],
            ..Default::default()
        },
        "graph",
    )
    .await;
    let before = stored_entity(store, "Alpha").await.version;
    apply_ok(store, ChangeSet { delete_documents: names(&["doc-1"]), ..Default::default() }, "delete doc-1").await;
    assert_eq!(list(store, &ent("Alpha"), ListRange::ALL).await, vec![d2.clone()], "only doc-2's chunk is left");
    let alpha = stored_entity(store, "Alpha").await;
    assert_eq!(alpha.chunk_count, 1);
    assert_eq!(alpha.version, before + 1, "losing chunks is a write of the record");
    let r = store.get_relations(&[RelKey::new("Alpha", "Beta")]).await.expect("get")[0].clone().expect("kept");
    assert_eq!(r.chunk_count, 0, "the relation's list is empty; the record itself is the engine's to delete");
    assert!(store.chunk_owners(&d1).await.expect("owners").is_empty());
    assert_eq!(store.chunk_owners(std::slice::from_ref(&d2)).await.expect("owners"), vec![(d2, ent("Alpha"))]);
}

/// Degrees follow relation writes and deletions; ranked expansion returns the best relations in
/// the order of [`crate::ranking`] and the total, on a random graph checked against the
/// in-memory ranking.
pub async fn check_ranked_relations(store: &dyn Store) {
    let mut rng = TestRng::new(17);
    let nodes: Vec<String> = (0..40).map(|i| format!("N{i:02}")).collect();
    let mut relations: HashMap<RelKey, Relation> = HashMap::new();
    // a hub, a second hub, and random edges
    for (i, n) in nodes.iter().enumerate().skip(1) {
        if i % 3 != 0 {
            relations.insert(RelKey::new("N00", n.as_str()), relation("N00", n, &[]));
        }
        if i % 4 == 0 {
            relations.insert(RelKey::new("N01", n.as_str()), relation("N01", n, &[]));
        }
    }
    for _ in 0..60 {
        let a = &nodes[(rng.next_u64() % 40) as usize];
        let b = &nodes[(rng.next_u64() % 40) as usize];
        let weight = ((rng.next_u64() % 4) as f64) / 2.0;
        relations.insert(RelKey::new(a.as_str(), b.as_str()), Relation { weight, ..relation(a, b, &[]) });
    }
    let entities: Vec<Entity> = nodes.iter().map(|n| entity(n, &[])).collect();
    let written: Vec<Relation> = relations.values().cloned().collect();
    apply_ok(store, ChangeSet { entities, relations: written, ..Default::default() }, "random graph").await;
    // rewriting existing relations and deleting some keeps degrees right
    let some: Vec<RelKey> = relations.keys().take(5).cloned().collect();
    let rewrite: Vec<Relation> = relations.values().skip(5).take(5).cloned().collect();
    apply_ok(
        store,
        ChangeSet { delete_relations: some.clone(), relations: rewrite, ..Default::default() },
        "delete and rewrite",
    )
    .await;
    for k in &some {
        relations.remove(k);
    }
    let degree_of = |n: &str| relations.keys().filter(|k| k.src == n || k.tgt == n).count();
    let got = store.node_degrees(&nodes).await.expect("degrees");
    let want: Vec<usize> = nodes.iter().map(|n| degree_of(n)).collect();
    assert_eq!(got, want, "degrees after writes and deletions (a self-loop counts once)");
    let degrees: HashMap<String, usize> = nodes.iter().map(|n| (n.clone(), degree_of(n))).collect();

    for (asked, limit) in [
        (names(&["N00"]), 5),
        (names(&["N05", "N00", "N01"]), 12),
        (names(&["N01", "N01", "N07"]), 100),
        (names(&["N13", "Missing"]), 3),
        (nodes.clone(), 1000),
    ] {
        let ranked = store.ranked_relations_of(&asked, limit).await.expect("ranked");
        let touching: Vec<Relation> =
            relations.values().filter(|r| asked.contains(&r.key.src) || asked.contains(&r.key.tgt)).cloned().collect();
        assert_eq!(ranked.total, touching.len(), "total relations touching {asked:?}");
        let mut unique = asked.clone();
        unique.dedup();
        let expected = ranking::rank_relations(&unique, touching, &degrees, limit);
        let got: Vec<&RelKey> = ranked.relations.iter().map(|r| &r.key).collect();
        let want: Vec<&RelKey> = expected.iter().map(|r| &r.key).collect();
        assert_eq!(got, want, "ranked relations of {asked:?} (limit {limit})");
        assert!(ranked.relations.iter().all(|r| r.version >= 1), "whole records come back");
    }
    for asked in [names(&["N00", "N01", "N05", "N07", "N13"]), names(&["N02"]), nodes.clone()] {
        let mut want: Vec<RelKey> =
            relations.keys().filter(|k| asked.contains(&k.src) || asked.contains(&k.tgt)).cloned().collect();
        want.sort();
        assert_eq!(store.relation_keys_of(&asked).await.expect("keys"), want, "relation keys of {asked:?}");
        let mut among: Vec<RelKey> =
            relations.keys().filter(|k| asked.contains(&k.src) && asked.contains(&k.tgt)).cloned().collect();
        among.sort();
        let got: Vec<RelKey> = store.relations_among(&asked).await.expect("among").into_iter().map(|r| r.key).collect();
        assert_eq!(got, among, "relations among {asked:?}");
    }
    let empty = store.ranked_relations_of(&[], 10).await.expect("ranked");
    assert_eq!(empty, RankedRelations::default());
}
