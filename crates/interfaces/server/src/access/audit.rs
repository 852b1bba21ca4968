//! The audit log middleware: for every request whose route ([`super::route_table`]) writes,
//! administers or manages (not reads), one entry after the answer — when, who (the response's
//! [`AuditedAs`], `unauthenticated` when credentials were refused), the workspace, the route's
//! name, the status code and the client's address. Never bodies, keys, passwords or document
//! text. Failed logins are recorded by `/login` itself; MCP tool writes by the MCP host.
//! `AUDIT_RETENTION_DAYS` prunes it at start and daily ([`prune_daily`]).

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use lightrag_application::access::admin;
use lightrag_ports::access::AuditEntry;

use super::AuditedAs;
use super::route_table::{self, Class};
use crate::state::AppState;

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Appends `entry`; a failure is logged, never turned into the request's answer.
pub async fn append(state: &AppState, entry: AuditEntry) {
    let result = match state.access_store().await {
        Ok(store) => store.append_audit(&entry).await.map_err(|e| e.to_string()),
        Err(e) => Err(e.flat_message()),
    };
    if let Err(e) = result {
        tracing::warn!(error = %e, action = %entry.action, "could not write the audit log");
    }
}

/// The client's address of a request served with connection info.
pub fn client_of<B>(request: &axum::http::Request<B>) -> String {
    request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip().to_string()).unwrap_or_default()
}

/// Middleware: one audit entry per audited request.
pub async fn record(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let rule = route_table::lookup(request.method().as_str(), request.uri().path());
    let Some(rule) = rule.filter(|r| matches!(r.class, Class::Do(a) if a.is_audited())) else {
        return next.run(request).await;
    };
    let client = client_of(&request);
    let (parts, body) = request.into_parts();
    let workspace = state.workspace_name(&parts).unwrap_or_default();
    let response = next.run(Request::from_parts(parts, body)).await;
    let principal =
        response.extensions().get::<AuditedAs>().map_or_else(|| "unauthenticated".to_string(), |a| a.0.clone());
    let entry = AuditEntry {
        time: now_ms(),
        principal,
        workspace,
        action: rule.name.to_string(),
        outcome: response.status().as_u16(),
        client,
    };
    append(&state, entry).await;
    response
}

/// Prunes entries older than `AUDIT_RETENTION_DAYS` now and once a day until `stop`.
pub async fn prune_daily(state: AppState, stop: tokio_util::sync::CancellationToken) {
    let days = state.settings().server.audit_retention_days;
    loop {
        match state.access_store().await {
            Ok(store) => match admin::prune_audit(store.as_ref(), days, now_ms()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, days, "audit log pruned (AUDIT_RETENTION_DAYS)"),
                Err(e) => tracing::warn!(error = %e, "could not prune the audit log"),
            },
            Err(e) => tracing::warn!(error = %e.flat_message(), "could not prune the audit log"),
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(Duration::from_secs(24 * 3600)) => {}
        }
    }
}
