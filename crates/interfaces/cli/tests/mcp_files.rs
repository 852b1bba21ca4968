//! `insert_file` of `lightrag mcp` (issue 26, item 9): it read any path the client named, so a
//! prompt-injected agent indexed `/proc/self/environ` (the API keys, then sent to the LLM and
//! readable through `resources/read`) and `/dev/zero` read until memory ran out. Now only regular
//! files under `MCP_FILES_ROOT`, of at most `MAX_UPLOAD_SIZE` bytes, are read; `/proc`, `/sys` and
//! `/dev` never; and errors never show the server's absolute paths.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use crate::common::Kb;
use crate::mcp::Client;

const NOTE: &str = "Ishmael sailed from Nantucket on the Pequod.";

/// Every refusal is a tool error naming the path as the client wrote it or relative to the root,
/// never the server's folders; and nothing is stored.
#[test]
fn insert_file_reads_only_regular_files_under_the_root_within_the_size_limit() {
    let mut kb = Kb::new();
    let docs = kb.write_docs(&[("note.txt", NOTE), ("big.txt", &"x".repeat(300))]);
    std::fs::write(kb.dir.path().join("outside.txt"), "TOKEN_SECRET=hunter2").unwrap();
    std::os::unix::fs::symlink(kb.dir.path().join("outside.txt"), docs.join("link.txt")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", docs.join("environ")).unwrap();
    std::fs::create_dir(docs.join("folder")).unwrap();
    kb.set("MCP_FILES_ROOT", docs.to_str().unwrap()).set("MAX_UPLOAD_SIZE", "200");
    let server_dir = kb.dir.path().to_str().unwrap().to_string();
    let mut client = Client::start(kb.cmd());
    client.initialize();

    for (path, expected) in [
        ("/proc/self/environ", "outside"),
        ("/dev/zero", "outside"),
        ("/sys/kernel/mm/transparent_hugepage/enabled", "outside"),
        ("../outside.txt", "outside"),
        ("link.txt", "outside"),
        ("environ", "outside"),
        ("folder", "not a regular file"),
        ("big.txt", "MAX_UPLOAD_SIZE (200 bytes)"),
        ("missing.txt", "no such file"),
    ] {
        let refused = client.call_err("insert_file", json!({"path": path}));
        assert!(refused.contains(expected), "{path}: {refused}");
        assert!(!refused.contains(&server_dir), "{path}: the error shows the server's folder: {refused}");
    }
    let listed = client.call_ok("list_documents", json!({}));
    assert_eq!(listed["total"], 0, "a refused file was stored: {listed}");

    // a file under the root is read, by a path relative to it or an absolute one
    let inserted = client.call_ok("insert_file", json!({"path": "note.txt"}));
    let done = client.wait_for_track(inserted["track_id"].as_str().unwrap());
    assert_eq!(done["documents"][0]["file_path"], "note.txt", "{done}");
    assert_eq!(done["documents"][0]["status"], "processed", "{done}");
    let again = client.call_err("insert_file", json!({"path": docs.join("note.txt").to_str().unwrap()}));
    assert!(again.contains("already contains 'note.txt' with the same content"), "{again}");
    assert!(client.close());
}

/// `/proc`, `/sys` and `/dev` stay refused even when the root is `/`.
#[test]
fn insert_file_refuses_system_folders_whatever_the_root() {
    let mut kb = Kb::new();
    kb.set("MCP_FILES_ROOT", "/");
    let mut client = Client::start(kb.cmd());
    client.initialize();
    for path in ["/proc/self/environ", "proc/self/environ", "/dev/zero", "/sys/kernel/mm/transparent_hugepage/enabled"]
    {
        let refused = client.call_err("insert_file", json!({"path": path}));
        assert!(refused.contains("outside"), "{path}: {refused}");
    }
    let listed = client.call_ok("list_documents", json!({}));
    assert_eq!(listed["total"], 0, "a system file was stored: {listed}");
    assert!(client.close());
}

/// A root that does not exist stops `lightrag mcp` at start-up, naming the setting.
#[test]
fn a_missing_files_root_is_refused_at_start_up() {
    let mut kb = Kb::new();
    kb.set("MCP_FILES_ROOT", "/no/such/folder");
    let out = kb.run(&["mcp"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("MCP_FILES_ROOT"), "{stderr}");
}
