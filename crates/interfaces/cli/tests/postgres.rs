//! The PostgreSQL store through the real binary: three `lightrag worker` processes on one
//! PostgreSQL workspace build the same graph as one process on the SQLite file; a second
//! workspace of the same database stays empty. The server comes from `DATABASE_URL`, or else
//! `scripts/ensure-postgres.sh` installs and starts one (never skipped).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Kb, path_str};
use lightrag_scripted_llm::ScriptConfig;
use serde_json::{Value, json};

fn database_url() -> String {
    if let Ok(url) = std::env::var("DATABASE_URL")
        && !url.trim().is_empty()
    {
        return url;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../scripts/ensure-postgres.sh");
    let out = Command::new("bash").arg(&script).output().expect("run scripts/ensure-postgres.sh");
    assert!(out.status.success(), "ensure-postgres.sh failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().last().expect("the URL").trim().to_string()
}

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{prefix}_{}_{nanos}", std::process::id())
}

fn corpus(docs: usize) -> Vec<(String, String)> {
    const NAMES: [&str; 8] = ["Adams", "Baker", "Carter", "Dalton", "Ellis", "Foster", "Garcia", "Hughes"];
    const PLACES: [&str; 4] = ["Boston", "Denver", "Austin", "Seattle"];
    (0..docs)
        .map(|d| {
            let mut text = String::new();
            for s in 0..10 {
                let a = NAMES[(d + s) % NAMES.len()];
                let b = NAMES[(d * 3 + s * 5 + 1) % NAMES.len()];
                let p = PLACES[(d + s * 3) % PLACES.len()];
                text.push_str(&format!(
                    "Mayor {a} met Judge {b} in {p} about the ferry fares of {}. ",
                    1900 + d * 10 + s
                ));
            }
            (format!("doc{d:02}.txt"), text)
        })
        .collect()
}

fn kb(delay_ms: u64) -> Kb {
    let mut kb = Kb::with_config(ScriptConfig { delay: Duration::from_millis(delay_ms), ..ScriptConfig::default() });
    kb.set("CHUNK_SIZE", "100").set("CHUNK_OVERLAP_SIZE", "10").set("MAX_PARALLEL_INSERT", "2").set("MAX_ASYNC", "4");
    kb
}

/// Names, types, relation keys, weights and supporting chunks (merge order may differ between
/// workers, so descriptions and list order are left out).
fn projection(graph: &Value) -> Value {
    let ids = |v: &Value| -> Vec<String> {
        let set: BTreeSet<String> =
            v.as_str().unwrap_or_default().split("<SEP>").filter(|s| !s.is_empty()).map(str::to_string).collect();
        set.into_iter().collect()
    };
    let mut nodes: Vec<Value> = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| json!({"id": n["id"], "type": n["entity_type"], "sources": ids(&n["source_id"])}))
        .collect();
    nodes.sort_by_key(|v| v.to_string());
    let mut edges: Vec<Value> = graph["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(
            |e| json!({"src": e["source"], "tgt": e["target"], "weight": e["weight"], "sources": ids(&e["source_id"])}),
        )
        .collect();
    edges.sort_by_key(|v| v.to_string());
    json!({"nodes": nodes, "edges": edges})
}

fn finish(worker: Child) -> usize {
    let out = worker.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "worker failed ({:?}):\n{stderr}", out.status);
    stderr.lines().filter(|l| l.starts_with("processed ")).count()
}

#[test]
fn three_workers_on_postgres_build_the_graph_of_one_sqlite_process() {
    let docs = corpus(9);
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();

    let sqlite = kb(0);
    let dir = sqlite.write_docs(&refs);
    sqlite.ok(&["insert", path_str(&dir)]);
    let expected = projection(&sqlite.graph());
    assert!(expected["nodes"].as_array().unwrap().len() > 8, "a real graph to compare");

    let url = database_url();
    let mut pg = kb(30);
    pg.set("DATABASE_URL", &url).set("POSTGRES_WORKSPACE", &unique("cli_workers"));
    let dir = pg.write_docs(&refs);
    pg.ok(&["insert", "--no-wait", path_str(&dir)]);
    let workers: Vec<Child> = (0..3)
        .map(|_| {
            pg.cmd()
                .args(["worker", "--exit-when-done", "--poll-secs", "0.2"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let processed: usize = workers.into_iter().map(finish).sum();
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
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let sqlite = kb(0);
    let dir = sqlite.write_docs(&refs);
    sqlite.ok(&["insert", path_str(&dir)]);
    let expected = projection(&sqlite.graph());

    let mut pg = kb(150);
    pg.set("DATABASE_URL", &database_url()).set("POSTGRES_WORKSPACE", &unique("cli_kill")).set("LEASE_SECS", "3");
    let dir = pg.write_docs(&refs);
    pg.ok(&["insert", "--no-wait", path_str(&dir)]);
    let spawn = || {
        pg.cmd()
            .args(["worker", "--exit-when-done", "--poll-secs", "0.2"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut victim = spawn();
    let started = std::time::Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let status = pg.json(&["status", "--json"]);
        if status["status_counts"]["processing"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the worker claimed nothing: {status}");
    }
    let survivors: Vec<Child> = (0..2).map(|_| spawn()).collect();
    victim.kill().unwrap(); // SIGKILL: its lease is never released
    victim.wait().unwrap();
    let processed: usize = survivors.into_iter().map(finish).sum();
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
