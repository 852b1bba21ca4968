//! Priorities through the real HTTP client and the scripted server, whose request log (kept in
//! arrival order) shows who was served when:
//! * a query's keyword and answer calls pass a queued backlog of slow extraction calls;
//! * a small document's chunks are extracted alongside a large document's queued ones, not after
//!   all of them;
//! * roles on the same endpoint share one limiter;
//! * an interrupted document is not overtaken by a later one whose extraction is done.
//!
//! Assertions are on the order of requests, never on elapsed time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use lightrag_engine::indexing::pipeline::{
    InsertDoc, NoProgress, PipelineEvent, ProcessOptions, ProgressSink, document_id,
};
use lightrag_engine::providers::gateway::RoleLlm;
use lightrag_engine::retrieval::query::{QueryMode, QueryParam};
use lightrag_engine::{Engine, EngineConfig, EngineParts};
use lightrag_llm_http::{HttpEmbedConfig, HttpLlmConfig, build_embedder, build_llm};
use lightrag_ports::{DocStatus, Llm, UsageRole};
use lightrag_scripted_llm::{Fault, PromptKind, RecordedRequest, ScriptConfig, ScriptedLlm, ScriptedServer};
use lightrag_store_sqlite::SqliteStore;
use lightrag_tokenizer::TiktokenTokenizer;
use tokio_util::sync::CancellationToken;

/// Concurrent calls to the chat model.
const MAX_ASYNC: usize = 2;

fn server() -> ScriptedServer {
    ScriptedLlm::start_blocking(ScriptConfig { record_requests: 100_000, ..ScriptConfig::default() }).unwrap()
}

fn chat_model(server: &ScriptedServer, model: &str) -> Arc<dyn Llm> {
    build_llm(&HttpLlmConfig { host: server.base_url(), model: model.into(), ..HttpLlmConfig::default() }).unwrap()
}

/// Small chunks (many per document), no gleaning (one call per chunk), quick retries.
fn config(parallel_docs: usize) -> EngineConfig {
    let mut config = EngineConfig::default();
    config.chunking.chunk_size = 60;
    config.chunking.chunk_overlap = 0;
    config.extraction.max_gleaning = 0;
    config.llm.max_async = MAX_ASYNC;
    config.llm.retry_base_ms = 10;
    config.llm.enable_cache = false;
    config.pipeline.max_parallel_insert = parallel_docs;
    config
}

async fn engine(
    server: &ScriptedServer,
    config: EngineConfig,
    role_llms: Vec<RoleLlm>,
    dir: &tempfile::TempDir,
) -> Engine {
    let embedder = build_embedder(&HttpEmbedConfig {
        host: server.base_url(),
        model: "scripted".into(),
        dim: 64,
        ..HttpEmbedConfig::default()
    })
    .unwrap();
    Engine::open(EngineParts {
        config,
        store: Arc::new(SqliteStore::open(&dir.path().join("kb.sqlite")).unwrap()),
        llm: Some(chat_model(server, "scripted")),
        role_llms,
        embedder,
        reranker: None,
        tokenizer: Arc::new(TiktokenTokenizer::o200k().unwrap()),
    })
    .await
    .unwrap()
}

/// A text of about `sentences` sentences naming people and places, tagged with `marker` (a word
/// found in every chunk, to tell the documents' requests apart). Every sentence differs, so no
/// two chunks share a cached extraction.
fn text(marker: &str, sentences: usize) -> String {
    let names = ["Alice Moreau", "Bruno Keller", "Chidi Okafor", "Dana Whitfield", "Emil Novak"];
    let places = ["Lisbon", "Toronto", "Nairobi", "Osaka", "Quito"];
    (0..sentences)
        .map(|i| {
            format!(
                "On day {i} {} met {} in {} to discuss the {marker} project. ",
                names[i % names.len()],
                names[(i + 2) % names.len()],
                places[i % places.len()]
            )
        })
        .collect()
}

fn doc(name: &str, content: String) -> InsertDoc {
    InsertDoc { content, file_source: Some(name.into()), ..InsertDoc::default() }
}

async fn index_now(engine: &Engine, docs: Vec<InsertDoc>) {
    engine.enqueue(docs, None).await.unwrap();
    let report =
        engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new()).await.unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
}

fn body_text(request: &RecordedRequest) -> String {
    request.body.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_is_served_before_the_queued_extraction_backlog() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    // ten documents extracted at once, each with MAX_ASYNC chunks in flight: 2 calls run and
    // about 18 wait for the model
    let engine = engine(&server, config(10), Vec::new(), &dir).await;
    index_now(&engine, vec![doc("kb.txt", text("harbour", 6))]).await;

    // slow extraction calls: the query's retrieval step (between its keyword and answer calls)
    // is short next to one of them
    server.set_faults(vec![Fault::delay(300, u32::MAX).on_prompt(PromptKind::Extract)]);
    let backlog: Vec<InsertDoc> =
        (0..10).map(|i| doc(&format!("backlog-{i}.txt"), text(&format!("backlog{i}"), 60))).collect();
    engine.enqueue(backlog, None).await.unwrap();
    let cancel = CancellationToken::new();
    let worker = {
        let (engine, cancel) = (engine.clone(), cancel.clone());
        tokio::spawn(async move { engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &cancel).await })
    };
    // the backlog is real: the model is busy and extraction calls wait
    for _ in 0..2000 {
        if server.calls(PromptKind::Extract) >= 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(server.calls(PromptKind::Extract) >= 6, "the backlog never started");
    let waiting = engine.provider_status().into_iter().find(|(key, _)| key.starts_with("chat ")).unwrap().1;
    assert!(waiting.waiting[&lightrag_engine::providers::limiter::Priority::Extract] >= 8, "{waiting:?}");

    let mark = server.requests().len();
    let param = QueryParam::with_mode(QueryMode::Local);
    let result = engine.query("What did Alice Moreau discuss in Lisbon?", &param).await.unwrap();
    let after = server.requests();
    cancel.cancel();
    worker.await.unwrap().unwrap();

    let log = &after[mark..];
    let position = |kind: PromptKind| log.iter().position(|r| r.prompt == Some(kind));
    let keywords = position(PromptKind::Keywords).expect("a keywords call");
    let answer = position(PromptKind::Answer).expect("an answer call");
    let extractions_before = |end: usize| log[..end].iter().filter(|r| r.prompt == Some(PromptKind::Extract)).count();
    // only calls already given a slot when the query asked may arrive before its keyword call;
    // before its answer call, at most those started while it retrieved (well under one 300 ms
    // call) — not the ~18 queued ones
    assert!(
        extractions_before(keywords) <= MAX_ASYNC,
        "{} extraction calls passed the keyword call",
        extractions_before(keywords)
    );
    assert!(
        extractions_before(answer) - extractions_before(keywords) <= 2 * MAX_ASYNC,
        "{} extraction calls passed the answer call",
        extractions_before(answer) - extractions_before(keywords)
    );
    assert!(result.answer.text().is_some_and(|t| t.starts_with("Answer based on")), "{:?}", result.answer);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_document_is_extracted_alongside_a_large_one() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server, config(2), Vec::new(), &dir).await;
    server.set_faults(vec![Fault::delay(10, u32::MAX).on_prompt(PromptKind::Extract)]);
    // the large document's extraction is under way when the small one arrives
    let large = doc("large.txt", text("glacier", 200));
    let only = |d: &InsertDoc| ProcessOptions { only_ids: vec![document_id(d)], ..ProcessOptions::default() };
    let large_run = {
        let (engine, options) = (engine.clone(), only(&large));
        engine.enqueue(vec![large], None).await.unwrap();
        tokio::spawn(async move { engine.process(&options, Arc::new(NoProgress), &CancellationToken::new()).await })
    };
    for _ in 0..2000 {
        if server.calls(PromptKind::Extract) >= 2 * MAX_ASYNC as u64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mark = server.requests().len();
    let small = doc("small.txt", text("meadow", 12));
    let options = only(&small);
    engine.enqueue(vec![small], None).await.unwrap();
    let report = engine.process(&options, Arc::new(NoProgress), &CancellationToken::new()).await.unwrap();
    assert_eq!(report.processed.len(), 1, "{:?}", report.failed);
    let report = large_run.await.unwrap().unwrap();
    assert_eq!(report.processed.len(), 1, "{:?}", report.failed);

    let extractions: Vec<String> =
        server.requests()[mark..].iter().filter(|r| r.prompt == Some(PromptKind::Extract)).map(body_text).collect();
    let small: Vec<usize> =
        extractions.iter().enumerate().filter(|(_, b)| b.contains("meadow")).map(|(i, _)| i).collect();
    let large = extractions.iter().filter(|b| b.contains("glacier")).count();
    assert!(large > 10 * small.len(), "{large} large chunks, {} small", small.len());
    // the small document's chunks share the model with the large one's queued calls: at most
    // MAX_ASYNC large-document calls come before each of them
    let last = *small.last().unwrap();
    assert!(
        last < small.len() * (MAX_ASYNC + 1) + MAX_ASYNC,
        "the small document's last chunk was extraction call {last} of {} (small chunks at {small:?})",
        extractions.len()
    );
}

#[tokio::test]
async fn roles_on_one_endpoint_share_one_limiter() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let same = RoleLlm {
        roles: vec![UsageRole::Extract, UsageRole::Summary],
        llm: chat_model(&server, "scripted"),
        max_async: 6,
        timeout_secs: 30,
    };
    let other =
        RoleLlm { roles: vec![UsageRole::Keywords], llm: chat_model(&server, "small"), max_async: 3, timeout_secs: 30 };
    let engine = engine(&server, config(1), vec![same, other], &dir).await;
    let chat: Vec<(String, usize)> = engine
        .provider_status()
        .into_iter()
        .filter(|(key, _)| key.starts_with("chat "))
        .map(|(key, status)| (key, status.capacity))
        .collect();
    assert_eq!(chat.len(), 2, "{chat:?}");
    let capacity = |model: &str| chat.iter().find(|(k, _)| k.ends_with(&format!(" {model}"))).map(|(_, c)| *c);
    assert_eq!(capacity("scripted"), Some(6), "the main model and the extraction role: the larger limit");
    assert_eq!(capacity("small"), Some(3));
    assert_eq!(engine.provider_status().iter().filter(|(k, _)| k.starts_with("embed ")).count(), 1);
}

/// Counts extracted chunks per document.
#[derive(Default)]
struct Extracted(std::sync::Mutex<std::collections::HashMap<String, usize>>);

impl ProgressSink for Extracted {
    fn event(&self, event: &PipelineEvent) {
        if let PipelineEvent::ChunkExtracted { doc_id, .. } = event {
            *self.0.lock().unwrap().entry(doc_id.clone()).or_default() += 1;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_document_is_not_overtaken_by_a_later_extracted_one() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server, config(2), Vec::new(), &dir).await;
    server.set_faults(vec![Fault::delay(20, u32::MAX).on_prompt(PromptKind::Extract)]);
    let (first, second) = (doc("first.txt", text("canyon", 150)), doc("second.txt", text("delta", 6)));
    let (first_id, second_id) = (document_id(&first), document_id(&second));
    engine.enqueue(vec![first], None).await.unwrap();
    // claimed in order of enqueueing time
    tokio::time::sleep(Duration::from_millis(5)).await;
    engine.enqueue(vec![second], None).await.unwrap();

    let progress = Arc::new(Extracted::default());
    let cancel = CancellationToken::new();
    let run = {
        let (engine, cancel, progress) = (engine.clone(), cancel.clone(), progress.clone());
        tokio::spawn(async move { engine.process(&ProcessOptions::default(), progress, &cancel).await })
    };
    // the second document is extracted while the first is still under way
    for _ in 0..4000 {
        if progress.0.lock().unwrap().get(&second_id).copied().unwrap_or(0) >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let extracted = progress.0.lock().unwrap().get(&second_id).copied().unwrap_or(0);
    assert!(extracted >= 2, "the second document was extracted while the first ran ({extracted} chunks)");
    // let its embedding finish too, then interrupt (as a shutdown does)
    tokio::time::sleep(Duration::from_millis(200)).await;
    cancel.cancel();
    let report = run.await.unwrap().unwrap();
    assert!(report.processed.is_empty(), "nothing may commit ahead of the interrupted first document: {report:?}");
    for id in [&first_id, &second_id] {
        let status = engine.document_status(id).await.unwrap().unwrap().status;
        assert_eq!(status, DocStatus::Pending, "{id} resumes at the next run");
    }

    let report =
        engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new()).await.unwrap();
    assert_eq!(report.processed, vec![first_id, second_id], "committed in claim order");
}
