//! Inserting a changed file again replaces the indexed version in place: only the chunks whose
//! text changed go to the LLM, the document keeps its id, and the graph equals a fresh build of
//! the new version; an unchanged file is refused (nothing written), as a REST upload is.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use crate::common;

use common::{Kb, path_str};
use rusqlite::Connection;

const PARAGRAPHS: usize = 24;
const EDITED: usize = 11;

/// Paragraph `i`: the recurring crew (shared by every chunk) and a harbour of its own.
fn paragraph(i: usize) -> String {
    format!(
        "In the voyage number {i} Captain Ahab sailed the Pequod to Harbour{i}. \
         Starbuck kept the log while Queequeg watched the sea near Harbour{i}."
    )
}

/// The document, one chunk per paragraph (paragraphs end at `§`); `edited` rewrites one paragraph in the middle: its
/// harbour is gone and a new person appears.
fn document(edited: bool) -> String {
    (0..PARAGRAPHS)
        .map(|i| {
            if edited && i == EDITED {
                "Later Captain Ahab met Fedallah aboard the Pequod. Fedallah spoke of prophecies to Starbuck.".into()
            } else {
                paragraph(i)
            }
        })
        .collect::<Vec<_>>()
        .join("\n§\n")
}

/// A knowledge base cutting at paragraphs, without the extraction cache: an unchanged chunk
/// extracted again would reach the LLM, so the requests counted are what the replacement sends.
fn kb() -> Kb {
    let mut kb = Kb::new();
    kb.set("CHUNK_F_SPLIT_BY_CHARACTER", "§").set("ENABLE_LLM_CACHE_FOR_EXTRACT", "false");
    kb
}

fn db(kb: &Kb) -> Connection {
    Connection::open(kb.working_dir().join("lightrag.db")).unwrap()
}

/// The texts of the stored chunks.
fn chunk_texts(kb: &Kb) -> Vec<String> {
    let conn = db(kb);
    let mut stmt = conn.prepare("SELECT content FROM chunks ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

fn check_is_clean(kb: &Kb) {
    let out = kb.run(&["check", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success(), "check failed: {report:#}");
    assert!(report["findings"].as_array().unwrap().is_empty(), "{report:#}");
}

#[test]
fn a_changed_file_is_replaced_in_place_extracting_only_its_changed_chunks() {
    let kb = kb();
    let file = kb.write_docs(&[("voyages.txt", &document(false))]).join("voyages.txt");
    kb.ok(&["insert", path_str(&file)]);
    let id = kb.doc_id("voyages.txt").unwrap();
    let old_chunks = chunk_texts(&kb);
    assert!(old_chunks.len() >= 20, "a document of at least 20 chunks: {}", old_chunks.len());
    assert!(kb.graph()["nodes"].as_array().unwrap().iter().any(|n| n["id"] == "Harbour11"));

    // one paragraph edited, inserted again by the same path (the dry run prices that chunk only)
    std::fs::write(&file, document(true)).unwrap();
    let estimate = kb.json(&["insert", "--dry-run", "--json", path_str(&file)]);
    assert_eq!((estimate["documents"].as_u64(), estimate["chunks"].as_u64()), (Some(1), Some(1)), "{estimate:#}");
    assert_eq!(estimate["llm"]["extraction_calls"], 1, "{estimate:#}");
    kb.server.reset_stats();
    let out = kb.ok(&["insert", path_str(&file)]);
    let new_chunks = chunk_texts(&kb);
    let known: HashSet<&String> = old_chunks.iter().collect();
    let changed = new_chunks.iter().filter(|c| !known.contains(c)).count();
    assert_eq!(changed, 1, "one paragraph, one chunk: {new_chunks:?}");
    assert_eq!(kb.server.stats().extract, changed as u64, "only the changed chunk is extracted");
    assert!(
        out.contains(&format!("replaced {id} ({} chunks reused, 1 re-extracted, 1 removed)", PARAGRAPHS - 1)),
        "{out}"
    );

    // same id, one document, processed, with its history
    assert_eq!(kb.doc_id("voyages.txt").as_deref(), Some(id.as_str()));
    let status = kb.json(&["status", "--json"]);
    let docs = status["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 1, "no duplicate record: {status:#}");
    assert_eq!(docs[0]["status"], "processed");
    let revisions = docs[0]["metadata"]["revisions"].as_array().unwrap();
    assert_eq!(revisions.len(), 1, "{status:#}");
    assert_eq!(revisions[0]["chunks_extracted"], 1);
    assert!(docs[0]["metadata"].get("replacing").is_none(), "{status:#}");

    // the graph a fresh build of the new version gives
    let graph = kb.graph();
    assert!(!graph["nodes"].as_array().unwrap().iter().any(|n| n["id"] == "Harbour11"), "vanished chunk's entity");
    assert!(graph["nodes"].as_array().unwrap().iter().any(|n| n["id"] == "Fedallah"));
    let fresh = self::kb();
    let fresh_file = fresh.write_docs(&[("voyages.txt", &document(true))]).join("voyages.txt");
    fresh.ok(&["insert", path_str(&fresh_file)]);
    assert_eq!(graph, fresh.graph(), "the replaced graph equals a fresh build of the new version");
    assert_eq!(new_chunks, chunk_texts(&fresh));
    check_is_clean(&kb);

    // the same file again: refused as the same content (as a REST upload is), nothing extracted
    kb.server.reset_stats();
    let again = kb.run(&["insert", path_str(&file)]);
    assert!(again.status.success(), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stderr).contains("with the same content"), "{again:?}");
    assert_eq!(kb.server.stats().extract, 0);
    assert_eq!(kb.graph(), graph);
}

#[test]
fn a_replacement_waiting_to_be_processed_leaves_the_old_version_queryable() {
    let kb = kb();
    let file = kb.write_docs(&[("voyages.txt", &document(false))]).join("voyages.txt");
    kb.ok(&["insert", path_str(&file)]);
    let graph = kb.graph();
    let chunks = chunk_texts(&kb);

    std::fs::write(&file, document(true)).unwrap();
    kb.ok(&["insert", "--no-wait", path_str(&file)]);
    let status = kb.json(&["status", "--json"]);
    let doc = &status["documents"][0];
    assert_eq!(doc["status"], "pending", "{status:#}");
    assert!(doc["metadata"]["replacing"]["previous_content_hash"].is_string(), "{status:#}");
    assert_eq!(kb.graph(), graph, "the old version stays live until the replacement commits");
    assert_eq!(chunk_texts(&kb), chunks);
    check_is_clean(&kb);

    kb.ok(&["process"]);
    let fresh = self::kb();
    let fresh_file = fresh.write_docs(&[("voyages.txt", &document(true))]).join("voyages.txt");
    fresh.ok(&["insert", path_str(&fresh_file)]);
    assert_eq!(kb.graph(), fresh.graph());
    check_is_clean(&kb);
}

/// The document with every paragraph but the first four rewritten (a replacement that extracts
/// twenty chunks, long enough to be killed in the middle).
fn rewritten() -> String {
    (0..PARAGRAPHS)
        .map(|i| if i < 4 { paragraph(i) } else { format!("Captain Ahab charted Island{i} with Starbuck beside him.") })
        .collect::<Vec<_>>()
        .join("\n§\n")
}

#[test]
fn a_replacement_killed_midway_keeps_the_old_version_and_finishes_when_run_again() {
    use std::time::{Duration, Instant};
    let mut kb = Kb::with_config(lightrag_scripted_llm::ScriptConfig {
        delay: Duration::from_millis(250),
        ..Default::default()
    });
    kb.set("CHUNK_F_SPLIT_BY_CHARACTER", "§").set("MAX_ASYNC", "2");
    let file = kb.write_docs(&[("voyages.txt", &document(false))]).join("voyages.txt");
    kb.ok(&["insert", path_str(&file)]);
    let old_graph = kb.graph();

    std::fs::write(&file, rewritten()).unwrap();
    let mut child = kb.cmd().args(["insert", path_str(&file)]).spawn().unwrap();
    // killed once the replacement has been extracting for a while
    let started = Instant::now();
    loop {
        assert!(started.elapsed() < Duration::from_secs(60), "the replacement never started");
        let status = kb.json(&["status", "--json"]);
        if status["documents"][0]["status"] == "processing" {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();

    // killed before the commit (twenty chunks at 250 ms a call take seconds, longer than a slow
    // `status` call on a loaded machine; at 40 ms the replacement once finished first): the old version whole
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["documents"][0]["status"], "processing", "killed midway: {status:#}");
    assert_eq!(kb.graph(), old_graph, "the old version stays whole");

    // the same insert again finishes the replacement
    let out = kb.run(&["insert", path_str(&file)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("resuming"), "{}", String::from_utf8_lossy(&out.stderr));
    let fresh = self::kb();
    let fresh_file = fresh.write_docs(&[("voyages.txt", &rewritten())]).join("voyages.txt");
    fresh.ok(&["insert", path_str(&fresh_file)]);
    let new_graph = fresh.graph();
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["documents"].as_array().unwrap().len(), 1, "{status:#}");
    assert_eq!(status["documents"][0]["status"], "processed", "{status:#}");
    assert_eq!(kb.graph(), new_graph, "the resumed replacement gives the fresh build of the new version");
    check_is_clean(&kb);
}

/// A second document that shares the crew with [`document`].
fn logbook() -> String {
    (0..6)
        .map(|i| format!("Starbuck wrote of Captain Ahab in Logbook{i}. Queequeg carved Logbook{i} for the Pequod."))
        .collect::<Vec<_>>()
        .join("\n§\n")
}

#[test]
fn replacing_a_document_that_shares_entities_gives_the_graph_of_deleting_it_and_inserting_the_new_version() {
    let kb = kb();
    let logbook_file = kb.dir_docs("log", &[("logbook.txt", &logbook())]).join("logbook.txt");
    kb.ok(&["insert", path_str(&logbook_file)]);
    let file = kb.write_docs(&[("voyages.txt", &document(false))]).join("voyages.txt");
    kb.ok(&["insert", path_str(&file)]);
    std::fs::write(&file, document(true)).unwrap();
    kb.server.reset_stats();
    kb.ok(&["insert", path_str(&file)]);
    assert_eq!(kb.server.stats().extract, 1);

    // the other document first, then the new version: what the replaced knowledge base holds
    let fresh = self::kb();
    let fresh_log = fresh.dir_docs("log", &[("logbook.txt", &logbook())]).join("logbook.txt");
    fresh.ok(&["insert", path_str(&fresh_log)]);
    let fresh_file = fresh.write_docs(&[("voyages.txt", &document(true))]).join("voyages.txt");
    fresh.ok(&["insert", path_str(&fresh_file)]);
    assert_eq!(kb.graph(), fresh.graph());
    check_is_clean(&kb);
}

#[test]
fn on_postgres_a_changed_file_is_replaced_in_place() {
    let mut kb = kb();
    kb.set("DATABASE_URL", &common::pg::database_url()).set("POSTGRES_WORKSPACE", &common::pg::unique("cli_replace"));
    let logbook_file = kb.dir_docs("log", &[("logbook.txt", &logbook())]).join("logbook.txt");
    kb.ok(&["insert", path_str(&logbook_file)]);
    let file = kb.write_docs(&[("voyages.txt", &document(false))]).join("voyages.txt");
    kb.ok(&["insert", path_str(&file)]);
    let id = kb.doc_id("voyages.txt").unwrap();
    std::fs::write(&file, document(true)).unwrap();
    kb.server.reset_stats();
    let out = kb.ok(&["insert", path_str(&file)]);
    assert!(out.contains(&format!("replaced {id} (")), "{out}");
    assert_eq!(kb.server.stats().extract, 1, "only the changed chunk is extracted");
    assert_eq!(kb.doc_id("voyages.txt"), Some(id));

    let fresh = self::kb();
    let fresh_log = fresh.dir_docs("log", &[("logbook.txt", &logbook())]).join("logbook.txt");
    fresh.ok(&["insert", path_str(&fresh_log)]);
    let fresh_file = fresh.write_docs(&[("voyages.txt", &document(true))]).join("voyages.txt");
    fresh.ok(&["insert", path_str(&fresh_file)]);
    assert_eq!(kb.graph(), fresh.graph(), "PostgreSQL: the graph of the other document plus the new version");
    check_is_clean(&kb);
}

/// Regression (issue 26 item 12): cancelling a replacement midway left the document `failed:
/// cancelled by user` while its old chunks and graph still answered queries (unfiltered queries
/// cited it, a filter on its name saw no document) and `check` was clean. Now the old version is
/// given back whole — `processed`, its text, chunks, graph and metadata — and the cancelled
/// revision is recorded in its history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_replacement_gives_the_old_version_back_processed_and_records_the_revision() {
    use common::server::{Server, get_json};
    use std::time::{Duration, Instant};
    let mut kb = kb();
    kb.set("MAX_ASYNC", "2");
    let file = kb.write_docs(&[("voyages.txt", &document(false))]).join("voyages.txt");
    kb.ok(&["insert", "--meta", "team=ops", path_str(&file)]);
    let id = kb.doc_id("voyages.txt").unwrap();
    let old_graph = kb.graph();
    let old_chunks = chunk_texts(&kb);
    let old_row = kb.json(&["status", "--json"])["documents"][0].clone();
    let stored_hash = |kb: &Kb| -> String {
        db(kb).query_row("SELECT content_hash FROM doc_status WHERE id = ?1", [&id], |r| r.get(0)).unwrap()
    };
    let old_hash = stored_hash(&kb);

    // the new version waits; a server on the knowledge base takes it up at start, slowly
    std::fs::write(&file, rewritten()).unwrap();
    kb.ok(&["insert", "--no-wait", path_str(&file)]);
    kb.server.set_faults(vec![lightrag_scripted_llm::Fault::delay(300, u32::MAX)]);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let server = Server::start(&kb, &[], "http", &client).await;
    let started = Instant::now();
    loop {
        let status = get_json(&client, &server.url(&format!("/documents/track_status/{}", pending_track(&kb)))).await;
        if status["documents"][0]["status"] == "processing" {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the replacement never started: {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reply: serde_json::Value =
        client.post(server.url("/documents/cancel_pipeline")).send().await.unwrap().json().await.unwrap();
    assert_eq!(reply["status"], "cancellation_requested", "{reply}");
    let started = Instant::now();
    let row = loop {
        let status = kb.json(&["status", "--json"]);
        if status["documents"][0]["status"] != "processing" {
            break status["documents"][0].clone();
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the replacement was not cancelled: {status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    server.stop().await;
    kb.server.set_faults(Vec::new());

    // the old version, processed, as it was (but for its history)
    assert_eq!(row["status"], "processed", "{row:#}");
    assert_eq!(row["id"], id.as_str());
    for field in ["content_summary", "content_length", "chunks_count", "file_path", "created_at"] {
        assert_eq!(row[field], old_row[field], "{field}: {row:#}");
    }
    assert_eq!(stored_hash(&kb), old_hash, "the old version's content hash");
    assert_eq!(row["metadata"]["custom"], serde_json::json!({"team": "ops"}), "{row:#}");
    assert!(row["metadata"].get("replacing").is_none(), "{row:#}");
    let revisions = row["metadata"]["revisions"].as_array().unwrap();
    assert_eq!(revisions.len(), 1, "{row:#}");
    assert_eq!(revisions[0]["outcome"], "cancelled", "{row:#}");
    assert_eq!(revisions[0]["previous_content_hash"], old_hash.as_str(), "{row:#}");
    assert_eq!(
        revisions[0]["content_hash"],
        lightrag_engine::indexing::text::content_hash(&rewritten()),
        "the cancelled version: {row:#}"
    );
    assert_eq!(kb.graph(), old_graph, "the old version's graph");
    assert_eq!(chunk_texts(&kb), old_chunks, "and chunks");
    let text: String = db(&kb).query_row("SELECT content FROM documents WHERE id = ?1", [&id], |r| r.get(0)).unwrap();
    assert_eq!(text, document(false), "and text");

    // queries cite it, and a filter on its name sees it
    let question = "Who sailed the Pequod to Harbour11?";
    let all = kb.json(&["query", "--mode", "naive", "--json", question]);
    assert!(all["data"]["references"].to_string().contains("voyages.txt"), "{all}");
    let named = kb.json(&["query", "--mode", "naive", "--json", "--path", "voyages.txt", question]);
    assert_eq!(named["metadata"]["filter"]["documents"], 1, "{named}");
    assert!(named["data"]["references"].to_string().contains("voyages.txt"), "{named}");
    check_is_clean(&kb);

    // the new version can be inserted again, and replaces it
    let out = kb.ok(&["insert", path_str(&file)]);
    assert!(out.contains(&format!("replaced {id} (")), "{out}");
}

/// The track id of the one document's status row.
fn pending_track(kb: &Kb) -> String {
    kb.json(&["status", "--json"])["documents"][0]["track_id"].as_str().unwrap().to_string()
}
