//! `/metrics` (Prometheus text format).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use axum::http::{Method, StatusCode};
use common::{Harness, TEXT_A, TEXT_B};
use lightrag_scripted_llm::{Fault, FaultAction, PromptKind, RouteKind};
use serde_json::json;

#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Parses the exposition text line by line; panics on any line that is not a comment or
/// `name{labels} value`, and on a sample whose family has no `# TYPE` and `# HELP` before it.
fn parse(text: &str) -> Vec<Sample> {
    let mut typed: BTreeMap<String, String> = BTreeMap::new();
    let mut helped: BTreeSet<String> = BTreeSet::new();
    let mut samples = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap();
            assert!(!help.is_empty(), "{line}");
            helped.insert(name.to_string());
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap();
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            assert!(typed.insert(name.to_string(), kind.to_string()).is_none(), "family typed twice: {line}");
            continue;
        }
        assert!(!line.starts_with('#') && !line.is_empty(), "unexpected line: {line:?}");
        let name_end = line.find(['{', ' ']).unwrap_or_else(|| panic!("no value: {line}"));
        let name = &line[..name_end];
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'), "bad name: {line}");
        let mut labels = BTreeMap::new();
        let mut rest = &line[name_end..];
        if let Some(inner) = rest.strip_prefix('{') {
            let mut chars = inner.char_indices();
            let mut key = String::new();
            loop {
                let (_, c) = chars.next().unwrap_or_else(|| panic!("unterminated labels: {line}"));
                match c {
                    '}' => break,
                    ',' => {}
                    '=' => {
                        assert_eq!(chars.next().map(|(_, c)| c), Some('"'), "{line}");
                        let mut value = String::new();
                        loop {
                            match chars.next().unwrap_or_else(|| panic!("unterminated value: {line}")).1 {
                                '\\' => match chars.next().unwrap().1 {
                                    'n' => value.push('\n'),
                                    other => value.push(other),
                                },
                                '"' => break,
                                other => value.push(other),
                            }
                        }
                        assert!(labels.insert(std::mem::take(&mut key), value).is_none(), "repeated label: {line}");
                    }
                    c => key.push(c),
                }
            }
            rest = chars.as_str();
        }
        let value = rest.strip_prefix(' ').unwrap_or_else(|| panic!("no space before the value: {line}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("bad value: {line}"));
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s).filter(|f| typed.get(*f).is_some_and(|k| k == "histogram")))
            .unwrap_or(name);
        assert!(typed.contains_key(family), "sample before its # TYPE: {line}");
        assert!(helped.contains(family), "sample without # HELP: {line}");
        samples.push(Sample { name: name.to_string(), labels, value });
    }
    samples
}

fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let want: BTreeMap<String, String> = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    samples.iter().find(|s| s.name == name && s.labels == want).map(|s| s.value)
}

fn sum(samples: &[Sample], name: &str) -> f64 {
    samples.iter().filter(|s| s.name == name).map(|s| s.value).sum()
}

async fn scrape(h: &Harness, headers: &[(&str, &str)]) -> Vec<Sample> {
    let reply = h.call(Method::GET, "/metrics", headers, None).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
    parse(&reply.text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_requests_are_counted_by_route_template() {
    let h = Harness::new(&[]).await;
    for _ in 0..3 {
        assert_eq!(h.get("/documents/status_counts").await.status, StatusCode::OK);
    }
    for track in ["abc", "abc", "def"] {
        assert_eq!(h.get(&format!("/documents/track_status/{track}")).await.status, StatusCode::OK);
    }
    assert_eq!(h.get("/no/such/route").await.status, StatusCode::NOT_FOUND);
    assert_eq!(h.post("/query", json!({"query": "ab"})).await.status, StatusCode::UNPROCESSABLE_ENTITY);

    let m = scrape(&h, &[]).await;
    let total = "lightrag_http_requests_total";
    assert_eq!(
        value(&m, total, &[("method", "GET"), ("route", "/documents/status_counts"), ("status", "200")]),
        Some(3.0)
    );
    let track = "/documents/track_status/{track_id}";
    assert_eq!(value(&m, total, &[("method", "GET"), ("route", track), ("status", "200")]), Some(3.0));
    assert_eq!(value(&m, total, &[("method", "GET"), ("route", "unmatched"), ("status", "404")]), Some(1.0));
    assert_eq!(value(&m, total, &[("method", "POST"), ("route", "/query"), ("status", "422")]), Some(1.0));
    assert_eq!(sum(&m, total), 8.0, "{m:?}");
    for s in m.iter().filter(|s| s.name == total) {
        let route = &s.labels["route"];
        assert!(route == "unmatched" || route.starts_with('/'), "{s:?}");
        assert!(
            !route.contains("abc") && !route.contains("def") && !route.contains("such"),
            "raw path as label: {s:?}"
        );
    }

    // the histogram: one count per request, cumulative buckets ending at +Inf
    let hist = "lightrag_http_request_duration_seconds";
    assert_eq!(sum(&m, &format!("{hist}_count")), 8.0);
    let labels = [("method", "GET"), ("route", track)];
    assert_eq!(value(&m, &format!("{hist}_count"), &labels), Some(3.0));
    assert!(value(&m, &format!("{hist}_sum"), &labels).unwrap() > 0.0);
    let buckets: Vec<&Sample> = m
        .iter()
        .filter(|s| s.name == format!("{hist}_bucket") && s.labels["route"] == track && s.labels["method"] == "GET")
        .collect();
    assert!(buckets.len() > 5);
    assert!(buckets.windows(2).all(|w| w[0].value <= w[1].value), "{buckets:?}");
    assert_eq!(buckets.last().map(|b| (b.labels["le"].as_str(), b.value)), Some(("+Inf", 3.0)));

    // responses by status class
    let class = |c| value(&m, "lightrag_http_responses_total", &[("class", c)]);
    assert_eq!((class("2xx"), class("4xx"), class("5xx")), (Some(6.0), Some(2.0), None), "{m:?}");

    // the first scrape is counted by the next one
    let m = scrape(&h, &[]).await;
    assert_eq!(value(&m, total, &[("method", "GET"), ("route", "/metrics"), ("status", "200")]), Some(1.0));
    assert_eq!(value(&m, "lightrag_http_responses_total", &[("class", "2xx")]), Some(7.0));
}

async fn wait_idle(h: &Harness, headers: &[(&str, &str)]) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while h.call(Method::GET, "/documents/pipeline_status", headers, None).await.json()["busy"] == true {
        assert!(std::time::Instant::now() < deadline, "pipeline stays busy");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_and_llm_usage_are_reported_per_workspace() {
    let h = Harness::new(&[]).await;
    let team = [("LIGHTRAG-WORKSPACE", "team_a")];
    h.insert(TEXT_A, "alice.txt", &[]).await;
    h.insert(TEXT_B, "b.txt", &team).await;
    let reply = h.post("/query", json!({"query": "Who works at Acme Corporation?", "mode": "mix"})).await;
    assert_eq!(reply.status, StatusCode::OK);
    wait_idle(&h, &[]).await;
    wait_idle(&h, &team).await;

    let m = scrape(&h, &[]).await;
    for ws in ["", "team_a"] {
        let docs = |status| value(&m, "lightrag_documents", &[("workspace", ws), ("status", status)]);
        assert_eq!(docs("processed"), Some(1.0), "{ws}");
        assert_eq!(docs("pending"), Some(0.0), "{ws}");
        assert_eq!(docs("failed"), Some(0.0), "{ws}");
        assert_eq!(value(&m, "lightrag_pipeline_busy", &[("workspace", ws)]), Some(0.0));
        let calls = |role| value(&m, "lightrag_llm_requests_total", &[("workspace", ws), ("role", role)]).unwrap();
        assert!(calls("extract") >= 1.0, "{ws}");
        assert!(value(&m, "lightrag_embedding_requests_total", &[("workspace", ws)]).unwrap() >= 1.0);
        let tokens = |kind| {
            value(&m, "lightrag_llm_tokens_total", &[("workspace", ws), ("role", "extract"), ("kind", kind)]).unwrap()
        };
        assert!(tokens("prompt") > 0.0 && tokens("completion") > 0.0, "{ws}");
        assert!(value(&m, "lightrag_llm_cache_hits_total", &[("workspace", ws), ("role", "extract")]).is_some());
    }
    let calls = |ws, role| value(&m, "lightrag_llm_requests_total", &[("workspace", ws), ("role", role)]).unwrap();
    assert!(calls("", "answer") >= 1.0 && calls("", "keywords") >= 1.0);
    assert_eq!(calls("team_a", "answer"), 0.0);
    assert!(value(&m, "lightrag_llm_requests_total", &[("workspace", ""), ("role", "embed")]).is_none());

    // the counts are the provider calls the scripted model saw
    let stats = h.llm.stats();
    let total = |role: &str| -> f64 {
        m.iter().filter(|s| s.name == "lightrag_llm_requests_total" && s.labels["role"] == role).map(|s| s.value).sum()
    };
    assert_eq!(total("extract"), (stats.extract + stats.glean) as f64);
    assert_eq!(total("keywords"), stats.keywords as f64);
    assert_eq!(total("answer"), stats.answer as f64);
    assert_eq!(total("summary"), stats.summary as f64);
    assert_eq!(sum(&m, "lightrag_embedding_requests_total"), stats.embed as f64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_need_the_api_key_unless_whitelisted() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", "s3cret")]).await;
    assert_eq!(h.get("/metrics").await.status, StatusCode::FORBIDDEN);
    let m = scrape(&h, &[("X-API-Key", "s3cret")]).await;
    let rejected = [("method", "GET"), ("route", "/metrics"), ("status", "403")];
    assert_eq!(value(&m, "lightrag_http_requests_total", &rejected), Some(1.0));

    let open = Harness::new(&[("LIGHTRAG_API_KEY", "s3cret"), ("WHITELIST_PATHS", "/health,/metrics")]).await;
    scrape(&open, &[]).await;
}

#[test]
fn the_parser_rejects_malformed_lines() {
    let ok = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"q\\\"z\",y=\"\"} 3\n";
    let samples = parse(ok);
    assert_eq!(samples[0].labels["x"], "q\"z");
    assert_eq!(samples[0].value, 3.0);
    for bad in ["a_total 1\n", "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\"}\n"] {
        assert!(std::panic::catch_unwind(|| parse(bad)).is_err(), "{bad}");
    }
}

/// Every response carries its request's id (the client's `X-Request-Id` when well-formed), the
/// id every log line of the request carries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_carry_the_request_id() {
    let h = Harness::new(&[]).await;
    let id = |r: &common::Reply| r.headers.get("x-request-id").and_then(|v| v.to_str().ok()).map(str::to_string);
    let (a, b) = (h.get("/health").await, h.get("/health").await);
    let (a, b) = (id(&a).unwrap(), id(&b).unwrap());
    assert!(a.len() == 16 && a != b, "{a} {b}");
    let given = h.call(Method::GET, "/health", &[("X-Request-Id", "trace-42.a_b")], None).await;
    assert_eq!(id(&given).as_deref(), Some("trace-42.a_b"));
    let odd = h.call(Method::GET, "/health", &[("X-Request-Id", "no spaces allowed")], None).await;
    assert_ne!(id(&odd).as_deref(), Some("no spaces allowed"));
}

/// Failed provider attempts are counted by role and kind (retried ones too), and a call shows as
/// in flight while the provider works on it, by role, and no longer once it returned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_errors_by_kind_and_calls_in_flight_by_role() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    let fault = |route, prompt, action, count| Fault { route, prompt, action, count };
    h.llm.set_faults(vec![
        fault(RouteKind::Chat, Some(PromptKind::Keywords), FaultAction::RateLimit { retry_after_secs: 0 }, 2),
        fault(RouteKind::Embed, None, FaultAction::ServerError, 1),
    ]);
    let reply = h.post("/query", json!({"query": "Who works at Acme Corporation?", "mode": "mix"})).await;
    assert_eq!(reply.status, StatusCode::OK, "the retries succeed: {}", reply.text());
    let m = scrape(&h, &[]).await;
    let errors =
        |role, kind| value(&m, "lightrag_provider_errors_total", &[("workspace", ""), ("role", role), ("kind", kind)]);
    assert_eq!(errors("keywords", "rate_limited"), Some(2.0), "{m:?}");
    assert_eq!(errors("embed", "server_error"), Some(1.0));
    assert_eq!(errors("answer", "rate_limited"), None);
    let flying =
        |m: &[Sample], role| value(m, "lightrag_provider_calls_in_flight", &[("workspace", ""), ("role", role)]);
    for role in ["extract", "summary", "keywords", "answer", "embed", "rerank"] {
        assert_eq!(flying(&m, role), Some(0.0), "{role} idle");
    }
    for class in ["query", "merge", "extract"] {
        assert_eq!(value(&m, "lightrag_provider_calls_waiting", &[("class", class)]), Some(0.0));
    }
    assert_eq!(value(&m, "lightrag_pipeline_enqueues_waiting", &[("workspace", "")]), Some(0.0));

    // an answer that takes a while is in flight meanwhile
    h.llm.set_faults(vec![fault(RouteKind::Chat, Some(PromptKind::Answer), FaultAction::Delay { ms: 3_000 }, 1)]);
    let app = h.app.clone();
    let query = tokio::spawn(async move {
        let request = axum::http::Request::post("/query")
            .header("content-type", "application/json")
            .body(axum::body::Body::from(json!({"query": "Where does Alice work?", "mode": "naive"}).to_string()))
            .unwrap();
        tower::ServiceExt::oneshot(app, request).await.unwrap().status()
    });
    let mut seen = false;
    for _ in 0..200 {
        if flying(&scrape(&h, &[]).await, "answer") == Some(1.0) {
            seen = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(seen, "the answer call never showed as in flight");
    assert_eq!(query.await.unwrap(), StatusCode::OK);
    assert_eq!(flying(&scrape(&h, &[]).await, "answer"), Some(0.0), "done");
}
