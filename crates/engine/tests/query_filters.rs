//! Query filters end to end on a real SQLite store with rule-based extraction (no LLM): a query
//! filtered to one document sees the entities and relations exactly as a build of that document
//! alone has them — also the hub entities whose shown source ids (cut by
//! `MAX_SOURCE_IDS_PER_ENTITY`) hold none of its chunks — whether candidates are ranked exactly
//! or over-fetched from the vector index (`QUERY_FILTER_EXACT_LIMIT` 0).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use lightrag_engine::Engine;
use lightrag_engine::config::SourceIdsLimitMethod;
use lightrag_engine::retrieval::query::{QueryFilter, QueryMode, QueryParam};

use crate::provenance_rows::{Kb, config, document, engine_over, insert, open_at};

/// A second engine over `kb`'s store with `QUERY_FILTER_EXACT_LIMIT` set to `limit`.
async fn with_exact_limit(kb: &Kb, limit: usize) -> Engine {
    let mut config = config(SourceIdsLimitMethod::Keep);
    config.query.filter_exact_limit = limit;
    engine_over(kb.store.clone(), config).await
}

fn param(mode: QueryMode, doc_id: &str) -> QueryParam {
    QueryParam {
        mode,
        ll_keywords: vec!["United States".into(), "Congress".into(), "James Madison".into()],
        hl_keywords: vec!["treaty".into(), "navy".into()],
        top_k: Some(20),
        filter: Some(QueryFilter { doc_ids: vec![doc_id.to_string()], ..QueryFilter::default() }),
        ..QueryParam::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_filtered_to_one_document_sees_its_graph_as_a_build_of_it_alone() {
    let docs: Vec<(String, String)> = (0..6).map(document).collect();
    let full = open_at(tempfile::tempdir().unwrap(), "full.sqlite", config(SourceIdsLimitMethod::Keep)).await;
    let ids = insert(&full.engine, &docs).await;
    let alone = open_at(tempfile::tempdir().unwrap(), "alone.sqlite", config(SourceIdsLimitMethod::Keep)).await;
    insert(&alone.engine, &docs[3..4]).await;
    let (name, id) = (&docs[3].0, &ids[3]);
    let hub = full.engine.get_entity("United States").await.unwrap().unwrap();
    assert!(
        hub.source_ids.iter().all(|c| !c.starts_with(id.as_str())),
        "the hub's shown sources are other documents' chunks: {hub:?}"
    );

    for limit in [20_000, 0] {
        let engine = with_exact_limit(&full, limit).await;
        for mode in
            [QueryMode::Local, QueryMode::Global, QueryMode::Hybrid, QueryMode::Mix, QueryMode::Naive, QueryMode::Ppr]
        {
            let data =
                engine.query_data("What did Congress and the United States do?", &param(mode, id)).await.unwrap();
            let got = data.retrieved().unwrap_or_else(|| panic!("{mode} (limit {limit}) found nothing: {data:?}"));
            assert!(!got.chunks.is_empty(), "{mode}: {got:?}");
            for c in &got.chunks {
                assert_eq!(&c.file_path, name, "{mode} limit {limit}");
                assert!(c.chunk_id.starts_with(id.as_str()), "{mode} limit {limit}: {}", c.chunk_id);
            }
            for e in &got.entities {
                let want = alone.engine.get_entity(&e.entity_name).await.unwrap().unwrap_or_else(|| {
                    panic!("{mode} limit {limit}: {} is not in the document's own graph", e.entity_name)
                });
                assert_eq!(e.description, want.description, "{mode} limit {limit}: {}", e.entity_name);
                assert_eq!(e.source_ids, want.source_ids, "{mode} limit {limit}: {}", e.entity_name);
                assert_eq!(e.file_paths, vec![name.clone()], "{mode} limit {limit}");
            }
            for r in &got.relationships {
                let want = alone.engine.get_relation(&r.src_id, &r.tgt_id).await.unwrap().unwrap_or_else(|| {
                    panic!("{mode} limit {limit}: {}-{} is not in the document's own graph", r.src_id, r.tgt_id)
                });
                assert_eq!(r.description, want.description, "{mode} limit {limit}");
                assert_eq!(r.keywords, want.keywords, "{mode} limit {limit}");
                assert!((r.weight - want.weight).abs() < 1e-9, "{mode} limit {limit}");
                assert_eq!(r.source_ids, want.source_ids, "{mode} limit {limit}");
            }
            if mode == QueryMode::Local {
                assert!(
                    got.entities.iter().any(|e| e.entity_name == "United States"),
                    "limit {limit}: the hub is found through the filter: {got:?}"
                );
            }
        }
    }
}
