//! `lightrag query --json --trace`: the query trace next to the usual JSON keys.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Kb, LIBRARY, path_str};

fn names(list: &serde_json::Value, field: &str) -> Vec<String> {
    list.as_array().unwrap().iter().map(|v| v[field].as_str().unwrap().to_string()).collect()
}

#[test]
fn query_json_trace_prints_the_trace_of_the_data() {
    let kb = Kb::new();
    let docs = kb.write_docs(&[("library.txt", LIBRARY)]);
    kb.ok(&["insert", path_str(&docs)]);
    let question = "Who founded the Bodleian Library?";

    let plain = kb.json(&["query", "--mode", "mix", "--json", question]);
    assert!(plain.get("trace").is_none(), "{plain}");

    let out = kb.json(&["query", "--mode", "mix", "--json", "--trace", question]);
    let trace = &out["trace"];
    assert_eq!(names(&trace["entities"], "entity_name"), names(&out["data"]["entities"], "entity_name"));
    assert_eq!(names(&trace["chunks"], "chunk_id"), names(&out["data"]["chunks"], "chunk_id"));
    assert!(!trace["entities"].as_array().unwrap().is_empty(), "{out}");
    let answer = &trace["usage"]["answer"];
    assert_eq!(answer["calls"].as_u64().unwrap() + answer["cache_hits"].as_u64().unwrap(), 1, "{trace}");
    assert_eq!(trace["usage"]["embed"]["calls"], 1, "{trace}");
    assert!(trace["timings_ms"]["total"].is_u64(), "{trace}");

    // --trace without --json is refused with a pointer to --json
    let refused = kb.run(&["query", "--trace", question]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("--json"), "{err}");
}
