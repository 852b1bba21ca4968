//! Bounded work per request (issue #13): the body limit of each route group
//! (`MAX_JSON_BODY_SIZE` or `MAX_UPLOAD_SIZE`), the time a request may take to answer
//! (`TIMEOUT` → 504) and the number of requests in progress (`MAX_CONCURRENT_REQUESTS` → 503 at
//! once, never a queue). Each is a middleware layered on the routes it bounds by [`crate::app`].

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use crate::errors::ApiError;
use crate::guarded_body::Guarded;
use crate::state::AppState;

/// The body limit a route has and the setting that raises it; also a request extension, so an
/// extractor that hits the limit can name it ([`crate::errors::ApiJson`]).
#[derive(Debug, Clone, Copy)]
pub struct BodyLimit {
    /// Bytes; `None` = no limit.
    pub bytes: Option<u64>,
    /// `MAX_JSON_BODY_SIZE` or `MAX_UPLOAD_SIZE`.
    pub setting: &'static str,
}

impl BodyLimit {
    /// The limit of the routes that do not carry documents.
    pub fn json(bytes: u64) -> Self {
        BodyLimit { bytes: Some(bytes), setting: "MAX_JSON_BODY_SIZE" }
    }

    /// The limit of the routes that carry documents (`None` = no limit).
    pub fn documents(bytes: Option<u64>) -> Self {
        BodyLimit { bytes, setting: "MAX_UPLOAD_SIZE" }
    }

    /// The 413 answered for a body over the limit.
    pub fn refusal(&self) -> ApiError {
        let limit = self.bytes.map_or_else(|| "no limit".to_string(), |b| format!("{b} bytes"));
        ApiError::TooLarge(format!(
            "request body too large: this route accepts at most {limit} ({}); send less or raise {}",
            self.setting, self.setting
        ))
    }
}

/// A route group's limit and the declared length it refuses (the limit plus the slack).
#[derive(Debug, Clone, Copy)]
struct LengthCheck {
    limit: BodyLimit,
    refused_above: Option<u64>,
}

/// `router` with `limit` on its bodies: a declared `Content-Length` over it is answered 413 before
/// anything is read, and the extractors stop reading a body without one at the limit (plus
/// `slack`, the multipart framing of an upload, whose route answers its own 413).
pub fn with_body_limit(router: Router<AppState>, limit: BodyLimit, slack: usize) -> Router<AppState> {
    let extractors = match limit.bytes {
        None => DefaultBodyLimit::disable(),
        Some(max) => DefaultBodyLimit::max(usize::try_from(max).unwrap_or(usize::MAX).saturating_add(slack)),
    };
    let refused_above = limit.bytes.map(|max| max.saturating_add(slack as u64));
    let check = LengthCheck { limit, refused_above };
    router.layer(extractors).layer(axum::middleware::from_fn_with_state(check, refuse_declared_length))
}

/// Middleware: 413 for a declared length over the limit; notes the limit for the extractors.
async fn refuse_declared_length(State(check): State<LengthCheck>, mut request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if let (Some(length), Some(max)) = (declared, check.refused_above)
        && length > max
    {
        return check.limit.refusal().into_response();
    }
    request.extensions_mut().insert(check.limit);
    next.run(request).await
}

/// Middleware (`TIMEOUT`): a request whose response head is not ready in time is answered 504
/// and its handler is dropped (which cancels its model calls). A streamed body that has begun is
/// bounded by the model timeouts, not by this.
pub async fn deadline(State(timeout): State<Duration>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::GatewayTimeout(format!(
            "the request took longer than TIMEOUT={} seconds to answer; ask for less (a smaller \
             top_k, another mode) or raise TIMEOUT",
            timeout.as_secs()
        ))
        .into_response(),
    }
}

/// Seconds a client should wait after a 503 for a full server.
const BUSY_RETRY_SECS: u64 = 1;

/// The requests in progress at once (`MAX_CONCURRENT_REQUESTS`).
#[derive(Clone)]
pub struct RequestSlots {
    slots: Arc<Semaphore>,
    max: usize,
}

impl RequestSlots {
    /// `max` requests at once.
    pub fn new(max: usize) -> Self {
        RequestSlots { slots: Arc::new(Semaphore::new(max)), max }
    }
}

/// Middleware (`MAX_CONCURRENT_REQUESTS`): takes a slot for the request until its response body
/// has been sent (a streamed answer holds it to its last byte), or answers 503 with
/// `Retry-After` at once when every slot is taken.
pub async fn admit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let slots = &state.inner.requests;
    let Ok(slot) = slots.slots.clone().try_acquire_owned() else {
        return ApiError::Unavailable(
            format!(
                "the server is busy: MAX_CONCURRENT_REQUESTS={} requests are in progress; try again \
                 shortly or raise MAX_CONCURRENT_REQUESTS",
                slots.max
            ),
            BUSY_RETRY_SECS,
        )
        .into_response();
    };
    next.run(request).await.map(|body| Guarded::wrap(body, slot))
}
