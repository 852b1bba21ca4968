//! Shared helpers for the end-to-end tests: a scripted LLM server and a `lightrag` command
//! configured to use it, in a fresh working directory.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, ScriptedServer};

pub mod kill;
pub mod pg;
pub mod server;
pub mod workers;

pub struct Kb {
    pub server: ScriptedServer,
    pub dir: tempfile::TempDir,
    pub extra_env: Vec<(String, String)>,
}

impl Kb {
    pub fn new() -> Self {
        Self::with_config(ScriptConfig::default())
    }

    pub fn with_config(config: ScriptConfig) -> Self {
        let server = ScriptedLlm::start_blocking(config).expect("scripted server starts");
        Kb { server, dir: tempfile::tempdir().unwrap(), extra_env: Vec::new() }
    }

    pub fn working_dir(&self) -> PathBuf {
        self.dir.path().join("rag")
    }

    pub fn set(&mut self, key: &str, value: &str) -> &mut Self {
        self.extra_env.push((key.to_string(), value.to_string()));
        self
    }

    /// `lightrag` with the scripted LLM and embedder configured through LightRAG's variables.
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_lightrag"));
        let base = self.server.base_url();
        cmd.current_dir(self.dir.path())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("LLM_BINDING", "openai")
            .env("LLM_BINDING_HOST", &base)
            .env("LLM_MODEL", "scripted")
            .env("EMBEDDING_BINDING", "openai")
            .env("EMBEDDING_BINDING_HOST", &base)
            .env("EMBEDDING_MODEL", "scripted")
            .env("EMBEDDING_DIM", "64")
            .env("LLM_RETRY_BASE_MS", "10")
            .env("WORKING_DIR", self.working_dir());
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("lightrag runs")
    }

    /// Runs and asserts success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "lightrag {args:?} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let text = self.ok(args);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?} printed invalid JSON ({e}):\n{text}"))
    }

    /// The graph as JSON with timestamps removed, nodes and edges sorted: comparable across runs.
    pub fn graph(&self) -> serde_json::Value {
        let mut g = self.json(&["graph", "export", "--format", "json"]);
        for list in ["nodes", "edges"] {
            let items = g[list].as_array_mut().unwrap();
            for item in items.iter_mut() {
                item.as_object_mut().unwrap().remove("created_at");
            }
            items.sort_by_key(|v| v.to_string());
        }
        g
    }

    /// The id of the document stored from `file`, if any (read with `lightrag status`).
    pub fn doc_id(&self, file: &str) -> Option<String> {
        let status = self.json(&["status", "--json"]);
        status["documents"]
            .as_array()?
            .iter()
            .find(|d| d["file_path"] == file)
            .and_then(|d| d["id"].as_str().map(str::to_string))
    }

    pub fn write_docs(&self, docs: &[(&str, &str)]) -> PathBuf {
        self.dir_docs("docs", docs)
    }

    /// Writes `docs` into the folder `name` of the test directory and returns it.
    pub fn dir_docs(&self, name: &str, docs: &[(&str, &str)]) -> PathBuf {
        let dir = self.dir.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in docs {
            std::fs::write(dir.join(name), text).unwrap();
        }
        dir
    }
}

pub fn node<'a>(graph: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    graph["nodes"].as_array().unwrap().iter().find(|n| n["id"] == name)
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small corpus: two documents share entities, a third stands apart.
pub const WHALING: &str = "Captain Ahab commanded the Pequod on a long voyage. Ishmael sailed on the Pequod from Nantucket \
with Queequeg. Queequeg came from Kokovoko and served as a harpooner. Starbuck warned Captain Ahab about Moby Dick.";
pub const HARBOR: &str = "Nantucket was a busy whaling port. Starbuck lived in Nantucket with his family. \
The Pequod left Nantucket in winter. Peleg and Bildad owned shares of the Pequod.";
pub const LIBRARY: &str = "The Bodleian Library stands in Oxford. Thomas Bodley founded the Bodleian Library. \
Oxford University Press prints books near the Radcliffe Camera.";
