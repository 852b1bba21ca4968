//! The conformance suite every [`Store`](crate::Store) implementation runs.
//!
//! Each backend's tests call [`run_all`] with a factory that makes a fresh, empty store:
//!
//! ```ignore
//! lightrag_ports::conformance::run_all(|| async { Arc::new(open_temp_store()) as Arc<dyn Store> }).await;
//! ```
//!
//! Every `check_*` function takes an empty store, exercises one part of the contract and panics
//! with a message naming what broke. They can also be called one by one.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use serde_json::json;

use crate::store::NewDocument;
use crate::*;

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

/// Runs every check, each on a fresh store made by `make`.
pub async fn run_all<F, Fut>(make: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Arc<dyn Store>>,
{
    check_embedding_identity(&*make().await).await;
    check_enqueue_and_read(&*make().await).await;
    check_enqueue_duplicates(&*make().await).await;
    check_list_docs_and_counts(&*make().await).await;
    check_claim(&*make().await).await;
    check_renew_leases(&*make().await).await;
    check_apply_round_trip(&*make().await).await;
    check_versions(&*make().await).await;
    check_conflict_is_atomic(&*make().await).await;
    check_undirected_relations(&*make().await).await;
    check_graph_reads(&*make().await).await;
    check_delete_documents_cascade(&*make().await).await;
    check_delete_entities_and_relations(&*make().await).await;
    check_delete_then_recreate(&*make().await).await;
    check_vector_search_exact(&*make().await).await;
    check_vector_update_and_delete(&*make().await).await;
    check_wrong_dimension(&*make().await).await;
    check_cache(&*make().await).await;
    check_usage(&*make().await).await;
    check_clear_all(&*make().await).await;
}

// ---------------------------------------------------------------------------------------------
// Record builders (public so backends can reuse them in their own tests)
// ---------------------------------------------------------------------------------------------

/// A document with a content hash derived from its content.
pub fn document(id: &str, content: &str, created_at: i64) -> Document {
    Document {
        id: id.to_string(),
        content: content.to_string(),
        file_path: format!("{id}.txt"),
        content_hash: ids::md5_hex(content),
        chunking: ChunkingOptions::default(),
        created_at,
    }
}

/// A document to enqueue under `track_id`.
pub fn new_document(id: &str, content: &str, created_at: i64, track_id: &str) -> NewDocument {
    NewDocument {
        document: document(id, content, created_at),
        track_id: track_id.to_string(),
    }
}

/// A status row.
pub fn status_row(id: &str, status: DocStatus, created_at: i64) -> DocStatusRecord {
    DocStatusRecord {
        id: id.to_string(),
        status,
        file_path: format!("{id}.txt"),
        track_id: "track-test".to_string(),
        content_summary: format!("summary of {id}"),
        content_length: 42,
        content_hash: ids::md5_hex(id),
        chunks_count: None,
        chunks_list: Vec::new(),
        error_msg: None,
        metadata: serde_json::Map::new(),
        created_at,
        updated_at: created_at,
        lease_owner: None,
        lease_until: None,
    }
}

/// A chunk of `doc_id`.
pub fn chunk(doc_id: &str, order: u32) -> Chunk {
    Chunk {
        id: ids::chunk_id(doc_id, order as usize),
        doc_id: doc_id.to_string(),
        order,
        tokens: 10 + order,
        content: format!("content {order} of {doc_id}"),
        file_path: format!("{doc_id}.txt"),
    }
}

/// An entity (version 0, i.e. not stored yet).
pub fn entity(name: &str, chunk_ids: &[&str]) -> Entity {
    let ids: Vec<String> = chunk_ids.iter().map(|s| s.to_string()).collect();
    Entity {
        name: name.to_string(),
        entity_type: "concept".to_string(),
        description: format!("{name} is a thing"),
        source_ids: ids.clone(),
        chunk_ids: ids,
        file_paths: vec!["a.txt".to_string()],
        created_at: 1000,
        truncate: String::new(),
        version: 0,
    }
}

/// A relation between `a` and `b` (given in any order).
pub fn relation(a: &str, b: &str, chunk_ids: &[&str]) -> Relation {
    let ids: Vec<String> = chunk_ids.iter().map(|s| s.to_string()).collect();
    Relation {
        key: RelKey::new(a, b),
        weight: 1.5,
        keywords: "k1,k2".to_string(),
        description: format!("{a} relates to {b}"),
        source_ids: ids.clone(),
        chunk_ids: ids,
        file_paths: vec!["a.txt".to_string()],
        created_at: 1000,
        truncate: String::new(),
        version: 0,
    }
}

/// An extraction record for a chunk.
pub fn extraction(chunk_id: &str, doc_id: &str, created_at: i64) -> ChunkExtraction {
    ChunkExtraction {
        chunk_id: chunk_id.to_string(),
        doc_id: doc_id.to_string(),
        entities: vec![ExtractedEntity {
            name: "Alpha".to_string(),
            entity_type: "person".to_string(),
            description: format!("Alpha in {chunk_id}"),
        }],
        relations: vec![ExtractedRelation {
            src: "Beta".to_string(),
            tgt: "Alpha".to_string(),
            keywords: "knows".to_string(),
            description: "Beta knows Alpha".to_string(),
            weight: 2.0,
        }],
        cache_keys: vec![format!("default:extract:{chunk_id}")],
        created_at,
    }
}

/// A vector record.
pub fn vector(kind: VectorKind, key: &str, v: Vec<f32>) -> VectorRecord {
    VectorRecord {
        kind,
        key: key.to_string(),
        content: format!("text of {key}"),
        vector: v,
    }
}

/// A small deterministic pseudo-random generator (xorshift64*), so the suite needs no `rand`.
#[derive(Debug, Clone)]
pub struct TestRng(u64);

impl TestRng {
    /// Seeded generator (seed 0 is replaced by a constant).
    pub fn new(seed: u64) -> Self {
        TestRng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [-1, 1).
    pub fn next_f32(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    /// A random vector of `dim` components.
    pub fn vector(&mut self, dim: usize) -> Vec<f32> {
        (0..dim).map(|_| self.next_f32()).collect()
    }
}

fn unit(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn s(v: &str) -> String {
    v.to_string()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

async fn apply_ok(store: &dyn Store, changes: ChangeSet, what: &str) {
    if let Err(e) = store.apply(changes).await {
        panic!("apply({what}) failed: {e}");
    }
}

/// Writes one processed document with `n` chunks, chunk vectors (dim 4) and extraction records.
async fn put_doc(store: &dyn Store, doc_id: &str, n: u32) {
    let chunks: Vec<Chunk> = (0..n).map(|i| chunk(doc_id, i)).collect();
    let mut status = status_row(doc_id, DocStatus::Processed, 100);
    status.chunks_count = Some(n as usize);
    status.chunks_list = chunks.iter().map(|c| c.id.clone()).collect();
    let changes = ChangeSet {
        doc_status: vec![status],
        extractions: chunks
            .iter()
            .map(|c| extraction(&c.id, doc_id, 500))
            .collect(),
        vectors: chunks
            .iter()
            .enumerate()
            .map(|(i, c)| vector(VectorKind::Chunk, &c.id, vec![1.0, i as f32, 0.5, 0.0]))
            .collect(),
        doc_links: vec![DocLinks {
            doc_id: doc_id.to_string(),
            entities: names(&["Alpha"]),
            relations: vec![RelKey::new("Alpha", "Beta")],
        }],
        chunks,
        ..ChangeSet::default()
    };
    apply_ok(store, changes, &format!("document {doc_id}")).await;
}

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

/// Identity is recorded on first use, accepted again, refused when model or dimension differ.
pub async fn check_embedding_identity(store: &dyn Store) {
    let id = EmbeddingIdentity {
        model: s("model-a"),
        dim: 4,
    };
    store
        .check_embedding_identity(&id)
        .await
        .expect("first identity check must record it");
    store
        .check_embedding_identity(&id)
        .await
        .expect("same identity must be accepted again");
    let other_model = EmbeddingIdentity {
        model: s("model-b"),
        dim: 4,
    };
    match store.check_embedding_identity(&other_model).await {
        Err(StoreError::EmbeddingMismatch {
            stored_model,
            stored_dim,
            configured_model,
            configured_dim,
        }) => {
            assert_eq!(
                (stored_model.as_str(), stored_dim),
                ("model-a", 4),
                "mismatch must report the stored identity"
            );
            assert_eq!((configured_model.as_str(), configured_dim), ("model-b", 4));
        }
        other => panic!("a different model must give EmbeddingMismatch, got {other:?}"),
    }
    let other_dim = EmbeddingIdentity {
        model: s("model-a"),
        dim: 8,
    };
    assert!(
        matches!(
            store.check_embedding_identity(&other_dim).await,
            Err(StoreError::EmbeddingMismatch { .. })
        ),
        "a different dimension must give EmbeddingMismatch"
    );
    // The identity fixes the dimension of vectors.
    let r = store
        .apply(ChangeSet {
            vectors: vec![vector(VectorKind::Chunk, "c", vec![1.0; 8])],
            ..Default::default()
        })
        .await;
    assert!(
        matches!(
            r,
            Err(StoreError::WrongDimension {
                expected: 4,
                got: 8
            })
        ),
        "vectors must match the identity dim, got {r:?}"
    );
}

/// Enqueued documents are stored as pending with summary and length; reads return them.
pub async fn check_enqueue_and_read(store: &dyn Store) {
    let long: String = "é".repeat(150);
    let out = store
        .enqueue(vec![
            new_document("doc-1", "hello world", 10, "t1"),
            new_document("doc-2", &long, 20, "t1"),
        ])
        .await
        .expect("enqueue");
    assert_eq!(
        out,
        vec![
            EnqueueOutcome::Enqueued { doc_id: s("doc-1") },
            EnqueueOutcome::Enqueued { doc_id: s("doc-2") }
        ]
    );
    let doc = store
        .get_document("doc-1")
        .await
        .expect("get_document")
        .expect("doc-1 must be stored");
    assert_eq!(
        doc,
        document("doc-1", "hello world", 10),
        "stored document must round-trip"
    );
    let st = store
        .get_doc_status("doc-2")
        .await
        .expect("get_doc_status")
        .expect("doc-2 status must exist");
    assert_eq!(st.status, DocStatus::Pending);
    assert_eq!(st.track_id, "t1");
    assert_eq!(
        st.content_length, 150,
        "content_length counts characters, not bytes"
    );
    assert_eq!(
        st.content_summary.chars().count(),
        100,
        "content_summary is the first 100 characters"
    );
    assert_eq!(st.content_hash, ids::md5_hex(&long));
    assert_eq!(st.created_at, 20);
    assert!(st.lease_owner.is_none() && st.error_msg.is_none());
    assert!(
        store.get_document("doc-x").await.expect("get").is_none(),
        "unknown document must be None"
    );
    assert!(
        store.get_doc_status("doc-x").await.expect("get").is_none(),
        "unknown status must be None"
    );
    // Chunking options round-trip.
    let mut d = new_document("doc-3", "chunked text", 30, "t2");
    d.document.chunking = ChunkingOptions {
        split_by_character: Some(s("\n\n")),
        split_by_character_only: true,
    };
    store.enqueue(vec![d.clone()]).await.expect("enqueue");
    assert_eq!(
        store.get_document("doc-3").await.expect("get"),
        Some(d.document),
        "chunking options must round-trip"
    );
}

/// Duplicates by id, by content hash, and within one batch become failed `dup-` rows.
pub async fn check_enqueue_duplicates(store: &dyn Store) {
    store
        .enqueue(vec![new_document("doc-a", "alpha text", 10, "t1")])
        .await
        .expect("enqueue");
    // Same id, other content.
    let out = store
        .enqueue(vec![new_document("doc-a", "other text", 20, "t2")])
        .await
        .expect("enqueue");
    let expected_dup = format!(
        "dup-{}",
        ids::md5_hex(&format!("doc-at2{}", ids::md5_hex("other text")))
    );
    assert_eq!(
        out,
        vec![EnqueueOutcome::Duplicate {
            dup_id: expected_dup.clone(),
            original_id: s("doc-a"),
            original_status: DocStatus::Pending
        }],
        "same id must be a duplicate with id dup-md5(doc id + track id + content hash)"
    );
    let dup = store
        .get_doc_status(&expected_dup)
        .await
        .expect("get")
        .expect("dup row must exist");
    assert_eq!(dup.status, DocStatus::Failed);
    assert_eq!(dup.metadata.get("is_duplicate"), Some(&json!(true)));
    assert_eq!(dup.metadata.get("original_doc_id"), Some(&json!("doc-a")));
    assert_eq!(dup.metadata.get("original_track_id"), Some(&json!("t1")));
    assert!(
        dup.content_summary.starts_with("[DUPLICATE:"),
        "dup summary: {}",
        dup.content_summary
    );
    assert!(
        dup.content_summary.contains("doc-a"),
        "dup summary names the original: {}",
        dup.content_summary
    );
    assert!(
        dup.error_msg
            .as_deref()
            .is_some_and(|m| m.contains("doc-a")),
        "error_msg must name the original"
    );
    assert_eq!(
        store
            .get_document("doc-a")
            .await
            .expect("get")
            .map(|d| d.content),
        Some(s("alpha text")),
        "a duplicate must not overwrite the original"
    );
    // Same content, other id.
    let out = store
        .enqueue(vec![new_document("doc-b", "alpha text", 30, "t3")])
        .await
        .expect("enqueue");
    match &out[..] {
        [
            EnqueueOutcome::Duplicate {
                original_id,
                dup_id,
                ..
            },
        ] => {
            assert_eq!(
                original_id, "doc-a",
                "same content must point at the original"
            );
            assert!(dup_id.starts_with("dup-"));
        }
        other => panic!("same content hash must be a duplicate, got {other:?}"),
    }
    assert!(
        store.get_document("doc-b").await.expect("get").is_none(),
        "a content duplicate is not stored"
    );
    // Within one batch: the second is a duplicate of the first.
    let out = store
        .enqueue(vec![
            new_document("doc-c", "gamma", 40, "t4"),
            new_document("doc-d", "gamma", 41, "t4"),
            new_document("doc-e", "epsilon", 42, "t4"),
        ])
        .await
        .expect("enqueue");
    assert_eq!(out[0], EnqueueOutcome::Enqueued { doc_id: s("doc-c") });
    assert!(
        matches!(&out[1], EnqueueOutcome::Duplicate { original_id, .. } if original_id == "doc-c"),
        "second of a batch with equal content must be a duplicate of the first, got {:?}",
        out[1]
    );
    assert_eq!(out[2], EnqueueOutcome::Enqueued { doc_id: s("doc-e") });
    // Original status is reported.
    let mut processed = status_row("doc-c", DocStatus::Processed, 40);
    processed.content_hash = ids::md5_hex("gamma");
    apply_ok(
        store,
        ChangeSet {
            doc_status: vec![processed],
            ..Default::default()
        },
        "mark processed",
    )
    .await;
    let out = store
        .enqueue(vec![new_document("doc-c", "gamma", 50, "t5")])
        .await
        .expect("enqueue");
    assert!(
        matches!(
            &out[0],
            EnqueueOutcome::Duplicate {
                original_status: DocStatus::Processed,
                ..
            }
        ),
        "duplicate must report the original's status, got {:?}",
        out[0]
    );
}

/// Listing filters by status and track, sorts, pages and reports the total; counts per status.
pub async fn check_list_docs_and_counts(store: &dyn Store) {
    let rows = [
        ("doc-1", DocStatus::Pending, 10, 15, "b.txt", "tA"),
        ("doc-2", DocStatus::Processed, 20, 25, "a.txt", "tA"),
        ("doc-3", DocStatus::Failed, 30, 5, "c.txt", "tB"),
        ("doc-4", DocStatus::Pending, 40, 45, "d.txt", "tB"),
        ("doc-5", DocStatus::Processing, 50, 35, "e.txt", "tA"),
    ];
    let statuses = rows
        .iter()
        .map(|(id, st, created, updated, file, track)| {
            let mut r = status_row(id, *st, *created);
            r.updated_at = *updated;
            r.file_path = s(file);
            r.track_id = s(track);
            r
        })
        .collect();
    apply_ok(
        store,
        ChangeSet {
            doc_status: statuses,
            ..Default::default()
        },
        "status rows",
    )
    .await;
    let ids_of = |v: &[DocStatusRecord]| v.iter().map(|r| r.id.clone()).collect::<Vec<_>>();

    let (all, total) = store.list_docs(&DocFilter::default()).await.expect("list");
    assert_eq!(total, 5);
    assert_eq!(
        ids_of(&all),
        names(&["doc-4", "doc-5", "doc-2", "doc-1", "doc-3"]),
        "default sort is updated desc"
    );
    let cases: Vec<(DocSort, Vec<&str>)> = vec![
        (
            DocSort::UpdatedAsc,
            vec!["doc-3", "doc-1", "doc-2", "doc-5", "doc-4"],
        ),
        (
            DocSort::CreatedAsc,
            vec!["doc-1", "doc-2", "doc-3", "doc-4", "doc-5"],
        ),
        (
            DocSort::CreatedDesc,
            vec!["doc-5", "doc-4", "doc-3", "doc-2", "doc-1"],
        ),
        (
            DocSort::IdAsc,
            vec!["doc-1", "doc-2", "doc-3", "doc-4", "doc-5"],
        ),
        (
            DocSort::IdDesc,
            vec!["doc-5", "doc-4", "doc-3", "doc-2", "doc-1"],
        ),
        (
            DocSort::FilePathAsc,
            vec!["doc-2", "doc-1", "doc-3", "doc-4", "doc-5"],
        ),
        (
            DocSort::FilePathDesc,
            vec!["doc-5", "doc-4", "doc-3", "doc-1", "doc-2"],
        ),
    ];
    for (sort, expected) in cases {
        let (got, _) = store
            .list_docs(&DocFilter {
                sort,
                ..Default::default()
            })
            .await
            .expect("list");
        assert_eq!(ids_of(&got), names(&expected), "sort {sort:?}");
    }
    let filter = DocFilter {
        statuses: vec![DocStatus::Pending, DocStatus::Failed],
        sort: DocSort::IdAsc,
        ..Default::default()
    };
    let (got, total) = store.list_docs(&filter).await.expect("list");
    assert_eq!(
        (ids_of(&got), total),
        (names(&["doc-1", "doc-3", "doc-4"]), 3),
        "status filter"
    );
    let filter = DocFilter {
        track_id: Some(s("tA")),
        sort: DocSort::IdAsc,
        ..Default::default()
    };
    let (got, total) = store.list_docs(&filter).await.expect("list");
    assert_eq!(
        (ids_of(&got), total),
        (names(&["doc-1", "doc-2", "doc-5"]), 3),
        "track filter"
    );
    let filter = DocFilter {
        sort: DocSort::IdAsc,
        offset: 1,
        limit: Some(2),
        ..Default::default()
    };
    let (got, total) = store.list_docs(&filter).await.expect("list");
    assert_eq!(
        (ids_of(&got), total),
        (names(&["doc-2", "doc-3"]), 5),
        "paging keeps the total before paging"
    );
    let filter = DocFilter {
        sort: DocSort::IdAsc,
        offset: 10,
        limit: Some(2),
        ..Default::default()
    };
    let (got, total) = store.list_docs(&filter).await.expect("list");
    assert!(
        got.is_empty() && total == 5,
        "offset past the end gives no rows but the total"
    );

    let counts = store.status_counts().await.expect("status_counts");
    let count = |st: DocStatus| counts.get(&st).copied().unwrap_or(0);
    assert_eq!(
        [
            count(DocStatus::Pending),
            count(DocStatus::Processing),
            count(DocStatus::Processed),
            count(DocStatus::Failed)
        ],
        [2, 1, 1, 1],
        "status counts: {counts:?}"
    );
}

/// Claims: pending oldest first, expired leases, dead owners, include_failed, never duplicates,
/// limit, only_ids; claimed rows carry the lease.
pub async fn check_claim(store: &dyn Store) {
    let mut rows = vec![
        status_row("doc-p2", DocStatus::Pending, 20),
        status_row("doc-p1", DocStatus::Pending, 10),
        status_row("doc-p3", DocStatus::Pending, 10),
        status_row("doc-done", DocStatus::Processed, 1),
        status_row("doc-fail", DocStatus::Failed, 5),
    ];
    let mut dup = status_row("dup-123", DocStatus::Failed, 1);
    dup.metadata.insert(s("is_duplicate"), json!(true));
    rows.push(dup);
    let mut live = status_row("doc-live", DocStatus::Processing, 2);
    live.lease_owner = Some(s("w-live"));
    live.lease_until = Some(10_000);
    let mut expired = status_row("doc-expired", DocStatus::Processing, 3);
    expired.lease_owner = Some(s("w-old"));
    expired.lease_until = Some(500);
    let mut dead = status_row("doc-dead", DocStatus::Processing, 4);
    dead.lease_owner = Some(s("w-dead"));
    dead.lease_until = Some(10_000);
    rows.extend([live, expired, dead]);
    apply_ok(
        store,
        ChangeSet {
            doc_status: rows,
            ..Default::default()
        },
        "claim rows",
    )
    .await;

    let base = ClaimRequest {
        owner: s("w1"),
        lease_until: 5_000,
        now: 1_000,
        dead_owners: vec![],
        include_failed: false,
        only_ids: vec![],
        limit: 2,
    };
    let got = store.claim(&base).await.expect("claim");
    let got_ids: Vec<_> = got.iter().map(|r| r.id.clone()).collect();
    assert_eq!(
        got_ids,
        names(&["doc-expired", "doc-p1"]),
        "oldest claimable first (created_at, then id), limited"
    );
    for r in &got {
        assert_eq!(r.status, DocStatus::Processing);
        assert_eq!(r.lease_owner.as_deref(), Some("w1"));
        assert_eq!(r.lease_until, Some(5_000));
        assert_eq!(r.updated_at, 1_000, "claim sets updated_at to now");
    }
    let stored = store
        .get_doc_status("doc-p1")
        .await
        .expect("get")
        .expect("row");
    assert_eq!(
        (stored.status, stored.lease_owner.as_deref()),
        (DocStatus::Processing, Some("w1")),
        "claim is stored"
    );

    // only_ids restricts; a live lease is never taken.
    let req = ClaimRequest {
        only_ids: names(&["doc-p2", "doc-live"]),
        limit: 10,
        ..base.clone()
    };
    let got: Vec<_> = store
        .claim(&req)
        .await
        .expect("claim")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(got, names(&["doc-p2"]), "only_ids and live leases");

    // Dead owners are reclaimed; failed only when asked; duplicates never.
    let req = ClaimRequest {
        owner: s("w2"),
        dead_owners: names(&["w-dead"]),
        limit: 10,
        ..base.clone()
    };
    let got: Vec<_> = store
        .claim(&req)
        .await
        .expect("claim")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(
        got,
        names(&["doc-dead", "doc-p3"]),
        "dead owner's documents and remaining pending ones"
    );
    let req = ClaimRequest {
        owner: s("w3"),
        include_failed: true,
        limit: 10,
        ..base.clone()
    };
    let got: Vec<_> = store
        .claim(&req)
        .await
        .expect("claim")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(
        got,
        names(&["doc-fail"]),
        "include_failed takes failed rows but never dup- rows"
    );
    let req = ClaimRequest {
        owner: s("w4"),
        include_failed: true,
        limit: 10,
        ..base.clone()
    };
    assert!(
        store.claim(&req).await.expect("claim").is_empty(),
        "nothing left to claim"
    );
    // Once w1's leases expire, another worker takes them over.
    let req = ClaimRequest {
        owner: s("w5"),
        now: 6_000,
        lease_until: 9_000,
        limit: 10,
        ..base.clone()
    };
    let got: Vec<_> = store
        .claim(&req)
        .await
        .expect("claim")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(
        got,
        names(&[
            "doc-expired",
            "doc-dead",
            "doc-fail",
            "doc-p1",
            "doc-p3",
            "doc-p2"
        ]),
        "expired leases are reclaimed (a live lease is not)"
    );
    let req = ClaimRequest {
        limit: 0,
        now: 100_000,
        ..base
    };
    assert!(
        store.claim(&req).await.expect("claim").is_empty(),
        "limit 0 claims nothing"
    );
    let dup = store
        .get_doc_status("dup-123")
        .await
        .expect("get")
        .expect("dup row");
    assert_eq!(dup.status, DocStatus::Failed, "duplicates stay failed");
}

/// Renewing extends held leases and reports the ones lost.
pub async fn check_renew_leases(store: &dyn Store) {
    apply_ok(
        store,
        ChangeSet {
            doc_status: vec![
                status_row("doc-1", DocStatus::Pending, 1),
                status_row("doc-2", DocStatus::Pending, 2),
            ],
            ..Default::default()
        },
        "rows",
    )
    .await;
    let req = ClaimRequest {
        owner: s("w1"),
        lease_until: 100,
        now: 10,
        dead_owners: vec![],
        include_failed: false,
        only_ids: vec![],
        limit: 10,
    };
    assert_eq!(store.claim(&req).await.expect("claim").len(), 2);
    // w2 takes doc-2 over after expiry.
    let req2 = ClaimRequest {
        owner: s("w2"),
        now: 200,
        lease_until: 300,
        ..req.clone()
    };
    let taken = store.claim(&req2).await.expect("claim");
    assert_eq!(taken.len(), 2, "both expired leases are reclaimable");
    let lost = store
        .renew_leases("w1", &names(&["doc-1", "doc-2", "doc-none"]), 1_000)
        .await
        .expect("renew");
    assert_eq!(
        lost,
        names(&["doc-1", "doc-2", "doc-none"]),
        "w1 holds nothing any more"
    );
    let lost = store
        .renew_leases("w2", &names(&["doc-1", "doc-2"]), 1_000)
        .await
        .expect("renew");
    assert!(lost.is_empty(), "w2 holds both, lost: {lost:?}");
    let row = store
        .get_doc_status("doc-1")
        .await
        .expect("get")
        .expect("row");
    assert_eq!(row.lease_until, Some(1_000), "renew extends the lease");
    // A finished document is no longer held.
    apply_ok(
        store,
        ChangeSet {
            doc_status: vec![status_row("doc-1", DocStatus::Processed, 1)],
            ..Default::default()
        },
        "done",
    )
    .await;
    let lost = store
        .renew_leases("w2", &names(&["doc-1", "doc-2"]), 2_000)
        .await
        .expect("renew");
    assert_eq!(lost, names(&["doc-1"]), "a processed document is not held");
}

/// Everything a change set writes reads back (status, chunks, extractions, links, graph, vectors).
pub async fn check_apply_round_trip(store: &dyn Store) {
    let mut status = status_row("doc-1", DocStatus::Processed, 100);
    status.chunks_count = Some(2);
    status.chunks_list = names(&["doc-1-chunk-000", "doc-1-chunk-001"]);
    status.error_msg = Some(s("none"));
    status.metadata.insert(s("process_start_time"), json!(123));
    status.lease_owner = Some(s("w"));
    status.lease_until = Some(77);
    let chunks = vec![chunk("doc-1", 0), chunk("doc-1", 1)];
    let extractions = vec![
        extraction("doc-1-chunk-001", "doc-1", 5),
        extraction("doc-1-chunk-000", "doc-1", 9),
    ];
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
    assert_eq!(
        store.get_doc_status("doc-1").await.expect("get"),
        Some(status),
        "status row round-trips"
    );
    let ids = names(&[
        "doc-1-chunk-001",
        "missing",
        "doc-1-chunk-000",
        "doc-1-chunk-001",
    ]);
    let got = store.get_chunks(&ids).await.expect("get_chunks");
    assert_eq!(
        got,
        vec![
            Some(chunks[1].clone()),
            None,
            Some(chunks[0].clone()),
            Some(chunks[1].clone())
        ],
        "get_chunks keeps request order, None for unknown ids"
    );
    let got = store
        .get_extractions(&names(&["doc-1-chunk-000", "nope", "doc-1-chunk-001"]))
        .await
        .expect("extractions");
    assert_eq!(
        got, extractions,
        "extractions ordered by created_at then chunk id, unknown skipped"
    );
    assert_eq!(
        store.get_doc_links("doc-1").await.expect("links"),
        Some(links)
    );
    assert_eq!(store.get_doc_links("doc-x").await.expect("links"), None);
    let got = store
        .get_entities(&names(&["Nope", "Alpha"]))
        .await
        .expect("entities");
    assert!(got[0].is_none(), "unknown entity is None");
    assert_eq!(
        got[1],
        Some(Entity { version: 1, ..e }),
        "entity round-trips with version 1"
    );
    let got = store
        .get_relations(&[RelKey::new("Alpha", "Beta")])
        .await
        .expect("relations");
    assert_eq!(
        got,
        vec![Some(Relation { version: 1, ..r })],
        "relation round-trips with version 1"
    );
    let got = store
        .get_vectors(VectorKind::Entity, &names(&["Alpha", "Beta"]))
        .await
        .expect("vectors");
    let v = got[0].as_ref().expect("Alpha vector stored");
    assert!(
        (v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6 && v[2].abs() < 1e-6,
        "stored vectors are normalised: {v:?}"
    );
    assert!(got[1].is_none());
    let counts = store.vector_counts().await.expect("counts");
    assert_eq!(counts.get(&VectorKind::Entity).copied().unwrap_or(0), 1);
    assert_eq!(counts.get(&VectorKind::Chunk).copied().unwrap_or(0), 0);
    store
        .apply(ChangeSet::default())
        .await
        .expect("an empty change set is accepted");
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
                expect_relations: vec![(
                    RelKey {
                        src: s("B"),
                        tgt: s("A"),
                    },
                    Some(round - 1),
                )],
                entities: vec![entity("A", &[])],
                relations: vec![relation("B", "A", &[])],
                ..Default::default()
            },
            "rewrite",
        )
        .await;
        let e = store.get_entities(&names(&["A"])).await.expect("get")[0]
            .clone()
            .expect("A");
        assert_eq!(e.version, round, "entity version after {round} writes");
        let r = store
            .get_relations(std::slice::from_ref(&key))
            .await
            .expect("get")[0]
            .clone()
            .expect("A-B");
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
    let r = store
        .apply(ChangeSet {
            expect_entities: vec![(s("A"), None)],
            ..Default::default()
        })
        .await;
    assert!(
        matches!(r, Err(StoreError::Conflict(_))),
        "expecting absent for an existing entity must conflict"
    );
    let r = store
        .apply(ChangeSet {
            expect_entities: vec![(s("Z"), Some(1))],
            ..Default::default()
        })
        .await;
    assert!(
        matches!(r, Err(StoreError::Conflict(_))),
        "expecting a version of a missing entity must conflict"
    );
    let r = store
        .apply(ChangeSet {
            expect_relations: vec![(key.clone(), Some(7))],
            ..Default::default()
        })
        .await;
    assert!(
        matches!(r, Err(StoreError::Conflict(_))),
        "stale relation version must conflict"
    );
    let e = store.get_entities(&names(&["A"])).await.expect("get")[0]
        .clone()
        .expect("A");
    assert_eq!(e.version, 3, "failed applies do not bump versions");
    // Delete then recreate restarts at 1.
    apply_ok(
        store,
        ChangeSet {
            delete_entities: names(&["A"]),
            ..Default::default()
        },
        "delete",
    )
    .await;
    apply_ok(
        store,
        ChangeSet {
            entities: vec![entity("A", &[])],
            ..Default::default()
        },
        "recreate",
    )
    .await;
    let e = store.get_entities(&names(&["A"])).await.expect("get")[0]
        .clone()
        .expect("A");
    assert_eq!(e.version, 1, "a re-created entity starts at version 1");
}

/// A conflicting change set writes nothing at all.
pub async fn check_conflict_is_atomic(store: &dyn Store) {
    put_doc(store, "doc-keep", 2).await;
    apply_ok(
        store,
        ChangeSet {
            entities: vec![entity("E", &[])],
            ..Default::default()
        },
        "entity",
    )
    .await;
    let before_usage = store.usage().await.expect("usage");
    let mut usage = Usage::new();
    usage.insert(
        UsageRole::Extract,
        UsageCounters {
            calls: 1,
            cache_hits: 0,
            tokens_in: 10,
            tokens_out: 5,
        },
    );
    let bad = ChangeSet {
        expect_entities: vec![(s("N"), None), (s("E"), Some(99))],
        doc_status: vec![status_row("doc-new", DocStatus::Processed, 1)],
        delete_documents: names(&["doc-keep"]),
        chunks: vec![chunk("doc-new", 0)],
        extractions: vec![extraction("doc-new-chunk-000", "doc-new", 1)],
        entities: vec![entity("N", &[]), entity("E", &[])],
        delete_entities: names(&["E"]),
        relations: vec![relation("N", "E", &[])],
        vectors: vec![vector(
            VectorKind::Chunk,
            "doc-new-chunk-000",
            vec![1.0, 0.0, 0.0, 0.0],
        )],
        doc_links: vec![DocLinks {
            doc_id: s("doc-new"),
            ..Default::default()
        }],
        usage,
        ..Default::default()
    };
    let r = store.apply(bad).await;
    assert!(
        matches!(&r, Err(StoreError::Conflict(m)) if m.contains('E')),
        "expected a conflict on E, got {r:?}"
    );
    assert!(
        store
            .get_doc_status("doc-new")
            .await
            .expect("get")
            .is_none(),
        "conflict wrote a status row"
    );
    assert!(
        store
            .get_doc_status("doc-keep")
            .await
            .expect("get")
            .is_some(),
        "conflict ran a deletion"
    );
    assert_eq!(
        store
            .get_chunks(&names(&["doc-new-chunk-000"]))
            .await
            .expect("get"),
        vec![None],
        "conflict wrote a chunk"
    );
    assert!(
        store
            .get_extractions(&names(&["doc-new-chunk-000"]))
            .await
            .expect("get")
            .is_empty(),
        "conflict wrote an extraction"
    );
    let ents = store.get_entities(&names(&["N", "E"])).await.expect("get");
    assert!(ents[0].is_none(), "conflict wrote an entity");
    assert_eq!(
        ents[1].as_ref().map(|e| e.version),
        Some(1),
        "conflict touched an entity"
    );
    assert_eq!(
        store.graph_counts().await.expect("counts").edges,
        0,
        "conflict wrote a relation"
    );
    assert!(
        store
            .get_doc_links("doc-new")
            .await
            .expect("links")
            .is_none(),
        "conflict wrote doc links"
    );
    assert_eq!(
        store.usage().await.expect("usage"),
        before_usage,
        "conflict added usage"
    );
    let hits = store
        .search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0, 0.0], 10, -1.0)
        .await
        .expect("search");
    assert!(
        hits.iter().all(|h| h.key != "doc-new-chunk-000"),
        "conflict wrote a searchable vector"
    );
    assert_eq!(
        hits.len(),
        2,
        "the kept document's vectors are still searchable"
    );
}

/// Relations are undirected: either order finds the same edge.
pub async fn check_undirected_relations(store: &dyn Store) {
    let written = Relation {
        key: RelKey {
            src: s("Zed"),
            tgt: s("Amy"),
        },
        ..relation("Zed", "Amy", &[])
    };
    apply_ok(
        store,
        ChangeSet {
            relations: vec![written],
            ..Default::default()
        },
        "relation",
    )
    .await;
    let got = store
        .get_relations(&[
            RelKey {
                src: s("Zed"),
                tgt: s("Amy"),
            },
            RelKey::new("Amy", "Zed"),
        ])
        .await
        .expect("get");
    let a = got[0].as_ref().expect("lookup in written order");
    let b = got[1].as_ref().expect("lookup in sorted order");
    assert_eq!(a, b, "both orders find the same edge");
    assert_eq!(
        a.key,
        RelKey::new("Amy", "Zed"),
        "stored key is the sorted pair"
    );
    assert_eq!(
        store.graph_counts().await.expect("counts").edges,
        1,
        "one undirected edge"
    );
    apply_ok(
        store,
        ChangeSet {
            relations: vec![relation("Amy", "Zed", &[])],
            ..Default::default()
        },
        "again",
    )
    .await;
    let all = store.all_relations().await.expect("all");
    assert_eq!(
        all.len(),
        1,
        "writing the reverse order updates the same edge"
    );
    assert_eq!(all[0].version, 2);
    apply_ok(
        store,
        ChangeSet {
            delete_relations: vec![RelKey {
                src: s("Zed"),
                tgt: s("Amy"),
            }],
            ..Default::default()
        },
        "delete",
    )
    .await;
    assert_eq!(
        store.graph_counts().await.expect("counts").edges,
        0,
        "deleting by the reverse order removes the edge"
    );
}

/// Degrees, neighbourhoods, top entities, names, full listings, counts.
pub async fn check_graph_reads(store: &dyn Store) {
    let ents = ["A", "B", "C", "D", "E"].map(|n| entity(n, &[]));
    let rels = vec![
        relation("A", "B", &[]),
        relation("C", "A", &[]),
        relation("A", "D", &[]),
        relation("B", "C", &[]),
    ];
    apply_ok(
        store,
        ChangeSet {
            entities: ents.to_vec(),
            relations: rels,
            ..Default::default()
        },
        "graph",
    )
    .await;
    let deg = store
        .node_degrees(&names(&["A", "B", "E", "Nope", "C", "D"]))
        .await
        .expect("degrees");
    assert_eq!(deg, vec![3, 2, 0, 0, 2, 1], "degrees in request order");
    let rels = store
        .relations_of(&names(&["B", "D"]))
        .await
        .expect("relations_of");
    let mut keys: Vec<RelKey> = rels.iter().map(|r| r.key.clone()).collect();
    keys.sort();
    assert_eq!(
        keys,
        vec![
            RelKey::new("A", "B"),
            RelKey::new("A", "D"),
            RelKey::new("B", "C")
        ],
        "each touching edge once"
    );
    let rels = store
        .relations_of(&names(&["A", "B", "C"]))
        .await
        .expect("relations_of");
    assert_eq!(
        rels.len(),
        4,
        "edges between asked nodes appear once: {rels:?}"
    );
    assert!(
        store
            .relations_of(&names(&["E"]))
            .await
            .expect("relations_of")
            .is_empty()
    );
    let top = store.top_entities(4).await.expect("top");
    assert_eq!(
        top,
        vec![(s("A"), 3), (s("B"), 2), (s("C"), 2), (s("D"), 1)],
        "degree desc then name"
    );
    assert_eq!(
        store.entity_names().await.expect("names"),
        names(&["A", "B", "C", "D", "E"])
    );
    let all: Vec<String> = store
        .all_entities()
        .await
        .expect("all")
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(
        all,
        names(&["A", "B", "C", "D", "E"]),
        "all_entities sorted by name"
    );
    let all: Vec<RelKey> = store
        .all_relations()
        .await
        .expect("all")
        .into_iter()
        .map(|r| r.key)
        .collect();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "all_relations sorted by key");
    assert_eq!(
        store.graph_counts().await.expect("counts"),
        GraphCounts { nodes: 5, edges: 4 }
    );
    // Many names at once (batching).
    let many: Vec<String> = (0..1500)
        .map(|i| format!("n{i}"))
        .chain(["A".to_string()])
        .collect();
    let deg = store.node_degrees(&many).await.expect("degrees");
    assert_eq!(deg.len(), 1501);
    assert_eq!(deg[1500], 3, "degrees of large requests");
    let got = store.get_entities(&many).await.expect("entities");
    assert_eq!(
        got.iter().filter(|e| e.is_some()).count(),
        1,
        "large get_entities"
    );
}

/// Deleting a document removes its text, status, chunks, chunk vectors, extractions and links.
pub async fn check_delete_documents_cascade(store: &dyn Store) {
    store
        .enqueue(vec![
            new_document("doc-1", "one", 1, "t"),
            new_document("doc-2", "two", 2, "t"),
        ])
        .await
        .expect("enqueue");
    put_doc(store, "doc-1", 3).await;
    put_doc(store, "doc-2", 2).await;
    apply_ok(
        store,
        ChangeSet {
            entities: vec![entity("Alpha", &["doc-1-chunk-000"])],
            ..Default::default()
        },
        "entity",
    )
    .await;
    apply_ok(
        store,
        ChangeSet {
            delete_documents: names(&["doc-1"]),
            ..Default::default()
        },
        "delete doc-1",
    )
    .await;
    assert!(
        store.get_document("doc-1").await.expect("get").is_none(),
        "full text removed"
    );
    assert!(
        store.get_doc_status("doc-1").await.expect("get").is_none(),
        "status removed"
    );
    let c1: Vec<String> = (0..3).map(|i| ids::chunk_id("doc-1", i)).collect();
    assert!(
        store
            .get_chunks(&c1)
            .await
            .expect("get")
            .iter()
            .all(Option::is_none),
        "chunks removed"
    );
    assert!(
        store.get_extractions(&c1).await.expect("get").is_empty(),
        "extractions removed"
    );
    assert!(
        store
            .get_vectors(VectorKind::Chunk, &c1)
            .await
            .expect("get")
            .iter()
            .all(Option::is_none),
        "chunk vectors removed"
    );
    assert!(
        store.get_doc_links("doc-1").await.expect("get").is_none(),
        "links removed"
    );
    let hits = store
        .search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.5, 0.0], 10, -1.0)
        .await
        .expect("search");
    let mut keys: Vec<String> = hits.into_iter().map(|h| h.key).collect();
    keys.sort();
    assert_eq!(
        keys,
        names(&["doc-2-chunk-000", "doc-2-chunk-001"]),
        "only doc-2's chunks stay searchable"
    );
    assert!(
        store.get_document("doc-2").await.expect("get").is_some(),
        "other documents are kept"
    );
    assert_eq!(
        store
            .get_extractions(&names(&["doc-2-chunk-000"]))
            .await
            .expect("get")
            .len(),
        1
    );
    assert!(store.get_doc_links("doc-2").await.expect("get").is_some());
    assert!(
        store.get_entities(&names(&["Alpha"])).await.expect("get")[0].is_some(),
        "graph is not touched by document deletion"
    );
    assert_eq!(
        store
            .vector_counts()
            .await
            .expect("counts")
            .get(&VectorKind::Chunk)
            .copied(),
        Some(2)
    );
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
                vector(
                    VectorKind::Relation,
                    &VectorRecord::relation_key(&rkey),
                    vec![1.0, 1.0],
                ),
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
            delete_relations: vec![RelKey {
                src: s("B"),
                tgt: s("A"),
            }],
            ..Default::default()
        },
        "delete",
    )
    .await;
    assert!(
        store.get_entities(&names(&["A"])).await.expect("get")[0].is_none(),
        "entity removed"
    );
    assert!(
        store.get_entities(&names(&["B"])).await.expect("get")[0].is_some(),
        "other entity kept"
    );
    assert!(
        store
            .get_relations(std::slice::from_ref(&rkey))
            .await
            .expect("get")[0]
            .is_none(),
        "relation removed"
    );
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
    let hits = store
        .search_vectors(VectorKind::Entity, &[1.0, 0.0], 5, -1.0)
        .await
        .expect("search");
    assert_eq!(
        hits.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(),
        vec!["B"],
        "deleted entity vector not searchable"
    );
    assert!(
        store
            .search_vectors(VectorKind::Relation, &[1.0, 0.0], 5, -1.0)
            .await
            .expect("search")
            .is_empty(),
        "relation vector removed"
    );
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
    let st = store
        .get_doc_status("doc-1")
        .await
        .expect("get")
        .expect("re-created status");
    assert_eq!(st.content_summary, "recreated");
    let got = store
        .get_chunks(&names(&["doc-1-chunk-000", "doc-1-chunk-001"]))
        .await
        .expect("get");
    assert!(
        got[0].is_some() && got[1].is_none(),
        "re-created chunk kept, others deleted"
    );
    let e = store.get_entities(&names(&["A"])).await.expect("get")[0]
        .clone()
        .expect("A");
    assert_eq!(
        e.version, 1,
        "delete + re-create in one change set starts at version 1"
    );
    let hits = store
        .search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0, 0.0], 1, 0.0)
        .await
        .expect("search");
    assert_eq!(hits.len(), 1);
    assert!(
        (hits[0].score - 1.0).abs() < 1e-5,
        "the re-created vector is the one searched"
    );
}

/// Search equals brute force on random data: order, scores, top-k, min_score.
pub async fn check_vector_search_exact(store: &dyn Store) {
    let dim = 24;
    let mut rng = TestRng::new(42);
    let data: Vec<(String, Vec<f32>)> = (0..400)
        .map(|i| (format!("chunk-{i:04}"), rng.vector(dim)))
        .collect();
    // Written in two change sets to exercise incremental index updates.
    for part in data.chunks(250) {
        let vectors = part
            .iter()
            .map(|(k, v)| vector(VectorKind::Chunk, k, v.clone()))
            .collect();
        apply_ok(
            store,
            ChangeSet {
                vectors,
                ..Default::default()
            },
            "random vectors",
        )
        .await;
    }
    apply_ok(
        store,
        ChangeSet {
            vectors: vec![vector(VectorKind::Entity, "other-set", rng.vector(dim))],
            ..Default::default()
        },
        "entity",
    )
    .await;
    let units: Vec<(String, Vec<f32>)> = data.iter().map(|(k, v)| (k.clone(), unit(v))).collect();
    for q in 0..8 {
        let query: Vec<f32> = rng.vector(dim).iter().map(|x| x * 3.0).collect(); // not normalised
        let qn = unit(&query);
        let mut expected: Vec<(f32, &str)> = units
            .iter()
            .map(|(k, v)| (dot(v, &qn), k.as_str()))
            .collect();
        expected.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (top_k, min_score) in [(10usize, -1.0f32), (1, -1.0), (50, 0.3), (1000, 0.0)] {
            let hits = store
                .search_vectors(VectorKind::Chunk, &query, top_k, min_score)
                .await
                .expect("search");
            let want: Vec<&(f32, &str)> = expected
                .iter()
                .filter(|(sc, _)| *sc >= min_score)
                .take(top_k)
                .collect();
            assert_eq!(
                hits.len(),
                want.len(),
                "query {q} top_k {top_k} min {min_score}: hit count"
            );
            for (h, (sc, k)) in hits.iter().zip(want) {
                assert_eq!(
                    &h.key, k,
                    "query {q} top_k {top_k} min {min_score}: order differs from brute force"
                );
                assert!(
                    (h.score - sc).abs() < 1e-4,
                    "score {} vs brute force {sc}",
                    h.score
                );
            }
            assert!(
                hits.windows(2).all(|w| w[0].score >= w[1].score),
                "hits best first"
            );
            assert!(
                hits.iter().all(|h| h.score >= min_score),
                "min_score respected"
            );
        }
    }
    // A stored vector finds itself with similarity 1 whatever its length.
    let (k, v) = &data[17];
    let scaled: Vec<f32> = v.iter().map(|x| x * 0.01).collect();
    let hits = store
        .search_vectors(VectorKind::Chunk, &scaled, 1, 0.0)
        .await
        .expect("search");
    assert_eq!(&hits[0].key, k);
    assert!(
        (hits[0].score - 1.0).abs() < 1e-4,
        "cosine of a vector with itself is 1, got {}",
        hits[0].score
    );
    assert!(
        store
            .search_vectors(VectorKind::Chunk, &scaled, 0, -1.0)
            .await
            .expect("search")
            .is_empty(),
        "top_k 0"
    );
    assert!(
        store
            .search_vectors(VectorKind::Chunk, &scaled, 5, 1.5)
            .await
            .expect("search")
            .is_empty(),
        "min_score above 1"
    );
    let hits = store
        .search_vectors(VectorKind::Entity, &scaled, 10, -1.0)
        .await
        .expect("search");
    assert_eq!(hits.len(), 1, "sets are separate");
    assert!(
        store
            .search_vectors(VectorKind::Relation, &scaled, 10, -1.0)
            .await
            .expect("search")
            .is_empty()
    );
    let counts = store.vector_counts().await.expect("counts");
    assert_eq!(counts.get(&VectorKind::Chunk).copied(), Some(400));
    let stored = store
        .get_vectors(VectorKind::Chunk, &[k.clone()])
        .await
        .expect("get")[0]
        .clone()
        .expect("stored");
    let norm: f32 = stored.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!(
        (norm - 1.0).abs() < 1e-5,
        "stored vector is unit length ({norm})"
    );
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
        ChangeSet {
            vectors: vec![vector(VectorKind::Entity, "X", vec![0.0, 5.0, 0.0])],
            ..Default::default()
        },
        "update",
    )
    .await;
    let hits = store
        .search_vectors(VectorKind::Entity, &[1.0, 0.0, 0.0], 3, 0.5)
        .await
        .expect("search");
    assert!(
        hits.is_empty(),
        "the old vector of X must be gone: {hits:?}"
    );
    let hits = store
        .search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0], 3, 0.5)
        .await
        .expect("search");
    let mut keys: Vec<&str> = hits.iter().map(|h| h.key.as_str()).collect();
    keys.sort();
    assert_eq!(keys, vec!["X", "Y"], "updated vector replaces the old one");
    assert_eq!(
        store
            .vector_counts()
            .await
            .expect("counts")
            .get(&VectorKind::Entity)
            .copied(),
        Some(3),
        "update does not add"
    );
    apply_ok(
        store,
        ChangeSet {
            delete_entities: names(&["Y"]),
            ..Default::default()
        },
        "delete Y",
    )
    .await;
    let hits = store
        .search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0], 3, -1.0)
        .await
        .expect("search");
    assert!(
        hits.iter().all(|h| h.key != "Y") && hits.len() == 2,
        "deleted vector gone: {hits:?}"
    );
    let hits = store
        .search_vectors(VectorKind::Relation, &[1.0, 0.0, 0.0], 3, 0.0)
        .await
        .expect("search");
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
        ChangeSet {
            vectors: vec![vector(VectorKind::Chunk, "c1", vec![1.0, 0.0, 0.0])],
            ..Default::default()
        },
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
    assert!(
        matches!(
            r,
            Err(StoreError::WrongDimension {
                expected: 3,
                got: 2
            })
        ),
        "wrong write dimension: {r:?}"
    );
    assert!(
        store.get_entities(&names(&["Ghost"])).await.expect("get")[0].is_none(),
        "a refused change set writes nothing"
    );
    assert!(
        store
            .search_vectors(VectorKind::Entity, &[0.0, 1.0, 0.0], 5, -1.0)
            .await
            .expect("search")
            .is_empty(),
        "no partial vectors"
    );
    let r = store
        .search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0, 0.0], 5, -1.0)
        .await;
    assert!(
        matches!(
            r,
            Err(StoreError::WrongDimension {
                expected: 3,
                got: 4
            })
        ),
        "wrong query dimension: {r:?}"
    );
    let r = store
        .search_vectors(VectorKind::Relation, &[1.0], 5, -1.0)
        .await;
    assert!(
        matches!(r, Err(StoreError::WrongDimension { .. })),
        "wrong dimension on an empty set of a dimensioned store: {r:?}"
    );
}

/// Cache entries are stored, replaced, read, and cleared by type.
pub async fn check_cache(store: &dyn Store) {
    let entry = |key: &str, ty: &str, resp: &str| CacheEntry {
        key: key.to_string(),
        cache_type: ty.to_string(),
        response: resp.to_string(),
        chunk_id: Some(s("c-1")),
        created_at: 5,
    };
    assert!(
        store
            .cache_get("default:extract:1")
            .await
            .expect("get")
            .is_none()
    );
    store
        .cache_put(entry("default:extract:1", "extract", "r1"))
        .await
        .expect("put");
    store
        .cache_put(entry("default:extract:2", "extract", "r2"))
        .await
        .expect("put");
    store
        .cache_put(entry("mix:keywords:3", "keywords", "r3"))
        .await
        .expect("put");
    store
        .cache_put(CacheEntry {
            chunk_id: None,
            ..entry("mix:query:4", "query", "r4")
        })
        .await
        .expect("put");
    store
        .cache_put(entry("default:extract:1", "extract", "r1b"))
        .await
        .expect("replace");
    assert_eq!(
        store.cache_get("default:extract:1").await.expect("get"),
        Some(entry("default:extract:1", "extract", "r1b"))
    );
    assert_eq!(
        store
            .cache_get("mix:query:4")
            .await
            .expect("get")
            .and_then(|e| e.chunk_id),
        None
    );
    assert_eq!(
        store
            .cache_clear(&names(&["extract"]))
            .await
            .expect("clear"),
        2,
        "clears only the given type"
    );
    assert!(
        store
            .cache_get("default:extract:2")
            .await
            .expect("get")
            .is_none()
    );
    assert!(
        store
            .cache_get("mix:keywords:3")
            .await
            .expect("get")
            .is_some(),
        "other types kept"
    );
    assert_eq!(
        store
            .cache_clear(&names(&["nothing"]))
            .await
            .expect("clear"),
        0
    );
    assert_eq!(
        store.cache_clear(&[]).await.expect("clear"),
        2,
        "empty type list clears everything"
    );
    assert!(store.cache_get("mix:query:4").await.expect("get").is_none());
}

/// Usage adds up per role across change sets.
pub async fn check_usage(store: &dyn Store) {
    assert!(
        store
            .usage()
            .await
            .expect("usage")
            .values()
            .all(|c| *c == UsageCounters::default()),
        "empty ledger"
    );
    let mut u1 = Usage::new();
    u1.insert(
        UsageRole::Extract,
        UsageCounters {
            calls: 2,
            cache_hits: 1,
            tokens_in: 100,
            tokens_out: 50,
        },
    );
    u1.insert(
        UsageRole::Embed,
        UsageCounters {
            calls: 1,
            cache_hits: 0,
            tokens_in: 30,
            tokens_out: 0,
        },
    );
    let mut u2 = Usage::new();
    u2.insert(
        UsageRole::Extract,
        UsageCounters {
            calls: 1,
            cache_hits: 2,
            tokens_in: 10,
            tokens_out: 5,
        },
    );
    u2.insert(
        UsageRole::Answer,
        UsageCounters {
            calls: 1,
            cache_hits: 0,
            tokens_in: 7,
            tokens_out: 3,
        },
    );
    apply_ok(
        store,
        ChangeSet {
            usage: u1,
            ..Default::default()
        },
        "usage 1",
    )
    .await;
    apply_ok(
        store,
        ChangeSet {
            usage: u2,
            ..Default::default()
        },
        "usage 2",
    )
    .await;
    let got: BTreeMap<UsageRole, UsageCounters> = store
        .usage()
        .await
        .expect("usage")
        .into_iter()
        .filter(|(_, c)| *c != UsageCounters::default())
        .collect();
    let mut want = Usage::new();
    want.insert(
        UsageRole::Extract,
        UsageCounters {
            calls: 3,
            cache_hits: 3,
            tokens_in: 110,
            tokens_out: 55,
        },
    );
    want.insert(
        UsageRole::Embed,
        UsageCounters {
            calls: 1,
            cache_hits: 0,
            tokens_in: 30,
            tokens_out: 0,
        },
    );
    want.insert(
        UsageRole::Answer,
        UsageCounters {
            calls: 1,
            cache_hits: 0,
            tokens_in: 7,
            tokens_out: 3,
        },
    );
    assert_eq!(got, want, "usage accumulates per role");
}

/// `clear_all` empties documents, graph and vectors, keeping cache, usage and identity.
pub async fn check_clear_all(store: &dyn Store) {
    let id = EmbeddingIdentity {
        model: s("m"),
        dim: 4,
    };
    store.check_embedding_identity(&id).await.expect("identity");
    store
        .enqueue(vec![new_document("doc-1", "one", 1, "t")])
        .await
        .expect("enqueue");
    put_doc(store, "doc-1", 2).await;
    let mut usage = Usage::new();
    usage.insert(
        UsageRole::Summary,
        UsageCounters {
            calls: 4,
            cache_hits: 0,
            tokens_in: 1,
            tokens_out: 1,
        },
    );
    apply_ok(
        store,
        ChangeSet {
            entities: vec![entity("A", &[]), entity("B", &[])],
            relations: vec![relation("A", "B", &[])],
            vectors: vec![vector(VectorKind::Entity, "A", vec![1.0, 0.0, 0.0, 0.0])],
            usage,
            ..Default::default()
        },
        "graph",
    )
    .await;
    store
        .cache_put(CacheEntry {
            key: s("k"),
            cache_type: s("extract"),
            response: s("r"),
            chunk_id: None,
            created_at: 1,
        })
        .await
        .expect("cache");
    store.clear_all().await.expect("clear_all");
    assert!(
        store.get_document("doc-1").await.expect("get").is_none(),
        "documents cleared"
    );
    assert!(
        store.get_doc_status("doc-1").await.expect("get").is_none(),
        "status cleared"
    );
    assert!(
        store
            .list_docs(&DocFilter::default())
            .await
            .expect("list")
            .0
            .is_empty()
    );
    assert!(
        store
            .get_chunks(&names(&["doc-1-chunk-000"]))
            .await
            .expect("get")[0]
            .is_none(),
        "chunks cleared"
    );
    assert!(
        store
            .get_extractions(&names(&["doc-1-chunk-000"]))
            .await
            .expect("get")
            .is_empty(),
        "extractions cleared"
    );
    assert!(
        store.get_doc_links("doc-1").await.expect("get").is_none(),
        "links cleared"
    );
    assert_eq!(
        store.graph_counts().await.expect("counts"),
        GraphCounts { nodes: 0, edges: 0 },
        "graph cleared"
    );
    assert!(
        store
            .vector_counts()
            .await
            .expect("counts")
            .values()
            .all(|n| *n == 0),
        "vectors cleared"
    );
    assert!(
        store
            .search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0, 0.0], 5, -1.0)
            .await
            .expect("search")
            .is_empty(),
        "index cleared"
    );
    assert!(
        store
            .search_vectors(VectorKind::Entity, &[1.0, 0.0, 0.0, 0.0], 5, -1.0)
            .await
            .expect("search")
            .is_empty(),
        "index cleared"
    );
    assert!(
        store.cache_get("k").await.expect("get").is_some(),
        "cache kept"
    );
    assert_eq!(
        store
            .usage()
            .await
            .expect("usage")
            .get(&UsageRole::Summary)
            .map(|c| c.calls),
        Some(4),
        "usage kept"
    );
    let other = EmbeddingIdentity {
        model: s("other"),
        dim: 4,
    };
    assert!(
        matches!(
            store.check_embedding_identity(&other).await,
            Err(StoreError::EmbeddingMismatch { .. })
        ),
        "identity kept"
    );
    // The store is usable again.
    put_doc(store, "doc-2", 1).await;
    assert_eq!(
        store
            .search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.5, 0.0], 5, -1.0)
            .await
            .expect("search")
            .len(),
        1
    );
}
