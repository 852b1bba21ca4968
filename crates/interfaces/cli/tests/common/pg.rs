//! The PostgreSQL server of the tests: `DATABASE_URL`, or the one `scripts/ensure-postgres.sh`
//! installs and starts (never skipped), and names no other run uses.

use std::path::Path;
use std::process::Command;

/// `DATABASE_URL`, or the project's server.
pub fn database_url() -> String {
    if let Ok(url) = std::env::var("DATABASE_URL")
        && !url.trim().is_empty()
    {
        return url;
    }
    project_server_url()
}

/// The server `scripts/ensure-postgres.sh` runs (started when it is not running).
pub fn project_server_url() -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../scripts/ensure-postgres.sh");
    let out = Command::new("bash").arg(&script).output().expect("run scripts/ensure-postgres.sh");
    assert!(out.status.success(), "ensure-postgres.sh failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().last().expect("the URL").trim().to_string()
}

/// A name no other test run uses.
pub fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{prefix}_{}_{nanos}", std::process::id())
}
