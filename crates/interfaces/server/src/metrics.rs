//! `GET /metrics` in the Prometheus text format (hand-written, version 0.0.4), the per-request
//! middleware [`track`] that feeds it and writes one structured log event per request.
//!
//! Families:
//! * `lightrag_http_requests_total{method,route,status}` and the histogram
//!   `lightrag_http_request_duration_seconds{method,route}` — `route` is the route template
//!   (`/documents/track_status/{track_id}`), `unmatched` for requests no route matched;
//! * per open workspace: `lightrag_documents{workspace,status}`,
//!   `lightrag_llm_requests_total{workspace,role}`, `lightrag_llm_cache_hits_total{workspace,role}`,
//!   `lightrag_llm_tokens_total{workspace,role,kind}`, `lightrag_embedding_requests_total{workspace}`,
//!   `lightrag_embedding_tokens_total{workspace}` (usage since the server opened the workspace) and
//!   `lightrag_pipeline_busy{workspace}`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use lightrag_ports::{DocStatus, UsageRole};
use tracing::Instrument;

use crate::state::AppState;
use crate::workspace::{WORKSPACE_HEADER, sanitize_workspace};

/// Upper bounds (seconds) of the latency histogram buckets (`+Inf` is implied).
pub const LATENCY_BUCKETS: [f64; 14] =
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0];

/// The `route` label of requests that matched no route.
pub const UNMATCHED: &str = "unmatched";

/// The content type of `/metrics`.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Counters of one (method, route).
#[derive(Debug, Default, Clone)]
struct RouteStats {
    by_status: BTreeMap<u16, u64>,
    /// Non-cumulative bucket counts (index = first bound ≥ latency; last = `+Inf`).
    buckets: [u64; LATENCY_BUCKETS.len() + 1],
    sum: f64,
    count: u64,
}

/// The HTTP request metrics of the server (one per [`AppState`]).
#[derive(Debug, Default)]
pub struct Metrics {
    routes: Mutex<BTreeMap<(String, String), RouteStats>>,
}

impl Metrics {
    /// Records one finished request.
    pub fn record(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        let stats = routes.entry((method.to_string(), route.to_string())).or_default();
        *stats.by_status.entry(status).or_default() += 1;
        let slot = LATENCY_BUCKETS.iter().position(|b| seconds <= *b).unwrap_or(LATENCY_BUCKETS.len());
        stats.buckets[slot] += 1;
        stats.sum += seconds;
        stats.count += 1;
    }

    /// Writes the HTTP families.
    pub fn render_http(&self, out: &mut String) {
        let routes = self.routes.lock().unwrap_or_else(|p| p.into_inner()).clone();
        family(out, "lightrag_http_requests_total", "counter", "HTTP requests by method, route template and status.");
        for ((method, route), stats) in &routes {
            for (status, n) in &stats.by_status {
                let status = status.to_string();
                sample(
                    out,
                    "lightrag_http_requests_total",
                    &[("method", method), ("route", route), ("status", &status)],
                    *n,
                );
            }
        }
        let name = "lightrag_http_request_duration_seconds";
        family(out, name, "histogram", "HTTP request latency by method and route template.");
        for ((method, route), stats) in &routes {
            let mut cumulative = 0;
            for (i, n) in stats.buckets.iter().enumerate() {
                cumulative += n;
                let le = LATENCY_BUCKETS.get(i).map_or_else(|| "+Inf".to_string(), |b| b.to_string());
                let labels = [("method", method.as_str()), ("route", route.as_str()), ("le", le.as_str())];
                sample(out, &format!("{name}_bucket"), &labels, cumulative);
            }
            let labels = [("method", method.as_str()), ("route", route.as_str())];
            sample(out, &format!("{name}_sum"), &labels, stats.sum);
            sample(out, &format!("{name}_count"), &labels, stats.count);
        }
    }
}

/// Escapes a label value (`\`, `"`, newline).
pub fn escape_label(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let help = help.replace('\\', "\\\\").replace('\n', "\\n");
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn sample(out: &mut String, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
    out.push_str(name);
    if !labels.is_empty() {
        out.push('{');
        for (i, (k, v)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{k}=\"{}\"", escape_label(v));
        }
        out.push('}');
    }
    let _ = writeln!(out, " {value}");
}

/// Routes of this module: `GET /metrics`.
pub fn router() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

/// The `/metrics` text.
pub async fn render(state: &AppState) -> String {
    let mut out = String::new();
    state.inner.metrics.render_http(&mut out);
    let workspaces: Vec<_> = state.inner.workspaces.lock().await.values().filter_map(|s| s.get().cloned()).collect();

    family(&mut out, "lightrag_documents", "gauge", "Documents by status, per open workspace.");
    for ws in &workspaces {
        match ws.engine.status_counts().await {
            Ok(counts) => {
                for status in DocStatus::ALL {
                    let n = counts.get(&status).copied().unwrap_or(0);
                    sample(&mut out, "lightrag_documents", &[("workspace", &ws.name), ("status", status.as_str())], n);
                }
            }
            Err(e) => tracing::warn!(workspace = %ws.name, error = %e, "document counts unavailable for /metrics"),
        }
    }

    let usage: Vec<_> = workspaces.iter().map(|ws| (ws.name.as_str(), ws.engine.session_usage())).collect();
    let llm_roles = || UsageRole::ALL.into_iter().filter(|r| r.is_chat());
    family(
        &mut out,
        "lightrag_llm_requests_total",
        "counter",
        "LLM calls that reached the provider, by role, since the workspace was opened.",
    );
    for (ws, u) in &usage {
        for role in llm_roles() {
            let calls = u.get(&role).map_or(0, |c| c.calls);
            sample(&mut out, "lightrag_llm_requests_total", &[("workspace", ws), ("role", role.as_str())], calls);
        }
    }
    family(&mut out, "lightrag_llm_cache_hits_total", "counter", "LLM calls answered from the cache, by role.");
    for (ws, u) in &usage {
        for role in llm_roles() {
            let hits = u.get(&role).map_or(0, |c| c.cache_hits);
            sample(&mut out, "lightrag_llm_cache_hits_total", &[("workspace", ws), ("role", role.as_str())], hits);
        }
    }
    family(&mut out, "lightrag_llm_tokens_total", "counter", "LLM tokens by role and kind (prompt or completion).");
    for (ws, u) in &usage {
        for role in llm_roles() {
            let c = u.get(&role).copied().unwrap_or_default();
            for (kind, n) in [("prompt", c.tokens_in), ("completion", c.tokens_out)] {
                let labels = [("workspace", *ws), ("role", role.as_str()), ("kind", kind)];
                sample(&mut out, "lightrag_llm_tokens_total", &labels, n);
            }
        }
    }
    family(&mut out, "lightrag_embedding_requests_total", "counter", "Embedding calls that reached the provider.");
    for (ws, u) in &usage {
        let calls = u.get(&UsageRole::Embed).map_or(0, |c| c.calls);
        sample(&mut out, "lightrag_embedding_requests_total", &[("workspace", ws)], calls);
    }
    family(&mut out, "lightrag_embedding_tokens_total", "counter", "Tokens sent to the embedding model.");
    for (ws, u) in &usage {
        let tokens = u.get(&UsageRole::Embed).map_or(0, |c| c.tokens_in);
        sample(&mut out, "lightrag_embedding_tokens_total", &[("workspace", ws)], tokens);
    }
    family(&mut out, "lightrag_rerank_requests_total", "counter", "Rerank calls that reached the provider.");
    for (ws, u) in &usage {
        let calls = u.get(&UsageRole::Rerank).map_or(0, |c| c.calls);
        sample(&mut out, "lightrag_rerank_requests_total", &[("workspace", ws)], calls);
    }
    family(&mut out, "lightrag_pipeline_busy", "gauge", "1 while the workspace's pipeline runs a job.");
    for ws in &workspaces {
        let busy = u8::from(ws.pipeline.lock().busy);
        sample(&mut out, "lightrag_pipeline_busy", &[("workspace", &ws.name)], busy);
    }
    out
}

/// Prometheus metrics
///
/// HTTP requests and latency by route template; per open workspace: documents by status, LLM and
/// embedding calls and tokens, pipeline activity. Text exposition format 0.0.4.
#[utoipa::path(get, path = "/metrics", tag = "system", responses(
    (status = 200, description = "Prometheus text format", content_type = "text/plain", body = String),
))]
async fn metrics(State(state): State<AppState>) -> Response {
    let mut response = render(&state).await.into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
    response
}

/// The method as a label: the standard ones by name, anything else `OTHER` (clients may send any
/// token as a method; each would otherwise become a series that is never freed).
fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// Middleware: times the request, records it in [`Metrics`] under its route template, and
/// logs one INFO event (`method`, `route`, `path`, `status`, `latency_ms`, `workspace`). Handler
/// logs run inside a `request` span with the method and route.
pub async fn track(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = method_label(request.method()).to_string();
    let route = request.extensions().get::<MatchedPath>().map_or(UNMATCHED, |m| m.as_str()).to_string();
    let path = request.uri().path().to_string();
    let workspace = request
        .headers()
        .get(WORKSPACE_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(sanitize_workspace)
        .unwrap_or_default();
    let request_id = request_id(request.headers());
    let span = tracing::info_span!("request", method = %method, route = %route, request_id = %request_id);
    let mut response = next.run(request).instrument(span).await;
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    let elapsed = start.elapsed();
    let status = response.status().as_u16();
    // a known path with an unknown method is not that route's traffic
    let route = if status == 405 { UNMATCHED.to_string() } else { route };
    state.inner.metrics.record(&method, &route, status, elapsed.as_secs_f64());
    tracing::info!(
        method = %method,
        route = %route,
        path = %path,
        status,
        latency_ms = elapsed.as_micros() as f64 / 1000.0,
        workspace = %workspace,
        request_id = %request_id,
        "request"
    );
    response
}

/// The header that carries a request's id, both ways.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The id a client sent (`X-Request-Id`, up to 64 characters of `[A-Za-z0-9._-]`), or a new
/// random one: every log line of a request carries it, and the response returns it.
pub fn request_id(headers: &axum::http::HeaderMap) -> String {
    let given = headers.get(REQUEST_ID_HEADER).and_then(|v| v.to_str().ok()).filter(|v| {
        !v.is_empty() && v.len() <= 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    });
    match given {
        Some(id) => id.to_string(),
        None => format!("{:016x}", rand::random::<u64>()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_methods_share_one_label() {
        let custom = axum::http::Method::from_bytes(b"XAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1").unwrap();
        assert_eq!(method_label(&custom), "OTHER");
        assert_eq!(method_label(&axum::http::Method::POST), "POST");
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape_label(r#"a"b\c"#), r#"a\"b\\c"#);
        assert_eq!(escape_label("x\ny"), "x\\ny");
    }

    #[test]
    fn histogram_buckets_are_cumulative() {
        let m = Metrics::default();
        m.record("GET", "/a", 200, 0.001);
        m.record("GET", "/a", 500, 0.3);
        m.record("GET", "/a", 200, 1000.0);
        let mut out = String::new();
        m.render_http(&mut out);
        assert!(out.contains("lightrag_http_requests_total{method=\"GET\",route=\"/a\",status=\"200\"} 2\n"), "{out}");
        assert!(out.contains("lightrag_http_requests_total{method=\"GET\",route=\"/a\",status=\"500\"} 1\n"));
        let prefix = "lightrag_http_request_duration_seconds_bucket{method=\"GET\",route=\"/a\",le=";
        assert!(out.contains(&format!("{prefix}\"0.005\"}} 1\n")), "{out}");
        assert!(out.contains(&format!("{prefix}\"0.25\"}} 1\n")));
        assert!(out.contains(&format!("{prefix}\"0.5\"}} 2\n")));
        assert!(out.contains(&format!("{prefix}\"120\"}} 2\n")));
        assert!(out.contains(&format!("{prefix}\"+Inf\"}} 3\n")));
        assert!(out.contains("lightrag_http_request_duration_seconds_count{method=\"GET\",route=\"/a\"} 3\n"));
        assert!(out.contains("# TYPE lightrag_http_request_duration_seconds histogram\n"));
    }
}
