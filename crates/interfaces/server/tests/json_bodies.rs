//! Fuzzing of the JSON bodies of every JSON route through the router: real request bodies with
//! one field removed, given a value of another kind or an unknown sibling, bodies cut or with a
//! byte inserted, and arbitrary JSON values. No answer may be a 5xx; a 422 caused by one field
//! must name it, and every 422 has FastAPI's `loc` shape (`["body", field, …]`, one `body`).
//!
//! Inputs are drawn from proptest strategies one by one and sent in order (the router is async;
//! a failure prints the body, there is no shrinking); `PROPTEST_CASES=500 cargo test -p lightrag-server
//! --test integration json_bodies::` sends that many per route instead of the default.

use axum::body::Body;
use axum::http::{Method, Request};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};

use crate::common::{Harness, TEXT_A};

fn cases(default: usize) -> usize {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Every route that reads a JSON body, with a real body it accepts; the routes that insert
/// documents come last (graph edits are refused while the pipeline is busy).
fn routes() -> Vec<(Method, &'static str, Value)> {
    vec![
        (Method::POST, "/query", json!({"query": "Who is Alice Smith?", "mode": "local", "top_k": 5})),
        (Method::POST, "/query/data", json!({"query": "Who is Alice Smith?", "mode": "hybrid", "chunk_top_k": 3})),
        (Method::POST, "/query/stream", json!({"query": "Who founded it?", "mode": "mix", "stream": true})),
        (
            Method::POST,
            "/graph/entity/edit",
            json!({"entity_name": "Alice Smith", "updated_data": {"description": "An engineer."}, "allow_rename": false}),
        ),
        (
            Method::POST,
            "/graph/relation/edit",
            json!({"source_id": "Alice Smith", "target_id": "Acme Corporation", "updated_data": {"weight": 2.0}}),
        ),
        (
            Method::POST,
            "/graph/entity/create",
            json!({"entity_name": "Zed Corp", "entity_data": {"description": "A company.", "entity_type": "organization"}}),
        ),
        (
            Method::POST,
            "/graph/relation/create",
            json!({"source_entity": "Zed Corp", "target_entity": "Alice Smith", "relation_data": {"description": "employs", "keywords": "work"}}),
        ),
        (
            Method::POST,
            "/graph/entities/merge",
            json!({"entities_to_change": ["Zed Corp"], "entity_to_change_into": "Acme Corporation"}),
        ),
        (Method::DELETE, "/graph/entity/delete", json!({"entity_name": "Nobody Here"})),
        (Method::DELETE, "/graph/relation/delete", json!({"source_entity": "Nobody", "target_entity": "Alice Smith"})),
        (
            Method::POST,
            "/api/chat",
            json!({"model": "lightrag:latest", "stream": false, "messages": [{"role": "user", "content": "/local Who is Bob Jones?"}]}),
        ),
        (
            Method::POST,
            "/api/generate",
            json!({"model": "lightrag:latest", "prompt": "Who is Carol White?", "stream": false}),
        ),
        (
            Method::POST,
            "/documents/paginated",
            json!({"page": 1, "page_size": 10, "sort_field": "file_path", "sort_direction": "asc", "status_filters": ["processed"]}),
        ),
        (Method::POST, "/documents/clear_cache", json!({"modes": ["local"]})),
        (Method::DELETE, "/documents/delete_document", json!({"doc_ids": ["doc-missing"], "delete_file": false})),
        (Method::POST, "/documents/text", json!({"text": "Grace Hopper wrote compilers.", "file_source": "grace.txt"})),
        (Method::POST, "/documents/texts", json!({"texts": ["Ada Lovelace wrote notes."], "file_sources": ["ada.md"]})),
    ]
}

/// Any JSON value, keys often the routes' real field names.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        "\\PC{0,16}".prop_map(Value::from),
    ];
    let key = prop_oneof![
        proptest::sample::select(
            &[
                "query",
                "mode",
                "text",
                "texts",
                "doc_ids",
                "entity_name",
                "updated_data",
                "page",
                "messages",
                "model",
                "stream",
                "top_k"
            ][..]
        )
        .prop_map(str::to_string),
        "\\PC{0,8}",
    ];
    leaf.prop_recursive(4, 40, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A value of another kind than `v` (or a hostile one of the same kind).
fn other_kind(v: &Value, pick: usize) -> Value {
    let options = [
        Value::Null,
        json!(true),
        json!(-1),
        json!(1e308),
        json!(2.5),
        json!(""),
        json!("x".repeat(5_000)),
        json!("\u{0}\u{202e}日本"),
        json!([]),
        json!({}),
        json!([1, "a", null]),
        json!(u64::MAX),
    ];
    let fitting: Vec<&Value> =
        options.iter().filter(|o| std::mem::discriminant(*o) != std::mem::discriminant(v)).collect();
    fitting[pick % fitting.len()].clone()
}

/// One damaged request body and, when the damage is to one named field, that field.
#[derive(Debug)]
struct Damaged {
    body: Vec<u8>,
    field: Option<String>,
}

fn damaged(real: &Value) -> impl Strategy<Value = Damaged> {
    let keys: Vec<String> = real.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
    let real = real.clone();
    (0..6u8, any::<prop::sample::Index>(), any::<prop::sample::Index>(), any_json(), any::<u8>()).prop_map(
        move |(how, which, at, value, byte)| {
            let key = keys[which.index(keys.len())].clone();
            let mut body = real.clone();
            let object = body.as_object_mut();
            match (how, object) {
                (0, Some(o)) => {
                    o.remove(&key);
                    Damaged { body: body.to_string().into_bytes(), field: Some(key) }
                }
                (1, Some(o)) => {
                    let replaced = other_kind(&o[&key], at.index(64));
                    o.insert(key.clone(), replaced);
                    Damaged { body: body.to_string().into_bytes(), field: Some(key) }
                }
                (2, Some(o)) => {
                    o.insert(key.clone(), value);
                    Damaged { body: body.to_string().into_bytes(), field: Some(key) }
                }
                (3, Some(o)) => {
                    o.insert("unexpected_field".into(), value);
                    Damaged { body: body.to_string().into_bytes(), field: None }
                }
                (4, _) => {
                    let mut bytes = real.to_string().into_bytes();
                    let i = at.index(bytes.len());
                    if byte % 2 == 0 {
                        bytes.truncate(i)
                    } else {
                        bytes.insert(i, byte)
                    }
                    Damaged { body: bytes, field: None }
                }
                _ => Damaged { body: value.to_string().into_bytes(), field: None },
            }
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_and_arbitrary_json_bodies_never_get_a_5xx() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    let mut runner = TestRunner::new(Config { failure_persistence: None, ..Config::default() });
    let per_route = cases(40);
    let mut sent = 0;
    for (method, uri, real) in routes() {
        // the real body is read as valid (its answer may still be 404 or 409 for the graph state)
        let reply = h.call(method.clone(), uri, &[], Some(real.clone())).await;
        let read = reply.status.is_success() || matches!(reply.status.as_u16(), 404 | 409);
        assert!(read, "{method} {uri} refused its real body {real}: {} {}", reply.status, reply.text());
        let strategy = damaged(&real);
        for _ in 0..per_route {
            let case = strategy.new_tree(&mut runner).unwrap().current();
            let request = Request::builder()
                .method(method.clone())
                .uri(uri)
                .header("content-type", "application/json")
                .body(Body::from(case.body.clone()))
                .unwrap();
            let reply = h.send(request).await;
            let shown = String::from_utf8_lossy(&case.body).chars().take(300).collect::<String>();
            assert!(!reply.status.is_server_error(), "{method} {uri} with {shown}: {} {}", reply.status, reply.text());
            if reply.status.as_u16() == 422 {
                // FastAPI's shape: `["body", field, …]`, one `body`
                for item in reply.json()["detail"].as_array().into_iter().flatten() {
                    let loc = item["loc"].as_array().cloned().unwrap_or_default();
                    assert!(
                        loc.first() == Some(&json!("body")) && loc.get(1) != Some(&json!("body")),
                        "{method} {uri} with {shown}: loc {loc:?} is not FastAPI's shape"
                    );
                }
            }
            if let (Some(field), 422) = (&case.field, reply.status.as_u16()) {
                assert!(
                    reply.text().contains(field.as_str()),
                    "{method} {uri} with {shown}: the 422 does not name {field}: {}",
                    reply.text()
                );
            }
            sent += 1;
        }
    }
    assert!(sent >= 17 * per_route);
}
