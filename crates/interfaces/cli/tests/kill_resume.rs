//! A process killed with SIGKILL in the middle of indexing resumes to exactly the graph an
//! uninterrupted run gives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::{Kb, path_str};
use lightrag_scripted_llm::ScriptConfig;

const NAMES: [&str; 12] = [
    "Adams", "Baker", "Carter", "Dalton", "Ellis", "Foster", "Garcia", "Hughes", "Irving", "Jensen", "Keller", "Lopez",
];
const PLACES: [&str; 6] = ["Boston", "Denver", "Austin", "Seattle", "Portland", "Chicago"];

fn corpus() -> Vec<(String, String)> {
    (0..8)
        .map(|d| {
            let mut text = String::new();
            for s in 0..30 {
                let a = NAMES[(d + s) % NAMES.len()];
                let b = NAMES[(d * 3 + s * 5 + 1) % NAMES.len()];
                let p = PLACES[(d + s * 7) % PLACES.len()];
                text.push_str(&format!(
                    "Senator {a} met Governor {b} in {p} to discuss the harbor budget for year {}. ",
                    1900 + d * 10 + s
                ));
            }
            (format!("doc{d}.txt"), text)
        })
        .collect()
}

fn kb(delay_ms: u64) -> Kb {
    let mut kb = Kb::with_config(ScriptConfig { delay: Duration::from_millis(delay_ms), ..ScriptConfig::default() });
    kb.set("CHUNK_SIZE", "120").set("CHUNK_OVERLAP_SIZE", "10").set("MAX_PARALLEL_INSERT", "2").set("MAX_ASYNC", "4");
    kb
}

/// The graph of an uninterrupted `lightrag insert` of `docs`.
fn uninterrupted_graph(docs: &[(&str, &str)]) -> serde_json::Value {
    let reference = kb(0);
    let dir = reference.write_docs(docs);
    reference.ok(&["insert", path_str(&dir)]);
    reference.graph()
}

/// Starts `lightrag insert DIR` on `kb` and returns once at least one document is processed.
fn insert_until_one_is_processed(kb: &Kb, dir: &std::path::Path) -> std::process::Child {
    let mut child = kb.cmd().args(["insert", path_str(dir)]).spawn().unwrap();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(100));
        let out = kb.run(&["status", "--json"]);
        if out.status.success() {
            let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            if status["status_counts"]["processed"].as_u64().unwrap_or(0) >= 1 {
                return child;
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("indexing made no progress");
}

#[test]
fn sigkill_during_indexing_then_process_equals_an_uninterrupted_run() {
    let docs = corpus();
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();

    let expected = uninterrupted_graph(&refs);
    assert!(expected["nodes"].as_array().unwrap().len() > 10);

    let victim = kb(300);
    let dir = victim.write_docs(&refs);
    // kill once some, but not all, documents are committed
    let mut child = insert_until_one_is_processed(&victim, &dir);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let status = victim.json(&["status", "--json"]);
    let processed = status["status_counts"]["processed"].as_u64().unwrap();
    assert!(processed < docs.len() as u64, "indexing finished before the kill; slow the server down");
    assert!(status["status_counts"]["processing"].as_u64().unwrap() > 0, "some documents were interrupted: {status}");

    victim.ok(&["process"]);
    let status = victim.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processed"], docs.len() as u64, "{status}");
    assert_eq!(victim.graph(), expected, "resumed graph equals the uninterrupted one");
}

#[test]
fn ctrl_c_stops_between_chunks_and_process_finishes_the_job() {
    let docs = corpus();
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let expected = uninterrupted_graph(&refs);

    let kb = kb(300);
    let dir = kb.write_docs(&refs);
    let child = kb
        .cmd()
        .args(["insert", path_str(&dir)])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let status = kb.json(&["status", "--json"]);
        if status["status_counts"]["processed"].as_u64().unwrap_or(0) >= 1 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "indexing made no progress");
    }
    let interrupted = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(interrupted.success());
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "an interrupted insert exits non-zero");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("lightrag process"), "tells the user how to resume: {stderr}");
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processing"], 0, "nothing is left claimed after a clean stop: {status}");
    assert!(status["status_counts"]["processed"].as_u64().unwrap() < docs.len() as u64, "stopped early: {status}");

    kb.ok(&["process"]);
    assert_eq!(kb.json(&["status", "--json"])["status_counts"]["processed"], docs.len() as u64);
    assert_eq!(kb.graph(), expected);
}

/// Regression: running the same `lightrag insert DIR` again after a crash recorded a failed
/// `dup-` document for every file still pending or processing (60 "failed" after three re-runs
/// of 30 files). A re-run resumes them and says so.
#[test]
fn rerunning_an_interrupted_insert_resumes_instead_of_failing_duplicates() {
    let docs = corpus();
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let expected = uninterrupted_graph(&refs);

    let victim = kb(300);
    let dir = victim.write_docs(&refs);
    let mut child = insert_until_one_is_processed(&victim, &dir);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let status = victim.json(&["status", "--json"]);
    let unfinished = docs.len() as u64 - status["status_counts"]["processed"].as_u64().unwrap();
    assert!(unfinished > 0, "{status}");

    // what a user does: the same command again, twice
    for run in 0..2 {
        let out = victim.cmd().args(["insert", path_str(&dir)]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "run {run}: {stderr}");
        if run == 0 {
            assert_eq!(stderr.matches("resuming doc-").count() as u64, unfinished, "{stderr}");
        }
        let status = victim.json(&["status", "--json"]);
        assert_eq!(status["status_counts"]["processed"], docs.len() as u64, "{status}");
        // the files indexed already are refused as the same content: nothing is recorded for them
        // (as a REST upload of the same file), so nothing is failed
        let failed = status["status_counts"]["failed"].as_u64().unwrap_or(0);
        assert_eq!(failed, 0, "{status}");
    }
    assert_eq!(victim.graph(), expected, "resumed graph equals the uninterrupted one");
}

/// Regression: with output piped (CI logs, `| tee`) `insert` printed nothing until indexing was
/// over — eight minutes of silence for the demo. Off a terminal it prints plain progress lines.
#[test]
fn piped_indexing_prints_progress_lines() {
    let docs = corpus();
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let kb = kb(0);
    let dir = kb.write_docs(&refs);
    let out = kb.run(&["insert", path_str(&dir)]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("indexing [")).collect();
    assert!(lines.len() >= 2, "a line when indexing starts and one at the end: {stderr}");
    let last = lines.last().unwrap();
    assert!(last.contains(&format!("{n}/{n} docs", n = docs.len())) && last.contains("LLM calls"), "{last}");
    assert!(!stderr.contains('\r') && !stderr.contains("\u{1b}["), "no terminal control codes in a log: {stderr:?}");
}
