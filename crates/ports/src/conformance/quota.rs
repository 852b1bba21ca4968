//! Checks of quotas: `enqueue_within` refuses a request that would grow the knowledge base past a
//! limit, whole and inside its transaction (concurrent requests cannot overshoot together), and
//! the daily usage ledger.

use futures::future::join_all;

use super::fixtures::*;
use crate::*;

fn over(result: Result<Vec<EnqueueOutcome>, StoreError>) -> QuotaExceeded {
    match result {
        Err(StoreError::OverQuota(e)) => e,
        other => panic!("expected an over-quota refusal, got {other:?}"),
    }
}

async fn absent(store: &dyn Store, id: &str) {
    assert!(store.get_document(id).await.expect("get").is_none(), "{id}: no text may be stored");
    assert!(store.get_doc_status(id).await.expect("get").is_none(), "{id}: no status row may be stored");
}

/// Documents and bytes (UTF-8, not characters) are counted; a request over a limit writes
/// nothing of any of its documents; what does not grow the knowledge base (a duplicate, recorded
/// without text) passes at the limit.
pub async fn check_enqueue_within_limits(store: &dyn Store) {
    let limits = EnqueueLimits { max_documents: Some(2), max_stored_bytes: Some(20) };
    store.enqueue_within(vec![new_document("q-1", "aaaaa", 1, "t")], &limits).await.expect("within the limits");
    // two more documents: 3 > 2, and neither is kept
    let two = vec![new_document("q-2", "bb", 2, "t"), new_document("q-3", "cc", 3, "t")];
    let e = over(store.enqueue_within(two, &limits).await);
    assert_eq!((e.kind, e.limit, e.current, e.requested), (QuotaKind::Documents, 2, 1, 3));
    absent(store, "q-2").await;
    absent(store, "q-3").await;
    // 8 characters but 16 bytes: 5 + 16 = 21 > 20
    let e = over(store.enqueue_within(vec![new_document("q-2", "éééééééé", 2, "t")], &limits).await);
    assert_eq!((e.kind, e.limit, e.current, e.requested), (QuotaKind::StoredBytes, 20, 5, 21));
    absent(store, "q-2").await;
    store.enqueue_within(vec![new_document("q-2", "ééééé", 2, "t")], &limits).await.expect("15 bytes, 2 documents");
    // at both limits' edge: a duplicate of stored content keeps no text, so it passes
    let dup = store.enqueue_within(vec![new_document("q-4", "aaaaa", 4, "t")], &limits).await.expect("duplicate");
    assert!(matches!(dup.as_slice(), [EnqueueOutcome::Duplicate { .. }]), "{dup:?}");
    let held = store.footprint().await.expect("footprint");
    assert_eq!(held, Footprint { documents: 2, bytes: 15 }, "what enqueue_within measured");
    // no limits: anything goes
    store.enqueue_within(vec![new_document("q-5", "x", 5, "t")], &EnqueueLimits::NONE).await.expect("unlimited");
    // over a limit now (3 > 2): what grows is still refused
    over(store.enqueue_within(vec![new_document("q-6", "y", 6, "t")], &limits).await);
    absent(store, "q-6").await;
}

/// Concurrent requests are measured one after the other: with room for 3 documents, exactly 3
/// of 8 concurrent single-document requests are stored.
pub async fn check_concurrent_enqueues_within_limits(store: &dyn Store) {
    let limits = EnqueueLimits { max_documents: Some(3), max_stored_bytes: None };
    let results = join_all((0..8).map(|i| {
        let doc = new_document(&format!("c-{i}"), &format!("content {i}"), i, "t");
        async move { store.enqueue_within(vec![doc], &limits).await }
    }))
    .await;
    let stored = results.iter().filter(|r| r.is_ok()).count();
    let refused = results.iter().filter(|r| matches!(r, Err(StoreError::OverQuota(_)))).count();
    assert_eq!((stored, refused), (3, 5), "{results:?}");
    let (_, total) = store.list_docs(&DocFilter { limit: Some(100), ..Default::default() }).await.expect("list");
    assert_eq!(total, 3, "only the admitted documents are stored");
}

/// The daily ledger holds what commits recorded today.
pub async fn check_usage_today(store: &dyn Store) {
    assert!(store.usage_today().await.expect("usage today").is_empty(), "empty at first");
    let mut usage = Usage::new();
    usage.insert(UsageRole::Extract, UsageCounters { calls: 2, cache_hits: 0, tokens_in: 100, tokens_out: 40 });
    apply_ok(store, ChangeSet { usage: usage.clone(), ..Default::default() }, "usage 1").await;
    apply_ok(store, ChangeSet { usage, ..Default::default() }, "usage 2").await;
    let today = store.usage_today().await.expect("usage today");
    let want = UsageCounters { calls: 4, cache_hits: 0, tokens_in: 200, tokens_out: 80 };
    assert_eq!(today.get(&UsageRole::Extract), Some(&want), "today's usage adds up");
    assert_eq!(store.usage().await.expect("usage").get(&UsageRole::Extract), Some(&want), "and so does the total");
}
