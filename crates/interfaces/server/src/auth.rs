//! Authentication, phase 1: the `X-API-Key` header when `LIGHTRAG_API_KEY` is set, and
//! `WHITELIST_PATHS` (a trailing `/*` matches a prefix). JWT login is not implemented yet.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::errors::ApiError;
use crate::state::AppState;

/// The API key header.
pub const API_KEY_HEADER: &str = "X-API-Key";

/// Routes that are never protected (LightRAG's login flow).
const OPEN_PATHS: [&str; 2] = ["/auth-status", "/login"];

/// Whether `path` matches one of the whitelist patterns.
pub fn is_whitelisted(path: &str, patterns: &[String]) -> bool {
    patterns.iter().any(|p| match p.strip_suffix("/*") {
        Some(prefix) => path == prefix || path.starts_with(&format!("{prefix}/")),
        None => path == p,
    })
}

/// Byte comparison that does not stop at the first difference.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Middleware: rejects requests without the right API key (403) unless whitelisted.
pub async fn require_api_key(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let server = &state.settings().server;
    let Some(key) = server.api_key.as_ref() else {
        return next.run(request).await;
    };
    let path = request.uri().path();
    if OPEN_PATHS.contains(&path) || is_whitelisted(path, &server.whitelist_paths) {
        return next.run(request).await;
    }
    match request.headers().get(API_KEY_HEADER).map(|v| v.as_bytes()) {
        None => ApiError::Forbidden("API Key required".into()).into_response(),
        Some(given) if same_secret(given, key.expose().as_bytes()) => next.run(request).await,
        Some(_) => ApiError::Forbidden("Invalid API Key".into()).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitelist_matches_exact_paths_and_prefixes() {
        let patterns = vec!["/health".to_string(), "/api/*".to_string()];
        assert!(is_whitelisted("/health", &patterns));
        assert!(is_whitelisted("/api/tags", &patterns));
        assert!(is_whitelisted("/api", &patterns));
        assert!(!is_whitelisted("/apix", &patterns));
        assert!(!is_whitelisted("/health/x", &patterns));
        assert!(!is_whitelisted("/query", &patterns));
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
    }
}
