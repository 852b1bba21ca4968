//! Property tests of the keyword-answer parser on structured input: keyword lists written as
//! LLMs write them (compact or pretty JSON, a code fence, a `<think>` block, chatter around the
//! object, trailing commas, one string instead of a list, extra keys), which must come back
//! exactly, and real answers (the LightRAG 1.5.7 cache fixture) cut and damaged anywhere, which
//! must never panic.
//!
//! `PROPTEST_CASES=20000 cargo test -p lightrag-engine --lib keywords_props` for a long run.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::keywords::{Keywords, parse_keywords};
use crate::indexing::extract::parse_props::cases;

/// The keyword answers of the LightRAG 1.5.7 fixture (real LLM output).
fn real_answers() -> Vec<String> {
    let cache: Value = serde_json::from_str(include_str!(
        "../../../../tools/lightrag-import/tests/fixtures/lightrag-1.5.7/basic/kv_store_llm_response_cache.json"
    ))
    .unwrap_or_else(|e| panic!("the LightRAG cache fixture is not JSON: {e}"));
    let entries = cache.as_object().map(|o| o.values().cloned().collect::<Vec<_>>()).unwrap_or_default();
    let answers: Vec<String> = entries
        .iter()
        .filter(|e| e["cache_type"] == "keywords")
        .filter_map(|e| e["return"].as_str().map(str::to_string))
        .collect();
    assert!(answers.len() >= 5, "the fixture lost its keyword answers");
    answers
}

/// One keyword: trimmed, non-empty, without the separators the parser splits on, in any script
/// and with characters JSON must escape.
fn keyword() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        "[A-Za-z0-9]{1,10}",
        proptest::sample::select(
            &["東京", "économie", "say \"hi\"", "back\\slash", "a/b", "🐋", "{braces}", "tab\there"][..]
        )
        .prop_map(str::to_string),
    ];
    proptest::collection::vec(word, 1..3).prop_map(|w| w.join(" "))
}

fn keyword_list() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(keyword(), 0..6)
}

/// The JSON object as an LLM might write it.
fn render(high: &[String], low: &[String], shape: u8, wrap: u8) -> String {
    let list = |items: &[String]| Value::from(items.to_vec());
    let object = match shape {
        0 => json!({"high_level_keywords": list(high), "low_level_keywords": list(low)}).to_string(),
        1 => serde_json::to_string_pretty(&json!({"low_level_keywords": list(low), "high_level_keywords": list(high)}))
            .unwrap_or_default(),
        // trailing commas after the last item and the last member
        2 => {
            let items = |v: &[String]| v.iter().map(|k| format!("{},", Value::from(k.as_str()))).collect::<String>();
            format!("{{\"high_level_keywords\": [{}], \"low_level_keywords\": [{}],}}", items(high), items(low))
        }
        // one comma-separated string instead of a list, and an extra key
        _ => json!({"high_level_keywords": high.join(", "), "low_level_keywords": low.join("; "), "note": [1, {}]})
            .to_string(),
    };
    match wrap {
        0 => object,
        1 => format!("```json\n{object}\n```"),
        2 => format!("<think>The user asks about {{things}}; list them.</think>\n{object}"),
        _ => format!("Sure! Here are the keywords:\n{object}\nHope this helps."),
    }
}

proptest! {
    #![proptest_config(cases(256))]

    /// Keywords come back exactly, whatever shape and wrapping the answer has.
    #[test]
    fn keyword_lists_round_trip_in_every_shape(high in keyword_list(), low in keyword_list(), shape in 0..4u8, wrap in 0..4u8) {
        let raw = render(&high, &low, shape, wrap);
        let parsed = parse_keywords(&raw);
        prop_assert_eq!(parsed, Some(Keywords { high_level: high, low_level: low }), "{}", raw);
    }

    /// A real answer cut at any character, or with a character removed or inserted, never
    /// panics, and whatever is read is trimmed and non-empty.
    #[test]
    fn damaged_real_answers_never_panic(
        seed in any::<proptest::sample::Index>(),
        at in any::<proptest::sample::Index>(),
        damage in 0..3u8,
        inserted in proptest::sample::select(&['"', '{', '}', ',', '[', ']', '\\', '\u{0}', 'é', '\n'][..]),
    ) {
        let answers = real_answers();
        let answer = &answers[seed.index(answers.len())];
        let chars: Vec<char> = answer.chars().collect();
        let i = at.index(chars.len() + 1);
        let damaged: String = match damage {
            0 => chars[..i].iter().collect(),
            1 => chars.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, c)| *c).collect(),
            _ => chars[..i].iter().chain([inserted].iter()).chain(chars[i..].iter()).collect(),
        };
        if let Some(k) = parse_keywords(&damaged) {
            for w in k.high_level.iter().chain(&k.low_level) {
                prop_assert!(!w.is_empty() && w.trim() == w, "{w:?} from {damaged:?}");
            }
        }
    }
}

#[test]
fn every_real_keyword_answer_parses_to_its_lists() {
    for answer in real_answers() {
        let v: Value = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer}"));
        let list = |key: &str| -> Vec<String> {
            v[key]
                .as_array()
                .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
                .unwrap_or_default()
        };
        let want = Keywords { high_level: list("high_level_keywords"), low_level: list("low_level_keywords") };
        assert_eq!(parse_keywords(&answer), Some(want), "{answer}");
    }
}
