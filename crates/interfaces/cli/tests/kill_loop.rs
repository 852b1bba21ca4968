//! The kill loop: the CLI is killed with SIGKILL at seeded random moments during indexing,
//! entity resolution (merges), deletion and unmerging, many times. After every kill the store
//! must open, pass `PRAGMA integrity_check`, hold no half-committed document, and the operation,
//! run again as a user would, must finish; at the end the graph must equal the one a run without
//! kills builds.
//!
//! `LIGHTRAG_KILL_LOOP=N` sets how many kills (default 8, what CI runs; the long mode is
//! `LIGHTRAG_KILL_LOOP=100`, see BENCHMARKS.md), `LIGHTRAG_KILL_SEED=S` the seed (a failure
//! prints both).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

use common::{Kb, path_str};
use lightrag_scripted_llm::ScriptConfig;

const PEOPLE: [&str; 8] = ["Adams", "Baker", "Carter", "Dalton", "Ellis", "Foster", "Garcia", "Hughes"];
const PLACES: [&str; 4] = ["Boston", "Denver", "Austin", "Seattle"];

/// Six documents; the first two write one king's name in two ways, which resolution merges.
fn corpus() -> Vec<(String, String)> {
    (0..6)
        .map(|d| {
            let mut text = match d {
                0 => "Lothair II ruled Lotharingia for many years. Lothair II married Teutberga of Arles. ".to_string(),
                1 => "Waldrada of Lotharingia loved Lothair Ii. Waldrada of Lotharingia bore him a son. ".to_string(),
                _ => String::new(),
            };
            for s in 0..12 {
                let a = PEOPLE[(d + s) % PEOPLE.len()];
                let b = PEOPLE[(d * 3 + s * 5 + 1) % PEOPLE.len()];
                let p = PLACES[(d + s * 3) % PLACES.len()];
                text.push_str(&format!(
                    "Senator {a} met Governor {b} in {p} about the budget of {}. ",
                    1900 + d * 20 + s
                ));
            }
            (format!("doc{d}.txt"), text)
        })
        .collect()
}

/// One step of the scenario, run until it completes.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// `lightrag insert` of the documents `from..to` (their own folder).
    Insert(usize, usize),
    /// `lightrag graph resolve --apply`.
    Resolve,
    /// `lightrag delete` of the document `doc{n}.txt`.
    Delete(usize),
    /// `lightrag graph unmerge "Lothair II" "Lothair Ii"`.
    Unmerge,
}

const SCENARIO: [Step; 5] = [Step::Insert(0, 4), Step::Resolve, Step::Insert(4, 6), Step::Delete(2), Step::Unmerge];

fn kb() -> Kb {
    let mut kb = Kb::with_config(ScriptConfig { delay: Duration::from_millis(15), ..ScriptConfig::default() });
    kb.set("CHUNK_SIZE", "80").set("CHUNK_OVERLAP_SIZE", "10").set("MAX_PARALLEL_INSERT", "2").set("MAX_ASYNC", "4");
    kb
}

fn doc_id(kb: &Kb, file: &str) -> Option<String> {
    let status = kb.json(&["status", "--json"]);
    status["documents"]
        .as_array()?
        .iter()
        .find(|d| d["file_path"] == file)
        .and_then(|d| d["id"].as_str().map(str::to_string))
}

fn is_alias(kb: &Kb) -> bool {
    let out = kb.run(&["graph", "aliases", "Lothair II"]);
    out.status.success() && String::from_utf8_lossy(&out.stdout).contains("Lothair Ii")
}

/// The folder holding the documents of an insert step.
fn docs_dir(kb: &Kb, docs: &[(String, String)], from: usize, to: usize) -> PathBuf {
    let refs: Vec<(&str, &str)> = docs[from..to].iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    kb.dir_docs(&format!("docs_{from}_{to}"), &refs)
}

/// The command of `step`, or `None` when it has nothing left to do (a deletion or unmerge that
/// completed before its process was killed).
fn command(kb: &Kb, docs: &[(String, String)], step: Step) -> Option<Vec<String>> {
    let args: Vec<String> = match step {
        Step::Insert(from, to) => vec!["insert".into(), path_str(&docs_dir(kb, docs, from, to)).into()],
        Step::Resolve => vec!["graph".into(), "resolve".into(), "--apply".into()],
        Step::Delete(n) => vec!["delete".into(), doc_id(kb, &format!("doc{n}.txt"))?],
        Step::Unmerge => {
            if !is_alias(kb) {
                return None;
            }
            vec!["graph".into(), "unmerge".into(), "Lothair II".into(), "Lothair Ii".into()]
        }
    };
    Some(args)
}

fn spawn(kb: &Kb, args: &[String]) -> Child {
    kb.cmd().args(args).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap()
}

/// Runs `step` to completion and returns how long it took.
fn complete(kb: &Kb, docs: &[(String, String)], step: Step) -> Duration {
    let started = Instant::now();
    if let Some(args) = command(kb, docs, step) {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        kb.ok(&refs);
    }
    started.elapsed()
}

fn store_path(kb: &Kb) -> PathBuf {
    kb.working_dir().join("lightrag.db")
}

/// What must hold after any kill: the store passes SQLite's integrity check, opens, and every
/// document is either committed whole (processed, with all its chunks) or not at all.
fn check_after_kill(kb: &Kb, context: &str) {
    let path = store_path(kb);
    if !path.exists() {
        return; // killed before the store was created
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok", "{context}: integrity_check");
    let half: i64 = conn
        .query_row(
            "SELECT count(*) FROM chunks c LEFT JOIN doc_status d ON d.id = c.doc_id \
             WHERE d.status IS NULL OR d.status != 'processed'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(half, 0, "{context}: chunks of a document that is not processed");
    let short: i64 = conn
        .query_row(
            "SELECT count(*) FROM doc_status d WHERE d.status = 'processed' \
             AND d.chunks_count != (SELECT count(*) FROM chunks c WHERE c.doc_id = d.id)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(short, 0, "{context}: a processed document without all its chunks");
    drop(conn);
    let out = kb.run(&["status", "--json"]);
    assert!(out.status.success(), "{context}: the store does not open: {}", String::from_utf8_lossy(&out.stderr));
}

/// Every document ends processed: none pending or processing, and the only failed records are
/// the `dup-` records of files a re-run found indexed already (LightRAG records those too).
fn check_all_processed(kb: &Kb, context: &str) {
    let status = kb.json(&["status", "--json"]);
    for doc in status["documents"].as_array().unwrap() {
        let id = doc["id"].as_str().unwrap();
        let expected = if id.starts_with("dup-") { "failed" } else { "processed" };
        assert_eq!(doc["status"], expected, "{context}: {doc}");
    }
    let counts = &status["status_counts"];
    for state in ["pending", "processing"] {
        assert_eq!(counts[state].as_u64().unwrap_or(0), 0, "{context}: {state} documents: {counts}");
    }
}

/// SplitMix64: a seeded, reproducible sequence of kill moments.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn the_cli_killed_at_random_moments_loses_nothing() {
    let kills_wanted = env_u64("LIGHTRAG_KILL_LOOP", 8);
    let seed = env_u64("LIGHTRAG_KILL_SEED", 13);
    let docs = corpus();

    // the reference: the scenario without kills, and how long each step takes
    let reference = kb();
    let mut durations = Vec::new();
    for step in SCENARIO {
        durations.push(complete(&reference, &docs, step));
        if matches!(step, Step::Resolve) {
            assert!(is_alias(&reference), "the scenario merges Lothair Ii into Lothair II");
        }
    }
    let expected = reference.graph();
    assert!(expected["nodes"].as_array().unwrap().len() > 10, "{expected}");
    eprintln!("kill loop: the steps take {durations:?} without kills");

    let mut rng = Rng(seed);
    let (mut kills, mut rounds) = (0u64, 0u64);
    while kills < kills_wanted {
        rounds += 1;
        let victim = kb();
        for (i, &step) in SCENARIO.iter().enumerate() {
            // up to three kills of this step at random moments within its usual duration
            for attempt in 0..3 {
                let Some(args) = command(&victim, &docs, step) else { break };
                let window = durations[i].as_millis().max(50) as u64 * 12 / 10;
                let delay = Duration::from_millis(rng.next_u64() % window);
                let mut child = spawn(&victim, &args);
                std::thread::sleep(delay);
                let context = format!(
                    "seed {seed}, round {rounds}, {step:?}, attempt {attempt}, killed after {delay:?} \
                     (LIGHTRAG_KILL_SEED={seed} LIGHTRAG_KILL_LOOP={kills_wanted})"
                );
                if child.try_wait().unwrap().is_none() {
                    child.kill().unwrap(); // SIGKILL
                    kills += 1;
                }
                child.wait().unwrap();
                check_after_kill(&victim, &context);
            }
            complete(&victim, &docs, step);
            check_all_processed(&victim, &format!("seed {seed}, round {rounds}, after {step:?}"));
        }
        assert_eq!(victim.graph(), expected, "seed {seed}, round {rounds}: the graph differs from a run without kills");
    }
    eprintln!("kill loop: {kills} kills in {rounds} rounds (seed {seed}), no loss");
}

/// The store's fail points: the process crashes (or the commit fails) between any two steps of
/// a document's commit; the store stays whole, and running the insert again ends with the graph
/// of a run without faults.
#[test]
fn a_crash_or_error_between_any_two_steps_of_a_commit_loses_nothing() {
    let docs = &corpus()[..2];
    let reference = kb();
    complete(&reference, docs, Step::Insert(0, 2));
    let expected = reference.graph();

    for step in lightrag_store_sqlite::failpoint::APPLY_STEPS {
        for action in ["1*return(crash)", "1*return"] {
            let victim = kb();
            let dir = docs_dir(&victim, docs, 0, 2);
            let armed = format!("sqlite::apply::{step}={action}");
            let out = victim.cmd().env("FAILPOINTS", &armed).args(["insert", path_str(&dir)]).output().unwrap();
            assert!(!out.status.success(), "{armed}: the fault did not stop the insert");
            if action == "1*return" {
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(stderr.contains("fail point"), "{armed}: the error is reported: {stderr}");
            }
            check_after_kill(&victim, &armed);
            complete(&victim, docs, Step::Insert(0, 2));
            check_all_processed(&victim, &armed);
            assert_eq!(victim.graph(), expected, "{armed}: the graph differs from a run without faults");
        }
    }
}
