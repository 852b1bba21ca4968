//! Quotas through the real binary (issue 30): `lightrag insert` of a folder that would take the
//! knowledge base over `QUOTA_MAX_DOCUMENTS` fails with a message naming the quota, stores none of
//! its documents, and leaves a store that `lightrag check` finds consistent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Kb, path_str};

#[test]
fn an_insert_over_the_document_quota_stores_nothing_and_says_which_quota() {
    let mut kb = Kb::new();
    kb.set("QUOTA_MAX_DOCUMENTS", "2");
    let three = kb.dir_docs(
        "three",
        &[
            ("a.txt", "Alice Smith works at Acme Corporation in Berlin."),
            ("b.txt", "Bob Jones leads the Zenith Laboratory in Oslo."),
            ("c.txt", "Carol Diaz founded Delta Works in Lyon."),
        ],
    );
    let out = kb.run(&["insert", path_str(&three)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "an insert over quota must fail");
    assert!(stderr.contains("QUOTA_MAX_DOCUMENTS") && stderr.contains("limit of 2"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["documents"].as_array().map(Vec::len), Some(0), "nothing stored: {status}");
    kb.ok(&["check"]);
    // within the quota the same folder's first two documents go in
    let two = kb.dir_docs(
        "two",
        &[
            ("a.txt", "Alice Smith works at Acme Corporation in Berlin."),
            ("b.txt", "Bob Jones leads the Zenith Laboratory in Oslo."),
        ],
    );
    kb.ok(&["insert", path_str(&two)]);
    let status = kb.json(&["status", "--json"]);
    assert_eq!(status["documents"].as_array().map(Vec::len), Some(2), "{status}");
    assert_eq!(status["quotas"]["documents"], serde_json::json!({"used": 2, "limit": 2}), "{status}");
    assert!(kb.ok(&["status"]).contains("quotas: documents 2 of 2"));
    kb.ok(&["check"]);
}
