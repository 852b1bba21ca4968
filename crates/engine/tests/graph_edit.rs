//! Graph editing on a real SQLite store, the real tokenizer, a hashing embedder and rule-based
//! extraction (no LLM).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;
use lightrag_engine::config::ExtractionMethod;
use lightrag_engine::indexing::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use lightrag_engine::maintenance::graph_edit::{EntityInput, EntityUpdate, MergeStatus, RelationInput, RelationUpdate};
use lightrag_engine::{Engine, EngineConfig, EngineError, EngineParts};
use lightrag_ports::prelude::*;
use lightrag_ports::{
    EmbedError, Embedder, EmbeddingIdentity, EnqueueOutcome, Entity, RelKey, Relation, VectorKind, VectorRecord,
};
use lightrag_store_sqlite::SqliteStore;
use lightrag_tokenizer::TiktokenTokenizer;
use tokio_util::sync::CancellationToken;

const DIM: usize = 16;

/// Hashes lower-cased words into 16 buckets.
struct WordHash;

fn hash_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIM];
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let h = word.to_lowercase().bytes().fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
        v[h as usize % DIM] += 1.0;
    }
    if v.iter().all(|x| *x == 0.0) {
        v[0] = 1.0;
    }
    v
}

#[async_trait]
impl Embedder for WordHash {
    fn identity(&self) -> EmbeddingIdentity {
        EmbeddingIdentity { model: "word-hash".into(), dim: DIM }
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| hash_vector(t)).collect())
    }
}

struct Kit {
    engine: Engine,
    store: Arc<SqliteStore>,
    _dir: tempfile::TempDir,
}

async fn kit() -> Kit {
    let dir = tempfile::tempdir().unwrap();
    let (engine, store) = open_engine(&dir).await;
    Kit { engine, store, _dir: dir }
}

/// An engine on the store file in `dir` (a second call emulates a second process).
async fn open_engine(dir: &tempfile::TempDir) -> (Engine, Arc<SqliteStore>) {
    let store = Arc::new(SqliteStore::open(&dir.path().join("kb.sqlite")).unwrap());
    let mut config = EngineConfig::default();
    config.extraction.method = ExtractionMethod::Nlp;
    let engine = Engine::open(EngineParts {
        config,
        store: store.clone(),
        llm: None,
        role_llms: Vec::new(),
        embedder: Arc::new(WordHash),
        reranker: None,
        tokenizer: Arc::new(TiktokenTokenizer::o200k().unwrap()),
    })
    .await
    .unwrap();
    (engine, store)
}

/// Indexes documents with rule-based extraction; returns their ids.
async fn index(engine: &Engine, docs: &[(&str, &str)]) -> Vec<String> {
    let inserts = docs
        .iter()
        .map(|(file, text)| InsertDoc {
            content: text.to_string(),
            file_source: Some(file.to_string()),
            ..Default::default()
        })
        .collect();
    let report = engine.enqueue(inserts, None).await.unwrap();
    let ids: Vec<String> = report
        .outcomes
        .iter()
        .map(|o| match o {
            EnqueueOutcome::Enqueued { doc_id } => doc_id.clone(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    let processed =
        engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new()).await.unwrap();
    assert_eq!(processed.processed.len(), ids.len(), "{processed:?}");
    ids
}

fn input(description: &str) -> EntityInput {
    EntityInput { entity_type: "person".into(), description: description.into(), ..Default::default() }
}

fn rel_input(description: &str, keywords: &str, weight: f64) -> RelationInput {
    RelationInput {
        description: description.into(),
        keywords: keywords.into(),
        weight: Some(weight),
        ..Default::default()
    }
}

async fn entity_vector(store: &SqliteStore, name: &str) -> Option<Vec<f32>> {
    store.get_vectors(VectorKind::Entity, &[name.to_string()]).await.unwrap().pop().flatten()
}

async fn relation_vector(store: &SqliteStore, a: &str, b: &str) -> Option<Vec<f32>> {
    let key = VectorRecord::relation_key(&RelKey::new(a, b));
    store.get_vectors(VectorKind::Relation, &[key]).await.unwrap().pop().flatten()
}

/// The whole chunk list of an entity.
async fn chunks_of(store: &SqliteStore, name: &str) -> Vec<String> {
    let owner = lightrag_ports::GraphKey::Entity(name.to_string());
    lightrag_ports::paging::whole_chunk_list(store, &owner).await.unwrap()
}

/// Every relation joins two stored entities, and every entity and relation has exactly one vector.
async fn assert_consistent(store: &SqliteStore) {
    let entities = lightrag_ports::paging::all_entities(store).await.unwrap();
    let names: HashSet<String> = entities.iter().map(|e| e.name.clone()).collect();
    let relations = lightrag_ports::paging::all_relations(store).await.unwrap();
    for r in &relations {
        assert!(names.contains(&r.key.src) && names.contains(&r.key.tgt), "dangling relation {}", r.key);
        assert!(relation_vector(store, &r.key.src, &r.key.tgt).await.is_some(), "no vector for {}", r.key);
    }
    for e in &entities {
        assert!(entity_vector(store, &e.name).await.is_some(), "no vector for {}", e.name);
    }
    let counts = store.vector_counts().await.unwrap();
    assert_eq!(counts.get(&VectorKind::Entity).copied().unwrap_or(0), entities.len(), "stale entity vectors");
    assert_eq!(counts.get(&VectorKind::Relation).copied().unwrap_or(0), relations.len(), "stale relation vectors");
}

/// The cases; `cargo test -p lightrag-engine graph_edit` selects them.
mod cases {
    use super::*;

    /// A hand-made graph: A, B, T, X with A–X, B–X, A–B, A–T.
    async fn hand_graph(engine: &Engine) {
        for (name, d) in [("A", "alpha one"), ("B", "beta two"), ("T", "tango three"), ("X", "xray four")] {
            engine.create_entity(name, input(d)).await.unwrap();
        }
        engine.create_relation("A", "X", rel_input("a meets x", "k1,shared", 2.0)).await.unwrap();
        engine.create_relation("X", "B", rel_input("b meets x", "k2,shared", 5.0)).await.unwrap();
        engine.create_relation("A", "B", rel_input("a meets b", "k3", 1.0)).await.unwrap();
        engine.create_relation("A", "T", rel_input("a meets t", "k4", 1.0)).await.unwrap();
    }

    #[tokio::test]
    async fn create_and_duplicate_errors() {
        let k = kit().await;
        let e = k.engine.create_entity("Zorro", input("a masked hero")).await.unwrap();
        assert_eq!(e.entity_type, "person");
        assert_eq!(e.source_ids, vec!["manual_creation"]);
        assert!(e.version >= 1);
        assert!(k.engine.entity_exists("Zorro").await.unwrap());
        assert_eq!(entity_vector(&k.store, "Zorro").await.unwrap().len(), DIM);

        assert!(matches!(k.engine.create_entity("Zorro", input("again")).await, Err(EngineError::Invalid(_))));
        assert!(matches!(k.engine.create_entity("Nobody", input("  ")).await, Err(EngineError::Invalid(_))));
        assert!(matches!(k.engine.create_entity(" ", input("x")).await, Err(EngineError::Invalid(_))));
        assert!(!k.engine.entity_exists("Nobody").await.unwrap());

        k.engine.create_entity("Bernardo", input("a servant")).await.unwrap();
        let r = k
            .engine
            .create_relation("Zorro", "Bernardo", rel_input("master and servant", "loyalty", 2.5))
            .await
            .unwrap();
        assert_eq!(r.key, RelKey::new("Bernardo", "Zorro"));
        assert_eq!(r.weight, 2.5);
        assert!(relation_vector(&k.store, "Zorro", "Bernardo").await.is_some());
        assert!(k.engine.get_relation("Zorro", "Bernardo").await.unwrap().is_some());

        // undirected duplicate, missing endpoint, self-loop, empty description, bad weight
        for (a, b, inp) in [
            ("Bernardo", "Zorro", rel_input("again", "", 1.0)),
            ("Zorro", "Ghost", rel_input("ghost", "", 1.0)),
            ("Zorro", "Zorro", rel_input("self", "", 1.0)),
            ("Zorro", "Bernardo", rel_input("", "", 1.0)),
        ] {
            assert!(matches!(k.engine.create_relation(a, b, inp).await, Err(EngineError::Invalid(_))), "{a}-{b}");
        }
        k.engine.create_entity("Diego", input("a nobleman")).await.unwrap();
        let nan = rel_input("x", "", f64::NAN);
        assert!(matches!(k.engine.create_relation("Zorro", "Diego", nan).await, Err(EngineError::Invalid(_))));
        assert_eq!(lightrag_ports::paging::all_relations(&*k.store).await.unwrap().len(), 1);
        assert_consistent(&k.store).await;
    }

    #[tokio::test]
    async fn edit_updates_fields_and_reembeds() {
        let k = kit().await;
        hand_graph(&k.engine).await;
        let before = entity_vector(&k.store, "A").await.unwrap();
        let update = EntityUpdate {
            description: Some("completely different words here".into()),
            entity_type: Some("place".into()),
            ..Default::default()
        };
        let out = k.engine.edit_entity("A", update, false, false).await.unwrap();
        assert_eq!(out.entity.description, "completely different words here");
        assert_eq!(out.entity.entity_type, "place");
        assert!(!out.operation_summary.renamed && !out.operation_summary.merged);
        assert_eq!(out.operation_summary.merge_status, MergeStatus::NotAttempted);
        assert_eq!(out.operation_summary.final_entity, "A");
        assert_ne!(entity_vector(&k.store, "A").await.unwrap(), before, "entity vector must be re-embedded");

        let empty = EntityUpdate { description: Some(" ".into()), ..Default::default() };
        assert!(matches!(k.engine.edit_entity("A", empty, true, true).await, Err(EngineError::Invalid(_))));
        let missing = EntityUpdate { description: Some("x".into()), ..Default::default() };
        assert!(matches!(k.engine.edit_entity("Nope", missing, true, true).await, Err(EngineError::NotFound(_))));

        let rbefore = relation_vector(&k.store, "A", "X").await.unwrap();
        let ru = RelationUpdate {
            description: Some("totally new relation text".into()),
            keywords: Some("zeta, alpha".into()),
            weight: Some(7.0),
            ..Default::default()
        };
        let r = k.engine.edit_relation("X", "A", ru).await.unwrap();
        assert_eq!(
            (r.description.as_str(), r.keywords.as_str(), r.weight),
            ("totally new relation text", "alpha,zeta", 7.0)
        );
        assert_ne!(relation_vector(&k.store, "A", "X").await.unwrap(), rbefore, "relation vector must be re-embedded");
        let bad = RelationUpdate { description: Some(String::new()), ..Default::default() };
        assert!(matches!(k.engine.edit_relation("A", "X", bad).await, Err(EngineError::Invalid(_))));
        assert!(matches!(
            k.engine.edit_relation("T", "X", RelationUpdate::default()).await,
            Err(EngineError::NotFound(_))
        ));
        assert_consistent(&k.store).await;
    }

    #[tokio::test]
    async fn rename_moves_relations_and_vector() {
        let k = kit().await;
        hand_graph(&k.engine).await;
        let old = k.engine.get_entity("A").await.unwrap().unwrap();
        let rename = || EntityUpdate { entity_name: Some("Alpha".into()), ..Default::default() };
        assert!(matches!(k.engine.edit_entity("A", rename(), false, false).await, Err(EngineError::Invalid(_))));
        assert!(k.engine.entity_exists("A").await.unwrap());

        let out = k.engine.edit_entity("A", rename(), true, false).await.unwrap();
        assert!(out.operation_summary.renamed && !out.operation_summary.merged);
        assert_eq!(out.operation_summary.final_entity, "Alpha");
        assert_eq!(out.entity.description, old.description);
        assert_eq!(out.entity.source_ids, old.source_ids, "provenance is kept");
        assert!(!k.engine.entity_exists("A").await.unwrap());
        assert!(entity_vector(&k.store, "A").await.is_none());
        assert!(entity_vector(&k.store, "Alpha").await.is_some());
        for other in ["X", "B", "T"] {
            assert!(k.engine.get_relation("A", other).await.unwrap().is_none());
            assert!(relation_vector(&k.store, "A", other).await.is_none());
            let moved =
                k.engine.get_relation("Alpha", other).await.unwrap().unwrap_or_else(|| panic!("Alpha-{other} missing"));
            assert!(relation_vector(&k.store, "Alpha", other).await.is_some());
            assert!(moved.description.starts_with("a meets"));
        }
        assert_eq!(k.engine.get_relation("Alpha", "X").await.unwrap().unwrap().weight, 2.0);
        assert_consistent(&k.store).await;
    }

    #[tokio::test]
    async fn rename_onto_existing_needs_allow_merge() {
        let k = kit().await;
        hand_graph(&k.engine).await;
        let onto_t = || EntityUpdate {
            entity_name: Some("T".into()),
            description: Some("renamed alpha".into()),
            ..Default::default()
        };
        let err = k.engine.edit_entity("A", onto_t(), true, false).await;
        assert!(matches!(err, Err(EngineError::Invalid(_))), "{err:?}");
        assert_eq!(k.engine.get_entity("A").await.unwrap().unwrap().description, "alpha one", "nothing was applied");

        let out = k.engine.edit_entity("A", onto_t(), true, true).await.unwrap();
        let s = &out.operation_summary;
        assert!(s.merged && s.renamed);
        assert_eq!(s.merge_status, MergeStatus::Success);
        assert_eq!(s.target_entity.as_deref(), Some("T"));
        assert_eq!(s.final_entity, "T");
        assert_eq!(out.entity.name, "T");
        assert_eq!(out.entity.description, "renamed alpha<SEP>tango three", "edited source first, then the target");
        assert!(!k.engine.entity_exists("A").await.unwrap());
        assert!(k.engine.get_relation("T", "X").await.unwrap().is_some());
        assert!(k.engine.get_relation("T", "B").await.unwrap().is_some());
        let json = serde_json::to_value(&out).unwrap();
        assert_eq!(json["operation_summary"]["merge_status"], "success");
        assert_eq!(json["operation_summary"]["operation_status"], "success");
        assert_consistent(&k.store).await;
    }

    #[tokio::test]
    async fn merge_repoints_dedups_and_drops_self_loops() {
        let k = kit().await;
        hand_graph(&k.engine).await;
        let out = k.engine.merge_entities(&["A".into(), "B".into()], "T", None).await.unwrap();
        assert_eq!(out.deleted_entities, vec!["A", "B"]);
        assert!(!out.target_created);
        // A–X and B–X both land on T–X; A–B and A–T become self-loops
        assert_eq!(out.relations_merged, 1);
        assert_eq!(out.self_loops_dropped, 2);
        assert_eq!(out.relationships_transferred, 2);
        assert_eq!(out.merged_entity.description, "alpha one<SEP>beta two<SEP>tango three");
        assert_eq!(out.merged_entity.entity_type, "person");

        let all = lightrag_ports::paging::all_relations(&*k.store).await.unwrap();
        assert_eq!(all.len(), 1, "{all:?}");
        let tx = &all[0];
        assert_eq!(tx.key, RelKey::new("T", "X"));
        assert_eq!(tx.weight, 5.0, "weight is the max");
        assert_eq!(tx.keywords, "k1,k2,shared");
        assert_eq!(tx.description, "a meets x<SEP>b meets x");
        for gone in ["A", "B"] {
            assert!(!k.engine.entity_exists(gone).await.unwrap());
            assert!(entity_vector(&k.store, gone).await.is_none());
        }
        assert!(relation_vector(&k.store, "A", "X").await.is_none());
        assert!(relation_vector(&k.store, "T", "X").await.is_some());
        assert_consistent(&k.store).await;

        // into a new name, with target data
        let data = EntityUpdate { entity_type: Some("thing".into()), ..Default::default() };
        let out = k.engine.merge_entities(&["T".into(), "X".into()], "Omega", Some(data)).await.unwrap();
        assert!(out.target_created);
        assert_eq!(out.merged_entity.entity_type, "thing");
        assert_eq!(out.self_loops_dropped, 1);
        assert_eq!(k.store.graph_counts().await.unwrap().nodes, 1);
        assert_eq!(k.store.graph_counts().await.unwrap().edges, 0);
        assert_consistent(&k.store).await;

        let missing = k.engine.merge_entities(&["Ghost".into()], "Omega", None).await;
        assert!(matches!(missing, Err(EngineError::NotFound(_))), "{missing:?}");
        assert!(matches!(k.engine.merge_entities(&[], "Omega", None).await, Err(EngineError::Invalid(_))));
    }

    #[tokio::test]
    async fn delete_entity_and_relation() {
        let k = kit().await;
        hand_graph(&k.engine).await;
        let d = k.engine.delete_entity("A").await.unwrap();
        assert_eq!(d.deleted_entities, vec!["A"]);
        assert_eq!(d.deleted_relations.len(), 3);
        assert!(!k.engine.entity_exists("A").await.unwrap());
        assert!(entity_vector(&k.store, "A").await.is_none());
        assert!(relation_vector(&k.store, "A", "X").await.is_none());
        assert_eq!(lightrag_ports::paging::all_relations(&*k.store).await.unwrap().len(), 1);
        assert!(matches!(k.engine.delete_entity("A").await, Err(EngineError::NotFound(_))));
        assert_consistent(&k.store).await;

        let d = k.engine.delete_relation("X", "B").await.unwrap();
        assert_eq!(d.deleted_relations, vec![RelKey::new("B", "X")]);
        assert!(relation_vector(&k.store, "B", "X").await.is_none());
        assert!(lightrag_ports::paging::all_relations(&*k.store).await.unwrap().is_empty());
        assert!(matches!(k.engine.delete_relation("B", "X").await, Err(EngineError::NotFound(_))));
        assert!(k.engine.entity_exists("B").await.unwrap(), "deleting a relation keeps its entities");
        assert_consistent(&k.store).await;
    }

    const DOC1: &str = "Alice Smith met Bob Jones in Paris. Alice Smith works at Acme Corporation.";
    const DOC2: &str = "Ali Smith visited Rome with Carol White. Ali Smith met Bob Jones again.";

    #[tokio::test]
    async fn deleting_documents_after_a_merge_leaves_a_consistent_graph() {
        let k = kit().await;
        let ids = index(&k.engine, &[("one.txt", DOC1), ("two.txt", DOC2)]).await;
        let names = k.engine.entity_names().await.unwrap();
        for needed in ["Alice Smith", "Ali Smith", "Bob Jones", "Rome"] {
            assert!(names.contains(&needed.to_string()), "extraction found {names:?}");
        }
        assert_consistent(&k.store).await;

        let out = k.engine.merge_entities(&["Ali Smith".into()], "Alice Smith", None).await.unwrap();
        assert!(out.relationships_transferred >= 2, "{out:?}");
        let alice = chunks_of(&k.store, "Alice Smith").await;
        assert!(alice.iter().any(|c| c.starts_with(&ids[1])), "provenance of the merged source is kept");
        let links = k.store.get_doc_links(&ids[1]).await.unwrap().unwrap();
        assert!(
            links.entities.contains(&"Alice Smith".to_string()) && !links.entities.contains(&"Ali Smith".to_string())
        );
        assert!(links.relations.iter().all(|r| r.src != "Ali Smith" && r.tgt != "Ali Smith"));
        assert_consistent(&k.store).await;

        // the second document goes: what only it supported goes with it, Alice stays from doc one
        k.engine.delete_document(&ids[1]).await.unwrap();
        assert_consistent(&k.store).await;
        k.engine.get_entity("Alice Smith").await.unwrap().expect("Alice is still supported by doc one");
        let alice = chunks_of(&k.store, "Alice Smith").await;
        assert!(alice.iter().all(|c| c.starts_with(&ids[0])), "{alice:?}");
        assert!(!k.engine.entity_exists("Rome").await.unwrap());
        assert!(k.engine.get_relation("Alice Smith", "Bob Jones").await.unwrap().is_some());

        k.engine.delete_document(&ids[0]).await.unwrap();
        assert_consistent(&k.store).await;
        assert_eq!(k.store.graph_counts().await.unwrap().nodes, 0);
    }

    /// Regression: deleting a document used to leave a hand-made relation pointing at an entity the
    /// deletion removed (the relation was not in the document's links).
    #[tokio::test]
    async fn deleting_a_document_leaves_no_edge_to_an_entity_it_removed() {
        let k = kit().await;
        let ids = index(&k.engine, &[("one.txt", DOC1), ("two.txt", DOC2)]).await;
        assert!(k.engine.entity_exists("Paris").await.unwrap(), "Paris comes from doc one only");
        k.engine.create_entity("Zed", input("a hand-made entity")).await.unwrap();
        k.engine.create_relation("Paris", "Zed", rel_input("hand-made link", "manual", 1.0)).await.unwrap();
        k.engine.delete_document(&ids[0]).await.unwrap();
        assert_consistent(&k.store).await;
        assert!(!k.engine.entity_exists("Paris").await.unwrap());
        assert!(k.engine.get_relation("Paris", "Zed").await.unwrap().is_none());
        assert!(k.engine.entity_exists("Zed").await.unwrap(), "the hand-made entity itself stays");
    }

    #[tokio::test]
    async fn deleting_the_merged_sources_document_rebuilds_the_target_under_its_new_name() {
        let k = kit().await;
        let ids = index(&k.engine, &[("one.txt", DOC1), ("two.txt", DOC2)]).await;
        k.engine.merge_entities(&["Ali Smith".into()], "Alice Smith", None).await.unwrap();
        // doc one goes: Alice Smith survives on doc two's (renamed) extraction records
        k.engine.delete_document(&ids[0]).await.unwrap();
        assert_consistent(&k.store).await;
        k.engine.get_entity("Alice Smith").await.unwrap().expect("rebuilt from doc two");
        let alice = chunks_of(&k.store, "Alice Smith").await;
        assert!(!alice.is_empty() && alice.iter().all(|c| c.starts_with(&ids[1])), "{alice:?}");
        assert!(k.engine.get_relation("Alice Smith", "Rome").await.unwrap().is_some());
        assert!(!k.engine.entity_exists("Ali Smith").await.unwrap());
        assert!(!k.engine.entity_exists("Paris").await.unwrap());
    }

    /// Entities and relations without their timestamps and versions, sorted.
    async fn snapshot(store: &SqliteStore) -> (Vec<Entity>, Vec<Relation>) {
        let mut entities = lightrag_ports::paging::all_entities(store).await.unwrap();
        for e in &mut entities {
            (e.created_at, e.version) = (0, 0);
        }
        entities.sort_by(|a, b| a.name.cmp(&b.name));
        let mut relations = lightrag_ports::paging::all_relations(store).await.unwrap();
        for r in &mut relations {
            (r.created_at, r.version) = (0, 0);
        }
        relations.sort_by(|a, b| a.key.cmp(&b.key));
        (entities, relations)
    }

    #[tokio::test]
    async fn unmerge_restores_related_and_chained_merges_exactly() {
        let k = kit().await;
        let ids = index(&k.engine, &[("one.txt", DOC1), ("two.txt", DOC2)]).await;
        let original = snapshot(&k.store).await;
        let links = k.store.get_doc_links(&ids[0]).await.unwrap().unwrap();

        // two related entities merged: their relation folds away, and comes back
        assert!(k.engine.get_relation("Alice Smith", "Bob Jones").await.unwrap().is_some());
        let merged = k.engine.merge_entities(&["Bob Jones".into()], "Alice Smith", None).await.unwrap();
        assert_eq!(merged.self_loops_dropped, 1, "{merged:?}");
        let aliases = k.engine.entity_aliases("Alice Smith").await.unwrap();
        assert_eq!(aliases.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), vec!["Bob Jones"]);
        let sources = k.engine.entity_sources("Alice Smith", 10).await.unwrap();
        let mentions = sources.sources.chunks.iter().flat_map(|c| &c.extracted);
        assert!(mentions.clone().any(|m| m.written_as.as_deref() == Some("Bob Jones")), "provenance shows the alias");
        assert!(mentions.clone().any(|m| m.written_as.is_none()), "and what was written as Alice Smith");
        let out = k.engine.unmerge_entity("Alice Smith", "Bob Jones").await.unwrap();
        assert!(out.remaining_entity.is_some() && out.chunks_restored == 2, "{out:?}");
        assert_eq!(snapshot(&k.store).await, original, "the graph before the merge");
        assert_eq!(k.store.get_doc_links(&ids[0]).await.unwrap().unwrap().entities.len(), links.entities.len());
        assert_consistent(&k.store).await;

        // a chain: Ali Smith into Alice Smith, then Alice Smith into a new name
        k.engine.merge_entities(&["Ali Smith".into()], "Alice Smith", None).await.unwrap();
        k.engine.merge_entities(&["Alice Smith".into()], "The Smiths", None).await.unwrap();
        let aliases = k.engine.entity_aliases("The Smiths").await.unwrap();
        assert_eq!(aliases.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), vec!["Ali Smith", "Alice Smith"]);
        k.engine.unmerge_entity("The Smiths", "Alice Smith").await.unwrap();
        assert!(k.engine.get_entity("The Smiths").await.unwrap().is_some(), "Ali Smith's records keep it");
        assert_consistent(&k.store).await;
        let out = k.engine.unmerge_entity("The Smiths", "Ali Smith").await.unwrap();
        assert!(out.remaining_entity.is_none(), "nothing is left of the merge's new name: {out:?}");
        assert_eq!(snapshot(&k.store).await, original, "every merge of the chain undone");
        assert_consistent(&k.store).await;

        // and deletion after an undone merge still rebuilds like a build of the other document
        k.engine.delete_document(&ids[1]).await.unwrap();
        let fresh = kit().await;
        index(&fresh.engine, &[("one.txt", DOC1)]).await;
        assert_eq!(snapshot(&k.store).await, snapshot(&fresh.store).await);
    }

    #[tokio::test]
    async fn unmerge_refuses_names_that_were_never_merged() {
        let k = kit().await;
        index(&k.engine, &[("one.txt", DOC1)]).await;
        let before = snapshot(&k.store).await;
        let err = k.engine.unmerge_entity("Alice Smith", "Bob Jones").await.unwrap_err();
        assert!(matches!(err, EngineError::NotFound(_)), "{err:?}");
        assert!(matches!(k.engine.unmerge_entity("Alice Smith", "Alice Smith").await, Err(EngineError::Invalid(_))));
        assert!(matches!(k.engine.unmerge_entity("Nobody", "Bob Jones").await, Err(EngineError::NotFound(_))));
        assert_eq!(snapshot(&k.store).await, before);
    }

    #[tokio::test]
    async fn concurrent_writers_on_one_store_lose_no_edit() {
        let k = kit().await;
        hand_graph(&k.engine).await;
        let (other, _store) = open_engine(&k._dir).await;
        let start = k.engine.get_entity("A").await.unwrap().unwrap().version;
        let edit = |engine: Engine, i: usize| async move {
            let update = EntityUpdate { description: Some(format!("edit number {i}")), ..Default::default() };
            engine.edit_entity("A", update, false, false).await.map(|_| ())
        };
        let mut jobs = Vec::new();
        for i in 0..6 {
            let engine = if i % 2 == 0 { k.engine.clone() } else { other.clone() };
            jobs.push(tokio::spawn(edit(engine, i)));
        }
        for job in jobs {
            job.await.unwrap().unwrap();
        }
        let end = k.engine.get_entity("A").await.unwrap().unwrap();
        assert_eq!(end.version, start + 6, "every edit was applied on top of the previous one");
        assert!(end.description.starts_with("edit number "));
    }
}
