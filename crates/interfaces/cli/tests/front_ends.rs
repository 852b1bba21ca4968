//! One input, one outcome on every front end (issue 28): REST and MCP over HTTP (`lightrag
//! serve`), MCP over stdio (`lightrag mcp`) and the CLI (`lightrag insert`, `lightrag query`), each
//! through the real binary on a knowledge base of its own, get the same inputs — a query asking
//! for `top_k` 100000, an empty file, an encrypted PDF without and then with
//! `PDF_DECRYPT_PASSWORD`, a file, the same file again, a new version of it, and a new version of
//! a file while its first version is being indexed — and must give the same outcome: accepted,
//! or refused with the same words (the application crate's), leaving the same documents.
//!
//! Before issue 28 they differed: MCP accepted any `top_k` and the CLI checked none, MCP read
//! PDFs without `PDF_DECRYPT_PASSWORD`, the CLI skipped an empty file silently, and stdio MCP
//! and the CLI recorded an unchanged file as a failed duplicate where REST refused it.

use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use futures::StreamExt;
use lightrag_scripted_llm::{Fault, RouteKind};
use serde_json::{Value, json};

use crate::common::server::{Server, multipart};
use crate::common::{HARBOR, Kb, WHALING, path_str};
use crate::mcp::Client;

const PASSWORD: &str = "s3cret";

/// What a front end answered, normalised.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// Accepted (200, a tool result, exit 0 without a refusal).
    Accepted,
    /// Refused, with the front end's message (REST: the status code and the detail).
    Refused(String),
    /// The documents left: (file name without folders, status), sorted.
    Documents(Vec<(String, String)>),
}

/// What every front end must answer: accepted, refused with a message containing these words,
/// or these documents.
#[derive(Debug, Clone, PartialEq)]
enum Expected {
    Accepted,
    Refused(&'static str),
    Documents(&'static [(&'static str, &'static str)]),
}

impl Expected {
    fn met_by(&self, outcome: &Outcome) -> bool {
        match (self, outcome) {
            (Expected::Accepted, Outcome::Accepted) => true,
            // a CLI option (`--top-k`) names the field its flag sets (`top_k`)
            (Expected::Refused(words), Outcome::Refused(message)) => {
                message.contains(words) || message.replace("--top-k", "top_k").contains(words)
            }
            (Expected::Documents(want), Outcome::Documents(got)) => {
                want.iter().map(|(n, s)| ((*n).to_string(), (*s).to_string())).collect::<Vec<_>>() == *got
            }
            _ => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Rest,
    McpHttp,
    McpStdio,
    Cli,
}

/// MCP over streamable HTTP, spoken with reqwest.
struct McpHttp {
    url: String,
    session: String,
    next_id: u64,
}

impl McpHttp {
    async fn post(
        http: &reqwest::Client,
        url: &str,
        session: Option<&str>,
        message: &Value,
    ) -> (Option<String>, Value) {
        let mut request = http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-06-18");
        }
        let reply = request.body(message.to_string()).send().await.unwrap();
        assert!(reply.status().is_success(), "{message}: {}", reply.status());
        let session = reply.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_string());
        let id = message.get("id").cloned();
        let mut body = reply.bytes_stream();
        let mut text = String::new();
        // the event stream may stay open after the answer: read until the answer is there
        let answer = tokio::time::timeout(Duration::from_secs(120), async {
            while let Some(chunk) = body.next().await {
                text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
                if let Some(found) = answer_in(&text, id.as_ref()) {
                    return found;
                }
            }
            answer_in(&text, id.as_ref()).unwrap_or(Value::Null)
        })
        .await
        .unwrap_or_else(|_| panic!("no answer to {message}"));
        (session, answer)
    }

    async fn open(http: &reqwest::Client, base: &str) -> McpHttp {
        let url = format!("{base}/mcp");
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "table", "version": "1"}}});
        let (session, _) = Self::post(http, &url, None, &init).await;
        let session = session.expect("initialize opens a session");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let _ = Self::post(http, &url, Some(&session), &initialized).await;
        McpHttp { url, session, next_id: 2 }
    }

    async fn call(&mut self, http: &reqwest::Client, tool: &str, arguments: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let (_, answer) = Self::post(http, &self.url, Some(&self.session), &message).await;
        assert!(answer.get("error").is_none(), "{tool}: {answer}");
        answer["result"].clone()
    }
}

/// The JSON-RPC message answering `id` in a JSON body or an event stream.
fn answer_in(text: &str, id: Option<&Value>) -> Option<Value> {
    let id = id?;
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return (value.get("id") == Some(id)).then_some(value);
    }
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("id") == Some(id))
}

/// An MCP tool result as an outcome.
fn tool_outcome(result: &Value) -> Outcome {
    if result["isError"] == json!(true) {
        Outcome::Refused(result["content"][0]["text"].as_str().unwrap_or_default().to_string())
    } else {
        Outcome::Accepted
    }
}

/// A front end on a knowledge base of its own.
struct Front {
    kind: Kind,
    kb: Kb,
    /// The folder the files are written to (`MCP_FILES_ROOT` of stdio MCP).
    docs: PathBuf,
    http: reqwest::Client,
    server: Option<Server>,
    mcp_http: Option<McpHttp>,
    stdio: Option<Client>,
    /// `lightrag insert` left running in the background (the CLI's "being processed").
    background: Option<Child>,
}

impl Front {
    async fn start(kind: Kind) -> Front {
        let mut kb = Kb::new();
        let docs = kb.dir.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        kb.set("MCP_FILES_ROOT", path_str(&docs));
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::new();
        let mut front = Front { kind, kb, docs, http, server: None, mcp_http: None, stdio: None, background: None };
        front.open(&[]).await;
        front
    }

    /// Starts the server or the stdio session with `env` (the CLI takes it with each command).
    async fn open(&mut self, env: &[(&str, &str)]) {
        match self.kind {
            Kind::Rest | Kind::McpHttp => {
                let server = Server::start_with_env(&self.kb, &[], env, "http", &self.http).await;
                if self.kind == Kind::McpHttp {
                    self.mcp_http = Some(McpHttp::open(&self.http, &server.base).await);
                }
                self.server = Some(server);
            }
            Kind::McpStdio => {
                let mut cmd = self.kb.cmd();
                cmd.envs(env.iter().copied());
                let mut client = tokio::task::block_in_place(|| Client::start(cmd));
                tokio::task::block_in_place(|| client.initialize());
                self.stdio = Some(client);
            }
            Kind::Cli => {
                for (k, v) in env {
                    self.kb.set(k, v);
                }
            }
        }
    }

    /// Stops the server or the session and starts it again with `env`.
    async fn restart(&mut self, env: &[(&str, &str)]) {
        if let Some(server) = self.server.take() {
            server.stop().await;
        }
        self.mcp_http = None;
        if let Some(client) = self.stdio.take() {
            assert!(tokio::task::block_in_place(|| client.close()), "lightrag mcp exits cleanly");
        }
        self.open(env).await;
    }

    async fn rest(&self, request: reqwest::RequestBuilder) -> Outcome {
        let reply = request.send().await.unwrap();
        let status = reply.status().as_u16();
        let body: Value = reply.json().await.unwrap();
        if status == 200 {
            return Outcome::Accepted;
        }
        // 422: FastAPI's detail items, as `field: message`
        let detail = match &body["detail"] {
            Value::Array(items) => items
                .iter()
                .map(|i| {
                    let field = i["loc"].as_array().and_then(|l| l.last()).and_then(Value::as_str).unwrap_or_default();
                    format!("{field}: {}", i["msg"].as_str().unwrap_or_default())
                })
                .collect::<Vec<_>>()
                .join("; "),
            other => other.as_str().unwrap_or_default().to_string(),
        };
        Outcome::Refused(format!("{status} {detail}"))
    }

    fn url(&self, path: &str) -> String {
        self.server.as_ref().unwrap().url(path)
    }

    async fn query_top_k(&mut self, top_k: u64) -> Outcome {
        let question = "Who commanded the Pequod?";
        match self.kind {
            Kind::Rest => {
                let body = json!({"query": question, "top_k": top_k});
                self.rest(self.http.post(self.url("/query")).json(&body)).await
            }
            Kind::McpHttp => {
                let args = json!({"query": question, "top_k": top_k});
                let mcp = self.mcp_http.as_mut().unwrap();
                tool_outcome(&mcp.call(&self.http, "query", args).await)
            }
            Kind::McpStdio => {
                let client = self.stdio.as_mut().unwrap();
                let result =
                    tokio::task::block_in_place(|| client.call("query", json!({"query": question, "top_k": top_k})));
                tool_outcome(&result)
            }
            Kind::Cli => cli_outcome(&self.kb.run(&["query", "--top-k", &top_k.to_string(), question])),
        }
    }

    /// Sends the file `name` holding `bytes` as the front end takes a file: an upload (REST),
    /// its content base64-encoded (MCP over HTTP), its path (stdio MCP, the CLI). With
    /// `background`, the CLI's `lightrag insert` is left indexing and this returns once the
    /// document is stored.
    async fn insert(&mut self, name: &str, bytes: &[u8], background: bool) -> Outcome {
        let path = self.docs.join(name);
        std::fs::write(&path, bytes).unwrap();
        match self.kind {
            Kind::Rest => {
                let (content_type, body) = multipart(name, bytes);
                let request =
                    self.http.post(self.url("/documents/upload")).header("content-type", content_type).body(body);
                self.rest(request).await
            }
            Kind::McpHttp => {
                let content = base64::engine::general_purpose::STANDARD.encode(bytes);
                let args = json!({"file_name": name, "content": content, "encoding": "base64"});
                let mcp = self.mcp_http.as_mut().unwrap();
                tool_outcome(&mcp.call(&self.http, "insert_file", args).await)
            }
            Kind::McpStdio => {
                let client = self.stdio.as_mut().unwrap();
                tool_outcome(&tokio::task::block_in_place(|| client.call("insert_file", json!({"path": name}))))
            }
            Kind::Cli if background => {
                let child = self
                    .kb
                    .cmd()
                    .args(["insert", &format!("docs/{name}")])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                self.background = Some(child);
                let deadline = Instant::now() + Duration::from_secs(60);
                while !self.documents().await.iter().any(|(n, _)| n == name) {
                    assert!(Instant::now() < deadline, "the background insert of {name} stored nothing");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Outcome::Accepted
            }
            Kind::Cli => cli_outcome(&self.kb.run(&["insert", &format!("docs/{name}")])),
        }
    }

    /// The documents, as the front end lists them.
    async fn documents(&mut self) -> Vec<(String, String)> {
        let listed = match self.kind {
            Kind::Rest => {
                let reply =
                    self.http.post(self.url("/documents/paginated")).json(&json!({"page_size": 100})).send().await;
                reply.unwrap().json::<Value>().await.unwrap()
            }
            Kind::McpHttp => {
                let mcp = self.mcp_http.as_mut().unwrap();
                mcp.call(&self.http, "list_documents", json!({"page_size": 100})).await["structuredContent"].clone()
            }
            Kind::McpStdio => {
                let client = self.stdio.as_mut().unwrap();
                tokio::task::block_in_place(|| client.call_ok("list_documents", json!({"page_size": 100})))
            }
            Kind::Cli => tokio::task::block_in_place(|| self.kb.json(&["status", "--json"])),
        };
        let mut documents: Vec<(String, String)> = listed["documents"]
            .as_array()
            .unwrap_or_else(|| panic!("no document list: {listed}"))
            .iter()
            .map(|d| {
                let path = d["file_path"].as_str().unwrap_or_default();
                let name = path.rsplit('/').next().unwrap_or_default().to_string();
                (name, d["status"].as_str().unwrap_or_default().to_string())
            })
            .collect();
        documents.sort();
        documents
    }

    /// Waits until nothing is pending or being processed.
    async fn settle(&mut self) {
        if let Some(mut child) = self.background.take() {
            let status = tokio::task::block_in_place(|| child.wait()).unwrap();
            assert!(status.success(), "the background insert failed: {status:?}");
        }
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let documents = self.documents().await;
            if documents.iter().all(|(_, s)| s == "processed" || s == "failed") {
                return;
            }
            assert!(Instant::now() < deadline, "{:?}: never settled: {documents:?}", self.kind);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// A `lightrag` run as an outcome: an error exit or a skipped document is a refusal.
fn cli_outcome(out: &std::process::Output) -> Outcome {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if !out.status.success() || stderr.contains("skipped") { Outcome::Refused(stderr) } else { Outcome::Accepted }
}

/// The inputs, in order, with what they give on every front end.
async fn run_cases(front: &mut Front) -> Vec<(&'static str, Outcome)> {
    let locked = lightrag_doc_text::testing::encrypted_pdf("Locked ledger of the harbor.", PASSWORD);
    let voyage_v2 = format!("{WHALING} Captain Ahab came back to Nantucket.");
    let harbor_v2 = format!("{HARBOR} Bildad sold his shares.");
    let mut out = Vec::new();
    out.push(("query with top_k 100000", front.query_top_k(100_000).await));
    out.push(("empty file", front.insert("empty.txt", b"", false).await));
    out.push(("encrypted PDF without PDF_DECRYPT_PASSWORD", front.insert("locked.pdf", &locked, false).await));
    out.push(("new file", front.insert("voyage.txt", WHALING.as_bytes(), false).await));
    front.settle().await;
    out.push(("the same file again (duplicate)", front.insert("voyage.txt", WHALING.as_bytes(), false).await));
    out.push(("a new version", front.insert("voyage.txt", voyage_v2.as_bytes(), false).await));
    front.settle().await;
    // the model answers slowly: the next file stays unindexed while its new version is sent
    front.kb.server.set_faults(vec![Fault::delay(5_000, 3).on_route(RouteKind::Chat)]);
    out.push(("another new file", front.insert("harbor.txt", HARBOR.as_bytes(), true).await));
    out.push((
        "a new version of a document being processed",
        front.insert("harbor.txt", harbor_v2.as_bytes(), false).await,
    ));
    front.settle().await;
    front.restart(&[("PDF_DECRYPT_PASSWORD", PASSWORD)]).await;
    out.push(("encrypted PDF with PDF_DECRYPT_PASSWORD", front.insert("locked.pdf", &locked, false).await));
    front.settle().await;
    out.push(("documents left", Outcome::Documents(front.documents().await)));
    out
}

/// Regression (issue 28): the same inputs gave different outcomes on REST, MCP (HTTP and stdio)
/// and the CLI; now each goes through the one use case of the application crate.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_front_end_gives_the_same_outcome_for_the_same_input() {
    let expected: [(&str, Expected); 10] = [
        // the same words; each front end names the field in its own terms (REST and MCP `top_k`,
        // the CLI its option `--top-k`)
        ("query with top_k 100000", Expected::Refused("top_k: Input should be less than or equal to 1000")),
        ("empty file", Expected::Refused("no text found in this text file")),
        (
            "encrypted PDF without PDF_DECRYPT_PASSWORD",
            Expected::Refused("the PDF is encrypted and no password was given; set PDF_DECRYPT_PASSWORD"),
        ),
        ("new file", Expected::Accepted),
        ("the same file again (duplicate)", Expected::Refused("with the same content")),
        ("a new version", Expected::Accepted),
        ("another new file", Expected::Accepted),
        ("a new version of a document being processed", Expected::Refused("send the new version again once")),
        ("encrypted PDF with PDF_DECRYPT_PASSWORD", Expected::Accepted),
        (
            "documents left",
            Expected::Documents(&[
                ("harbor.txt", "processed"),
                ("locked.pdf", "processed"),
                ("voyage.txt", "processed"),
            ]),
        ),
    ];
    let mut table = Vec::new();
    for kind in [Kind::Rest, Kind::McpHttp, Kind::McpStdio, Kind::Cli] {
        let mut front = Front::start(kind).await;
        table.push((kind, run_cases(&mut front).await));
    }
    let mut wrong = Vec::new();
    for (kind, outcomes) in &table {
        assert_eq!(outcomes.len(), expected.len());
        for ((case, outcome), (want_case, want)) in outcomes.iter().zip(&expected) {
            assert_eq!(case, want_case);
            if !want.met_by(outcome) {
                wrong.push(format!("{kind:?} / {case}: expected {want:?}, got {outcome:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "front ends differ:\n{}\n\nthe whole table: {table:#?}", wrong.join("\n"));
}
