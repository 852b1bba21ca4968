//! End-to-end tests through the real `lightrag` binary and the scripted OpenAI-compatible server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{HARBOR, Kb, LIBRARY, WHALING, node, path_str};

fn file_paths(node: &serde_json::Value) -> Vec<String> {
    node["file_path"].as_str().unwrap().split("<SEP>").map(str::to_string).collect()
}

#[test]
fn insert_query_delete_reinsert_round_trip() {
    let kb = Kb::new();
    let docs = kb.write_docs(&[("whaling.txt", WHALING), ("harbor.txt", HARBOR), ("library.txt", LIBRARY)]);
    let summary = kb.json(&["insert", path_str(&docs), "--json"]);
    assert_eq!(summary["documents_processed"], 3, "{summary}");
    assert_eq!(summary["documents_failed"], 0);
    assert!(summary["llm_calls"].as_u64().unwrap() >= 6, "extraction + gleaning per chunk: {summary}");

    // the graph has the expected entities with provenance
    let graph = kb.graph();
    let nantucket = node(&graph, "Nantucket").expect("Nantucket extracted");
    let mut paths = file_paths(nantucket);
    paths.sort();
    assert_eq!(paths, vec!["harbor.txt", "whaling.txt"], "shared entity keeps both sources");
    assert!(nantucket["source_id"].as_str().unwrap().contains("-chunk-000"));
    let queequeg = node(&graph, "Queequeg").expect("Queequeg extracted");
    assert_eq!(file_paths(queequeg), vec!["whaling.txt"]);
    assert!(node(&graph, "Oxford").is_some());
    assert!(graph["edges"].as_array().unwrap().iter().any(|e| {
        let pair = [e["source"].as_str().unwrap(), e["target"].as_str().unwrap()];
        pair.contains(&"Bodleian Library") && pair.contains(&"Oxford")
    }));

    // every query mode answers with context and references
    for mode in ["local", "global", "hybrid", "naive", "mix"] {
        let out = kb.json(&["query", "--mode", mode, "--json", "Who sailed on the Pequod from Nantucket?"]);
        assert!(!out["response"].as_str().unwrap().is_empty(), "{mode}: {out}");
        assert!(!out["references"].as_array().unwrap().is_empty(), "{mode}: no references: {out}");
        assert!(!out["data"]["chunks"].as_array().unwrap().is_empty(), "{mode}: no chunks");
        assert_eq!(out["metadata"]["query_mode"], mode);
        if mode != "naive" {
            let names: Vec<&str> = out["data"]["entities"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["entity_name"].as_str().unwrap())
                .collect();
            assert!(!names.is_empty(), "{mode}: no entities");
        }
    }
    let context = kb.ok(&["query", "--mode", "local", "--only-context", "Queequeg"]);
    assert!(
        context.contains("Knowledge Graph Data (Entity)") && context.contains("Reference Document List"),
        "{context}"
    );
    let bypass = kb.json(&["query", "--mode", "bypass", "--json", "Say hello"]);
    assert!(bypass["response"].as_str().unwrap().contains("Say hello"), "{bypass}");

    // delete one document: exactly its contributions go
    let status = kb.json(&["status", "--json"]);
    let whaling_id = status["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["file_path"] == "whaling.txt")
        .map(|d| d["id"].as_str().unwrap().to_string())
        .unwrap();
    let deleted = kb.json(&["delete", &whaling_id, "--json"]);
    assert!(deleted["entities_deleted"].as_array().unwrap().iter().any(|e| e == "Queequeg"), "{deleted}");
    let after = kb.graph();
    assert!(node(&after, "Queequeg").is_none(), "entity only in the deleted document is gone");
    let nantucket = node(&after, "Nantucket").expect("shared entity survives");
    assert_eq!(file_paths(nantucket), vec!["harbor.txt"]);
    assert!(!after.to_string().contains(&whaling_id), "no provenance of the deleted document remains");

    // ...and the result equals a knowledge base built without that document
    let fresh = Kb::new();
    let fresh_docs = fresh.write_docs(&[("harbor.txt", HARBOR), ("library.txt", LIBRARY)]);
    fresh.ok(&["insert", path_str(&fresh_docs)]);
    assert_eq!(after, fresh.graph(), "delete + rebuild equals a build without the document");

    // re-inserting a document already there is a recorded duplicate, not a re-index
    let before = kb.server.stats();
    let again = kb.json(&["insert", path_str(&docs.join("harbor.txt")), "--json"]);
    assert_eq!(again["documents_duplicate"], 1, "{again}");
    assert_eq!(again["documents_processed"], 0);
    assert_eq!(kb.server.stats().chat_calls(), before.chat_calls(), "no LLM call for a duplicate");
    assert_eq!(kb.graph(), after);
}

#[test]
fn reinserting_a_deleted_document_hits_the_cache() {
    let kb = Kb::new();
    let docs = kb.write_docs(&[("whaling.txt", WHALING)]);
    kb.ok(&["insert", path_str(&docs)]);
    let built = kb.graph();
    let id = kb.json(&["status", "--json"])["documents"][0]["id"].as_str().unwrap().to_string();
    kb.ok(&["delete", &id]);
    assert_eq!(kb.graph()["nodes"].as_array().unwrap().len(), 0);
    let calls = kb.server.stats().chat_calls();
    let summary = kb.json(&["insert", path_str(&docs), "--json"]);
    assert_eq!(summary["documents_processed"], 1);
    assert_eq!(kb.server.stats().chat_calls(), calls, "extraction answers come from the LLM cache");
    assert_eq!(kb.graph(), built);
}

#[test]
fn delete_llm_cache_makes_a_reinsert_ask_the_llm_again() {
    let kb = Kb::new();
    let docs = kb.write_docs(&[("whaling.txt", WHALING)]);
    let before = kb.server.stats().chat_calls();
    kb.ok(&["insert", path_str(&docs)]);
    let extraction_calls = kb.server.stats().chat_calls() - before;
    assert!(extraction_calls > 0);
    let built = kb.graph();
    let id = kb.json(&["status", "--json"])["documents"][0]["id"].as_str().unwrap().to_string();
    let report = kb.json(&["delete", &id, "--delete-llm-cache", "--json"]);
    assert!(report["cache_entries_deleted"].as_u64().unwrap() >= 1, "{report}");
    let calls = kb.server.stats().chat_calls();
    kb.ok(&["insert", path_str(&docs)]);
    assert_eq!(kb.server.stats().chat_calls() - calls, extraction_calls, "every extraction call is made again");
    assert_eq!(kb.graph(), built);
}

#[test]
fn status_lists_documents_with_track_ids_and_counts() {
    let kb = Kb::new();
    let docs = kb.write_docs(&[("a.txt", WHALING), ("b.txt", HARBOR)]);
    kb.ok(&["insert", path_str(&docs), "--no-wait", "--track-id", "mytrack"]);
    let status = kb.json(&["status", "--json", "--track-id", "mytrack"]);
    assert_eq!(status["status_counts"]["pending"], 2, "{status}");
    kb.ok(&["process"]);
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processed"], 2);
    for d in status["documents"].as_array().unwrap() {
        assert_eq!(d["track_id"], "mytrack");
        assert!(d["chunks_count"].as_u64().unwrap() >= 1);
    }
    let text = kb.ok(&["status"]);
    assert!(text.contains("processed") && text.contains("a.txt"), "{text}");
}

#[test]
fn stdin_and_split_by_character_options() {
    let kb = Kb::new();
    let mut child = kb
        .cmd()
        .args(["insert", "-", "--file-source", "notes.md", "--split-by-character", "\\n\\n"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(format!("{WHALING}\n\n{HARBOR}").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["documents"][0]["file_path"], "notes.md");
    assert_eq!(status["documents"][0]["chunks_count"], 2, "one chunk per paragraph");

    // a piece larger than CHUNK_SIZE with --split-by-character-only fails the document clearly
    let mut small = Kb::new();
    small.set("CHUNK_SIZE", "20").set("CHUNK_OVERLAP_SIZE", "5");
    let docs = small.write_docs(&[("big.txt", WHALING)]);
    let out = small.run(&["insert", path_str(&docs), "--split-by-character", "\\n\\n", "--split-by-character-only"]);
    assert!(!out.status.success());
    let status = small.json(&["status", "--json"]);
    assert_eq!(status["documents"][0]["status"], "failed");
    assert!(status["documents"][0]["error_msg"].as_str().unwrap().contains("CHUNK_SIZE"), "{status}");
}

#[test]
fn graph_stats_and_exports() {
    let kb = Kb::new();
    let docs = kb.write_docs(&[("a.txt", WHALING), ("b.txt", HARBOR)]);
    kb.ok(&["insert", path_str(&docs)]);
    let stats = kb.json(&["graph", "stats", "--json", "--top", "3"]);
    assert!(stats["nodes"].as_u64().unwrap() > 5);
    assert_eq!(stats["top_entities"].as_array().unwrap().len(), 3);
    let graphml = kb.ok(&["graph", "export", "--format", "graphml"]);
    assert!(
        graphml.contains("<graphml") && graphml.contains("Nantucket") && graphml.contains("edgedefault=\"undirected\"")
    );
    let out = kb.dir.path().join("g.csv");
    kb.ok(&["graph", "export", "--format", "csv", "-o", path_str(&out)]);
    let csv = std::fs::read_to_string(out).unwrap();
    assert!(csv.lines().count() > 5 && csv.starts_with("type,"));
    let bad = kb.run(&["graph", "export", "--format", "xml"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(err.lines().count(), 1, "one-line error: {err}");
}

#[test]
fn bad_configuration_is_a_clear_error() {
    let mut kb = Kb::new();
    kb.set("CHUNK_SIZE", "lots");
    let out = kb.run(&["status"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("CHUNK_SIZE") && err.lines().count() == 1, "{err}");
}

#[test]
fn embedding_model_change_is_refused() {
    let mut kb = Kb::new();
    let docs = kb.write_docs(&[("a.txt", LIBRARY)]);
    kb.ok(&["insert", path_str(&docs)]);
    kb.set("EMBEDDING_MODEL", "other-model");
    let out = kb.run(&["query", "Oxford"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("scripted") && err.contains("other-model"), "{err}");
}

#[test]
fn llm_binding_none_returns_the_context() {
    let mut kb = Kb::new();
    let docs = kb.write_docs(&[("a.txt", LIBRARY)]);
    kb.ok(&["insert", path_str(&docs)]);
    kb.set("LLM_BINDING", "none");
    let out = kb.ok(&["query", "--mode", "mix", "Who founded the Bodleian Library?"]);
    assert!(out.contains("Document Chunks") && out.contains("Thomas Bodley"), "{out}");
}

#[test]
fn transient_llm_errors_are_retried() {
    let kb = Kb::new();
    kb.server.push_fault(lightrag_scripted_llm::Fault::rate_limit(2));
    kb.server.push_fault(lightrag_scripted_llm::Fault::server_error(1));
    let docs = kb.write_docs(&[("a.txt", LIBRARY)]);
    let summary = kb.json(&["insert", path_str(&docs), "--json"]);
    assert_eq!(summary["documents_processed"], 1, "{summary}");
    assert_eq!(kb.server.stats().status_count(429), 2);
}

/// Provider faults injected many times — connections dropped mid-answer (chat and embeddings),
/// answers slower than `LLM_TIMEOUT`, 5xx — are retried, and the graph is the one a run without
/// faults builds.
#[test]
fn provider_resets_timeouts_and_errors_are_retried_to_the_same_graph() {
    use lightrag_scripted_llm::{Fault, RouteKind};
    let docs = [("a.txt", LIBRARY), ("b.txt", HARBOR)];
    let clean = Kb::new();
    clean.ok(&["insert", path_str(&clean.write_docs(&docs))]);

    let mut kb = Kb::new();
    kb.set("LLM_MAX_RETRIES", "8").set("LLM_TIMEOUT", "1").set("EMBEDDING_TIMEOUT", "1");
    for _ in 0..3 {
        kb.server.push_fault(Fault::reset(1).on_route(RouteKind::Chat));
        kb.server.push_fault(Fault::reset(1).on_route(RouteKind::Embed));
        kb.server.push_fault(Fault::server_error(1));
    }
    kb.server.push_fault(Fault::delay(1500, 1).on_route(RouteKind::Chat));
    let summary = kb.json(&["insert", path_str(&kb.write_docs(&docs)), "--json"]);
    assert_eq!(summary["documents_processed"], 2, "{summary}");
    assert!(kb.server.pending_faults().is_empty(), "every fault was served");
    assert_eq!(kb.graph(), clean.graph());
}

#[test]
fn malformed_extraction_output_does_not_fail_the_document() {
    let kb = Kb::new();
    kb.server.push_fault(lightrag_scripted_llm::Fault::malformed_extraction(5));
    let docs = kb.write_docs(&[("a.txt", LIBRARY), ("b.txt", HARBOR)]);
    let summary = kb.json(&["insert", path_str(&docs), "--json"]);
    assert_eq!(summary["documents_processed"], 2, "{summary}");
    assert!(summary["entities"].as_u64().unwrap() > 0);
    assert!(kb.server.stats().faults_injected >= 1, "the malformed answers were really served");
}

#[test]
fn permanent_llm_errors_fail_the_document_with_the_error() {
    let kb = Kb::new();
    kb.server.push_fault(lightrag_scripted_llm::Fault::status(401, 50));
    let docs = kb.write_docs(&[("a.txt", LIBRARY)]);
    let out = kb.run(&["insert", path_str(&docs)]);
    assert!(!out.status.success());
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["documents"][0]["status"], "failed");
    assert!(status["documents"][0]["error_msg"].as_str().unwrap().contains("401"), "{status}");
    // once the provider is fixed, `process` retries failed documents
    kb.server.set_faults(Vec::new());
    kb.ok(&["process"]);
    assert_eq!(kb.json(&["status", "--json"])["documents"][0]["status"], "processed");
}

#[test]
fn streaming_prompt_only_and_usage_ledger() {
    let kb = Kb::new();
    let docs = kb.write_docs(&[("library.txt", LIBRARY)]);
    kb.ok(&["insert", path_str(&docs)]);
    let streamed = kb.ok(&["query", "--stream", "--mode", "naive", "Who founded the Bodleian Library?"]);
    assert!(streamed.contains("Answer based on"), "{streamed}");
    assert!(kb.server.stats().streamed >= 1, "the answer was streamed");
    let prompt = kb.ok(&["query", "--only-prompt", "--user-prompt", "Answer in one line.", "Who founded it?"]);
    assert!(prompt.contains("---User Query---") && prompt.contains("Who founded it?"), "{prompt}");
    assert!(prompt.contains("Answer in one line."), "user prompt is in the system prompt");
    // keywords given by the caller skip the keyword call
    let before = kb.server.stats().keywords;
    kb.ok(&[
        "query",
        "--mode",
        "local",
        "--ll-keywords",
        "Oxford",
        "--hl-keywords",
        "libraries",
        "--only-context",
        "x y z",
    ]);
    assert_eq!(kb.server.stats().keywords, before);
    let status = kb.json(&["status", "--json"]);
    let usage = &status["usage"];
    assert!(usage["extract"]["calls"].as_u64().unwrap() >= 2, "{usage}");
    assert!(usage["extract"]["tokens_in"].as_u64().unwrap() > 0);
    assert!(usage["embed"]["calls"].as_u64().unwrap() >= 1);
    assert!(usage["answer"]["calls"].as_u64().unwrap() >= 1);
}

/// A `.env` written for the Python server may set features we do not have: say so instead of
/// silently doing something else.
#[test]
fn lightrag_settings_we_ignore_are_warned_about() {
    let mut kb = Kb::new();
    kb.set("LIGHTRAG_GRAPH_STORAGE", "Neo4JStorage")
        .set("VLM_LLM_MODEL", "gpt-4o-mini")
        .set("LIGHTRAG_KV_STORAGE", "JsonKVStorage");
    let out = kb.run(&["status"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("LIGHTRAG_GRAPH_STORAGE (from the environment) is ignored"), "{stderr}");
    assert!(stderr.contains("VLM_LLM_MODEL (from the environment) is ignored"), "{stderr}");
    assert!(!stderr.contains("LIGHTRAG_KV_STORAGE"), "the default backend needs no warning: {stderr}");
}

/// LightRAG's role models: `QUERY_LLM_*` answers, `EXTRACT_LLM_*` extracts, the main model does
/// the rest; unset role fields fall back to `LLM_*`.
#[test]
fn role_llms_take_the_calls_of_their_role() {
    use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm};
    let answers = ScriptedLlm::start_blocking(ScriptConfig::default()).unwrap();
    let extractor = ScriptedLlm::start_blocking(ScriptConfig::default()).unwrap();
    let mut kb = Kb::new();
    kb.set("QUERY_LLM_BINDING_HOST", &answers.base_url()).set("EXTRACT_LLM_BINDING_HOST", &extractor.base_url());
    let docs = kb.write_docs(&[("whaling.txt", WHALING)]);
    kb.ok(&["insert", path_str(&docs)]);
    assert!(extractor.stats().chat_calls() > 0, "extraction went to EXTRACT_LLM_*");
    assert_eq!(kb.server.stats().chat_calls(), 0, "nothing of the indexing went to the main model");
    assert_eq!(answers.stats().chat_calls(), 0);
    let answer = kb.json(&["query", "--mode", "local", "--json", "Who sailed on the Pequod?"]);
    assert!(answer["response"].as_str().is_some_and(|r| !r.is_empty()), "{answer}");
    assert_eq!(answers.stats().chat_calls(), 1, "the answer came from QUERY_LLM_*");
    assert_eq!(kb.server.stats().chat_calls(), 1, "keywords from the main model (no KEYWORD_LLM_*)");
}

/// Regression: a document reader's panic was caught (the file is reported unreadable) but the
/// panic also wrote a whole backtrace into the log. It is one log line now; the stack only with
/// `RUST_BACKTRACE=1`.
#[test]
fn a_reader_panic_is_one_log_line_not_a_backtrace() {
    let kb = Kb::new();
    let pdf = lightrag_doc_text::testing::pdf(&["Some text"]);
    let at = pdf.windows(16).position(|w| w == b"/WinAnsiEncoding").unwrap();
    let bad = [&pdf[..at], b"/WinAnsiXncoding".as_slice(), &pdf[at + 16..]].concat();
    let path = kb.dir.path().join("odd-font.pdf");
    std::fs::write(&path, bad).unwrap();
    let out = kb.run(&["insert", path_str(&path)]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("odd-font.pdf") && stderr.contains("reader failure"), "{stderr}");
    assert_eq!(stderr.matches("panic").count(), 1, "one line about the panic: {stderr}");
    assert!(!stderr.contains("stack backtrace") && !stderr.contains("RUST_BACKTRACE"), "{stderr}");
}

/// `LOG_FORMAT=json` writes every log line as one JSON object (for log collectors).
#[test]
fn log_format_json_writes_json_lines() {
    let mut kb = Kb::new();
    kb.set("LOG_FORMAT", "json");
    let docs = kb.write_docs(&[("a.txt", WHALING)]);
    let out = kb.run(&["-v", "insert", path_str(&docs)]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let json_lines: Vec<serde_json::Value> =
        stderr.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(!json_lines.is_empty(), "{stderr}");
    assert!(json_lines.iter().all(|l| l["level"].is_string() && l["fields"].is_object()), "{stderr}");
    assert!(!stderr.lines().any(|l| l.contains(" INFO ")), "no text lines: {stderr}");
}
