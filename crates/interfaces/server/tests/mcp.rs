//! `/mcp`: the MCP server over streamable HTTP in the router — refused without the API key, then
//! a session: initialize (session id), a file inserted through `insert_file`, a query citing it,
//! and the workspace header choosing another knowledge base.

use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::Harness;

const KEY: &str = "s3cret";
const TEXT: &str = "Captain Ahab commanded the Pequod on a long voyage. Ishmael sailed on the Pequod from Nantucket \
with Queequeg. Queequeg came from Kokovoko and served as a harpooner.";

/// One MCP POST; returns the status, the session id header and the JSON-RPC message answering
/// `id` (read from the event stream, or the JSON body), if any.
pub(crate) async fn post(
    h: &Harness,
    headers: &[(&str, &str)],
    message: Value,
) -> (StatusCode, Option<String>, Option<Value>) {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri("/mcp")
        // every HTTP/1.1 request has one (HTTP/2: :authority); the SDK refuses requests without
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        builder = builder.header(*k, *v);
    }
    let response = h.app.clone().oneshot(builder.body(Body::from(message.to_string())).unwrap()).await.unwrap();
    let status = response.status();
    let session = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_string());
    let json_body =
        response.headers().get("content-type").is_some_and(|v| v.to_str().unwrap().starts_with("application/json"));
    let id = message.get("id").cloned();
    let mut body = response.into_body();
    let mut text = String::new();
    // the event stream may stay open after the answer: read until the answer is there
    let answer = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame.unwrap().into_data() {
                text.push_str(&String::from_utf8_lossy(&data));
            }
            if let Some(found) = find_answer(&text, json_body, id.as_ref()) {
                return Some(found);
            }
        }
        find_answer(&text, json_body, id.as_ref())
    })
    .await
    .unwrap_or_else(|_| panic!("no answer to {message}; got so far: {text}"));
    if status.is_client_error() {
        eprintln!("{status} to {message}: {text}");
    }
    (status, session, answer)
}

fn find_answer(text: &str, json_body: bool, id: Option<&Value>) -> Option<Value> {
    let id = id?;
    if json_body {
        return serde_json::from_str::<Value>(text).ok().filter(|v| v.get("id") == Some(id));
    }
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("id") == Some(id))
}

pub(crate) fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

/// Opens an MCP session (no API key configured); returns the headers of its requests.
pub(crate) async fn session(h: &Harness) -> Vec<(&'static str, String)> {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let (status, session, _) = post(h, &[], init).await;
    assert_eq!(status, StatusCode::OK);
    let headers = vec![
        ("Mcp-Session-Id", session.expect("initialize opens a session")),
        ("MCP-Protocol-Version", "2025-06-18".to_string()),
    ];
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, _, _) = post(h, &borrowed, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    headers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_over_http_needs_the_key_and_serves_the_requests_workspace() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", KEY)]).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});

    // refused without the key, like every protected route
    let (status, _, _) = post(&h, &[], init.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _, _) = post(&h, &[("X-API-Key", "nope")], init.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let (status, session, answer) = post(&h, &[("X-API-Key", KEY)], init).await;
    assert_eq!(status, StatusCode::OK);
    let session = session.expect("initialize opens a session (Mcp-Session-Id)");
    let answer = answer.unwrap();
    assert_eq!(answer["result"]["protocolVersion"], "2025-06-18", "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["name"], "lightrag");

    let headers = [("X-API-Key", KEY), ("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-06-18")];
    let (status, _, _) = post(&h, &headers, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    assert_eq!(status, StatusCode::ACCEPTED);

    // over HTTP insert_file takes the file's content and name
    let (_, _, tools) = post(&h, &headers, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).await;
    let tools = tools.unwrap();
    let insert_file = tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "insert_file").unwrap();
    let mut required: Vec<&str> =
        insert_file["inputSchema"]["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    required.sort();
    assert_eq!(required, ["content", "file_name"], "{insert_file}");

    let (_, _, inserted) =
        post(&h, &headers, call(3, "insert_file", json!({"content": TEXT, "file_name": "voyage.txt"}))).await;
    let inserted = inserted.unwrap();
    let result = &inserted["result"]["structuredContent"];
    assert_eq!(result["documents"][0]["outcome"], "enqueued", "{inserted}");
    let track = result["track_id"].as_str().unwrap();
    assert!(track.starts_with("insert_"), "{track}");
    // indexed by the workspace's pipeline, visible to the REST routes
    let done = h.wait_track(track, &[("X-API-Key", KEY)]).await;
    assert_eq!(done["documents"][0]["status"], "processed", "{done}");

    // the same name again is refused, as by /documents/text
    let (_, _, again) =
        post(&h, &headers, call(4, "insert_file", json!({"content": TEXT, "file_name": "voyage.txt"}))).await;
    let again = again.unwrap();
    assert_eq!(again["result"]["isError"], true, "{again}");
    assert!(again["result"]["content"][0]["text"].as_str().unwrap().contains("already contains"), "{again}");
    // new content under that name replaces the indexed version
    let new_text = format!("{TEXT} Captain Ahab came back to Nantucket.");
    let (_, _, replaced) =
        post(&h, &headers, call(40, "insert_file", json!({"content": new_text, "file_name": "voyage.txt"}))).await;
    let replaced = replaced.unwrap();
    let result = &replaced["result"]["structuredContent"];
    assert_eq!(result["documents"][0]["outcome"], "replaced", "{replaced}");
    let done = h.wait_track(result["track_id"].as_str().unwrap(), &[("X-API-Key", KEY)]).await;
    assert_eq!(done["documents"][0]["status"], "processed", "{done}");

    let (_, _, answer) =
        post(&h, &headers, call(5, "query", json!({"query": "Who sailed from Nantucket?", "mode": "mix"}))).await;
    let answer = answer.unwrap();
    let result = &answer["result"];
    assert_ne!(result["isError"], true, "{answer}");
    assert!(!result["structuredContent"]["response"].as_str().unwrap().is_empty(), "{answer}");
    assert_eq!(result["structuredContent"]["references"][0]["file_path"], "voyage.txt", "{answer}");

    // the workspace header chooses the knowledge base, per request
    let other = [
        ("X-API-Key", KEY),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
        ("LIGHTRAG-WORKSPACE", "other"),
    ];
    let (_, _, listed) = post(&h, &other, call(6, "list_documents", json!({}))).await;
    assert_eq!(listed.unwrap()["result"]["structuredContent"]["total"], 0);
    // reading a workspace that does not exist does not create it (as on the REST routes)
    let (_, _, found) = post(&h, &other, call(61, "search_entities", json!({"query": "Ishmael"}))).await;
    assert_ne!(found.unwrap()["result"]["isError"], true);
    let other_dir = h.dir.path().join("rag").join("other");
    assert!(!other_dir.exists(), "an MCP read created the workspace");
    // an insert creates it
    let (_, _, inserted) =
        post(&h, &other, call(62, "insert_text", json!({"text": "Queequeg carved a coffin.", "file_name": "q.txt"})))
            .await;
    assert_ne!(inserted.unwrap()["result"]["isError"], true);
    assert!(other_dir.join(lightrag_config::STORE_FILE).is_file(), "the insert did not create the workspace");
    let (_, _, listed) = post(&h, &headers, call(7, "list_documents", json!({}))).await;
    assert_eq!(listed.unwrap()["result"]["structuredContent"]["total"], 1);

    // an unknown tool is a JSON-RPC error
    let (_, _, unknown) = post(&h, &headers, call(8, "nope", json!({}))).await;
    assert_eq!(unknown.unwrap()["error"]["code"], -32602);

    // the session ends on DELETE
    let mut builder = Request::builder().method(Method::DELETE).uri("/mcp").header("host", "localhost");
    for (k, v) in headers {
        builder = builder.header(k, v);
    }
    let response = h.app.clone().oneshot(builder.body(Body::empty()).unwrap()).await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let (status, _, _) = post(&h, &headers, call(9, "graph_stats", json!({}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "an ended session is unknown");
}

/// Regression (issue 26): over HTTP the SDK answers an MCP request's head at once and runs the
/// tool in the session's task, so `TIMEOUT` (the request deadline) never bounded a tool call: a
/// filtered `query` at the filter caps ran for as long as its matching took. The call is now
/// stopped at `TIMEOUT` with a failure that says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_tool_call_is_stopped_at_the_timeout() {
    let h = Harness::new(&[("TIMEOUT", "2")]).await;
    crate::filters::many_documents(&h, 999).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let (status, session, _) = post(&h, &[], init).await;
    assert_eq!(status, StatusCode::OK);
    let session = session.expect("a session id");
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-06-18")];
    let (status, _, _) = post(&h, &headers, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    assert_eq!(status, StatusCode::ACCEPTED);

    let slow = json!({"query": "Who is Alice Smith?", "mode": "naive", "context_only": true,
        "filter": {"file_paths": crate::filters::slow_globs()}});
    let (_, _, answer) = post(&h, &headers, call(2, "query", slow)).await;
    let answer = answer.unwrap();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("took longer than 2 s (TIMEOUT)"), "{text}");
}
