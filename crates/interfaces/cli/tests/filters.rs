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

/// The LightRAG 1.5.7 `basic` fixture copied to `to`, with one document's file path replaced.
fn lightrag_fixture_with_file_path(to: &std::path::Path, file_path: &str) {
    let from = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tools/lightrag-import/tests/fixtures/lightrag-1.5.7/basic");
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    for file in ["kv_store_doc_status.json", "kv_store_full_docs.json"] {
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(to.join(file)).unwrap()).unwrap();
        let first = v.as_object_mut().unwrap().values_mut().next().unwrap();
        first["file_path"] = Value::String(file_path.to_string());
        std::fs::write(to.join(file), v.to_string()).unwrap();
    }
}

/// Regression (issue 26): a document name of any length was stored (a 300,000-character
/// `file_source`), and a query filter of 20,000 globs was matched against every document. Through
/// the real binary: `lightrag insert --file-source`, the stdio MCP tools and `import-lightrag`
/// refuse an over-long name with the same message naming the limit; `lightrag query` and MCP
/// `query` refuse a filter over its caps naming the option and the cap.
#[test]
fn over_long_names_and_filters_are_refused_by_insert_mcp_import_and_query() {
    let kb = Kb::new();
    let text = kb.write_docs(&[("note.txt", WHALING)]);
    // one command-line argument may hold at most 128 KiB on Linux: 100,000 is over the limit too
    let long = "n".repeat(100_000);
    let out = kb.run(&["insert", "--file-source", &long, path_str(&text.join("note.txt"))]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("--file-source 'nnnn") && err.contains("at most 255 bytes"), "{err}");
    assert!(err.len() < 1_000, "the name is not echoed whole: {}", err.len());

    let globs: Vec<String> = (0..101).flat_map(|i| ["--path".to_string(), format!("f{i}*.md")]).collect();
    let mut args: Vec<&str> = vec!["query", "--mode", "naive"];
    args.extend(globs.iter().map(String::as_str));
    args.push("Who sailed on the Pequod?");
    let out = kb.run(&args);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("--path") && err.contains("has 101 entries; at most 100"), "{err}");

    let mut client = crate::mcp::Client::start(kb.cmd());
    client.initialize();
    let huge = "m".repeat(300_000);
    let message = client.call_err("insert_text", serde_json::json!({"text": WHALING, "file_name": huge}));
    assert!(message.starts_with("file_name 'mmmm") && message.contains("at most 255 bytes"), "{message}");
    let many: Vec<String> = (0..20_000).map(|i| format!("f{i}*.md")).collect();
    let filter = serde_json::json!({"query": "Who sailed?", "filter": {"file_paths": many}});
    let message = client.call_err("query", filter);
    assert!(message.contains("filter.file_paths has 20000 entries; at most 100"), "{message}");
    assert!(client.close());

    let lightrag = kb.dir.path().join("lightrag-long-name");
    lightrag_fixture_with_file_path(&lightrag, &"p".repeat(300_000));
    let out = kb.run(&["import-lightrag", path_str(&lightrag)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("the file_path of document doc-") && err.contains("at most 255 bytes"), "{err}");
    let out = kb.run(&["import-lightrag", path_str(&lightrag), "--check", "--json"]);
    assert!(!out.status.success(), "--check says the import cannot run");
    let check: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(check["blocked"].as_str().is_some_and(|b| b.contains("at most 255 bytes")), "{check}");
    // nothing was stored by any of them
    assert_eq!(kb.json(&["status", "--json"])["documents"].as_array().unwrap().len(), 0);
}
