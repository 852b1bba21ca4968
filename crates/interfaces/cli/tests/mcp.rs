//! `lightrag mcp`: a scripted MCP client session through the real binary over stdio, against the
//! scripted LLM — the handshake, every tool with its result checked, the document resources, and
//! the errors a client gets for an unknown tool, bad arguments and an unknown resource.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{HARBOR, Kb, WHALING};

/// How long a reply may take before the test gives up (a hung server, not a slow one).
const REPLY_LIMIT: Duration = Duration::from_secs(120);

/// An MCP client speaking newline-delimited JSON-RPC to a `lightrag mcp` child.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    pub fn start(mut cmd: Command) -> Client {
        let mut child = cmd
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("lightrag mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client { child, stdin, lines, next_id: 1 }
    }

    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (the whole JSON-RPC message); notifications
    /// from the server in between are skipped.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.lines.recv_timeout(REPLY_LIMIT).unwrap_or_else(|e| panic!("no reply to {method}: {e}"));
            let message: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert!(message.get("id").is_none() || message.get("method").is_some(), "a reply to another id: {message}");
        }
    }

    /// A successful response's result.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method} failed: {response}");
        response["result"].clone()
    }

    /// `tools/call`; returns the result (which may be an error result).
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// `tools/call` that must succeed; returns its structured content.
    pub fn call_ok(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments.clone());
        assert_ne!(result["isError"], json!(true), "{tool} {arguments} failed: {result}");
        assert!(result["content"][0]["text"].is_string(), "{tool}: no text content: {result}");
        result["structuredContent"].clone()
    }

    /// `tools/call` that must fail as a tool; returns its message.
    pub fn call_err(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments.clone());
        assert_eq!(result["isError"], json!(true), "{tool} {arguments} should fail: {result}");
        result["content"][0]["text"].as_str().unwrap().to_string()
    }

    pub fn initialize(&mut self) -> Value {
        let result = self.result(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "scripted-client", "version": "1.0"}
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        result
    }

    /// Polls `track_status` until every document of `track` is processed or failed.
    pub fn wait_for_track(&mut self, track: &str) -> Value {
        for _ in 0..600 {
            let status = self.call_ok("track_status", json!({"track_id": track}));
            if status["finished"] == json!(true) {
                return status;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("track {track} never finished");
    }

    /// Closes stdin and waits for the server to exit; returns whether it exited with success.
    pub fn close(mut self) -> bool {
        drop(self.stdin.take());
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("lightrag mcp did not exit after stdin closed");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn an_mcp_client_session_over_stdio_uses_every_tool_and_the_document_resources() {
    let kb = Kb::new();
    let harbor = kb.write_docs(&[("harbor.txt", HARBOR)]).join("harbor.txt");
    let mut client = Client::start(kb.cmd());

    let init = client.initialize();
    assert_eq!(init["protocolVersion"], "2025-06-18", "{init}");
    assert_eq!(init["serverInfo"]["name"], "lightrag");
    assert!(init["capabilities"]["tools"].is_object() && init["capabilities"]["resources"].is_object(), "{init}");

    // tools/list: every tool, each with an object schema
    let tools = client.result("tools/list", json!({}));
    let tools = tools["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "delete_documents",
            "document_status",
            "get_entity",
            "get_relation",
            "graph_neighbourhood",
            "graph_stats",
            "insert_file",
            "insert_text",
            "list_documents",
            "query",
            "search_entities",
            "track_status"
        ]
    );
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(!t["description"].as_str().unwrap().is_empty());
    }
    let query_tool = tools.iter().find(|t| t["name"] == "query").unwrap();
    assert_eq!(query_tool["inputSchema"]["required"], json!(["query"]), "{query_tool}");
    let modes = query_tool["inputSchema"]["properties"]["mode"].to_string();
    for mode in ["auto", "local", "global", "hybrid", "naive", "mix", "bypass", "ppr"] {
        assert!(modes.contains(&format!("\"{mode}\"")), "mode {mode} missing from {modes}");
    }
    let insert_file = tools.iter().find(|t| t["name"] == "insert_file").unwrap();
    assert_eq!(insert_file["inputSchema"]["required"], json!(["path"]), "stdio reads a local path");

    // insert a text and a file; both are indexed in the background
    let inserted = client
        .call_ok("insert_text", json!({"text": WHALING, "file_name": "whaling.txt", "metadata": {"team": "ops"}}));
    assert_eq!(inserted["documents"][0]["outcome"], "enqueued", "{inserted}");
    let whaling_id = inserted["documents"][0]["doc_id"].as_str().unwrap().to_string();
    let track = inserted["track_id"].as_str().unwrap().to_string();
    let done = client.wait_for_track(&track);
    assert_eq!(done["status_summary"]["processed"], 1, "{done}");
    assert_eq!(done["documents"][0]["id"], whaling_id.as_str());

    let inserted = client.call_ok("insert_file", json!({"path": harbor.to_str().unwrap()}));
    let harbor_id = inserted["documents"][0]["doc_id"].as_str().unwrap().to_string();
    let done = client.wait_for_track(inserted["track_id"].as_str().unwrap());
    assert_eq!(done["documents"][0]["file_path"], "harbor.txt", "{done}");
    assert_eq!(done["documents"][0]["status"], "processed", "{done}");
    assert!(done["documents"][0]["chunks_count"].as_u64().unwrap() >= 1);

    // the same name with the same content again is refused, as over HTTP and by a REST upload:
    // nothing is written, not even a duplicate record
    let again = client.call_err("insert_text", json!({"text": WHALING, "file_name": "whaling.txt"}));
    assert!(again.contains("already contains 'whaling.txt' with the same content"), "{again}");
    // new content under the same name replaces it in place (same id, no second document)
    let whaling_v2 = format!("{WHALING} Captain Ahab came back to Nantucket.");
    let replaced = client.call_ok("insert_text", json!({"text": whaling_v2, "file_name": "whaling.txt"}));
    assert_eq!(replaced["documents"][0]["outcome"], "replaced", "{replaced}");
    assert_eq!(replaced["documents"][0]["doc_id"], whaling_id.as_str());
    let done = client.wait_for_track(replaced["track_id"].as_str().unwrap());
    assert_eq!(done["documents"][0]["status"], "processed", "{done}");

    // documents: list with a status filter and paging, one status
    let listed = client.call_ok("list_documents", json!({"status": "processed", "page_size": 1}));
    assert_eq!(listed["total"], 2, "{listed}");
    assert_eq!(listed["total_pages"], 2);
    assert_eq!(listed["documents"].as_array().unwrap().len(), 1);
    let page2 = client.call_ok("list_documents", json!({"status": "processed", "page": 2, "page_size": 1}));
    assert_ne!(page2["documents"][0]["id"], listed["documents"][0]["id"]);
    let pending = client.call_ok("list_documents", json!({"status": "pending"}));
    assert_eq!(pending["documents"], json!([]), "{pending}");
    let status = client.call_ok("document_status", json!({"doc_id": whaling_id}));
    assert_eq!(status["status"], "processed", "{status}");
    assert_eq!(status["file_path"], "whaling.txt");

    // query: every mode answers; retrieval modes cite the documents
    for mode in ["local", "global", "hybrid", "naive", "mix", "ppr", "auto"] {
        let answer =
            client.call_ok("query", json!({"query": "Who sailed on the Pequod from Nantucket?", "mode": mode}));
        assert!(!answer["response"].as_str().unwrap().is_empty(), "{mode}: {answer}");
        let references = answer["references"].as_array().unwrap();
        assert!(!references.is_empty(), "{mode}: no references: {answer}");
        assert!(references.iter().any(|r| r["file_path"] == "whaling.txt"), "{mode}: {answer}");
        if mode != "auto" {
            assert_eq!(answer["mode"], mode);
        }
    }
    let context = client.call("query", json!({"query": "Queequeg", "mode": "local", "context_only": true, "top_k": 5}));
    let text = context["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Knowledge Graph Data (Entity)") && text.contains("Queequeg"), "{text}");
    let bypass = client.call_ok("query", json!({"query": "Say hello", "mode": "bypass"}));
    assert!(bypass["response"].as_str().unwrap().contains("Say hello"), "{bypass}");
    assert_eq!(bypass["references"], json!([]));
    // a filtered query draws only on the passing documents: by metadata, then by file name glob
    for (filter, file) in
        [(json!({"metadata": {"team": "ops"}}), "whaling.txt"), (json!({"file_paths": ["harb*"]}), "harbor.txt")]
    {
        let answer = client.call_ok(
            "query",
            json!({"query": "Who sailed on the Pequod from Nantucket?", "mode": "mix", "filter": filter}),
        );
        let references = answer["references"].as_array().unwrap();
        assert!(!references.is_empty() && references.iter().all(|r| r["file_path"] == file), "{filter}: {answer}");
    }
    let bad_filter = client.call_err("query", json!({"query": "x", "filter": {"created_after": "someday"}}));
    assert!(bad_filter.contains("created_after"), "{bad_filter}");
    let unreferenced =
        client.call_ok("query", json!({"query": "Nantucket", "mode": "naive", "include_references": false}));
    assert_eq!(unreferenced["references"], json!([]), "{unreferenced}");

    // the graph: search, an entity and a relation with their sources, a neighbourhood
    let found = client.call_ok("search_entities", json!({"query": "nantuck"}));
    assert_eq!(found["entities"][0], "Nantucket", "{found}");
    let entity = client.call_ok("get_entity", json!({"name": "Nantucket", "chunk_limit": 5}));
    assert_eq!(entity["entity"]["name"], "Nantucket", "{entity}");
    let mut files: Vec<&str> =
        entity["sources"]["documents"].as_array().unwrap().iter().map(|d| d["file_path"].as_str().unwrap()).collect();
    files.sort();
    assert_eq!(files, ["harbor.txt", "whaling.txt"], "{entity}");
    let chunks = entity["sources"]["chunks"].as_array().unwrap();
    assert!(!chunks.is_empty() && chunks.iter().all(|c| c["chunk"]["content"].as_str().unwrap().contains("Nantucket")));

    let around = client.call_ok("graph_neighbourhood", json!({"entity": "Nantucket", "depth": 1, "max_nodes": 3}));
    let nodes = around["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["name"], "Nantucket", "{around}");
    assert!(nodes.len() >= 2 && nodes.len() <= 3, "{around}");
    let edge = &around["edges"].as_array().unwrap()[0];
    let (a, b) = (edge["key"]["src"].as_str().unwrap(), edge["key"]["tgt"].as_str().unwrap());
    // asked the other way round: relations are undirected
    let relation = client.call_ok("get_relation", json!({"source": b, "target": a}));
    assert_eq!(relation["relation"]["key"], edge["key"], "{relation}");
    assert!(!relation["sources"]["chunks"].as_array().unwrap().is_empty(), "{relation}");
    let stats = client.call_ok("graph_stats", json!({}));
    assert!(stats["entities"].as_u64().unwrap() >= 5, "{stats}");
    assert_eq!(stats["documents"]["processed"], 2, "{stats}");

    // resources: the documents, listed and read
    let templates = client.result("resources/templates/list", json!({}));
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "lightrag://documents/{id}", "{templates}");
    let resources = client.result("resources/list", json!({}));
    let uris: Vec<&str> =
        resources["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    let whaling_uri = format!("lightrag://documents/{whaling_id}");
    // the two documents (the refused insert recorded nothing)
    assert!(uris.contains(&whaling_uri.as_str()) && uris.len() == 2, "{resources}");
    assert!(uris.contains(&format!("lightrag://documents/{harbor_id}").as_str()), "{resources}");
    let read = client.result("resources/read", json!({"uri": whaling_uri}));
    let contents = read["contents"].as_array().unwrap();
    assert_eq!(contents[0]["mimeType"], "text/plain");
    assert_eq!(contents[0]["text"], whaling_v2.as_str(), "the new version's text");
    assert_eq!(contents[1]["mimeType"], "application/json");
    let row: Value = serde_json::from_str(contents[1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(row["status"], "processed");

    // delete one document: the other stays
    let deleted = client.call_ok("delete_documents", json!({"doc_ids": [harbor_id]}));
    assert_eq!(deleted["deleted"][0]["doc_id"], harbor_id.as_str(), "{deleted}");
    let left = client.call_ok("list_documents", json!({"status": "processed"}));
    assert_eq!(left["total"], 1, "{left}");
    assert_eq!(left["documents"][0]["id"], whaling_id.as_str());
    let gone = client.call_err("document_status", json!({"doc_id": harbor_id}));
    assert!(gone.contains("list_documents"), "{gone}");

    // errors: an unknown tool is a protocol error; bad arguments and missing things are tool errors
    let unknown = client.request("tools/call", json!({"name": "no_such_tool", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(unknown["error"]["message"].as_str().unwrap().contains("no_such_tool"));
    let wrong_type = client.call_err("query", json!({"query": 42}));
    assert!(wrong_type.contains("invalid arguments for query"), "{wrong_type}");
    let missing = client.call_err("insert_text", json!({}));
    assert!(missing.contains("missing field `text`"), "{missing}");
    let misspelt = client.call_err("search_entities", json!({"query": "x", "limt": 3}));
    assert!(misspelt.contains("unknown field `limt`"), "{misspelt}");
    let bad_mode = client.call_err("query", json!({"query": "x", "mode": "deep"}));
    assert!(bad_mode.contains("unknown variant `deep`"), "{bad_mode}");
    let out_of_range = client.call_err("list_documents", json!({"page_size": 0}));
    assert!(out_of_range.contains("page_size: Input should be between 1 and 200"), "{out_of_range}");
    let no_entity = client.call_err("get_entity", json!({"name": "Atlantis"}));
    assert!(no_entity.contains("Atlantis") && no_entity.contains("search_entities"), "{no_entity}");
    let no_file = client.call_err("insert_file", json!({"path": "/no/such/file.txt"}));
    assert!(no_file.contains("'/no/such/file.txt' is outside") && no_file.contains("MCP_FILES_ROOT"), "{no_file}");
    let no_resource = client.request("resources/read", json!({"uri": "lightrag://documents/doc-nothing"}));
    assert_eq!(no_resource["error"]["code"], -32002, "{no_resource}");
    let unknown_method = client.request("prompts/get", json!({"name": "x"}));
    assert_eq!(unknown_method["error"]["code"], -32601, "{unknown_method}");

    assert!(client.close(), "lightrag mcp exits cleanly when the client closes stdin");
}

#[test]
fn mcp_help_names_the_tools_and_the_client_configuration() {
    let kb = Kb::new();
    let help = kb.ok(&["mcp", "--help"]);
    for needle in ["graph_neighbourhood", "lightrag://documents/{id}", "claude_desktop_config.json", "/mcp"] {
        assert!(help.contains(needle), "{needle} missing from:\n{help}");
    }
}
