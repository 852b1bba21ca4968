//! Helpers of the multi-worker tests (SQLite and PostgreSQL): a corpus whose documents share
//! people and places, a knowledge base on the scripted LLM, workers run through the real binary,
//! and a projection of the graph that does not depend on how many workers built it.

use std::collections::BTreeSet;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use lightrag_scripted_llm::ScriptConfig;
use serde_json::{Value, json};

use super::{Kb, path_str};

const NAMES: [&str; 10] =
    ["Adams", "Baker", "Carter", "Dalton", "Ellis", "Foster", "Garcia", "Hughes", "Irving", "Jensen"];
const PLACES: [&str; 5] = ["Boston", "Denver", "Austin", "Seattle", "Chicago"];

pub fn corpus(docs: usize) -> Vec<(String, String)> {
    (0..docs)
        .map(|d| {
            let mut text = String::new();
            for s in 0..12 {
                let a = NAMES[(d + s) % NAMES.len()];
                let b = NAMES[(d * 3 + s * 7 + 1) % NAMES.len()];
                let p = PLACES[(d + s * 3) % PLACES.len()];
                text.push_str(&format!(
                    "Mayor {a} met Judge {b} in {p} about the bridge tolls of {}. ",
                    1800 + d * 20 + s
                ));
            }
            (format!("doc{d:02}.txt"), text)
        })
        .collect()
}

pub fn kb(delay_ms: u64) -> Kb {
    let mut kb = Kb::with_config(ScriptConfig { delay: Duration::from_millis(delay_ms), ..ScriptConfig::default() });
    kb.set("CHUNK_SIZE", "100").set("CHUNK_OVERLAP_SIZE", "10").set("MAX_PARALLEL_INSERT", "2").set("MAX_ASYNC", "4");
    kb
}

/// What must not depend on how many workers built the graph: names and types, relation keys and
/// weights, and which chunks support each record (merge order may differ between workers, so
/// descriptions and the order of lists are left out).
pub fn projection(graph: &Value) -> Value {
    let ids = |v: &Value| -> Vec<String> {
        let set: BTreeSet<String> =
            v.as_str().unwrap_or_default().split("<SEP>").filter(|s| !s.is_empty()).map(str::to_string).collect();
        set.into_iter().collect()
    };
    let mut nodes: Vec<Value> = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| json!({"id": n["id"], "type": n["entity_type"], "sources": ids(&n["source_id"])}))
        .collect();
    nodes.sort_by_key(|v| v.to_string());
    let mut edges: Vec<Value> = graph["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(
            |e| json!({"src": e["source"], "tgt": e["target"], "weight": e["weight"], "sources": ids(&e["source_id"])}),
        )
        .collect();
    edges.sort_by_key(|v| v.to_string());
    json!({"nodes": nodes, "edges": edges})
}

pub fn spawn_worker(kb: &Kb) -> Child {
    kb.cmd()
        .args(["worker", "--exit-when-done", "--poll-secs", "0.2", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for a worker (it must succeed) and returns the documents it processed.
pub fn finish(worker: Child) -> Vec<String> {
    let out = worker.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "worker failed ({:?}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("processed "))
        .map(|l| l.split(':').next().unwrap_or_default().to_string())
        .collect()
}

pub fn reference(docs: &[(String, String)]) -> Value {
    let reference = kb(0);
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let dir = reference.write_docs(&refs);
    reference.ok(&["insert", path_str(&dir)]);
    let graph = reference.graph();
    assert!(graph["nodes"].as_array().unwrap().len() > 10, "a real graph to compare");
    projection(&graph)
}

/// The documents as `(file name, text)` pairs for [`Kb::write_docs`].
pub fn refs(docs: &[(String, String)]) -> Vec<(&str, &str)> {
    docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect()
}

/// Waits until some document is being processed (a worker has claimed).
pub fn wait_until_processing(kb: &Kb) {
    let started = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let status = kb.json(&["status", "--json"]);
        if status["status_counts"]["processing"].as_u64().unwrap_or(0) > 0 {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no worker claimed anything: {status}");
    }
}

/// Waits until the scripted server's summary count stops moving for 1.5 s (a merge built and now
/// waiting for a lock makes no more calls) and returns it.
pub fn settled_summary_calls(kb: &Kb) -> u64 {
    let mut summaries = kb.server.stats().summary;
    loop {
        std::thread::sleep(Duration::from_millis(1500));
        let now = kb.server.stats().summary;
        if now == summaries {
            return now;
        }
        summaries = now;
    }
}
