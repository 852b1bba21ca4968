//! `GET /workspaces`: the default, the request's, and every workspace on disk or open.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use axum::http::{Method, StatusCode};
use common::Harness;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspaces_created_by_the_header_or_found_on_disk_are_listed() {
    let h = Harness::new(&[]).await;
    let v = h.get("/workspaces").await.json();
    assert_eq!(v, json!({"default": "", "current": "", "workspaces": [""]}));

    // a workspace created through the header (by a write: reads do not create workspaces)
    let team = [("LIGHTRAG-WORKSPACE", "team_a")];
    assert_eq!(h.call(Method::POST, "/documents/scan", &team, None).await.status, StatusCode::OK);
    // one left on disk by an earlier run, a reserved folder and a folder without a store
    let rag = h.dir.path().join("rag");
    for (name, store) in [("team_b", true), ("__x", true), ("no_store", false)] {
        std::fs::create_dir_all(rag.join(name)).unwrap();
        if store {
            std::fs::write(rag.join(name).join(lightrag_config::STORE_FILE), b"").unwrap();
        }
    }
    let reply = h.call(Method::GET, "/workspaces", &team, None).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.json(), json!({"default": "", "current": "team_a", "workspaces": ["", "team_a", "team_b"]}));

    // listing opens nothing, and a reserved name is refused as on every route
    let v = h.call(Method::GET, "/workspaces", &[("LIGHTRAG-WORKSPACE", "team_c")], None).await.json();
    assert_eq!(v["current"], "team_c");
    assert!(!rag.join("team_c").exists());
    let reply = h.call(Method::GET, "/workspaces", &[("LIGHTRAG-WORKSPACE", "__x")], None).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_default_workspace_is_listed_first_class() {
    let h = Harness::new(&[("WORKSPACE", "main")]).await;
    let v = h.get("/workspaces").await.json();
    assert_eq!(v, json!({"default": "main", "current": "main", "workspaces": ["main"]}));
}

/// Regression: the header was stripped to `[A-Za-z0-9_]`, so "team-a" and "teama" were one
/// workspace and a name in another script landed in the default workspace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_names_with_other_characters_are_refused_not_stripped() {
    let h = Harness::new(&[]).await;
    for name in ["team-a", "a b", "../x"] {
        let reply = h.call(Method::GET, "/graph/label/list", &[("LIGHTRAG-WORKSPACE", name)], None).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{name}: {}", reply.text());
        assert!(reply.text().contains("LIGHTRAG-WORKSPACE"), "{}", reply.text());
    }
    let request = axum::http::Request::builder()
        .uri("/graph/label/list")
        .header("LIGHTRAG-WORKSPACE", axum::http::HeaderValue::from_bytes("équipe".as_bytes()).unwrap())
        .body(axum::body::Body::empty())
        .unwrap();
    assert_eq!(h.send(request).await.status, StatusCode::BAD_REQUEST, "a non-ASCII name");
    // an empty header is no header; a valid name works
    assert_eq!(
        h.call(Method::GET, "/graph/label/list", &[("LIGHTRAG-WORKSPACE", " ")], None).await.status,
        StatusCode::OK
    );
    let v = h.call(Method::GET, "/workspaces", &[("LIGHTRAG-WORKSPACE", "teama")], None).await.json();
    assert_eq!(v["current"], "teama");
    let v = h.get("/workspaces").await.json();
    assert_eq!(v["workspaces"], json!([""]), "nothing was opened by the refused names");
}

/// Regression (security review): a plain GET with a new workspace name created a store, so 35
/// GETs filled `MAX_WORKSPACES` until a restart. Reads of a workspace that does not exist are
/// answered as an empty knowledge base; only writes create it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_of_new_workspaces_do_not_create_them() {
    let h = Harness::new(&[("MAX_WORKSPACES", "1")]).await;
    let rag = h.dir.path().join("rag");
    for i in 0..40 {
        let ws = format!("probe_{i}");
        let header = [("LIGHTRAG-WORKSPACE", ws.as_str())];
        let reply = h.call(Method::GET, "/documents/status_counts", &header, None).await;
        assert_eq!(reply.status, StatusCode::OK, "{ws}: {}", reply.text());
        assert_eq!(reply.json()["status_counts"]["all"], 0);
        let reply = h.call(Method::GET, "/graph/label/list", &header, None).await;
        assert_eq!((reply.status, reply.json()), (StatusCode::OK, json!([])), "{ws}");
        let body = json!({"page": 1, "page_size": 10});
        let reply = h.call(Method::POST, "/documents/paginated", &header, Some(body)).await;
        assert_eq!(reply.status, StatusCode::OK, "{ws}: {}", reply.text());
        assert_eq!(reply.json()["documents"], json!([]));
        assert!(!rag.join(&ws).exists(), "{ws}: a read created the workspace's folder");
    }
    let query = json!({"query": "Who is here?", "mode": "naive"});
    let reply = h.call(Method::POST, "/query", &[("LIGHTRAG-WORKSPACE", "probe_q")], Some(query)).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert!(!rag.join("probe_q").exists());
    let v = h.get("/workspaces").await.json();
    assert_eq!(v["workspaces"], json!([""]), "no read opened a workspace");

    // the first write creates the workspace; then reads see its documents
    let team = [("LIGHTRAG-WORKSPACE", "team_a")];
    h.insert("Alice Smith works at Acme Corporation.", "a.txt", &team).await;
    assert!(rag.join("team_a").join(lightrag_config::STORE_FILE).is_file());
    let counts = h.call(Method::GET, "/documents/status_counts", &team, None).await.json();
    assert_eq!(counts["status_counts"]["all"], 1, "{counts}");
    // MAX_WORKSPACES still bounds the workspaces writes create
    let reply = h.call(Method::POST, "/documents/scan", &[("LIGHTRAG-WORKSPACE", "team_b")], None).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
}
