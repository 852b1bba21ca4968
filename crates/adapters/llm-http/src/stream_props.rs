//! Property tests of the streamed-answer decoders, through the real driver ([`text_stream`] over
//! a `reqwest::Response` whose body arrives in the given pieces):
//!
//! * a valid OpenAI SSE stream or Ollama NDJSON stream (any text in its deltas, `\r\n` or `\n`,
//!   comments, `event:` lines, data split over several `data:` lines, usage events, blank lines)
//!   gives exactly its non-empty deltas, however its bytes are split into pushes;
//! * arbitrary bytes, split anywhere, never panic: the stream yields text and at most one error,
//!   as its last item;
//! * the UTF-8 decoder of plain-text streams gives the text back for any split.
//!
//! `PROPTEST_CASES=5000 cargo test -p lightrag-llm-http --lib stream_props` for a long run.

use std::time::Duration;

use futures::StreamExt;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::json;

use crate::chat::{ollama_line, openai_event};
use crate::http::{Auth, Transport};
use crate::stream::{SseDecoder, Step, Utf8Decoder, text_stream};

fn cases(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    Config { cases, failure_persistence: None, ..Config::default() }
}

#[derive(Debug, Clone, Copy)]
enum Protocol {
    OpenAi,
    Ollama,
}

/// `bytes` cut at `cuts` (indexes into it, any order, repeats allowed).
fn split(bytes: &[u8], cuts: &[prop::sample::Index]) -> Vec<Vec<u8>> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
    at.push(0);
    at.push(bytes.len());
    at.sort_unstable();
    at.windows(2).map(|w| bytes[w[0]..w[1]].to_vec()).collect()
}

/// What the driver yields for a body arriving in `pieces`: texts, then an error if one ended it.
fn decode(protocol: Protocol, pieces: Vec<Vec<u8>>) -> (Vec<String>, Option<String>) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async move {
        let body = futures::stream::iter(pieces.into_iter().map(Ok::<_, std::io::Error>));
        let response = reqwest::Response::from(http::Response::new(reqwest::Body::wrap_stream(body)));
        let transport = Transport::new(Duration::from_secs(5), Auth::None).unwrap();
        let stream = match protocol {
            Protocol::Ollama => text_stream(response, transport, ollama_line),
            Protocol::OpenAi => {
                let mut sse = SseDecoder::default();
                text_stream(response, transport, move |line| match sse.line(line) {
                    Some(data) => openai_event(&data),
                    None => Step::Skip,
                })
            }
        };
        let items: Vec<_> = stream.collect().await;
        let mut texts = Vec::new();
        let mut error = None;
        for (i, item) in items.iter().enumerate() {
            match item {
                Ok(text) => texts.push(text.clone()),
                Err(e) => {
                    assert_eq!(i, items.len() - 1, "an error must end the stream: {items:?}");
                    error = Some(e.to_string());
                }
            }
        }
        (texts, error)
    })
}

/// Deltas as models send them: any text, often empty, with newlines, quotes and any script.
fn deltas() -> impl Strategy<Value = Vec<String>> {
    let delta = prop_oneof![
        "\\PC{0,12}",
        Just(String::new()),
        proptest::sample::select(&["\n", "\r\n", "\"quoted\"", "data: x", "[DONE]", "日本語", "🐋", "\\", "\u{0}"][..])
            .prop_map(str::to_string),
    ];
    proptest::collection::vec(delta, 0..12)
}

/// An OpenAI SSE body carrying `deltas`, framed in one of the ways servers frame it.
fn openai_body(deltas: &[String], style: u8) -> Vec<u8> {
    let nl = if style & 1 == 1 { "\r\n" } else { "\n" };
    let mut out = String::new();
    if style & 2 == 2 {
        out.push_str(&format!(": keep-alive{nl}{nl}"));
    }
    for (i, d) in deltas.iter().enumerate() {
        let event = json!({"choices": [{"index": 0, "delta": {"content": d}}]}).to_string();
        if style & 4 == 4 {
            out.push_str(&format!("event: message{nl}id: {i}{nl}"));
        }
        if style & 8 == 8 && event.contains(",\"delta\"") {
            // one event over two data lines (joined with a newline, still JSON)
            let (head, tail) = event.split_at(event.find(",\"delta\"").unwrap_or(0));
            out.push_str(&format!("data: {head}{nl}data:{tail}{nl}{nl}"));
        } else {
            out.push_str(&format!("data: {event}{nl}{nl}"));
        }
    }
    out.push_str(&format!("data: {}{nl}{nl}", json!({"choices": [], "usage": {"prompt_tokens": 3}})));
    out.push_str(&format!("data: [DONE]{nl}{nl}"));
    // anything after [DONE] is never read
    out.push_str("data: {not json");
    out.into_bytes()
}

/// An Ollama NDJSON body carrying `deltas`.
fn ollama_body(deltas: &[String], style: u8) -> Vec<u8> {
    let nl = if style & 1 == 1 { "\r\n" } else { "\n" };
    let mut out = String::new();
    for d in deltas {
        out.push_str(&format!(
            "{}{nl}",
            json!({"model": "m", "message": {"role": "assistant", "content": d}, "done": false})
        ));
        if style & 2 == 2 {
            out.push_str(nl);
        }
    }
    out.push_str(&json!({"message": {"content": ""}, "done": true, "eval_count": 4}).to_string());
    if style & 4 == 4 {
        out.push_str(nl);
    }
    out.into_bytes()
}

fn non_empty(deltas: &[String]) -> Vec<String> {
    deltas.iter().filter(|d| !d.is_empty()).cloned().collect()
}

proptest! {
    #![proptest_config(cases(128))]

    #[test]
    fn any_split_of_an_openai_stream_gives_its_deltas(
        deltas in deltas(),
        style in 0..16u8,
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let body = openai_body(&deltas, style);
        let (texts, error) = decode(Protocol::OpenAi, split(&body, &cuts));
        prop_assert_eq!(error, None);
        prop_assert_eq!(texts, non_empty(&deltas));
    }

    #[test]
    fn any_split_of_an_ollama_stream_gives_its_deltas(
        deltas in deltas(),
        style in 0..8u8,
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let body = ollama_body(&deltas, style);
        let (texts, error) = decode(Protocol::Ollama, split(&body, &cuts));
        prop_assert_eq!(error, None);
        prop_assert_eq!(texts, non_empty(&deltas));
    }

    /// Noise, or a valid stream with bytes flipped, never panics, whatever the split; the
    /// result does not depend on the split either.
    #[test]
    fn arbitrary_bytes_never_panic_and_do_not_depend_on_the_split(
        noise in proptest::collection::vec(any::<u8>(), 0..400),
        deltas in deltas(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 1..=255u8), 0..6),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..20),
        openai: bool,
    ) {
        let protocol = if openai { Protocol::OpenAi } else { Protocol::Ollama };
        for mut body in [noise.clone(), if openai { openai_body(&deltas, 5) } else { ollama_body(&deltas, 1) }] {
            for (at, bits) in &flips {
                if !body.is_empty() {
                    let i = at.index(body.len());
                    body[i] ^= bits;
                }
            }
            let whole = decode(protocol, vec![body.clone()]);
            let pieces = decode(protocol, split(&body, &cuts));
            prop_assert_eq!(pieces, whole);
        }
    }

    #[test]
    fn plain_text_streams_decode_utf8_across_any_split(
        text in "\\PC{0,200}",
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..30),
    ) {
        let mut decoder = Utf8Decoder::default();
        let mut out: String = split(text.as_bytes(), &cuts).iter().map(|p| decoder.push(Some(p))).collect();
        out.push_str(&decoder.push(None));
        prop_assert_eq!(out, text);
    }
}
