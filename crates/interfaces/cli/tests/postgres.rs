//! The PostgreSQL store through the real binary: three `lightrag worker` processes on one
//! PostgreSQL workspace build the same graph as one process on the SQLite file; a second
//! workspace of the same database stays empty. The server comes from `DATABASE_URL`, or else
//! `scripts/ensure-postgres.sh` installs and starts one (never skipped).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::process::Child;

use common::pg::{database_url, unique};

use common::workers::{corpus, finish, kb, projection, reference, refs, spawn_worker, wait_until_processing};
use common::{Kb, path_str};

#[test]
fn three_workers_on_postgres_build_the_graph_of_one_sqlite_process() {
    let docs = corpus(9);
    let expected = reference(&docs);

    let url = database_url();
    let mut pg = kb(30);
    pg.set("DATABASE_URL", &url).set("POSTGRES_WORKSPACE", &unique("cli_workers"));
    let dir = pg.write_docs(&refs(&docs));
    pg.ok(&["insert", "--no-wait", path_str(&dir)]);
    let workers: Vec<Child> = (0..3).map(|_| spawn_worker(&pg)).collect();
    let processed: usize = workers.into_iter().map(|w| finish(w).len()).sum();
    assert_eq!(processed, docs.len(), "every document processed exactly once");
    let status = pg.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processed"], docs.len() as u64, "{status}");
    assert_eq!(projection(&pg.graph()), expected, "PostgreSQL with three workers = SQLite with one process");
    let context = pg.ok(&["query", "--mode", "local", "--only-context", "Judge Baker"]);
    assert!(context.contains("Baker"), "queries read the graph from PostgreSQL:\n{context}");

    // Another workspace of the same database is another knowledge base.
    let mut other = kb(0);
    other.set("DATABASE_URL", &url).set("POSTGRES_WORKSPACE", &unique("cli_other"));
    let status = other.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processed"].as_u64().unwrap_or(0), 0, "{status}");
}

#[test]
fn on_postgres_a_killed_workers_documents_are_taken_over_after_its_lease() {
    let docs = corpus(6);
    let expected = reference(&docs);

    let mut pg = kb(150);
    pg.set("DATABASE_URL", &database_url()).set("POSTGRES_WORKSPACE", &unique("cli_kill")).set("LEASE_SECS", "3");
    let dir = pg.write_docs(&refs(&docs));
    pg.ok(&["insert", "--no-wait", path_str(&dir)]);
    let mut victim = spawn_worker(&pg);
    wait_until_processing(&pg);
    let survivors: Vec<Child> = (0..2).map(|_| spawn_worker(&pg)).collect();
    victim.kill().unwrap(); // SIGKILL: its lease is never released
    victim.wait().unwrap();
    let processed: usize = survivors.into_iter().map(|w| finish(w).len()).sum();
    assert!(processed > 0, "the survivors did the work");
    let status = pg.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processed"], docs.len() as u64, "every document processed: {status}");
    assert_eq!(status["status_counts"]["processing"].as_u64().unwrap_or(0), 0, "{status}");
    assert_eq!(projection(&pg.graph()), expected, "same graph as one uninterrupted SQLite process");
}

#[test]
fn migrate_creates_or_checks_the_postgresql_schema() {
    let mut pg = Kb::new();
    pg.set("DATABASE_URL", &database_url());
    let out = pg.ok(&["migrate"]);
    assert!(out.contains("is current"), "{out}");
    let out = pg.ok(&["migrate", "--check"]);
    assert!(out.contains("is current") && out.contains("pgvector"), "{out}");
    // Without PostgreSQL there is nothing to migrate ahead of time.
    let sqlite = Kb::new();
    let out = sqlite.ok(&["migrate", "--check"]);
    assert!(out.contains("SQLite file"), "{out}");
    // An unreachable server is an error that names it.
    let mut down = Kb::new();
    down.set("DATABASE_URL", "postgres://postgres@127.0.0.1:1/postgres");
    let out = down.run(&["migrate", "--check"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("127.0.0.1:1"), "{stderr}");
}

/// `lightrag copy` SQLite → PostgreSQL → SQLite: the knowledge base comes back equal (graph with
/// descriptions, documents, what queries find), a second copy into the same target does nothing,
/// and queries on PostgreSQL read the copied store.
#[test]
fn copy_round_trip_sqlite_postgres_sqlite_gives_the_knowledge_base_back() {
    let docs = corpus(5);
    let kb = kb(0);
    let dir = kb.write_docs(&refs(&docs));
    kb.ok(&["insert", path_str(&dir)]);
    let original = kb.working_dir();
    let (url, ws) = (database_url(), unique("cli_copy"));
    let from_sqlite = format!("sqlite:{}", original.display());

    let report = kb.json(&["copy", "--from", &from_sqlite, "--to", &url, "--to-workspace", &ws, "--json"]);
    assert_eq!(report["documents_copied"], 5, "{report}");
    assert!(report["entities"].as_u64().unwrap() > 10 && report["vectors"].as_u64().unwrap() > 20, "{report}");
    assert!(report["cache_entries"].as_u64().unwrap() > 0, "the extraction answers come along: {report}");
    let again = kb.json(&["copy", "--from", &from_sqlite, "--to", &url, "--to-workspace", &ws, "--json"]);
    assert_eq!(
        (again["documents_copied"].as_u64(), again["documents_skipped"].as_u64()),
        (Some(0), Some(5)),
        "{again}"
    );
    assert_eq!(again["entities"], 0, "{again}");

    let back = tempfile::tempdir().unwrap();
    let text =
        kb.ok(&["copy", "--from", &url, "--from-workspace", &ws, "--to", &format!("sqlite:{}", back.path().display())]);
    assert!(text.contains("5 copied"), "{text}");

    let view = |args: &[&str], working_dir: &Path| -> String {
        let out = kb.cmd().env("WORKING_DIR", working_dir).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let graph = |working_dir: &Path| -> serde_json::Value {
        let mut g: serde_json::Value =
            serde_json::from_str(&view(&["graph", "export", "--format", "json"], working_dir)).unwrap();
        for list in ["nodes", "edges"] {
            let items = g[list].as_array_mut().unwrap();
            items.sort_by_key(|v| v.to_string());
        }
        g
    };
    assert_eq!(graph(back.path()), graph(&original), "the whole graph, descriptions and timestamps included");
    let documents = |working_dir: &Path| -> Vec<serde_json::Value> {
        let status: serde_json::Value = serde_json::from_str(&view(&["status", "--json"], working_dir)).unwrap();
        let mut docs = status["documents"].as_array().unwrap().clone();
        docs.sort_by_key(|d| d["id"].to_string());
        docs
    };
    assert_eq!(documents(back.path()), documents(&original), "documents and their status rows");
    let question = ["query", "--mode", "mix", "--only-context", "Judge Baker in Boston"];
    let context = view(&question, &original);
    assert!(context.contains("Baker"), "{context}");
    assert_eq!(view(&question, back.path()), context, "the same context (vectors, graph and chunks all came back)");
    let on_postgres =
        kb.cmd().env("DATABASE_URL", &url).env("POSTGRES_WORKSPACE", &ws).args(question).output().unwrap();
    assert!(on_postgres.status.success(), "{}", String::from_utf8_lossy(&on_postgres.stderr));
    assert_eq!(String::from_utf8(on_postgres.stdout).unwrap(), context, "and on PostgreSQL");
}

#[test]
fn copy_refuses_a_missing_source_and_a_target_holding_another_knowledge_base() {
    let any = kb(0);
    let missing = any.run(&["copy", "--from", "sqlite:/nonexistent/kb.db", "--to", "sqlite:/tmp/x.db"]);
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(!missing.status.success() && stderr.contains("no such store file"), "{stderr}");
    let flag = any.run(&["copy", "--from", "sqlite:/tmp/a.db", "--from-workspace", "w", "--to", "sqlite:/tmp/x.db"]);
    let stderr = String::from_utf8_lossy(&flag.stderr);
    assert!(!flag.status.success() && stderr.contains("names a PostgreSQL workspace"), "{stderr}");
    let bad = any.run(&["copy", "--from", "kb.db", "--to", "sqlite:/tmp/x.db"]);
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && stderr.contains("sqlite:PATH"), "{stderr}");

    let a = kb(0);
    let dir = a.write_docs(&[("a.txt", "Mayor Adams met Judge Baker in Boston.")]);
    a.ok(&["insert", path_str(&dir)]);
    let b = kb(0);
    let dir = b.write_docs(&[("b.txt", "Mayor Carter met Judge Dalton in Denver.")]);
    b.ok(&["insert", path_str(&dir)]);
    let (url, ws) = (database_url(), unique("cli_copy_busy"));
    a.ok(&["copy", "--from", &format!("sqlite:{}", a.working_dir().display()), "--to", &url, "--to-workspace", &ws]);
    let clash = b.run(&[
        "copy",
        "--from",
        &format!("sqlite:{}", b.working_dir().display()),
        "--to",
        &url,
        "--to-workspace",
        &ws,
    ]);
    let stderr = String::from_utf8_lossy(&clash.stderr);
    assert!(!clash.status.success() && stderr.contains("not in the source"), "{stderr}");
}

/// On PostgreSQL, `GET /workspaces` lists the database's workspaces (not the folders of
/// `WORKING_DIR`): one made by the CLI in another process is there, the unnamed one too; a
/// request naming it is served from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_get_workspaces_lists_the_workspaces_of_the_database() {
    let url = database_url();
    let mut pg = kb(0);
    pg.set("DATABASE_URL", &url).set("POSTGRES_WORKSPACE", &unique("cli_ws_default"));
    let named = unique("cli_ws_named");
    let dir = pg.write_docs(&[("a.txt", "Mayor Adams met Judge Baker in Boston.")]);
    let out = pg.cmd().args(["--workspace", &named, "insert", path_str(&dir)]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let server = common::server::Server::start(&pg, &[], "http", &client).await;
    let listed = common::server::get_json(&client, &server.url("/workspaces")).await;
    let names: Vec<&str> = listed["workspaces"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert!(names.contains(&named.as_str()), "the workspace another process made: {listed}");
    assert!(names.contains(&""), "the unnamed workspace: {listed}");
    assert_eq!(listed["default"], "", "{listed}");
    // the named workspace opens on the pool the default one made, and serves its own graph
    let labels = client
        .get(server.url("/graph/label/list"))
        .header("LIGHTRAG-WORKSPACE", &named)
        .send()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap();
    assert!(labels.to_string().contains("Baker"), "{labels}");
    let default_labels = common::server::get_json(&client, &server.url("/graph/label/list")).await;
    assert!(!default_labels.to_string().contains("Baker"), "{default_labels}");
    server.stop().await;
}

/// A store that is unavailable for now (here a PostgreSQL server that does not answer, as
/// during a restart) is not a plain failure: the command exits with 75 (`EX_TEMPFAIL`, "try
/// again later") and says when to try again and what to check, with the driver's error.
#[test]
fn a_command_whose_store_is_unavailable_exits_75_and_says_when_to_try_again() {
    let mut down = Kb::new();
    down.set("DATABASE_URL", "postgres://postgres@127.0.0.1:1/postgres").set("POSTGRES_ACQUIRE_TIMEOUT", "1");
    let out = down.run(&["status"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(75), "exit status of a transient failure: {stderr}");
    assert!(stderr.contains("try again in 5 s"), "says when: {stderr}");
    assert!(stderr.contains("127.0.0.1:1") && stderr.contains("DATABASE_URL"), "says what to check: {stderr}");
    // an error that trying again cannot fix keeps exit status 1
    let mut wrong = Kb::new();
    wrong.set("DATABASE_URL", "postgres://postgres@127.0.0.1:1/postgres?sslmode=bogus");
    let out = wrong.run(&["status"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
}
