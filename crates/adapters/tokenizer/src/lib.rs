//! tiktoken o200k_base tokenizer adapter for lightrag-rs.
//!
//! [`TiktokenTokenizer`] implements [`lightrag_ports::Tokenizer`] on top of `tiktoken-rs`. The
//! BPE tables are compiled into the binary (nothing is downloaded). Building one takes a few
//! hundred milliseconds, so build it once at start-up and share it behind an `Arc`.

use lightrag_ports::Tokenizer;
use tiktoken_rs::CoreBPE;

/// Errors building a tokenizer.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    /// The built-in BPE tables could not be loaded (a build problem, not a user error).
    #[error("cannot load the {encoding} tokenizer tables: {reason}; this is a bug in the build, please report it")]
    Load {
        /// Encoding name (`o200k_base`).
        encoding: &'static str,
        /// What tiktoken-rs said.
        reason: String,
    },
}

/// A tiktoken BPE tokenizer (`o200k_base`, the gpt-4o family encoding LightRAG uses by default).
pub struct TiktokenTokenizer {
    bpe: CoreBPE,
    encoding: &'static str,
}

impl std::fmt::Debug for TiktokenTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TiktokenTokenizer").field("encoding", &self.encoding).finish()
    }
}

impl TiktokenTokenizer {
    /// Builds the `o200k_base` tokenizer.
    pub fn o200k() -> Result<Self, TokenizerError> {
        let bpe = tiktoken_rs::o200k_base()
            .map_err(|e| TokenizerError::Load { encoding: "o200k_base", reason: e.to_string() })?;
        Ok(Self { bpe, encoding: "o200k_base" })
    }

    /// The encoding's name (`o200k_base`).
    pub fn encoding(&self) -> &'static str {
        self.encoding
    }

    /// Bytes of `tokens`, skipping ids the encoding does not know.
    fn decode_bytes(&self, tokens: &[u32]) -> Vec<u8> {
        match self.bpe.decode_bytes(tokens) {
            Ok(bytes) => bytes,
            // Slow path: some id is unknown; decode one at a time and drop the bad ones.
            Err(_) => {
                tokens.iter().filter_map(|t| self.bpe.decode_bytes(std::slice::from_ref(t)).ok()).flatten().collect()
            }
        }
    }
}

impl Tokenizer for TiktokenTokenizer {
    fn encode(&self, text: &str) -> Vec<u32> {
        self.bpe.encode_ordinary(text)
    }

    fn decode(&self, tokens: &[u32]) -> String {
        let bytes = self.decode_bytes(tokens);
        match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn tok() -> TiktokenTokenizer {
        TiktokenTokenizer::o200k().unwrap()
    }

    #[test]
    fn round_trip_is_exact() {
        let t = tok();
        for text in [
            "",
            "Hello, world!",
            "LightRAG builds a knowledge graph from documents.\n\nSecond paragraph.",
            "Ünïcödé: 日本語のテキスト, emoji 🚀🦀, Ελληνικά",
            "<|endoftext|> is treated as plain text",
        ] {
            let ids = t.encode(text);
            assert_eq!(t.decode(&ids), text, "round trip of {text:?}");
        }
    }

    #[test]
    fn counts_match_known_values() {
        let t = tok();
        assert_eq!(t.count(""), 0);
        assert_eq!(t.count("hello"), 1);
        assert_eq!(t.count("hello world"), 2);
        // The count is the length of the encoding.
        let text = "The quick brown fox jumps over the lazy dog.";
        assert_eq!(t.count(text), t.encode(text).len());
        assert_eq!(t.count(text), 10);
    }

    #[test]
    fn special_token_text_is_not_special() {
        let t = tok();
        // encode_ordinary must split the marker into several ordinary tokens.
        assert!(t.encode("<|endoftext|>").len() > 1);
    }

    #[test]
    fn slices_splitting_a_character_decode_lossily() {
        let t = tok();
        let ids = t.encode("🦀🦀🦀");
        // Find a prefix whose decoding is not a clean string, and check it does not panic and
        // yields a replacement character rather than garbage.
        let mut saw_partial = false;
        for end in 0..=ids.len() {
            let s = t.decode(&ids[..end]);
            if s.contains('\u{FFFD}') {
                saw_partial = true;
            } else {
                assert!("🦀🦀🦀".starts_with(&s), "prefix {s:?}");
            }
        }
        assert!(saw_partial || ids.len() == 3, "emoji tokens should split bytes somewhere: {ids:?}");
    }

    #[test]
    fn unknown_ids_are_skipped() {
        let t = tok();
        let mut ids = t.encode("hello world");
        ids.insert(1, u32::MAX);
        assert_eq!(t.decode(&ids), "hello world");
    }

    #[test]
    fn shared_between_threads() {
        let t = std::sync::Arc::new(tok());
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let t = t.clone();
                std::thread::spawn(move || t.count(&format!("thread number {i}")))
            })
            .collect();
        for h in handles {
            assert!(h.join().unwrap() > 0);
        }
    }
}
