//! Clock helpers (Unix milliseconds, ISO-8601 formatting).

/// Now, in Unix milliseconds.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Formats Unix milliseconds as ISO-8601 with offset (`2026-01-02T03:04:05.678+00:00`).
pub fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, false))
        .unwrap_or_default()
}

/// A track id like LightRAG's: `{prefix}_{YYYYmmdd_HHMMSS}_{8 hex}`.
pub fn track_id(prefix: &str) -> String {
    let now = chrono::Utc::now();
    format!("{prefix}_{}_{:08x}", now.format("%Y%m%d_%H%M%S"), rand::random::<u32>())
}
