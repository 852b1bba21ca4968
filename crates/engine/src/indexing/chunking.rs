//! Token chunking with overlap, exactly as LightRAG's `chunking_by_token_size` (1.5.7).
//!
//! * Without a separator: a window of `size` tokens starts every `size - overlap` tokens **while
//!   the start is inside the text** (Python's `range(0, n, step)`), so the last window can lie
//!   entirely inside the one before it (a text of 2229 tokens gives windows at 0, 1100 and 2200).
//! * With `split_by_character`: the text is split on the separator; each piece that fits is one
//!   chunk, a larger piece is windowed the same way — or, with `split_by_character_only`, fails
//!   the document.
//!
//! A chunk's text is the decoded window stripped as Python strips (`\x1c`–`\x1f` included); its
//! token count is the window's length (not a re-count of the stripped text); its order is the
//! window's (or piece's) number. A piece that strips to nothing is dropped **without**
//! renumbering the others, as LightRAG does, so chunk ids (`{doc}-chunk-{order:03}`) match.

use lightrag_ports::{ChunkingOptions, Tokenizer};

use crate::error::{EngineError, Result};
use crate::indexing::input_text::python_strip;

/// One chunk before it gets an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPiece {
    /// Position in the document (LightRAG's `chunk_order_index`; gaps where a piece was empty).
    pub order: usize,
    /// Token count of the window or piece the chunk came from.
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
    // as LightRAG, the overlap only matters (and is only checked) when a window is cut, so
    // delimiter-only splitting accepts any overlap
    let step = size.checked_sub(overlap).filter(|step| *step > 0);
    let bad_overlap = || {
        EngineError::Invalid(format!(
            "the chunk overlap ({overlap} tokens) must be smaller than the chunk size ({size} tokens): \
             lower CHUNK_OVERLAP_SIZE or raise CHUNK_SIZE"
        ))
    };
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
                    window(tokenizer, &tokens, size, step.ok_or_else(bad_overlap)?, &mut raw);
                }
            }
        }
        None => {
            let tokens = tokenizer.encode(text);
            window(tokenizer, &tokens, size, step.ok_or_else(bad_overlap)?, &mut raw);
        }
    }
    Ok(raw
        .into_iter()
        .enumerate()
        .filter_map(|(order, (content, tokens))| {
            let content = python_strip(&content);
            (!content.is_empty()).then(|| ChunkPiece { order, tokens, content: content.to_string() })
        })
        .collect())
}

/// Windows of `size` starting at 0, step, 2·step, … while the start is inside `tokens`.
fn window(tokenizer: &dyn Tokenizer, tokens: &[u32], size: usize, step: usize, out: &mut Vec<(String, usize)>) {
    for start in (0..tokens.len()).step_by(step) {
        let end = (start + size).min(tokens.len());
        out.push((tokenizer.decode(&tokens[start..end]), end - start));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexing::text::tests_support::WordTokenizer;

    fn opts(sep: Option<&str>, only: bool) -> ChunkingOptions {
        ChunkingOptions {
            split_by_character: sep.map(String::from),
            split_by_character_only: only,
            ..Default::default()
        }
    }

    #[test]
    fn windows_overlap_by_the_configured_amount() {
        let tok = WordTokenizer;
        let text = (0..25).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
        let chunks = chunk_text(&tok, &text, &opts(None, false), 10, 2).unwrap();
        assert_eq!(chunks.len(), 4);
        assert!(chunks[0].content.starts_with("w0 ") && chunks[0].content.ends_with("w9"));
        assert!(chunks[1].content.starts_with("w8 "), "{}", chunks[1].content);
        assert!(chunks[2].content.starts_with("w16 ") && chunks[2].content.ends_with("w24"));
        assert_eq!(chunks[3].content, "w24", "a window starts while the start is inside the text");
        assert_eq!(chunks.iter().map(|c| c.order).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    }

    #[test]
    fn tail_window_inside_the_previous_one_is_kept_as_lightrag_does() {
        let tok = WordTokenizer;
        let text = (0..23).map(|i| format!("t{i}")).collect::<Vec<_>>().join(" ");
        let chunks = chunk_text(&tok, &text, &opts(None, false), 12, 2).unwrap();
        let shape: Vec<_> = chunks.iter().map(|c| (c.order, c.tokens)).collect();
        assert_eq!(shape, vec![(0, 12), (1, 12), (2, 3)]);
    }

    #[test]
    fn empty_pieces_are_dropped_without_renumbering() {
        let tok = WordTokenizer;
        let chunks = chunk_text(&tok, "a\n\n\u{1f}\n\nb", &opts(Some("\n\n"), false), 10, 2).unwrap();
        let shape: Vec<_> = chunks.iter().map(|c| (c.order, c.content.as_str())).collect();
        assert_eq!(shape, vec![(0, "a"), (2, "b")]);
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
    fn overlap_must_be_smaller_than_size_when_windows_are_cut() {
        let tok = WordTokenizer;
        assert!(chunk_text(&tok, "a", &opts(None, false), 10, 10).is_err());
        assert!(chunk_text(&tok, "a", &opts(None, false), 0, 0).is_err());
        // delimiter-only splitting never cuts a window: LightRAG accepts any overlap there
        let chunks = chunk_text(&tok, "a b\nc", &opts(Some("\n"), true), 5, 10).unwrap();
        assert_eq!(chunks.len(), 2);
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
            if overlap >= size && sep.is_none() {
                proptest::prop_assert!(res.is_err());
            } else if let Ok(chunks) = res {
                for (i, c) in chunks.iter().enumerate() {
                    proptest::prop_assert!(i == 0 || c.order > chunks[i - 1].order);
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
