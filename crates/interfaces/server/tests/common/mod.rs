//! Test harness: the router over a scripted LLM, in a fresh working directory, driven with
//! `tower::ServiceExt::oneshot` (no socket).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt;
use lightrag_config::{RawConfig, Settings};
use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, ScriptedServer};
use lightrag_server::{AppState, app};
use serde_json::Value;
use tower::ServiceExt;

/// The PostgreSQL server of the tests (shared with the CLI's tests).
#[path = "../../../cli/tests/common/pg.rs"]
pub mod pg;

pub struct Harness {
    pub llm: ScriptedServer,
    pub dir: tempfile::TempDir,
    pub app: Router,
    pub state: AppState,
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("invalid JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Harness {
    pub async fn new(extra: &[(&str, &str)]) -> Harness {
        let owned: Vec<(String, String)> = extra.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Self::new_with(move |_| owned).await
    }

    /// Like [`Harness::new`], with settings that depend on the scripted server (its URLs).
    pub async fn new_with(extra: impl FnOnce(&ScriptedServer) -> Vec<(String, String)>) -> Harness {
        let llm = ScriptedLlm::start(ScriptConfig::default()).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let extra = extra(&llm);
        let settings = settings(&llm, dir.path(), extra);
        let state = AppState::from_settings(settings).unwrap();
        Harness { llm, dir, app: app(state.clone()), state }
    }

    pub fn input_dir(&self) -> PathBuf {
        self.dir.path().join("inputs")
    }

    /// The router of a second server over the same working directory and settings, as another
    /// process on the knowledge base would be (its own store handle, engine and pipeline).
    pub fn sibling(&self) -> Router {
        let settings = settings(&self.llm, self.dir.path(), Vec::new());
        app(AppState::from_settings(settings).unwrap())
    }

    pub async fn send(&self, request: Request<Body>) -> Reply {
        send_to(&self.app, request).await
    }

    pub async fn call(&self, method: Method, uri: &str, headers: &[(&str, &str)], body: Option<Value>) -> Reply {
        call_to(&self.app, method, uri, headers, body).await
    }

    pub async fn get(&self, uri: &str) -> Reply {
        self.call(Method::GET, uri, &[], None).await
    }

    pub async fn post(&self, uri: &str, body: Value) -> Reply {
        self.call(Method::POST, uri, &[], Some(body)).await
    }

    pub async fn upload(&self, name: &str, content: &[u8], headers: &[(&str, &str)]) -> Reply {
        let mut body = Vec::new();
        body.extend_from_slice(
            format!(
                "--XBOUNDARY\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
                 Content-Type: text/plain\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n--XBOUNDARY--\r\n");
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri("/documents/upload")
            .header("content-type", "multipart/form-data; boundary=XBOUNDARY");
        for (k, v) in headers {
            builder = builder.header(*k, *v);
        }
        self.send(builder.body(Body::from(body)).unwrap()).await
    }

    /// Polls track_status until every document of the track is processed or failed. A 404 is
    /// polled again until the deadline: a scan's track has no document until its background job
    /// has enqueued one (on a loaded machine the first poll came before that).
    pub async fn wait_track(&self, track: &str, headers: &[(&str, &str)]) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let reply = self.call(Method::GET, &format!("/documents/track_status/{track}"), headers, None).await;
            if reply.status == StatusCode::NOT_FOUND && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
            let v = reply.json();
            let docs = v["documents"].as_array().unwrap();
            let done = !docs.is_empty() && docs.iter().all(|d| d["status"] == "processed" || d["status"] == "failed");
            if done {
                return v;
            }
            assert!(Instant::now() < deadline, "track {track} not finished: {v}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Inserts one text and waits until it is processed; returns the track status.
    pub async fn insert(&self, text: &str, source: &str, headers: &[(&str, &str)]) -> Value {
        let body = serde_json::json!({"text": text, "file_source": source});
        let reply = self.call(Method::POST, "/documents/text", headers, Some(body)).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        let v = reply.json();
        assert_eq!(v["status"], "success");
        let track = v["track_id"].as_str().unwrap().to_string();
        assert!(track.starts_with("insert_"), "{track}");
        let status = self.wait_track(&track, headers).await;
        assert_eq!(status["documents"][0]["status"], "processed", "{status}");
        // the document is processed a moment before the pipeline's run ends; graph edits and
        // deletions refuse a busy pipeline (409)
        self.wait_idle(headers).await;
        status
    }

    /// Waits until the pipeline of the workspace `headers` name is idle.
    pub async fn wait_idle(&self, headers: &[(&str, &str)]) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.call(Method::GET, "/documents/pipeline_status", headers, None).await.json()["busy"] == true {
            assert!(Instant::now() < deadline, "the pipeline stays busy");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Sends `request` to the router `app` (one of [`Harness::sibling`]'s, or the harness's own).
pub async fn send_to(app: &Router, request: Request<Body>) -> Reply {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.into_body().collect().await.unwrap().to_bytes().to_vec();
    Reply { status, headers, body }
}

/// A request with a JSON `body` (or none) to the router `app`.
pub async fn call_to(app: &Router, method: Method, uri: &str, headers: &[(&str, &str)], body: Option<Value>) -> Reply {
    let mut builder = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        builder = builder.header(*k, *v);
    }
    let body = match body {
        Some(v) => {
            builder = builder.header("content-type", "application/json");
            Body::from(v.to_string())
        }
        None => Body::empty(),
    };
    send_to(app, builder.body(body).unwrap()).await
}

/// Settings over the scripted server `llm`, in the folder `dir`, with `extra` on top.
pub fn settings(llm: &ScriptedServer, dir: &Path, extra: Vec<(String, String)>) -> Settings {
    let base = llm.base_url();
    let mut env: Vec<(String, String)> = vec![
        ("LLM_BINDING".into(), "openai".into()),
        ("LLM_BINDING_HOST".into(), base.clone()),
        ("LLM_MODEL".into(), "scripted".into()),
        ("EMBEDDING_BINDING".into(), "openai".into()),
        ("EMBEDDING_BINDING_HOST".into(), base),
        ("EMBEDDING_MODEL".into(), "scripted".into()),
        ("EMBEDDING_DIM".into(), "64".into()),
        ("LLM_RETRY_BASE_MS".into(), "10".into()),
        ("WORKING_DIR".into(), dir.join("rag").to_string_lossy().into_owned()),
        ("INPUT_DIR".into(), dir.join("inputs").to_string_lossy().into_owned()),
    ];
    env.extend(extra);
    let raw = RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap();
    Settings::from_raw(&raw).unwrap()
}

pub const TEXT_A: &str = "Alice Smith works at Acme Corporation in Berlin. Alice Smith met Bob Jones at Acme \
Corporation. Bob Jones founded the Berlin Robotics Institute with Carol White.";
pub const TEXT_B: &str = "Dmitri Volkov leads the Zenith Laboratory in Oslo. Dmitri Volkov and Erin Park \
published the Aurora Report at Zenith Laboratory.";
