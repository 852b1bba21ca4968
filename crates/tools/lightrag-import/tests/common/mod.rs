//! Shared helpers: the LightRAG 1.5.7 fixtures, a scripted LLM server (the one the fixtures were
//! made with) and engines configured through LightRAG's variables to use it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use lightrag_config::{RawConfig, Settings};
use lightrag_engine::Engine;
use lightrag_import::{ImportOptions, ImportReport, NoImportProgress};
use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, ScriptedServer};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A fixture path below `tests/fixtures/lightrag-1.5.7/`.
pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lightrag-1.5.7").join(rel)
}

/// A fixture JSON file.
pub fn fixture_json(rel: &str) -> Value {
    let text = std::fs::read_to_string(fixture(rel)).unwrap_or_else(|e| panic!("fixture {rel}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// A scripted server and a fresh working directory.
pub struct Harness {
    pub server: ScriptedServer,
    pub dir: tempfile::TempDir,
}

impl Harness {
    pub async fn start() -> Self {
        let server = ScriptedLlm::start(ScriptConfig::default()).await.expect("scripted server starts");
        Harness { server, dir: tempfile::tempdir().unwrap() }
    }

    /// Settings with the scripted LLM and its 64-dimension embedder (as the fixtures were made),
    /// plus `extra` (LightRAG variable names).
    pub fn settings(&self, extra: &[(&str, &str)]) -> Settings {
        let base = self.server.base_url();
        let mut env: BTreeMap<String, String> = [
            ("LLM_BINDING", "openai"),
            ("LLM_BINDING_HOST", base.as_str()),
            ("LLM_MODEL", "scripted"),
            ("EMBEDDING_BINDING", "openai"),
            ("EMBEDDING_BINDING_HOST", base.as_str()),
            ("EMBEDDING_MODEL", "scripted"),
            ("EMBEDDING_DIM", "64"),
            ("LLM_RETRY_BASE_MS", "10"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        env.insert("WORKING_DIR".into(), self.dir.path().join("rag").display().to_string());
        for (k, v) in extra {
            env.insert(k.to_string(), v.to_string());
        }
        let raw = RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap();
        Settings::from_raw(&raw).unwrap()
    }

    pub async fn engine(&self, extra: &[(&str, &str)]) -> Engine {
        lightrag_config::open_engine(&self.settings(extra)).await.unwrap()
    }
}

/// Options reading `rel` (a fixture folder).
pub fn options(rel: &str) -> ImportOptions {
    ImportOptions { dir: fixture(rel), ..ImportOptions::default() }
}

/// Imports `rel` into `engine` to the end.
pub async fn import(engine: &Engine, rel: &str) -> ImportReport {
    let report =
        lightrag_import::import(engine, &options(rel), &NoImportProgress, &CancellationToken::new()).await.unwrap();
    assert!(report.complete, "{}", report.render());
    report
}

/// The graph of `engine` in the normalised form of the fixtures' `graph.json` (without
/// `created_at`): `{"nodes": {id: attrs}, "edges": {"src|tgt": attrs}}`.
pub async fn graph(engine: &Engine) -> Value {
    let store = engine.store();
    let mut nodes = serde_json::Map::new();
    for e in lightrag_ports::paging::all_entities(store.as_ref()).await.unwrap() {
        nodes.insert(
            e.name.clone(),
            serde_json::json!({
                "entity_type": e.entity_type,
                "description": e.description,
                "source_id": e.source_ids.join("<SEP>"),
                "file_path": e.file_paths.join("<SEP>"),
                "truncate": e.truncate,
            }),
        );
    }
    let mut edges = serde_json::Map::new();
    for r in lightrag_ports::paging::all_relations(store.as_ref()).await.unwrap() {
        edges.insert(
            format!("{}|{}", r.key.src, r.key.tgt),
            serde_json::json!({
                "weight": r.weight,
                "description": r.description,
                "keywords": r.keywords,
                "source_id": r.source_ids.join("<SEP>"),
                "file_path": r.file_paths.join("<SEP>"),
                "truncate": r.truncate,
            }),
        );
    }
    serde_json::json!({"nodes": nodes, "edges": edges})
}

fn normalise_keywords(g: &Value) -> Value {
    let mut g = g.clone();
    if let Some(edges) = g["edges"].as_object_mut() {
        for e in edges.values_mut() {
            e["keywords"] = keyword_set(&e["keywords"]);
        }
    }
    g
}

/// Each node's and edge's attributes with descriptions, source ids and file paths as sorted sets,
/// and without the entity type (a majority vote that depends on the merge history), for graphs
/// whose merge order differs.
pub fn as_sets(g: &Value) -> Value {
    let mut g = normalise_keywords(g);
    for part in ["nodes", "edges"] {
        for item in g[part].as_object_mut().unwrap().values_mut() {
            if let Some(fields) = item.as_object_mut() {
                fields.remove("entity_type");
            }
            for field in ["description", "source_id", "file_path"] {
                let mut parts: Vec<&str> = item[field].as_str().unwrap_or_default().split("<SEP>").collect();
                parts.sort();
                item[field] = Value::from(parts.join("<SEP>"));
            }
        }
    }
    g
}

/// A fixture `graph.json` in the form of [`graph`].
pub fn expected_graph(rel: &str) -> Value {
    let g = fixture_json(rel);
    let mut nodes = serde_json::Map::new();
    for (id, attrs) in g["nodes"].as_object().unwrap() {
        nodes.insert(
            id.clone(),
            serde_json::json!({
                "entity_type": attrs["entity_type"],
                "description": attrs["description"],
                "source_id": attrs["source_id"],
                "file_path": attrs["file_path"],
                "truncate": attrs["truncate"],
            }),
        );
    }
    let mut edges = serde_json::Map::new();
    for e in g["edges"].as_array().unwrap() {
        edges.insert(
            format!("{}|{}", e["source"].as_str().unwrap(), e["target"].as_str().unwrap()),
            serde_json::json!({
                "weight": e["weight"],
                "description": e["description"],
                "keywords": e["keywords"],
                "source_id": e["source_id"],
                "file_path": e["file_path"],
                "truncate": e["truncate"],
            }),
        );
    }
    serde_json::json!({"nodes": nodes, "edges": edges})
}

/// Relation keywords as a sorted set: LightRAG joins them with `,` when merging and with `", "`
/// when rebuilding after a deletion; we join with `,` always (see docs/lightrag-import.md).
fn keyword_set(v: &Value) -> Value {
    let mut words: Vec<&str> =
        v.as_str().unwrap_or_default().split(',').map(str::trim).filter(|w| !w.is_empty()).collect();
    words.sort();
    words.dedup();
    Value::from(words.join(","))
}

/// Asserts two normalised graphs are equal (relation keywords compared as sets), naming the
/// differences.
pub fn assert_same_graph(got: &Value, want: &Value) {
    let (got, want) = (&normalise_keywords(got), &normalise_keywords(want));
    let mut diffs = Vec::new();
    for part in ["nodes", "edges"] {
        let (g, w) = (got[part].as_object().unwrap(), want[part].as_object().unwrap());
        for k in w.keys().filter(|k| !g.contains_key(*k)) {
            diffs.push(format!("{part}: missing {k}"));
        }
        for k in g.keys().filter(|k| !w.contains_key(*k)) {
            diffs.push(format!("{part}: unexpected {k}"));
        }
        for (k, wv) in w {
            if let Some(gv) = g.get(k)
                && gv != wv
            {
                for (field, want_field) in wv.as_object().unwrap() {
                    if gv.get(field) != Some(want_field) {
                        diffs.push(format!("{part} {k}.{field}: got {:?}, want {want_field:?}", gv.get(field)));
                    }
                }
            }
        }
    }
    assert!(diffs.is_empty(), "{} difference(s):\n{}", diffs.len(), diffs.join("\n"));
}
