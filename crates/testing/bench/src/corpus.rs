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
/// `target_chunks`. Empty files are skipped. With `remix`, when the files run out first, remixed
/// copies of them follow (see [`remixed`]) until the target is reached. Returns the documents and
/// the estimate.
pub fn load(
    dir: &Path,
    tokenizer: &dyn Tokenizer,
    chunk_size: usize,
    overlap: usize,
    target_chunks: usize,
    remix: bool,
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
    if remix && estimate < target_chunks {
        let originals = docs.clone();
        let mut round = 1u64;
        'rounds: loop {
            let mut changed = false;
            for (i, doc) in originals.iter().enumerate() {
                if estimate >= target_chunks {
                    break 'rounds;
                }
                let Some(content) = remixed(&doc.content, round, i as u64) else { continue };
                changed = true;
                let tokens = tokenizer.count(&content);
                estimate += estimated_chunks(tokens, chunk_size, overlap);
                let stem = doc.name.strip_suffix(".txt").unwrap_or(&doc.name);
                docs.push(CorpusDoc { name: format!("{stem}.remix{round:03}.txt"), content, tokens });
            }
            if !changed {
                bail!("--remix: no document of {} has two sentences to reorder; give a larger --corpus", dir.display());
            }
            round += 1;
        }
    }
    Ok((docs, estimate))
}

/// A remixed copy of a text: its sentences in an order shuffled by a seed made of `round` and
/// `doc` (the same arguments always give the same text). The names and the vocabulary stay those
/// of real text, so extraction meets the same entities again, as in a corpus that keeps writing
/// about the same people and places; the chunks are new. `None` when the text has fewer than two
/// sentences.
pub fn remixed(text: &str, round: u64, doc: u64) -> Option<String> {
    let mut parts = sentences(text);
    if parts.len() < 2 {
        return None;
    }
    let mut state = round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ doc.wrapping_mul(0xD1B5_4A32_D192_ED03);
    for i in (1..parts.len()).rev() {
        let j = (splitmix(&mut state) % (i as u64 + 1)) as usize;
        parts.swap(i, j);
    }
    Some(parts.join(" "))
}

/// Sentences of a text: cut after `.`, `!` or `?` followed by white space, trimmed, empty ones
/// dropped.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        let end_mark = matches!(b, b'.' | b'!' | b'?');
        if end_mark && bytes.get(i + 1).is_some_and(|n| n.is_ascii_whitespace()) {
            out.push(text[start..=i].trim());
            start = i + 1;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// SplitMix64: a small, well-mixed sequence for the shuffle (no dependency needed).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
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
        let (docs, estimate) = load(dir.path(), &Words, 100, 0, 5, false).unwrap();
        let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["a.txt", "b.txt"]);
        assert_eq!(estimate, 6);
        assert_eq!(docs[0].tokens, 250);
    }

    #[test]
    fn remix_continues_past_the_files_with_new_text_of_the_same_sentences() {
        let dir = tempfile::tempdir().unwrap();
        let text = "George Washington spoke. Congress listened! Was the Navy ready? The Army was. Peace held.";
        std::fs::write(dir.path().join("a.txt"), text).unwrap();
        std::fs::write(dir.path().join("b.txt"), "One sentence only").unwrap();
        let (docs, estimate) = load(dir.path(), &Words, 4, 0, 12, true).unwrap();
        let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        // a.txt and b.txt give 4 + 1 estimated chunks; remixes of a.txt (b.txt has one sentence)
        assert_eq!(names, ["a.txt", "b.txt", "a.remix001.txt", "a.remix002.txt"]);
        assert_eq!(estimate, 13);
        let mut original: Vec<&str> = sentences(text);
        original.sort_unstable();
        for remix in &docs[2..] {
            assert_ne!(remix.content, text, "a remix is new text");
            let mut parts = sentences(&remix.content);
            parts.sort_unstable();
            assert_eq!(parts, original, "a remix has the same sentences");
        }
        assert_ne!(docs[2].content, docs[3].content, "rounds differ");
        assert_eq!(remixed(text, 1, 0), remixed(text, 1, 0), "the same seed gives the same text");
        // without --remix the files are all there is
        let (docs, _) = load(dir.path(), &Words, 4, 0, 12, false).unwrap();
        assert_eq!(docs.len(), 2);
    }

    #[test]
    fn remix_of_one_sentence_texts_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "no full stop here").unwrap();
        let err = load(dir.path(), &Words, 4, 0, 12, true).unwrap_err();
        assert!(err.to_string().contains("--remix"), "{err}");
    }

    #[test]
    fn missing_folder_is_a_clear_error() {
        let err = resolve(Some(Path::new("/nonexistent/corpus"))).unwrap_err();
        assert!(err.to_string().contains("--corpus"));
    }
}
