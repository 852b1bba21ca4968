//! Every embedding binding's answer passes one check in the provider gateway: a vector holding
//! NaN, infinite values or only zeros is refused, whichever way the engine embeds (a chunk, an
//! entity or relation text, a query), so nothing unusable reaches the store or a search.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use async_trait::async_trait;
use lightrag_engine::config::ExtractionMethod;
use lightrag_engine::indexing::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use lightrag_engine::retrieval::query::{QueryMode, QueryParam};
use lightrag_engine::{Engine, EngineConfig, EngineParts};
use lightrag_ports::prelude::*;
use lightrag_ports::{EmbedError, Embedder, EmbeddingIdentity, TextKind, VectorKind};
use lightrag_store_sqlite::SqliteStore;
use lightrag_tokenizer::TiktokenTokenizer;
use tokio_util::sync::CancellationToken;

const DIM: usize = 8;

/// Hashes a text's bytes, except that a text naming the Kraken gets NaN, the Leviathan an
/// infinite component, and the Void only zeros.
struct Broken;

fn vector_of(text: &str) -> Vec<f32> {
    let lower = text.to_lowercase();
    let mut v = vec![0.5f32; DIM];
    for (i, b) in text.bytes().enumerate() {
        v[(b as usize + i) % DIM] += 1.0;
    }
    if lower.contains("kraken") {
        v[3] = f32::NAN;
    } else if lower.contains("leviathan") {
        v[0] = f32::INFINITY;
    } else if lower.contains("void") {
        v.fill(0.0);
    }
    v
}

#[async_trait]
impl Embedder for Broken {
    fn identity(&self) -> EmbeddingIdentity {
        EmbeddingIdentity { model: "broken".into(), dim: DIM }
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| vector_of(t)).collect())
    }
}

async fn engine(dir: &tempfile::TempDir) -> (Arc<SqliteStore>, Engine) {
    let store = Arc::new(SqliteStore::open(&dir.path().join("kb.sqlite")).unwrap());
    let mut config = EngineConfig::default();
    config.extraction.method = ExtractionMethod::Nlp;
    let engine = Engine::open(EngineParts {
        config,
        store: store.clone(),
        llm: None,
        role_llms: Vec::new(),
        embedder: Arc::new(Broken),
        reranker: None,
        tokenizer: Arc::new(TiktokenTokenizer::o200k().unwrap()),
    })
    .await
    .unwrap();
    (store, engine)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedder_answering_nan_infinite_or_zero_vectors_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (store, engine) = engine(&dir).await;

    for (text, flaw) in [
        ("the Kraken rose", "NaN or infinite values"),
        ("a Leviathan sank", "NaN or infinite values"),
        ("into the void", "only zeros"),
    ] {
        for kind in [TextKind::Passage, TextKind::Description, TextKind::Query] {
            let texts = vec!["a calm sea".to_string(), text.to_string()];
            let err = engine.embed(&texts, kind).await.unwrap_err().to_string();
            assert!(err.contains(flaw) && err.contains("text 2 of 2"), "{text} as {kind:?}: {err}");
        }
    }
    assert_eq!(engine.embed(&["a calm sea".to_string()], TextKind::Query).await.unwrap().len(), 1);

    // a document whose chunk or whose entity's text embeds to NaN fails, and writes no vector
    let docs = [
        ("calm.txt", "Captain Ahab commanded the Pequod out of Nantucket."),
        ("kraken.txt", "The Kraken attacked the Pequod near Nantucket at night."),
    ];
    for (file, text) in docs {
        let doc = InsertDoc { content: text.into(), file_source: Some(file.into()), ..Default::default() };
        engine.enqueue(vec![doc], None).await.unwrap();
    }
    let report =
        engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new()).await.unwrap();
    assert_eq!(report.processed.len(), 1, "{report:?}");
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert!(report.failed[0].1.contains("NaN or infinite values"), "{report:?}");
    for kind in [VectorKind::Chunk, VectorKind::Entity, VectorKind::Relation] {
        let page = store.vector_keys_page(kind, None, 1000).await.unwrap();
        assert!(page.iter().all(|v| v.flaw.is_none()), "{kind:?}: {page:?}");
    }
    assert!(engine.check().await.unwrap().is_clean());

    // a question that embeds to NaN is refused, not answered with NaN-ranked records
    let err = engine.query_data("What of the Kraken?", &QueryParam::with_mode(QueryMode::Naive)).await;
    let err = err.map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("NaN or infinite values"), "{err}");
    let data = engine.query_data("Who commanded the Pequod?", &QueryParam::with_mode(QueryMode::Naive)).await.unwrap();
    let found = serde_json::to_value(&data).unwrap();
    assert!(!found["data"]["chunks"].as_array().unwrap().is_empty(), "{found}");
}
