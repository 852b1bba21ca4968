//! `QUERY_DECOMPOSITION`: with the setting on, the fused walk (`auto` for a question naming
//! entities) asks the scripted model for sub-questions, searches each, counts the call under the
//! `keywords` role and caches it; a garbage answer leaves the retrieval as without the setting;
//! off by default.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Kb, path_str};
use lightrag_scripted_llm::{Fault, PromptKind};
use serde_json::Value;

const DOCS: &[(&str, &str)] = &[
    ("ada.txt", "Ada Lovelace was an English mathematician. Ada Lovelace wrote notes on the Analytical Engine."),
    ("babbage.txt", "Charles Babbage was an English engineer. Charles Babbage designed the Analytical Engine."),
    ("engine.txt", "The Analytical Engine was a mechanical computer. Its mill did the arithmetic."),
];

// names two entities of the graph: `auto` runs the fused walk; the scripted model splits it into
// "Who or what is Ada Lovelace?" and "Who or what is Charles Babbage?"
const QUESTION: &str = "Did Ada Lovelace work with Charles Babbage?";

fn kb() -> Kb {
    let kb = Kb::new();
    for (name, text) in DOCS {
        let file = kb.write_docs(&[(name, text)]);
        kb.ok(&["insert", path_str(&file)]);
    }
    kb
}

/// `lightrag query --mode auto --json --trace` with `QUERY_DECOMPOSITION` set as given.
fn query(kb: &Kb, decompose: bool) -> Value {
    let out = kb
        .cmd()
        .env("QUERY_DECOMPOSITION", decompose.to_string())
        .args(["query", "--mode", "auto", "--json", "--trace", QUESTION])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn chunk_ids(out: &Value) -> Vec<String> {
    out["data"]["chunks"].as_array().unwrap().iter().map(|c| c["chunk_id"].as_str().unwrap().to_string()).collect()
}

fn usage(out: &Value, role: &str, field: &str) -> u64 {
    out["trace"]["usage"][role][field].as_u64().unwrap_or(0)
}

#[test]
fn query_decomposition_asks_once_counts_under_keywords_and_is_cached() {
    let kb = kb();
    let default = kb.json(&["query", "--mode", "auto", "--json", "--trace", QUESTION]);
    assert_eq!(kb.server.stats().decompose, 0, "off by default: no decomposition request");
    assert_eq!(default["metadata"]["auto"]["mode"], "ppr", "{}", default["metadata"]);
    assert_eq!(usage(&default, "embed", "calls"), 1, "{}", default["trace"]["usage"]);

    let usage_before = kb.json(&["status", "--json"])["usage"]["keywords"]["calls"].as_u64().unwrap_or(0);
    let first = query(&kb, true);
    assert_eq!(kb.server.stats().decompose, 1, "one decomposition request");
    let keyword_calls = usage(&first, "keywords", "calls");
    assert_eq!(keyword_calls, usage(&default, "keywords", "calls") + 1, "{}", first["trace"]["usage"]);
    assert_eq!(usage(&first, "embed", "calls"), 2, "the question, then its two sub-questions in one call");
    let ledger = kb.json(&["status", "--json"])["usage"]["keywords"]["calls"].as_u64().unwrap_or(0);
    assert_eq!(ledger, usage_before + keyword_calls, "the ledger counts it under keywords");
    assert!(!chunk_ids(&first).is_empty(), "{first}");

    // the same question again: the decomposition comes from the cache
    let again = query(&kb, true);
    assert_eq!(kb.server.stats().decompose, 1, "answered from the cache");
    assert!(usage(&again, "keywords", "cache_hits") >= 1, "{}", again["trace"]["usage"]);
    assert_eq!(chunk_ids(&again), chunk_ids(&first));
}

#[test]
fn a_garbage_decomposition_answer_falls_back_to_the_question_whole() {
    let kb = kb();
    let without = query(&kb, false);
    kb.server.push_fault(
        Fault::reply("Sure! The sub-questions are: who, what {and} why", 1).on_prompt(PromptKind::Decompose),
    );
    let garbage = query(&kb, true);
    let stats = kb.server.stats();
    assert_eq!((stats.decompose, stats.faults_injected), (1, 1), "the request was made and got the garbage");
    assert_eq!(usage(&garbage, "embed", "calls"), 1, "no sub-question searched: {}", garbage["trace"]["usage"]);
    assert_eq!(chunk_ids(&garbage), chunk_ids(&without), "the retrieval without decomposition");
}
