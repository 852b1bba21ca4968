//! Checks of admission ([`Admission`]): what `enqueue` refuses, decided inside its transaction
//! (concurrent enqueues of one name), and the previous version a replacement keeps.

use futures::future::join_all;

use super::fixtures::*;
use crate::*;

/// A document to enqueue under `admission`.
fn admitted(id: &str, content: &str, created_at: i64, track_id: &str, admission: Admission) -> NewDocument {
    NewDocument { admission, ..new_document(id, content, created_at, track_id) }
}

/// Marks a stored document `status` with one indexed chunk (as a commit would leave it).
async fn mark(store: &dyn Store, id: &str, status: DocStatus) -> DocStatusRecord {
    let mut row = store.get_doc_status(id).await.expect("get").expect("status row");
    row.status = status;
    // (a commit ends a waiting replacement)
    row.metadata.remove(backend::REPLACING_KEY);
    row.chunks_list = vec![ids::chunk_id(id, 0)];
    row.chunks_count = Some(1);
    if status == DocStatus::Processing {
        row.lease_owner = Some(s("w"));
        row.lease_until = Some(i64::MAX);
    }
    apply_ok(store, ChangeSet { doc_status: vec![row.clone()], ..Default::default() }, "mark").await;
    row
}

fn refusal(outcome: &EnqueueOutcome) -> Option<(&str, Refusal)> {
    match outcome {
        EnqueueOutcome::Refused { doc_id, reason, .. } => Some((doc_id.as_str(), *reason)),
        _ => None,
    }
}

/// `NewName` refuses every stored name and `NewVersion` everything but a new version of a
/// document that is done; a refused document writes nothing (no `dup-` row, no text).
pub async fn check_enqueue_admissions(store: &dyn Store) {
    store.enqueue(vec![new_document("doc-a", "alpha text", 10, "t1")]).await.expect("enqueue");

    // a new name only: any stored name is refused, whatever its content or status
    for content in ["alpha text", "other text"] {
        let out = store.enqueue(vec![admitted("doc-a", content, 20, "t2", Admission::NewName)]).await.expect("enqueue");
        assert_eq!(refusal(&out[0]), Some(("doc-a", Refusal::NameTaken)), "{out:?}");
        let message = out[0].refusal_message().expect("a refusal has a message");
        assert!(message.contains("doc-a.txt") && message.contains("another file name"), "{message}");
    }
    // a new version: refused while the stored one is pending or processing, or for the same content
    let out = store.enqueue(vec![admitted("doc-a", "other text", 30, "t3", Admission::NewVersion)]).await.expect("q");
    assert_eq!(refusal(&out[0]), Some(("doc-a", Refusal::Busy)), "pending: {out:?}");
    mark(store, "doc-a", DocStatus::Processing).await;
    let out = store.enqueue(vec![admitted("doc-a", "other text", 40, "t4", Admission::NewVersion)]).await.expect("q");
    assert_eq!(refusal(&out[0]), Some(("doc-a", Refusal::Busy)), "processing: {out:?}");
    assert!(out[0].refusal_message().is_some_and(|m| m.contains("being processed")), "{out:?}");
    mark(store, "doc-a", DocStatus::Processed).await;
    let out = store.enqueue(vec![admitted("doc-a", "alpha text", 50, "t5", Admission::NewVersion)]).await.expect("q");
    assert_eq!(refusal(&out[0]), Some(("doc-a", Refusal::SameContent)), "same content: {out:?}");
    // another document's content: refused, naming that document
    store.enqueue(vec![new_document("doc-b", "beta text", 60, "t6")]).await.expect("enqueue");
    let out = store.enqueue(vec![admitted("doc-a", "beta text", 70, "t7", Admission::NewVersion)]).await.expect("q");
    assert_eq!(refusal(&out[0]), Some(("doc-b", Refusal::ContentElsewhere)), "{out:?}");
    // a document without a file name has no versions
    let mut unsourced = admitted("doc-a", "gamma text", 80, "t8", Admission::NewVersion);
    unsourced.document.file_path = s("unknown_source");
    let out = store.enqueue(vec![unsourced]).await.expect("enqueue");
    assert_eq!(refusal(&out[0]), Some(("doc-a", Refusal::NameTaken)), "{out:?}");

    // nothing of the refused documents was written
    let counts = store.status_counts().await.expect("counts");
    assert_eq!(counts.values().sum::<usize>(), 2, "doc-a and doc-b, no dup- rows: {counts:?}");
    let doc = store.get_document("doc-a").await.expect("get").expect("doc-a");
    assert_eq!(doc.content, "alpha text", "a refused document leaves the stored text alone");
    let row = store.get_doc_status("doc-a").await.expect("get").expect("doc-a");
    assert_eq!((row.status, row.track_id.as_str()), (DocStatus::Processed, "t1"), "and the stored row");

    // a new version of a document that is done is admitted, a new name too
    let out = store.enqueue(vec![admitted("doc-a", "delta text", 90, "t9", Admission::NewVersion)]).await.expect("q");
    assert_eq!(out, vec![EnqueueOutcome::Replaced { doc_id: s("doc-a"), previous_status: DocStatus::Processed }]);
    let out = store.enqueue(vec![admitted("doc-n", "new text", 95, "t9", Admission::NewName)]).await.expect("q");
    assert_eq!(out, vec![EnqueueOutcome::Enqueued { doc_id: s("doc-n") }]);
    // a new name whose content another document has is recorded as a duplicate (LightRAG's way)
    let out = store.enqueue(vec![admitted("doc-m", "new text", 96, "t10", Admission::NewName)]).await.expect("q");
    assert!(matches!(&out[0], EnqueueOutcome::Duplicate { original_id, .. } if original_id == "doc-n"), "{out:?}");
}

/// Enqueues of one name running at once are decided one after the other: with `NewName`, one is
/// stored and every other is refused (no `dup-` row); with `NewVersion` over an indexed document,
/// one replaces it and the others are refused as busy, so the replacement row carries the track
/// id its caller got.
pub async fn check_concurrent_enqueues_of_one_name(store: &dyn Store) {
    const RACERS: usize = 16;
    let racer = |i: usize, admission: Admission| async move {
        let doc = admitted("doc-race", &format!("version {i} of the text"), 10 + i as i64, &format!("t{i}"), admission);
        store.enqueue(vec![doc]).await.expect("enqueue")
    };
    let outcomes: Vec<EnqueueOutcome> =
        join_all((0..RACERS).map(|i| racer(i, Admission::NewName))).await.into_iter().flatten().collect();
    let stored: Vec<usize> = (0..RACERS).filter(|i| matches!(outcomes[*i], EnqueueOutcome::Enqueued { .. })).collect();
    assert_eq!(stored.len(), 1, "exactly one of the racing new names is stored: {outcomes:?}");
    let refused = outcomes.iter().filter(|o| refusal(o) == Some(("doc-race", Refusal::NameTaken))).count();
    assert_eq!(refused, RACERS - 1, "every other is refused: {outcomes:?}");
    let counts = store.status_counts().await.expect("counts");
    assert_eq!(counts.values().sum::<usize>(), 1, "one status row, no dup- rows: {counts:?}");
    let winner = stored[0];
    let row = store.get_doc_status("doc-race").await.expect("get").expect("row");
    assert_eq!(row.track_id, format!("t{winner}"), "the stored row is the admitted call's");
    let text = store.get_document("doc-race").await.expect("get").expect("text");
    assert_eq!(text.content, format!("version {winner} of the text"));

    // racing new versions of an indexed document: one replacement, the others busy
    mark(store, "doc-race", DocStatus::Processed).await;
    let outcomes: Vec<EnqueueOutcome> =
        join_all((RACERS..2 * RACERS).map(|i| racer(i, Admission::NewVersion))).await.into_iter().flatten().collect();
    let replaced: Vec<usize> =
        (0..RACERS).filter(|i| matches!(outcomes[*i], EnqueueOutcome::Replaced { .. })).collect();
    assert_eq!(replaced.len(), 1, "exactly one racing new version replaces the document: {outcomes:?}");
    let busy = outcomes.iter().filter(|o| refusal(o) == Some(("doc-race", Refusal::Busy))).count();
    assert_eq!(busy, RACERS - 1, "the others find it waiting and are refused: {outcomes:?}");
    let row = store.get_doc_status("doc-race").await.expect("get").expect("row");
    assert_eq!(row.track_id, format!("t{}", RACERS + replaced[0]), "the replacement's track id shows the document");
    let counts = store.status_counts().await.expect("counts");
    assert_eq!(counts.values().sum::<usize>(), 1, "still one status row: {counts:?}");
}

/// A new version of an indexed document keeps the indexed version (text and status row) until
/// it is dropped: by a change set, by deleting the document, by clearing the store. A replacement
/// of a replacement still waiting keeps the indexed version, not the waiting one.
pub async fn check_previous_versions(store: &dyn Store) {
    store.enqueue(vec![new_document("doc-v", "first version", 10, "t1")]).await.expect("enqueue");
    // nothing indexed yet: a new text simply replaces it, nothing is kept
    store.enqueue(vec![new_document("doc-v", "second version", 20, "t2")]).await.expect("enqueue");
    assert!(store.previous_version("doc-v").await.expect("read").is_none(), "nothing indexed, nothing kept");
    let mut indexed = mark(store, "doc-v", DocStatus::Processed).await;
    indexed.metadata.insert(s("team"), serde_json::json!("ops"));
    apply_ok(store, ChangeSet { doc_status: vec![indexed.clone()], ..Default::default() }, "metadata").await;

    let out = store.enqueue(vec![new_document("doc-v", "third version", 30, "t3")]).await.expect("enqueue");
    assert!(matches!(out[0], EnqueueOutcome::Replaced { .. }), "{out:?}");
    let kept = store.previous_version("doc-v").await.expect("read").expect("the indexed version is kept");
    assert_eq!(kept.status, indexed, "its status row as it was");
    assert_eq!(kept.document, document("doc-v", "second version", 10), "its text");
    // replaced again before processing: the indexed version stays the kept one
    store.enqueue(vec![new_document("doc-v", "fourth version", 40, "t4")]).await.expect("enqueue");
    let again = store.previous_version("doc-v").await.expect("read").expect("still kept");
    assert_eq!(again, kept, "the waiting version is not kept over the indexed one");
    assert!(store.previous_version("doc-x").await.expect("read").is_none(), "unknown id: none");

    // dropped by a change set (a replacement committed, or the version given back)
    apply_ok(store, ChangeSet { drop_previous_versions: vec![s("doc-v")], ..Default::default() }, "drop").await;
    assert!(store.previous_version("doc-v").await.expect("read").is_none(), "dropped");
    // by deleting the document
    mark(store, "doc-v", DocStatus::Processed).await;
    store.enqueue(vec![new_document("doc-v", "fifth version", 50, "t5")]).await.expect("enqueue");
    assert!(store.previous_version("doc-v").await.expect("read").is_some());
    apply_ok(store, ChangeSet { delete_documents: vec![s("doc-v")], ..Default::default() }, "delete").await;
    assert!(store.previous_version("doc-v").await.expect("read").is_none(), "deleted with its document");
    // by clearing the store
    store.enqueue(vec![new_document("doc-w", "one", 60, "t6")]).await.expect("enqueue");
    mark(store, "doc-w", DocStatus::Processed).await;
    store.enqueue(vec![new_document("doc-w", "two", 70, "t7")]).await.expect("enqueue");
    assert!(store.previous_version("doc-w").await.expect("read").is_some());
    store.clear_all().await.expect("clear");
    assert!(store.previous_version("doc-w").await.expect("read").is_none(), "cleared with everything");
}
