//! Regression (issue 9, "a bug that loses work"): stopping `lightrag serve` with SIGTERM while
//! documents were being extracted marked them `failed` ("cancelled by user"), and the next start
//! did not pick them up. A shutdown is not a user's cancel: the documents resume at the next
//! start, and the graph equals an uninterrupted run's. A real cancel through
//! `/documents/cancel_pipeline` still marks them failed, as LightRAG does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::Kb;
use lightrag_scripted_llm::ScriptConfig;
use serde_json::{Value, json};

const NAMES: [&str; 10] =
    ["Adams", "Baker", "Carter", "Dalton", "Ellis", "Foster", "Garcia", "Hughes", "Irving", "Jensen"];
const PLACES: [&str; 5] = ["Boston", "Denver", "Austin", "Seattle", "Portland"];

/// Six documents of several chunks each (CHUNK_SIZE 120), sharing entities.
fn texts() -> (Vec<String>, Vec<String>) {
    let docs: Vec<String> = (0..6)
        .map(|d| {
            (0..24)
                .map(|s| {
                    let a = NAMES[(d + s) % NAMES.len()];
                    let b = NAMES[(d * 3 + s * 7 + 1) % NAMES.len()];
                    let p = PLACES[(d + s * 3) % PLACES.len()];
                    format!("Mayor {a} met Judge {b} in {p} about the bridge budget of {}. ", 1950 + d * 10 + s)
                })
                .collect()
        })
        .collect();
    let names = (0..docs.len()).map(|d| format!("report{d}.txt")).collect();
    (docs, names)
}

fn kb(delay_ms: u64) -> Kb {
    let mut kb = Kb::with_config(ScriptConfig { delay: Duration::from_millis(delay_ms), ..ScriptConfig::default() });
    kb.set("CHUNK_SIZE", "120").set("CHUNK_OVERLAP_SIZE", "10").set("MAX_PARALLEL_INSERT", "2").set("MAX_ASYNC", "2");
    kb
}

/// `lightrag serve` on a free port; killed if the test fails half-way.
struct Server {
    child: Child,
    base: String,
    client: reqwest::Client,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    async fn start(kb: &Kb) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = kb
            .cmd()
            .args(["serve", "--host", "127.0.0.1", "--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let _ = rustls::crypto::ring::default_provider().install_default();
        let server = Server { child, base: format!("http://127.0.0.1:{port}"), client: reqwest::Client::new() };
        let deadline = Instant::now() + Duration::from_secs(60);
        while server.client.get(server.url("/health")).send().await.is_err() {
            assert!(Instant::now() < deadline, "server did not come up");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        server
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn get(&self, path: &str) -> Value {
        self.client.get(self.url(path)).send().await.unwrap().json().await.unwrap()
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        let reply = self.client.post(self.url(path)).json(&body).send().await.unwrap();
        assert!(reply.status().is_success(), "POST {path}: {}", reply.status());
        reply.json().await.unwrap()
    }

    async fn counts(&self) -> Value {
        self.get("/documents/status_counts").await["status_counts"].clone()
    }

    /// Waits until `done(counts)` holds (at most 120 s).
    async fn wait_for(&self, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let counts = self.counts().await;
            if done(&counts) {
                return counts;
            }
            assert!(Instant::now() < deadline, "{what}: {counts}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// SIGTERM; the process must exit successfully within 60 s.
    fn terminate(mut self) {
        let pid = self.child.id().to_string();
        assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "server did not stop after SIGTERM");
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(status.success(), "{status:?}");
    }
}

fn count(counts: &Value, status: &str) -> u64 {
    counts[status].as_u64().unwrap_or(0)
}

/// The uninterrupted run's graph.
async fn reference_graph(docs: &[String], names: &[String]) -> Value {
    let kb = kb(0);
    let server = Server::start(&kb).await;
    server.post("/documents/texts", json!({"texts": docs, "file_sources": names})).await;
    let n = docs.len() as u64;
    server.wait_for("reference run", |c| count(c, "processed") == n).await;
    server.terminate();
    kb.graph()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_extraction_resumes_documents_at_next_start_not_failed() {
    let (docs, names) = texts();
    let n = docs.len() as u64;
    let expected = reference_graph(&docs, &names).await;
    assert!(expected["nodes"].as_array().unwrap().len() > 5, "{expected}");

    let kb = kb(250);
    let server = Server::start(&kb).await;
    server.post("/documents/texts", json!({"texts": docs, "file_sources": names})).await;
    // stop while some documents are committed and others are being extracted
    let counts = server.wait_for("indexing made no progress", |c| count(c, "processed") >= 1).await;
    assert!(count(&counts, "processed") < n, "indexing finished before the stop; slow the LLM down: {counts}");
    server.terminate();

    let status = kb.json(&["status", "--json"]);
    let after_stop = &status["status_counts"];
    assert_eq!(count(after_stop, "failed"), 0, "a shutdown is not a cancel: {status}");
    assert!(count(after_stop, "processed") < n, "{status}");

    // the next start picks them up by itself
    let server = Server::start(&kb).await;
    let counts = server.wait_for("the interrupted documents did not resume", |c| count(c, "processed") == n).await;
    assert_eq!(count(&counts, "failed"), 0, "{counts}");
    server.terminate();
    assert_eq!(kb.graph(), expected, "the resumed graph equals an uninterrupted run's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_pipeline_still_marks_documents_being_extracted_failed() {
    let (docs, names) = texts();
    let kb = kb(250);
    let server = Server::start(&kb).await;
    server.post("/documents/texts", json!({"texts": docs, "file_sources": names})).await;
    // wait until the pipeline runs, then cancel as a user
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.get("/documents/pipeline_status").await["busy"] != true {
        assert!(Instant::now() < deadline, "the pipeline never became busy");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let reply = server.post("/documents/cancel_pipeline", json!({})).await;
    assert_eq!(reply["status"], "cancellation_requested", "{reply}");
    let counts =
        server.wait_for("the cancel did not finish", |c| count(c, "processing") == 0 && count(c, "failed") >= 1).await;
    assert!(count(&counts, "processed") < docs.len() as u64, "{counts}");
    let failed =
        server.post("/documents/paginated", json!({"page": 1, "page_size": 10, "status_filters": ["failed"]})).await;
    let doc = &failed["documents"][0];
    assert!(doc["error_msg"].as_str().unwrap_or_default().contains("cancelled by user"), "{doc}");
    server.terminate();
}
