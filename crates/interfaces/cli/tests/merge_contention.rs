//! What keeps a busy record's summary from being made twice when processes merge it at once
//! (`lightrag_engine::indexing::merge` summary claims and rebasing): a process that finds the record's
//! summary claimed by another appends its fragments instead of summarising, and a merge rebuilt
//! after a conflict keeps the summary its first build made when the other process only appended.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::workers::{finish, settled_summary_calls, spawn_worker, wait_until_processing};
use common::{Kb, path_str};
use lightrag_engine::indexing::merge::summary_claim_key;
use lightrag_engine::prompts::SummaryKind;
use lightrag_ports::prelude::*;
use lightrag_ports::{ChangeSet, GRAPH_FIELD_SEP};
use lightrag_scripted_llm::ScriptConfig;
use lightrag_store_sqlite::SqliteStore;

const FIRST: &str =
    "Senator Adams addressed the Senate about the harbour. Senator Baker praised the Senate for its work.";
const SECOND: &str = "Senator Carter addressed the Senate about the budget. Senator Dalton thanked the Senate.";
const THIRD: &str = "Senator Ellis asked the Senate for a vote. Senator Foster opposed the Senate resolution.";

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

/// Every merge that adds a description to "Senate" needs a summary.
fn kb() -> Kb {
    let mut kb = Kb::with_config(ScriptConfig::default());
    kb.set("FORCE_LLM_SUMMARY_ON_MERGE", "2").set("LEASE_SECS", "30");
    kb
}

fn senate_fragments(rt: &tokio::runtime::Runtime, store: &SqliteStore) -> Vec<String> {
    let senate = rt.block_on(store.get_entities(&["Senate".to_string()])).unwrap().remove(0).expect("Senate");
    senate.description.split(GRAPH_FIELD_SEP).map(str::to_string).collect()
}

#[test]
fn a_process_that_finds_a_summary_claimed_appends_instead_of_summarising() {
    let kb = kb();
    let first = kb.dir_docs("first", &[("a.txt", FIRST)]);
    kb.ok(&["insert", path_str(&first)]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let store = SqliteStore::open(&kb.working_dir().join("lightrag.db")).unwrap();
    let before = senate_fragments(&rt, &store);
    assert_eq!(before.len(), 1, "one description of the Senate after the first document: {before:?}");

    // another process is summarising the Senate
    let claim = vec![summary_claim_key(SummaryKind::Entity, "Senate")];
    assert!(rt.block_on(store.lock_keys("other-worker", &claim, now_ms(), now_ms() + 120_000)).unwrap());
    let second = kb.dir_docs("second", &[("b.txt", SECOND)]);
    kb.ok(&["insert", path_str(&second)]);
    let joined = senate_fragments(&rt, &store);
    assert_eq!(joined.len(), 2, "the second document's description is appended, not summarised: {joined:?}");
    assert_eq!(joined[0], before[0]);

    // the claim released, the next merge summarises
    rt.block_on(store.unlock_keys("other-worker", &claim)).unwrap();
    let third = kb.dir_docs("third", &[("c.txt", THIRD)]);
    kb.ok(&["insert", path_str(&third)]);
    let summarised = senate_fragments(&rt, &store);
    assert_eq!(summarised.len(), 1, "summarised once the claim is free: {summarised:?}");
    assert!(!joined.contains(&summarised[0]), "a new summary: {summarised:?}");
}

#[test]
fn a_summary_made_before_the_merge_lock_is_kept_when_another_process_only_appended() {
    let kb = kb();
    let first = kb.dir_docs("first", &[("a.txt", FIRST)]);
    kb.ok(&["insert", path_str(&first)]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let store = SqliteStore::open(&kb.working_dir().join("lightrag.db")).unwrap();
    let key = vec!["Senate".to_string()];
    let senate = rt.block_on(store.get_entities(&key)).unwrap().remove(0).expect("Senate");
    let before = senate_fragments(&rt, &store);
    assert!(rt.block_on(store.lock_keys("other-worker", &key, now_ms(), now_ms() + 120_000)).unwrap());

    let summaries_before = kb.server.stats().summary;
    let second = kb.dir_docs("second", &[("b.txt", SECOND)]);
    kb.ok(&["insert", "--no-wait", path_str(&second)]);
    let worker = spawn_worker(&kb);
    // built (with the Senate's summary), the merge waits for the lock: the count settles
    wait_until_processing(&kb);
    let summaries = settled_summary_calls(&kb);
    assert!(summaries > summaries_before, "the first build summarised the Senate");
    // the other process appends a description of its own, then releases its lock
    let mut appended = senate.clone();
    appended.description = format!("{}{GRAPH_FIELD_SEP}APPENDED ELSEWHERE", senate.description);
    let edit = ChangeSet {
        expect_entities: vec![("Senate".into(), Some(senate.version))],
        entities: vec![appended],
        ..ChangeSet::default()
    };
    rt.block_on(store.apply(edit)).unwrap();
    rt.block_on(store.unlock_keys("other-worker", &key)).unwrap();
    assert_eq!(finish(worker).len(), 1, "the document is processed");

    assert_eq!(kb.server.stats().summary, summaries, "the rebuild under the lock asked the model for no summary");
    let after = senate_fragments(&rt, &store);
    assert_eq!(after.len(), 2, "the first build's summary, then the appended description: {after:?}");
    assert_eq!(after[1], "APPENDED ELSEWHERE");
    assert!(!before.contains(&after[0]), "the first fragment is the new summary, not the old description: {after:?}");
}
