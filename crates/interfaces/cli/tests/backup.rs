//! `lightrag backup` and `lightrag restore` through the binary: a backup taken while another
//! process indexes is consistent, and restoring it gives back the knowledge base as it was.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use common::{HARBOR, Kb, LIBRARY, WHALING, path_str};
use lightrag_scripted_llm::ScriptConfig;

#[test]
fn backup_while_indexing_then_restore_gives_the_knowledge_base_back() {
    let kb = Kb::new();
    let first = kb.write_docs(&[("whaling.txt", WHALING), ("harbor.txt", HARBOR)]);
    kb.ok(&["insert", path_str(&first)]);
    let graph = kb.graph();
    let copy = kb.dir.path().join("kb-backup.db");
    let out = kb.ok(&["backup", path_str(&copy)]);
    assert!(out.contains("integrity ok"), "{out}");
    let again = kb.run(&["backup", path_str(&copy)]);
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("never overwrites"));

    // more documents, then back to the backup: refused without --force, exact with it
    let more = kb.dir_docs("more", &[("library.txt", LIBRARY)]);
    kb.ok(&["insert", path_str(&more)]);
    assert_ne!(kb.graph(), graph);
    let refused = kb.run(&["restore", path_str(&copy)]);
    assert!(!refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("--force"));
    kb.ok(&["restore", path_str(&copy), "--force"]);
    assert_eq!(kb.graph(), graph, "the knowledge base as it was at the backup");
    assert_eq!(kb.json(&["status", "--json"])["status_counts"]["processed"], 2);
    let garbage = kb.dir.path().join("garbage.db");
    std::fs::write(&garbage, b"not a database").unwrap();
    assert!(!kb.run(&["restore", path_str(&garbage), "--force"]).status.success());
    assert_eq!(kb.graph(), graph, "a refused restore changes nothing");

    // a backup taken while another process commits documents is consistent
    let slow = Kb::with_config(ScriptConfig { delay: Duration::from_millis(100), ..ScriptConfig::default() });
    let docs: Vec<(String, String)> =
        (0..6).map(|i| (format!("d{i}.txt"), format!("{WHALING} Voyage number {i} went to Nantucket."))).collect();
    let refs: Vec<(&str, &str)> = docs.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let dir = slow.write_docs(&refs);
    let mut child = slow.cmd().args(["insert", path_str(&dir)]).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let during = slow.dir.path().join("during.db");
    let out = slow.ok(&["backup", path_str(&during)]);
    assert!(out.contains("integrity ok"), "{out}");
    assert!(child.wait().unwrap().success());
}
