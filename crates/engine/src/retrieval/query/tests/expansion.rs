//! Local expansion reads only the best relations of a much-connected entity, and reads further
//! when the relation budget reaches past them: the relations kept are exactly those of ranking
//! every edge and cutting by tokens.

use lightrag_ports::{RankedRelations, Tokenizer, ranking};

use super::*;
use crate::retrieval::query::context::relation_line;

/// Ahab and 120 sailors, each sailor linked to Ahab (weights 0.5–3.0) and some to each other,
/// so degrees and weights vary.
fn hub_corpus() -> ChangeSet {
    let mut entities = vec![entity("Ahab", "Ahab is the captain.", &["c1"], &["moby.md"])];
    let mut relations = Vec::new();
    for i in 0..120 {
        let name = format!("Sailor{i:03}");
        entities.push(entity(&name, &format!("{name} is a sailor."), &["c1"], &["moby.md"]));
        let mut r = relation("Ahab", &name, "crew", &format!("{name} obeys Ahab."), &["c1"]);
        r.weight = 0.5 + (i % 6) as f64 * 0.5;
        relations.push(r);
        if i % 4 == 0 && i > 0 {
            relations.push(relation(&name, &format!("Sailor{:03}", i - 1), "mates", "Shipmates.", &["c1"]));
        }
        if i % 7 == 0 {
            relations.push(relation(&name, &format!("Sailor{:03}", (i + 50) % 120), "rivals", "Rivals.", &["c1"]));
        }
    }
    let mut vectors = vec![vector(VectorKind::Chunk, "c1".into(), "Captain Ahab commands the Pequod.")];
    for e in &entities {
        let text = crate::indexing::merge::entity_vector_content(&e.name, &e.description);
        vectors.push(vector(VectorKind::Entity, e.name.clone(), &text));
    }
    let chunks = vec![chunk("c1", "moby.md", "Captain Ahab commands the Pequod.")];
    ChangeSet { chunks, entities, relations, vectors, ..ChangeSet::default() }
}

/// Every relation of `names`, ranked in memory (the store port's default ranking).
async fn ranked_in_memory(store: &dyn Store, names: &[String]) -> RankedRelations {
    let all = store.relations_of(names).await.unwrap();
    let total = all.len();
    let mut ends: Vec<String> = all.iter().flat_map(|r| [r.key.src.clone(), r.key.tgt.clone()]).collect();
    ends.sort();
    ends.dedup();
    let degrees = store.node_degrees(&ends).await.unwrap();
    let degree_of = ends.into_iter().zip(degrees).collect();
    RankedRelations { relations: ranking::rank_relations(names, all, &degree_of, usize::MAX), total }
}

#[tokio::test]
async fn local_expansion_of_a_hub_keeps_exactly_the_relations_a_full_read_would() {
    let f = fixture(hub_corpus(), None, EngineConfig::default()).await;
    let store = f.engine.store();
    let everything = ranked_in_memory(store.as_ref(), &["Ahab".to_string()]).await;
    assert_eq!(everything.total, 120);
    // a budget that holds more relations than the first read (2000 / 40 = 50) but not all
    let budget = 2000;
    let tokenizer = TiktokenTokenizer::o200k().unwrap();
    let mut used = 0;
    let mut expected = Vec::new();
    for r in &everything.relations {
        used += Tokenizer::count(&tokenizer, &relation_line(&r.key.src, &r.key.tgt, &r.description));
        if used > budget {
            break;
        }
        expected.push(r.key.clone());
    }
    assert!(expected.len() > 50 && expected.len() < 120, "the budget reaches past the first read: {}", expected.len());

    let param = QueryParam {
        mode: QueryMode::Local,
        top_k: Some(1),
        max_relation_tokens: Some(budget),
        max_total_tokens: Some(100_000),
        ..low(&["Ahab"])
    };
    let data = f.engine.query_data("Who follows Ahab?", &param).await.unwrap();
    let got: Vec<RelKey> =
        data.retrieved().unwrap().relationships.iter().map(|r| RelKey::new(&*r.src_id, &*r.tgt_id)).collect();
    assert_eq!(got, expected, "relations kept after the cut");
    let Metadata::Retrieval(meta) = &data.metadata else { panic!() };
    let ProcessingInfo::Graph { total_relations_found, relations_after_truncation, .. } = meta.processing_info else {
        panic!()
    };
    assert_eq!((total_relations_found, relations_after_truncation), (120, expected.len()));
}
