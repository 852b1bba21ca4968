//! Several `lightrag worker` processes on one knowledge base: documents spread over them, each is
//! processed once, and the graph holds the same entities, relations, weights and provenance as a
//! single-process build; a worker killed mid-run leaves its documents to the others.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeSet;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::server::{Server, get_json};
use common::workers::{
    corpus, finish, kb, projection, reference, refs, settled_summary_calls, spawn_worker, wait_until_processing,
};
use common::{Kb, node, path_str};
use lightrag_scripted_llm::{Fault, PromptKind, ScriptConfig};
use serde_json::Value;

#[test]
fn three_workers_share_the_documents_and_build_the_single_process_graph() {
    let docs = corpus(12);
    let expected = reference(&docs);

    let kb = kb(40);
    let dir = kb.write_docs(&refs(&docs));
    kb.ok(&["insert", "--no-wait", path_str(&dir)]);
    let workers: Vec<Child> = (0..3).map(|_| spawn_worker(&kb)).collect();
    let done: Vec<Vec<String>> = workers.into_iter().map(finish).collect();

    let all: Vec<&String> = done.iter().flatten().collect();
    let unique: BTreeSet<&String> = all.iter().copied().collect();
    assert_eq!(all.len(), docs.len(), "every document processed exactly once: {done:?}");
    assert_eq!(unique.len(), docs.len(), "{done:?}");
    let busy = done.iter().filter(|d| !d.is_empty()).count();
    assert!(busy >= 2, "the documents were spread over the workers: {done:?}");
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processed"], docs.len() as u64, "{status}");
    assert_eq!(projection(&kb.graph()), expected, "same graph as one process");
}

#[test]
fn a_killed_worker_leaves_its_documents_to_the_others() {
    let docs = corpus(8);
    let expected = reference(&docs);

    let mut kb = kb(150);
    // a short lease, so that the survivors take the victim's documents over soon
    kb.set("LEASE_SECS", "3");
    let dir = kb.write_docs(&refs(&docs));
    kb.ok(&["insert", "--no-wait", path_str(&dir)]);
    let mut victim = spawn_worker(&kb);
    // the victim claims first and holds documents when it dies
    wait_until_processing(&kb);
    let survivors: Vec<Child> = (0..2).map(|_| spawn_worker(&kb)).collect();
    victim.kill().unwrap(); // SIGKILL: no clean release
    victim.wait().unwrap();
    let done: Vec<Vec<String>> = survivors.into_iter().map(finish).collect();

    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processed"], docs.len() as u64, "every document processed: {status}");
    assert_eq!(status["status_counts"]["processing"], 0, "{status}");
    assert!(!done.iter().all(Vec::is_empty), "the survivors did the work: {done:?}");
    assert_eq!(projection(&kb.graph()), expected, "same graph as one uninterrupted process");
}

#[test]
fn sigterm_stops_a_worker_cleanly_and_another_finishes_the_job() {
    let docs = corpus(6);
    let expected = reference(&docs);

    let kb = kb(300);
    let dir = kb.write_docs(&refs(&docs));
    kb.ok(&["insert", "--no-wait", path_str(&dir)]);
    let worker =
        kb.cmd().args(["worker", "--poll-secs", "0.2"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    wait_until_processing(&kb);
    let term = std::process::Command::new("kill").args(["-TERM", &worker.id().to_string()]).status().unwrap();
    assert!(term.success());
    let out = worker.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "a stopped worker exits 0: {stderr}");
    assert!(stderr.contains("pending again"), "{stderr}");
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processing"], 0, "a clean stop leaves nothing claimed: {status}");

    finish(spawn_worker(&kb));
    assert_eq!(kb.json(&["status", "--json"])["status_counts"]["processed"], docs.len() as u64);
    assert_eq!(projection(&kb.graph()), expected);
}

/// A server and a worker on one knowledge base: the server's pipeline status shows the worker's
/// documents, and the server's cancel stops the worker's run (its documents fail as cancelled by
/// the user) while the worker itself keeps running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_status_and_cancel_reach_a_worker_in_another_process() {
    let docs = corpus(6);
    // slow answers (1.5 s each) keep documents in extraction until the cancel arrives, however
    // long the server takes to start on a loaded machine (at 400 ms every document was merged
    // before the cancel in a CI-like run with other builds going on)
    let kb = kb(1500);
    let dir = kb.write_docs(&refs(&docs));
    kb.ok(&["insert", "--no-wait", path_str(&dir)]);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    // the worker first: a server started first may claim every pending document itself (it
    // processes what is pending at start-up), leaving the worker nothing (seen under load)
    let worker =
        kb.cmd().args(["worker", "--poll-secs", "0.2"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    tokio::task::block_in_place(|| wait_until_processing(&kb));
    let server = Server::start(&kb, &[], "http", &client).await;

    let started = Instant::now();
    let status = loop {
        let status = get_json(&client, &server.url("/documents/pipeline_status")).await;
        if status["processing_elsewhere"].as_u64().unwrap_or(0) > 0 {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the worker's documents never showed: {status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(status["busy"], true, "busy while a worker processes: {status}");

    let reply = client.post(server.url("/documents/cancel_pipeline")).send().await.unwrap();
    let reply: Value = reply.json().await.unwrap();
    assert_eq!(reply["status"], "cancellation_requested", "{reply}");
    let started = Instant::now();
    let status = loop {
        let status = kb.json(&["status", "--json"]);
        if status["status_counts"]["processing"].as_u64().unwrap_or(1) == 0 {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the worker did not stop: {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let failed = status["status_counts"]["failed"].as_u64().unwrap_or(0);
    assert!(failed > 0, "documents in flight were cancelled: {status}");
    let listing = kb.ok(&["status"]);
    assert!(listing.contains("cancelled by user"), "{listing}");
    assert!(status["status_counts"]["processed"].as_u64().unwrap_or(0) < docs.len() as u64, "{status}");

    let mut worker = worker;
    assert!(worker.try_wait().unwrap().is_none(), "the worker keeps running after a cancel");
    let _ = std::process::Command::new("kill").args(["-TERM", &worker.id().to_string()]).status();
    let out = worker.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    server.stop().await;
}

/// Two workers merging an entity that every chunk names ("Senate") while summaries are slow (the
/// situation in which merges that only retried gave documents up at scale: "gave up after repeated
/// concurrent updates (entity 'Senate' …)") give no document up and keep every contribution.
/// `a_merge_waits_for_another_processs_lock_and_keeps_its_change` pins the mechanism.
#[test]
fn two_workers_merging_one_hub_entity_never_give_a_document_up() {
    let docs: Vec<(String, String)> = (0..8)
        .map(|d| {
            let text: String = (0..6)
                .map(|s| {
                    let senator = ["Adams", "Baker", "Carter", "Dalton", "Ellis", "Foster", "Garcia"][(d + s) % 7];
                    format!(
                        "Senator {senator} addressed the Senate about the harbour budget of {}. ",
                        1900 + d * 10 + s
                    )
                })
                .collect();
            (format!("hub{d:02}.txt"), text)
        })
        .collect();
    let slow_summaries = Fault::delay(700, u32::MAX).on_prompt(PromptKind::Summary);
    let mut kb = Kb::with_config(ScriptConfig { faults: vec![slow_summaries], ..ScriptConfig::default() });
    kb.set("CHUNK_SIZE", "60").set("CHUNK_OVERLAP_SIZE", "5").set("MAX_PARALLEL_INSERT", "2");
    // every merge of the hub needs a new summary
    kb.set("FORCE_LLM_SUMMARY_ON_MERGE", "2");
    let dir = kb.write_docs(&refs(&docs));
    kb.ok(&["insert", "--no-wait", path_str(&dir)]);
    let workers: Vec<Child> = (0..2).map(|_| spawn_worker(&kb)).collect();
    // `finish` fails when a worker failed a document
    let done: Vec<Vec<String>> = workers.into_iter().map(finish).collect();

    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processed"], docs.len() as u64, "every document processed: {status}");
    assert_eq!(done.iter().map(Vec::len).sum::<usize>(), docs.len(), "each once: {done:?}");
    let graph = kb.graph();
    let senate = graph["nodes"].as_array().unwrap().iter().find(|n| n["id"] == "Senate").expect("the hub entity");
    let sources = senate["source_id"].as_str().unwrap().split("<SEP>").count();
    let chunks: u64 = status["documents"].as_array().unwrap().iter().map(|d| d["chunks_count"].as_u64().unwrap()).sum();
    assert_eq!(sources as u64, chunks, "every chunk's contribution to the hub is kept");
}

/// A merge whose entity another process changed while the merge was being built is built again
/// under the merge locks, from the LLM cache only: the worker waits while another process holds
/// the lock on the entity, then keeps that process's change beside its own contribution, and
/// calls the model for no summary after the lock is released.
#[test]
fn a_merge_waits_for_another_processs_lock_and_keeps_its_change() {
    use lightrag_ports::ChangeSet;
    use lightrag_ports::prelude::*;
    let mut kb = Kb::with_config(ScriptConfig::default());
    kb.set("FORCE_LLM_SUMMARY_ON_MERGE", "2").set("LEASE_SECS", "30");
    let first = kb.write_docs(&[(
        "a.txt",
        "Senator Adams addressed the Senate about the harbour. Senator Baker praised the Senate for its work.",
    )]);
    kb.ok(&["insert", path_str(&first)]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let store = lightrag_store_sqlite::SqliteStore::open(&kb.working_dir().join("lightrag.db")).unwrap();
    let senate_key = vec!["Senate".to_string()];
    let senate = rt.block_on(store.get_entities(&senate_key)).unwrap().remove(0).expect("Senate is in the graph");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    assert!(rt.block_on(store.lock_keys("other-worker", &senate_key, now, now + 120_000)).unwrap());

    let second = kb.dir_docs(
        "second",
        &[("b.txt", "Senator Carter addressed the Senate about the budget. Senator Dalton thanked the Senate.")],
    );
    kb.ok(&["insert", "--no-wait", path_str(&second)]);
    let worker = spawn_worker(&kb);
    // extracted and built, the merge waits for the lock (its summaries are done: the count settles)
    wait_until_processing(&kb);
    let summaries = settled_summary_calls(&kb);
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["status_counts"]["processing"], 1, "the merge waits while the lock is held: {status}");
    // the other process commits its change of the entity, then releases its lock
    let mut changed = senate.clone();
    changed.description = "CHANGED ELSEWHERE".into();
    let edit = ChangeSet {
        expect_entities: vec![("Senate".into(), Some(senate.version))],
        entities: vec![changed],
        ..ChangeSet::default()
    };
    rt.block_on(store.apply(edit)).unwrap();
    rt.block_on(store.unlock_keys("other-worker", &senate_key)).unwrap();
    assert_eq!(finish(worker).len(), 1, "the document is processed");

    assert_eq!(kb.server.stats().summary, summaries, "the rebuild under the lock asked the model for no summary");
    let graph = kb.graph();
    let senate = node(&graph, "Senate").expect("Senate");
    let description = senate["description"].as_str().unwrap();
    assert!(description.contains("CHANGED ELSEWHERE"), "the other process's change is kept: {description}");
    let sources = senate["source_id"].as_str().unwrap().split("<SEP>").count();
    let status = kb.json(&["status", "--json"]);
    let chunks: u64 = status["documents"].as_array().unwrap().iter().filter_map(|d| d["chunks_count"].as_u64()).sum();
    assert_eq!(sources as u64, chunks, "and both documents' chunks support it: {senate}");
}
