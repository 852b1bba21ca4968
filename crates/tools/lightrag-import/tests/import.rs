//! Importing LightRAG 1.5.7 working directories (the frozen fixtures made by LightRAG itself):
//! documents, chunks, graph, vectors, extraction records and cache; workspace discovery; the dry
//! run; resuming an interrupted import; refusing a knowledge base that holds other documents.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use lightrag_import::source::{discover, locate};
use lightrag_import::{ImportError, ImportEvent, ImportProgress};
use lightrag_ports::{DocFilter, DocStatus, VectorKind};
use tokio_util::sync::CancellationToken;

const BASIC_DOCS: usize = 4;
const BASIC_CHUNKS: usize = 5;
const BASIC_ENTITIES: usize = 40;
const BASIC_RELATIONS: usize = 48;

#[tokio::test]
async fn basic_imports_documents_chunks_graph_vectors_and_cache_as_lightrag_wrote_them() {
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    let report = import(&engine, "basic").await;

    assert_eq!(report.documents.indexed, BASIC_DOCS, "{}", report.render());
    assert_eq!(report.documents.imported, BASIC_DOCS);
    assert_eq!((report.chunks, report.entities, report.relations), (BASIC_CHUNKS, BASIC_ENTITIES, BASIC_RELATIONS));
    assert_eq!(report.extractions_recovered, BASIC_CHUNKS);
    assert!(report.unrecoverable.is_empty());
    assert!(report.lost.is_empty(), "nothing is lost from basic/: {:?}", report.lost);
    let vectors = report.vectors.clone().unwrap();
    assert!(vectors.reuse, "the scripted embedder made the fixture's vectors: {}", vectors.reason);
    assert_eq!(report.vectors_embedded, 0, "kept vectors are not embedded again");
    assert_eq!(report.cache["extract"].reused, 2 * BASIC_CHUNKS, "extraction and gleaning of each chunk");
    assert_eq!(report.cache["keywords"].reused, 20, "5 questions x 4 graph modes");

    // the graph is LightRAG's, record for record
    assert_same_graph(&graph(&engine).await, &expected_graph("basic/_expected/graph.json"));

    // documents keep their ids, status, track ids, file paths and timestamps
    let store = engine.store();
    let expected_docs = fixture_json("basic/kv_store_doc_status.json");
    let (rows, total) = store.list_docs(&DocFilter::default()).await.unwrap();
    assert_eq!(total, BASIC_DOCS);
    for row in &rows {
        let want = &expected_docs[&row.id];
        assert_eq!(row.status, DocStatus::Processed);
        assert_eq!(row.track_id, want["track_id"].as_str().unwrap());
        assert_eq!(row.file_path, want["file_path"].as_str().unwrap());
        assert_eq!(row.content_summary, want["content_summary"].as_str().unwrap());
        let chunks: Vec<String> = serde_json::from_value(want["chunks_list"].clone()).unwrap();
        assert_eq!(row.chunks_list, chunks);
        let created = chrono::DateTime::parse_from_rfc3339(want["created_at"].as_str().unwrap()).unwrap();
        assert_eq!(row.created_at, created.timestamp_millis());
        assert_eq!(row.metadata["lightrag_status"], "processed");
        assert_eq!(row.metadata["kg_write_state"], want["metadata"]["kg_write_state"], "LightRAG's metadata is kept");
        let doc = store.get_document(&row.id).await.unwrap().expect("the text is imported");
        let full = fixture_json("basic/kv_store_full_docs.json");
        assert_eq!(doc.content, full[&row.id]["content"].as_str().unwrap());
        // chunks keep LightRAG's ids and texts; each has its recovered extraction records
        let stored = store.get_chunks(&row.chunks_list).await.unwrap();
        let lightrag_chunks = fixture_json("basic/kv_store_text_chunks.json");
        for (id, chunk) in row.chunks_list.iter().zip(stored) {
            let chunk = chunk.expect("chunk imported");
            assert_eq!(chunk.content, lightrag_chunks[id]["content"].as_str().unwrap());
            assert_eq!(chunk.tokens as u64, lightrag_chunks[id]["tokens"].as_u64().unwrap());
        }
        let extractions = store.get_extractions(&row.chunks_list).await.unwrap();
        assert_eq!(extractions.len(), row.chunks_list.len());
        assert!(extractions.iter().all(|x| !x.entities.is_empty() && x.cache_keys.len() == 2));
        assert!(store.get_doc_links(&row.id).await.unwrap().is_some_and(|l| !l.entities.is_empty()));
    }

    // vectors: one per chunk, entity and relation, LightRAG's own
    let counts = store.vector_counts().await.unwrap();
    assert_eq!(counts[&VectorKind::Chunk], BASIC_CHUNKS);
    assert_eq!(counts[&VectorKind::Entity], BASIC_ENTITIES);
    assert_eq!(counts[&VectorKind::Relation], BASIC_RELATIONS);

    // no LLM call at all; for the check, one embedding call per kind of text sampled (chunks as
    // passages, entity and relation texts as descriptions)
    let stats = h.server.stats();
    assert_eq!(stats.chat_calls(), 0, "{stats:?}");
    assert_eq!(stats.embed, 2, "{stats:?}");
}

#[tokio::test]
async fn workspace_folders_are_discovered_and_imported_into_the_workspace_of_the_same_name() {
    let root = fixture("workspace");
    assert_eq!(discover(&root).unwrap(), ["team_a"], "_inputs/ and _expected/ hold no LightRAG file");
    // no workspace named: the error lists the ones there are
    let err = locate(&root, None, "").unwrap_err().to_string();
    assert!(err.contains("team_a") && err.contains("--from-workspace"), "{err}");
    let found = locate(&root, None, "team_a").unwrap();
    assert_eq!((found.path, found.workspace.as_str()), (root.join("team_a"), "team_a"));
    let err = locate(&root, Some("team_b"), "").unwrap_err();
    assert!(matches!(err, ImportError::NoSuchWorkspace { .. }), "{err}");

    let h = Harness::start().await;
    let engine = h.engine(&[("WORKSPACE", "team_a")]).await;
    let options = lightrag_import::ImportOptions { dir: root, target_workspace: "team_a".into(), ..Default::default() };
    let report =
        lightrag_import::import(&engine, &options, &lightrag_import::NoImportProgress, &CancellationToken::new())
            .await
            .unwrap();
    assert_eq!(report.lightrag_workspace, "team_a");
    assert_eq!((report.documents.indexed, report.entities, report.relations), (2, 12, 9), "{}", report.render());
    assert_same_graph(&graph(&engine).await, &expected_graph("workspace/_expected/graph.json"));
    assert!(h.dir.path().join("rag/team_a/lightrag.db").is_file(), "written into our workspace team_a");
}

#[tokio::test]
async fn check_reports_what_would_be_imported_and_writes_nothing() {
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    let report = lightrag_import::check(&engine, &options("basic")).await.unwrap();
    assert!(report.dry_run && !report.complete);
    assert_eq!((report.documents.indexed, report.chunks, report.entities), (BASIC_DOCS, BASIC_CHUNKS, BASIC_ENTITIES));
    assert!(report.vectors.as_ref().unwrap().reuse);
    assert!(report.blocked.is_none());
    let text = report.render();
    assert!(text.contains("4 found: 4 indexed"), "{text}");
    assert!(text.contains("not imported: nothing"), "{text}");
    assert_eq!(engine.store().list_docs(&DocFilter::default()).await.unwrap().1, 0, "a dry run writes nothing");
    assert_eq!(engine.store().graph_counts().await.unwrap().nodes, 0);
    assert_eq!(h.server.stats().chat_calls(), 0);
}

#[tokio::test]
async fn check_lists_missing_files_and_unrecoverable_extractions() {
    // a copy of basic/ without the LLM cache and the relation vectors
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture("basic")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.is_file() && name != "kv_store_llm_response_cache.json" && name != "vdb_relationships.json" {
            std::fs::copy(&path, copy.path().join(&name)).unwrap();
        }
    }
    std::fs::write(copy.path().join("faiss_index_entities.index"), b"x").unwrap();
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    let options = lightrag_import::ImportOptions { dir: copy.path().to_path_buf(), ..Default::default() };
    let report = lightrag_import::check(&engine, &options).await.unwrap();
    let text = report.render();
    assert_eq!(report.unrecoverable.len(), BASIC_DOCS, "{text}");
    assert_eq!(report.extractions_recovered, 0);
    assert!(text.contains("kv_store_llm_response_cache.json is missing"), "{text}");
    assert!(text.contains("vdb_relationships.json is missing"), "{text}");
    assert!(text.contains("faiss_index_entities.index"), "{text}");
    assert!(text.contains("lightrag delete DOC_ID"), "says how to re-extract: {text}");
}

/// Cancels the import after `after` documents.
struct StopAfter {
    after: usize,
    seen: AtomicUsize,
    token: CancellationToken,
}

impl ImportProgress for StopAfter {
    fn event(&self, event: &ImportEvent) {
        if let ImportEvent::Document { .. } = event
            && self.seen.fetch_add(1, Ordering::SeqCst) + 1 >= self.after
        {
            self.token.cancel();
        }
    }
}

#[tokio::test]
async fn an_interrupted_import_resumes_and_nothing_is_doubled() {
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    let token = CancellationToken::new();
    let stop = Arc::new(StopAfter { after: 2, seen: AtomicUsize::new(0), token: token.clone() });
    let first = lightrag_import::import(&engine, &options("basic"), stop.as_ref(), &token).await.unwrap();
    assert!(first.cancelled && !first.complete, "{}", first.render());
    assert_eq!(first.documents.imported, 2);
    assert_eq!(engine.store().list_docs(&DocFilter::default()).await.unwrap().1, 2);

    // a new process: a new engine on the same store
    drop(engine);
    let engine = h.engine(&[]).await;
    let second = import(&engine, "basic").await;
    assert_eq!((second.documents.already_present, second.documents.imported), (2, 2), "{}", second.render());
    assert_same_graph(&graph(&engine).await, &expected_graph("basic/_expected/graph.json"));
    let store = engine.store();
    assert_eq!(store.list_docs(&DocFilter::default()).await.unwrap().1, BASIC_DOCS);
    let counts = store.vector_counts().await.unwrap();
    assert_eq!(
        (counts[&VectorKind::Chunk], counts[&VectorKind::Entity], counts[&VectorKind::Relation]),
        (BASIC_CHUNKS, BASIC_ENTITIES, BASIC_RELATIONS)
    );

    // a third run finds everything there
    let third = import(&engine, "basic").await;
    assert_eq!((third.documents.already_present, third.documents.imported), (BASIC_DOCS, 0));
    assert_same_graph(&graph(&engine).await, &expected_graph("basic/_expected/graph.json"));
}

#[tokio::test]
async fn a_knowledge_base_holding_other_documents_is_refused() {
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    let doc = lightrag_engine::indexing::pipeline::InsertDoc {
        content: "Ada Lovelace wrote programs for the Analytical Engine.".into(),
        file_source: Some("ada.txt".into()),
        ..Default::default()
    };
    engine.enqueue(vec![doc], None).await.unwrap();
    let err = lightrag_import::import(
        &engine,
        &options("basic"),
        &lightrag_import::NoImportProgress,
        &CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ImportError::TargetNotEmpty { count: 1, .. }), "{err}");
    assert!(err.to_string().contains("--workspace"), "{err}");
    let check = lightrag_import::check(&engine, &options("basic")).await.unwrap();
    assert!(check.blocked.is_some() && check.render().contains("BLOCKED"), "{}", check.render());
}

#[tokio::test]
async fn a_document_lightrag_stopped_mid_merge_is_cleaned_up_and_indexed_again_from_the_cache() {
    // basic/ as if LightRAG had been killed while merging river_survey.txt
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture("basic")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, copy.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let status_file = copy.path().join("kv_store_doc_status.json");
    let mut status: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&status_file).unwrap()).unwrap();
    status["doc-56546e07ae5570403066e3d1c4f218c9"]["status"] = "processing".into();
    std::fs::write(&status_file, status.to_string()).unwrap();

    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    let options = lightrag_import::ImportOptions { dir: copy.path().to_path_buf(), ..Default::default() };
    let report =
        lightrag_import::import(&engine, &options, &lightrag_import::NoImportProgress, &CancellationToken::new())
            .await
            .unwrap();
    assert_eq!((report.documents.indexed, report.documents.interrupted), (3, 1), "{}", report.render());
    assert!(report.render().contains("stopped by LightRAG while their graph was being written"), "{}", report.render());
    // its partial contributions are gone exactly as LightRAG's own deletion removes them
    assert_same_graph(&graph(&engine).await, &expected_graph("basic/_expected/after_delete/graph.json"));
    let row = engine.store().get_doc_status("doc-56546e07ae5570403066e3d1c4f218c9").await.unwrap().unwrap();
    assert_eq!(row.status, DocStatus::Pending);
    assert!(engine.store().get_document(&row.id).await.unwrap().is_some());

    // indexed here in full, with LightRAG's cached answers: no extraction call
    h.server.reset_stats();
    let processed = engine
        .process(
            &lightrag_engine::indexing::pipeline::ProcessOptions::default(),
            Arc::new(lightrag_engine::indexing::pipeline::NoProgress),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(processed.processed, std::slice::from_ref(&row.id));
    let stats = h.server.stats();
    assert_eq!((stats.extract, stats.glean), (0, 0), "{stats:?}");
    assert_same_graph(&as_sets(&graph(&engine).await), &as_sets(&expected_graph("basic/_expected/graph.json")));
}

/// A GraphML edge naming a node the file does not declare: LightRAG (NetworkX) creates the node
/// when it reads such a file, so the import does too — the relation is kept, its missing end
/// becomes an entity of type UNKNOWN with the edge's chunks and files, the report names it, and
/// `check` finds no dangling relation.
#[tokio::test]
async fn a_graphml_edge_to_an_undeclared_node_creates_the_node_as_lightrag_does() {
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture("basic")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, copy.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let graph_file = copy.path().join("graph_chunk_entity_relation.graphml");
    let xml = std::fs::read_to_string(&graph_file).unwrap();
    let chunk = "doc-d2278146f2460e17cd0ad1839f011c2b-chunk-000";
    let edges = format!(
        r#"    <edge source="Marina Castell" target="Nobody Declared">
      <data key="d7">2.0</data>
      <data key="d8">Marina Castell writes to Nobody Declared.</data>
      <data key="d9">writes</data>
      <data key="d10">{chunk}</data>
      <data key="d11">harbor_project.txt</data>
      <data key="d12">1796138000</data>
    </edge>
    <edge source="Nobody Declared" target="Ghost Town">
      <data key="d10">{chunk}</data>
      <data key="d11">harbor_project.txt</data>
      <data key="d12">1796138001</data>
    </edge>
  </graph>"#
    );
    std::fs::write(&graph_file, xml.replace("  </graph>", &edges)).unwrap();

    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    let options = lightrag_import::ImportOptions { dir: copy.path().to_path_buf(), ..Default::default() };
    let dry = lightrag_import::check(&engine, &options).await.unwrap();
    assert_eq!(dry.undeclared_nodes, ["Ghost Town", "Nobody Declared"], "{}", dry.render());
    let report =
        lightrag_import::import(&engine, &options, &lightrag_import::NoImportProgress, &CancellationToken::new())
            .await
            .unwrap();
    let text = report.render();
    assert!(report.complete, "{text}");
    assert!(text.contains("2 edge end(s) are not declared as nodes (Ghost Town, Nobody Declared)"), "{text}");
    assert_eq!((report.entities, report.relations), (BASIC_ENTITIES + 2, BASIC_RELATIONS + 2), "{text}");

    let store = engine.store();
    let created = store.get_entities(&["Nobody Declared".to_string()]).await.unwrap().remove(0).unwrap();
    assert_eq!(created.entity_type, "UNKNOWN");
    assert_eq!(created.source_ids, [chunk]);
    assert_eq!(created.file_paths, ["harbor_project.txt"]);
    assert_eq!(created.created_at, 1_796_138_000_000, "the earliest of its edges");
    let relation = lightrag_ports::RelKey::new("Marina Castell", "Nobody Declared");
    assert!(store.get_relations(&[relation]).await.unwrap()[0].is_some(), "the relation is kept");
    let found = engine.check().await.unwrap();
    assert!(found.is_clean(), "no dangling relation, every record has its vector: {:?}", found.findings);
}
