//! Every error class: 429 with Retry-After, 5xx, 4xx, timeouts, refused connections, bad JSON.

use std::time::Duration;

use lightrag_llm_http::{HttpEmbedConfig, HttpLlmConfig, build_embedder, build_llm};
use lightrag_ports::{EmbedError, LlmError};
use lightrag_scripted_llm::{Fault, FaultAction, RouteKind};

use super::{collect, embed_config, llm_config, question, server};

#[tokio::test]
async fn rate_limits_carry_retry_after() {
    let server = server().await;
    server.push_fault(Fault::new(FaultAction::RateLimit { retry_after_secs: 3 }, 2));
    let llm = build_llm(&llm_config(&server)).unwrap();
    let err = llm.chat(&question("q")).await.unwrap_err();
    assert!(matches!(err, LlmError::RateLimited { retry_after_secs: Some(s) } if s == 3.0), "{err:?}");
    assert!(err.is_retryable());
    let embedder = build_embedder(&embed_config(&server)).unwrap();
    let err = embedder.embed(&["t".to_string()]).await.unwrap_err();
    assert!(matches!(err, EmbedError::RateLimited { retry_after_secs: Some(s) } if s == 3.0), "{err:?}");
    // The fault is used up: the next call succeeds (no retry loop in the adapter: one request each).
    assert!(llm.chat(&question("q")).await.is_ok());
    assert_eq!(server.stats().status_count(429), 2);
    assert_eq!(server.stats().status_count(200), 1);
}

#[tokio::test]
async fn server_errors_and_client_errors_keep_the_body() {
    let server = server().await;
    let llm = build_llm(&llm_config(&server)).unwrap();
    server.push_fault(Fault::server_error(1));
    match llm.chat(&question("q")).await {
        Err(e @ LlmError::Server { status: 500, .. }) => {
            assert!(e.to_string().contains("scripted server error"), "{e}");
            assert!(e.is_retryable());
        }
        other => panic!("expected Server, got {other:?}"),
    }
    server.push_fault(Fault::status(400, 1));
    match llm.chat(&question("q")).await {
        Err(e @ LlmError::Client { status: 400, .. }) => {
            assert!(e.to_string().contains("scripted error status"), "{e}");
            assert!(!e.is_retryable());
        }
        other => panic!("expected Client, got {other:?}"),
    }
    server.push_fault(Fault::status(503, 1).on_route(RouteKind::Embed));
    let embedder = build_embedder(&embed_config(&server)).unwrap();
    assert!(matches!(embedder.embed(&["t".to_string()]).await, Err(EmbedError::Server { status: 503, .. })));
    // Streaming requests check the status before streaming.
    server.push_fault(Fault::status(404, 1));
    assert!(matches!(llm.chat_stream(&question("q")).await.err(), Some(LlmError::Client { status: 404, .. })));
}

#[tokio::test]
async fn slow_servers_time_out() {
    let server = server().await;
    let config = HttpLlmConfig { timeout: Duration::from_secs(1), ..llm_config(&server) };
    let llm = build_llm(&config).unwrap();
    server.push_fault(Fault::delay(2500, 2).on_route(RouteKind::Chat));
    let err = llm.chat(&question("q")).await.unwrap_err();
    assert!(matches!(err, LlmError::Timeout(1)), "{err:?}");
    assert!(err.to_string().contains("LLM_TIMEOUT"));
    let err = llm.chat_stream(&question("q")).await.err();
    assert!(matches!(err, Some(LlmError::Timeout(1))), "{err:?}");
    server.push_fault(Fault::delay(2500, 1).on_route(RouteKind::Embed));
    let embedder =
        build_embedder(&HttpEmbedConfig { timeout: Duration::from_secs(1), ..embed_config(&server) }).unwrap();
    assert!(matches!(embedder.embed(&["t".to_string()]).await, Err(EmbedError::Timeout(1))));
}

#[tokio::test]
async fn closed_ports_are_connection_errors() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let llm = build_llm(&HttpLlmConfig {
        host: format!("http://127.0.0.1:{port}/v1"),
        timeout: Duration::from_secs(5),
        ..HttpLlmConfig::default()
    })
    .unwrap();
    let err = llm.chat(&question("q")).await.unwrap_err();
    assert!(matches!(err, LlmError::Connection(_)), "{err:?}");
    assert!(err.is_retryable());
    let embedder = build_embedder(&HttpEmbedConfig {
        host: format!("http://127.0.0.1:{port}/v1"),
        dim: 8,
        ..HttpEmbedConfig::default()
    })
    .unwrap();
    assert!(matches!(embedder.embed(&["t".to_string()]).await, Err(EmbedError::Connection(_))));
}

#[tokio::test]
async fn malformed_json_is_an_invalid_response() {
    let server = server().await;
    let llm = build_llm(&llm_config(&server)).unwrap();
    server.push_fault(Fault::invalid_json(1).on_route(RouteKind::Chat));
    let err = llm.chat(&question("q")).await.unwrap_err();
    assert!(matches!(&err, LlmError::InvalidResponse(m) if m.contains("not valid JSON")), "{err:?}");
    assert!(!err.is_retryable());
    server.push_fault(Fault::invalid_json(1).on_route(RouteKind::Chat));
    let stream = llm.chat_stream(&question("q")).await.unwrap();
    assert!(matches!(collect(stream).await, Err(LlmError::InvalidResponse(_))));
    server.push_fault(Fault::invalid_json(1).on_route(RouteKind::Embed));
    let embedder = build_embedder(&embed_config(&server)).unwrap();
    // an embedding answer that is not JSON says so (not "the wrong shape"): it is read straight
    // into its typed form, without a `Value` first
    let err = embedder.embed(&["t".to_string()]).await.unwrap_err();
    assert!(matches!(&err, EmbedError::InvalidResponse(m) if m.contains("not valid JSON")), "{err:?}");
}

#[tokio::test]
async fn a_wrong_key_is_a_client_error() {
    let server = lightrag_scripted_llm::ScriptedLlm::start(lightrag_scripted_llm::ScriptConfig {
        api_key: Some("right".into()),
        ..Default::default()
    })
    .await
    .unwrap();
    let llm = build_llm(&HttpLlmConfig { api_key: Some("wrong".into()), ..llm_config(&server) }).unwrap();
    assert!(matches!(llm.chat(&question("q")).await, Err(LlmError::Client { status: 401, .. })));
}

/// A provider that drops the connection mid-answer is a connection error (retried), for chat
/// and for embeddings.
#[tokio::test]
async fn a_connection_dropped_mid_answer_is_a_connection_error() {
    let server = server().await;
    server.push_fault(Fault::reset(1).on_route(RouteKind::Chat));
    let llm = build_llm(&llm_config(&server)).unwrap();
    let err = llm.chat(&question("q")).await.unwrap_err();
    assert!(matches!(err, LlmError::Connection(_)), "{err:?}");
    assert!(err.is_retryable());
    assert!(llm.chat(&question("q")).await.is_ok(), "the next call is answered");
}
