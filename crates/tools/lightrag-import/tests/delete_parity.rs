//! Deleting an imported document gives the graph LightRAG's own deletion gave
//! (`basic/_expected/after_delete/graph.json`: nodes, types, descriptions, edges, weights,
//! keywords, provenance), rebuilt from the recovered extraction records with no LLM call; and
//! indexing the document again costs no LLM call either (its answers are in the imported cache).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use lightrag_engine::indexing::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use lightrag_ports::{DocFilter, VectorKind};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// `river_survey.txt`.
const RIVER_SURVEY: &str = "doc-56546e07ae5570403066e3d1c4f218c9";

#[tokio::test]
async fn deleting_an_imported_document_gives_lightrags_graph_without_llm_calls() {
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    import(&engine, "basic").await;
    h.server.reset_stats();

    let report = engine.delete_document(RIVER_SURVEY).await.unwrap();
    assert_eq!(report.file_path, "river_survey.txt");
    assert_same_graph(&graph(&engine).await, &expected_graph("basic/_expected/after_delete/graph.json"));
    let stats = h.server.stats();
    assert_eq!(stats.chat_calls(), 0, "rebuilt from stored extraction records: {stats:?}");

    // what LightRAG kept: documents, chunks, vectors
    let state = fixture_json("basic/_expected/after_delete/state.json");
    let store = engine.store();
    let (rows, _) = store.list_docs(&DocFilter::default()).await.unwrap();
    let mut ids: Vec<String> = rows.into_iter().map(|r| r.id).collect();
    ids.sort();
    let mut want: Vec<String> = serde_json::from_value(state["doc_ids"].clone()).unwrap();
    want.sort();
    assert_eq!(ids, want);
    let chunk_ids: Vec<String> = serde_json::from_value(state["chunk_ids"].clone()).unwrap();
    assert!(store.get_chunks(&chunk_ids).await.unwrap().iter().all(Option::is_some), "LightRAG's remaining chunks");
    let counts = store.vector_counts().await.unwrap();
    let lightrag_vectors = &state["vdb_ids"];
    for (kind, file) in [
        (VectorKind::Chunk, "vdb_chunks.json"),
        (VectorKind::Entity, "vdb_entities.json"),
        (VectorKind::Relation, "vdb_relationships.json"),
    ] {
        assert_eq!(counts[&kind], lightrag_vectors[file].as_array().unwrap().len(), "{file}");
    }
    // what each remaining document contributed, as LightRAG records it after the deletion
    for (doc, links) in state["full_entities"].as_object().unwrap() {
        let mut want: Vec<String> = serde_json::from_value(links["entity_names"].clone()).unwrap();
        want.sort();
        let mut got = store.get_doc_links(doc).await.unwrap().unwrap().entities;
        got.sort();
        assert_eq!(got, want, "{doc}");
    }
}

#[tokio::test]
async fn indexing_a_deleted_imported_document_again_costs_no_llm_call() {
    let h = Harness::start().await;
    let engine = h.engine(&[]).await;
    import(&engine, "basic").await;
    engine.delete_document(RIVER_SURVEY).await.unwrap();
    h.server.reset_stats();

    // the file LightRAG indexed, inserted again: the same chunk text, so the same requests
    let text = std::fs::read_to_string(fixture("basic/_inputs/river_survey.txt")).unwrap();
    let doc = InsertDoc { content: text, file_source: Some("river_survey.txt".into()), ..Default::default() };
    engine.enqueue(vec![doc], None).await.unwrap();
    let report =
        engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new()).await.unwrap();
    assert_eq!(report.processed, [RIVER_SURVEY]);
    let stats = h.server.stats();
    assert_eq!((stats.extract, stats.glean, stats.summary), (0, 0, 0), "LightRAG's answers are reused: {stats:?}");
    // and the graph holds again everything LightRAG's graph held before the deletion (the
    // rebuild put the surviving descriptions in chunk order, as LightRAG's does, so the order of
    // a few `<SEP>` parts differs from the first import)
    assert_same_graph(&as_sets(&graph(&engine).await), &as_sets(&expected_graph("basic/_expected/graph.json")));
}
