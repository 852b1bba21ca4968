//! Query keywords (§6.1): from the caller, from the LLM (JSON answer, parsed defensively), or from
//! rules when no LLM is used.

use lightrag_ports::{ChatRequest, UsageRole};
use serde_json::Value;

use crate::engine::Inner;
use crate::error::Result;
use crate::prompts;
use crate::providers::gateway::{CacheSpec, ChatCall};
use crate::providers::usage_scope::UsageScope;

use super::param::{QueryMode, QueryParam};

/// High- and low-level keywords of a question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keywords {
    /// Themes (searched in the relation index).
    pub high_level: Vec<String>,
    /// Names and terms (searched in the entity index).
    pub low_level: Vec<String>,
}

impl Keywords {
    /// True when both lists are empty.
    pub fn is_empty(&self) -> bool {
        self.high_level.is_empty() && self.low_level.is_empty()
    }
}

/// Queries shorter than this (in characters) become their own low-level keyword when no keyword
/// was found.
const SHORT_QUERY_CHARS: usize = 50;

/// The keywords for a graph query, or `None` when none could be found (→ fail response).
/// An LLM call (or cache hit) is counted in `scope`.
pub(crate) async fn keywords_for(
    inner: &Inner,
    query: &str,
    param: &QueryParam,
    scope: &UsageScope,
) -> Result<Option<Keywords>> {
    let given = Keywords { high_level: clean_list(&param.hl_keywords), low_level: clean_list(&param.ll_keywords) };
    let mut keywords = if !given.is_empty() {
        given
    } else if inner.gateway.has_llm() && param.use_llm_keywords.unwrap_or(inner.config.query.llm_keywords) {
        llm_keywords(inner, query, param.mode, scope).await?
    } else {
        rule_keywords(query)
    };
    if keywords.is_empty() {
        if query.chars().count() < SHORT_QUERY_CHARS {
            keywords.low_level = vec![query.to_string()];
        } else {
            return Ok(None);
        }
    }
    Ok(Some(keywords))
}

fn clean_list(list: &[String]) -> Vec<String> {
    list.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// The keyword request for a question (the query mode is not part of it, only of its cache key).
pub(crate) fn keywords_request(query: &str, language: &str) -> ChatRequest {
    ChatRequest { prompt: prompts::keywords(query, language), json_mode: true, ..ChatRequest::default() }
}

async fn llm_keywords(inner: &Inner, query: &str, mode: QueryMode, scope: &UsageScope) -> Result<Keywords> {
    let request = keywords_request(query, &inner.config.extraction.language);
    let cache = CacheSpec {
        mode: mode.as_str(),
        cache_type: "keywords",
        chunk_id: None,
        enabled: inner.config.llm.enable_cache,
    };
    let call = ChatCall::new(UsageRole::Keywords, &request).cached(cache).scoped(scope);
    let reply = inner.gateway.chat(call).await?.text().await?;
    let parsed = parse_keywords(&reply.content);
    if parsed.is_none() {
        tracing::warn!("the keyword answer of the LLM was not a JSON object; continuing without keywords");
    }
    Ok(parsed.unwrap_or_default())
}

/// Keywords without an LLM (rules from `lightrag-nlp`).
fn rule_keywords(query: &str) -> Keywords {
    let found = lightrag_nlp::query_keywords(query);
    Keywords { high_level: found.high_level, low_level: found.low_level }
}

/// Parses the LLM's keyword answer. Tolerates `<think>` blocks, code fences, text around the JSON
/// object, trailing commas and single strings instead of lists. `None` when no JSON object with
/// keyword fields can be read.
pub fn parse_keywords(raw: &str) -> Option<Keywords> {
    let text = strip_think(raw);
    let text = strip_fences(text);
    let object = json_object(text)?;
    let list = |key: &str| -> Vec<String> {
        match object.get(key) {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).flat_map(split_keyword).collect(),
            Some(Value::String(s)) => split_keyword(s),
            _ => Vec::new(),
        }
    };
    Some(Keywords { high_level: list("high_level_keywords"), low_level: list("low_level_keywords") })
}

/// Splits one keyword string on newlines, commas and semicolons.
fn split_keyword(s: &str) -> Vec<String> {
    s.split(['\n', ',', ';']).map(str::trim).filter(|p| !p.is_empty()).map(str::to_string).collect()
}

/// Drops `<think>…</think>` reasoning (and everything before a lone closing tag).
pub(crate) fn strip_think(raw: &str) -> &str {
    let mut text = raw;
    if let Some(end) = text.rfind("</think>") {
        text = &text[end + "</think>".len()..];
    } else if let Some(start) = text.find("<think>") {
        // An unclosed reasoning block: keep what came before it.
        text = &text[..start];
    }
    text.trim()
}

/// Removes a surrounding ```` ```json ```` fence.
pub(crate) fn strip_fences(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else { return t };
    let rest = rest.split_once('\n').map(|(_, body)| body).unwrap_or("");
    rest.trim_end().strip_suffix("```").unwrap_or(rest).trim()
}

/// The first JSON object in `text` (from the first `{` to the last `}`), with a light repair pass.
pub(crate) fn json_object(text: &str) -> Option<serde_json::Map<String, Value>> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    if end < start {
        return None;
    }
    let candidate = &text[start..=end];
    let parsed = serde_json::from_str::<Value>(candidate)
        .ok()
        .or_else(|| serde_json::from_str::<Value>(&remove_trailing_commas(candidate)).ok())?;
    match parsed {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// Removes commas directly before `]` or `}` (outside strings).
fn remove_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|n| !n.is_whitespace());
            if matches!(next, Some(']') | Some('}')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn kw(h: &[&str], l: &[&str]) -> Keywords {
        Keywords {
            high_level: h.iter().map(|s| s.to_string()).collect(),
            low_level: l.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn parses_plain_json() {
        let out = parse_keywords(r#"{"high_level_keywords": ["trade", "railway"], "low_level_keywords": ["Omaha"]}"#);
        assert_eq!(out, Some(kw(&["trade", "railway"], &["Omaha"])));
    }

    #[test]
    fn strips_think_blocks_fences_and_surrounding_text() {
        let raw = "<think>Let me think {not json}</think>\n```json\n{\"high_level_keywords\": [\"a\"], \
                   \"low_level_keywords\": [\"B\"]}\n```";
        assert_eq!(parse_keywords(raw), Some(kw(&["a"], &["B"])));
        let chatty = "Sure! Here it is: {\"high_level_keywords\": [\"x\"], \"low_level_keywords\": []} Hope it helps.";
        assert_eq!(parse_keywords(chatty), Some(kw(&["x"], &[])));
    }

    #[test]
    fn splits_values_and_drops_non_strings() {
        let raw = r#"{"high_level_keywords": ["a, b; c\nd", 7, null, ""], "low_level_keywords": "E;F"}"#;
        assert_eq!(parse_keywords(raw), Some(kw(&["a", "b", "c", "d"], &["E", "F"])));
    }

    #[test]
    fn repairs_trailing_commas_but_keeps_commas_in_strings() {
        let raw = r#"{"high_level_keywords": ["x,", "y",], "low_level_keywords": ["z"],}"#;
        assert_eq!(parse_keywords(raw), Some(kw(&["x", "y"], &["z"])));
    }

    #[test]
    fn rule_keywords_come_from_the_nlp_crate() {
        let k = rule_keywords("How did Captain Ahab hunt the white whale near Cape Horn?");
        assert!(k.low_level.iter().any(|w| w.contains("Ahab")), "{k:?}");
        assert!(k.high_level.iter().any(|w| w.contains("whale")), "{k:?}");
    }

    proptest::proptest! {
        #[test]
        fn parsing_never_panics_and_yields_trimmed_non_empty_keywords(raw in ".{0,200}") {
            if let Some(k) = parse_keywords(&raw) {
                for w in k.high_level.iter().chain(&k.low_level) {
                    proptest::prop_assert!(!w.is_empty() && w.trim() == w);
                }
            }
        }

        #[test]
        fn lists_of_plain_words_round_trip(words in proptest::collection::vec("[a-z]{1,8}", 0..6)) {
            let json = serde_json::json!({"high_level_keywords": words, "low_level_keywords": []}).to_string();
            let k = parse_keywords(&json).unwrap();
            proptest::prop_assert_eq!(k.high_level, words);
        }
    }

    #[test]
    fn garbage_gives_none_without_panicking() {
        for raw in ["", "no json here", "{", "}{", "[1,2]", "```", "<think>", "{\"a\": }", "\u{0}{\u{1}}"] {
            let _ = parse_keywords(raw);
        }
        assert_eq!(parse_keywords("not json"), None);
        assert_eq!(parse_keywords("[\"a\"]"), None);
        assert_eq!(parse_keywords("{\"other\": 1}"), Some(Keywords::default()));
    }
}
