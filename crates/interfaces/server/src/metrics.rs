//! `GET /metrics` in the Prometheus text format (version 0.0.4, written by the
//! `prometheus-client` crate's encoder), the per-request middleware [`track`] that feeds it and
//! writes one structured log event per request.
//!
//! Families:
//! * `lightrag_http_requests_total{method,route,status}`, the histogram
//!   `lightrag_http_request_duration_seconds{method,route}` — `route` is the route template
//!   (`/documents/track_status/{track_id}`), `unmatched` for requests no route matched — and
//!   `lightrag_http_responses_total{class}` (`2xx`, `4xx`, `5xx` …);
//! * per open workspace: `lightrag_documents{workspace,status}` (the queue: `pending` and
//!   `processing`), `lightrag_pipeline_busy{workspace}`, `lightrag_pipeline_enqueues_waiting{workspace}`
//!   (enqueue requests admitted and not yet written), `lightrag_llm_requests_total{workspace,role}`,
//!   `lightrag_llm_cache_hits_total{workspace,role}`, `lightrag_llm_tokens_total{workspace,role,kind}`,
//!   `lightrag_embedding_requests_total{workspace}`, `lightrag_embedding_tokens_total{workspace}`,
//!   `lightrag_rerank_requests_total{workspace}` (usage since the server opened the workspace),
//!   `lightrag_provider_calls_in_flight{workspace,role}` and
//!   `lightrag_provider_errors_total{workspace,role,kind}` (every failed attempt: `rate_limited`,
//!   `server_error`, `refused`, `timeout`, `connection`, `invalid_response` …);
//! * over every provider: `lightrag_provider_calls_waiting{class}` (calls queued for a slot, by
//!   priority class `query`, `merge`, `extract`);
//! * MCP: `lightrag_mcp_sessions`, `lightrag_mcp_streams` (open now),
//!   `lightrag_mcp_sessions_evicted_total`, `lightrag_mcp_refused_total{kind,cap}` and
//!   `lightrag_mcp_streams_idle_closed_total`.
//!
//! The HTTP families live in a registry of the server's [`Metrics`]; the rest is read from the
//! open engines at each scrape (the engines keep their own counters) into a registry made for
//! that scrape.

use std::collections::BTreeMap;
use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use lightrag_ports::{DocStatus, UsageRole};
use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Metric, Registry};
use tracing::Instrument;

use crate::state::AppState;
use crate::workspace::{WORKSPACE_HEADER, sanitize_workspace};

/// Upper bounds (seconds) of the latency histogram buckets (`+Inf` is implied).
pub const LATENCY_BUCKETS: [f64; 14] =
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0];

/// The `route` label of requests that matched no route.
pub const UNMATCHED: &str = "unmatched";

/// The content type of `/metrics`.
pub const CONTENT_TYPE: &str = prometheus_text::CONTENT_TYPE;

/// A label set: `(name, value)` pairs in the order written.
type Labels = Vec<(String, String)>;

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// The HTTP request metrics of the server (one per [`AppState`]).
pub struct Metrics {
    registry: Registry,
    requests: Family<Labels, Counter>,
    durations: Family<Labels, Histogram, fn() -> Histogram>,
    responses: Family<Labels, Counter>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<Labels, Counter>::default();
        let durations = Family::<Labels, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram as _);
        let responses = Family::<Labels, Counter>::default();
        register(
            &mut registry,
            "lightrag_http_requests_total",
            "HTTP requests by method, route template and status",
            &requests,
        );
        register(
            &mut registry,
            "lightrag_http_request_duration_seconds",
            "HTTP request latency by method and route template",
            &durations,
        );
        register(
            &mut registry,
            "lightrag_http_responses_total",
            "HTTP responses by status class (2xx, 4xx, 5xx ...)",
            &responses,
        );
        Metrics { registry, requests, durations, responses }
    }
}

/// Registers `metric` under the full family name (the encoder adds `_total` to counters itself).
fn register(registry: &mut Registry, name: &str, help: &str, metric: &(impl Metric + Clone)) {
    let name = name.strip_suffix("_total").unwrap_or(name);
    registry.register(name, help, metric.clone());
}

impl Metrics {
    /// Records one finished request.
    pub fn record(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let status_label = status.to_string();
        self.requests.get_or_create(&labels(&[("method", method), ("route", route), ("status", &status_label)])).inc();
        self.durations.get_or_create(&labels(&[("method", method), ("route", route)])).observe(seconds);
        let class = format!("{}xx", status / 100);
        self.responses.get_or_create(&labels(&[("class", &class)])).inc();
    }

    /// Writes the HTTP families.
    pub fn render_http(&self, out: &mut String) {
        if let Err(e) = prometheus_text::encode(out, &self.registry) {
            tracing::warn!("the HTTP metrics could not be written: {e}");
        }
    }
}

/// Routes of this module: `GET /metrics`.
pub fn router() -> Router<AppState> {
    Router::new().route("/metrics", get(metrics))
}

/// A family of gauges or counters whose values are set at each scrape.
struct Scrape {
    registry: Registry,
}

impl Scrape {
    fn gauges(&mut self, name: &str, help: &str) -> Family<Labels, Gauge> {
        let family = Family::<Labels, Gauge>::default();
        register(&mut self.registry, name, help, &family);
        family
    }

    fn counters(&mut self, name: &str, help: &str) -> Family<Labels, Counter> {
        let family = Family::<Labels, Counter>::default();
        register(&mut self.registry, name, help, &family);
        family
    }
}

fn set(family: &Family<Labels, Gauge>, pairs: &[(&str, &str)], value: u64) {
    family.get_or_create(&labels(pairs)).set(i64::try_from(value).unwrap_or(i64::MAX));
}

fn count(family: &Family<Labels, Counter>, pairs: &[(&str, &str)], value: u64) {
    family.get_or_create(&labels(pairs)).inc_by(value);
}

/// The `/metrics` text.
pub async fn render(state: &AppState) -> String {
    let mut out = String::new();
    state.inner.metrics.render_http(&mut out);
    let workspaces: Vec<_> = state.inner.workspaces.lock().await.values().filter_map(|s| s.get().cloned()).collect();
    let mut scrape = Scrape { registry: Registry::default() };

    let documents = scrape.gauges("lightrag_documents", "Documents by status, per open workspace");
    for ws in &workspaces {
        match ws.engine.status_counts().await {
            Ok(counts) => {
                for status in DocStatus::ALL {
                    let n = counts.get(&status).copied().unwrap_or(0) as u64;
                    set(&documents, &[("workspace", &ws.name), ("status", status.as_str())], n);
                }
            }
            Err(e) => tracing::warn!(workspace = %ws.name, error = %e, "document counts unavailable for /metrics"),
        }
    }

    let quota_used = scrape.gauges(
        "lightrag_quota_used",
        "What an open workspace holds or spent against each quota that is set (documents, stored_bytes, llm_tokens_per_day)",
    );
    let quota_limit = scrape.gauges("lightrag_quota_limit", "The limit of each quota that is set, per open workspace");
    for ws in &workspaces {
        match ws.engine.quota_status().await {
            Ok(Some(status)) => {
                for (kind, u) in status.entries() {
                    set(&quota_used, &[("workspace", &ws.name), ("quota", kind.as_str())], u.used);
                    set(&quota_limit, &[("workspace", &ws.name), ("quota", kind.as_str())], u.limit);
                }
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(workspace = %ws.name, error = %e, "quota figures unavailable for /metrics"),
        }
    }

    let usage: Vec<_> = workspaces.iter().map(|ws| (ws.name.as_str(), ws.engine.session_usage())).collect();
    let llm_roles = || UsageRole::ALL.into_iter().filter(|r| r.is_chat());
    let requests = scrape.counters(
        "lightrag_llm_requests_total",
        "LLM calls that reached the provider, by role, since the workspace was opened",
    );
    let hits = scrape.counters("lightrag_llm_cache_hits_total", "LLM calls answered from the cache, by role");
    let tokens = scrape.counters("lightrag_llm_tokens_total", "LLM tokens by role and kind (prompt or completion)");
    for (ws, u) in &usage {
        for role in llm_roles() {
            let c = u.get(&role).copied().unwrap_or_default();
            count(&requests, &[("workspace", ws), ("role", role.as_str())], c.calls);
            count(&hits, &[("workspace", ws), ("role", role.as_str())], c.cache_hits);
            for (kind, n) in [("prompt", c.tokens_in), ("completion", c.tokens_out)] {
                count(&tokens, &[("workspace", ws), ("role", role.as_str()), ("kind", kind)], n);
            }
        }
    }
    let embed_calls = scrape.counters("lightrag_embedding_requests_total", "Embedding calls that reached the provider");
    let embed_tokens = scrape.counters("lightrag_embedding_tokens_total", "Tokens sent to the embedding model");
    let rerank_calls = scrape.counters("lightrag_rerank_requests_total", "Rerank calls that reached the provider");
    for (ws, u) in &usage {
        let embed = u.get(&UsageRole::Embed).copied().unwrap_or_default();
        count(&embed_calls, &[("workspace", ws)], embed.calls);
        count(&embed_tokens, &[("workspace", ws)], embed.tokens_in);
        count(&rerank_calls, &[("workspace", ws)], u.get(&UsageRole::Rerank).map_or(0, |c| c.calls));
    }

    let in_flight = scrape.gauges(
        "lightrag_provider_calls_in_flight",
        "Provider calls holding a slot and waiting for the answer, by role (extract, summary, keywords, answer, embed, rerank)",
    );
    let errors = scrape.counters(
        "lightrag_provider_errors_total",
        "Failed provider call attempts (retried ones too) by role and kind: rate_limited, server_error, refused, timeout, connection, invalid_response",
    );
    for ws in &workspaces {
        let activity = ws.engine.provider_activity();
        for (role, n) in &activity.in_flight {
            set(&in_flight, &[("workspace", &ws.name), ("role", role.as_str())], *n);
        }
        for ((role, kind), n) in &activity.errors {
            count(&errors, &[("workspace", &ws.name), ("role", role.as_str()), ("kind", kind)], *n);
        }
    }

    // the providers' queues (shared by the workspaces: each provider once)
    let waiting = scrape.gauges(
        "lightrag_provider_calls_waiting",
        "Provider calls queued for a slot, over every provider, by priority class (query, merge, extract)",
    );
    let mut providers = BTreeMap::new();
    for ws in &workspaces {
        providers.extend(ws.engine.provider_status());
    }
    for class in lightrag_engine::providers::limiter::Priority::ALL {
        let n: usize = providers.values().map(|s| s.waiting.get(&class).copied().unwrap_or(0)).sum();
        set(&waiting, &[("class", class.as_str())], n as u64);
    }

    let busy = scrape.gauges("lightrag_pipeline_busy", "1 while the workspace's pipeline runs a job");
    let enqueues = scrape.gauges(
        "lightrag_pipeline_enqueues_waiting",
        "Enqueue requests (uploads, texts) admitted and not yet written to the store",
    );
    for ws in &workspaces {
        let status = ws.pipeline.lock();
        set(&busy, &[("workspace", &ws.name)], u64::from(status.busy));
        set(&enqueues, &[("workspace", &ws.name)], status.pending_enqueues as u64);
    }
    mcp_families(&mut scrape, &state.inner.mcp.stats());
    if let Err(e) = prometheus_text::encode(&mut out, &scrape.registry) {
        tracing::warn!("the workspace metrics could not be written: {e}");
    }
    out
}

/// The MCP sessions and event streams of `/mcp` (see [`crate::mcp_admission`]).
fn mcp_families(scrape: &mut Scrape, stats: &lightrag_mcp::SessionStats) {
    let sessions = scrape.gauges("lightrag_mcp_sessions", "MCP sessions open (MCP_MAX_SESSIONS caps them)");
    set(&sessions, &[], stats.sessions);
    let streams =
        scrape.gauges("lightrag_mcp_streams", "MCP event streams (GET /mcp) open (MCP_MAX_STREAMS caps them)");
    set(&streams, &[], stats.streams);
    let evicted = scrape.counters(
        "lightrag_mcp_sessions_evicted_total",
        "MCP sessions closed to make room for a new one (the one idle the longest, at a cap)",
    );
    count(&evicted, &[], stats.sessions_evicted);
    let refused = scrape.counters(
        "lightrag_mcp_refused_total",
        "New MCP sessions and event streams refused, by kind (session, stream) and cap (client: 429, server: 503)",
    );
    for (kind, cap, n) in [
        ("session", "client", stats.sessions_refused_client),
        ("session", "server", stats.sessions_refused_server),
        ("stream", "client", stats.streams_refused_client),
        ("stream", "server", stats.streams_refused_server),
    ] {
        count(&refused, &[("kind", kind), ("cap", cap)], n);
    }
    let idle = scrape.counters(
        "lightrag_mcp_streams_idle_closed_total",
        "MCP event streams closed after MCP_STREAM_IDLE_TIMEOUT without a message",
    );
    count(&idle, &[], stats.streams_idle_closed);
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
