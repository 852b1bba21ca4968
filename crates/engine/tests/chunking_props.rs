//! Property tests of the chunker with the real tokenizer (`o200k_base`).
//!
//! * Any text (any unicode, control characters, any separator) never panics; every chunk is
//!   within the token limit, stripped and non-empty, in strictly increasing order; with
//!   `split_by_character_only` a document fails exactly when one of its pieces is too large.
//! * Texts of words that are one token each (checked, so the test cannot pass on a tokenizer
//!   that splits them) give exactly the windows LightRAG cuts: they cover the text in order and
//!   consecutive windows share exactly `overlap` tokens; with a separator every piece that fits
//!   is one chunk and the others are windowed the same way.
//!
//! `PROPTEST_CASES=5000 cargo test -p lightrag-engine --test integration chunking_props::` for a
//! long run (the default is small enough for CI).

use std::sync::LazyLock;

use lightrag_engine::EngineError;
use lightrag_engine::indexing::chunking::chunk_text;
use lightrag_engine::indexing::input_text::python_strip;
use lightrag_ports::{ChunkingOptions, Tokenizer};
use lightrag_tokenizer::TiktokenTokenizer;
use proptest::prelude::*;
use proptest::test_runner::Config;

static TOKENIZER: LazyLock<TiktokenTokenizer> = LazyLock::new(|| TiktokenTokenizer::o200k().unwrap());

fn cases(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    Config { cases, failure_persistence: None, ..Config::default() }
}

/// Words that are one `o200k_base` token alone and after a space.
const WORDS: &[&str] = &[
    "the", "ship", "sea", "river", "report", "light", "graph", "and", "of", "is", "time", "water", "world", "people",
    "city", "day", "Paris", "London", "data", "music", "book", "new", "old", "king", "peace", "über", "für", "日本",
    "中国", "и", "的", "que", "el",
];

fn options(separator: Option<&str>, only: bool) -> ChunkingOptions {
    ChunkingOptions {
        split_by_character: separator.map(str::to_string),
        split_by_character_only: only,
        ..Default::default()
    }
}

/// Text that stresses the tokenizer and the stripping: any printable text, emoji, CJK,
/// combining marks, right-to-left text, control and information-separator characters.
fn wild_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "\\PC{0,40}",
        "[\\x00-\\x1f\\x7f ]{0,6}",
        proptest::sample::select(
            &["🐋🦀", "日本語のテキスト", "e\u{301}", "שלום עולם", "\u{200b}", "\r\n", "\u{feff}", "👩‍👩‍👧"][..]
        )
        .prop_map(str::to_string),
    ];
    proptest::collection::vec(piece, 0..12).prop_map(|p| p.concat())
}

fn one_token_words(n: std::ops::Range<usize>) -> impl Strategy<Value = Vec<&'static str>> {
    proptest::collection::vec(proptest::sample::select(WORDS), n)
}

/// The windows of `words` (one token each) as LightRAG cuts them.
fn windows(words: &[&str], size: usize, step: usize) -> Vec<String> {
    (0..words.len()).step_by(step).map(|start| words[start..(start + size).min(words.len())].join(" ")).collect()
}

#[test]
fn the_word_pool_is_one_token_per_word() {
    let tok = &*TOKENIZER;
    let split: Vec<&str> =
        WORDS.iter().copied().filter(|w| tok.encode(w).len() != 1 || tok.encode(&format!(" {w}")).len() != 1).collect();
    assert!(split.is_empty(), "not one token alone and after a space: {split:?}; pick other words");
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn any_text_gives_stripped_chunks_within_the_limit(
        text in wild_text(),
        size in 1usize..24,
        overlap in 0usize..24,
        separator in proptest::option::of(proptest::sample::select(&["\n\n", "\n", " ", "。", "\u{1f}", "🐋", "e"][..])),
        only: bool,
    ) {
        let tok = &*TOKENIZER;
        let result = chunk_text(tok, &text, &options(separator, only), size, overlap);
        let too_large = separator.is_some_and(|s| text.split(s).any(|p| tok.encode(p).len() > size));
        match result {
            Ok(chunks) => {
                prop_assert!(!(only && too_large), "a piece over {size} tokens was accepted with split_by_character_only");
                prop_assert!(separator.is_some() || overlap < size || chunks.is_empty() || tok.encode(&text).is_empty());
                for (i, c) in chunks.iter().enumerate() {
                    prop_assert!(c.tokens <= size, "{} tokens > {size}", c.tokens);
                    prop_assert!(!c.content.is_empty() && python_strip(&c.content) == c.content);
                    prop_assert!(i == 0 || c.order > chunks[i - 1].order);
                }
            }
            Err(EngineError::ChunkTooLarge { tokens, limit, .. }) => {
                prop_assert!(only && too_large && tokens > limit && limit == size);
            }
            Err(EngineError::Invalid(_)) => prop_assert!(overlap >= size, "refused with overlap {overlap} < size {size}"),
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }

    #[test]
    fn windows_cover_the_text_in_order_with_the_configured_overlap(
        words in one_token_words(0..80),
        (size, overlap) in (1usize..20).prop_flat_map(|size| (Just(size), 0..size)),
    ) {
        let tok = &*TOKENIZER;
        let text = words.join(" ");
        prop_assert_eq!(tok.encode(&text).len(), words.len(), "the words must be one token each");
        let chunks = chunk_text(tok, &text, &options(None, false), size, overlap).unwrap();
        let contents: Vec<String> = chunks.iter().map(|c| c.content.clone()).collect();
        prop_assert_eq!(contents, windows(&words, size, size - overlap));
        for (i, c) in chunks.iter().enumerate() {
            prop_assert_eq!(c.order, i);
            prop_assert_eq!(c.tokens, (words.len() - i * (size - overlap)).min(size));
        }
    }

    #[test]
    fn separator_pieces_that_fit_are_chunks_and_the_others_are_windowed(
        pieces in proptest::collection::vec(one_token_words(1..30), 1..8),
        separator in proptest::sample::select(&["\n\n", "|", "。"][..]),
        size in 2usize..20,
        overlap in 0usize..2,
    ) {
        let tok = &*TOKENIZER;
        let text = pieces.iter().map(|p| p.join(" ")).collect::<Vec<_>>().join(separator);
        let mut want = Vec::new();
        for piece in &pieces {
            if piece.len() <= size {
                want.push(piece.join(" "));
            } else {
                want.extend(windows(piece, size, size - overlap));
            }
        }
        let chunks = chunk_text(tok, &text, &options(Some(separator), false), size, overlap).unwrap();
        let contents: Vec<String> = chunks.iter().map(|c| c.content.clone()).collect();
        prop_assert_eq!(contents, want);
        prop_assert!(chunks.iter().enumerate().all(|(i, c)| c.order == i && c.tokens <= size));
        let only = chunk_text(tok, &text, &options(Some(separator), true), size, overlap);
        prop_assert_eq!(only.is_err(), pieces.iter().any(|p| p.len() > size));
    }
}
