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

/// `IMPORT_ALLOWED_DIRS` holds for the folder finally read: a workspace sub-folder (named by
/// `workspace` or by the request's workspace header) that is a link to a folder outside is
/// refused like a path outside, and a LightRAG file that links outside is not read.
#[cfg(unix)]
#[tokio::test]
async fn a_workspace_symlink_out_of_the_allowed_dirs_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    copy_fixture(outside.path());
    let h = Harness::new(&[]).await;
    let imports = h.dir.path().join("rag/imports2");
    std::fs::create_dir_all(&imports).unwrap();
    std::os::unix::fs::symlink(outside.path(), imports.join("link")).unwrap();
    // the folder linked to is readable and holds LightRAG's files: only the check stops it
    assert!(outside.path().join("kv_store_full_docs.json").is_file());

    for (headers, body) in [
        (vec![WS], json!({"path": "imports2", "workspace": "link", "check": true})),
        (vec![WS], json!({"path": "imports2", "workspace": "link"})),
        (vec![("LIGHTRAG-WORKSPACE", "link")], json!({"path": "imports2", "check": true})),
        (vec![("LIGHTRAG-WORKSPACE", "link")], json!({"path": "imports2"})),
    ] {
        let reply = h.call(Method::POST, "/admin/import-lightrag", &headers, Some(body.clone())).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{headers:?} {body}: {}", reply.text());
        assert!(reply.text().contains("IMPORT_ALLOWED_DIRS"), "{}", reply.text());
        assert!(!reply.text().contains(h.dir.path().to_str().unwrap()), "no absolute path: {}", reply.text());
    }
    for ws in ["imported", "link"] {
        let counts = h.call(Method::GET, "/documents/status_counts", &[("LIGHTRAG-WORKSPACE", ws)], None).await.json();
        assert_eq!(counts["status_counts"]["all"], 0, "nothing was imported into {ws}: {counts}");
    }

    // a folder inside whose document texts link to the outside one: that file is not read
    let inside = h.dir.path().join("rag/legacy");
    copy_fixture(&inside);
    std::fs::remove_file(inside.join("kv_store_full_docs.json")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("kv_store_full_docs.json"), inside.join("kv_store_full_docs.json"))
        .unwrap();
    let body = json!({"path": "legacy", "check": true});
    let reply = h.call(Method::POST, "/admin/import-lightrag", &[WS], Some(body)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    let report = &reply.json()["report"];
    let file = report["files"].as_array().unwrap().iter().find(|f| f["name"] == "kv_store_full_docs.json").unwrap();
    assert_eq!(file["state"], "unreadable", "{report}");
    assert!(file["problem"].as_str().unwrap().contains("IMPORT_ALLOWED_DIRS"), "{file}");
}

/// Answers of the import route name paths relative to the allowed folder, never the server's
/// absolute ones: errors (a missing folder, one without LightRAG files, an unknown workspace),
/// the dry run's report and the started job.
#[tokio::test]
async fn errors_name_paths_relative_to_the_allowed_folder() {
    let h = Harness::new(&[]).await;
    copy_fixture(&h.dir.path().join("rag/legacy"));
    std::fs::create_dir_all(h.dir.path().join("rag/empty")).unwrap();
    let root = h.dir.path().to_str().unwrap().to_string();
    let post = |body: Value| h.call(Method::POST, "/admin/import-lightrag", &[WS], Some(body));
    for (body, status, shown) in [
        (json!({"path": "nonexistent", "check": true}), StatusCode::BAD_REQUEST, "cannot read nonexistent"),
        (json!({"path": "legacy/missing/deeper"}), StatusCode::BAD_REQUEST, "cannot read legacy/missing/deeper"),
        (json!({"path": "empty", "check": true}), StatusCode::BAD_REQUEST, "empty holds no LightRAG storage files"),
        (json!({"path": ".", "workspace": "nope"}), StatusCode::BAD_REQUEST, ". has no LightRAG workspace 'nope'"),
        (
            json!({"path": "legacy/kv_store_full_docs.json"}),
            StatusCode::BAD_REQUEST,
            "legacy/kv_store_full_docs.json is not a folder",
        ),
    ] {
        let reply = post(body.clone()).await;
        assert_eq!(reply.status, status, "{body}: {}", reply.text());
        let detail = reply.json()["detail"].as_str().unwrap().to_string();
        assert!(detail.contains(shown), "{body}: {detail}");
        assert!(!detail.contains(&root) && !detail.contains("/rag/"), "{body}: an absolute path: {detail}");
    }
    let reply = post(json!({"path": "legacy", "check": true})).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json()["report"]["source"], "legacy", "{}", reply.text());
    assert!(!reply.text().contains(&root), "{}", reply.text());
    let started = start_import(&h, json!({"path": "legacy"})).await;
    assert_eq!(started["source"], "legacy", "{started}");
    let status = wait_idle(&h).await;
    assert!(!status.to_string().contains(&root), "the job's messages: {status}");
}

/// A 422 of the import route names the field after one `body`, as FastAPI does
/// (`["body", "path"]`, not `["body", "body", "path"]`).
#[tokio::test]
async fn a_validation_error_names_body_once() {
    let h = Harness::new(&[]).await;
    copy_fixture(&h.dir.path().join("rag/legacy"));
    for (body, loc) in [
        (json!({"path": " "}), json!(["body", "path"])),
        (json!({"path": "legacy", "workspace": "../x"}), json!(["body", "workspace"])),
        (json!({"path": "legacy", "check": "yes"}), json!(["body", "check"])),
        (json!({"workspace": "x"}), json!(["body", "path"])),
    ] {
        let reply = h.call(Method::POST, "/admin/import-lightrag", &[WS], Some(body.clone())).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {}", reply.text());
        assert_eq!(reply.json()["detail"][0]["loc"], loc, "{body}: {}", reply.text());
    }
}
