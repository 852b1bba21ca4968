//! Checks of enqueue, status rows, listings, claims and leases.

use serde_json::json;

use super::fixtures::*;
use crate::*;

/// Enqueued documents are stored as pending with summary and length; reads return them.
pub async fn check_enqueue_and_read(store: &dyn Store) {
    let long: String = "é".repeat(150);
    let out = store
        .enqueue(vec![new_document("doc-1", "hello world", 10, "t1"), new_document("doc-2", &long, 20, "t1")])
        .await
        .expect("enqueue");
    assert_eq!(
        out,
        vec![EnqueueOutcome::Enqueued { doc_id: s("doc-1") }, EnqueueOutcome::Enqueued { doc_id: s("doc-2") }]
    );
    let doc = store.get_document("doc-1").await.expect("get_document").expect("doc-1 must be stored");
    assert_eq!(doc, document("doc-1", "hello world", 10), "stored document must round-trip");
    let st = store.get_doc_status("doc-2").await.expect("get_doc_status").expect("doc-2 status must exist");
    assert_eq!(st.status, DocStatus::Pending);
    assert_eq!(st.track_id, "t1");
    assert_eq!(st.content_length, 150, "content_length counts characters, not bytes");
    assert_eq!(st.content_summary.chars().count(), 100, "content_summary is the first 100 characters");
    assert_eq!(st.content_hash, ids::md5_hex(&long));
    assert_eq!(st.created_at, 20);
    assert!(st.lease_owner.is_none() && st.error_msg.is_none());
    assert!(store.get_document("doc-x").await.expect("get").is_none(), "unknown document must be None");
    assert!(store.get_doc_status("doc-x").await.expect("get").is_none(), "unknown status must be None");
    // Chunking options round-trip.
    let mut d = new_document("doc-3", "chunked text", 30, "t2");
    d.document.chunking = ChunkingOptions {
        split_by_character: Some(s("\n\n")),
        split_by_character_only: true,
        chunk_token_size: Some(300),
        chunk_overlap_token_size: Some(30),
    };
    store.enqueue(vec![d.clone()]).await.expect("enqueue");
    assert_eq!(store.get_document("doc-3").await.expect("get"), Some(d.document), "chunking options must round-trip");
    // The caller's metadata lands on the status row under `custom`, whole.
    let mut d = new_document("doc-4", "text with metadata", 40, "t2");
    let custom = json!({"team": "ops", "year": 2024, "tags": ["a", "b"], "nested": {"k": null}});
    d.metadata = custom.as_object().cloned().expect("an object");
    store.enqueue(vec![d]).await.expect("enqueue");
    let st = store.get_doc_status("doc-4").await.expect("get").expect("doc-4 status must exist");
    assert_eq!(st.metadata.get(CUSTOM_METADATA_KEY), Some(&custom), "enqueued metadata must be stored under `custom`");
    let plain = store.get_doc_status("doc-1").await.expect("get").expect("doc-1");
    assert!(!plain.metadata.contains_key(CUSTOM_METADATA_KEY), "no metadata given: no `custom` key");
}

/// Duplicates by id, by content hash, and within one batch become failed `dup-` rows.
pub async fn check_enqueue_duplicates(store: &dyn Store) {
    store.enqueue(vec![new_document("doc-a", "alpha text", 10, "t1")]).await.expect("enqueue");
    // Same id, other content, no known file path (an explicit id on raw text).
    let mut unsourced = new_document("doc-a", "other text", 20, "t2");
    unsourced.document.file_path = s("unknown_source");
    let out = store.enqueue(vec![unsourced]).await.expect("enqueue");
    let expected_dup = format!("dup-{}", ids::md5_hex(&format!("doc-at2{}", ids::md5_hex("other text"))));
    assert_eq!(
        out,
        vec![EnqueueOutcome::Duplicate {
            dup_id: expected_dup.clone(),
            original_id: s("doc-a"),
            original_status: DocStatus::Pending
        }],
        "same id must be a duplicate with id dup-md5(doc id + track id + content hash)"
    );
    let dup = store.get_doc_status(&expected_dup).await.expect("get").expect("dup row must exist");
    assert_eq!(dup.status, DocStatus::Failed);
    assert_eq!(dup.metadata.get("is_duplicate"), Some(&json!(true)));
    assert_eq!(dup.metadata.get("original_doc_id"), Some(&json!("doc-a")));
    assert_eq!(dup.metadata.get("original_track_id"), Some(&json!("t1")));
    assert!(dup.content_summary.starts_with("[DUPLICATE:"), "dup summary: {}", dup.content_summary);
    assert!(dup.content_summary.contains("doc-a"), "dup summary names the original: {}", dup.content_summary);
    assert!(dup.error_msg.as_deref().is_some_and(|m| m.contains("doc-a")), "error_msg must name the original");
    assert_eq!(
        store.get_document("doc-a").await.expect("get").map(|d| d.content),
        Some(s("alpha text")),
        "a duplicate must not overwrite the original"
    );
    // Same content, other id.
    let out = store.enqueue(vec![new_document("doc-b", "alpha text", 30, "t3")]).await.expect("enqueue");
    match &out[..] {
        [EnqueueOutcome::Duplicate { original_id, dup_id, .. }] => {
            assert_eq!(original_id, "doc-a", "same content must point at the original");
            assert!(dup_id.starts_with("dup-"));
        }
        other => panic!("same content hash must be a duplicate, got {other:?}"),
    }
    assert!(store.get_document("doc-b").await.expect("get").is_none(), "a content duplicate is not stored");
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
    apply_ok(store, ChangeSet { doc_status: vec![processed], ..Default::default() }, "mark processed").await;
    let out = store.enqueue(vec![new_document("doc-c", "gamma", 50, "t5")]).await.expect("enqueue");
    assert!(
        matches!(&out[0], EnqueueOutcome::Duplicate { original_status: DocStatus::Processed, .. }),
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
    apply_ok(store, ChangeSet { doc_status: statuses, ..Default::default() }, "status rows").await;
    let ids_of = |v: &[DocStatusRecord]| v.iter().map(|r| r.id.clone()).collect::<Vec<_>>();

    let (all, total) = store.list_docs(&DocFilter::default()).await.expect("list");
    assert_eq!(total, 5);
    assert_eq!(ids_of(&all), names(&["doc-4", "doc-5", "doc-2", "doc-1", "doc-3"]), "default sort is updated desc");
    let cases: Vec<(DocSort, Vec<&str>)> = vec![
        (DocSort::UpdatedAsc, vec!["doc-3", "doc-1", "doc-2", "doc-5", "doc-4"]),
        (DocSort::CreatedAsc, vec!["doc-1", "doc-2", "doc-3", "doc-4", "doc-5"]),
        (DocSort::CreatedDesc, vec!["doc-5", "doc-4", "doc-3", "doc-2", "doc-1"]),
        (DocSort::IdAsc, vec!["doc-1", "doc-2", "doc-3", "doc-4", "doc-5"]),
        (DocSort::IdDesc, vec!["doc-5", "doc-4", "doc-3", "doc-2", "doc-1"]),
        (DocSort::FilePathAsc, vec!["doc-2", "doc-1", "doc-3", "doc-4", "doc-5"]),
        (DocSort::FilePathDesc, vec!["doc-5", "doc-4", "doc-3", "doc-1", "doc-2"]),
    ];
    for (sort, expected) in cases {
        let (got, _) = store.list_docs(&DocFilter { sort, ..Default::default() }).await.expect("list");
        assert_eq!(ids_of(&got), names(&expected), "sort {sort:?}");
    }
    let filter =
        DocFilter { statuses: vec![DocStatus::Pending, DocStatus::Failed], sort: DocSort::IdAsc, ..Default::default() };
    let (got, total) = store.list_docs(&filter).await.expect("list");
    assert_eq!((ids_of(&got), total), (names(&["doc-1", "doc-3", "doc-4"]), 3), "status filter");
    let filter = DocFilter { track_id: Some(s("tA")), sort: DocSort::IdAsc, ..Default::default() };
    let (got, total) = store.list_docs(&filter).await.expect("list");
    assert_eq!((ids_of(&got), total), (names(&["doc-1", "doc-2", "doc-5"]), 3), "track filter");
    let filter = DocFilter { sort: DocSort::IdAsc, offset: 1, limit: Some(2), ..Default::default() };
    let (got, total) = store.list_docs(&filter).await.expect("list");
    assert_eq!((ids_of(&got), total), (names(&["doc-2", "doc-3"]), 5), "paging keeps the total before paging");
    let filter = DocFilter { sort: DocSort::IdAsc, offset: 10, limit: Some(2), ..Default::default() };
    let (got, total) = store.list_docs(&filter).await.expect("list");
    assert!(got.is_empty() && total == 5, "offset past the end gives no rows but the total");

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
    apply_ok(store, ChangeSet { doc_status: rows, ..Default::default() }, "claim rows").await;

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
    assert_eq!(got_ids, names(&["doc-expired", "doc-p1"]), "oldest claimable first (created_at, then id), limited");
    for r in &got {
        assert_eq!(r.status, DocStatus::Processing);
        assert_eq!(r.lease_owner.as_deref(), Some("w1"));
        assert_eq!(r.lease_until, Some(5_000));
        assert_eq!(r.updated_at, 1_000, "claim sets updated_at to now");
    }
    let stored = store.get_doc_status("doc-p1").await.expect("get").expect("row");
    assert_eq!((stored.status, stored.lease_owner.as_deref()), (DocStatus::Processing, Some("w1")), "claim is stored");

    // only_ids restricts; a live lease is never taken.
    let req = ClaimRequest { only_ids: names(&["doc-p2", "doc-live"]), limit: 10, ..base.clone() };
    let got: Vec<_> = store.claim(&req).await.expect("claim").into_iter().map(|r| r.id).collect();
    assert_eq!(got, names(&["doc-p2"]), "only_ids and live leases");

    // Dead owners are reclaimed; failed only when asked; duplicates never.
    let req = ClaimRequest { owner: s("w2"), dead_owners: names(&["w-dead"]), limit: 10, ..base.clone() };
    let got: Vec<_> = store.claim(&req).await.expect("claim").into_iter().map(|r| r.id).collect();
    assert_eq!(got, names(&["doc-dead", "doc-p3"]), "dead owner's documents and remaining pending ones");
    let req = ClaimRequest { owner: s("w3"), include_failed: true, limit: 10, ..base.clone() };
    let got: Vec<_> = store.claim(&req).await.expect("claim").into_iter().map(|r| r.id).collect();
    assert_eq!(got, names(&["doc-fail"]), "include_failed takes failed rows but never dup- rows");
    let req = ClaimRequest { owner: s("w4"), include_failed: true, limit: 10, ..base.clone() };
    assert!(store.claim(&req).await.expect("claim").is_empty(), "nothing left to claim");
    // Once w1's leases expire, another worker takes them over.
    let req = ClaimRequest { owner: s("w5"), now: 6_000, lease_until: 9_000, limit: 10, ..base.clone() };
    let got: Vec<_> = store.claim(&req).await.expect("claim").into_iter().map(|r| r.id).collect();
    assert_eq!(
        got,
        names(&["doc-expired", "doc-dead", "doc-fail", "doc-p1", "doc-p3", "doc-p2"]),
        "expired leases are reclaimed (a live lease is not)"
    );
    let req = ClaimRequest { limit: 0, now: 100_000, ..base };
    assert!(store.claim(&req).await.expect("claim").is_empty(), "limit 0 claims nothing");
    let dup = store.get_doc_status("dup-123").await.expect("get").expect("dup row");
    assert_eq!(dup.status, DocStatus::Failed, "duplicates stay failed");
}

/// Renewing extends held leases and reports the ones lost.
pub async fn check_renew_leases(store: &dyn Store) {
    apply_ok(
        store,
        ChangeSet {
            doc_status: vec![status_row("doc-1", DocStatus::Pending, 1), status_row("doc-2", DocStatus::Pending, 2)],
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
    let req2 = ClaimRequest { owner: s("w2"), now: 200, lease_until: 300, ..req.clone() };
    let taken = store.claim(&req2).await.expect("claim");
    assert_eq!(taken.len(), 2, "both expired leases are reclaimable");
    let lost = store.renew_leases("w1", &names(&["doc-1", "doc-2", "doc-none"]), 1_000).await.expect("renew");
    assert_eq!(lost, names(&["doc-1", "doc-2", "doc-none"]), "w1 holds nothing any more");
    let lost = store.renew_leases("w2", &names(&["doc-1", "doc-2"]), 1_000).await.expect("renew");
    assert!(lost.is_empty(), "w2 holds both, lost: {lost:?}");
    let row = store.get_doc_status("doc-1").await.expect("get").expect("row");
    assert_eq!(row.lease_until, Some(1_000), "renew extends the lease");
    // A finished document is no longer held.
    apply_ok(
        store,
        ChangeSet { doc_status: vec![status_row("doc-1", DocStatus::Processed, 1)], ..Default::default() },
        "done",
    )
    .await;
    let lost = store.renew_leases("w2", &names(&["doc-1", "doc-2"]), 2_000).await.expect("renew");
    assert_eq!(lost, names(&["doc-1"]), "a processed document is not held");
}

/// `expect_doc_owners`: a change set for a document another worker took over is refused whole.
pub async fn check_doc_owner_expectations(store: &dyn Store) {
    let rows = vec![status_row("doc-1", DocStatus::Pending, 1), status_row("doc-2", DocStatus::Pending, 2)];
    apply_ok(store, ChangeSet { doc_status: rows, ..Default::default() }, "rows").await;
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
    // w1 still holds doc-1: its commit goes through.
    apply_ok(
        store,
        ChangeSet {
            expect_doc_owners: vec![(s("doc-1"), s("w1"))],
            doc_status: vec![status_row("doc-1", DocStatus::Processed, 1)],
            chunks: vec![chunk("doc-1", 0)],
            ..Default::default()
        },
        "commit by the holder",
    )
    .await;
    // doc-2's lease expires and w2 takes it over; w1's late commit must be refused whole.
    let req2 = ClaimRequest { owner: s("w2"), now: 500, lease_until: 900, ..req };
    let taken: Vec<String> = store.claim(&req2).await.expect("claim").into_iter().map(|r| r.id).collect();
    assert_eq!(taken, names(&["doc-2"]));
    let late = ChangeSet {
        expect_doc_owners: vec![(s("doc-2"), s("w1"))],
        doc_status: vec![status_row("doc-2", DocStatus::Processed, 2)],
        chunks: vec![chunk("doc-2", 0)],
        entities: vec![entity("Late", &[])],
        ..Default::default()
    };
    let r = store.apply(late).await;
    assert!(matches!(&r, Err(StoreError::Conflict(m)) if m.contains("doc-2")), "late commit must conflict: {r:?}");
    let row = store.get_doc_status("doc-2").await.expect("get").expect("row");
    assert_eq!((row.status, row.lease_owner.as_deref()), (DocStatus::Processing, Some("w2")), "w2 keeps the document");
    assert_eq!(store.get_chunks(&names(&["doc-2-chunk-000"])).await.expect("get"), vec![None], "nothing written");
    assert!(store.get_entities(&names(&["Late"])).await.expect("get")[0].is_none(), "nothing written");
    // A finished or unknown document is not held by anyone.
    for doc in ["doc-1", "doc-none"] {
        let r = store.apply(ChangeSet { expect_doc_owners: vec![(s(doc), s("w1"))], ..Default::default() }).await;
        assert!(matches!(r, Err(StoreError::Conflict(_))), "{doc} is not held by w1: {r:?}");
    }
}

/// A new version of a known file (same id, known path, other content) replaces the stored one:
/// text and status row replaced, id, `created_at` and indexed chunk list kept, the replacement
/// marked; the same content, content equal to another document's, and a document being processed
/// stay duplicates.
pub async fn check_enqueue_replaces_a_changed_file(store: &dyn Store) {
    store.enqueue(vec![new_document("doc-r", "first version", 10, "t1")]).await.expect("enqueue");
    // a pending document not started yet: its text is simply replaced
    let out = store.enqueue(vec![new_document("doc-r", "second version", 20, "t2")]).await.expect("enqueue");
    assert_eq!(out, vec![EnqueueOutcome::Replaced { doc_id: s("doc-r"), previous_status: DocStatus::Pending }]);
    let doc = store.get_document("doc-r").await.expect("get").expect("doc-r stored");
    assert_eq!((doc.content.as_str(), doc.created_at), ("second version", 10), "new text, first creation time");
    let row = store.get_doc_status("doc-r").await.expect("get").expect("status row");
    assert_eq!((row.status, row.track_id.as_str(), row.created_at), (DocStatus::Pending, "t2", 10));
    assert_eq!(row.content_hash, ids::md5_hex("second version"));
    assert!(!row.metadata.contains_key(backend::REPLACING_KEY), "nothing indexed: nothing to replace");

    // an indexed document: the replacement is marked, its chunk list kept until processing
    let mut processed = row.clone();
    processed.status = DocStatus::Processed;
    processed.chunks_list = vec![s("doc-r-chunk-000")];
    processed.chunks_count = Some(1);
    apply_ok(store, ChangeSet { doc_status: vec![processed], ..Default::default() }, "mark processed").await;
    let out = store.enqueue(vec![new_document("doc-r", "third version", 30, "t3")]).await.expect("enqueue");
    assert_eq!(out, vec![EnqueueOutcome::Replaced { doc_id: s("doc-r"), previous_status: DocStatus::Processed }]);
    let row = store.get_doc_status("doc-r").await.expect("get").expect("status row");
    assert_eq!((row.status, row.chunks_list.clone()), (DocStatus::Pending, vec![s("doc-r-chunk-000")]));
    let marker = row.metadata.get(backend::REPLACING_KEY).expect("replacement marked");
    assert_eq!(marker["previous_content_hash"], json!(ids::md5_hex("second version")));
    assert_eq!(marker["previous_track_id"], json!("t2"));
    assert_eq!(store.get_document("doc-r").await.expect("get").map(|d| d.content), Some(s("third version")));

    // the same content again: a duplicate
    let out = store.enqueue(vec![new_document("doc-r", "third version", 40, "t4")]).await.expect("enqueue");
    assert!(matches!(&out[0], EnqueueOutcome::Duplicate { original_id, .. } if original_id == "doc-r"), "{out:?}");
    // another document's content: a duplicate of that one, nothing replaced
    store.enqueue(vec![new_document("doc-o", "other document", 50, "t5")]).await.expect("enqueue");
    let out = store.enqueue(vec![new_document("doc-r", "other document", 60, "t6")]).await.expect("enqueue");
    assert!(matches!(&out[0], EnqueueOutcome::Duplicate { original_id, .. } if original_id == "doc-o"), "{out:?}");
    assert_eq!(store.get_document("doc-r").await.expect("get").map(|d| d.content), Some(s("third version")));
    // a document being processed: a duplicate, its text untouched
    let mut busy = store.get_doc_status("doc-o").await.expect("get").expect("doc-o");
    busy.status = DocStatus::Processing;
    busy.lease_owner = Some(s("w"));
    busy.lease_until = Some(i64::MAX);
    apply_ok(store, ChangeSet { doc_status: vec![busy], ..Default::default() }, "mark processing").await;
    let out = store.enqueue(vec![new_document("doc-o", "changed while busy", 70, "t7")]).await.expect("enqueue");
    assert!(
        matches!(&out[0], EnqueueOutcome::Duplicate { original_status: DocStatus::Processing, .. }),
        "a document being processed is not replaced: {out:?}"
    );
    assert_eq!(store.get_document("doc-o").await.expect("get").map(|d| d.content), Some(s("other document")));
}
