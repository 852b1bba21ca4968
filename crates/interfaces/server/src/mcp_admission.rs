//! Admission to `/mcp` (issue 26): what a request to the MCP endpoint may hold, and for how long.
//!
//! * `GET /mcp` opens an event stream that lives until the client leaves, the session ends or it
//!   has carried no message for `MCP_STREAM_IDLE_TIMEOUT`. It does **not** take a request slot
//!   (`MAX_CONCURRENT_REQUESTS`), which idle streams would otherwise fill until every route
//!   answered 503; it takes an event-stream place instead, `MCP_MAX_STREAMS_PER_CLIENT` per
//!   client (429 beyond) and `MCP_MAX_STREAMS` in all (503 beyond).
//! * `POST` and `DELETE` are ordinary requests and take a request slot. A `POST` of `initialize`
//!   (no `Mcp-Session-Id`) opens a session: at `MCP_MAX_SESSIONS_PER_CLIENT` the client's own
//!   session idle the longest is evicted, at `MCP_MAX_SESSIONS` the one idle the longest of any
//!   client; when none is idle the new session is refused (429, 503).
//!
//! A client is the `AUTH_ACCOUNTS` login of a request's bearer token, else its address (behind a
//! reverse proxy every client has the proxy's address).

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lightrag_config::McpSettings;
use lightrag_mcp::{ClientKey, Refusal, SessionLimits, Sessions};

use crate::auth::Account;
use crate::errors::ApiError;
use crate::guarded_body::Guarded;
use crate::limits::{BUSY_RETRY_SECS, BodyLimit, request_slot};
use crate::state::AppState;

/// The MCP session header: a `POST` without it starts a session.
const SESSION_HEADER: &str = "mcp-session-id";

/// Seconds a client should wait after a refusal at its own cap (its sessions or streams free up
/// only when it ends one).
const CLIENT_RETRY_SECS: u64 = 5;

/// The bounded MCP sessions of `settings`.
pub fn sessions(settings: &McpSettings) -> Sessions {
    Sessions::new(SessionLimits {
        max_sessions: settings.max_sessions,
        max_sessions_per_client: settings.max_sessions_per_client,
        max_streams: settings.max_streams,
        max_streams_per_client: settings.max_streams_per_client,
        stream_idle_timeout: Duration::from_secs(settings.stream_idle_timeout_secs),
    })
}

/// The client `request` counts under: its login, else its address.
pub fn client_key(request: &Request) -> ClientKey {
    if let Some(Account(name)) = request.extensions().get::<Account>() {
        return ClientKey::new(format!("account:{name}"));
    }
    match request.extensions().get::<ConnectInfo<SocketAddr>>() {
        Some(ConnectInfo(address)) => ClientKey::new(format!("address:{}", address.ip())),
        None => ClientKey::new("address:unknown"),
    }
}

/// The answer to a refused session or stream: 429 at the client's cap, 503 at the server's.
fn refused(refusal: Refusal) -> Response {
    tracing::debug!("MCP refusal: {refusal}");
    match refusal {
        Refusal::Client { .. } => ApiError::TooManyRequests(refusal.to_string(), CLIENT_RETRY_SECS),
        Refusal::Server { .. } => ApiError::Unavailable(refusal.to_string(), BUSY_RETRY_SECS),
    }
    .unlogged_response()
}

/// Middleware of `/mcp` (see the module).
pub async fn admit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let sessions = &state.inner.mcp;
    let client = client_key(&request);
    if request.method() == Method::GET {
        let permit = match sessions.open_stream(&client) {
            Ok(permit) => permit,
            Err(refusal) => return refused(refusal),
        };
        return next.run(request).await.map(|body| Guarded::wrap(body, permit));
    }
    let slot = match request_slot(&state) {
        Ok(slot) => slot,
        Err(busy) => return busy.into_response(),
    };
    let request = if request.method() == Method::POST && !request.headers().contains_key(SESSION_HEADER) {
        match with_session_ticket(&state, sessions, &client, request).await {
            Ok(request) => request,
            Err(NotAdmitted::Body(limit)) => return limit.refusal().unlogged_response(),
            Err(NotAdmitted::Cap(refusal)) => return refused(refusal),
        }
    } else {
        request
    };
    next.run(request).await.map(|body| Guarded::wrap(body, slot))
}

/// The JSON-RPC method of a message (other fields are not read).
#[derive(serde::Deserialize)]
struct Probe {
    #[serde(default)]
    method: Option<String>,
}

/// Why a request that may open a session was not let through.
enum NotAdmitted {
    /// Its body is over the limit.
    Body(BodyLimit),
    /// A session cap.
    Cap(Refusal),
}

/// `request` with a [`lightrag_mcp::SessionTicket`] when it is an `initialize` (which opens a
/// session), or the refusal. Its body is read (it is at most `MAX_JSON_BODY_SIZE`) and put back.
async fn with_session_ticket(
    state: &AppState,
    sessions: &Sessions,
    client: &ClientKey,
    request: Request,
) -> Result<Request, NotAdmitted> {
    let limit = request
        .extensions()
        .get::<BodyLimit>()
        .copied()
        .unwrap_or_else(|| BodyLimit::json(state.settings().server.max_json_body_size));
    let (mut parts, body) = request.into_parts();
    let max = limit.bytes.map_or(usize::MAX, |b| usize::try_from(b).unwrap_or(usize::MAX));
    let bytes = axum::body::to_bytes(body, max).await.map_err(|_| NotAdmitted::Body(limit))?;
    let initialize =
        serde_json::from_slice::<Probe>(&bytes).is_ok_and(|probe| probe.method.as_deref() == Some("initialize"));
    if initialize {
        let ticket = sessions.reserve_session(client).await.map_err(NotAdmitted::Cap)?;
        parts.extensions.insert(ticket);
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}
