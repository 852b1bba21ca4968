//! `/documents/upload` and `/documents/scan` of a file whose name is indexed already: a changed
//! file replaces the indexed version in place (200, same document id, the track id of the upload
//! finds it), an unchanged one is still refused (409) or skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::common::{Harness, TEXT_A};

const NEW_VERSION: &str = "Alice Smith works at Acme Corporation in Berlin. Alice Smith met Dana Scully at Acme \
Corporation.";

async fn labels(h: &Harness) -> Vec<Value> {
    h.get("/graph/label/list").await.json().as_array().unwrap().clone()
}

async fn documents(h: &Harness) -> Vec<Value> {
    let reply = h.post("/documents/paginated", json!({"page": 1, "page_size": 50})).await;
    reply.json()["documents"].as_array().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_with_new_content_replaces_the_indexed_version() {
    let h = Harness::new(&[]).await;
    let first = h.upload("notes.md", TEXT_A.as_bytes(), &[]).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    let status = h.wait_track(first.json()["track_id"].as_str().unwrap(), &[]).await;
    let id = status["documents"][0]["id"].as_str().unwrap().to_string();
    assert!(labels(&h).await.iter().any(|l| l == "Bob Jones"));

    let reply = h.upload("notes.md", NEW_VERSION.as_bytes(), &[]).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let body = reply.json();
    assert!(body["message"].as_str().unwrap().contains("replaces the earlier version"), "{body}");
    let track = body["track_id"].as_str().unwrap();
    let status = h.wait_track(track, &[]).await;
    assert_eq!(status["documents"][0]["id"], id.as_str(), "the replacing upload's track finds the document");
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    let docs = documents(&h).await;
    assert_eq!(docs.len(), 1, "no duplicate record: {docs:?}");
    let labels = labels(&h).await;
    assert!(labels.iter().any(|l| l == "Dana Scully"), "{labels:?}");
    assert!(!labels.iter().any(|l| l == "Bob Jones"), "the old version's entities are gone: {labels:?}");
    assert_eq!(std::fs::read_to_string(h.input_dir().join("notes.md")).unwrap(), NEW_VERSION);

    // the same content once more: refused as LightRAG refuses a known name
    let again = h.upload("notes.md", NEW_VERSION.as_bytes(), &[]).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.text());
    assert_eq!(documents(&h).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_replaces_a_changed_file_and_archives_an_unchanged_one() {
    let h = Harness::new(&[]).await;
    let first = h.upload("notes.md", TEXT_A.as_bytes(), &[]).await;
    h.wait_track(first.json()["track_id"].as_str().unwrap(), &[]).await;

    std::fs::write(h.input_dir().join("notes.md"), NEW_VERSION).unwrap();
    let scan = h.post("/documents/scan", json!({})).await.json();
    let track = scan["track_id"].as_str().unwrap().to_string();
    let status = h.wait_track(&track, &[]).await;
    assert_eq!(status["documents"][0]["status"], "processed", "{status}");
    assert_eq!(documents(&h).await.len(), 1);
    let history = h.get("/documents/pipeline_status").await.json()["history_messages"].to_string();
    assert!(
        history.contains("Scan finished: 0 new file(s) enqueued, 1 changed file(s) enqueued as new versions"),
        "{history}"
    );
    let labels = labels(&h).await;
    assert!(labels.iter().any(|l| l == "Dana Scully") && !labels.iter().any(|l| l == "Bob Jones"), "{labels:?}");

    // scanned again: unchanged, so archived, not enqueued
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let scan = h.post("/documents/scan", json!({})).await.json();
        if scan["status"] == "scanning_started" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{scan}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let parsed = h.input_dir().join("__parsed__").join("notes.md");
    while !parsed.is_file() {
        assert!(std::time::Instant::now() < deadline, "the unchanged file was not archived");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(std::fs::read_to_string(parsed).unwrap(), NEW_VERSION);
    assert_eq!(documents(&h).await.len(), 1);
}
