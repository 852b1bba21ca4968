//! The database the tests use: `DATABASE_URL` when set, else the server that
//! `scripts/ensure-postgres.sh` installs and starts (its last line is the URL). Never skipped.

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use lightrag_store_postgres::{PostgresOptions, PostgresStore};

/// The URL of the test server.
pub fn database_url() -> String {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        if let Ok(url) = std::env::var("DATABASE_URL")
            && !url.trim().is_empty()
        {
            return url;
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../scripts/ensure-postgres.sh");
        let out = Command::new("bash").arg(&script).output().expect("run scripts/ensure-postgres.sh");
        assert!(
            out.status.success(),
            "scripts/ensure-postgres.sh failed (set DATABASE_URL to use another server): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let url = stdout.lines().last().expect("ensure-postgres.sh prints the URL on its last line").trim();
        assert!(url.starts_with("postgres"), "unexpected URL from ensure-postgres.sh: {url}");
        url.to_string()
    })
    .clone()
}

/// A workspace name no other test run uses: `<prefix>-<pid>-<time>-<n>`.
pub fn unique_workspace(prefix: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("{prefix}-{}-{nanos}-{n}", std::process::id())
}

/// Options for the test server with a small pool.
pub fn options() -> PostgresOptions {
    let mut o = PostgresOptions::from_url(&database_url()).expect("DATABASE_URL");
    o.max_connections = 8;
    o
}

/// A store on a fresh workspace of the test database.
pub async fn fresh_store(prefix: &str) -> PostgresStore {
    PostgresStore::connect(options(), &unique_workspace(prefix)).await.expect("connect to the test database")
}
