//! Chunk boundaries identical to LightRAG 1.5.7 for all 233 State of the Union addresses.
//!
//! The expected lists were recorded by running LightRAG itself
//! (`crates/tools/lightrag-import/tests/fixtures/lightrag-1.5.7/chunks/sotu_chunks.json`,
//! NOTES.md §10): per file `[tokens, chunk_order_index, md5(content)]` per chunk, for the text a
//! direct insert stores (`sanitize_text`) and, where it differs, for the text of an uploaded file
//! (`strip_control_characters`). The corpus is installed by `scripts/fetch-corpus.sh`; the test
//! fails when it cannot be installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use lightrag_engine::indexing::chunking::chunk_text;
use lightrag_engine::indexing::input_text::{sanitize_text, strip_control_characters};
use lightrag_ports::ids::md5_hex;
use lightrag_ports::{ChunkingOptions, Tokenizer};
use lightrag_tokenizer::TiktokenTokenizer;
use serde_json::Value;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Installs the corpus with the project's script and returns its folder.
fn corpus() -> PathBuf {
    let script = repo_root().join("scripts/fetch-corpus.sh");
    let status = Command::new("bash").arg(&script).status().expect("run scripts/fetch-corpus.sh");
    assert!(status.success(), "scripts/fetch-corpus.sh failed: the State of the Union corpus is needed");
    let out = Command::new("bash").arg(&script).arg("--print-dir").output().expect("fetch-corpus.sh --print-dir");
    let dir = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert!(dir.join("1790_george_washington_n.txt").is_file(), "no corpus in {}", dir.display());
    dir
}

fn expected() -> Value {
    let path = repo_root().join("crates/tools/lightrag-import/tests/fixtures/lightrag-1.5.7/chunks/sotu_chunks.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// `[tokens, order, md5]` per chunk, with LightRAG's defaults (1200 tokens, 100 overlap).
fn chunk_list(tok: &dyn Tokenizer, text: &str) -> Vec<Value> {
    chunk_text(tok, text, &ChunkingOptions::default(), 1200, 100)
        .unwrap()
        .into_iter()
        .map(|c| serde_json::json!([c.tokens, c.order, md5_hex(&c.content)]))
        .collect()
}

#[test]
fn chunks_of_all_233_addresses_equal_lightrag_including_tail_windows() {
    let dir = corpus();
    let expected = expected();
    let tok = TiktokenTokenizer::o200k().unwrap();
    let files = expected["files"].as_object().unwrap();
    assert_eq!(files.len(), 233);
    let (mut total, mut differing) = (0usize, Vec::new());
    for (name, want) in files {
        let raw = std::fs::read_to_string(dir.join(name)).unwrap();
        let text = sanitize_text(&raw);
        assert_eq!(md5_hex(&text), want["input_md5"], "{name}: the normalised input differs from LightRAG's");
        assert_eq!(tok.encode(&text).len() as u64, want["input_tokens"].as_u64().unwrap(), "{name}: token count");
        let got = chunk_list(&tok, &text);
        total += got.len();
        if Value::Array(got) != want["chunks"] {
            differing.push(name.clone());
        }
    }
    assert!(differing.is_empty(), "chunks differ from LightRAG for {} files: {differing:?}", differing.len());
    assert_eq!(total as u64, expected["total_chunks"].as_u64().unwrap());
}

#[test]
fn chunks_of_uploaded_files_equal_lightrag_server_upload() {
    let dir = corpus();
    let expected = expected();
    let tok = TiktokenTokenizer::o200k().unwrap();
    let upload = expected["server_upload_path"].as_object().unwrap();
    assert!(!upload.is_empty());
    for (name, want) in upload {
        let raw = std::fs::read_to_string(dir.join(name)).unwrap();
        let text = strip_control_characters(&raw);
        assert_eq!(md5_hex(&text), want["input_md5"], "{name}: the upload's text differs from LightRAG's");
        assert_eq!(Value::Array(chunk_list(&tok, &text)), want["chunks"], "{name}");
    }
}
