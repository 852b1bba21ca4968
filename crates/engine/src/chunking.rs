//! Token chunking with overlap (LightRAG's `chunking_by_token_size`).
//!
//! * Without a separator: windows of `size` tokens starting every `size - overlap` tokens.
//! * With `split_by_character`: the text is split on the separator; each piece that fits is one
//!   chunk, a larger piece is re-windowed — or, with `split_by_character_only`, fails the document.
//!
//! Chunk text is stripped of surrounding whitespace; empty pieces are dropped.

use lightrag_ports::{ChunkingOptions, Tokenizer};

use crate::error::{EngineError, Result};

/// One chunk before it gets an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPiece {
    /// Position in the document.
    pub order: usize,
    /// Token count of the (stripped) content.
    pub tokens: usize,
    /// Stripped text.
    pub content: String,
}

/// Cuts `text` into chunks of at most `size` tokens with `overlap` tokens of overlap.
pub fn chunk_text(
    tokenizer: &dyn Tokenizer,
    text: &str,
    options: &ChunkingOptions,
    size: usize,
    overlap: usize,
) -> Result<Vec<ChunkPiece>> {
    if size == 0 || overlap >= size {
        return Err(EngineError::Invalid(format!(
            "CHUNK_OVERLAP_SIZE ({overlap}) must be smaller than CHUNK_SIZE ({size})"
        )));
    }
    // (text, token count): counts come from the windows, as in LightRAG, not from re-encoding
    let mut raw: Vec<(String, usize)> = Vec::new();
    match options.split_by_character.as_deref().filter(|s| !s.is_empty()) {
        Some(separator) => {
            for piece in text.split(separator) {
                let tokens = tokenizer.encode(piece);
                if tokens.len() <= size {
                    raw.push((piece.to_string(), tokens.len()));
                } else if options.split_by_character_only {
                    return Err(EngineError::ChunkTooLarge {
                        separator: separator.to_string(),
                        tokens: tokens.len(),
                        limit: size,
                    });
                } else {
                    window(tokenizer, &tokens, size, overlap, &mut raw);
                }
            }
        }
        None => {
            let tokens = tokenizer.encode(text);
            window(tokenizer, &tokens, size, overlap, &mut raw);
        }
    }
    let mut out = Vec::with_capacity(raw.len());
    for (content, tokens) in raw {
        let content = content.trim();
        if content.is_empty() {
            continue;
        }
        out.push(ChunkPiece { order: out.len(), tokens, content: content.to_string() });
    }
    Ok(out)
}

fn window(tokenizer: &dyn Tokenizer, tokens: &[u32], size: usize, overlap: usize, out: &mut Vec<(String, usize)>) {
    let step = size - overlap;
    let mut start = 0;
    while start < tokens.len() {
        let end = (start + size).min(tokens.len());
        out.push((tokenizer.decode(&tokens[start..end]), end - start));
        if end == tokens.len() {
            break;
        }
        start += step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::tests_support::WordTokenizer;

    fn opts(sep: Option<&str>, only: bool) -> ChunkingOptions {
        ChunkingOptions { split_by_character: sep.map(String::from), split_by_character_only: only }
    }

    #[test]
    fn windows_overlap_by_the_configured_amount() {
        let tok = WordTokenizer;
        let text = (0..25).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
        let chunks = chunk_text(&tok, &text, &opts(None, false), 10, 2).unwrap();
        assert_eq!(chunks.len(), 3);
        assert!(chunks[0].content.starts_with("w0 ") && chunks[0].content.ends_with("w9"));
        assert!(chunks[1].content.starts_with("w8 "), "{}", chunks[1].content);
        assert!(chunks[2].content.starts_with("w16 ") && chunks[2].content.ends_with("w24"));
        assert_eq!(chunks.iter().map(|c| c.order).collect::<Vec<_>>(), vec![0, 1, 2]);
    }

    #[test]
    fn separator_pieces_become_chunks_and_big_ones_are_windowed() {
        let tok = WordTokenizer;
        let big = (0..15).map(|i| format!("b{i}")).collect::<Vec<_>>().join(" ");
        let text = format!("a b c\n\n\n\n{big}\n\nd e");
        let chunks = chunk_text(&tok, &text, &opts(Some("\n\n"), false), 10, 0).unwrap();
        let contents: Vec<_> = chunks.iter().map(|c| c.content.as_str()).collect();
        assert_eq!(contents[0], "a b c");
        assert_eq!(contents.len(), 4, "{contents:?}");
        assert_eq!(contents[3], "d e");
    }

    #[test]
    fn oversize_piece_with_split_only_fails_the_document() {
        let tok = WordTokenizer;
        let big = (0..15).map(|i| format!("b{i}")).collect::<Vec<_>>().join(" ");
        let err = chunk_text(&tok, &format!("x\n{big}"), &opts(Some("\n"), true), 10, 0).unwrap_err();
        assert!(matches!(err, EngineError::ChunkTooLarge { tokens: 15, limit: 10, .. }), "{err}");
    }

    #[test]
    fn overlap_must_be_smaller_than_size() {
        let tok = WordTokenizer;
        assert!(chunk_text(&tok, "a", &opts(None, false), 10, 10).is_err());
    }

    #[test]
    fn empty_text_has_no_chunks() {
        let tok = WordTokenizer;
        assert!(chunk_text(&tok, "   ", &opts(None, false), 10, 2).unwrap().is_empty());
    }

    proptest::proptest! {
        #[test]
        fn chunking_never_panics_and_respects_size(text in "\\PC{0,400}", size in 1usize..40, overlap in 0usize..40, sep in proptest::option::of("[\\n .]{1,2}"), only: bool) {
            let tok = WordTokenizer;
            let res = chunk_text(&tok, &text, &opts(sep.as_deref(), only), size, overlap);
            if overlap >= size {
                proptest::prop_assert!(res.is_err());
            } else if let Ok(chunks) = res {
                for (i, c) in chunks.iter().enumerate() {
                    proptest::prop_assert_eq!(c.order, i);
                    proptest::prop_assert!(!c.content.is_empty());
                    proptest::prop_assert!(c.tokens <= size, "chunk of {} tokens > {}", c.tokens, size);
                    // every word of a chunk comes from the text
                    for w in c.content.split_whitespace() {
                        proptest::prop_assert!(text.contains(w));
                    }
                }
            }
        }
    }
}
