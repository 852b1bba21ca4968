//! A copy between two stores is whole and resumable: a knowledge base with shared entities,
//! graph records no document links to, a document still being processed, LLM cache entries and a
//! usage ledger, copied with an interruption after two documents and then continued, reads back
//! equal to the source through every read of the store port.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use lightrag_copy::{CopyError, CopyEvent, CopyProgress, NoCopyProgress, copy};
use lightrag_ports::conformance::{chunk, document, entity, relation, status_row};
use lightrag_ports::prelude::*;
use lightrag_ports::{
    CacheEntry, ChangeSet, ChunkExtraction, ChunkListEdit, DocFilter, DocLinks, DocSort, DocStatus, EmbeddingIdentity,
    ExtractedEntity, GraphKey, RelKey, Store, UsageCounters, UsageRole, VectorKind, VectorRecord, paging,
};
use lightrag_store_sqlite::SqliteStore;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const DIM: usize = 4;

fn unit(i: usize) -> Vec<f32> {
    let mut v = vec![0.1; DIM];
    v[i % DIM] = 1.0;
    v
}

/// Five documents over a shared cast; "Ghost" and ("Ghost", "Hub") are linked by no document;
/// doc-4 is still `processing` (its run did not finish).
async fn source(store: &dyn Store) {
    store.check_embedding_identity(&EmbeddingIdentity { model: "m".into(), dim: DIM }).await.unwrap();
    for d in 0..5usize {
        let id = format!("doc-{d}");
        let mut row = status_row(&id, if d == 4 { DocStatus::Processing } else { DocStatus::Processed }, d as i64);
        let chunks = if d == 4 { vec![] } else { vec![chunk(&id, 0), chunk(&id, 1)] };
        row.chunks_list = chunks.iter().map(|c| c.id.clone()).collect();
        row.chunks_count = Some(chunks.len());
        if d == 4 {
            row.lease_owner = Some("elsewhere/1/x".into());
            row.lease_until = Some(i64::MAX);
        }
        let mut changes = ChangeSet {
            documents: vec![document(&id, &format!("text of {id}"), d as i64)],
            doc_status: vec![row],
            ..ChangeSet::default()
        };
        if d < 4 {
            let ids: Vec<&str> = chunks.iter().map(|c| c.id.as_str()).collect();
            let person = format!("Person {d}");
            changes.entities = vec![entity("Hub", &ids), entity(&person, &ids)];
            changes.relations = vec![relation("Hub", &person, &ids)];
            changes.chunk_lists = vec![
                (GraphKey::Entity("Hub".into()), ChunkListEdit::Append(row_ids(&ids))),
                (GraphKey::Entity(person.clone()), ChunkListEdit::Replace(row_ids(&ids))),
                (GraphKey::Relation(RelKey::new("Hub", &person)), ChunkListEdit::Replace(row_ids(&ids))),
            ];
            changes.extractions = chunks
                .iter()
                .map(|c| ChunkExtraction {
                    chunk_id: c.id.clone(),
                    doc_id: id.clone(),
                    entities: vec![ExtractedEntity {
                        name: person.clone(),
                        entity_type: "person".into(),
                        description: "d".into(),
                        written_as: None,
                    }],
                    relations: vec![],
                    cache_keys: vec![format!("extract:{}", c.id)],
                    created_at: d as i64,
                    folded_relations: Vec::new(),
                })
                .collect();
            changes.cache = chunks
                .iter()
                .map(|c| CacheEntry {
                    key: format!("extract:{}", c.id),
                    cache_type: "extract".into(),
                    response: format!("records of {}", c.id),
                    chunk_id: Some(c.id.clone()),
                    created_at: d as i64,
                })
                .collect();
            changes.vectors = chunks
                .iter()
                .enumerate()
                .map(|(i, c)| VectorRecord {
                    kind: VectorKind::Chunk,
                    key: c.id.clone(),
                    content: c.content.clone(),
                    vector: unit(d + i),
                })
                .chain([
                    VectorRecord {
                        kind: VectorKind::Entity,
                        key: "Hub".into(),
                        content: "Hub".into(),
                        vector: unit(d),
                    },
                    VectorRecord {
                        kind: VectorKind::Entity,
                        key: person.clone(),
                        content: "p".into(),
                        vector: unit(d + 1),
                    },
                    VectorRecord {
                        kind: VectorKind::Relation,
                        key: VectorRecord::relation_key(&RelKey::new("Hub", &person)),
                        content: "r".into(),
                        vector: unit(d + 2),
                    },
                ])
                .collect();
            changes.doc_links = vec![DocLinks {
                doc_id: id.clone(),
                entities: vec!["Hub".into(), person.clone()],
                relations: vec![RelKey::new("Hub", &person)],
            }];
            changes.chunks = chunks;
        }
        store.apply(changes).await.unwrap();
    }
    // made by a graph edit: no document links to them
    store
        .apply(ChangeSet {
            entities: vec![entity("Ghost", &[])],
            relations: vec![relation("Ghost", "Hub", &[])],
            vectors: vec![VectorRecord {
                kind: VectorKind::Entity,
                key: "Ghost".into(),
                content: "g".into(),
                vector: unit(3),
            }],
            cache: vec![CacheEntry {
                key: "query:1".into(),
                cache_type: "query".into(),
                response: "an answer".into(),
                chunk_id: None,
                created_at: 9,
            }],
            usage: [(UsageRole::Extract, UsageCounters { calls: 8, cache_hits: 1, tokens_in: 800, tokens_out: 80 })]
                .into_iter()
                .collect(),
            ..ChangeSet::default()
        })
        .await
        .unwrap();
}

fn row_ids(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// Everything the store port reads, with what a store assigns itself (versions) left out.
async fn snapshot(store: &dyn Store) -> Value {
    let (rows, _) = store.list_docs(&DocFilter { sort: DocSort::CreatedAsc, ..DocFilter::default() }).await.unwrap();
    let mut docs = Vec::new();
    for row in rows {
        let chunks = store.get_chunks(&row.chunks_list).await.unwrap();
        let chunk_vectors = store.get_vectors(VectorKind::Chunk, &row.chunks_list).await.unwrap();
        docs.push(json!({
            "status": serde_json::to_value(&row).unwrap(),
            "document": serde_json::to_value(store.get_document(&row.id).await.unwrap()).unwrap(),
            "chunks": serde_json::to_value(chunks).unwrap(),
            "chunk_vectors": serde_json::to_value(chunk_vectors).unwrap(),
            "extractions": serde_json::to_value(store.get_extractions(&row.chunks_list).await.unwrap()).unwrap(),
            "links": serde_json::to_value(store.get_doc_links(&row.id).await.unwrap()).unwrap(),
        }));
    }
    let mut entities = Vec::new();
    for mut e in paging::all_entities(store).await.unwrap() {
        let key = GraphKey::Entity(e.name.clone());
        let vector = store.get_vectors(VectorKind::Entity, std::slice::from_ref(&e.name)).await.unwrap();
        e.version = 0;
        entities.push(json!({
            "record": serde_json::to_value(&e).unwrap(),
            "vector": serde_json::to_value(vector).unwrap(),
            "chunks": paging::whole_chunk_list(store, &key).await.unwrap(),
        }));
    }
    let mut relations = Vec::new();
    for mut r in paging::all_relations(store).await.unwrap() {
        let key = GraphKey::Relation(r.key.clone());
        let vkey = VectorRecord::relation_key(&r.key);
        let vector = store.get_vectors(VectorKind::Relation, &[vkey]).await.unwrap();
        r.version = 0;
        relations.push(json!({
            "record": serde_json::to_value(&r).unwrap(),
            "vector": serde_json::to_value(vector).unwrap(),
            "chunks": paging::whole_chunk_list(store, &key).await.unwrap(),
        }));
    }
    json!({
        "identity": serde_json::to_value(store.embedding_identity().await.unwrap()).unwrap(),
        "docs": docs,
        "entities": entities,
        "relations": relations,
        "cache": serde_json::to_value(store.cache_page(None, 1000).await.unwrap()).unwrap(),
        "usage": serde_json::to_value(store.usage().await.unwrap()).unwrap(),
        "vector_counts": serde_json::to_value(store.vector_counts().await.unwrap()).unwrap(),
        "graph_counts": serde_json::to_value(store.graph_counts().await.unwrap()).unwrap(),
    })
}

/// Cancels the copy after `after` documents were written.
struct StopAfter {
    after: usize,
    seen: AtomicUsize,
    cancel: CancellationToken,
    events: Mutex<Vec<CopyEvent>>,
}

impl CopyProgress for StopAfter {
    fn event(&self, event: &CopyEvent) {
        if matches!(event, CopyEvent::Document { skipped: false, .. })
            && self.seen.fetch_add(1, Ordering::SeqCst) + 1 == self.after
        {
            self.cancel.cancel();
        }
        self.events.lock().unwrap().push(event.clone());
    }
}

#[tokio::test]
async fn an_interrupted_copy_continues_and_the_target_reads_back_equal_to_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let from = SqliteStore::open(&dir.path().join("from.db")).unwrap();
    let to = SqliteStore::open(&dir.path().join("to.db")).unwrap();
    source(&from).await;

    let cancel = CancellationToken::new();
    let stop = StopAfter { after: 2, seen: AtomicUsize::new(0), cancel: cancel.clone(), events: Mutex::new(vec![]) };
    let first = copy(&from, &to, &stop, &cancel).await.unwrap();
    assert!(first.cancelled, "{first:?}");
    assert_eq!(first.documents_copied, 2, "stopped between documents: {first:?}");
    let (rows, _) = to.list_docs(&DocFilter::default()).await.unwrap();
    assert_eq!(rows.len(), 2, "each copied document is whole, the others absent");

    let second = copy(&from, &to, &NoCopyProgress, &CancellationToken::new()).await.unwrap();
    assert!(!second.cancelled);
    assert_eq!((second.documents_skipped, second.documents_copied), (2, 3), "{second:?}");
    assert_eq!(second.documents_pending_again, 1, "the document being processed in the source");
    assert!(second.usage_copied);

    let (mut want, got) = (snapshot(&from).await, snapshot(&to).await);
    let len = |v: &Value| v.as_array().map_or(0, Vec::len);
    assert_eq!((len(&want["docs"]), len(&want["entities"]), len(&want["relations"])), (5, 6, 5), "a real source");
    assert_eq!(len(&want["cache"]), 9);
    assert_eq!(len(&want["entities"][0]["chunks"]), 0, "Ghost has no chunks");
    assert_eq!(len(&want["entities"][1]["chunks"]), 8, "Hub is in every chunk");
    // the unfinished document is pending in the target, its lease gone
    let unfinished = &mut want["docs"][4]["status"];
    assert_eq!(unfinished["status"], "processing");
    unfinished["status"] = json!("pending");
    unfinished["lease_owner"] = Value::Null;
    unfinished["lease_until"] = Value::Null;
    assert_eq!(got, want);

    let third = copy(&from, &to, &NoCopyProgress, &CancellationToken::new()).await.unwrap();
    assert_eq!((third.documents_copied, third.entities, third.relations), (0, 0, 0), "nothing left: {third:?}");
    assert!(!third.usage_copied, "the ledger is copied once");
    assert_eq!(snapshot(&to).await, got, "running again changes nothing");
}

#[tokio::test]
async fn an_empty_source_a_target_with_other_documents_or_another_embedding_model_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let from = SqliteStore::open(&dir.path().join("from.db")).unwrap();
    source(&from).await;

    let other = SqliteStore::open(&dir.path().join("other.db")).unwrap();
    other
        .apply(ChangeSet { doc_status: vec![status_row("doc-x", DocStatus::Pending, 1)], ..ChangeSet::default() })
        .await
        .unwrap();
    let err = copy(&from, &other, &NoCopyProgress, &CancellationToken::new()).await.unwrap_err();
    assert!(matches!(err, CopyError::TargetNotEmpty { count: 1, .. }), "{err}");
    assert!(err.to_string().contains("doc-x"), "{err}");

    let empty = SqliteStore::open(&dir.path().join("empty.db")).unwrap();
    let err = copy(&empty, &other, &NoCopyProgress, &CancellationToken::new()).await.unwrap_err();
    assert!(matches!(err, CopyError::SourceEmpty), "a source holding nothing (a mistyped workspace): {err}");

    let model_b = SqliteStore::open(&dir.path().join("b.db")).unwrap();
    model_b.check_embedding_identity(&EmbeddingIdentity { model: "other".into(), dim: DIM }).await.unwrap();
    let err = copy(&from, &model_b, &NoCopyProgress, &CancellationToken::new()).await.unwrap_err();
    assert!(matches!(err, CopyError::EmbeddingMismatch { .. }), "{err}");
    assert!(err.to_string().contains("empty knowledge base"), "{err}");
}
