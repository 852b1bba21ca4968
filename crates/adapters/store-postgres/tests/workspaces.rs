//! Workspaces of one database are separate knowledge bases; vector sets above the exact-search
//! threshold take the HNSW query (the planner picks the index once the statistics show a large
//! set); two pools (two processes) claim, enqueue and commit on one workspace safely.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::common;

use futures::future::join_all;
use lightrag_ports::conformance::{TestRng, entity, new_document, status_row, vector};
use lightrag_ports::prelude::*;
use lightrag_ports::{
    CacheEntry, ChangeSet, ClaimRequest, DocStatus, EmbeddingIdentity, StoreError, Usage, UsageCounters, UsageRole,
    VectorKind,
};
use lightrag_store_postgres::PostgresStore;

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn two_workspaces_of_one_database_share_nothing() {
    let a = common::fresh_store("iso-a").await;
    let b = a.workspace(&common::unique_workspace("iso-b"));
    a.check_embedding_identity(&EmbeddingIdentity { model: "m-a".into(), dim: 3 }).await.expect("identity a");
    b.check_embedding_identity(&EmbeddingIdentity { model: "m-b".into(), dim: 5 }).await.expect("b has its own");
    a.enqueue(vec![new_document("doc-1", "same text", 1, "t")]).await.expect("enqueue a");
    let out = b.enqueue(vec![new_document("doc-1", "same text", 1, "t")]).await.expect("enqueue b");
    assert!(
        matches!(&out[0], lightrag_ports::EnqueueOutcome::Enqueued { .. }),
        "the same document in another workspace is not a duplicate: {out:?}"
    );
    let mut usage = Usage::new();
    usage.insert(UsageRole::Extract, UsageCounters { calls: 1, cache_hits: 0, tokens_in: 1, tokens_out: 1 });
    a.apply(ChangeSet {
        entities: vec![entity("Alpha", &[])],
        vectors: vec![vector(VectorKind::Entity, "Alpha", vec![1.0, 0.0, 0.0])],
        usage,
        ..Default::default()
    })
    .await
    .expect("apply a");
    a.cache_put(CacheEntry {
        key: "k".into(),
        cache_type: "extract".into(),
        response: "r".into(),
        chunk_id: None,
        created_at: 1,
    })
    .await
    .expect("cache a");
    assert!(b.get_entities(&names(&["Alpha"])).await.unwrap()[0].is_none(), "entities are per workspace");
    assert!(b.search_entity_text(&names(&["alpha"]), 5).await.unwrap().is_empty(), "so is their text index");
    assert_eq!(b.graph_counts().await.unwrap().nodes, 0);
    assert!(b.cache_get("k").await.unwrap().is_none(), "the cache is per workspace");
    assert!(b.usage().await.unwrap().is_empty(), "usage is per workspace");
    assert!(b.search_vectors(VectorKind::Entity, &[1.0; 5], 5, -1.0).await.unwrap().is_empty());
    assert!(matches!(
        b.search_vectors(VectorKind::Entity, &[1.0, 0.0, 0.0], 5, -1.0).await,
        Err(StoreError::WrongDimension { expected: 5, got: 3 })
    ));
    b.clear_all().await.expect("clear b");
    assert!(a.get_document("doc-1").await.unwrap().is_some(), "clearing b leaves a alone");
    assert_eq!(a.search_vectors(VectorKind::Entity, &[1.0, 0.0, 0.0], 5, -1.0).await.unwrap().len(), 1);
    assert_eq!(a.search_entity_text(&names(&["alpha"]), 5).await.unwrap().len(), 1, "a's entity is still found");
}

#[tokio::test]
async fn a_set_above_the_exact_threshold_takes_the_ann_query_and_finds_each_stored_vector() {
    let mut options = common::options();
    options.exact_search_below = 50;
    let store = PostgresStore::connect(options, &common::unique_workspace("hnsw")).await.expect("connect");
    let dim = 17;
    store.check_embedding_identity(&EmbeddingIdentity { model: "m".into(), dim }).await.expect("identity");
    let index: Option<String> = sqlx::query_scalar("SELECT indexname::text FROM pg_indexes WHERE indexname = $1")
        .bind(format!("lrs_vectors_hnsw_{dim}"))
        .fetch_optional(store.pool())
        .await
        .expect("pg_indexes");
    assert!(index.is_some(), "the identity's dimension gets an HNSW index");
    let mut rng = TestRng::new(7);
    let data: Vec<(String, Vec<f32>)> = (0..300).map(|i| (format!("c{i:03}"), rng.vector(dim))).collect();
    let vectors = data.iter().map(|(k, v)| vector(VectorKind::Chunk, k, v.clone())).collect();
    store.apply(ChangeSet { vectors, ..Default::default() }).await.expect("vectors");
    let mut found = 0;
    for (k, v) in data.iter().step_by(30) {
        let hits = store.search_vectors(VectorKind::Chunk, v, 5, -1.0).await.expect("search");
        assert_eq!(hits.len(), 5, "the filters do not starve the result");
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "best first");
        if hits[0].key == *k && (hits[0].score - 1.0).abs() < 1e-4 {
            found += 1;
        }
    }
    assert!(found >= 9, "approximate search finds a stored vector itself ({found} of 10)");
}

#[tokio::test]
async fn two_pools_on_one_workspace_claim_disjoint_documents_and_lose_no_increment() {
    let a = common::fresh_store("pools").await;
    let b = PostgresStore::connect(common::options(), a.workspace_name()).await.expect("second pool");
    let rows = (0..30).map(|i| status_row(&format!("doc-{i:02}"), DocStatus::Pending, i)).collect();
    a.apply(ChangeSet { doc_status: rows, ..Default::default() }).await.expect("rows");
    let claim = |store: PostgresStore, owner: &'static str| async move {
        let mut mine = Vec::new();
        loop {
            let req = ClaimRequest {
                owner: owner.to_string(),
                lease_until: 1_000_000,
                now: 1,
                dead_owners: vec![],
                include_failed: false,
                only_ids: vec![],
                limit: 2,
            };
            let got = store.claim(&req).await.expect("claim");
            if got.is_empty() {
                return mine;
            }
            mine.extend(got.into_iter().map(|r| r.id));
        }
    };
    let (mine_a, mine_b) = tokio::join!(claim(a.clone(), "wa"), claim(b.clone(), "wb"));
    let mut all: Vec<String> = mine_a.iter().chain(&mine_b).cloned().collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), mine_a.len() + mine_b.len(), "no document claimed twice");
    assert_eq!(all.len(), 30);

    // Read-modify-write of one entity from both pools, retrying on conflicts.
    let bump = |store: PostgresStore| async move {
        for _ in 0..10 {
            loop {
                let cur = store.get_entities(&names(&["Hub"])).await.expect("read").remove(0);
                let n: usize = cur.as_ref().map(|e| e.description.parse().unwrap()).unwrap_or(0);
                let mut next = entity("Hub", &[]);
                next.description = (n + 1).to_string();
                let changes = ChangeSet {
                    expect_entities: vec![("Hub".to_string(), cur.map(|e| e.version))],
                    entities: vec![next],
                    ..Default::default()
                };
                match store.apply(changes).await {
                    Ok(()) => break,
                    Err(StoreError::Conflict(_)) => continue,
                    Err(e) => panic!("{e}"),
                }
            }
        }
    };
    join_all([bump(a.clone()), bump(b.clone()), bump(a.clone()), bump(b)]).await;
    let hub = a.get_entities(&names(&["Hub"])).await.unwrap().remove(0).expect("hub");
    assert_eq!((hub.description.as_str(), hub.version), ("40", 40), "no increment lost across pools");
}

/// Concurrent commits that create and delete relations sharing ends, edit chunk lists and add
/// usage (the rows several commits share) finish without errors, and the degrees, counts and
/// ledger they leave equal a recount.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_commits_on_shared_nodes_keep_degrees_lists_and_usage_exact() {
    use lightrag_ports::conformance::relation;
    use lightrag_ports::{ChunkListEdit, GraphKey, RelKey, paging};

    let store = common::fresh_store("shared").await;
    let nodes: Vec<String> = (0..8).map(|i| format!("N{i}")).collect();
    let writer = |w: u64| {
        let store = store.clone();
        let nodes = nodes.clone();
        async move {
            let mut rng = TestRng::new(w + 1);
            for round in 0..15 {
                let pick = |rng: &mut TestRng| nodes[(rng.next_u64() % nodes.len() as u64) as usize].clone();
                let (a, b, c) = (pick(&mut rng), pick(&mut rng), pick(&mut rng));
                let chunk = format!("w{w}-c{round}");
                let mut usage = Usage::new();
                usage
                    .insert(UsageRole::Extract, UsageCounters { calls: 1, cache_hits: 0, tokens_in: 2, tokens_out: 3 });
                let changes = ChangeSet {
                    entities: vec![entity(&a, &[]), entity(&b, &[])],
                    relations: vec![relation(&a, &b, &[]), relation(&b, &c, &[])],
                    delete_relations: vec![RelKey::new(c.as_str(), a.as_str())],
                    chunk_lists: vec![
                        (GraphKey::Entity(a.clone()), ChunkListEdit::Append(vec![chunk.clone()])),
                        (GraphKey::Entity(b.clone()), ChunkListEdit::Append(vec![chunk.clone()])),
                    ],
                    usage,
                    ..Default::default()
                };
                store.apply(changes).await.expect("a commit without expectations never conflicts");
            }
        }
    };
    join_all((0..4).map(writer)).await;
    let relations = paging::all_relations(&store).await.expect("relations");
    let degrees = store.node_degrees(&nodes).await.expect("degrees");
    for (n, d) in nodes.iter().zip(&degrees) {
        let want = relations.iter().filter(|r| &r.key.src == n || &r.key.tgt == n).count();
        assert_eq!(*d, want, "degree of {n}");
    }
    for e in paging::all_entities(&store).await.expect("entities") {
        let list = paging::whole_chunk_list(&store, &GraphKey::Entity(e.name.clone())).await.expect("list");
        assert_eq!(e.chunk_count, list.len(), "chunk count of {}", e.name);
    }
    let total: usize = {
        let mut all = Vec::new();
        for e in paging::all_entity_names(&store).await.expect("names") {
            all.extend(paging::whole_chunk_list(&store, &GraphKey::Entity(e)).await.expect("list"));
        }
        all.len()
    };
    assert!((60..=120).contains(&total), "every commit listed its chunk once or twice: {total}");
    let usage = store.usage().await.expect("usage");
    assert_eq!(usage.get(&UsageRole::Extract).map(|c| (c.calls, c.tokens_out)), Some((60, 180)), "no usage lost");
}

/// A commit touching more keys than are locked one by one locks the whole workspace instead:
/// it runs beside small commits on the same entities without losing any of their writes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_of_many_keys_and_small_commits_on_them_all_land() {
    let store = common::fresh_store("big").await;
    let big = |_: usize| {
        let store = store.clone();
        async move {
            let entities = (0..400).map(|i| entity(&format!("E{i:03}"), &[])).collect();
            store.apply(ChangeSet { entities, ..Default::default() }).await.expect("big commit");
        }
    };
    let small = |w: usize| {
        let store = store.clone();
        async move {
            for _ in 0..10 {
                loop {
                    let name = format!("E{:03}", w * 7);
                    let cur = store.get_entities(std::slice::from_ref(&name)).await.expect("read").remove(0);
                    let changes = ChangeSet {
                        expect_entities: vec![(name.clone(), cur.map(|e| e.version))],
                        entities: vec![entity(&name, &[])],
                        ..Default::default()
                    };
                    match store.apply(changes).await {
                        Ok(()) => break,
                        Err(StoreError::Conflict(_)) => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        }
    };
    let smalls = join_all((0..3).map(small));
    let bigs = join_all((0..2).map(big));
    tokio::join!(smalls, bigs);
    let got = store.get_entities(&names(&["E000", "E007", "E014", "E399"])).await.expect("read");
    let versions: Vec<u64> = got.iter().map(|e| e.as_ref().expect("written").version).collect();
    assert_eq!(versions, vec![12, 12, 12, 2], "10 small writes and 2 big ones each, none lost");
}

/// Two processes enqueueing the same text under different ids at once: one original, one
/// recorded duplicate (the content hash is locked, not only checked).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_enqueues_of_the_same_text_record_one_original() {
    let a = common::fresh_store("enq").await;
    let b = PostgresStore::connect(common::options(), a.workspace_name()).await.expect("second pool");
    for round in 0..5 {
        let text = format!("the same text, round {round}");
        let (ra, rb) = tokio::join!(
            a.enqueue(vec![new_document(&format!("doc-a{round}"), &text, 1, "ta")]),
            b.enqueue(vec![new_document(&format!("doc-b{round}"), &text, 1, "tb")]),
        );
        let outcomes = [ra.expect("enqueue a").remove(0), rb.expect("enqueue b").remove(0)];
        let originals =
            outcomes.iter().filter(|o| matches!(o, lightrag_ports::EnqueueOutcome::Enqueued { .. })).count();
        assert_eq!(originals, 1, "round {round}: {outcomes:?}");
    }
}

/// Two processes fixing the same new dimension at once (in two workspaces) both succeed, and the
/// dimension's HNSW index exists once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_creating_the_index_of_a_new_dimension_both_succeed() {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let dim = 100 + (nanos as usize % 1800);
    let a = common::fresh_store("dim-a").await;
    let b = PostgresStore::connect(common::options(), &common::unique_workspace("dim-b")).await.expect("pool b");
    let id = EmbeddingIdentity { model: "m".into(), dim };
    let (ra, rb) = tokio::join!(a.check_embedding_identity(&id), b.check_embedding_identity(&id));
    ra.expect("a");
    rb.expect("b");
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM pg_indexes WHERE indexname = $1")
        .bind(format!("lrs_vectors_hnsw_{dim}"))
        .fetch_one(a.pool())
        .await
        .expect("pg_indexes");
    assert_eq!(n, 1);
    // Partial indexes of test-only dimensions would pile up in a long-lived test database.
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP INDEX IF EXISTS lrs_vectors_hnsw_{dim}")))
        .execute(a.pool())
        .await
        .expect("drop the test index");
}
