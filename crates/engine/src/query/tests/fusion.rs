//! Reciprocal-rank fusion in the LightRAG modes (`chunk_fusion`) and the `auto` mode's choice.

use super::*;
use crate::config::ChunkFusion;
use crate::query::result::Metadata;

fn chunk_ids(data: &QueryData) -> Vec<String> {
    data.retrieved().map(|r| r.chunks.iter().map(|c| c.chunk_id.clone()).collect()).unwrap_or_default()
}

fn metadata(data: &QueryData) -> &RetrievalMetadata {
    match &data.metadata {
        Metadata::Retrieval(m) => m,
        other => panic!("expected a retrieval, got {other:?}"),
    }
}

/// Vector search that finds nothing below 0.5: only the graph and lexical channels bring chunks.
fn strict_config() -> EngineConfig {
    let mut config = EngineConfig::default();
    config.query.cosine_threshold = 0.5;
    config
}

#[tokio::test]
async fn rrf_adds_the_lexical_channel_to_mix_and_round_robin_stays_lightrags() {
    let f = fixture(corpus(), None, strict_config()).await;
    let question = "Tell us about Pasta";
    // the entity "Ishmael" (low-level keyword) brings c3; the question's vector finds no chunk
    let round_robin = QueryParam { mode: QueryMode::Mix, ..low(&["Ishmael"]) };
    let data = f.engine.query_data(question, &round_robin).await.unwrap();
    assert_eq!(chunk_ids(&data), vec!["c3"]);
    // with fusion the lexical index adds what the words "Pasta" and "Ishmael" find: c3 is found
    // by two channels and comes first
    let fused = QueryParam { chunk_fusion: Some(ChunkFusion::Rrf), ..round_robin.clone() };
    let data = f.engine.query_data(question, &fused).await.unwrap();
    assert_eq!(chunk_ids(&data), vec!["c3", "c4"]);
    assert_eq!(metadata(&data).auto, None, "a named mode reports no auto choice");
    // the setting does the same as the query's field
    let mut config = strict_config();
    config.query.chunk_fusion = ChunkFusion::Rrf;
    let g = fixture(corpus(), None, config).await;
    assert_eq!(chunk_ids(&g.engine.query_data(question, &round_robin).await.unwrap()), vec!["c3", "c4"]);
}

#[tokio::test]
async fn rrf_lets_naive_mode_find_what_the_vectors_miss() {
    let f = fixture(corpus(), None, strict_config()).await;
    let naive = QueryParam::with_mode(QueryMode::Naive);
    let data = f.engine.query_data("Tell us about Ishmael", &naive).await.unwrap();
    assert!(chunk_ids(&data).is_empty(), "vectors alone find nothing");
    let fused = QueryParam { chunk_fusion: Some(ChunkFusion::Rrf), ..naive };
    let data = f.engine.query_data("Tell us about Ishmael", &fused).await.unwrap();
    assert_eq!(chunk_ids(&data), vec!["c3"]);
}

#[tokio::test]
async fn auto_walks_from_the_entities_a_question_names() {
    let f = fixture(corpus(), None, EngineConfig::default()).await;
    let data = f.engine.query_data("Who commands the Pequod?", &QueryParam::default()).await.unwrap();
    let m = metadata(&data);
    assert_eq!(m.query_mode, "ppr");
    let choice = m.auto.as_ref().unwrap();
    assert_eq!(choice.mode, QueryMode::Ppr);
    assert_eq!(choice.named_entities, vec!["Pequod"]);
    assert!(chunk_ids(&data).contains(&"c1".to_string()), "{:?}", chunk_ids(&data));
    // the choice is part of the JSON of /query/data
    let json = serde_json::to_value(&data).unwrap();
    assert_eq!(json["metadata"]["auto"]["mode"], "ppr");
    assert_eq!(json["metadata"]["auto"]["chunk_fusion"], "round_robin");
}

#[tokio::test]
async fn auto_fuses_mix_when_no_entity_is_named() {
    let f = fixture(corpus(), None, EngineConfig::default()).await;
    let data = f.engine.query_data("What needs boiling water and salt?", &QueryParam::default()).await.unwrap();
    let m = metadata(&data);
    assert_eq!(m.query_mode, "mix");
    let choice = m.auto.as_ref().unwrap();
    assert_eq!((choice.mode, choice.chunk_fusion), (QueryMode::Mix, ChunkFusion::Rrf));
    assert!(choice.named_entities.is_empty());
    assert_eq!(chunk_ids(&data).first().map(String::as_str), Some("c4"));
    // a query that sets the fusion keeps it
    let param = QueryParam { chunk_fusion: Some(ChunkFusion::RoundRobin), ..QueryParam::default() };
    let data = f.engine.query_data("What needs boiling water and salt?", &param).await.unwrap();
    assert_eq!(metadata(&data).auto.as_ref().unwrap().chunk_fusion, ChunkFusion::RoundRobin);
}

#[tokio::test]
async fn name_passages_hold_the_whole_name_and_lists_fall_back_to_their_parts() {
    use crate::query::fusion::name_passages;
    use std::collections::HashSet;
    let f = fixture(corpus(), None, EngineConfig::default()).await;
    let store = &*f.engine.inner.store;
    let ids = |hits: Vec<lightrag_ports::TextHit>| -> Vec<String> {
        let mut ids: Vec<String> = hits.into_iter().map(|h| h.key).collect();
        ids.sort();
        ids
    };
    let none = HashSet::new();
    // "Moby Dick": only the chunk that has both words
    assert_eq!(ids(name_passages(store, "Tell me about Moby Dick", 10, &none).await.unwrap()), vec!["c2"]);
    // no chunk names Ahab and Ishmael together: each part on its own
    let parts = name_passages(store, "Tell me about Ahab, Ishmael", 10, &none).await.unwrap();
    assert_eq!(ids(parts), vec!["c1", "c2", "c3"]);
    // a skipped (common) name is not searched
    let skip: HashSet<String> = ["moby dick".to_string()].into_iter().collect();
    assert!(name_passages(store, "Tell me about Moby Dick", 10, &skip).await.unwrap().is_empty());
}
