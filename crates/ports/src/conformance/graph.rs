//! Checks of the graph: undirected edges, degrees, neighbourhoods, listings, deletions.

use super::fixtures::*;
use crate::*;

/// Relations are undirected: either order finds the same edge.
pub async fn check_undirected_relations(store: &dyn Store) {
    let written = Relation { key: RelKey { src: s("Zed"), tgt: s("Amy") }, ..relation("Zed", "Amy", &[]) };
    apply_ok(store, ChangeSet { relations: vec![written], ..Default::default() }, "relation").await;
    let got =
        store.get_relations(&[RelKey { src: s("Zed"), tgt: s("Amy") }, RelKey::new("Amy", "Zed")]).await.expect("get");
    let a = got[0].as_ref().expect("lookup in written order");
    let b = got[1].as_ref().expect("lookup in sorted order");
    assert_eq!(a, b, "both orders find the same edge");
    assert_eq!(a.key, RelKey::new("Amy", "Zed"), "stored key is the sorted pair");
    assert_eq!(store.graph_counts().await.expect("counts").edges, 1, "one undirected edge");
    apply_ok(store, ChangeSet { relations: vec![relation("Amy", "Zed", &[])], ..Default::default() }, "again").await;
    let all = crate::paging::all_relations(store).await.expect("all");
    assert_eq!(all.len(), 1, "writing the reverse order updates the same edge");
    assert_eq!(all[0].version, 2);
    apply_ok(
        store,
        ChangeSet { delete_relations: vec![RelKey { src: s("Zed"), tgt: s("Amy") }], ..Default::default() },
        "delete",
    )
    .await;
    assert_eq!(store.graph_counts().await.expect("counts").edges, 0, "deleting by the reverse order removes the edge");
}

/// Degrees, neighbourhoods, top entities, names, full listings, counts.
pub async fn check_graph_reads(store: &dyn Store) {
    let ents = ["A", "B", "C", "D", "E"].map(|n| entity(n, &[]));
    let rels = vec![relation("A", "B", &[]), relation("C", "A", &[]), relation("A", "D", &[]), relation("B", "C", &[])];
    apply_ok(store, ChangeSet { entities: ents.to_vec(), relations: rels, ..Default::default() }, "graph").await;
    let deg = store.node_degrees(&names(&["A", "B", "E", "Nope", "C", "D"])).await.expect("degrees");
    assert_eq!(deg, vec![3, 2, 0, 0, 2, 1], "degrees in request order");
    let rels = store.relations_of(&names(&["B", "D"])).await.expect("relations_of");
    let mut keys: Vec<RelKey> = rels.iter().map(|r| r.key.clone()).collect();
    keys.sort();
    assert_eq!(
        keys,
        vec![RelKey::new("A", "B"), RelKey::new("A", "D"), RelKey::new("B", "C")],
        "each touching edge once"
    );
    let rels = store.relations_of(&names(&["A", "B", "C"])).await.expect("relations_of");
    assert_eq!(rels.len(), 4, "edges between asked nodes appear once: {rels:?}");
    assert!(store.relations_of(&names(&["E"])).await.expect("relations_of").is_empty());
    let top = store.top_entities(4).await.expect("top");
    assert_eq!(top, vec![(s("A"), 3), (s("B"), 2), (s("C"), 2), (s("D"), 1)], "degree desc then name");
    assert_eq!(store.entity_names(None, 10).await.expect("names"), names(&["A", "B", "C", "D", "E"]));
    assert_eq!(store.entity_names(None, 2).await.expect("names"), names(&["A", "B"]), "first page");
    assert_eq!(store.entity_names(Some("B"), 2).await.expect("names"), names(&["C", "D"]), "page after B");
    assert!(store.entity_names(Some("E"), 2).await.expect("names").is_empty(), "after the last");
    assert_eq!(store.entity_names(Some("Bz"), 1).await.expect("names"), names(&["C"]), "after a missing key");
    let page: Vec<String> =
        store.entities_page(Some("C"), 5).await.expect("page").into_iter().map(|e| e.name).collect();
    assert_eq!(page, names(&["D", "E"]), "entities after C");
    let page: Vec<RelKey> =
        store.relations_page(Some(&RelKey::new("A", "C")), 2).await.expect("page").into_iter().map(|r| r.key).collect();
    assert_eq!(page, vec![RelKey::new("A", "D"), RelKey::new("B", "C")], "relations after A -- C");
    let all: Vec<String> = crate::paging::all_entities(store).await.expect("all").into_iter().map(|e| e.name).collect();
    assert_eq!(all, names(&["A", "B", "C", "D", "E"]), "all_entities sorted by name");
    let all: Vec<RelKey> = crate::paging::all_relations(store).await.expect("all").into_iter().map(|r| r.key).collect();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "all_relations sorted by key");
    assert_eq!(store.graph_counts().await.expect("counts"), GraphCounts { nodes: 5, edges: 4 });
    // Many names at once (batching).
    let many: Vec<String> = (0..1500).map(|i| format!("n{i}")).chain(["A".to_string()]).collect();
    let deg = store.node_degrees(&many).await.expect("degrees");
    assert_eq!(deg.len(), 1501);
    assert_eq!(deg[1500], 3, "degrees of large requests");
    let got = store.get_entities(&many).await.expect("entities");
    assert_eq!(got.iter().filter(|e| e.is_some()).count(), 1, "large get_entities");
}

/// Deleting entities and relations removes their vectors.
pub async fn check_delete_entities_and_relations(store: &dyn Store) {
    let rkey = RelKey::new("A", "B");
    apply_ok(
        store,
        ChangeSet {
            entities: vec![entity("A", &[]), entity("B", &[])],
            relations: vec![relation("A", "B", &[])],
            vectors: vec![
                vector(VectorKind::Entity, "A", vec![1.0, 0.0]),
                vector(VectorKind::Entity, "B", vec![0.0, 1.0]),
                vector(VectorKind::Relation, &VectorRecord::relation_key(&rkey), vec![1.0, 1.0]),
            ],
            ..Default::default()
        },
        "graph",
    )
    .await;
    apply_ok(
        store,
        ChangeSet {
            delete_entities: names(&["A"]),
            delete_relations: vec![RelKey { src: s("B"), tgt: s("A") }],
            ..Default::default()
        },
        "delete",
    )
    .await;
    assert!(store.get_entities(&names(&["A"])).await.expect("get")[0].is_none(), "entity removed");
    assert!(store.get_entities(&names(&["B"])).await.expect("get")[0].is_some(), "other entity kept");
    assert!(store.get_relations(std::slice::from_ref(&rkey)).await.expect("get")[0].is_none(), "relation removed");
    assert_eq!(
        store
            .get_vectors(VectorKind::Entity, &names(&["A", "B"]))
            .await
            .expect("get")
            .iter()
            .filter(|v| v.is_some())
            .count(),
        1
    );
    let hits = store.search_vectors(VectorKind::Entity, &[1.0, 0.0], 5, -1.0).await.expect("search");
    assert_eq!(
        hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(),
        vec!["B"],
        "deleted entity vector not searchable"
    );
    assert!(
        store.search_vectors(VectorKind::Relation, &[1.0, 0.0], 5, -1.0).await.expect("search").is_empty(),
        "relation vector removed"
    );
}
