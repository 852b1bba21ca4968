//! `lightrag reembed`: every vector is embedded again with another model and dimension without a
//! chat call, queries keep working on the old vectors until the switch, a SIGKILL midway loses
//! nothing (the next run resumes), and `REEMBED_ON_MODEL_CHANGE=true` does it at start-up.

use std::process::Command;
use std::time::{Duration, Instant};

use lightrag_scripted_llm::ScriptConfig;

use crate::common::pg::{database_url, unique};
use crate::common::{Kb, path_str};

const DOCS: [(&str, &str); 3] = [
    ("harbor.txt", "Senator Adams met Governor Baker in Boston about the harbor budget. Baker praised Adams."),
    ("rail.txt", "Mayor Carter opened the Denver rail line with Engineer Dalton. Dalton built the bridge."),
    ("school.txt", "Teacher Ellis founded the Austin school. Principal Foster hired Ellis in Austin."),
];

/// A knowledge base of dimension 64 over a slow scripted server (a re-embedding lasts long enough
/// to be killed midway); the embedding dimension is sent, so the server answers any dimension.
fn kb() -> Kb {
    kb_with(&[])
}

fn kb_with(settings: &[(&str, &str)]) -> Kb {
    let mut kb = Kb::with_config(ScriptConfig { delay: Duration::from_millis(40), ..ScriptConfig::default() });
    kb.set("EMBEDDING_SEND_DIM", "true").set("CHUNK_SIZE", "40").set("CHUNK_OVERLAP_SIZE", "5");
    for (k, v) in settings {
        kb.set(k, v);
    }
    let dir = kb.write_docs(&DOCS);
    kb.ok(&["insert", path_str(&dir)]);
    kb
}

/// `lightrag` configured with the new model (as after editing the configuration).
fn with_new_model(kb: &Kb) -> Command {
    let mut cmd = kb.cmd();
    cmd.env("EMBEDDING_MODEL", "scripted-small").env("EMBEDDING_DIM", "32");
    cmd
}

fn db(kb: &Kb) -> rusqlite::Connection {
    rusqlite::Connection::open(kb.working_dir().join("lightrag.db")).unwrap()
}

fn meta(kb: &Kb, key: &str) -> Option<String> {
    db(kb).query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).ok()
}

/// Number of vectors, and how many have `bytes` bytes.
fn vectors_of_size(kb: &Kb, bytes: usize) -> (i64, i64) {
    db(kb)
        .query_row("SELECT count(*), coalesce(sum(length(vector) = ?1), 0) FROM vectors", [bytes as i64], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap()
}

fn staged(kb: &Kb) -> i64 {
    db(kb).query_row("SELECT count(*) FROM vectors_next", [], |r| r.get(0)).unwrap_or(0)
}

fn naive_context(mut cmd: Command) -> String {
    let out = cmd.args(["query", "--mode", "naive", "--only-context", "harbor budget in Boston"]).output().unwrap();
    assert!(out.status.success(), "query failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn chat_calls(kb: &Kb) -> u64 {
    let s = kb.server.stats();
    s.extract + s.glean + s.summary + s.keywords + s.judge + s.answer
}

#[test]
fn reembed_switches_every_vector_to_the_new_model_without_a_chat_call_and_resumes_after_a_kill() {
    let kb = kb();
    let (total, old_size) = vectors_of_size(&kb, 64 * 4);
    assert!(total >= 10, "the knowledge base has vectors of every kind ({total})");
    assert_eq!(old_size, total, "built with dimension 64");
    kb.server.reset_stats();

    // the new model configured but not re-embedded yet: refused, with what to do
    let refused = with_new_model(&kb).args(["status"]).output().unwrap();
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("lightrag reembed") && err.contains("REEMBED_ON_MODEL_CHANGE"), "{err}");

    // one vector per call, one call at a time: killed once a few are staged
    let mut child = kb
        .cmd()
        .args(["reembed", "--model", "scripted-small", "--dim", "32"])
        .env("EMBEDDING_BATCH_NUM", "1")
        .env("EMBEDDING_FUNC_MAX_ASYNC", "1")
        .spawn()
        .unwrap();
    let started = Instant::now();
    while staged(&kb) < 3 && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(child.try_wait().unwrap().is_none(), "the re-embedding was still running when killed");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let kept = staged(&kb);
    assert!(kept >= 3 && kept < total, "part of the vectors staged ({kept} of {total})");

    // nothing switched: the old model still serves queries on the old vectors
    assert_eq!(meta(&kb, "embedding_model").as_deref(), Some("scripted"));
    assert_eq!(vectors_of_size(&kb, 64 * 4), (total, total));
    assert!(naive_context(kb.cmd()).contains("harbor"), "the old vectors answer a query");

    // run again: resumes, switches
    let report = kb.json(&["reembed", "--model", "scripted-small", "--dim", "32", "--json"]);
    assert_eq!(report["switched"].as_i64(), Some(total), "{report}");
    assert!(report["resumed"].as_i64().unwrap() >= kept, "what was staged is kept: {report}");
    assert_eq!(report["resumed"].as_i64().unwrap() + report["embedded"].as_i64().unwrap(), total, "{report}");
    assert_eq!(chat_calls(&kb), 0, "no chat call during the re-embedding");
    assert!(kb.server.stats().embed > 0);

    assert_eq!(vectors_of_size(&kb, 32 * 4), (total, total), "every vector has the new dimension");
    assert_eq!(meta(&kb, "embedding_model").as_deref(), Some("scripted-small"));
    assert_eq!(meta(&kb, "vector_dim").as_deref(), Some("32"));
    assert_eq!(staged(&kb), 0, "the staging is emptied by the switch");
    assert!(naive_context(with_new_model(&kb)).contains("harbor"), "the new vectors answer a query");
    let check = with_new_model(&kb).args(["check"]).output().unwrap();
    assert!(check.status.success(), "check after the switch: {}", String::from_utf8_lossy(&check.stdout));
    let old = kb.run(&["status"]);
    assert!(!old.status.success(), "the old model is refused now");
}

#[test]
fn reembed_on_model_change_re_embeds_at_start_up_instead_of_refusing() {
    let kb = kb();
    let (total, _) = vectors_of_size(&kb, 64 * 4);
    kb.server.reset_stats();
    let out = with_new_model(&kb).env("REEMBED_ON_MODEL_CHANGE", "true").args(["status"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(vectors_of_size(&kb, 32 * 4), (total, total));
    assert_eq!(meta(&kb, "embedding_model").as_deref(), Some("scripted-small"));
    assert_eq!(chat_calls(&kb), 0);
}

#[test]
fn reembed_on_postgres_switches_every_vector_of_the_workspace() {
    let kb = kb_with(&[("DATABASE_URL", &database_url()), ("POSTGRES_WORKSPACE", &unique("cli_reembed"))]);
    let before = kb.json(&["check", "--json"]);
    let total: i64 = before["checked"]["vectors"].as_object().unwrap().values().map(|v| v.as_i64().unwrap()).sum();
    assert!(total >= 10, "{before}");
    kb.server.reset_stats();
    let report = kb.json(&["reembed", "--model", "scripted-small", "--dim", "32", "--json"]);
    assert_eq!(report["switched"].as_i64(), Some(total), "{report}");
    assert_eq!(chat_calls(&kb), 0, "no chat call during the re-embedding");
    let check = with_new_model(&kb).args(["check", "--json"]).output().unwrap();
    let after: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert!(check.status.success() && after["clean"] == true, "no vector of another dimension is left: {after}");
    assert!(naive_context(with_new_model(&kb)).contains("harbor"), "the new vectors answer a query");
    assert!(!kb.run(&["status"]).status.success(), "the old model is refused now");
}
