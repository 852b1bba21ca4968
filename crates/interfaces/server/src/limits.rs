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
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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
    let response = next.run(request).await;
    // axum's own extractors (the login form, the Ollama routes' JSON) answer a body over the limit
    // with a plain-text 413: give it the same JSON body as every other refusal
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if response.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE && !is_json {
        return check.limit.refusal().into_response();
    }
    response
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
pub const BUSY_RETRY_SECS: u64 = 1;

/// The requests in progress at once (`MAX_CONCURRENT_REQUESTS`).
#[derive(Clone)]
pub struct RequestSlots {
    slots: Arc<Semaphore>,
    max: usize,
    refusals: Arc<RefusalLog>,
}

impl RequestSlots {
    /// `max` requests at once.
    pub fn new(max: usize) -> Self {
        RequestSlots { slots: Arc::new(Semaphore::new(max)), max, refusals: Arc::default() }
    }
}

/// Seconds between two log lines about refused requests.
const REFUSAL_LOG_EVERY_SECS: u64 = 10;

/// Counts the 503s of a full server and logs them at most once per [`REFUSAL_LOG_EVERY_SECS`]:
/// under overload a line per refused request would flood the log.
#[derive(Default)]
struct RefusalLog {
    started: std::sync::OnceLock<std::time::Instant>,
    /// Refusals not yet logged.
    pending: std::sync::atomic::AtomicU64,
    /// Seconds since `started` of the last log line (0: none yet).
    last_logged_s: std::sync::atomic::AtomicU64,
}

impl RefusalLog {
    /// Counts one refusal; returns how many to report when a log line is due now.
    fn count(&self) -> Option<u64> {
        use std::sync::atomic::Ordering::Relaxed;
        let started = self.started.get_or_init(std::time::Instant::now);
        self.pending.fetch_add(1, Relaxed);
        let now_s = started.elapsed().as_secs() + 1;
        let last = self.last_logged_s.load(Relaxed);
        if last != 0 && now_s < last + REFUSAL_LOG_EVERY_SECS {
            return None;
        }
        // one caller wins the slot; the others keep counting
        self.last_logged_s.compare_exchange(last, now_s, Relaxed, Relaxed).ok()?;
        Some(self.pending.swap(0, Relaxed))
    }
}

/// Middleware (`MAX_CONCURRENT_REQUESTS`): takes a slot for the request until its response body
/// has been sent (a streamed answer holds it to its last byte), or answers 503 with
/// `Retry-After` at once when every slot is taken.
pub async fn admit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let slot = match request_slot(&state) {
        Ok(slot) => slot,
        Err(busy) => return busy.into_response(),
    };
    next.run(request).await.map(|body| Guarded::wrap(body, slot))
}

/// Every request slot is taken: answered 503 with `Retry-After`.
#[derive(Debug, Clone, Copy)]
pub struct ServerBusy {
    max: usize,
}

impl IntoResponse for ServerBusy {
    fn into_response(self) -> Response {
        ApiError::Unavailable(
            format!(
                "the server is busy: MAX_CONCURRENT_REQUESTS={} requests are in progress; try again \
                 shortly or raise MAX_CONCURRENT_REQUESTS",
                self.max
            ),
            BUSY_RETRY_SECS,
        )
        .unlogged_response()
    }
}

/// A request slot (`MAX_CONCURRENT_REQUESTS`) to hold until the response body has been sent, or
/// [`ServerBusy`] when every slot is taken (the refusals are logged, summed).
pub fn request_slot(state: &AppState) -> Result<OwnedSemaphorePermit, ServerBusy> {
    let slots = &state.inner.requests;
    let Ok(slot) = slots.slots.clone().try_acquire_owned() else {
        if let Some(refused) = slots.refusals.count() {
            tracing::warn!(
                refused,
                max = slots.max,
                "the server is full: refused {refused} request(s) with 503 since the last report; \
                 raise MAX_CONCURRENT_REQUESTS if the machine has room"
            );
        }
        return Err(ServerBusy { max: slots.max });
    };
    Ok(slot)
}

#[cfg(test)]
mod tests {
    use super::RefusalLog;

    #[test]
    fn refusals_are_logged_once_then_summed_until_the_next_report() {
        let log = RefusalLog::default();
        assert_eq!(log.count(), Some(1), "the first refusal is reported at once");
        for _ in 0..99 {
            assert_eq!(log.count(), None, "a line per refusal would flood the log");
        }
        assert_eq!(log.pending.load(std::sync::atomic::Ordering::Relaxed), 99, "the quiet ones are counted");
    }
}
