//! Reciprocal-rank fusion in the LightRAG modes (`chunk_fusion`) and the `auto` mode's choice.

use super::*;
use crate::config::ChunkFusion;
use crate::retrieval::query::result::Metadata;

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
    assert_eq!(json["metadata"]["auto"]["chunk_fusion"], "rrf");
}

#[tokio::test]
async fn auto_fuses_the_walk_with_what_lexical_search_of_the_question_finds() {
    let f = fixture(corpus(), None, strict_config()).await;
    let question = "Who commands the Pequod with boiling water?";
    // the walk alone (what auto ran before): from the Pequod to the passages of its crew; the
    // pasta passage names no entity and is never reached
    let walk_alone = QueryParam { chunk_fusion: Some(ChunkFusion::RoundRobin), ..QueryParam::default() };
    let data = f.engine.query_data(question, &walk_alone).await.unwrap();
    assert!(!chunk_ids(&data).contains(&"c4".to_string()), "{:?}", chunk_ids(&data));
    assert!(chunk_ids(&data).contains(&"c1".to_string()));
    // fused: lexical search of "commands", "pequod", "boiling", "water" adds it, the walk's
    // passages stay
    let data = f.engine.query_data(question, &QueryParam::default()).await.unwrap();
    let ids = chunk_ids(&data);
    assert!(ids.contains(&"c4".to_string()) && ids.contains(&"c1".to_string()), "{ids:?}");
    let choice = metadata(&data).auto.clone().unwrap();
    assert_eq!((choice.mode, choice.chunk_fusion), (QueryMode::Ppr, ChunkFusion::Rrf));
    // the ppr mode named with rrf is the same retrieval
    let ppr = QueryParam { mode: QueryMode::Ppr, chunk_fusion: Some(ChunkFusion::Rrf), ..QueryParam::default() };
    assert_eq!(chunk_ids(&f.engine.query_data(question, &ppr).await.unwrap()), ids);
}

#[tokio::test]
async fn second_hop_reaches_the_passages_of_what_the_first_passages_name() {
    use crate::retrieval::query::hop::second_hop;
    let f = fixture(with_chunk_lists(corpus()), None, EngineConfig::default()).await;
    let store = &*f.engine.inner.store;
    let query_vector = bow("Who does the captain of the Pequod hunt?");
    let from = vec!["c1".to_string()];
    // c1 names Ahab and the Pequod; the question names the Pequod, so Ahab is the bridge: his
    // other passage (c2) is the hop (his dangling chunk id has no vector and is left out)
    let named = vec!["Pequod".to_string()];
    assert_eq!(second_hop(store, &from, &named, &query_vector, 5).await.unwrap(), vec!["c2"]);
    // without the question's names the Pequod bridges to Ishmael's passage as well
    let hop = second_hop(store, &from, &[], &query_vector, 5).await.unwrap();
    assert_eq!(hop.len(), 2, "{hop:?}");
    assert!(hop.contains(&"c2".to_string()) && hop.contains(&"c3".to_string()));
    assert_eq!(second_hop(store, &from, &[], &query_vector, 1).await.unwrap().len(), 1);
    assert!(second_hop(store, &[], &[], &query_vector, 5).await.unwrap().is_empty());
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
    use crate::retrieval::query::fusion::name_passages;
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

#[tokio::test]
async fn the_entity_lexical_channel_finds_what_only_descriptions_say() {
    use crate::retrieval::query::fusion::{entity_text_chunks, lexical_chunks};
    let f = fixture(with_chunk_lists(corpus()), None, EngineConfig::default()).await;
    let store = &*f.engine.inner.store;
    // "narrator" is in Ishmael's description, not in any chunk ("narrates")
    let keywords = ["narrator".to_string()];
    assert!(lexical_chunks(store, "who is the narrator", &keywords, 10).await.unwrap().is_empty());
    assert_eq!(entity_text_chunks(store, "who is the narrator", &keywords, 10).await.unwrap(), vec!["c3"]);
    // the question's written names are searched too; each entity's chunks in list order, the
    // best entity first, taken in turns, at most top_k
    let found = entity_text_chunks(store, "Tell me about Ahab", &[], 10).await.unwrap();
    assert_eq!(found[..2], ["c1", "c2"], "{found:?}");
    assert_eq!(entity_text_chunks(store, "Tell me about Ahab", &[], 1).await.unwrap().len(), 1);
    assert!(entity_text_chunks(store, "nothing named here", &[], 10).await.unwrap().is_empty());
}

/// Bag-of-words vectors of the chunks and entities.
fn chunk_and_entity_vectors(
    chunks: &[lightrag_ports::Chunk],
    entities: &[lightrag_ports::Entity],
) -> Vec<VectorRecord> {
    let chunk_vectors = chunks.iter().map(|c| vector(VectorKind::Chunk, c.id.clone(), &c.content));
    let entity_vectors = entities.iter().map(|e| {
        vector(
            VectorKind::Entity,
            e.name.clone(),
            &crate::indexing::merge::entity_vector_content(&e.name, &e.description),
        )
    });
    chunk_vectors.chain(entity_vectors).collect()
}

/// The corpus with every entity's chunk list written from its source ids.
fn with_chunk_lists(mut changes: ChangeSet) -> ChangeSet {
    changes.chunk_lists = changes
        .entities
        .iter()
        .map(|e| {
            let listed: Vec<String> = e.source_ids.iter().filter(|id| !id.starts_with("missing")).cloned().collect();
            (lightrag_ports::GraphKey::Entity(e.name.clone()), lightrag_ports::ChunkListEdit::Replace(listed))
        })
        .collect();
    changes
}

/// Two passages that name one person differently: "King Dikkha" in his queen's, "Dikkha" in his
/// own.
fn variants_corpus() -> ChangeSet {
    let chunks = vec![
        chunk("q1", "thanda.md", "Saw Thanda was the chief queen of King Dikkha."),
        chunk("d1", "dikkha.md", "Dikkha ruled Mrauk U and died at Launggyet."),
        chunk("x1", "other.md", "Pasta needs boiling water and salt."),
    ];
    let entities = vec![
        entity("Saw Thanda", "Saw Thanda was a queen.", &["q1"], &["thanda.md"]),
        entity("King Dikkha", "King Dikkha, her husband.", &["q1"], &["thanda.md"]),
        entity("Dikkha", "Dikkha ruled Mrauk U.", &["d1"], &["dikkha.md"]),
        entity("Launggyet", "Launggyet, a town.", &["d1"], &["dikkha.md"]),
    ];
    let relations = vec![
        relation("Saw Thanda", "King Dikkha", "queen of", "Saw Thanda was the chief queen of King Dikkha.", &["q1"]),
        relation("Dikkha", "Launggyet", "died at", "Dikkha died at Launggyet.", &["d1"]),
    ];
    let vectors = chunk_and_entity_vectors(&chunks, &entities);
    with_chunk_lists(ChangeSet { chunks, entities, relations, vectors, ..ChangeSet::default() })
}

#[tokio::test]
async fn ppr_crosses_from_a_titled_name_to_the_bare_one() {
    let f = fixture(variants_corpus(), None, strict_config()).await;
    let param = QueryParam::with_mode(QueryMode::Ppr);
    let data = f.engine.query_data("Where did Saw Thanda's husband die?", &param).await.unwrap();
    let ids = chunk_ids(&data);
    // the question names Saw Thanda only; her passage names "King Dikkha", whose bare name
    // "Dikkha" is the entity of the passage that answers
    assert_eq!(ids.first().map(String::as_str), Some("q1"), "{ids:?}");
    assert!(ids.contains(&"d1".to_string()), "the walk reaches Dikkha's passage: {ids:?}");
    assert!(!ids.contains(&"x1".to_string()), "{ids:?}");
}

/// A passage that never writes the name its entity's description gives (as an LLM's
/// description may).
fn description_corpus() -> ChangeSet {
    let chunks = vec![
        chunk("k1", "king.md", "The old king ruled Mrauk U and died at Launggyet."),
        chunk("x1", "other.md", "Pasta needs boiling water and salt."),
    ];
    let entities = vec![
        entity("Min Bin", "Min Bin, king of Mrauk U and father of Dikkha.", &["k1"], &["king.md"]),
        entity("Pasta", "Pasta, a food.", &["x1"], &["other.md"]),
    ];
    let vectors = chunk_and_entity_vectors(&chunks, &entities);
    with_chunk_lists(ChangeSet { chunks, entities, vectors, ..ChangeSet::default() })
}

#[tokio::test]
async fn ppr_seeds_entities_the_entity_lexical_index_finds_for_a_name_written_otherwise() {
    // "Dikkha" is no entity and no passage's word; the entity lexical index finds Min Bin, whose
    // description names him
    let question = "Where did Dikkha's father die?";
    let param = QueryParam::with_mode(QueryMode::Ppr);
    let f = fixture(description_corpus(), None, strict_config()).await;
    let ids = chunk_ids(&f.engine.query_data(question, &param).await.unwrap());
    assert_eq!(ids, vec!["k1"]);
    let mut off = strict_config();
    off.query.ppr.name_text_weight = 0.0;
    let g = fixture(description_corpus(), None, off).await;
    let ids = chunk_ids(&g.engine.query_data(question, &param).await.unwrap());
    assert!(ids.is_empty(), "without the entity lexical seeds nothing leads there: {ids:?}");
}
