//! `lightrag serve` as a real process on a free port: a whole session over HTTP (upload → track
//! status → every query mode → graph routes → delete → gone), HTTPS with `--ssl`, the API prefix,
//! and a graceful SIGTERM shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::Kb;
use common::server::{Server, get_json, multipart};
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

const API_KEY: &str = "session-key";

const DOCUMENT: &str = "Alice Smith works at Acme Corporation in Berlin. Alice Smith met Bob Jones at Acme \
Corporation. Bob Jones founded the Berlin Robotics Institute with Carol White.";

async fn post_json(client: &reqwest::Client, url: &str, body: Value) -> (u16, String) {
    let reply = client.post(url).json(&body).send().await.unwrap();
    (reply.status().as_u16(), reply.text().await.unwrap())
}

fn client_with_key() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut headers = HeaderMap::new();
    headers.insert("X-API-Key", HeaderValue::from_static(API_KEY));
    reqwest::Client::builder().default_headers(headers).build().unwrap()
}

async fn wait_for(client: &reqwest::Client, url: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let value = get_json(client, url).await;
        if done(&value) {
            return value;
        }
        assert!(Instant::now() < deadline, "{url} never reached the expected state: {value}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_drives_a_whole_session_over_http() {
    let kb = Kb::new();
    let inputs = kb.dir.path().join("inputs");
    let client = client_with_key();
    let server =
        Server::start(&kb, &["--key", API_KEY, "--input-dir", &inputs.to_string_lossy()], "http", &client).await;

    // auth is on: no key → 403
    let anonymous = reqwest::Client::new().get(server.url("/documents/status_counts")).send().await.unwrap();
    assert_eq!(anonymous.status().as_u16(), 403);
    let health = get_json(&client, &server.url("/health")).await;
    assert_eq!(health["status"], "healthy");
    assert_eq!(health["input_directory"], inputs.to_string_lossy().as_ref());

    // upload → the file lands in INPUT_DIR, track status reaches processed
    let (content_type, body) = multipart("alice.txt", DOCUMENT.as_bytes());
    let reply = client
        .post(server.url("/documents/upload"))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status().as_u16(), 200);
    let reply: Value = reply.json().await.unwrap();
    assert_eq!(reply["status"], "success", "{reply}");
    assert!(inputs.join("alice.txt").is_file());
    let track = reply["track_id"].as_str().unwrap().to_string();
    assert!(track.starts_with("upload_"), "{track}");
    let status = wait_for(&client, &server.url(&format!("/documents/track_status/{track}")), |v| {
        v["documents"][0]["status"] == "processed" || v["documents"][0]["status"] == "failed"
    })
    .await;
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    let doc_id = status["documents"][0]["id"].as_str().unwrap().to_string();
    let pipeline = wait_for(&client, &server.url("/documents/pipeline_status"), |v| v["busy"] == false).await;
    assert!(pipeline["history_messages"].as_array().is_some_and(|h| !h.is_empty()), "{pipeline}");

    // every query mode answers, with the uploaded file as reference (bypass: no retrieval)
    for mode in ["local", "global", "hybrid", "naive", "mix", "bypass"] {
        let body = json!({"query": "Who works at Acme Corporation?", "mode": mode});
        let (code, text) = post_json(&client, &server.url("/query"), body).await;
        assert_eq!(code, 200, "{mode}: {text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert!(answer["response"].as_str().is_some_and(|r| !r.is_empty()), "{mode}: {answer}");
        if mode != "bypass" {
            assert_eq!(answer["references"][0]["file_path"], "alice.txt", "{mode}: {answer}");
        }
    }
    let body = json!({"query": "Who founded the Berlin Robotics Institute?", "mode": "local"});
    let (code, text) = post_json(&client, &server.url("/query/stream"), body.clone()).await;
    assert_eq!(code, 200, "{text}");
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["references"][0]["file_path"], "alice.txt", "references come first: {text}");
    assert!(lines[1..].iter().all(|l| l["response"].is_string()), "{text}");
    let (code, text) = post_json(&client, &server.url("/query/data"), body).await;
    assert_eq!(code, 200, "{text}");
    let data: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(data["status"], "success");
    assert!(data["data"]["entities"].as_array().is_some_and(|e| !e.is_empty()), "{data}");

    // graph routes
    let labels = get_json(&client, &server.url("/graph/label/list")).await;
    assert!(labels.as_array().unwrap().iter().any(|l| l == "Acme Corporation"), "{labels}");
    let popular = get_json(&client, &server.url("/graph/label/popular?limit=5")).await;
    assert!(!popular.as_array().unwrap().is_empty());
    let found = get_json(&client, &server.url("/graph/label/search?q=acme")).await;
    assert_eq!(found[0], "Acme Corporation", "{found}");
    let exists = get_json(&client, &server.url("/graph/entity/exists?name=Alice%20Smith")).await;
    assert_eq!(exists["exists"], true);
    let graph = get_json(&client, &server.url("/graphs?label=Acme%20Corporation&max_depth=2")).await;
    assert!(graph["nodes"].as_array().unwrap().iter().any(|n| n["id"] == "Alice Smith"), "{graph}");
    assert!(!graph["edges"].as_array().unwrap().is_empty(), "{graph}");

    // delete the document and its file → everything is gone
    let reply = client
        .delete(server.url("/documents/delete_document"))
        .json(&json!({"doc_ids": [doc_id], "delete_file": true}))
        .send()
        .await
        .unwrap();
    let reply: Value = reply.json().await.unwrap();
    assert_eq!(reply["status"], "deletion_started", "{reply}");
    wait_for(&client, &server.url("/documents/status_counts"), |v| v["status_counts"]["all"] == 0).await;
    wait_for(&client, &server.url("/documents/pipeline_status"), |v| v["busy"] == false).await;
    assert_eq!(get_json(&client, &server.url("/graph/label/list")).await, json!([]));
    let exists = get_json(&client, &server.url("/graph/entity/exists?name=Alice%20Smith")).await;
    assert_eq!(exists["exists"], false);
    assert!(!inputs.join("alice.txt").exists(), "delete_file removed the upload");
    let status = get_json(&client, &server.url(&format!("/documents/track_status/{track}"))).await;
    assert_eq!(status["total_count"], 0, "{status}");

    server.stop().await;
}

/// A self-signed certificate for 127.0.0.1, written as PEM files; returns its PEM.
fn write_certificate(dir: &Path) -> String {
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    std::fs::write(dir.join("cert.pem"), cert.cert.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), cert.signing_key.serialize_pem()).unwrap();
    cert.cert.pem()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_speaks_https_with_ssl_flags_and_honours_the_api_prefix() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let kb = Kb::new();
    let pem = write_certificate(kb.dir.path());
    let client = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(pem.as_bytes()).unwrap())
        .build()
        .unwrap();
    let cert = kb.dir.path().join("cert.pem");
    let key = kb.dir.path().join("key.pem");
    let args = [
        "--ssl",
        "--ssl-certfile",
        &cert.to_string_lossy(),
        "--ssl-keyfile",
        &key.to_string_lossy(),
        "--api-prefix",
        "/lightrag",
    ]
    .map(str::to_string);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = Server::start(&kb, &args, "https", &client).await;
    assert_eq!(get_json(&client, &server.url("/health")).await["status"], "healthy");
    // behind a proxy that keeps the prefix
    assert_eq!(get_json(&client, &server.url("/lightrag/health")).await["status"], "healthy");
    // plain HTTP on the HTTPS port fails
    let plain = server.base.replace("https://", "http://");
    assert!(reqwest::Client::new().get(format!("{plain}/health")).send().await.is_err());
    server.stop().await;
}

#[test]
fn serve_refuses_a_missing_certificate_with_a_clear_error() {
    let kb = Kb::new();
    let missing = kb.dir.path().join("nope.pem");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
    let out = kb
        .cmd()
        .args(["serve", "--host", "127.0.0.1", "--port", &port, "--ssl", "--ssl-certfile"])
        .arg(&missing)
        .arg("--ssl-keyfile")
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("SSL_CERTFILE") && stderr.contains("nope.pem"), "{stderr}");
}
