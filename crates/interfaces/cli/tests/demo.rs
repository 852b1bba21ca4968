//! End-to-end tests of `lightrag demo`: the built binary indexes a tiny generated corpus, prints
//! the graph summary and three answers with references, and a second run reuses the index.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm};

const ADDRESSES: [(&str, &str); 3] = [
    (
        "1801_thomas_jefferson_dr.txt",
        "Fellow-Citizens of the Senate and House of Representatives: The Treasury reports that the \
         public debt is being paid down faster than expected. Relations with Great Britain remain \
         friendly, and France has agreed to respect the commerce of the United States. The \
         Secretary of the Treasury will lay before Congress an account of the revenue.",
    ),
    (
        "1846_james_polk_d.txt",
        "Fellow-Citizens of the Senate and House of Representatives: The United States sought \
         peace with Mexico, but Mexico refused to receive our minister. Great Britain and the \
         United States settled the Oregon question by treaty. The Treasury can meet the cost of \
         the war without a large increase of the public debt.",
    ),
    (
        "1946_harry_s_truman_d.txt",
        "To the Congress of the United States: The war is over. The Treasury must now reduce \
         the public debt that the war created. The United States will work with Great Britain, \
         France and Mexico in the United Nations to keep the peace.",
    ),
];

/// A folder with the three addresses.
fn corpus(root: &Path) -> PathBuf {
    let dir = root.join("corpus");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in ADDRESSES {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

/// The installed local model folder (the rule of scripts/install-model.sh), if it is there.
fn local_model_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("LIGHTRAG_MODEL_DIR").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            cache.join("lightrag-rs/models/all-MiniLM-L6-v2")
        }
    };
    dir.join("model.safetensors").is_file().then_some(dir)
}

/// Runs `lightrag demo --docs 3` in `cwd` with exactly `env` (nothing inherited but PATH).
fn demo(cwd: &Path, corpus: &Path, env: &[(&str, String)]) -> (String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lightrag"));
    cmd.current_dir(cwd).env_clear().env("HOME", cwd).env("NO_COLOR", "1");
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(["demo", "--docs", "3", "--corpus"]).arg(corpus);
    let Output { status, stdout, stderr } = cmd.output().unwrap();
    let stdout = String::from_utf8(stdout).unwrap();
    let stderr = String::from_utf8(stderr).unwrap();
    assert!(status.success(), "demo failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    (stdout, stderr)
}

/// The number on the `entities:` line of the graph summary.
fn entity_count(stdout: &str) -> usize {
    let graph = stdout.split("== Knowledge graph ==").nth(1).expect("a graph summary");
    let line = graph.lines().find(|l| l.starts_with("entities:")).expect("an entities line");
    line["entities:".len()..].trim().parse().unwrap()
}

/// Checks the parts every run prints.
fn assert_demo_output(stdout: &str) {
    assert!(stdout.contains("lightrag demo: 3 of 3 addresses"), "{stdout}");
    assert!(stdout.contains("top entities by degree:"), "{stdout}");
    assert!(entity_count(stdout) > 0, "{stdout}");
    for mode in ["global", "local", "mix", "auto"] {
        assert!(stdout.contains(&format!("== Question ({mode} mode) ==")), "no {mode} question:\n{stdout}");
    }
    assert!(stdout.contains("(auto ran "), "the auto question says what it ran:\n{stdout}");
    assert_eq!(stdout.matches("== Question (").count(), 4, "{stdout}");
    assert_eq!(stdout.matches("\nReferences:\n").count(), 4, "every answer has references:\n{stdout}");
    assert!(stdout.contains("1846_james_polk_d.txt"), "{stdout}");
}

#[test]
fn demo_indexes_answers_offline_and_reuses_the_index() {
    // the test command (scripts/test.sh) installs the model first: a missing model is a failure,
    // never a quiet pass
    let model_dir = local_model_dir()
        .expect("the local embedding model is not installed: run scripts/install-model.sh (scripts/test.sh does)");
    let tmp = tempfile::tempdir().unwrap();
    let corpus = corpus(tmp.path());
    let env = [("LIGHTRAG_MODEL_DIR", model_dir.to_string_lossy().into_owned())];

    let (first, _) = demo(tmp.path(), &corpus, &env);
    assert_demo_output(&first);
    assert!(first.contains("LLM: none"), "{first}");
    assert!(first.contains("documents:   3 processed, 0 failed"), "{first}");
    assert!(first.contains("showing the retrieved context"), "{first}");
    assert!(first.contains("Top passages:"), "{first}");
    assert!(tmp.path().join("demo_storage/lightrag.db").is_file(), "the demo's default working dir");

    let (second, _) = demo(tmp.path(), &corpus, &env);
    assert_demo_output(&second);
    assert!(second.contains("3 document(s) already indexed; skipped"), "{second}");
    assert!(second.contains("documents:   0 processed, 0 failed"), "{second}");
    assert_eq!(entity_count(&second), entity_count(&first));
}

#[test]
fn demo_uses_a_configured_llm_for_extraction_and_answers() {
    let server = ScriptedLlm::start_blocking(ScriptConfig::default()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let corpus = corpus(tmp.path());
    let storage = tmp.path().join("kb");
    let env = [
        ("LLM_BINDING", "openai".to_string()),
        ("LLM_BINDING_HOST", server.base_url()),
        ("LLM_MODEL", "scripted".to_string()),
        ("EMBEDDING_BINDING", "openai".to_string()),
        ("EMBEDDING_BINDING_HOST", server.base_url()),
        ("EMBEDDING_MODEL", "scripted-embed".to_string()),
        ("EMBEDDING_DIM", "64".to_string()),
        ("WORKING_DIR", storage.to_string_lossy().into_owned()),
    ];

    let (first, _) = demo(tmp.path(), &corpus, &env);
    assert_demo_output(&first);
    assert!(first.contains("LLM: openai scripted"), "{first}");
    assert_eq!(first.matches("Answer based on").count(), 4, "four LLM answers:\n{first}");
    assert!(storage.join("lightrag.db").is_file(), "WORKING_DIR wins over the demo's default");
    assert!(!tmp.path().join("demo_storage").exists());
    let stats = server.stats();
    assert!(stats.extract >= 3 && stats.answer == 4, "{stats:?}");

    server.reset_stats();
    let (second, _) = demo(tmp.path(), &corpus, &env);
    assert!(second.contains("3 document(s) already indexed; skipped"), "{second}");
    assert_eq!(entity_count(&second), entity_count(&first));
    assert_eq!(server.stats().extract, 0, "a re-run extracts nothing");
}
