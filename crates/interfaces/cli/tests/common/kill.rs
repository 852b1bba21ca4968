//! Shared by the kill loops (`kill_loop`, `server_kill_loop`, `disk_full`): the corpus, the
//! knowledge base's settings, the checks that must hold after any kill, and a seeded generator of
//! kill moments.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use lightrag_scripted_llm::ScriptConfig;

use super::Kb;

const PEOPLE: [&str; 8] = ["Adams", "Baker", "Carter", "Dalton", "Ellis", "Foster", "Garcia", "Hughes"];
const PLACES: [&str; 4] = ["Boston", "Denver", "Austin", "Seattle"];

/// Six documents; the first two write one king's name in two ways, which resolution merges.
pub fn corpus() -> Vec<(String, String)> {
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

/// A knowledge base over a slightly slow scripted LLM, cutting small chunks: a step lasts long
/// enough to be killed in the middle.
pub fn kb() -> Kb {
    let mut kb = Kb::with_config(ScriptConfig { delay: Duration::from_millis(15), ..ScriptConfig::default() });
    kb.set("CHUNK_SIZE", "80").set("CHUNK_OVERLAP_SIZE", "10").set("MAX_PARALLEL_INSERT", "2").set("MAX_ASYNC", "4");
    kb
}

/// The id of the document stored from `file`, if any.
pub fn doc_id(kb: &Kb, file: &str) -> Option<String> {
    kb.doc_id(file)
}

/// The SQLite file of the knowledge base.
pub fn store_path(kb: &Kb) -> PathBuf {
    kb.working_dir().join("lightrag.db")
}

/// What must hold after any kill: the store passes SQLite's integrity check, opens, and every
/// document is either committed whole (processed, with all its chunks) or not at all.
pub fn check_after_kill(kb: &Kb, context: &str) {
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
pub fn check_all_processed(kb: &Kb, context: &str) {
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
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A number from the environment (the loop's knobs), else `default`.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
