//! Deleting several documents in one pass (`Engine::delete_documents`, issue 28 item 2): the
//! result equals deleting them one at a time — graph, chunk lists, vectors, status rows and
//! document links — under `SOURCE_IDS_LIMIT_METHOD` KEEP and FIFO, with LLM summaries and hub
//! entities shared by every document; each record is rebuilt and summarised once; passes,
//! cancellation and a repeated request end in the same state.
//!
//! Each test builds one knowledge base through the scripted LLM (real HTTP client, SQLite),
//! copies it, deletes the same documents from the two copies one way each, and compares.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use lightrag_engine::config::SourceIdsLimitMethod;
use lightrag_engine::maintenance::delete::{BatchDeletionReport, DeleteOptions, DeletionEvent, NoDeletionProgress};
use lightrag_engine::retrieval::graph::ExportFormat;
use lightrag_engine::{Engine, EngineConfig, EngineParts};
use lightrag_llm_http::{HttpEmbedConfig, HttpLlmConfig, build_embedder, build_llm};
use lightrag_ports::{DocFilter, DocSort, GraphKey, Store, VectorKind, paging};
use lightrag_scripted_llm::{PromptKind, ScriptConfig, ScriptedLlm, ScriptedServer};
use lightrag_store_sqlite::SqliteStore;
use lightrag_tokenizer::TiktokenTokenizer;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::provenance_rows::{document, insert};

/// Small chunks, small provenance limits (hubs are cut), summaries from three fragments.
fn config(method: SourceIdsLimitMethod, batch_chunks: usize) -> EngineConfig {
    let mut config = crate::provenance_rows::config(method);
    config.extraction.method = lightrag_engine::config::ExtractionMethod::Llm;
    config.extraction.max_gleaning = 0;
    config.merge.force_llm_summary_on_merge = 3;
    config.pipeline.delete_batch_chunks = batch_chunks;
    config
}

struct Kb {
    engine: Engine,
    store: Arc<SqliteStore>,
    dir: tempfile::TempDir,
}

async fn open(server: &ScriptedServer, dir: tempfile::TempDir, config: EngineConfig) -> Kb {
    let store = Arc::new(SqliteStore::open(&dir.path().join("kb.sqlite")).unwrap());
    let host = server.base_url();
    let embedder = build_embedder(&HttpEmbedConfig {
        host: host.clone(),
        model: "scripted".into(),
        dim: 64,
        ..Default::default()
    })
    .unwrap();
    let llm = build_llm(&HttpLlmConfig { host, model: "scripted".into(), ..HttpLlmConfig::default() }).unwrap();
    let engine = Engine::open(EngineParts {
        config,
        store: store.clone(),
        llm: Some(llm),
        role_llms: Vec::new(),
        embedder,
        reranker: None,
        tokenizer: Arc::new(TiktokenTokenizer::o200k().unwrap()),
    })
    .await
    .unwrap();
    Kb { engine, store, dir }
}

/// A knowledge base of `docs` documents (inserted one at a time), a copy of it, and the
/// documents' ids in insertion order.
async fn two_copies(server: &ScriptedServer, config: &EngineConfig, docs: usize) -> (Kb, Kb, Vec<String>) {
    let first = open(server, tempfile::tempdir().unwrap(), config.clone()).await;
    let corpus: Vec<(String, String)> = (0..docs).map(document).collect();
    let ids = insert(&first.engine, &corpus).await;
    let copy = tempfile::tempdir().unwrap();
    lightrag_store_sqlite::backup::backup(&first.dir.path().join("kb.sqlite"), &copy.path().join("kb.sqlite")).unwrap();
    let second = open(server, copy, config.clone()).await;
    (first, second, ids)
}

/// Everything a deletion may change, for comparison: the graph as exported (without creation
/// times), every chunk list, every vector, every status row and the documents' links.
#[derive(Debug, PartialEq)]
struct State {
    graph: Value,
    lists: BTreeMap<String, Vec<String>>,
    vectors: BTreeMap<String, Vec<f32>>,
    rows: Vec<lightrag_ports::DocStatusRecord>,
    links: Vec<Option<lightrag_ports::DocLinks>>,
}

async fn state(kb: &Kb) -> State {
    let mut out = Vec::new();
    kb.engine.export_graph(ExportFormat::Json, &mut out).await.unwrap();
    let mut graph: Value = serde_json::from_slice(&out).unwrap();
    for list in ["nodes", "edges"] {
        for item in graph[list].as_array_mut().unwrap() {
            item.as_object_mut().unwrap().remove("created_at");
        }
    }
    let store: &dyn Store = kb.store.as_ref();
    let mut lists = BTreeMap::new();
    for e in paging::all_entities(store).await.unwrap() {
        let list = paging::whole_chunk_list(store, &GraphKey::Entity(e.name.clone())).await.unwrap();
        assert_eq!(e.chunk_count, list.len(), "chunk_count of {}", e.name);
        lists.insert(format!("entity {}", e.name), list);
    }
    for r in paging::all_relations(store).await.unwrap() {
        let list = paging::whole_chunk_list(store, &GraphKey::Relation(r.key.clone())).await.unwrap();
        assert_eq!(r.chunk_count, list.len(), "chunk_count of {}", r.key);
        lists.insert(format!("relation {}", r.key), list);
    }
    let mut vectors = BTreeMap::new();
    for kind in [VectorKind::Chunk, VectorKind::Entity, VectorKind::Relation] {
        let keys: Vec<String> =
            store.vector_keys_page(kind, None, 1_000_000).await.unwrap().into_iter().map(|k| k.key).collect();
        let stored = store.get_vectors(kind, &keys).await.unwrap();
        for (key, vector) in keys.into_iter().zip(stored) {
            vectors.insert(format!("{kind:?} {key}"), vector.expect("a listed vector is stored"));
        }
    }
    let (rows, _) =
        kb.engine.list_documents(&DocFilter { sort: DocSort::CreatedAsc, ..DocFilter::default() }).await.unwrap();
    let mut links = Vec::new();
    for row in &rows {
        links.push(store.get_doc_links(&row.id).await.unwrap());
    }
    State { graph, lists, vectors, rows, links }
}

/// The record names of the summary requests the server received since `from`.
fn summarised(server: &ScriptedServer, from: usize) -> Vec<String> {
    server.requests()[from..]
        .iter()
        .filter(|r| r.prompt == Some(PromptKind::Summary))
        .map(|r| {
            let text = r.body.to_string();
            let at = text.find("Name: ").expect("a summary prompt names its record") + "Name: ".len();
            text[at..].split("\\n").next().unwrap_or_default().to_string()
        })
        .collect()
}

fn scripted() -> ScriptedServer {
    ScriptedLlm::start_blocking(ScriptConfig { record_requests: 1_000_000, ..ScriptConfig::default() }).unwrap()
}

async fn delete_batch(kb: &Kb, ids: &[String]) -> BatchDeletionReport {
    kb.engine
        .delete_documents(ids, DeleteOptions::default(), &NoDeletionProgress, &CancellationToken::new())
        .await
        .unwrap()
}

/// Deletes `victims` (indexes into the documents) from one copy in one call and from the other
/// one at a time; the states must be equal. Returns the summaries each way asked for.
async fn batch_equals_one_at_a_time(
    method: SourceIdsLimitMethod,
    batch_chunks: usize,
    victims: &[usize],
) -> (BatchDeletionReport, Vec<String>, Vec<String>) {
    let server = scripted();
    let (batch, single, ids) = two_copies(&server, &config(method, batch_chunks), 8).await;
    assert_eq!(state(&batch).await, state(&single).await, "the copies start equal");
    let hub = batch.engine.get_entity("United States").await.unwrap().unwrap();
    assert!(hub.chunk_count > hub.source_ids.len(), "the hub is cut by the limit: {hub:?}");
    let chosen: Vec<String> = victims.iter().map(|&i| ids[i].clone()).collect();

    let from = server.requests().len();
    let report = delete_batch(&batch, &chosen).await;
    let batch_summaries = summarised(&server, from);
    let from = server.requests().len();
    for id in &chosen {
        single.engine.delete_document(id).await.unwrap();
    }
    let single_summaries = summarised(&server, from);

    let deleted: Vec<&str> = report.deleted.iter().map(|d| d.doc_id.as_str()).collect();
    assert_eq!(deleted, chosen.iter().map(String::as_str).collect::<Vec<_>>(), "{report:?}");
    let (after, expected) = (state(&batch).await, state(&single).await);
    assert_eq!(after.graph, expected.graph, "graph");
    assert_eq!(after.lists, expected.lists, "chunk lists");
    assert_eq!(after.vectors.keys().collect::<Vec<_>>(), expected.vectors.keys().collect::<Vec<_>>(), "vector keys");
    assert_eq!(after.vectors, expected.vectors, "vectors");
    assert_eq!(after.rows, expected.rows, "status rows");
    assert_eq!(after.links, expected.links, "document links");
    assert_eq!(after.rows.len(), 8 - victims.len());
    (report, batch_summaries, single_summaries)
}

fn repeated(names: &[String]) -> BTreeSet<&str> {
    let mut seen = BTreeSet::new();
    names.iter().filter(|n| !seen.insert(n.as_str())).map(String::as_str).collect()
}

/// Regression for LightRAG's issue #2795: deleting N documents rebuilt an entity they share N
/// times, a summary each time. In one pass every record is summarised at most once, fewer
/// summaries are asked in all, and the end state is the one of N single deletions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_documents_in_one_pass_equals_deleting_them_one_at_a_time_under_keep() {
    let (report, batch, single) = batch_equals_one_at_a_time(SourceIdsLimitMethod::Keep, 5000, &[0, 3, 5, 7]).await;
    assert_eq!(report.passes, 1, "{report:?}");
    assert!(report.entities_rebuilt.iter().any(|e| e == "United States"), "the hub is rebuilt: {report:?}");
    assert!(repeated(&batch).is_empty(), "a record summarised twice in one pass: {:?}", repeated(&batch));
    assert!(!repeated(&single).is_empty(), "one at a time, shared records are summarised again: {single:?}");
    assert!(batch.len() < single.len(), "{} summaries in one pass, {} one at a time", batch.len(), single.len());
}

/// The same under FIFO, where a cut record shows its newest chunks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_documents_in_one_pass_equals_deleting_them_one_at_a_time_under_fifo() {
    let (report, batch, single) = batch_equals_one_at_a_time(SourceIdsLimitMethod::Fifo, 5000, &[6, 1, 7, 4]).await;
    assert_eq!(report.passes, 1, "{report:?}");
    assert!(repeated(&batch).is_empty(), "a record summarised twice in one pass: {:?}", repeated(&batch));
    assert!(batch.len() < single.len(), "{} summaries in one pass, {} one at a time", batch.len(), single.len());
}

/// With `DELETE_BATCH_CHUNKS` below the documents' size the deletion goes in several passes,
/// with the same end state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deletion_in_several_passes_ends_as_one_at_a_time() {
    let (report, _, _) = batch_equals_one_at_a_time(SourceIdsLimitMethod::Keep, 4, &[2, 0, 6, 5, 7]).await;
    assert!(report.passes > 1 && report.passes < 5, "{report:?}");
}

/// Cancelled after its first pass, a deletion leaves the documents of the later passes in place
/// (reported as cancelled) and a consistent store; the same request asked again deletes them,
/// reports the first pass's documents as not found, and ends where one-at-a-time deletions end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_deletion_asked_again_finishes() {
    let server = scripted();
    let (batch, single, ids) = two_copies(&server, &config(SourceIdsLimitMethod::Keep, 4), 8).await;
    let chosen: Vec<String> = [1usize, 4, 6, 7].iter().map(|&i| ids[i].clone()).collect();

    // cancelled before anything: nothing is written
    let cancel = CancellationToken::new();
    cancel.cancel();
    let before = state(&batch).await;
    let report = batch.engine.delete_documents(&chosen, DeleteOptions::default(), &NoDeletionProgress, &cancel).await;
    let report = report.unwrap();
    assert_eq!((report.deleted.len(), report.cancelled.len(), report.passes), (0, 4, 0), "{report:?}");
    assert_eq!(state(&batch).await, before);

    // cancelled when the first pass has committed
    let cancel = CancellationToken::new();
    let events = Mutex::new(Vec::new());
    let progress = |event: &DeletionEvent| {
        if matches!(event, DeletionEvent::PassCommitted { pass: 1, .. }) {
            cancel.cancel();
        }
        events.lock().unwrap().push(event.clone());
    };
    let first = batch.engine.delete_documents(&chosen, DeleteOptions::default(), &progress, &cancel).await.unwrap();
    assert_eq!(first.passes, 1, "{first:?}");
    assert!(!first.deleted.is_empty() && !first.cancelled.is_empty(), "{first:?}");
    assert_eq!(first.deleted.len() + first.cancelled.len(), chosen.len());
    let events = events.into_inner().unwrap();
    assert!(matches!(events[0], DeletionEvent::Planned { documents: 4, .. }), "{events:?}");
    assert!(matches!(events[1], DeletionEvent::PassStarted { pass: 1, .. }), "{events:?}");
    assert!(matches!(events[2], DeletionEvent::PassBuilt { pass: 1, .. }), "{events:?}");
    let left = batch.engine.list_documents(&DocFilter::default()).await.unwrap().1;
    assert_eq!(left, 8 - first.deleted.len(), "the cancelled documents stay");

    let again = delete_batch(&batch, &chosen).await;
    let gone: Vec<&String> = first.deleted.iter().map(|d| &d.doc_id).collect();
    assert_eq!(again.not_found.iter().collect::<Vec<_>>(), gone, "{again:?}");
    assert_eq!(again.deleted.len(), first.cancelled.len(), "{again:?}");
    for id in &chosen {
        single.engine.delete_document(id).await.unwrap();
    }
    assert_eq!(state(&batch).await, state(&single).await);

    // and once more: nothing left to do, nothing changes
    let before = state(&batch).await;
    let third = delete_batch(&batch, &chosen).await;
    assert_eq!((third.not_found.len(), third.deleted.len(), third.passes), (4, 0, 0), "{third:?}");
    assert_eq!(state(&batch).await, before);
}
