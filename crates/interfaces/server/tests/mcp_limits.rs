//! `/mcp` under load (issue 26, items 4 and 5): idle event streams (`GET /mcp`) held a request
//! slot each until every route answered 503, and sessions had no cap (~64 KiB each, freed only
//! after 5 minutes idle). Now streams have their own caps and idle timeout, and sessions beyond
//! their caps evict the one idle the longest. Clients are told apart by address
//! (`ConnectInfo`, as the accept loop sets it).

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, Response, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::Harness;

/// How long a test waits for something that must happen (a hung server, not a slow one).
const PATIENCE: Duration = Duration::from_secs(60);

fn address(client: u8) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, client], 40000))
}

/// A request to `/mcp` from `client`, in `session` if any.
fn request(method: Method, client: u8, session: Option<&str>, body: Option<Value>) -> Request<Body> {
    let mut builder = Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", "localhost")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json");
    if let Some(session) = session {
        builder = builder.header("mcp-session-id", session).header("mcp-protocol-version", "2025-06-18");
    }
    let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
    let mut request = builder.body(body).unwrap();
    request.extensions_mut().insert(ConnectInfo(address(client)));
    request
}

/// Reads an event stream until the JSON-RPC answer to `id` (or the end); returns it.
async fn answer(response: Response<Body>, id: u64) -> Option<Value> {
    let mut body = response.into_body();
    let mut text = String::new();
    tokio::time::timeout(PATIENCE, async {
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame.unwrap().into_data() {
                text.push_str(&String::from_utf8_lossy(&data));
            }
            let found = text
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                .find(|v| v["id"] == id);
            if found.is_some() {
                return found;
            }
        }
        None
    })
    .await
    .expect("the answer never came")
}

/// Opens a session for `client` (initialize, then the initialized notification); returns its id.
async fn open_session(h: &Harness, client: u8) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let response = h.app.clone().oneshot(request(Method::POST, client, None, Some(init))).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_string();
    assert!(answer(response, 1).await.is_some(), "no answer to initialize");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = h.send(request(Method::POST, client, Some(&session), Some(initialized))).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text());
    session
}

/// A new session that must be refused: its status and detail.
async fn refused_session(h: &Harness, client: u8) -> (StatusCode, String) {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
    let reply = h.send(request(Method::POST, client, None, Some(init))).await;
    assert!(reply.headers.get("retry-after").is_some(), "{:?}", reply.headers);
    (reply.status, reply.json()["detail"].as_str().unwrap_or_default().to_string())
}

/// One tool call in `session`: the HTTP status and, when answered, the result.
async fn ping(h: &Harness, client: u8, session: &str) -> StatusCode {
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "graph_stats", "arguments": {}}});
    let response = h.app.clone().oneshot(request(Method::POST, client, Some(session), Some(call))).await.unwrap();
    let status = response.status();
    if status == StatusCode::OK {
        let answered = answer(response, 7).await.expect("no answer to the tool call");
        assert_ne!(answered["result"]["isError"], true, "{answered}");
    }
    status
}

/// Opens the event stream of `session`; the response, whose body is the open stream.
async fn stream(h: &Harness, client: u8, session: Option<&str>) -> Response<Body> {
    h.app.clone().oneshot(request(Method::GET, client, session, None)).await.unwrap()
}

/// The value of an unlabelled series of `/metrics`.
async fn metric(h: &Harness, name: &str) -> String {
    let text = h.get("/metrics").await.text();
    let line = text.lines().find(|l| l.split([' ', '{']).next() == Some(name));
    line.and_then(|l| l.rsplit(' ').next())
        .unwrap_or_else(|| panic!("{name} missing from /metrics:\n{text}"))
        .to_string()
}

/// Regression: 2 idle event streams took both request slots, and every route answered 503. Now
/// streams up to their caps leave the routes answering; beyond a client's cap a stream gets 429,
/// beyond the server's 503; a closed stream frees its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_mcp_event_streams_do_not_lock_out_the_other_routes() {
    let h = Harness::new(&[
        ("MAX_CONCURRENT_REQUESTS", "2"),
        ("MCP_MAX_STREAMS", "4"),
        ("MCP_MAX_STREAMS_PER_CLIENT", "2"),
    ])
    .await;
    let mut held = Vec::new();
    for client in [1, 2] {
        for _ in 0..2 {
            let session = open_session(&h, client).await;
            let open = stream(&h, client, Some(&session)).await;
            assert_eq!(open.status(), StatusCode::OK);
            assert_eq!(open.headers()["content-type"], "text/event-stream");
            held.push((client, session, open));
        }
    }
    for route in ["/documents/status_counts", "/webui/"] {
        let reply = h.get(route).await;
        assert_eq!(reply.status, StatusCode::OK, "{route} with 4 idle MCP streams open: {}", reply.text());
    }
    let reply = h.post("/query/data", json!({"query": "Who sailed?", "mode": "naive"})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(metric(&h, "lightrag_mcp_streams").await, "4");

    // client 1 at its cap: 429; client 3 with the server at its cap: 503
    let session = open_session(&h, 1).await;
    let over = stream(&h, 1, Some(&session)).await;
    assert_eq!(over.status(), StatusCode::TOO_MANY_REQUESTS);
    let detail = String::from_utf8(over.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(detail.contains("MCP_MAX_STREAMS_PER_CLIENT"), "{detail}");
    let third = open_session(&h, 3).await;
    let full = stream(&h, 3, Some(&third)).await;
    assert_eq!(full.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(full.headers().contains_key("retry-after"));

    // a stream that ends frees its place
    drop(held.pop());
    let open = stream(&h, 3, Some(&third)).await;
    assert_eq!(open.status(), StatusCode::OK);
    let text = h.get("/metrics").await.text();
    for series in [
        "lightrag_mcp_refused_total{kind=\"stream\",cap=\"client\"} 1",
        "lightrag_mcp_refused_total{kind=\"stream\",cap=\"server\"} 1",
    ] {
        assert!(text.contains(series), "{series} missing from:\n{text}");
    }
}

/// An event stream that carries no message for `MCP_STREAM_IDLE_TIMEOUT` is closed (and the
/// session stays: the client may open another).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_mcp_event_stream_is_closed_after_its_idle_timeout() {
    let h = Harness::new(&[("MCP_STREAM_IDLE_TIMEOUT", "1"), ("MCP_MAX_STREAMS", "1")]).await;
    let session = open_session(&h, 1).await;
    let open = stream(&h, 1, Some(&session)).await;
    assert_eq!(open.status(), StatusCode::OK);
    let mut body = open.into_body();
    let ended = tokio::time::timeout(PATIENCE, async {
        while let Some(frame) = body.frame().await {
            frame.unwrap();
        }
    })
    .await;
    assert!(ended.is_ok(), "the idle stream was never closed");
    drop(body);
    assert_eq!(metric(&h, "lightrag_mcp_streams_idle_closed_total").await, "1");
    assert_eq!(metric(&h, "lightrag_mcp_streams").await, "0");
    // its place is free again, and the session still answers
    assert_eq!(stream(&h, 1, Some(&session)).await.status(), StatusCode::OK);
    assert_eq!(ping(&h, 1, &session).await, StatusCode::OK);
}

/// Regression: sessions were unbounded. At a client's cap its own session idle the longest is
/// evicted, at the server's cap the one idle the longest of anyone; an evicted session's next
/// request gets 404 (the MCP answer for an ended session), and the metric counts them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_sessions_beyond_the_cap_evict_the_one_idle_the_longest() {
    let h = Harness::new(&[("MCP_MAX_SESSIONS", "3"), ("MCP_MAX_SESSIONS_PER_CLIENT", "2")]).await;
    let a1 = open_session(&h, 1).await;
    let a2 = open_session(&h, 1).await;
    let a3 = open_session(&h, 1).await;
    assert_eq!(ping(&h, 1, &a1).await, StatusCode::NOT_FOUND, "client 1's oldest session was not evicted");
    assert_eq!(ping(&h, 1, &a2).await, StatusCode::OK);
    assert_eq!(metric(&h, "lightrag_mcp_sessions").await, "2");
    let b1 = open_session(&h, 2).await;
    // the server is full (a2, a3, b1): client 3's session evicts a3, idle the longest
    let c1 = open_session(&h, 3).await;
    assert_eq!(ping(&h, 1, &a3).await, StatusCode::NOT_FOUND, "the session idle the longest was not evicted");
    for (client, session) in [(1, &a2), (2, &b1), (3, &c1)] {
        assert_eq!(ping(&h, client, session).await, StatusCode::OK);
    }
    assert_eq!(metric(&h, "lightrag_mcp_sessions").await, "3");
    assert_eq!(metric(&h, "lightrag_mcp_sessions_evicted_total").await, "2");
}

/// A session with a request or an event stream in progress is never evicted: when every
/// candidate is busy, the new session is refused (429 at the client's cap, 503 at the server's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_mcp_sessions_are_not_evicted_and_a_new_one_is_refused() {
    let h = Harness::new(&[("MCP_MAX_SESSIONS", "2"), ("MCP_MAX_SESSIONS_PER_CLIENT", "1")]).await;
    let a1 = open_session(&h, 1).await;
    let a1_stream = stream(&h, 1, Some(&a1)).await;
    assert_eq!(a1_stream.status(), StatusCode::OK);
    let (status, detail) = refused_session(&h, 1).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{detail}");
    assert!(detail.contains("MCP_MAX_SESSIONS_PER_CLIENT"), "{detail}");
    let b1 = open_session(&h, 2).await;
    let b1_stream = stream(&h, 2, Some(&b1)).await;
    let (status, detail) = refused_session(&h, 3).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{detail}");
    assert!(detail.contains("MCP_MAX_SESSIONS"), "{detail}");
    assert_eq!(ping(&h, 1, &a1).await, StatusCode::OK, "a refused session must not evict a busy one");
    // once a1's stream ends, it is idle: the next new session takes its place
    drop(a1_stream);
    let c1 = open_session(&h, 3).await;
    assert_eq!(ping(&h, 1, &a1).await, StatusCode::NOT_FOUND);
    assert_eq!(ping(&h, 3, &c1).await, StatusCode::OK);
    drop(b1_stream);
    let text = h.get("/metrics").await.text();
    for series in [
        "lightrag_mcp_refused_total{kind=\"session\",cap=\"client\"} 1",
        "lightrag_mcp_refused_total{kind=\"session\",cap=\"server\"} 1",
    ] {
        assert!(text.contains(series), "{series} missing from:\n{text}");
    }
}
