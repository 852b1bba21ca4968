//! A full disk and a read-only store, simulated by the `failpoints` feature of the SQLite store
//! (`LIGHTRAG_SQLITE_MAX_PAGES`: writes past that many pages fail with `SQLITE_FULL`, as on a full
//! disk; `LIGHTRAG_SQLITE_READ_ONLY`: the file is opened read-only, which `chmod` cannot do for
//! root). A full disk in the middle of an insert fails it with an error that says so and what to
//! do, keeps nothing half-committed, marks no document failed, and once space returns the next
//! run finishes with the graph of a run that never ran out of space. A read-only store gives a
//! clear error, not a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::kill::{check_after_kill, check_all_processed, corpus, kb, store_path};
use common::server::{Server, get_json};
use common::{Kb, path_str};

fn docs_dir(kb: &Kb, docs: &[(String, String)]) -> std::path::PathBuf {
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    kb.write_docs(&refs)
}

fn page_count(path: &Path) -> u64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA page_count", [], |r| r.get::<_, i64>(0)).unwrap() as u64
}

fn status_counts(kb: &Kb) -> serde_json::Value {
    kb.json(&["status", "--json"])["status_counts"].clone()
}

#[test]
fn a_full_disk_during_an_insert_loses_nothing_and_the_insert_resumes_when_space_returns() {
    let docs = &corpus()[..4];
    let reference = kb();
    reference.ok(&["insert", path_str(&docs_dir(&reference, docs))]);
    let expected = reference.graph();
    let full_size = page_count(&store_path(&reference));
    let empty = kb();
    empty.ok(&["status", "--json"]); // creates the empty store
    let needed = full_size - page_count(&store_path(&empty));

    // from "not one page more" (the documents cannot even be stored) to room for most of them
    let mut committed_some = false;
    for room in [0, needed / 4, needed / 2, needed * 3 / 4, needed * 9 / 10] {
        let victim = kb();
        victim.ok(&["status", "--json"]);
        let limit = page_count(&store_path(&victim)) + room;
        let context = format!("{room} pages of room of {needed} (LIGHTRAG_SQLITE_MAX_PAGES={limit})");
        let dir = docs_dir(&victim, docs);
        let out = victim
            .cmd()
            .env("LIGHTRAG_SQLITE_MAX_PAGES", limit.to_string())
            .args(["insert", path_str(&dir)])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{context}: the insert did not run out of space");
        assert!(!stderr.contains("panicked"), "{context}: {stderr}");
        assert!(
            stderr.contains("disk or database is full") && stderr.contains("free some disk space"),
            "{context}: the error says the disk is full and what to do: {stderr}"
        );
        check_after_kill(&victim, &context);
        let counts = status_counts(&victim);
        assert_eq!(counts["failed"].as_u64().unwrap_or(0), 0, "{context}: a document was marked failed: {counts}");
        committed_some |= counts["processed"].as_u64().unwrap_or(0) > 0;
        eprintln!("{context}: after the full disk {counts}");

        // space returns: the documents stored resume with `process`, the others come with `insert`
        if counts["all"].as_u64() == Some(docs.len() as u64) {
            victim.ok(&["process"]);
        } else {
            victim.ok(&["insert", path_str(&dir)]);
        }
        check_all_processed(&victim, &context);
        assert_eq!(victim.graph(), expected, "{context}: the graph differs from a run with enough space");
    }
    assert!(committed_some, "no run committed a document before the disk filled: the commit path was not tested");
}

/// `POST /documents/text` of `text` as `big.txt`: status and body.
async fn post_text(client: &reqwest::Client, server: &Server, text: &str) -> (u16, String) {
    let body = serde_json::json!({"text": text, "file_source": "big.txt"});
    let reply = client.post(server.url("/documents/text")).json(&body).send().await.unwrap();
    (reply.status().as_u16(), reply.text().await.unwrap())
}

/// A server whose store runs out of space answers 507 with the reason and what to do (not a bare
/// 500 naming its files), keeps nothing of the refused document, and accepts it once space returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_on_a_full_disk_answers_507_and_keeps_nothing() {
    let victim = kb();
    victim.ok(&["status", "--json"]);
    let limit = page_count(&store_path(&victim)) + 2;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let limit_env = limit.to_string();
    let server =
        Server::start_with_env(&victim, &[], &[("LIGHTRAG_SQLITE_MAX_PAGES", &limit_env)], "http", &client).await;
    // ~200 KB of distinct text needs far more than two 4 KiB pages
    let text: String = (0..4000).map(|i| format!("Sentence number {i} of the long document. ")).collect();
    let (status, body) = post_text(&client, &server, &text).await;
    assert_eq!(status, 507, "{body}");
    assert!(body.contains("disk or database is full") && body.contains("free some disk space"), "{body}");
    assert!(!body.contains(&*victim.dir.path().to_string_lossy()), "the body names a server path: {body}");
    let counts = get_json(&client, &server.url("/documents/status_counts")).await;
    assert_eq!(counts["status_counts"]["all"].as_u64().unwrap_or(0), 0, "the refused document was kept: {counts}");
    server.stop().await;
    check_after_kill(&victim, "server on a full disk");

    // space returns: the same request is accepted and indexed
    let client = reqwest::Client::new();
    let server = Server::start(&victim, &[], "http", &client).await;
    let (status, body) = post_text(&client, &server, &text).await;
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}

#[test]
fn a_read_only_store_gives_a_clear_error_not_a_panic() {
    let docs = corpus();
    let victim = kb();
    victim.ok(&["insert", path_str(&docs_dir(&victim, &docs[..1]))]);
    let before = victim.graph();

    let more = victim.dir_docs("more", &[(docs[1].0.as_str(), docs[1].1.as_str())]);
    let out = victim.cmd().env("LIGHTRAG_SQLITE_READ_ONLY", "1").args(["insert", path_str(&more)]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "an insert into a read-only store succeeded");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("read-only") && stderr.contains("write access"),
        "the error says the store is read-only and what to do: {stderr}"
    );
    check_after_kill(&victim, "read-only");
    assert_eq!(victim.graph(), before, "the read-only run changed nothing");
}
