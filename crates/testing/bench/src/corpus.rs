//! The benchmark's input: a folder of `.txt` files, taken in file-name order until an estimated
//! number of chunks is reached.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use lightrag_ports::Tokenizer;

/// One document read from the corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusDoc {
    /// File name (becomes the document's file path).
    pub name: String,
    /// Text.
    pub content: String,
    /// Tokens in the text.
    pub tokens: usize,
}

/// Where the default corpus may be, in the order they are tried: `../shared/corpus/sotu`
/// (from the current directory, then from the workspace root), then the folder
/// `scripts/fetch-corpus.sh` fills.
pub fn default_candidates() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("../shared/corpus/sotu")];
    let workspace_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    out.push(workspace_root.join("../shared/corpus/sotu"));
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    if let Some(cache) = cache {
        out.push(cache.join("lightrag-rs/corpus/sotu"));
    }
    out
}

/// The corpus folder: `explicit` if given (it must exist), else the first default candidate
/// that exists.
pub fn resolve(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(dir) = explicit {
        if !dir.is_dir() {
            bail!("--corpus {}: no such folder; give a folder of .txt files", dir.display());
        }
        return Ok(dir.to_path_buf());
    }
    let candidates = default_candidates();
    if let Some(found) = candidates.iter().find(|p| p.is_dir()) {
        return Ok(found.clone());
    }
    let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    bail!(
        "no corpus found (looked in {}); run scripts/fetch-corpus.sh to download the State of the \
         Union texts, or pass --corpus DIR (a folder of .txt files)",
        tried.join(", ")
    )
}

/// Chunks of a text of `tokens` tokens with the given chunk size and overlap: a window starts
/// every `chunk_size - overlap` tokens while the start is inside the text (LightRAG's rule).
pub fn estimated_chunks(tokens: usize, chunk_size: usize, overlap: usize) -> usize {
    let step = chunk_size.saturating_sub(overlap).max(1);
    tokens.max(1).div_ceil(step)
}

/// Reads the `.txt` files of `dir` in file-name order until the estimated chunk count reaches
/// `target_chunks`. Empty files are skipped. Returns the documents and the estimate.
pub fn load(
    dir: &Path,
    tokenizer: &dyn Tokenizer,
    chunk_size: usize,
    overlap: usize,
    target_chunks: usize,
) -> Result<(Vec<CorpusDoc>, usize)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list the corpus folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("txt")))
        .collect();
    files.sort();
    let mut docs = Vec::new();
    let mut estimate = 0;
    for path in files {
        if estimate >= target_chunks {
            break;
        }
        let content =
            std::fs::read_to_string(&path).with_context(|| format!("cannot read {} as UTF-8 text", path.display()))?;
        if content.trim().is_empty() {
            continue;
        }
        let tokens = tokenizer.count(&content);
        estimate += estimated_chunks(tokens, chunk_size, overlap);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        docs.push(CorpusDoc { name, content, tokens });
    }
    if docs.is_empty() {
        bail!("the corpus folder {} has no non-empty .txt files", dir.display());
    }
    Ok((docs, estimate))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One token per whitespace-separated word.
    struct Words;

    impl Tokenizer for Words {
        fn encode(&self, text: &str) -> Vec<u32> {
            text.split_whitespace().map(|_| 0).collect()
        }
        fn decode(&self, _tokens: &[u32]) -> String {
            String::new()
        }
    }

    #[test]
    fn chunk_estimate_follows_step() {
        assert_eq!(estimated_chunks(1, 1200, 100), 1);
        assert_eq!(estimated_chunks(1100, 1200, 100), 1);
        // a second window starts at 1100 while the start is inside the text
        assert_eq!(estimated_chunks(1101, 1200, 100), 2);
        assert_eq!(estimated_chunks(1200, 1200, 100), 2);
        assert_eq!(estimated_chunks(2200, 1200, 100), 2);
        assert_eq!(estimated_chunks(2229, 1200, 100), 3);
    }

    #[test]
    fn takes_files_in_name_order_until_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let words = |n: usize| vec!["word"; n].join(" ");
        std::fs::write(dir.path().join("b.txt"), words(250)).unwrap();
        std::fs::write(dir.path().join("a.txt"), words(250)).unwrap();
        std::fs::write(dir.path().join("c.txt"), words(250)).unwrap();
        std::fs::write(dir.path().join("empty.txt"), "  ").unwrap();
        std::fs::write(dir.path().join("skip.md"), words(10)).unwrap();
        let (docs, estimate) = load(dir.path(), &Words, 100, 0, 5).unwrap();
        let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["a.txt", "b.txt"]);
        assert_eq!(estimate, 6);
        assert_eq!(docs[0].tokens, 250);
    }

    #[test]
    fn missing_folder_is_a_clear_error() {
        let err = resolve(Some(Path::new("/nonexistent/corpus"))).unwrap_err();
        assert!(err.to_string().contains("--corpus"));
    }
}
