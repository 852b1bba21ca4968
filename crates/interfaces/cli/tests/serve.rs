//! `lightrag serve` as a real process: a short HTTP session, then a graceful SIGTERM shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::Kb;
use serde_json::{Value, json};

/// Kills the server if the test fails half-way.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

async fn get_json(client: &reqwest::Client, url: &str) -> Value {
    let reply = client.get(url).send().await.unwrap();
    assert!(reply.status().is_success(), "GET {url}: {}", reply.status());
    reply.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_http_and_stops_on_sigterm() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let kb = Kb::new();
    let port = free_port();
    let inputs = kb.dir.path().join("inputs");
    let child = kb
        .cmd()
        .args(["serve", "--host", "127.0.0.1", "--port", &port.to_string(), "--input-dir"])
        .arg(&inputs)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut server = Server(child);
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();

    let deadline = Instant::now() + Duration::from_secs(60);
    let health = loop {
        if let Ok(reply) = client.get(format!("{base}/health")).send().await {
            break reply.json::<Value>().await.unwrap();
        }
        assert!(server.0.try_wait().unwrap().is_none(), "server exited early");
        assert!(Instant::now() < deadline, "server did not come up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(health["status"], "healthy");
    assert_eq!(health["input_directory"], inputs.to_string_lossy().as_ref());

    let text = "Alice Smith works at Acme Corporation in Berlin. Bob Jones founded Acme Corporation.";
    let reply: Value = client
        .post(format!("{base}/documents/text"))
        .json(&json!({"text": text, "file_source": "alice.txt"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let track = reply["track_id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = get_json(&client, &format!("{base}/documents/track_status/{track}")).await;
        if status["documents"][0]["status"] == "processed" {
            break;
        }
        assert!(Instant::now() < deadline, "not processed: {status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let answer: Value = client
        .post(format!("{base}/query"))
        .json(&json!({"query": "Who works at Acme Corporation?"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(answer["response"].as_str().is_some_and(|r| !r.is_empty()), "{answer}");
    assert_eq!(answer["references"][0]["file_path"], "alice.txt");
    let labels = get_json(&client, &format!("{base}/graph/label/list")).await;
    assert!(labels.as_array().unwrap().iter().any(|l| l == "Acme Corporation"), "{labels}");

    // SIGTERM: graceful shutdown, exit code 0.
    let pid = server.0.id().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = server.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "server did not stop after SIGTERM");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(status.success(), "{status:?}");
}
