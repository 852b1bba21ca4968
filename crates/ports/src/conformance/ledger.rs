//! Checks of the LLM cache, the usage ledger and `clear_all`.

use std::collections::BTreeMap;

use super::fixtures::*;
use crate::*;

/// Cache entries are stored, replaced, read, and cleared by type.
pub async fn check_cache(store: &dyn Store) {
    let entry = |key: &str, ty: &str, resp: &str| CacheEntry {
        key: key.to_string(),
        cache_type: ty.to_string(),
        response: resp.to_string(),
        chunk_id: Some(s("c-1")),
        created_at: 5,
    };
    assert!(store.cache_get("default:extract:1").await.expect("get").is_none());
    store.cache_put(entry("default:extract:1", "extract", "r1")).await.expect("put");
    store.cache_put(entry("default:extract:2", "extract", "r2")).await.expect("put");
    store.cache_put(entry("mix:keywords:3", "keywords", "r3")).await.expect("put");
    store.cache_put(CacheEntry { chunk_id: None, ..entry("mix:query:4", "query", "r4") }).await.expect("put");
    store.cache_put(entry("default:extract:1", "extract", "r1b")).await.expect("replace");
    assert_eq!(
        store.cache_get("default:extract:1").await.expect("get"),
        Some(entry("default:extract:1", "extract", "r1b"))
    );
    assert_eq!(store.cache_get("mix:query:4").await.expect("get").and_then(|e| e.chunk_id), None);
    let keys = |page: Vec<CacheEntry>| page.into_iter().map(|e| e.key).collect::<Vec<_>>();
    let all = ["default:extract:1", "default:extract:2", "mix:keywords:3", "mix:query:4"];
    assert_eq!(keys(store.cache_page(None, 10).await.expect("page")), all, "every entry, by key");
    assert_eq!(keys(store.cache_page(None, 2).await.expect("page")), all[..2], "the first page");
    assert_eq!(keys(store.cache_page(Some(all[1]), 2).await.expect("page")), all[2..], "the next page");
    assert!(store.cache_page(Some(all[3]), 2).await.expect("page").is_empty(), "after the last");
    assert_eq!(
        store.cache_page(Some("default:extract:1"), 1).await.expect("page").first(),
        Some(&entry("default:extract:2", "extract", "r2")),
        "whole entries"
    );
    assert_eq!(
        store.cache_delete(&names(&["mix:keywords:3", "no-such-key"])).await.expect("delete"),
        1,
        "deletes the named keys only"
    );
    assert!(store.cache_get("mix:keywords:3").await.expect("get").is_none());
    assert!(store.cache_get("default:extract:2").await.expect("get").is_some(), "other keys kept");
    assert_eq!(store.cache_delete(&[]).await.expect("delete nothing"), 0);
    store.cache_put(entry("mix:keywords:3", "keywords", "r3")).await.expect("put back");
    assert_eq!(store.cache_clear(&names(&["extract"])).await.expect("clear"), 2, "clears only the given type");
    assert!(store.cache_get("default:extract:2").await.expect("get").is_none());
    assert!(store.cache_get("mix:keywords:3").await.expect("get").is_some(), "other types kept");
    assert_eq!(store.cache_clear(&names(&["nothing"])).await.expect("clear"), 0);
    assert_eq!(store.cache_clear(&[]).await.expect("clear"), 2, "empty type list clears everything");
    assert!(store.cache_get("mix:query:4").await.expect("get").is_none());
}

/// Usage adds up per role across change sets.
pub async fn check_usage(store: &dyn Store) {
    assert!(store.usage().await.expect("usage").values().all(|c| *c == UsageCounters::default()), "empty ledger");
    let mut u1 = Usage::new();
    u1.insert(UsageRole::Extract, UsageCounters { calls: 2, cache_hits: 1, tokens_in: 100, tokens_out: 50 });
    u1.insert(UsageRole::Embed, UsageCounters { calls: 1, cache_hits: 0, tokens_in: 30, tokens_out: 0 });
    let mut u2 = Usage::new();
    u2.insert(UsageRole::Extract, UsageCounters { calls: 1, cache_hits: 2, tokens_in: 10, tokens_out: 5 });
    u2.insert(UsageRole::Answer, UsageCounters { calls: 1, cache_hits: 0, tokens_in: 7, tokens_out: 3 });
    apply_ok(store, ChangeSet { usage: u1, ..Default::default() }, "usage 1").await;
    apply_ok(store, ChangeSet { usage: u2, ..Default::default() }, "usage 2").await;
    let got: BTreeMap<UsageRole, UsageCounters> =
        store.usage().await.expect("usage").into_iter().filter(|(_, c)| *c != UsageCounters::default()).collect();
    let mut want = Usage::new();
    want.insert(UsageRole::Extract, UsageCounters { calls: 3, cache_hits: 3, tokens_in: 110, tokens_out: 55 });
    want.insert(UsageRole::Embed, UsageCounters { calls: 1, cache_hits: 0, tokens_in: 30, tokens_out: 0 });
    want.insert(UsageRole::Answer, UsageCounters { calls: 1, cache_hits: 0, tokens_in: 7, tokens_out: 3 });
    assert_eq!(got, want, "usage accumulates per role");
}

/// `clear_all` empties documents, graph and vectors, keeping cache, usage and identity.
pub async fn check_clear_all(store: &dyn Store) {
    let id = EmbeddingIdentity { model: s("m"), dim: 4 };
    store.check_embedding_identity(&id).await.expect("identity");
    store.enqueue(vec![new_document("doc-1", "one", 1, "t")]).await.expect("enqueue");
    put_doc(store, "doc-1", 2).await;
    let mut usage = Usage::new();
    usage.insert(UsageRole::Summary, UsageCounters { calls: 4, cache_hits: 0, tokens_in: 1, tokens_out: 1 });
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
    assert!(store.get_document("doc-1").await.expect("get").is_none(), "documents cleared");
    assert!(store.get_doc_status("doc-1").await.expect("get").is_none(), "status cleared");
    assert!(store.list_docs(&DocFilter::default()).await.expect("list").0.is_empty());
    assert!(store.get_chunks(&names(&["doc-1-chunk-000"])).await.expect("get")[0].is_none(), "chunks cleared");
    assert!(store.get_extractions(&names(&["doc-1-chunk-000"])).await.expect("get").is_empty(), "extractions cleared");
    assert!(store.get_doc_links("doc-1").await.expect("get").is_none(), "links cleared");
    assert_eq!(store.graph_counts().await.expect("counts"), GraphCounts { nodes: 0, edges: 0 }, "graph cleared");
    assert!(store.vector_counts().await.expect("counts").values().all(|n| *n == 0), "vectors cleared");
    assert!(
        store.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0, 0.0], 5, -1.0).await.expect("search").is_empty(),
        "index cleared"
    );
    assert!(
        store.search_vectors(VectorKind::Entity, &[1.0, 0.0, 0.0, 0.0], 5, -1.0).await.expect("search").is_empty(),
        "index cleared"
    );
    assert!(store.cache_get("k").await.expect("get").is_some(), "cache kept");
    assert_eq!(store.usage().await.expect("usage").get(&UsageRole::Summary).map(|c| c.calls), Some(4), "usage kept");
    let other = EmbeddingIdentity { model: s("other"), dim: 4 };
    assert!(
        matches!(store.check_embedding_identity(&other).await, Err(StoreError::EmbeddingMismatch { .. })),
        "identity kept"
    );
    // The store is usable again.
    put_doc(store, "doc-2", 1).await;
    assert_eq!(store.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.5, 0.0], 5, -1.0).await.expect("search").len(), 1);
}

/// Cancellation requests are counted for every handle of the knowledge base and survive nothing
/// else: the count starts at 0 and each request raises it by one.
pub async fn check_cancel_generation(store: &dyn Store) {
    assert_eq!(store.cancel_generation().await.expect("read"), 0, "no cancel requested yet");
    assert_eq!(store.request_cancel().await.expect("request"), 1);
    assert_eq!(store.request_cancel().await.expect("request"), 2);
    assert_eq!(store.cancel_generation().await.expect("read"), 2, "each request counts");
}
