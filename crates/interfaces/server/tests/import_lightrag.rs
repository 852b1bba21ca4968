//! `POST /admin/import-lightrag`: a LightRAG working directory on the server's disk imported into
//! the request's workspace as a pipeline job; the dry run; the folders an API caller may name.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};
use common::Harness;
use serde_json::{Value, json};

/// The LightRAG 1.5.7 fixture `basic/` (made by LightRAG itself).
fn basic_fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tools/lightrag-import/tests/fixtures/lightrag-1.5.7/basic")
}

/// Copies the fixture's LightRAG files into `to`.
fn copy_fixture(to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(basic_fixture()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

const WS: (&str, &str) = ("LIGHTRAG-WORKSPACE", "imported");

/// Starts the import (retrying while the workspace's first pipeline run, kicked when it opened,
/// is still busy).
async fn start_import(h: &Harness, body: Value) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let reply = h.call(Method::POST, "/admin/import-lightrag", &[WS], Some(body.clone())).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        let v = reply.json();
        if v["status"] != "busy" {
            return v;
        }
        assert!(Instant::now() < deadline, "the workspace stayed busy");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn wait_idle(h: &Harness) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = h.call(Method::GET, "/documents/pipeline_status", &[WS], None).await.json();
        if status["busy"] == false && status["job_name"] != "Default Job" {
            return status;
        }
        assert!(Instant::now() < deadline, "the import did not finish: {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_route_imports_a_lightrag_folder_as_a_pipeline_job() {
    let h = Harness::new(&[]).await;
    copy_fixture(&h.dir.path().join("rag/legacy"));

    // the dry run answers at once and writes nothing
    let reply =
        h.call(Method::POST, "/admin/import-lightrag", &[WS], Some(json!({"path": "legacy", "check": true}))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let v = reply.json();
    assert_eq!(v["status"], "checked");
    assert_eq!(v["report"]["documents"]["indexed"], 4, "{v}");
    assert_eq!(v["report"]["vectors"]["reuse"], true, "{v}");
    assert_eq!(v["report"]["dry_run"], true);
    let counts = h.call(Method::GET, "/documents/status_counts", &[WS], None).await.json();
    assert_eq!(counts["status_counts"]["all"], 0, "{counts}");

    // the import runs in the workspace's pipeline
    let v = start_import(&h, json!({"path": "legacy"})).await;
    assert_eq!(v["status"], "import_started", "{v}");
    assert!(v["source"].as_str().unwrap().ends_with("legacy"), "{v}");
    let status = wait_idle(&h).await;
    assert_eq!(status["job_name"], "Importing LightRAG data", "{status}");
    let history = status["history_messages"].to_string();
    assert!(history.contains("Document 4/4 imported"), "{history}");
    assert!(history.contains("Vectors: the configured embedder"), "{history}");
    assert!(
        status["latest_message"].as_str().unwrap().starts_with("Import finished: 4 documents imported"),
        "{status}"
    );

    let counts = h.call(Method::GET, "/documents/status_counts", &[WS], None).await.json();
    assert_eq!(counts["status_counts"]["processed"], 4, "{counts}");
    // queried like any workspace, with LightRAG's keyword answers from the imported cache
    let before = h.llm.stats();
    let body = json!({"query": "Who is Marina Castell and what does she lead?", "mode": "local"});
    let data = h.call(Method::POST, "/query/data", &[WS], Some(body)).await.json();
    assert_eq!(data["status"], "success", "{data}");
    assert!(data["data"]["entities"].as_array().unwrap().iter().any(|e| e["entity_name"] == "Marina Castell"));
    assert_eq!(h.llm.stats().keywords, before.keywords, "no keyword call: the answer came from the imported cache");

    // sent again: everything is there already
    assert_eq!(start_import(&h, json!({"path": "legacy"})).await["status"], "import_started");
    let status = wait_idle(&h).await;
    assert!(status["latest_message"].as_str().unwrap().contains("0 documents imported, 4 already present"), "{status}");
}

#[tokio::test]
async fn the_admin_route_reads_only_below_the_allowed_folders() {
    let outside = tempfile::tempdir().unwrap();
    copy_fixture(outside.path());
    let h = Harness::new(&[]).await;
    copy_fixture(&h.dir.path().join("rag/legacy"));
    let post = |body: Value| h.call(Method::POST, "/admin/import-lightrag", &[WS], Some(body));

    for path in [outside.path().to_str().unwrap(), "/etc", "../", "legacy/../../inputs", "../nope"] {
        let reply = post(json!({"path": path, "check": true})).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{path}: {}", reply.text());
        assert!(reply.text().contains("IMPORT_ALLOWED_DIRS"), "{}", reply.text());
    }
    let reply = post(json!({"path": "missing", "check": true})).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    // WORKING_DIR itself holds no LightRAG file, but its sub-folder does: the answer names it
    let reply = post(json!({"path": ".", "check": true})).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    assert!(reply.text().contains("legacy"), "{}", reply.text());
    let reply = post(json!({"path": ".", "workspace": "legacy", "check": true})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let reply = post(json!({"path": ".", "workspace": "../x"})).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", reply.text());
    let reply = post(json!({"path": "legacy", "unknown": 1})).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", reply.text());

    // IMPORT_ALLOWED_DIRS opens another folder (and only it)
    let allowed = outside.path().to_str().unwrap().to_string();
    let h = Harness::new(&[("IMPORT_ALLOWED_DIRS", &allowed)]).await;
    let reply =
        h.call(Method::POST, "/admin/import-lightrag", &[WS], Some(json!({"path": allowed, "check": true}))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    copy_fixture(&h.dir.path().join("rag/legacy"));
    let reply =
        h.call(Method::POST, "/admin/import-lightrag", &[WS], Some(json!({"path": "legacy", "check": true}))).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "WORKING_DIR is no longer allowed: {}", reply.text());
}

#[tokio::test]
async fn the_admin_route_needs_credentials_when_the_server_has_them() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", "s3cret")]).await;
    copy_fixture(&h.dir.path().join("rag/legacy"));
    let body = json!({"path": "legacy", "check": true});
    let reply = h.call(Method::POST, "/admin/import-lightrag", &[], Some(body.clone())).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.text());
    let reply = h.call(Method::POST, "/admin/import-lightrag", &[("X-API-Key", "s3cret")], Some(body)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
}
