//! The query trace (ours, `include_trace`): absent by default, present with the documented
//! shapes when asked, last on the NDJSON stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeSet;

use common::{Harness, TEXT_A};
use serde_json::{Value, json};

const QUESTION: &str = "Who works at Acme Corporation?";

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap_or_else(|| panic!("not an object: {v}")).keys().cloned().collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn ndjson(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// Checks the shape of a trace; `with_answer` says whether `usage.answer` is expected (on
/// `/query` and `/query/stream`, which also carry the records and the keywords).
fn check_trace(trace: &Value, with_answer: bool) {
    let mut expected = vec!["entities", "relationships", "chunks", "usage", "timings_ms"];
    if with_answer {
        expected.extend(["data", "keywords"]);
        // the records are those the trace lists, in the same order
        let data = &trace["data"];
        if data.as_object().is_some_and(|d| !d.is_empty()) {
            assert_eq!(names(&trace["entities"], "entity_name"), names(&data["entities"], "entity_name"));
            assert_eq!(names(&trace["relationships"], "src_id"), names(&data["relationships"], "src_id"));
            assert_eq!(names(&trace["chunks"], "chunk_id"), names(&data["chunks"], "chunk_id"));
            assert!(data["chunks"].as_array().unwrap().iter().all(|c| c["content"].is_string()), "{data}");
        }
    }
    assert_eq!(keys(trace), set(&expected), "{trace}");
    let lists = [
        ("entities", vec!["entity_name", "score", "origin", "rank"], vec!["vector", "graph"]),
        ("relationships", vec!["src_id", "tgt_id", "score", "origin", "rank"], vec!["vector", "graph"]),
        ("chunks", vec!["chunk_id", "score", "origin", "rank"], vec!["vector", "entity", "relation"]),
    ];
    for (list, fields, origins) in lists {
        for (i, item) in trace[list].as_array().unwrap().iter().enumerate() {
            assert_eq!(keys(item), set(&fields), "{list}: {item}");
            assert_eq!(item["rank"], i, "{list}: {item}");
            let origin = item["origin"].as_str().unwrap();
            assert!(origins.contains(&origin), "{list}: {item}");
            // a score exactly for vector hits, a similarity in (0, 1]
            match origin {
                "vector" => {
                    let score = item["score"].as_f64().unwrap();
                    assert!(score > 0.0 && score <= 1.0 + 1e-6, "{list}: {item}");
                }
                _ => assert!(item["score"].is_null(), "{list}: {item}"),
            }
        }
    }
    let roles: &[&str] =
        if with_answer { &["keywords", "answer", "embed", "total"] } else { &["keywords", "embed", "total"] };
    assert_eq!(keys(&trace["usage"]), set(roles), "{trace}");
    for role in roles {
        let counters = &trace["usage"][role];
        assert_eq!(keys(counters), set(&["calls", "cache_hits", "tokens_in", "tokens_out"]), "{role}: {counters}");
        assert!(counters.as_object().unwrap().values().all(Value::is_u64), "{role}: {counters}");
    }
    let total = &trace["usage"]["total"];
    for field in ["calls", "cache_hits", "tokens_in", "tokens_out"] {
        let sum: u64 =
            roles.iter().filter(|r| **r != "total").map(|r| trace["usage"][r][field].as_u64().unwrap()).sum();
        assert_eq!(total[field], sum, "total.{field}: {trace}");
    }
    let timings = &trace["timings_ms"];
    assert_eq!(keys(timings), set(&["keywords", "retrieval", "answer", "total"]), "{timings}");
    assert!(timings["answer"].is_null() || timings["answer"].is_u64(), "{timings}");
    assert!(timings["total"].as_u64().unwrap() >= timings["retrieval"].as_u64().unwrap(), "{timings}");
}

fn names(list: &Value, field: &str) -> Vec<String> {
    list.as_array().unwrap().iter().map(|item| item[field].as_str().unwrap().to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_include_trace_no_response_has_a_trace() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    for flag in [json!(null), json!(false)] {
        let mut body = json!({"query": QUESTION});
        if !flag.is_null() {
            body["include_trace"] = flag.clone();
        }
        let v = h.post("/query", body.clone()).await.json();
        assert_eq!(keys(&v), set(&["response", "references", "response_time", "llm_generated"]), "{flag}: {v}");
        let v = h.post("/query/data", body.clone()).await.json();
        assert_eq!(keys(&v), set(&["status", "message", "data", "metadata"]), "{flag}: {v}");
        let lines = ndjson(&h.post("/query/stream", body.clone()).await.text());
        assert_eq!(keys(&lines[0]), set(&["references"]), "{flag}");
        assert!(lines[1..].iter().all(|l| keys(l) == set(&["response"])), "{flag}: {lines:?}");
        body["stream"] = json!(false);
        let lines = ndjson(&h.post("/query/stream", body).await.text());
        assert_eq!(lines.len(), 1, "{flag}: {lines:?}");
        assert_eq!(keys(&lines[0]), set(&["response", "references", "llm_generated"]), "{flag}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_and_query_data_add_the_trace_when_asked() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;

    let data = h.post("/query/data", json!({"query": QUESTION, "mode": "mix", "include_trace": true})).await.json();
    assert_eq!(keys(&data), set(&["status", "message", "data", "metadata", "trace"]), "{data}");
    let trace = &data["trace"];
    check_trace(trace, false);
    // one trace entry per record of data, in the same order
    assert_eq!(names(&trace["entities"], "entity_name"), names(&data["data"]["entities"], "entity_name"));
    assert_eq!(names(&trace["relationships"], "src_id"), names(&data["data"]["relationships"], "src_id"));
    assert_eq!(names(&trace["relationships"], "tgt_id"), names(&data["data"]["relationships"], "tgt_id"));
    assert_eq!(names(&trace["chunks"], "chunk_id"), names(&data["data"]["chunks"], "chunk_id"));
    assert!(!trace["entities"].as_array().unwrap().is_empty(), "{data}");
    // mix mode searches the entity index: some entity is a vector hit
    assert!(trace["entities"].as_array().unwrap().iter().any(|e| e["origin"] == "vector"), "{trace}");
    assert_eq!(trace["usage"]["embed"]["calls"], 1, "{trace}");
    assert!(trace["timings_ms"]["answer"].is_null());
    // the data itself is unchanged by the opt-in
    let plain = h.post("/query/data", json!({"query": QUESTION, "mode": "mix"})).await.json();
    assert_eq!(plain["data"], data["data"]);

    let v = h.post("/query", json!({"query": QUESTION, "mode": "mix", "include_trace": true})).await.json();
    assert_eq!(keys(&v), set(&["response", "references", "response_time", "llm_generated", "trace"]), "{v}");
    check_trace(&v["trace"], true);
    assert_eq!(names(&v["trace"]["entities"], "entity_name"), names(&trace["entities"], "entity_name"));
    // the records and keywords of the answer are those /query/data reports for the same question
    assert_eq!(v["trace"]["data"], data["data"], "{v}");
    assert_eq!(v["trace"]["keywords"], data["metadata"]["keywords"], "{v}");
    let answer = &v["trace"]["usage"]["answer"];
    assert_eq!(answer["calls"].as_u64().unwrap() + answer["cache_hits"].as_u64().unwrap(), 1, "{v}");
    assert!(v["trace"]["timings_ms"]["answer"].is_u64(), "{v}");

    // naive mode: chunks only, each a vector hit
    let v = h.post("/query", json!({"query": QUESTION, "mode": "naive", "include_trace": true})).await.json();
    check_trace(&v["trace"], true);
    let t = &v["trace"];
    assert!(t["entities"].as_array().unwrap().is_empty() && t["relationships"].as_array().unwrap().is_empty());
    assert!(t["chunks"].as_array().unwrap().iter().all(|c| c["origin"] == "vector" && c["score"].is_f64()), "{t}");
    assert_eq!(t["usage"]["keywords"]["calls"], 0);

    // bypass: no records, the answer call
    let v = h.post("/query", json!({"query": QUESTION, "mode": "bypass", "include_trace": true})).await.json();
    check_trace(&v["trace"], true);
    let t = &v["trace"];
    assert!(["entities", "relationships", "chunks"].iter().all(|l| t[l].as_array().unwrap().is_empty()), "{t}");
    assert_eq!(t["usage"]["answer"]["calls"], 1, "{t}");
    assert_eq!(t["usage"]["embed"]["calls"], 0, "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_ends_with_the_trace_line() {
    let h = Harness::new(&[]).await;
    h.insert(TEXT_A, "alice.txt", &[]).await;
    let text = h.post("/query/stream", json!({"query": QUESTION, "include_trace": true})).await.text();
    assert!(text.ends_with('\n'));
    let lines = ndjson(&text);
    assert!(lines.len() >= 3, "{text}");
    assert_eq!(keys(&lines[0]), set(&["references"]), "{text}");
    let (last, middle) = lines[1..].split_last().unwrap();
    assert!(!middle.is_empty() && middle.iter().all(|l| keys(l) == set(&["response"])), "{text}");
    assert_eq!(keys(last), set(&["trace"]), "{text}");
    let trace = &last["trace"];
    check_trace(trace, true);
    // the streamed answer is counted once it has ended
    let answer = &trace["usage"]["answer"];
    assert_eq!(answer["calls"], 1, "{trace}");
    assert!(answer["tokens_out"].as_u64().unwrap() > 0, "{trace}");
    assert!(answer["tokens_in"].as_u64().unwrap() > 0, "{trace}");
    assert!(trace["timings_ms"]["answer"].is_u64(), "{trace}");

    // the single-line variant: a second line with the trace
    let text = h.post("/query/stream", json!({"query": QUESTION, "stream": false, "include_trace": true})).await.text();
    let lines = ndjson(&text);
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(keys(&lines[0]), set(&["response", "references", "llm_generated"]), "{text}");
    assert_eq!(keys(&lines[1]), set(&["trace"]), "{text}");
    check_trace(&lines[1]["trace"], true);
}

/// The properties of a component schema.
fn properties(spec: &Value, name: &str) -> BTreeSet<String> {
    keys(&spec["components"]["schemas"][name]["properties"])
}

fn required(spec: &Value, name: &str) -> BTreeSet<String> {
    let list = spec["components"]["schemas"][name]["required"].as_array().cloned().unwrap_or_default();
    list.iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

#[test]
fn the_openapi_document_declares_the_engines_trace_shape() {
    use lightrag_engine::retrieval::query::{
        ChunkOrigin, ChunkTrace, EntityTrace, FilterInfo, GraphOrigin, QueryTimings, QueryTrace, QueryUsage,
        RelationTrace,
    };
    let spec = serde_json::to_value(lightrag_server::openapi::document("")).unwrap();
    let include = &spec["components"]["schemas"]["QueryRequest"]["properties"]["include_trace"];
    assert!(include["type"].as_array().unwrap().contains(&json!("boolean")), "{include}");
    for response in ["QueryResponse", "QueryStreamLine", "QueryDataResponse"] {
        assert!(properties(&spec, response).contains("trace"), "{response}");
        assert!(!required(&spec, response).contains("trace"), "{response}: the trace is opt-in");
    }
    // the engine's trace, every optional part filled, has exactly the declared keys
    let counters = lightrag_ports::UsageCounters { calls: 1, cache_hits: 0, tokens_in: 2, tokens_out: 3 };
    let trace = QueryTrace {
        entities: vec![EntityTrace { entity_name: "A".into(), score: Some(0.5), origin: GraphOrigin::Vector, rank: 0 }],
        relationships: vec![RelationTrace {
            src_id: "A".into(),
            tgt_id: "B".into(),
            score: None,
            origin: GraphOrigin::Graph,
            rank: 0,
        }],
        chunks: vec![ChunkTrace { chunk_id: "c".into(), score: None, origin: ChunkOrigin::Relation, rank: 0 }],
        usage: QueryUsage {
            keywords: counters,
            answer: Some(counters),
            embed: counters,
            rerank: Some(counters),
            total: counters,
        },
        timings_ms: QueryTimings { keywords: 1, retrieval: 2, answer: Some(3), total: 6 },
        filter: Some(FilterInfo { applied: true, documents: 1, chunks: 2 }),
    };
    let v = serde_json::to_value(&trace).unwrap();
    // the engine's trace plus what /query and /query/stream add to it (see routes/query.rs)
    let mut with_records = keys(&v);
    with_records.extend(["data".to_string(), "keywords".to_string()]);
    assert_eq!(with_records, properties(&spec, "QueryTrace"));
    assert!(!required(&spec, "QueryTrace").contains("data"), "absent on /query/data");
    assert_eq!(keys(&v["entities"][0]), properties(&spec, "TracedEntity"));
    assert_eq!(keys(&v["relationships"][0]), properties(&spec, "TracedRelationship"));
    assert_eq!(keys(&v["chunks"][0]), properties(&spec, "TracedChunk"));
    assert_eq!(keys(&v["usage"]), properties(&spec, "TraceUsage"));
    assert_eq!(keys(&v["usage"]["keywords"]), properties(&spec, "UsageCounts"));
    assert_eq!(keys(&v["timings_ms"]), properties(&spec, "TraceTimings"));
    assert_eq!(keys(&v["filter"]), properties(&spec, "TraceFilter"));
    assert!(!required(&spec, "QueryTrace").contains("filter"), "absent without a filter");
    // null scores and a null answer time are still sent: declared required (and nullable)
    assert!(required(&spec, "TracedEntity").contains("score") && required(&spec, "TraceTimings").contains("answer"));
    assert!(!required(&spec, "TraceUsage").contains("answer"), "absent on /query/data");
    // the origin vocabularies
    let variants = |name: &str| spec["components"]["schemas"][name]["enum"].clone();
    assert_eq!(variants("GraphOrigin"), json!(["vector", "graph"]));
    assert_eq!(variants("ChunkOrigin"), json!(["vector", "entity", "relation"]));
    let origins: Vec<Value> = [ChunkOrigin::Vector, ChunkOrigin::Entity, ChunkOrigin::Relation]
        .iter()
        .map(|o| serde_json::to_value(o).unwrap())
        .collect();
    assert_eq!(json!(origins), variants("ChunkOrigin"));
    assert_eq!(json!([GraphOrigin::Vector, GraphOrigin::Graph]), variants("GraphOrigin"));
}
