//! LLM-free indexing of real text: ~20 State of the Union addresses with the rule-based extractor
//! (`LLM_BINDING=none`, `EXTRACTION=nlp`). The corpus comes from `scripts/fetch-corpus.sh` (run by
//! `scripts/test.sh`); without it the test is skipped with a message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;

use common::{Kb, node, path_str};

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("LIGHTRAG_CORPUS_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            cache.join("lightrag-rs/corpus/sotu")
        }
    };
    dir.join("1790_george_washington_n.txt").is_file().then_some(dir)
}

#[test]
fn rule_based_index_of_twenty_addresses_finds_the_real_names() {
    // never skipped: a test that returns early passes without testing anything
    let corpus = corpus_dir()
        .expect("the State of the Union corpus is not installed; run scripts/fetch-corpus.sh (scripts/test.sh does)");
    let mut kb = Kb::new();
    kb.set("LLM_BINDING", "none").set("EXTRACTION", "nlp");
    let docs = kb.dir.path().join("sotu");
    std::fs::create_dir_all(&docs).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus).unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "txt"));
    files.sort();
    for f in files.iter().take(20) {
        std::fs::copy(f, docs.join(f.file_name().unwrap())).unwrap();
    }
    let summary = kb.json(&["insert", path_str(&docs), "--json"]);
    assert_eq!(summary["documents_processed"], 20, "{summary}");
    assert_eq!(summary["llm_calls"], 0, "no LLM is configured");

    let graph = kb.graph();
    for (name, kind) in [
        ("Congress", "organization"),
        ("United States", "location"),
        ("Senate", "organization"),
        ("House of Representatives", "organization"),
        ("Great Britain", "location"),
        ("France", "location"),
        ("Spain", "location"),
    ] {
        let n = node(&graph, name).unwrap_or_else(|| panic!("{name} was not extracted"));
        assert_eq!(n["entity_type"], kind, "{name}");
    }
    let stats = kb.json(&["graph", "stats", "--json", "--top", "20"]);
    let noise = ["The", "However", "Our", "In", "Gentlemen", "Fellow-Citizens", "We", "It", "This", "I", "You", "He"];
    for e in stats["top_entities"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        assert!(!noise.contains(&name), "stop-word or sentence start among the top entities: {name}");
        assert!(name.chars().next().unwrap().is_uppercase() || name.chars().next().unwrap().is_ascii_digit(), "{name}");
    }
    // queries work without any LLM: keywords come from rules, the answer is the context
    let out = kb.json(&["query", "--mode", "hybrid", "--json", "What did Congress do about Great Britain?"]);
    assert!(!out["data"]["entities"].as_array().unwrap().is_empty(), "{out}");
    assert!(out["metadata"]["keywords"]["low_level"].as_array().unwrap().iter().any(|k| k == "Great Britain"), "{out}");
    assert!(out["response"].as_str().unwrap().contains("Knowledge Graph Data"));
}
