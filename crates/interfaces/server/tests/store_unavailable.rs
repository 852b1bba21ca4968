//! A store that is unavailable for now — every connection of the PostgreSQL pool busy beyond
//! `POSTGRES_ACQUIRE_TIMEOUT` — answers 503 with `Retry-After` on the REST, query, streaming and
//! Ollama routes and for a workspace not opened yet (not a 500, not LightRAG's 200 fallback
//! sentence), and the request holding the connection still completes. The server comes from
//! `DATABASE_URL`, or else
//! `scripts/ensure-postgres.sh` starts one (never skipped); the test runs in a database of its
//! own, dropped at the end, so that its table lock stops nobody else.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::pg::{database_url, unique};
use common::{Harness, Reply};
use serde_json::json;
use sqlx::{Connection, PgConnection};

/// `url` with its database replaced by `database` (query parameters kept).
pub(crate) fn with_database(url: &str, database: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let (server, _) = base.rsplit_once('/').expect("a URL with a database path");
    match query {
        Some(q) => format!("{server}/{database}?{q}"),
        None => format!("{server}/{database}"),
    }
}

/// Waits until a statement on `database` waits for a lock (the request holding the pool's only
/// connection is blocked behind the test's table lock).
async fn until_a_statement_waits_for_a_lock(admin: &mut PgConnection, database: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let waiting: i64 =
            sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'")
                .bind(database)
                .fetch_one(&mut *admin)
                .await
                .unwrap();
        if waiting > 0 {
            return;
        }
        assert!(Instant::now() < deadline, "the first request never reached the locked table");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A database of the test's own, dropped when the test ends (also when it fails).
pub(crate) struct OwnDatabase {
    admin_url: String,
    pub(crate) name: String,
}

impl OwnDatabase {
    pub(crate) async fn create(admin: &mut PgConnection, admin_url: &str) -> OwnDatabase {
        let name = unique("lightrag_errors");
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\""))).execute(admin).await.unwrap();
        OwnDatabase { admin_url: admin_url.to_string(), name }
    }
}

impl Drop for OwnDatabase {
    fn drop(&mut self) {
        let (url, name) = (self.admin_url.clone(), self.name.clone());
        // its own runtime on its own thread: a test's runtime cannot block inside itself
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            runtime.block_on(async {
                let mut admin = PgConnection::connect(&url).await?;
                let sql = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
                sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&mut admin).await?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
            })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("could not drop the test database {}: {dropped:?}", self.name);
        }
    }
}

fn assert_try_again(reply: &Reply, route: &str) {
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE, "{route}: {}", reply.text());
    let retry_after = reply.headers.get("retry-after").map(|v| v.to_str().unwrap().to_string());
    assert_eq!(retry_after.as_deref(), Some("5"), "{route}: Retry-After");
    let detail = reply.json()["detail"].as_str().unwrap_or_default().to_string();
    assert!(detail.contains("try again in 5 s"), "{route}: says when to try again: {detail}");
    assert!(detail.contains("POSTGRES_MAX_CONNECTIONS"), "{route}: says what to change when it lasts: {detail}");
    // the driver's error is kept as the cause, and printed
    assert!(detail.contains("pool timed out"), "{route}: the driver's error: {detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgresql_pool_timeout_answers_503_with_retry_after() {
    let url = database_url();
    let mut admin = PgConnection::connect(&url).await.unwrap();
    let own = OwnDatabase::create(&mut admin, &url).await;
    let database = own.name.clone();
    let db_url = with_database(&url, &database);

    let h = Harness::new(&[
        ("DATABASE_URL", db_url.as_str()),
        ("POSTGRES_WORKSPACE", "errors"),
        ("POSTGRES_MAX_CONNECTIONS", "1"),
        ("POSTGRES_ACQUIRE_TIMEOUT", "0.3"),
    ])
    .await;
    // opens the workspace (and creates the schema) while the pool is free
    let reply = h.get("/documents/status_counts").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    // the indexing run that opening the workspace starts ends (it would take the connection)
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.get("/documents/pipeline_status").await.json()["busy"] != false {
        assert!(Instant::now() < deadline, "the first indexing run never ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let health = h.get("/health").await.json();
    assert_eq!(health["configuration"]["kv_storage"], "PGKVStorage", "/health names the real backend: {health}");
    assert_eq!(health["configuration"]["vector_storage"], "PGVectorStorage", "{health}");
    assert_eq!(health["configuration"]["storage_workspaces"]["graph_storage"], "errors", "{health}");

    // The pool's only connection is held by a request blocked behind the test's table lock.
    let mut locker = PgConnection::connect(&db_url).await.unwrap();
    sqlx::query("BEGIN").execute(&mut locker).await.unwrap();
    sqlx::query("LOCK TABLE lrs_doc_status IN ACCESS EXCLUSIVE MODE").execute(&mut locker).await.unwrap();
    let app = h.app.clone();
    let holder = tokio::spawn(async move {
        common::call_to(&app, axum::http::Method::GET, "/documents/status_counts", &[], None).await
    });
    until_a_statement_waits_for_a_lock(&mut admin, &database).await;

    assert_try_again(&h.get("/documents/status_counts").await, "/documents/status_counts");
    let question = json!({"query": "Who works at Acme Corporation?", "mode": "local"});
    assert_try_again(&h.post("/query", question.clone()).await, "/query");
    assert_try_again(&h.post("/query/stream", question).await, "/query/stream");
    let chat = json!({"model": "lightrag:latest", "stream": false,
                      "messages": [{"role": "user", "content": "Who works at Acme Corporation?"}]});
    assert_try_again(&h.post("/api/chat", chat).await, "/api/chat");
    // a workspace this server has not opened: finding whether it has rows needs the pool too
    // (regression: the workspace listing's pool timeout was a 500)
    let absent = common::call_to(
        &h.app,
        axum::http::Method::GET,
        "/documents/status_counts",
        &[("LIGHTRAG-WORKSPACE", "not_opened_yet")],
        None,
    )
    .await;
    assert_try_again(&absent, "/documents/status_counts of a workspace not opened yet");

    // once the lock goes, the request that held the connection completes
    sqlx::query("ROLLBACK").execute(&mut locker).await.unwrap();
    let held = holder.await.unwrap();
    assert_eq!(held.status, StatusCode::OK, "{}", held.text());
    assert_eq!(h.get("/documents/status_counts").await.status, StatusCode::OK, "served again");
    drop(h);
    locker.close().await.ok();
    drop(own);
}
