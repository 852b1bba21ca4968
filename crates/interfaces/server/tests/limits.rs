//! Bounded work per request (issue #13): body limits per route, `TIMEOUT` and
//! `MAX_CONCURRENT_REQUESTS`, through the router over the scripted LLM.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use http_body_util::BodyExt;
use lightrag_scripted_llm::{Fault, RouteKind};
use serde_json::json;
use tower::ServiceExt;

use crate::common::Harness;

const MIB: usize = 1024 * 1024;

fn post(uri: &str, body: Vec<u8>, declare_length: bool) -> Request<Body> {
    let mut builder = Request::builder().method(Method::POST).uri(uri).header(header::CONTENT_TYPE, "application/json");
    if declare_length {
        builder = builder.header(header::CONTENT_LENGTH, body.len());
    }
    builder.body(Body::from(body)).unwrap()
}

/// A JSON query whose text makes the body `size` bytes.
fn query_of_size(size: usize) -> Vec<u8> {
    let padding = "x".repeat(size.saturating_sub(40));
    json!({"query": padding, "mode": "bypass"}).to_string().into_bytes()
}

/// Regression: one body limit (`MAX_UPLOAD_SIZE`, 100 MiB) covered every route, so a JSON
/// route buffered 100 MiB before answering. JSON routes take `MAX_JSON_BODY_SIZE` (1 MiB), with or
/// without a declared length; the document routes keep `MAX_UPLOAD_SIZE`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_mib_query_is_refused_but_a_two_mib_text_is_accepted() {
    let h = Harness::new(&[]).await;
    for declared in [true, false] {
        let reply = h.send(post("/query", query_of_size(2 * MIB), declared)).await;
        assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE, "declared length: {declared}: {}", reply.text());
        let detail = reply.json()["detail"].as_str().unwrap().to_string();
        assert!(detail.contains("MAX_JSON_BODY_SIZE") && detail.contains("1048576 bytes"), "{detail}");
    }
    // under the limit the same route answers
    let reply = h.send(post("/query", query_of_size(1000), true)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());

    let text = "Ada Lovelace wrote programs. ".repeat(2 * MIB / 29 + 1);
    let body = json!({"text": text, "file_source": "big.txt"}).to_string().into_bytes();
    assert!(body.len() > 2 * MIB);
    let reply = h.send(post("/documents/text", body, true)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["status"], "success");
}

/// Regression: the login form and the Ollama routes are read by axum's own extractors, which
/// answered a body over the limit without `Content-Length` with a plain-text 413. Every 413 has the
/// JSON detail naming the setting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_login_or_ollama_body_gets_the_json_413() {
    let h = Harness::new(&[]).await;
    let form = format!("username=a&password={}", "p".repeat(2 * MIB)).into_bytes();
    let login = Request::builder()
        .method(Method::POST)
        .uri("/login")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form))
        .unwrap();
    let chat = json!({"model": "m", "messages": [{"role": "user", "content": "x".repeat(2 * MIB)}]});
    for (route, request) in [("/login", login), ("/api/chat", post("/api/chat", chat.to_string().into_bytes(), false))]
    {
        let reply = h.send(request).await;
        assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE, "{route}: {}", reply.text());
        let detail = reply.json()["detail"].as_str().map(str::to_string);
        assert!(detail.as_deref().is_some_and(|d| d.contains("MAX_JSON_BODY_SIZE")), "{route}: {}", reply.text());
    }
}

/// The limit is a setting; the document routes follow `MAX_UPLOAD_SIZE`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_body_limits_follow_their_settings() {
    let h = Harness::new(&[("MAX_JSON_BODY_SIZE", "3000000"), ("MAX_UPLOAD_SIZE", "1000")]).await;
    let reply = h.send(post("/query", query_of_size(2 * MIB), true)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let text = "y".repeat(200_000);
    let body = json!({"text": text, "file_source": "t.txt"}).to_string().into_bytes();
    let reply = h.send(post("/documents/text", body, true)).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", reply.text());
    assert!(reply.json()["detail"].as_str().unwrap().contains("MAX_UPLOAD_SIZE"), "{}", reply.text());
}

/// Regression: a request could run as long as its model calls did. After `TIMEOUT` it is
/// answered 504 with a JSON detail naming the setting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_slower_than_timeout_is_answered_504() {
    let h = Harness::new(&[("TIMEOUT", "1")]).await;
    h.llm.set_faults(vec![Fault::delay(5_000, 1).on_route(RouteKind::Chat)]);
    let reply = h.post("/query", json!({"query": "Who is Ada?", "mode": "bypass"})).await;
    assert_eq!(reply.status, StatusCode::GATEWAY_TIMEOUT, "{}", reply.text());
    let detail = reply.json()["detail"].as_str().unwrap().to_string();
    assert!(detail.contains("TIMEOUT=1"), "{detail}");
    // the next request is not affected
    let reply = h.post("/query", json!({"query": "Who is Bob?", "mode": "bypass"})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
}

/// Regression: nothing bounded the requests in progress. Beyond `MAX_CONCURRENT_REQUESTS` a
/// request is answered 503 with `Retry-After` at once; `/health` still answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_max_concurrent_requests_a_request_is_answered_503_and_health_still_answers() {
    let h = Harness::new(&[("MAX_CONCURRENT_REQUESTS", "2")]).await;
    h.llm.set_faults(vec![Fault::delay(3_000, 2).on_route(RouteKind::Chat)]);
    let slow = |q: &'static str| {
        let app = h.app.clone();
        tokio::spawn(async move {
            app.oneshot(post("/query", json!({"query": q, "mode": "bypass"}).to_string().into_bytes(), true))
                .await
                .unwrap()
        })
    };
    let first = slow("Who is Ada?");
    let second = slow("Who is Bob?");
    let deadline = Instant::now() + Duration::from_secs(10);
    while h.llm.stats().faults_injected < 2 {
        assert!(Instant::now() < deadline, "the two slow queries never reached the model");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let reply = h.post("/query", json!({"query": "Who is Carol?", "mode": "bypass"})).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE, "{}", reply.text());
    assert!(reply.headers.get(header::RETRY_AFTER).is_some(), "{:?}", reply.headers);
    assert!(reply.json()["detail"].as_str().unwrap().contains("MAX_CONCURRENT_REQUESTS=2"), "{}", reply.text());
    assert_eq!(h.get("/health").await.status, StatusCode::OK);
    assert_eq!(first.await.unwrap().status(), StatusCode::OK);
    assert_eq!(second.await.unwrap().status(), StatusCode::OK);
    // the slots are free again
    let reply = h.post("/query", json!({"query": "Who is Dan?", "mode": "bypass"})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
}

/// A response holds its slot until its body has been sent (a streamed answer counts to its last
/// byte), not only until its head is ready.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_slot_is_held_until_the_response_body_is_finished() {
    let h = Harness::new(&[("MAX_CONCURRENT_REQUESTS", "1")]).await;
    let request = || Request::get("/documents/status_counts").body(Body::empty()).unwrap();
    let unread = h.app.clone().oneshot(request()).await.unwrap();
    assert_eq!(unread.status(), StatusCode::OK);
    assert_eq!(h.send(request()).await.status, StatusCode::SERVICE_UNAVAILABLE);
    unread.into_body().collect().await.unwrap();
    assert_eq!(h.send(request()).await.status, StatusCode::OK);
}
