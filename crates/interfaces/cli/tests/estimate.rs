//! `lightrag insert --dry-run` and the estimate printed beside the actual figures: on the State
//! of the Union sample (`tests/fixtures/sotu`, four addresses of the demo corpus), the estimate is
//! within a quarter of what the scripted LLM was asked for, and a dry run calls no model and
//! stores nothing.

use std::path::PathBuf;

use lightrag_scripted_llm::ScriptConfig;
use serde_json::Value;

use crate::common::{Kb, path_str};

/// The bundled sample of the demo corpus.
fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sotu")
}

/// A knowledge base on a scripted LLM that reports no token usage, so that the usage ledger
/// counts tokens with the configured tokenizer, as the estimate does.
fn kb() -> Kb {
    Kb::with_config(ScriptConfig { report_usage: false, ..ScriptConfig::default() })
}

fn within_a_quarter(what: &str, estimated: u64, actual: u64) {
    let (e, a) = (estimated as f64, actual as f64);
    assert!(a > 0.0, "{what}: nothing actual to compare with");
    let off = (e - a).abs() / a;
    assert!(off <= 0.25, "{what}: estimated {estimated}, actual {actual} ({:.0} % off)", off * 100.0);
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn an_insert_of_the_sample_costs_what_its_dry_run_estimated_within_a_quarter() {
    let kb = kb();
    let estimate = kb.json(&["insert", "--dry-run", "--json", path_str(&sample())]);
    assert_eq!(estimate["documents"], 4, "{estimate:#}");
    assert!(u(&estimate["chunks"]) >= 4, "{estimate:#}");

    let summary = kb.json(&["insert", "--json", path_str(&sample())]);
    assert_eq!(summary["documents_processed"], 4, "{summary:#}");
    assert_eq!(summary["chunks"], estimate["chunks"], "the dry run chunks as the insert does");

    // calls as the scripted LLM counted them
    let stats = kb.server.stats();
    let llm = &estimate["llm"];
    assert_eq!(u(&llm["extraction_calls"]), stats.extract, "one extraction per chunk");
    assert_eq!(u(&llm["gleaning_calls"]), stats.glean, "one gleaning per chunk");
    within_a_quarter("LLM calls", u(&llm["calls"]), stats.chat_calls());

    // tokens as the usage ledger counted them
    let status = kb.json(&["status", "--json"]);
    let usage = &status["usage"];
    let ledger = |field: &str| ["extract", "summary"].iter().map(|r| usage[*r][field].as_u64().unwrap_or(0)).sum();
    within_a_quarter("input tokens", u(&llm["tokens_in"]), ledger("tokens_in"));
    within_a_quarter("output tokens", u(&llm["tokens_out"]), ledger("tokens_out"));

    // the insert printed the same estimate beside the actual figures
    let compared = &summary["estimate"];
    assert_eq!(compared["estimated"]["tokens_in"], llm["tokens_in"], "{summary:#}");
    assert_eq!(u(&compared["actual"]["llm_calls"]), stats.chat_calls(), "{summary:#}");

    // and the documents keep their extraction estimate beside its actual usage
    let extraction = &status["extraction"];
    assert_eq!(u(&extraction["estimated"]["llm_calls"]), stats.extract + stats.glean, "{extraction:#}");
    assert_eq!(u(&extraction["actual"]["llm_calls"]), stats.extract + stats.glean, "{extraction:#}");
    within_a_quarter(
        "documents' extraction output",
        u(&extraction["estimated"]["tokens_out"]),
        u(&extraction["actual"]["tokens_out"]),
    );
}

#[test]
fn a_dry_run_calls_no_model_and_writes_nothing() {
    let kb = kb();
    let text = kb.ok(&["insert", "--dry-run", path_str(&sample())]);
    assert!(text.contains("4 to index"), "{text}");
    assert!(text.contains("LLM calls:"), "{text}");
    let stats = kb.server.stats();
    assert_eq!(stats.chat_calls(), 0, "a dry run calls no chat model");
    assert_eq!(stats.embed, 0, "a dry run embeds nothing");
    assert!(!kb.working_dir().exists(), "a dry run on a new knowledge base does not create it");

    // once indexed, the same files are left out of the estimate, and the store does not change
    kb.ok(&["insert", path_str(&sample())]);
    let before = kb.json(&["status", "--json"]);
    kb.server.reset_stats();
    let again = kb.json(&["insert", "--dry-run", "--json", path_str(&sample())]);
    assert_eq!(again["documents"], 0, "{again:#}");
    assert_eq!(again["skipped"].as_array().unwrap().len(), 4, "{again:#}");
    assert!(again["skipped"][0]["reason"].as_str().unwrap().contains("already stored"), "{again:#}");
    assert_eq!(again["llm"]["calls"], 0, "{again:#}");
    assert_eq!(kb.server.stats().chat_calls(), 0);
    assert_eq!(kb.server.stats().embed, 0);
    assert_eq!(kb.json(&["status", "--json"]), before, "a dry run changes nothing in the store");
}

#[test]
fn a_dry_run_prices_the_tokens_at_the_configured_prices() {
    let mut kb = kb();
    kb.set("LLM_PRICE_INPUT", "1").set("LLM_PRICE_OUTPUT", "2").set("EMBEDDING_PRICE", "0.5");
    let estimate = kb.json(&["insert", "--dry-run", "--json", path_str(&sample())]);
    let cost = &estimate["cost"];
    let tokens_in = u(&estimate["llm"]["tokens_in"]) as f64;
    let tokens_out = u(&estimate["llm"]["tokens_out"]) as f64;
    let embedded = u(&estimate["embedding"]["tokens"]) as f64;
    let expected = (tokens_in + 2.0 * tokens_out + 0.5 * embedded) / 1_000_000.0;
    let total = cost["total_usd"].as_f64().unwrap();
    assert!((total - expected).abs() < 1e-9, "{cost:#}: expected {expected}");
    assert_eq!(cost["prices"]["llm_output"], 2.0);
}

#[test]
fn a_document_that_cannot_be_chunked_is_left_out_of_the_estimate_and_still_recorded_as_failed() {
    let mut kb = kb();
    kb.set("CHUNK_SIZE", "20").set("CHUNK_OVERLAP_SIZE", "5");
    let docs = kb.write_docs(&[("big.txt", crate::common::WHALING)]);
    let args = ["insert", "--split-by-character", "\\n\\n", "--split-by-character-only"];
    let dry = kb.json(&[&args[..], &["--dry-run", "--json", path_str(&docs)]].concat());
    assert_eq!(dry["documents"], 0, "{dry:#}");
    assert!(dry["skipped"][0]["reason"].as_str().unwrap().starts_with("would fail"), "{dry:#}");
    let out = kb.run(&[&args[..], &[path_str(&docs)]].concat());
    assert!(!out.status.success());
    assert_eq!(kb.json(&["status", "--json"])["documents"][0]["status"], "failed");
}
