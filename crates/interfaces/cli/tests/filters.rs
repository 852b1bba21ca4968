//! `lightrag insert --meta` and `lightrag query --meta/--path/--doc-id/--created-before` through
//! the real binary over the scripted LLM: the query draws only on the passing documents.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{HARBOR, Kb, WHALING, path_str};
use serde_json::Value;

const SEP: &str = "<SEP>";

/// Every file path a `query --json` result names.
fn files(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for list in ["chunks", "references", "entities", "relationships"] {
        for item in v["data"][list].as_array().into_iter().flatten() {
            out.extend(item["file_path"].as_str().unwrap().split(SEP).map(str::to_string));
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn insert_meta_and_query_filters_restrict_what_a_query_draws_on() {
    let kb = Kb::new();
    let whaling = kb.dir_docs("a", &[("whaling.txt", WHALING)]);
    kb.ok(&["insert", "--meta", "team=ops", path_str(&whaling)]);
    let between = lightrag_engine::time::iso(lightrag_engine::time::now_ms() + 5);
    std::thread::sleep(std::time::Duration::from_millis(30));
    let harbor = kb.dir_docs("b", &[("harbor.txt", HARBOR)]);
    kb.ok(&["insert", "--metadata", r#"{"team": "port"}"#, "--meta", "year=2024", path_str(&harbor)]);
    let question = "Who lived in Nantucket and sailed on the Pequod?";

    let all = kb.json(&["query", "--mode", "mix", "--json", question]);
    assert_eq!(files(&all), ["harbor.txt", "whaling.txt"], "{all}");
    let said = all["data"]["entities"].to_string();
    assert!(said.contains("family") || said.contains("winter") || said.contains("busy"), "unfiltered: {said}");

    for mode in ["mix", "local", "naive", "ppr"] {
        let ops = kb.json(&["query", "--mode", mode, "--json", "--meta", "team=ops", question]);
        assert_eq!(files(&ops), ["whaling.txt"], "{mode}: {ops}");
        assert_eq!(ops["metadata"]["filter"]["documents"], 1, "{ops}");
        for e in ops["data"]["entities"].as_array().into_iter().flatten() {
            // sentences only harbor.txt has
            let d = e["description"].as_str().unwrap();
            assert!(!d.contains("family") && !d.contains("winter") && !d.contains("busy"), "{mode}: {e}");
        }
    }
    let port = kb.json(&["query", "--mode", "mix", "--json", "--meta", "year=2024", "--path", "harb*", question]);
    assert_eq!(files(&port), ["harbor.txt"], "{port}");
    let early = kb.json(&["query", "--mode", "naive", "--json", "--created-before", &between, question]);
    assert_eq!(files(&early), ["whaling.txt"], "{early}");
    let id = kb.doc_id("harbor.txt").unwrap();
    let by_id = kb.json(&["query", "--mode", "naive", "--json", "--doc-id", &id, question]);
    assert_eq!(files(&by_id), ["harbor.txt"], "{by_id}");
    let none = kb.json(&["query", "--mode", "mix", "--json", "--meta", "team=nobody", question]);
    assert_eq!(none["metadata"]["filter"]["documents"], 0, "{none}");
    assert!(none["data"]["chunks"].is_null(), "no data: {none}");

    let bad = kb.run(&["query", "--path", "[oops", question]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("[oops"), "{}", String::from_utf8_lossy(&bad.stderr));
    let bad = kb.run(&["query", "--created-after", "someday", question]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("RFC 3339"));
    let help = kb.ok(&["query", "--help"]);
    assert!(help.contains("--meta <KEY=VALUE>") && help.contains("--created-before <TIME>"), "{help}");
}
