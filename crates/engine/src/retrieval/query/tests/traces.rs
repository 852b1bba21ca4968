//! The query trace: records in `data` order with scores and origins, usage per query, timings.

use std::collections::BTreeMap;
use std::time::Duration;

use lightrag_ports::{UsageCounters, UsageRole};

use super::*;
use crate::retrieval::query::chunks::cosine;

/// Delays every answer of the wrapped fake LLM, so concurrent queries overlap.
struct Slow(FakeLlm);

#[async_trait]
impl Llm for Slow {
    fn identity(&self) -> String {
        self.0.identity()
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        self.0.chat(request).await
    }
}

async fn engine_with(llm: Arc<dyn Llm>) -> (Engine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("store.db")).unwrap());
    store.check_embedding_identity(&BagOfWords.identity()).await.unwrap();
    store.apply(corpus()).await.unwrap();
    let engine = Engine::open(EngineParts {
        config: EngineConfig::default(),
        store,
        llm: Some(llm),
        role_llms: Vec::new(),
        embedder: Arc::new(BagOfWords),
        reranker: None,
        tokenizer: Arc::new(TiktokenTokenizer::o200k().unwrap()),
    })
    .await
    .unwrap();
    (engine, dir)
}

fn keywords_llm() -> FakeLlm {
    FakeLlm {
        keywords_json: "{\"high_level_keywords\": [\"voyage\"], \"low_level_keywords\": [\"Ahab captain\"]}".into(),
        ..FakeLlm::default()
    }
}

/// The text an entity's vector was made from (as in `corpus`).
fn entity_vector_text(name: &str) -> String {
    let e = corpus().entities.into_iter().find(|e| e.name == name).unwrap();
    crate::indexing::merge::entity_vector_content(&e.name, &e.description)
}

fn relation_vector_text(key: &RelKey) -> String {
    let r = corpus().relations.into_iter().find(|r| &r.key == key).unwrap();
    crate::indexing::merge::relation_vector_content(&r.key, &r.keywords, &r.description)
}

fn chunk_text(id: &str) -> String {
    corpus().chunks.into_iter().find(|c| c.id == id).unwrap().content
}

fn assert_close(actual: f32, expected: f32, what: &str) {
    assert!((actual - expected).abs() < 1e-5, "{what}: score {actual}, expected {expected}");
}

fn non_increasing(scores: &[f32]) -> bool {
    scores.windows(2).all(|w| w[0] >= w[1])
}

#[tokio::test]
async fn the_trace_lists_exactly_the_records_of_data_with_scores_and_origins() {
    let f = fixture(corpus(), None, EngineConfig::default()).await;
    let param = QueryParam { mode: QueryMode::Mix, hl_keywords: vec!["voyage".into()], ..low(&["Ahab captain"]) };
    let question = "Who is the captain of the Pequod?";
    let result = f.engine.query(question, &param).await.unwrap();
    let data = result.data.retrieved().unwrap();
    let trace = &result.trace;

    let names: Vec<&str> = data.entities.iter().map(|e| e.entity_name.as_str()).collect();
    let traced: Vec<&str> = trace.entities.iter().map(|e| e.entity_name.as_str()).collect();
    assert_eq!(traced, names);
    let pairs: Vec<(&str, &str)> = data.relationships.iter().map(|r| (r.src_id.as_str(), r.tgt_id.as_str())).collect();
    let traced: Vec<(&str, &str)> =
        trace.relationships.iter().map(|r| (r.src_id.as_str(), r.tgt_id.as_str())).collect();
    assert_eq!(traced, pairs);
    let ids: Vec<&str> = data.chunks.iter().map(|c| c.chunk_id.as_str()).collect();
    let traced: Vec<&str> = trace.chunks.iter().map(|c| c.chunk_id.as_str()).collect();
    assert_eq!(traced, ids);
    assert!(trace.entities.iter().enumerate().all(|(i, e)| e.rank == i));
    assert!(trace.relationships.iter().enumerate().all(|(i, r)| r.rank == i));
    assert!(trace.chunks.iter().enumerate().all(|(i, c)| c.rank == i));

    // entity hits: the similarity of the low-level keywords to the entity's vector text
    let low_vector = bow("Ahab captain");
    let mut hit_scores = Vec::new();
    for e in &trace.entities {
        match e.origin {
            GraphOrigin::Vector => {
                let score = e.score.unwrap();
                assert!(score > 0.0 && score <= 1.0, "{e:?}");
                assert_close(score, cosine(&low_vector, &bow(&entity_vector_text(&e.entity_name))), &e.entity_name);
                hit_scores.push(score);
            }
            GraphOrigin::Graph => assert_eq!(e.score, None, "{e:?}"),
        }
    }
    assert_eq!(trace.entities[0].entity_name, "Ahab");
    assert_eq!(trace.entities[0].origin, GraphOrigin::Vector);
    assert!(non_increasing(&hit_scores), "{hit_scores:?}");
    // Ishmael is only an endpoint of the "voyage" relation hit
    let ishmael = trace.entities.iter().find(|e| e.entity_name == "Ishmael").unwrap();
    assert_eq!((ishmael.origin, ishmael.score), (GraphOrigin::Graph, None));

    // relation hits: the similarity of the high-level keywords; Ahab's edges come from the graph
    let high_vector = bow("voyage");
    for r in &trace.relationships {
        let key = RelKey::new(&r.src_id, &r.tgt_id);
        match r.origin {
            GraphOrigin::Vector => {
                let score = r.score.unwrap();
                assert!(score > 0.0 && score <= 1.0, "{r:?}");
                assert_close(score, cosine(&high_vector, &bow(&relation_vector_text(&key))), &key.to_string());
            }
            GraphOrigin::Graph => assert_eq!(r.score, None, "{r:?}"),
        }
    }
    let voyage = trace.relationships.iter().find(|r| r.src_id == "Ishmael" || r.tgt_id == "Ishmael").unwrap();
    assert_eq!(voyage.origin, GraphOrigin::Vector);
    let command = trace.relationships.iter().find(|r| r.tgt_id == "Pequod" && r.src_id == "Ahab").unwrap();
    assert_eq!((command.origin, command.score), (GraphOrigin::Graph, None));

    // chunks: the question's similarity for chunk hits (mix), null for provenance picks
    let question_vector = bow(question);
    let mut chunk_scores = Vec::new();
    for c in &trace.chunks {
        match c.origin {
            ChunkOrigin::Vector => {
                let score = c.score.unwrap();
                assert_close(score, cosine(&question_vector, &bow(&chunk_text(&c.chunk_id))), &c.chunk_id);
                chunk_scores.push(score);
            }
            ChunkOrigin::Entity | ChunkOrigin::Relation => assert_eq!(c.score, None, "{c:?}"),
        }
    }
    assert!(!chunk_scores.is_empty(), "{:?}", trace.chunks);
    assert!(non_increasing(&chunk_scores), "{chunk_scores:?}");

    // without an LLM: no keyword or answer call, one batched embedding call
    assert_eq!(trace.usage.keywords, UsageCounters::default());
    assert_eq!(trace.usage.answer, Some(UsageCounters::default()));
    assert_eq!(trace.usage.embed.calls, 1);
    assert_eq!(trace.usage.total, trace.usage.embed);
    assert_eq!(trace.timings_ms.answer, None, "the context was returned, no answer call");
    assert!(trace.timings_ms.total >= trace.timings_ms.keywords + trace.timings_ms.retrieval);
}

#[tokio::test]
async fn local_mode_entity_hits_keep_the_search_order_and_chunks_come_from_provenance() {
    let f = fixture(corpus(), None, EngineConfig::default()).await;
    let param = QueryParam { mode: QueryMode::Local, ..low(&["Ahab Pequod whale"]) };
    let traced = f.engine.query_data_traced("Who is Ahab?", &param).await.unwrap();
    let trace = &traced.trace;
    assert_eq!(trace.entities.len(), traced.data.retrieved().unwrap().entities.len());
    let scores: Vec<f32> = trace.entities.iter().filter_map(|e| e.score).collect();
    assert!(scores.len() >= 2, "{trace:?}");
    assert!(non_increasing(&scores), "{scores:?}");
    // local mode: every relation is an edge of an entity hit, every chunk a provenance pick
    assert!(trace.relationships.iter().all(|r| r.origin == GraphOrigin::Graph && r.score.is_none()));
    assert!(!trace.chunks.is_empty());
    assert!(trace.chunks.iter().all(|c| c.origin != ChunkOrigin::Vector && c.score.is_none()), "{trace:?}");
    assert!(trace.chunks.iter().any(|c| c.origin == ChunkOrigin::Entity), "{trace:?}");
    // retrieval only: no answer part in the usage or the timings
    assert_eq!(trace.usage.answer, None);
    assert_eq!(trace.timings_ms.answer, None);
    let json = serde_json::to_value(trace).unwrap();
    assert!(json["usage"].get("answer").is_none(), "{json}");
    assert_eq!(json["entities"][0]["origin"], "vector");
}

#[tokio::test]
async fn naive_mode_traces_only_chunks_all_with_scores() {
    let f = fixture(corpus(), None, EngineConfig::default()).await;
    let question = "Ahab hunts the white whale";
    let result = f.engine.query(question, &QueryParam::with_mode(QueryMode::Naive)).await.unwrap();
    let data = result.data.retrieved().unwrap();
    let trace = &result.trace;
    assert!(trace.entities.is_empty() && trace.relationships.is_empty());
    let ids: Vec<&str> = data.chunks.iter().map(|c| c.chunk_id.as_str()).collect();
    let traced: Vec<&str> = trace.chunks.iter().map(|c| c.chunk_id.as_str()).collect();
    assert_eq!(traced, ids);
    let q = bow(question);
    for c in &trace.chunks {
        assert_eq!(c.origin, ChunkOrigin::Vector);
        let score = c.score.unwrap();
        assert!(score > 0.0 && score <= 1.0);
        assert_close(score, cosine(&q, &bow(&chunk_text(&c.chunk_id))), &c.chunk_id);
    }
    let scores: Vec<f32> = trace.chunks.iter().filter_map(|c| c.score).collect();
    assert!(non_increasing(&scores), "{scores:?}");
    assert_eq!(trace.timings_ms.keywords, 0);
    assert_eq!(trace.usage.embed.calls, 1);
}

#[tokio::test]
async fn usage_counts_the_keyword_call_then_the_cache_hit() {
    let f = fixture(corpus(), Some(keywords_llm()), EngineConfig::default()).await;
    let param = QueryParam::with_mode(QueryMode::Hybrid);
    let first = f.engine.query("Who commands the ship?", &param).await.unwrap();
    assert_eq!(first.answer.text(), Some("The answer."));
    let usage = first.trace.usage;
    assert_eq!((usage.keywords.calls, usage.keywords.cache_hits), (1, 0));
    assert!(usage.keywords.tokens_in > 0 && usage.keywords.tokens_out > 0, "{usage:?}");
    let answer = usage.answer.unwrap();
    assert_eq!((answer.calls, answer.cache_hits), (1, 0));
    assert!(answer.tokens_in > usage.keywords.tokens_in, "the answer prompt carries the context: {usage:?}");
    assert_eq!(usage.embed.calls, 1);
    assert_eq!(usage.total.calls, 3);
    assert_eq!(usage.total.tokens_in, usage.keywords.tokens_in + answer.tokens_in + usage.embed.tokens_in);
    assert!(first.trace.timings_ms.answer.is_some());

    let second = f.engine.query("Who commands the ship?", &param).await.unwrap();
    let usage = second.trace.usage;
    assert_eq!((usage.keywords.calls, usage.keywords.cache_hits), (0, 1));
    assert_eq!((usage.keywords.tokens_in, usage.keywords.tokens_out), (0, 0));
    assert_eq!(usage.answer.map(|a| (a.calls, a.cache_hits)), Some((0, 1)));
    assert_eq!(f.llm.as_ref().unwrap().requests.lock().unwrap().len(), 2, "both answered from the cache");
    // the same records, in the same order
    assert_eq!(second.trace.entities, first.trace.entities);
    assert_eq!(second.trace.chunks, first.trace.chunks);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_queries_do_not_see_each_others_usage() {
    let (engine, _dir) = engine_with(Arc::new(Slow(keywords_llm()))).await;
    let engine = Arc::new(engine);
    // even: LLM keywords and an answer; odd: given keywords and the context only (no LLM call)
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let engine = engine.clone();
            tokio::spawn(async move {
                let param = if i % 2 == 0 {
                    QueryParam::with_mode(QueryMode::Mix)
                } else {
                    QueryParam { only_need_context: true, ..low(&["Moby Dick"]) }
                };
                (i, engine.query(&format!("Question number {i} about the whale?"), &param).await.unwrap().trace)
            })
        })
        .collect();
    let mut sum: BTreeMap<UsageRole, UsageCounters> = BTreeMap::new();
    for task in tasks {
        let (i, trace) = task.await.unwrap();
        let usage = trace.usage;
        let answer = usage.answer.unwrap();
        if i % 2 == 0 {
            assert_eq!(usage.keywords.calls + usage.keywords.cache_hits, 1, "query {i}: {usage:?}");
            assert_eq!(answer.calls, 1, "query {i}: {usage:?}");
        } else {
            assert_eq!(usage.keywords, UsageCounters::default(), "query {i}: {usage:?}");
            assert_eq!(answer, UsageCounters::default(), "query {i}: {usage:?}");
        }
        assert_eq!(usage.embed.calls, 1, "query {i}: {usage:?}");
        for (role, counters) in [(UsageRole::Keywords, usage.keywords), (UsageRole::Answer, answer)] {
            sum.entry(role).or_default().add(&counters);
        }
        sum.entry(UsageRole::Embed).or_default().add(&usage.embed);
    }
    // the per-query usages add up to the engine's ledger: nothing lost, nothing counted twice
    let session = engine.session_usage();
    for role in [UsageRole::Keywords, UsageRole::Answer, UsageRole::Embed] {
        assert_eq!(sum.get(&role), session.get(&role), "{role:?}");
    }
}

#[tokio::test]
async fn a_streamed_answer_is_counted_when_the_stream_ends() {
    let f = fixture(corpus(), Some(keywords_llm()), EngineConfig::default()).await;
    let param = QueryParam { stream: true, ..QueryParam::with_mode(QueryMode::Local) };
    let QueryResult { answer, trace, finisher, .. } = f.engine.query("Who is Ahab?", &param).await.unwrap();
    let Answer::Stream(mut stream) = answer else { panic!("expected a stream") };
    let mut text = String::new();
    while let Some(delta) = stream.next().await {
        text.push_str(&delta.unwrap());
    }
    assert_eq!(text, "The answer.");
    assert_eq!(trace.usage.keywords.calls, 1);
    let finished = finisher.finish(trace.clone());
    let answer = finished.usage.answer.unwrap();
    assert_eq!(answer.calls, 1);
    assert_eq!(answer.tokens_out, f.engine.count_tokens("The answer.") as u64);
    assert_eq!(finished.usage.total.calls, 3);
    assert_eq!(finished.entities, trace.entities);
    assert!(finished.timings_ms.answer.is_some());
    assert!(finished.timings_ms.total >= trace.timings_ms.total);
}

#[tokio::test]
async fn bypass_traces_no_records_and_the_answer_call() {
    let f = fixture(corpus(), Some(FakeLlm::default()), EngineConfig::default()).await;
    let result = f.engine.query("Hello there", &QueryParam::with_mode(QueryMode::Bypass)).await.unwrap();
    let trace = &result.trace;
    assert!(trace.entities.is_empty() && trace.relationships.is_empty() && trace.chunks.is_empty());
    assert_eq!(trace.usage.answer.map(|a| a.calls), Some(1));
    assert_eq!(trace.usage.keywords, UsageCounters::default());
    assert_eq!(trace.usage.embed, UsageCounters::default());
    assert!(trace.timings_ms.answer.is_some());
    let data = f.engine.query_data_traced("Hello there", &QueryParam::with_mode(QueryMode::Bypass)).await.unwrap();
    assert_eq!(data.trace.usage, QueryUsage::default());
}

#[tokio::test]
async fn a_failed_retrieval_has_an_empty_trace_with_its_usage() {
    let llm = FakeLlm { keywords_json: "not json at all".into(), ..Default::default() };
    let f = fixture(corpus(), Some(llm), EngineConfig::default()).await;
    let question = "Please could you tell me something, anything at all, about this whole thing?";
    let result = f.engine.query(question, &QueryParam::default()).await.unwrap();
    assert!(matches!(result.answer, Answer::NoContext(_)));
    let trace = &result.trace;
    assert!(trace.entities.is_empty() && trace.relationships.is_empty() && trace.chunks.is_empty());
    assert_eq!(trace.usage.keywords.calls, 1);
    assert_eq!(trace.usage.answer, Some(UsageCounters::default()));
    assert_eq!(trace.timings_ms.answer, None);
}
