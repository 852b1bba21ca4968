//! `lightrag import-lightrag` through the real binary, on the LightRAG 1.5.7 fixtures: the dry
//! run, the import, a second run, queries and a deletion afterwards, workspace folders, errors,
//! and the local MiniLM embedder (another dimension: every vector made again).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::Kb;

fn fixture(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tools/lightrag-import/tests/fixtures/lightrag-1.5.7")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

fn stderr_of(kb: &Kb, args: &[&str]) -> String {
    let out = kb.run(args);
    assert!(!out.status.success(), "{args:?} should fail:\n{}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn import_lightrag_brings_a_working_directory_over_and_a_second_run_changes_nothing() {
    let kb = Kb::new();
    let basic = fixture("basic");

    let help = kb.ok(&["import-lightrag", "--help"]);
    for word in ["--check", "--from-workspace", "--json", "docs/lightrag-import.md"] {
        assert!(help.contains(word), "help lacks {word}:\n{help}");
    }

    let check = kb.ok(&["import-lightrag", &basic, "--check"]);
    assert!(check.contains("documents:   4 found: 4 indexed"), "{check}");
    assert!(check.contains("reproduces LightRAG's vectors"), "{check}");
    assert!(check.contains("not imported: nothing"), "{check}");
    assert_eq!(kb.json(&["status", "--json"])["documents"].as_array().unwrap().len(), 0, "--check writes nothing");

    let out = kb.ok(&["import-lightrag", &basic]);
    assert!(out.contains("4 imported, 0 already present"), "{out}");
    assert!(out.contains("LLM cache:   extract 10 (10 reused, 0 kept), keywords 20 (20 reused, 0 kept)"), "{out}");
    let status = kb.json(&["status", "--json"]);
    let docs = status["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 4);
    assert!(docs.iter().all(|d| d["status"] == "processed" && d["track_id"].as_str().unwrap().starts_with("insert_")));
    let stats = kb.json(&["graph", "stats", "--json"]);
    assert_eq!((stats["nodes"].as_u64(), stats["edges"].as_u64()), (Some(40), Some(48)), "{stats}");

    let again = kb.json(&["import-lightrag", &basic, "--json"]);
    assert_eq!(again["documents"]["imported"], 0, "{again}");
    assert_eq!(again["documents"]["already_present"], 4);
    assert_eq!(again["complete"], true);

    // queries use LightRAG's keyword answers; the deletion rebuilds from the recovered records
    let answer = kb.json(&["query", "--mode", "local", "--json", "Who is Marina Castell and what does she lead?"]);
    let entities = answer["data"]["entities"].as_array().unwrap();
    assert!(entities.iter().any(|e| e["entity_name"] == "Marina Castell"), "{answer}");
    let deleted = kb.json(&["delete", "doc-56546e07ae5570403066e3d1c4f218c9", "--json"]);
    assert_eq!(deleted["deleted"][0]["file_path"], "river_survey.txt", "{deleted}");
    let stats = kb.json(&["graph", "stats", "--json"]);
    assert_eq!((stats["nodes"].as_u64(), stats["edges"].as_u64()), (Some(37), Some(38)), "{stats}");
    let calls = kb.server.stats();
    assert_eq!((calls.keywords, calls.extract, calls.glean, calls.summary), (0, 0, 0, 0), "{calls:?}");
}

#[test]
fn import_lightrag_finds_workspace_folders_and_explains_what_is_wrong() {
    let kb = Kb::new();
    let root = fixture("workspace");
    let err = stderr_of(&kb, &["import-lightrag", &root]);
    assert!(err.starts_with("error: ") && err.contains("team_a") && err.contains("--from-workspace"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    let err = stderr_of(&kb, &["import-lightrag", "/no/such/folder"]);
    assert!(err.contains("not a folder"), "{err}");
    let err = stderr_of(&kb, &["import-lightrag", &root, "--from-workspace", "team_b"]);
    assert!(err.contains("no LightRAG workspace 'team_b'"), "{err}");

    // LightRAG's team_a into our team_a
    let out = kb.ok(&["--workspace", "team_a", "import-lightrag", &root]);
    assert!(out.contains("LightRAG workspace: team_a") && out.contains("2 imported"), "{out}");
    assert!(kb.working_dir().join("team_a/lightrag.db").is_file());
    // …or into another one of ours
    let out = kb.ok(&["--workspace", "old", "import-lightrag", &root, "--from-workspace", "team_a"]);
    assert!(out.contains("2 imported"), "{out}");

    // a knowledge base with documents of its own is refused, and --check says why
    let docs = kb.write_docs(&[("own.txt", common::LIBRARY)]);
    kb.ok(&["--workspace", "mine", "insert", docs.to_str().unwrap()]);
    let err = stderr_of(&kb, &["--workspace", "mine", "import-lightrag", &fixture("basic")]);
    assert!(err.contains("already holds 1 document(s)"), "{err}");
    let out = kb.run(&["--workspace", "mine", "import-lightrag", &fixture("basic"), "--check"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("BLOCKED"), "{}", String::from_utf8_lossy(&out.stdout));
}

/// Installs (or verifies) the local embedding model with the project's script; its folder.
fn local_model() -> PathBuf {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../scripts/install-model.sh");
    let install = Command::new("bash").arg(&script).output().expect("bash runs");
    assert!(
        install.status.success(),
        "scripts/install-model.sh failed (the local model is needed):\n{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let dir = Command::new("bash").arg(&script).arg("--print-dir").output().unwrap();
    PathBuf::from(String::from_utf8(dir.stdout).unwrap().trim())
}

#[test]
fn import_lightrag_with_the_local_minilm_embeds_every_vector_again() {
    let model = local_model();
    let mut kb = Kb::new();
    kb.set("EMBEDDING_BINDING", "local")
        .set("EMBEDDING_MODEL", "all-MiniLM-L6-v2")
        .set("EMBEDDING_DIM", "384")
        .set("LIGHTRAG_MODEL_DIR", model.to_str().unwrap());
    let out = kb.ok(&["import-lightrag", &fixture("basic")]);
    assert!(
        out.contains("LightRAG's vectors have dimension 64, the configured embedder ('all-MiniLM-L6-v2') 384"),
        "{out}"
    );
    assert!(
        out.contains("93 vectors made with the configured embedder"),
        "5 chunks, 40 entities, 48 relations:\n{out}"
    );
    let answer = kb.json(&["query", "--mode", "naive", "--json", "Kestrel River survey"]);
    assert!(answer["data"]["chunks"].as_array().is_some_and(|c| !c.is_empty()), "{answer}");
}
