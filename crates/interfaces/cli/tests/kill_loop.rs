//! The kill loop: the CLI is killed with SIGKILL at seeded random moments during indexing,
//! entity resolution (merges), deletion (of three documents, in two passes) and unmerging, many
//! times. After every kill the store must open, pass `PRAGMA integrity_check`, hold no
//! half-committed document, and the operation, run again as a user would (the same command),
//! must finish; at the end the graph must equal the one a run without kills builds.
//!
//! `LIGHTRAG_KILL_LOOP=N` sets how many kills (default 8, what CI runs; the long mode is
//! `LIGHTRAG_KILL_LOOP=100`, see BENCHMARKS.md), `LIGHTRAG_KILL_SEED=S` the seed (a failure
//! prints both).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

use common::kill::{Rng, check_after_kill, check_all_processed, corpus, doc_id, env_u64, kb};
use common::{Kb, path_str};

/// One step of the scenario, run until it completes.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// `lightrag insert` of the documents `from..to` (their own folder).
    Insert(usize, usize),
    /// `lightrag graph resolve --apply`.
    Resolve,
    /// One `lightrag delete` of the documents `doc{n}.txt`.
    Delete(&'static [usize]),
    /// `lightrag graph unmerge "Lothair II" "Lothair Ii"`.
    Unmerge,
}

const SCENARIO: [Step; 5] =
    [Step::Insert(0, 4), Step::Resolve, Step::Insert(4, 6), Step::Delete(&[2, 3, 5]), Step::Unmerge];

/// The knowledge base of the loop: a deletion of three documents (three chunks each) goes in two
/// passes, so a kill may fall between them.
fn loop_kb() -> Kb {
    let mut kb = kb();
    kb.set("DELETE_BATCH_CHUNKS", "6");
    kb
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
        Step::Delete(docs) => {
            let ids: Vec<String> = docs.iter().filter_map(|n| doc_id(kb, &format!("doc{n}.txt"))).collect();
            if ids.is_empty() {
                return None;
            }
            std::iter::once("delete".to_string()).chain(ids).collect()
        }
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
    run_to_end(kb, command(kb, docs, step))
}

/// Runs `args` (when there is something to do), which must succeed; returns how long it took.
fn run_to_end(kb: &Kb, args: Option<Vec<String>>) -> Duration {
    let started = Instant::now();
    if let Some(args) = args {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        kb.ok(&refs);
    }
    started.elapsed()
}

#[test]
fn the_cli_killed_at_random_moments_loses_nothing() {
    let kills_wanted = env_u64("LIGHTRAG_KILL_LOOP", 8);
    let seed = env_u64("LIGHTRAG_KILL_SEED", 13);
    let docs = corpus();

    // the reference: the scenario without kills, and how long each step takes
    let reference = loop_kb();
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
        let victim = loop_kb();
        for (i, &step) in SCENARIO.iter().enumerate() {
            // a deletion is asked again as it was asked first, whatever an interrupted run deleted
            let asked = matches!(step, Step::Delete(_)).then(|| command(&victim, &docs, step)).flatten();
            let args_now = || asked.clone().or_else(|| command(&victim, &docs, step));
            // up to three kills of this step at random moments within its usual duration
            for attempt in 0..3 {
                let Some(args) = args_now() else { break };
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
            run_to_end(&victim, args_now());
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
