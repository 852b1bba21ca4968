//! The server's kill loop: `lightrag serve` is killed with SIGKILL at seeded random moments while
//! it indexes documents sent over HTTP, renames and merges entities, and deletes a document,
//! several times per step. After every kill the store must pass `PRAGMA integrity_check`, open,
//! and hold no half-committed document; the restarted server must answer `/health`; the step,
//! redone as a client would (the request is sent again when its effect is not there; pending
//! documents resume by themselves at start-up), must finish; and at the end the graph must equal
//! the one the same scenario builds without kills.
//!
//! The knobs are the CLI loop's: `LIGHTRAG_KILL_LOOP=N` kills (default 6, what CI runs; the long
//! mode is `LIGHTRAG_KILL_LOOP=100`, see BENCHMARKS.md), `LIGHTRAG_KILL_SEED=S` the seed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::Kb;
use common::kill::{Rng, check_after_kill, check_all_processed, corpus, env_u64, kb};
use common::server::{Server, get_json};
use reqwest::Method;
use serde_json::{Value, json};

/// One step of the scenario, done through HTTP.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// `POST /documents/texts` of the documents `from..to`.
    Insert(usize, usize),
    /// `POST /graph/entity/edit`: "Lothair Ii" renamed to "Lothair the Second".
    Rename,
    /// `POST /graph/entities/merge`: "Lothair the Second" merged into "Lothair II".
    Merge,
    /// `DELETE /documents/delete_document` of `doc{n}.txt`.
    Delete(usize),
}

const SCENARIO: [Step; 5] = [Step::Insert(0, 4), Step::Rename, Step::Merge, Step::Insert(4, 6), Step::Delete(2)];

const RENAMED: &str = "Lothair the Second";

/// A request: method, path, body.
type Request = (Method, &'static str, Value);

/// Everything a step needs: the knowledge base, the running server and an HTTP client.
struct Ctx<'a> {
    kb: &'a Kb,
    docs: &'a [(String, String)],
    client: reqwest::Client,
}

impl Ctx<'_> {
    async fn start(&self) -> Server {
        Server::start(self.kb, &["--log-level", "ERROR"], "http", &self.client).await
    }

    async fn exists(&self, server: &Server, name: &str) -> bool {
        let url = format!("{}?name={}", server.url("/graph/entity/exists"), urlencode(name));
        let reply = get_json(&self.client, &url).await;
        reply["exists"].as_bool().unwrap_or_else(|| panic!("{reply}"))
    }

    /// The stored documents as (file path, id, status), from `GET /documents`.
    async fn documents(&self, server: &Server) -> Vec<(String, String, String)> {
        let reply = get_json(&self.client, &server.url("/documents")).await;
        let mut out = Vec::new();
        for (status, docs) in reply["statuses"].as_object().unwrap() {
            for doc in docs.as_array().unwrap() {
                let field = |name: &str| doc[name].as_str().unwrap().to_string();
                out.push((field("file_path"), field("id"), status.clone()));
            }
        }
        out
    }

    async fn doc_id(&self, server: &Server, file: &str) -> Option<String> {
        self.documents(server)
            .await
            .into_iter()
            .find(|(path, id, _)| path == file && !id.starts_with("dup-"))
            .map(|d| d.1)
    }

    /// The request that (re)does `step`, or `None` when its effect is there already.
    async fn request(&self, server: &Server, step: Step) -> Option<Request> {
        match step {
            Step::Insert(from, to) => {
                // the documents not stored yet (the stored ones resume by themselves)
                let stored = self.documents(server).await;
                let missing: Vec<&(String, String)> =
                    self.docs[from..to].iter().filter(|(name, _)| !stored.iter().any(|d| &d.0 == name)).collect();
                if missing.is_empty() {
                    return None;
                }
                let texts: Vec<&str> = missing.iter().map(|(_, t)| t.as_str()).collect();
                let names: Vec<&str> = missing.iter().map(|(n, _)| n.as_str()).collect();
                Some((Method::POST, "/documents/texts", json!({"texts": texts, "file_sources": names})))
            }
            Step::Rename => self.exists(server, "Lothair Ii").await.then(|| {
                let body = json!({
                    "entity_name": "Lothair Ii",
                    "updated_data": {"entity_name": RENAMED},
                    "allow_rename": true,
                });
                (Method::POST, "/graph/entity/edit", body)
            }),
            Step::Merge => self.exists(server, RENAMED).await.then(|| {
                let body = json!({"entities_to_change": [RENAMED], "entity_to_change_into": "Lothair II"});
                (Method::POST, "/graph/entities/merge", body)
            }),
            Step::Delete(n) => {
                let id = self.doc_id(server, &format!("doc{n}.txt")).await?;
                Some((Method::DELETE, "/documents/delete_document", json!({"doc_ids": [id]})))
            }
        }
    }

    /// Whether the effect of `step` is complete and the server idle.
    async fn done(&self, server: &Server, step: Step) -> bool {
        let pipeline = get_json(&self.client, &server.url("/documents/pipeline_status")).await;
        if pipeline["busy"] == true {
            return false;
        }
        match step {
            Step::Insert(from, to) => {
                let stored = self.documents(server).await;
                self.docs[from..to]
                    .iter()
                    .all(|(name, _)| stored.iter().any(|(path, _, status)| path == name && status == "processed"))
            }
            Step::Rename => !self.exists(server, "Lothair Ii").await,
            Step::Merge => !self.exists(server, RENAMED).await,
            Step::Delete(n) => self.doc_id(server, &format!("doc{n}.txt")).await.is_none(),
        }
    }

    async fn send(&self, server: &Server, (method, path, body): Request) -> reqwest::Result<reqwest::Response> {
        self.client.request(method, server.url(path)).json(&body).send().await
    }

    /// Does `step` to the end on a running server; returns how long it took.
    async fn complete(&self, server: &Server, step: Step, context: &str) -> Duration {
        let started = Instant::now();
        if let Some(request) = self.request(server, step).await {
            let reply = self.send(server, request).await.unwrap();
            let status = reply.status();
            let text = reply.text().await.unwrap();
            assert!(status.is_success(), "{context}: {step:?} answered {status}: {text}");
        }
        let deadline = Instant::now() + Duration::from_secs(120);
        while !self.done(server, step).await {
            assert!(Instant::now() < deadline, "{context}: {step:?} did not finish");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        started.elapsed()
    }
}

fn urlencode(name: &str) -> String {
    name.replace(' ', "%20")
}

/// SIGKILL, and waits for the process to be gone.
fn kill(mut server: Server) {
    server.child.kill().unwrap();
    server.child.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_killed_at_random_moments_loses_nothing() {
    let kills_wanted = env_u64("LIGHTRAG_KILL_LOOP", 6);
    let seed = env_u64("LIGHTRAG_KILL_SEED", 13);
    let docs = corpus();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let started = Instant::now();

    // the reference: the scenario without kills, and how long each step takes
    let reference = kb();
    let ctx = Ctx { kb: &reference, docs: &docs, client: client.clone() };
    let server = ctx.start().await;
    let mut durations = Vec::new();
    for step in SCENARIO {
        durations.push(ctx.complete(&server, step, "reference").await);
        if matches!(step, Step::Rename) {
            assert!(ctx.exists(&server, RENAMED).await, "the rename happened");
        }
    }
    assert!(ctx.exists(&server, "Lothair II").await, "the merge kept its target");
    server.stop().await;
    check_all_processed(&reference, "reference");
    let expected = reference.graph();
    assert!(expected["nodes"].as_array().unwrap().len() > 10, "{expected}");
    eprintln!("server kill loop: the steps take {durations:?} without kills");

    let mut rng = Rng(seed);
    let (mut kills, mut interrupted, mut rounds) = (0u64, 0u64, 0u64);
    while kills < kills_wanted {
        rounds += 1;
        let victim = kb();
        let ctx = Ctx { kb: &victim, docs: &docs, client: client.clone() };
        let mut server = ctx.start().await;
        for (i, &step) in SCENARIO.iter().enumerate() {
            // up to three kills of this step at random moments within its usual duration
            for attempt in 0..3 {
                if ctx.done(&server, step).await {
                    break;
                }
                let window = durations[i].as_millis().max(50) as u64 * 12 / 10;
                let delay = Duration::from_millis(rng.next_u64() % window);
                let context = format!(
                    "seed {seed}, round {rounds}, {step:?}, attempt {attempt}, killed after {delay:?} \
                     (LIGHTRAG_KILL_SEED={seed} LIGHTRAG_KILL_LOOP={kills_wanted})"
                );
                // the request runs on its own; the server dies under it
                let in_flight = match ctx.request(&server, step).await {
                    Some((method, path, body)) => {
                        let request = ctx.client.request(method, server.url(path)).json(&body);
                        Some(tokio::spawn(request.send()))
                    }
                    None => None,
                };
                tokio::time::sleep(delay).await;
                let request_unanswered = in_flight.as_ref().is_some_and(|task| !task.is_finished());
                kill(server);
                kills += 1;
                if let Some(task) = in_flight {
                    let _ = task.await;
                }
                check_after_kill(&victim, &context);
                server = ctx.start().await;
                if request_unanswered || !ctx.done(&server, step).await {
                    interrupted += 1;
                }
            }
            ctx.complete(&server, step, &format!("seed {seed}, round {rounds}")).await;
            check_all_processed(&victim, &format!("seed {seed}, round {rounds}, after {step:?}"));
        }
        server.stop().await;
        assert_eq!(victim.graph(), expected, "seed {seed}, round {rounds}: the graph differs from a run without kills");
    }
    eprintln!(
        "server kill loop: {kills} kills ({interrupted} in the middle of a step) in {rounds} rounds (seed {seed}), \
         {:.0} s, no loss",
        started.elapsed().as_secs_f64()
    );
}
