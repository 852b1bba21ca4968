//! `lightrag delete ID…` deletes the documents in one pass (issue 28 item 2): the graph equals
//! deleting them one command at a time, with fewer summary calls; an unknown id is reported, not
//! an error; and the same holds on PostgreSQL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use serde_json::Value;

use common::kill::corpus;
use common::pg::{database_url, unique};
use common::{Kb, path_str};

/// Documents inserted one at a time (the same merge order in every knowledge base), hub entities
/// cut at three chunks, summaries from three description fragments.
fn kb() -> Kb {
    let mut kb = Kb::new();
    kb.set("CHUNK_SIZE", "80")
        .set("CHUNK_OVERLAP_SIZE", "10")
        .set("MAX_PARALLEL_INSERT", "1")
        .set("MAX_SOURCE_IDS_PER_ENTITY", "3")
        .set("MAX_SOURCE_IDS_PER_RELATION", "3")
        .set("FORCE_LLM_SUMMARY_ON_MERGE", "3");
    kb
}

/// Inserts the corpus and returns the ids of the documents to delete.
fn built(kb: &Kb, victims: &[usize]) -> Vec<String> {
    let docs = corpus();
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let dir = kb.write_docs(&refs);
    kb.ok(&["insert", path_str(&dir)]);
    victims.iter().map(|i| kb.doc_id(&format!("doc{i}.txt")).unwrap()).collect()
}

fn remaining(kb: &Kb) -> Vec<String> {
    let status = kb.json(&["status", "--json"]);
    let mut files: Vec<String> =
        status["documents"].as_array().unwrap().iter().map(|d| d["file_path"].as_str().unwrap().to_string()).collect();
    files.sort();
    files
}

/// Deletes `ids` (and an id of no document) with one `lightrag delete`; returns its report and
/// the summary calls it made.
fn delete_at_once(kb: &Kb, ids: &[String]) -> (Value, u64) {
    let before = kb.server.stats().summary;
    let mut args = vec!["delete"];
    args.extend(ids.iter().map(String::as_str));
    args.extend(["doc-none", "--json"]);
    let report = kb.json(&args);
    (report, kb.server.stats().summary - before)
}

/// Regression for deleting N documents rebuilding their shared entities N times (LightRAG
/// #2795): one command deletes them in one pass, asks fewer summaries than one command per
/// document, and leaves the same graph.
#[test]
fn one_delete_command_of_several_documents_equals_one_command_per_document() {
    let victims = [0usize, 2, 3, 5];
    let (together, apart) = (kb(), kb());
    let ids = built(&together, &victims);
    assert_eq!(built(&apart, &victims), ids, "the same documents");
    assert_eq!(together.graph(), apart.graph(), "the two knowledge bases start equal");

    let (report, summaries_together) = delete_at_once(&together, &ids);
    let deleted: Vec<&str> =
        report["deleted"].as_array().unwrap().iter().map(|d| d["doc_id"].as_str().unwrap()).collect();
    assert_eq!(deleted, ids.iter().map(String::as_str).collect::<Vec<_>>(), "{report}");
    assert_eq!(report["not_found"], serde_json::json!(["doc-none"]), "an unknown id is reported: {report}");
    assert_eq!(report["passes"], 1, "{report}");
    assert!(!report["entities_rebuilt"].as_array().unwrap().is_empty(), "shared entities rebuilt: {report}");

    let before = apart.server.stats().summary;
    for id in &ids {
        apart.ok(&["delete", id]);
    }
    let summaries_apart = apart.server.stats().summary - before;
    assert_eq!(together.graph(), apart.graph(), "one pass = one document at a time");
    assert_eq!(remaining(&together), remaining(&apart));
    assert_eq!(remaining(&together), vec!["doc1.txt", "doc4.txt"]);
    assert!(
        summaries_together < summaries_apart,
        "{summaries_together} summary calls in one pass, {summaries_apart} one at a time"
    );

    // the same command again: nothing left to delete, and it succeeds
    let (again, _) = delete_at_once(&together, &ids);
    assert_eq!(again["deleted"], serde_json::json!([]), "{again}");
    assert_eq!(again["not_found"].as_array().unwrap().len(), ids.len() + 1, "{again}");
}

/// On PostgreSQL, one `lightrag delete` of several documents leaves the graph that deleting them
/// one at a time leaves on SQLite.
#[test]
fn on_postgres_one_delete_command_equals_one_command_per_document_on_sqlite() {
    let victims = [1usize, 2, 4];
    let sqlite = kb();
    let ids = built(&sqlite, &victims);
    for id in &ids {
        sqlite.ok(&["delete", id]);
    }

    let mut pg = kb();
    pg.set("DATABASE_URL", &database_url()).set("POSTGRES_WORKSPACE", &unique("cli_batch_delete"));
    assert_eq!(built(&pg, &victims), ids);
    let (report, _) = delete_at_once(&pg, &ids);
    assert_eq!(report["deleted"].as_array().unwrap().len(), ids.len(), "{report}");
    assert_eq!(pg.graph(), sqlite.graph(), "PostgreSQL, one pass = SQLite, one document at a time");
    assert_eq!(remaining(&pg), remaining(&sqlite));
}
