//! A merge keeps the stored vector of an entity or relation whose new text the embedder would see
//! identically (`Embedder::same_input`, e.g. a description grown past the model's token limit)
//! instead of embedding it again — and the vectors end up exactly as if everything had been
//! re-embedded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use lightrag_engine::config::ExtractionMethod;
use lightrag_engine::indexing::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use lightrag_engine::{Engine, EngineConfig, EngineParts};
use lightrag_ports::prelude::*;
use lightrag_ports::{EmbedError, Embedder, EmbeddingIdentity, TextKind, VectorKind};
use lightrag_store_sqlite::SqliteStore;
use lightrag_tokenizer::TiktokenTokenizer;
use tokio_util::sync::CancellationToken;

const DIM: usize = 16;
/// The toy model reads only this many characters, like a model with a token limit.
const LIMIT: usize = 24;

/// Hashes the first [`LIMIT`] characters; records every text it embeds, with the kind the
/// engine said it was (`None`: asked through `embed`, without a kind).
struct Truncating {
    reuse: bool,
    seen: Mutex<Vec<String>>,
    kinds: Mutex<Vec<(Option<TextKind>, String)>>,
    compared: Mutex<Vec<TextKind>>,
}

fn visible(text: &str) -> String {
    text.chars().take(LIMIT).collect()
}

fn hash_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIM];
    for (i, b) in visible(text).bytes().enumerate() {
        v[(b as usize + i) % DIM] += 1.0;
    }
    v
}

#[async_trait]
impl Embedder for Truncating {
    fn identity(&self) -> EmbeddingIdentity {
        EmbeddingIdentity { model: "truncating".into(), dim: DIM }
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.kinds.lock().unwrap().extend(texts.iter().map(|t| (None, t.clone())));
        self.seen.lock().unwrap().extend(texts.iter().cloned());
        Ok(texts.iter().map(|t| hash_vector(t)).collect())
    }
    async fn embed_as(&self, texts: &[String], kind: TextKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.kinds.lock().unwrap().extend(texts.iter().map(|t| (Some(kind), t.clone())));
        self.seen.lock().unwrap().extend(texts.iter().cloned());
        Ok(texts.iter().map(|t| hash_vector(t)).collect())
    }
    fn same_input(&self, kind: TextKind, a: &str, b: &str) -> bool {
        self.compared.lock().unwrap().push(kind);
        if self.reuse { visible(a) == visible(b) } else { a == b }
    }
}

const DOCS: [(&str, &str); 3] = [
    ("a.txt", "Captain Ahab commanded the Pequod out of Nantucket. Starbuck served Captain Ahab as first mate."),
    ("b.txt", "Captain Ahab hunted the white whale across the Pacific. Ishmael watched Captain Ahab on deck."),
    ("c.txt", "Captain Ahab lost his leg to Moby Dick. Starbuck argued with Captain Ahab about the hunt."),
];

/// Indexes the documents one at a time; returns the store and the embedder.
async fn build(reuse: bool, dir: &tempfile::TempDir) -> (Arc<SqliteStore>, Arc<Truncating>, Engine) {
    let store = Arc::new(SqliteStore::open(&dir.path().join("kb.sqlite")).unwrap());
    let embedder = Arc::new(Truncating {
        reuse,
        seen: Mutex::new(Vec::new()),
        kinds: Mutex::new(Vec::new()),
        compared: Mutex::new(Vec::new()),
    });
    let mut config = EngineConfig::default();
    config.extraction.method = ExtractionMethod::Nlp;
    let engine = Engine::open(EngineParts {
        config,
        store: store.clone(),
        llm: None,
        role_llms: Vec::new(),
        embedder: embedder.clone(),
        reranker: None,
        tokenizer: Arc::new(TiktokenTokenizer::o200k().unwrap()),
    })
    .await
    .unwrap();
    for (file, text) in DOCS {
        let doc = InsertDoc { content: text.into(), file_source: Some(file.into()), ..Default::default() };
        engine.enqueue(vec![doc], None).await.unwrap();
        let report =
            engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new()).await.unwrap();
        assert_eq!(report.processed.len(), 1, "{report:?}");
    }
    (store, embedder, engine)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grown_descriptions_the_model_cannot_see_keep_their_vectors() {
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (reused, reusing, _e1) = build(true, &dir_a).await;
    let (fresh, embedding_all, _e2) = build(false, &dir_b).await;

    // the same graph, and every entity vector equal to a fresh embedding of its final text
    let names = lightrag_ports::paging::all_entity_names(&*reused).await.unwrap();
    assert_eq!(names, lightrag_ports::paging::all_entity_names(&*fresh).await.unwrap());
    assert!(names.iter().any(|n| n == "Captain Ahab"), "{names:?}");
    let a = reused.get_vectors(VectorKind::Entity, &names).await.unwrap();
    let b = fresh.get_vectors(VectorKind::Entity, &names).await.unwrap();
    assert_eq!(a, b, "reused vectors equal re-embedded ones");
    let ahab = reused.get_entities(&["Captain Ahab".to_string()]).await.unwrap().pop().flatten().unwrap();
    assert!(ahab.description.contains("Moby Dick"), "the description grew: {}", ahab.description);

    // Captain Ahab's text was embedded once with reuse (first document), three times without
    let count = |e: &Truncating| e.seen.lock().unwrap().iter().filter(|t| t.starts_with("Captain Ahab\n")).count();
    assert_eq!(count(&embedding_all), 3);
    assert_eq!(count(&reusing), 1);
    assert!(reusing.seen.lock().unwrap().len() < embedding_all.seen.lock().unwrap().len());
}

/// The engine tells the embedder what it embeds: chunk texts as passages (the only texts
/// `LOCAL_EMBEDDING_LONG_TEXT=pool` pools), entity and relation texts as descriptions, the query
/// and its keywords as queries; the reuse check of a grown description asks about descriptions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunks_are_embedded_as_passages_and_descriptions_are_not() {
    use lightrag_engine::retrieval::query::{QueryMode, QueryParam};

    let dir = tempfile::tempdir().unwrap();
    let (store, embedder, engine) = build(true, &dir).await;
    let kinds = embedder.kinds.lock().unwrap().clone();
    assert!(kinds.iter().all(|(k, _)| k.is_some()), "every call says what it embeds: {kinds:?}");
    let kind_of =
        |text: &str| -> Vec<Option<TextKind>> { kinds.iter().filter(|(_, t)| t == text).map(|(k, _)| *k).collect() };
    // each short document is one chunk whose text is the document's
    for (_, text) in DOCS {
        assert_eq!(kind_of(text), vec![Some(TextKind::Passage)], "{text}");
    }
    let passages = kinds.iter().filter(|(k, _)| *k == Some(TextKind::Passage)).count();
    assert_eq!(passages, DOCS.len(), "only chunks are passages: {kinds:?}");
    let entity_texts = kinds.iter().filter(|(_, t)| t.starts_with("Captain Ahab\n")).count();
    assert!(entity_texts >= 1, "{kinds:?}");
    let names = lightrag_ports::paging::all_entity_names(&*store).await.unwrap();
    for (kind, text) in &kinds {
        if *kind != Some(TextKind::Passage) {
            assert_eq!(*kind, Some(TextKind::Description), "{text}");
            assert!(names.iter().any(|n| text.contains(n.as_str())), "an entity or relation text: {text}");
        }
    }
    let compared = embedder.compared.lock().unwrap().clone();
    assert!(!compared.is_empty(), "Captain Ahab's grown description was checked for reuse");
    assert!(compared.iter().all(|k| *k == TextKind::Description), "{compared:?}");

    // a naive query embeds the question as a query
    embedder.kinds.lock().unwrap().clear();
    let question = "Who commanded the Pequod?";
    engine.query(question, &QueryParam::with_mode(QueryMode::Naive)).await.unwrap();
    let asked = embedder.kinds.lock().unwrap().clone();
    assert_eq!(asked, vec![(Some(TextKind::Query), question.to_string())]);
}
