//! The per-request log event. Alone in its test binary: it installs a thread-scoped tracing
//! dispatcher, and callsite interest is shared process-wide with concurrently running tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::http::{Method, StatusCode};
use common::Harness;

/// Captures the fields of `request` events.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<BTreeMap<String, String>>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        if fields.get("message").is_some_and(|m| m == "request") {
            fields.insert("level".into(), event.metadata().level().to_string());
            self.0.lock().unwrap().push(fields);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test]
async fn one_structured_log_event_per_request() {
    let capture = Capture::default();
    let _guard = tracing::dispatcher::set_default(&tracing::Dispatch::new(capture.clone()));
    let h = Harness::new(&[]).await;
    let reply = h.call(Method::GET, "/documents/track_status/abc", &[("LIGHTRAG-WORKSPACE", "team_x")], None).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(h.get("/nowhere").await.status, StatusCode::NOT_FOUND);

    let events = capture.0.lock().unwrap().clone();
    assert_eq!(events.len(), 2, "{events:?}");
    let e = &events[0];
    assert_eq!(e["level"], "INFO");
    assert_eq!(e["method"], "GET");
    assert_eq!(e["route"], "/documents/track_status/{track_id}");
    assert_eq!(e["path"], "/documents/track_status/abc");
    assert_eq!(e["status"], "200");
    assert_eq!(e["workspace"], "team_x");
    assert!(e["latency_ms"].parse::<f64>().unwrap() >= 0.0, "{e:?}");
    let e = &events[1];
    assert_eq!((e["route"].as_str(), e["path"].as_str(), e["status"].as_str()), ("unmatched", "/nowhere", "404"));
    assert_eq!(e["workspace"], "");
}
