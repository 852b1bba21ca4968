//! Shared test helpers: finding the installed model and reading the reference fixture.

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)] // tests may fail loudly

use std::path::{Path, PathBuf};

use lightrag_embed_local::{LoadOptions, LocalEmbedder, LongTexts, Precision, default_model_dir};

/// The installed model folder. Fails the test when the model is not installed: the project's
/// test command (`scripts/test.sh`) installs it with `scripts/install-model.sh` first.
pub fn model_dir() -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let dir = default_model_dir(
        std::env::var_os("LIGHTRAG_MODEL_DIR").as_deref(),
        std::env::var_os("XDG_CACHE_HOME").as_deref(),
        home.as_deref(),
    )
    .expect("no model folder: set LIGHTRAG_MODEL_DIR or HOME");
    assert!(
        dir.join("model.safetensors").is_file(),
        "the local model is not installed in {}: run scripts/install-model.sh",
        dir.display()
    );
    dir
}

/// Loads the installed model with `threads` workers (0 = all cores) and the default precision,
/// truncating long texts as sentence-transformers does (what the reference vectors are).
pub fn load(dir: &Path, threads: usize) -> LocalEmbedder {
    load_in(dir, threads, Precision::Auto)
}

/// Loads the installed model with `threads` workers (0 = all cores) in `precision`, truncating
/// long texts as sentence-transformers does.
pub fn load_in(dir: &Path, threads: usize, precision: Precision) -> LocalEmbedder {
    load_with(dir, threads, precision, LongTexts::Truncate)
}

/// Loads the installed model with every option given.
pub fn load_with(dir: &Path, threads: usize, precision: Precision, long_texts: LongTexts) -> LocalEmbedder {
    LocalEmbedder::load_with(dir, LoadOptions { threads, precision, long_texts, ..LoadOptions::default() })
        .expect("the installed model loads")
}

/// One sentence of the reference fixture.
#[derive(serde::Deserialize)]
pub struct Reference {
    pub name: String,
    pub text: String,
    pub tokens: usize,
    pub vector: Vec<f32>,
}

#[derive(serde::Deserialize)]
struct Fixture {
    dim: usize,
    max_seq_length: usize,
    sentences: Vec<Reference>,
}

/// The sentences and sentence-transformers vectors of `fixtures/reference_vectors.json`,
/// with the fixture's dimension and sequence limit.
pub fn references() -> (Vec<Reference>, usize, usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference_vectors.json");
    let text = std::fs::read_to_string(&path).expect("fixture is readable");
    let f: Fixture = serde_json::from_str(&text).expect("fixture is valid JSON");
    (f.sentences, f.dim, f.max_seq_length)
}

/// Cosine similarity.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    dot / (norm(a) * norm(b))
}

/// Euclidean length.
pub fn norm(a: &[f32]) -> f32 {
    a.iter().map(|x| x * x).sum::<f32>().sqrt()
}
