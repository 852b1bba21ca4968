//! Provenance as rows, end to end on a real SQLite store with rule-based extraction (no LLM):
//! deleting a document equals building without it, also for hub entities shared by every
//! document and cut by `MAX_SOURCE_IDS_PER_ENTITY`; and a deletion's cost follows what the
//! document contributed, not how many documents share its entities.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use lightrag_engine::config::{ExtractionMethod, SourceIdsLimitMethod};
use lightrag_engine::indexing::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use lightrag_engine::retrieval::graph::ExportFormat;
use lightrag_engine::{Engine, EngineConfig, EngineParts};
use lightrag_ports::prelude::*;
use lightrag_ports::{EmbedError, Embedder, EmbeddingIdentity, GraphKey, Store, paging};
use lightrag_store_sqlite::SqliteStore;
use lightrag_tokenizer::TiktokenTokenizer;
use tokio_util::sync::CancellationToken;

const DIM: usize = 16;

/// Hashes lower-cased words into 16 buckets.
pub(crate) struct WordHash;

#[async_trait]
impl Embedder for WordHash {
    fn identity(&self) -> EmbeddingIdentity {
        EmbeddingIdentity { model: "word-hash".into(), dim: DIM }
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0f32; DIM];
                for w in t.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
                    let h = w.to_lowercase().bytes().fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
                    v[h as usize % DIM] += 1.0;
                }
                v[0] += 0.01;
                v
            })
            .collect())
    }
}

pub(crate) fn config(method: SourceIdsLimitMethod) -> EngineConfig {
    let mut config = EngineConfig::default();
    config.extraction.method = ExtractionMethod::Nlp;
    config.chunking.chunk_size = 60;
    config.chunking.chunk_overlap = 0;
    config.merge.max_source_ids_per_entity = 4;
    config.merge.max_source_ids_per_relation = 3;
    config.merge.max_file_paths = 3;
    config.merge.source_ids_limit_method = method;
    config
}

pub(crate) struct Kb {
    pub(crate) engine: Engine,
    pub(crate) store: Arc<SqliteStore>,
    _dir: tempfile::TempDir,
}

async fn open(method: SourceIdsLimitMethod) -> Kb {
    let dir = tempfile::tempdir().unwrap();
    open_at(dir, "kb.sqlite", config(method)).await
}

/// Opens the engine on the store file `name` in `dir` (which the knowledge base keeps alive).
pub(crate) async fn open_at(dir: tempfile::TempDir, name: &str, config: EngineConfig) -> Kb {
    let store = Arc::new(SqliteStore::open(&dir.path().join(name)).unwrap());
    let engine = engine_over(store.clone(), config).await;
    Kb { engine, store, _dir: dir }
}

/// An engine without a model over `store` (word-hash embeddings, rule-based keywords).
pub(crate) async fn engine_over(store: Arc<SqliteStore>, config: EngineConfig) -> Engine {
    Engine::open(EngineParts {
        config,
        store,
        llm: None,
        role_llms: Vec::new(),
        embedder: Arc::new(WordHash),
        reranker: None,
        tokenizer: Arc::new(TiktokenTokenizer::o200k().unwrap()),
    })
    .await
    .unwrap()
}

/// Document `i` of a corpus where every document names the hubs ("United States", "Congress")
/// in several chunks, with people and places of its own.
pub(crate) fn document(i: usize) -> (String, String) {
    const PEOPLE: [&str; 6] =
        ["George Washington", "John Adams", "Thomas Jefferson", "James Madison", "James Monroe", "Andrew Jackson"];
    const PLACES: [&str; 5] = ["Philadelphia", "New York", "Boston", "Baltimore", "Richmond"];
    let person = PEOPLE[i % PEOPLE.len()];
    let place = PLACES[i % PLACES.len()];
    let text = format!(
        "{person} addressed Congress in {place} about the United States Treasury. \
         The United States owed money to France and Spain, said {person}.\n\n\
         Congress asked {person} to report on the Navy of the United States. \
         Commodore Barry{i} sailed from {place} with the Navy.\n\n\
         The Senate of the United States and Congress debated the Bank of the United States. \
         Senator Clay{i} spoke for the Bank in {place}.\n\n\
         In the year {year}, the United States signed a treaty with Great Britain. \
         Congress ratified it and {person} thanked Ambassador Pinckney{i}.",
        year = 1790 + i
    );
    (format!("address_{i:02}.txt"), text)
}

/// Inserts documents one at a time (so the merge order is the list order).
pub(crate) async fn insert(engine: &Engine, docs: &[(String, String)]) -> Vec<String> {
    let mut ids = Vec::new();
    for (name, text) in docs {
        let report = engine
            .enqueue(
                vec![InsertDoc { content: text.clone(), file_source: Some(name.clone()), ..Default::default() }],
                None,
            )
            .await
            .unwrap();
        for o in &report.outcomes {
            if let lightrag_ports::EnqueueOutcome::Enqueued { doc_id } = o {
                ids.push(doc_id.clone());
            }
        }
        let done =
            engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new()).await.unwrap();
        assert_eq!(done.failed.len(), 0, "{done:?}");
    }
    ids
}

/// The graph as exported (without creation times) and every chunk list, for comparison.
async fn snapshot(kb: &Kb) -> (serde_json::Value, BTreeMap<String, Vec<String>>) {
    let mut out = Vec::new();
    kb.engine.export_graph(ExportFormat::Json, &mut out).await.unwrap();
    let mut graph: serde_json::Value = serde_json::from_slice(&out).unwrap();
    for list in ["nodes", "edges"] {
        for item in graph[list].as_array_mut().unwrap() {
            item.as_object_mut().unwrap().remove("created_at");
        }
    }
    let store: &dyn Store = kb.store.as_ref();
    let mut lists = BTreeMap::new();
    for e in paging::all_entities(store).await.unwrap() {
        let owner = GraphKey::Entity(e.name.clone());
        let list = paging::whole_chunk_list(store, &owner).await.unwrap();
        assert_eq!(e.chunk_count, list.len(), "chunk_count of {}", e.name);
        lists.insert(format!("entity {}", e.name), list);
    }
    for r in paging::all_relations(store).await.unwrap() {
        let owner = GraphKey::Relation(r.key.clone());
        let list = paging::whole_chunk_list(store, &owner).await.unwrap();
        assert_eq!(r.chunk_count, list.len(), "chunk_count of {}", r.key);
        lists.insert(format!("relation {}", r.key), list);
    }
    (graph, lists)
}

fn node<'a>(graph: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    graph["nodes"].as_array().unwrap().iter().find(|n| n["id"] == name)
}

/// Regression for the hub case: deleting any document (first, middle, last) of a graph whose hub
/// entities are cut by the source-id limit gives exactly the graph and chunk lists of a build
/// without that document.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_document_equals_a_build_without_it_with_hub_entities() {
    let docs: Vec<(String, String)> = (0..8).map(document).collect();
    let full = open(SourceIdsLimitMethod::Keep).await;
    let ids = insert(&full.engine, &docs).await;
    let (graph, _) = snapshot(&full).await;
    assert!(node(&graph, "United States").is_some(), "the hub was extracted");
    let hub = full.engine.get_entity("United States").await.unwrap().unwrap();
    assert!(hub.chunk_count >= 12 && hub.source_ids.len() == 4, "the hub is cut by the limit: {hub:?}");

    for (round, victim) in [7usize, 0, 3].into_iter().enumerate() {
        let report = full.engine.delete_document(&ids[victim]).await.unwrap();
        assert!(
            report.entities_rebuilt.iter().chain(&report.entities_kept).any(|e| e == "United States"),
            "the hub lost document {victim}'s chunks: {report:?}"
        );
        let remaining: Vec<(String, String)> = docs
            .iter()
            .enumerate()
            .filter(|(i, _)| ![7usize, 0, 3][..=round].contains(i))
            .map(|(_, d)| d.clone())
            .collect();
        let fresh = open(SourceIdsLimitMethod::Keep).await;
        insert(&fresh.engine, &remaining).await;
        let (after, after_lists) = snapshot(&full).await;
        let (expected, expected_lists) = snapshot(&fresh).await;
        assert_eq!(after_lists, expected_lists, "chunk lists after deleting document {victim}");
        assert_eq!(after, expected, "graph after deleting document {victim}");
    }
}

/// With FIFO the shown part of a cut record is its newest chunks; a deletion rebuilds it from
/// them (as LightRAG's rebuild does), so the provenance fields — shown ids, cut marker, chunk
/// lists — equal a build without the document; records that are not cut equal it entirely.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifo_deletion_keeps_provenance_equal_to_a_build_without_the_document() {
    let docs: Vec<(String, String)> = (0..6).map(document).collect();
    let full = open(SourceIdsLimitMethod::Fifo).await;
    let ids = insert(&full.engine, &docs).await;
    full.engine.delete_document(&ids[5]).await.unwrap();
    let fresh = open(SourceIdsLimitMethod::Fifo).await;
    insert(&fresh.engine, &docs[..5]).await;
    let (after, after_lists) = snapshot(&full).await;
    let (expected, expected_lists) = snapshot(&fresh).await;
    assert_eq!(after_lists, expected_lists);
    let nodes = |g: &serde_json::Value| -> BTreeMap<String, serde_json::Value> {
        g["nodes"].as_array().unwrap().iter().map(|n| (n["id"].as_str().unwrap().to_string(), n.clone())).collect()
    };
    let (got, want) = (nodes(&after), nodes(&expected));
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>());
    for (name, n) in &got {
        let w = &want[name];
        assert_eq!((&n["source_id"], &n["truncate"]), (&w["source_id"], &w["truncate"]), "{name}");
        if w["truncate"] == "" {
            assert_eq!(n, w, "{name} is not cut: the whole record matches");
        }
    }
}

/// Deleting the newest document reads and writes as many records whether the hub entities it
/// shares are cited by 12 or by 36 other documents (before provenance rows, every shared chunk
/// list was read and rewritten whole, so the cost grew with the hubs).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_document_touches_records_in_proportion_to_what_it_contributed() {
    let mut touched = Vec::new();
    for others in [12usize, 36] {
        let kb = open(SourceIdsLimitMethod::Keep).await;
        let mut docs: Vec<(String, String)> = (0..others).map(document).collect();
        // the same last document each time: hubs, and people and places of its own
        let (_, text) = document(others);
        let own = text
            .replace(
                [
                    "George Washington",
                    "John Adams",
                    "Thomas Jefferson",
                    "James Madison",
                    "James Monroe",
                    "Andrew Jackson",
                ][others % 6],
                "Zachary Taylor",
            )
            .replace(["Philadelphia", "New York", "Boston", "Baltimore", "Richmond"][others % 5], "Savannah")
            .replace(&format!("Barry{others}"), "Barry99")
            .replace(&format!("Clay{others}"), "Clay99")
            .replace(&format!("Pinckney{others}"), "Pinckney99")
            .replace(&format!("{}", 1790 + others), "1899");
        docs.push(("last.txt".to_string(), own));
        let ids = insert(&kb.engine, &docs).await;
        let report = kb.engine.delete_document(ids.last().unwrap()).await.unwrap();
        assert!(report.entities_kept.contains(&"United States".to_string()), "{report:?}");
        assert!(report.entities_rebuilt.is_empty(), "nothing it shared showed its chunks: {report:?}");
        assert!(report.entities_deleted.contains(&"Zachary Taylor".to_string()), "{report:?}");
        touched.push((report.records_read, report.records_written));
    }
    assert_eq!(touched[0], touched[1], "records read and written with 12 and with 36 other documents");
}

/// A knowledge base written before provenance rows (schema 1) is migrated on open, and
/// deleting its first document — whose chunks its hub shows — then equals building the other
/// documents from scratch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migrated_store_deletes_like_a_fresh_build() {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/store-sqlite/tests/fixtures/schema1.sqlite");
    // the settings the fixture was written with (see the fixture's README)
    let fixture_config = || {
        let mut config = EngineConfig::default();
        config.extraction.method = ExtractionMethod::Nlp;
        config.chunking.chunk_size = 300;
        config.chunking.chunk_overlap = 30;
        config.merge.max_source_ids_per_entity = 6;
        config.merge.max_source_ids_per_relation = 6;
        config.merge.max_file_paths = 3;
        config
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kb.sqlite");
    std::fs::copy(&fixture, &path).unwrap();
    let migrated = open_at(dir, "kb.sqlite", fixture_config()).await;

    // the documents in the order they were merged, with their text
    let order = lightrag_ports::DocFilter { sort: lightrag_ports::DocSort::CreatedAsc, ..Default::default() };
    let (rows, _) = migrated.engine.list_documents(&order).await.unwrap();
    assert_eq!(rows.len(), 4);
    let mut docs = Vec::new();
    for row in &rows {
        let doc = migrated.store.get_document(&row.id).await.unwrap().unwrap();
        docs.push((doc.file_path.clone(), doc.content.clone()));
    }
    let hub = migrated.engine.get_entity("United States").await.unwrap().unwrap();
    assert!(hub.chunk_count > hub.source_ids.len(), "the hub is cut: {hub:?}");

    let report = migrated.engine.delete_document(&rows[0].id).await.unwrap();
    assert!(report.entities_rebuilt.contains(&"United States".to_string()), "{report:?}");
    let fresh = open_at(tempfile::tempdir().unwrap(), "kb.sqlite", fixture_config()).await;
    insert(&fresh.engine, &docs[1..]).await;
    let (mut after, after_lists) = snapshot(&migrated).await;
    let (mut expected, expected_lists) = snapshot(&fresh).await;
    assert_eq!(after_lists, expected_lists, "chunk lists");
    // The fixture's per-chunk records were written by an older rule-based extractor, whose
    // relation keywords were the content words between the two names; today's name the linking
    // verb or preposition first. The rebuild replays the stored records, the fresh build
    // extracts anew, so only the keywords may differ: everything else must be equal.
    for graph in [&mut after, &mut expected] {
        for edge in graph["edges"].as_array_mut().unwrap() {
            edge.as_object_mut().unwrap().remove("keywords");
        }
    }
    assert_eq!(after, expected, "graph");
}
