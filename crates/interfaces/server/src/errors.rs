//! Error responses ([`ApiError`]) shaped like LightRAG's FastAPI server, the JSON body extractor
//! that reports validation errors as 422 `{"detail": [...]}`, and [`ServerError`] for start-up.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lightrag_engine::EngineError;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Errors that stop [`crate::serve`] from starting or running.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The configuration or an adapter could not be set up.
    #[error(transparent)]
    App(#[from] lightrag_app::AppError),
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
    /// 503 `{"detail": msg}` with `Retry-After: secs`: busy, try again.
    Unavailable(String, u64),
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
            | ApiError::Internal(m) => m.clone(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!(error = %self.flat_message(), "request failed");
        }
        let retry_after = match &self {
            ApiError::TooManyRequests(_, secs) | ApiError::Unavailable(_, secs) => Some(*secs),
            _ => None,
        };
        let body = match self {
            ApiError::Validation(items) => json!({ "detail": items }),
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

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::Invalid(m) => ApiError::BadRequest(m),
            EngineError::NotFound(m) => ApiError::NotFound(m),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<lightrag_ports::StoreError> for ApiError {
    fn from(e: lightrag_ports::StoreError) -> Self {
        ApiError::Internal(e.to_string())
    }
}

impl From<std::io::Error> for ApiError {
    fn from(e: std::io::Error) -> Self {
        ApiError::Internal(format!("file system error: {e}"))
    }
}

/// A JSON body whose parse errors become 422 `{"detail": [...]}` like FastAPI's.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(v)) => Ok(ApiJson(v)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

fn json_rejection(rejection: JsonRejection) -> ApiError {
    match rejection {
        JsonRejection::BytesRejection(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::TooLarge("request body too large; raise MAX_UPLOAD_SIZE".into())
        }
        other => ApiError::invalid(&[], other.body_text()),
    }
}
