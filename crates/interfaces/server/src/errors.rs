//! Error responses ([`ApiError`]) shaped like LightRAG's FastAPI server, the JSON body extractor
//! that reports validation errors as 422 `{"detail": [...]}`, and [`ServerError`] for start-up.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lightrag_engine::EngineError;
use lightrag_ports::{ErrorChain, QuotaKind, StoreError};
use serde_json::{Value, json};

/// Errors that stop [`crate::serve`] from starting or running.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The configuration or an adapter could not be set up.
    #[error(transparent)]
    App(#[from] lightrag_config::AppError),
    /// The listening socket could not be opened.
    #[error("cannot listen on {addr}: {source}; pick another HOST/PORT (or --host/--port)")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The TLS certificate or key could not be loaded.
    #[error(
        "cannot serve HTTPS with SSL_CERTFILE={cert} and SSL_KEYFILE={key}: {reason}; \
         give a PEM certificate chain and its PEM private key (PKCS#8, PKCS#1 or SEC1)"
    )]
    Tls {
        /// The certificate file.
        cert: String,
        /// The key file.
        key: String,
        /// What went wrong.
        reason: String,
    },
    /// The HTTP server failed while running.
    #[error("the HTTP server stopped with an error: {0}")]
    Serve(std::io::Error),
}

/// One FastAPI-style validation error item.
pub fn detail_item(loc: &[&str], msg: impl Into<String>) -> Value {
    let mut full = vec!["body"];
    full.extend_from_slice(loc);
    json!({"type": "value_error", "loc": full, "msg": msg.into(), "input": Value::Null})
}

/// An error answered to the client.
#[derive(Debug)]
pub enum ApiError {
    /// 400 `{"detail": msg}`.
    BadRequest(String),
    /// 401 `{"detail": msg}` with `WWW-Authenticate: Bearer`.
    Unauthorized(String),
    /// 403 `{"detail": msg}`.
    Forbidden(String),
    /// 404 `{"detail": msg}`.
    NotFound(String),
    /// 408 `{"detail": msg}`: the client stopped sending its request.
    Timeout(String),
    /// 409 `{"detail": msg}`.
    Conflict(String),
    /// 413 `{"detail": msg}`.
    TooLarge(String),
    /// 422 `{"detail": [items]}` (see [`detail_item`]).
    Validation(Vec<Value>),
    /// 429 `{"detail": msg}` with `Retry-After: secs`.
    TooManyRequests(String, u64),
    /// 503 `{"detail": msg}` with `Retry-After: secs`: busy (or a provider or the store is), try
    /// again.
    Unavailable(String, u64),
    /// 502 `{"detail": msg}`: a provider (LLM, embedding) refused or answered nonsense.
    BadGateway(String),
    /// 504 `{"detail": msg}`: a provider did not answer in time, after retries.
    GatewayTimeout(String),
    /// 507 `{"detail": msg}`: the disk or database holding the store is full; nothing of the
    /// request was kept, and the same request succeeds once space is freed.
    InsufficientStorage(String),
    /// 500 `{"detail": msg}`.
    Internal(String),
}

impl ApiError {
    /// A 422 with one item.
    pub fn invalid(loc: &[&str], msg: impl Into<String>) -> Self {
        ApiError::Validation(vec![detail_item(loc, msg)])
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooManyRequests(..) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable(..) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::BadGateway(_) => StatusCode::BAD_GATEWAY,
            ApiError::GatewayTimeout(_) => StatusCode::GATEWAY_TIMEOUT,
            ApiError::InsufficientStorage(_) => StatusCode::INSUFFICIENT_STORAGE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// `"loc: msg; loc: msg"` — the flat text of a validation error (used by `/query/data`).
    pub fn flat_message(&self) -> String {
        match self {
            ApiError::Validation(items) => items
                .iter()
                .map(|i| {
                    let loc = i["loc"]
                        .as_array()
                        .map(|l| l.iter().map(|p| p.as_str().unwrap_or_default()).collect::<Vec<_>>().join("."))
                        .unwrap_or_default();
                    format!("{loc}: {}", i["msg"].as_str().unwrap_or_default())
                })
                .collect::<Vec<_>>()
                .join("; "),
            ApiError::BadRequest(m)
            | ApiError::Unauthorized(m)
            | ApiError::Forbidden(m)
            | ApiError::NotFound(m)
            | ApiError::Timeout(m)
            | ApiError::Conflict(m)
            | ApiError::TooLarge(m)
            | ApiError::TooManyRequests(m, _)
            | ApiError::Unavailable(m, _)
            | ApiError::BadGateway(m)
            | ApiError::GatewayTimeout(m)
            | ApiError::InsufficientStorage(m)
            | ApiError::Internal(m) => m.clone(),
        }
    }
}

impl IntoResponse for ApiError {
    /// The response; a 5xx is also logged as an error with its whole message.
    fn into_response(self) -> Response {
        if self.status().is_server_error() {
            tracing::error!(error = %self.flat_message(), "request failed");
        }
        self.unlogged_response()
    }
}

impl ApiError {
    /// The response, without the error log line of [`IntoResponse::into_response`] (for refusals
    /// that the caller logs in its own, rate-limited way).
    pub fn unlogged_response(self) -> Response {
        let status = self.status();
        let retry_after = match &self {
            ApiError::TooManyRequests(_, secs) | ApiError::Unavailable(_, secs) => Some(*secs),
            _ => None,
        };
        let body = match self {
            ApiError::Validation(items) => json!({ "detail": items }),
            // the log has the whole message; a client is not told where the server keeps its files
            other if status.is_server_error() => json!({ "detail": redact_paths(&other.flat_message()) }),
            other => json!({ "detail": other.flat_message() }),
        };
        let mut response = (status, Json(body)).into_response();
        if let Some(secs) = retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// `message` with every absolute file path (a word starting with `/` that holds another `/`)
/// replaced by `<path>`; URLs (`http://…`) are kept.
pub fn redact_paths(message: &str) -> String {
    let starts_word = |prev: Option<char>| prev.is_none_or(|c| c.is_whitespace() || "'\"`([{=,:".contains(c));
    let mut out = String::with_capacity(message.len());
    let mut prev: Option<char> = None;
    let mut rest = message;
    while let Some(c) = rest.chars().next() {
        let after_scheme = out.ends_with(':') && rest.starts_with("//");
        if c == '/' && starts_word(prev) && !after_scheme {
            let end = rest.find(|c: char| c.is_whitespace() || "'\"`)]},;".contains(c)).unwrap_or(rest.len());
            let word = &rest[..end];
            let word = word.strip_suffix(':').unwrap_or(word);
            if word.len() > 1 && word[1..].contains('/') {
                out.push_str("<path>");
                rest = &rest[word.len()..];
                prev = Some('>');
                continue;
            }
        }
        out.push(c);
        prev = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Seconds a client should wait before retrying a provider that asked for `asked` (at least 1;
/// 5 when it did not say).
fn retry_secs(asked: Option<f64>) -> u64 {
    asked.filter(|s| s.is_finite() && *s > 0.0).map_or(5, |s| s.ceil().min(3600.0) as u64).max(1)
}

/// `Retry-After` seconds for a store that asked to wait `wait`.
fn store_retry_secs(wait: Duration) -> u64 {
    retry_secs(Some(wait.as_secs_f64()))
}

impl ApiError {
    /// A workspace whose engine could not be opened (`context` names it and where): 503 with
    /// `Retry-After` when its store is only unavailable for now (a PostgreSQL server restarting,
    /// a full pool, a database locked by another process), else 500; the message holds every
    /// cause.
    pub fn workspace_not_opened(context: &str, e: &lightrag_config::AppError) -> ApiError {
        let message = format!("{context}: {}", ErrorChain(e));
        match e.retry_after() {
            Some(wait) => ApiError::Unavailable(message, store_retry_secs(wait)),
            None => ApiError::Internal(message),
        }
    }
}

/// The one table from engine errors to HTTP answers. Client mistakes are 4xx naming the
/// problem; a provider that stays down, rate-limited or slow after the retries is 503 (with
/// `Retry-After`) or 504, one that refuses our request or answers nonsense 502 — never a bare
/// 500 — each with the provider's reason; a concurrent update that could not be merged is 409;
/// a store that is unavailable for now (no free connection, a lost connection, a database
/// locked by another process) is 503 with the store's `Retry-After`. Messages carry the
/// error's causes ([`ErrorChain`]), so the log line of a 5xx names them.
impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        use lightrag_ports::{EmbedError, LlmError};
        let message = ErrorChain(&e).to_string();
        match e {
            EngineError::Invalid(m) => ApiError::BadRequest(m),
            EngineError::ChunkTooLarge { .. } => ApiError::BadRequest(message),
            EngineError::NotFound(m) => ApiError::NotFound(m),
            EngineError::Cancelled => ApiError::Conflict(message),
            EngineError::Store(e) => e.into(),
            EngineError::Llm(LlmError::RateLimited { retry_after_secs }) => {
                ApiError::Unavailable(message, retry_secs(retry_after_secs))
            }
            EngineError::Embed(EmbedError::RateLimited { retry_after_secs }) => {
                ApiError::Unavailable(message, retry_secs(retry_after_secs))
            }
            EngineError::Llm(LlmError::Server { .. } | LlmError::Connection(_))
            | EngineError::Embed(EmbedError::Server { .. } | EmbedError::Connection(_)) => {
                ApiError::Unavailable(message, retry_secs(None))
            }
            EngineError::Llm(LlmError::Timeout(_)) | EngineError::Embed(EmbedError::Timeout(_)) => {
                ApiError::GatewayTimeout(message)
            }
            EngineError::Llm(LlmError::Client { .. } | LlmError::InvalidResponse(_))
            | EngineError::Embed(EmbedError::Client { .. } | EmbedError::InvalidResponse(_)) => {
                ApiError::BadGateway(message)
            }
            EngineError::Llm(LlmError::NotConfigured) => ApiError::BadRequest(message),
            EngineError::Llm(LlmError::Cancelled) => ApiError::Conflict(message),
            EngineError::Embed(EmbedError::Model(_)) => ApiError::Internal(message),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        let message = ErrorChain(&e).to_string();
        match e {
            StoreError::Conflict(_) => {
                ApiError::Conflict(format!("{message}; someone else changed the same records, send the request again"))
            }
            StoreError::Full(_) => ApiError::InsufficientStorage(message),
            // the daily token budget comes back at midnight UTC; documents and bytes only when some go
            StoreError::OverQuota(q) if q.kind == QuotaKind::LlmTokensPerDay => {
                ApiError::TooManyRequests(message, secs_to_utc_midnight())
            }
            StoreError::OverQuota(_) => ApiError::InsufficientStorage(message),
            StoreError::Unavailable { retry_after, .. } => {
                ApiError::Unavailable(message, store_retry_secs(retry_after))
            }
            _ => ApiError::Internal(message),
        }
    }
}

/// Seconds until the next midnight UTC (when the daily token quota starts again), at least 1.
fn secs_to_utc_midnight() -> u64 {
    (86_400 - crate::auth::unix_now() % 86_400).max(1)
}

impl From<std::io::Error> for ApiError {
    fn from(e: std::io::Error) -> Self {
        ApiError::Internal(format!("file system error: {e}"))
    }
}

pub use crate::json_body::ApiJson;

#[cfg(test)]
mod tests {

    #[test]
    fn server_paths_are_redacted_but_urls_and_names_kept() {
        assert_eq!(
            redact_paths("cannot open workspace 'x' in /tmp/abc/rag/x: Not a directory (os error 20)"),
            "cannot open workspace 'x' in <path>: Not a directory (os error 20)"
        );
        assert_eq!(redact_paths("store '/srv/kb/lightrag.db' is locked"), "store '<path>' is locked");
        assert_eq!(
            redact_paths("the LLM at http://127.0.0.1:9/v1/chat failed: 502"),
            "the LLM at http://127.0.0.1:9/v1/chat failed: 502"
        );
        assert_eq!(redact_paths("a/b and / alone and /root"), "a/b and / alone and /root");
    }

    use lightrag_ports::{EmbedError, LlmError};

    use super::*;

    fn answer(e: EngineError) -> (StatusCode, Option<String>, String) {
        let response = ApiError::from(e).into_response();
        let retry = response.headers().get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_string);
        let status = response.status();
        (status, retry, format!("{status}"))
    }

    /// The mapping table, row by row: no provider or conflict failure is a bare 500.
    #[test]
    fn engine_errors_map_to_honest_statuses() {
        let rows: Vec<(EngineError, StatusCode, Option<&str>)> = vec![
            (EngineError::Invalid("bad".into()), StatusCode::BAD_REQUEST, None),
            (EngineError::NotFound("x".into()), StatusCode::NOT_FOUND, None),
            (EngineError::Cancelled, StatusCode::CONFLICT, None),
            (StoreError::Conflict("Alice".into()).into(), StatusCode::CONFLICT, None),
            (StoreError::Corrupt("bad page".into()).into(), StatusCode::INTERNAL_SERVER_ERROR, None),
            (StoreError::Full("database or disk is full".into()).into(), StatusCode::INSUFFICIENT_STORAGE, None),
            (
                StoreError::unavailable("no pooled connection became free", Duration::from_millis(4200), None).into(),
                StatusCode::SERVICE_UNAVAILABLE,
                Some("5"),
            ),
            (StoreError::backend("I/O error").into(), StatusCode::INTERNAL_SERVER_ERROR, None),
            (
                StoreError::OverQuota(lightrag_ports::QuotaExceeded {
                    kind: QuotaKind::Documents,
                    limit: 2,
                    current: 2,
                    requested: 3,
                })
                .into(),
                StatusCode::INSUFFICIENT_STORAGE,
                None,
            ),
            (LlmError::RateLimited { retry_after_secs: Some(7.2) }.into(), StatusCode::SERVICE_UNAVAILABLE, Some("8")),
            (LlmError::RateLimited { retry_after_secs: None }.into(), StatusCode::SERVICE_UNAVAILABLE, Some("5")),
            (
                LlmError::Server { status: 502, body: "upstream".into() }.into(),
                StatusCode::SERVICE_UNAVAILABLE,
                Some("5"),
            ),
            (LlmError::Connection("refused".into()).into(), StatusCode::SERVICE_UNAVAILABLE, Some("5")),
            (LlmError::Timeout(30).into(), StatusCode::GATEWAY_TIMEOUT, None),
            (LlmError::Client { status: 401, body: "bad key".into() }.into(), StatusCode::BAD_GATEWAY, None),
            (LlmError::InvalidResponse("no json".into()).into(), StatusCode::BAD_GATEWAY, None),
            (LlmError::NotConfigured.into(), StatusCode::BAD_REQUEST, None),
            (
                EmbedError::RateLimited { retry_after_secs: Some(1.0) }.into(),
                StatusCode::SERVICE_UNAVAILABLE,
                Some("1"),
            ),
            (EmbedError::Timeout(10).into(), StatusCode::GATEWAY_TIMEOUT, None),
            (EmbedError::Client { status: 400, body: "too long".into() }.into(), StatusCode::BAD_GATEWAY, None),
            (EmbedError::Model("missing".into()).into(), StatusCode::INTERNAL_SERVER_ERROR, None),
        ];
        // the daily token quota: 429 with the seconds left until midnight UTC
        let tokens =
            lightrag_ports::QuotaExceeded { kind: QuotaKind::LlmTokensPerDay, limit: 5, current: 9, requested: 9 };
        let (status, retry, _) = answer(StoreError::OverQuota(tokens).into());
        let secs: u64 = retry.as_deref().and_then(|r| r.parse().ok()).unwrap_or(0);
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert!((1..=86_400).contains(&secs), "Retry-After {retry:?}");
        for (error, status, retry) in rows {
            let shown = error.to_string();
            let (got, got_retry, _) = answer(error);
            assert_eq!((got, got_retry.as_deref()), (status, retry), "{shown}");
        }
    }

    /// The driver's error under a store error reaches the message (and so the log line of the
    /// 5xx), once.
    #[test]
    fn a_store_errors_cause_is_in_the_message() {
        let cause = std::io::Error::other("connection reset by peer");
        let e: EngineError = StoreError::unavailable(
            "the connection to PostgreSQL was lost",
            Duration::from_secs(5),
            Some(cause.into()),
        )
        .into();
        let message = ApiError::from(e).flat_message();
        assert!(message.ends_with("try again in 5 s: connection reset by peer"), "{message}");
        let quoted = std::io::Error::other("disk I/O error");
        let e: EngineError = StoreError::backend_caused(format!("write failed: {quoted}"), quoted).into();
        assert_eq!(ApiError::from(e).flat_message(), "storage backend error: write failed: disk I/O error");
    }

    #[test]
    fn the_providers_reason_is_in_the_body() {
        let e: EngineError = LlmError::Client { status: 401, body: "invalid api key".into() }.into();
        assert!(ApiError::from(e).flat_message().contains("invalid api key"));
    }
}
