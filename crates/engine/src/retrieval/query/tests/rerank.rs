//! Chunk reranking in the query pipeline: reorder by the service's scores, `MIN_RERANK_SCORE`,
//! `enable_rerank` / `RERANK_BY_DEFAULT`, and the fallback to retrieval order on failure.

use lightrag_ports::{RerankError, RerankHit, Reranker, UsageRole};

use super::*;

/// Scores by marker words: Ishmael 0.9, Pequod 0.6, Ahab 0.3, anything else 0.05.
struct Markers {
    calls: Mutex<Vec<Option<usize>>>,
}

#[async_trait]
impl Reranker for Markers {
    fn identity(&self) -> String {
        "test:markers".into()
    }
    async fn rerank(
        &self,
        _query: &str,
        documents: &[String],
        top_n: Option<usize>,
    ) -> Result<Vec<RerankHit>, RerankError> {
        self.calls.lock().unwrap().push(top_n);
        let score = |d: &str| {
            if d.contains("Ishmael") {
                0.9
            } else if d.contains("Pequod") {
                0.6
            } else if d.contains("Ahab") {
                0.3
            } else {
                0.05
            }
        };
        let hits: Vec<RerankHit> =
            documents.iter().enumerate().map(|(index, d)| RerankHit { index, relevance_score: score(d) }).collect();
        Ok(lightrag_ports::clean_hits(hits, documents.len(), top_n).0)
    }
}

struct Broken;

#[async_trait]
impl Reranker for Broken {
    fn identity(&self) -> String {
        "test:broken".into()
    }
    async fn rerank(&self, _: &str, _: &[String], _: Option<usize>) -> Result<Vec<RerankHit>, RerankError> {
        Err(RerankError::Client { status: 401, body: "bad key".into() })
    }
}

fn chunk_ids(data: &QueryData) -> Vec<String> {
    match &data.data {
        DataSection::Retrieved(r) => r.chunks.iter().map(|c| c.chunk_id.clone()).collect(),
        _ => Vec::new(),
    }
}

async fn with_markers(config: EngineConfig) -> (Fixture, Arc<Markers>) {
    let markers = Arc::new(Markers { calls: Mutex::new(Vec::new()) });
    let f = fixture_with(corpus(), None, config, Some(markers.clone() as Arc<dyn Reranker>)).await;
    (f, markers)
}

#[tokio::test]
async fn chunks_are_reordered_by_the_rerank_scores() {
    let (f, markers) = with_markers(EngineConfig::default()).await;
    let param = QueryParam { chunk_top_k: Some(3), ..QueryParam::with_mode(QueryMode::Naive) };
    let unranked = QueryParam { enable_rerank: Some(false), ..param.clone() };
    let retrieved = chunk_ids(&f.engine.query_data("Ahab Pequod Ishmael pasta", &unranked).await.unwrap());
    assert_eq!(retrieved, vec!["c3", "c4", "c1"], "vector order");
    let data = f.engine.query_data("Ahab Pequod Ishmael pasta", &param).await.unwrap();
    assert_eq!(chunk_ids(&data), vec!["c3", "c1", "c4"], "Ishmael (0.9), Pequod (0.6), pasta (0.05)");
    assert_eq!(*markers.calls.lock().unwrap(), vec![Some(3)], "top_n is chunk_top_k");
    assert_eq!(f.engine.session_usage().get(&UsageRole::Rerank).map(|c| c.calls), Some(1));
    // graph modes rerank every merged chunk, then keep chunk_top_k
    let param = QueryParam { chunk_top_k: Some(2), hl_keywords: vec!["voyage".into()], ..low(&["Ahab"]) };
    let data = f.engine.query_data("Who is Ahab?", &param).await.unwrap();
    let ids = chunk_ids(&data);
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], "c3", "{ids:?}");
}

#[tokio::test]
async fn min_rerank_score_drops_low_scoring_chunks() {
    let mut config = EngineConfig::default();
    config.query.min_rerank_score = 0.5;
    let (f, _) = with_markers(config).await;
    let param = QueryParam { chunk_top_k: Some(4), ..QueryParam::with_mode(QueryMode::Naive) };
    let data = f.engine.query_data("Ahab Pequod Ishmael pasta", &param).await.unwrap();
    assert_eq!(chunk_ids(&data), vec!["c3", "c1"], "Ahab (0.3) and pasta (0.05) are below 0.5");
}

#[tokio::test]
async fn enable_rerank_and_rerank_by_default_decide() {
    let (f, markers) = with_markers(EngineConfig::default()).await;
    let naive = QueryParam { chunk_top_k: Some(3), ..QueryParam::with_mode(QueryMode::Naive) };
    let plain = f
        .engine
        .query_data("Ahab Pequod Ishmael", &QueryParam { enable_rerank: Some(false), ..naive.clone() })
        .await
        .unwrap();
    assert!(markers.calls.lock().unwrap().is_empty(), "enable_rerank=false: no call");
    let mut config = EngineConfig::default();
    config.query.rerank_by_default = false;
    let (g, markers) = with_markers(config).await;
    let default_off = g.engine.query_data("Ahab Pequod Ishmael", &naive).await.unwrap();
    assert_eq!(chunk_ids(&default_off), chunk_ids(&plain));
    assert!(markers.calls.lock().unwrap().is_empty(), "RERANK_BY_DEFAULT=false: no call");
    g.engine.query_data("Ahab Pequod Ishmael", &QueryParam { enable_rerank: Some(true), ..naive }).await.unwrap();
    assert_eq!(markers.calls.lock().unwrap().len(), 1, "the query's enable_rerank wins");
}

#[tokio::test]
async fn a_failing_reranker_keeps_the_retrieval_order() {
    let f = fixture(corpus(), None, EngineConfig::default()).await;
    let param = QueryParam { chunk_top_k: Some(3), ..QueryParam::with_mode(QueryMode::Naive) };
    let expected = chunk_ids(&f.engine.query_data("Ahab Pequod Ishmael", &param).await.unwrap());
    let broken =
        fixture_with(corpus(), None, EngineConfig::default(), Some(Arc::new(Broken) as Arc<dyn Reranker>)).await;
    let data = broken.engine.query_data("Ahab Pequod Ishmael", &param).await.unwrap();
    assert_eq!(chunk_ids(&data), expected);
    // without a service, asking for reranking changes nothing either
    let asked = QueryParam { enable_rerank: Some(true), ..param };
    assert_eq!(chunk_ids(&f.engine.query_data("Ahab Pequod Ishmael", &asked).await.unwrap()), expected);
}
