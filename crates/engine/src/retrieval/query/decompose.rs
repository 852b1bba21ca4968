//! Optional query decomposition for the fused walk (`QUERY_DECOMPOSITION`, off by default).
//!
//! With a chat model configured and the setting on, the fused walk ([`super::fused`], what `auto`
//! runs for a question about particular things, and `ppr` with `chunk_fusion` `rrf`) asks the
//! model to split the question into the simple questions it chains ("Where was the director of
//! Inception born?" → "Who directed Inception?", "Where was that director born?"), with our own
//! prompt ([`prompts::decompose_question`]) and a JSON answer. Each sub-question is searched as the
//! question is — its first passages from the chunk vector index and from the lexical index, fused
//! — and each sub-question's list joins the fusion of the first hop as one more channel (weight
//! [`SUB_QUESTION_WEIGHT`]), so the second hop can start from its passages too.
//!
//! The call goes through the gateway like the keyword call: cached (cache type `decompose`),
//! counted in the usage ledger under the `keywords` role (query analysis, the model configured
//! for keywords) and in the query's trace. An answer that is not a JSON object with a list of
//! questions, fewer than two usable sub-questions, or a failed call leave the question
//! undecomposed: the retrieval is then exactly the one without the setting. LightRAG's modes
//! never send this prompt.

use lightrag_ports::{ChatRequest, RetrievalStore, TextKind, UsageRole, VectorKind};
use serde_json::Value;

use super::fusion;
use super::keywords::{json_object, strip_fences, strip_think};
use super::param::{Limits, QueryMode};
use crate::engine::Inner;
use crate::error::Result;
use crate::prompts;
use crate::providers::gateway::{CacheSpec, ChatCall, EmbedCall};
use crate::providers::limiter::Priority;
use crate::providers::usage_scope::UsageScope;

/// Most sub-questions used (the prompt asks for at most this many; more are cut).
pub const MAX_SUB_QUESTIONS: usize = 4;
/// Longest sub-question kept, in characters (a longer string is not a question but a ramble).
const MAX_SUB_QUESTION_CHARS: usize = 300;
/// Weight of each sub-question's channel in the first hop's fusion: as much as the question's
/// own vector or lexical hits.
pub const SUB_QUESTION_WEIGHT: f64 = 1.0;

/// The request for a question's decomposition.
pub(crate) fn decompose_request(question: &str) -> ChatRequest {
    ChatRequest { prompt: prompts::decompose_question(question), json_mode: true, ..ChatRequest::default() }
}

/// Reads the model's answer: the strings of `sub_questions` (a list, or one string), trimmed,
/// without repeats or the question itself, at most [`MAX_SUB_QUESTIONS`]. Tolerates `<think>`
/// blocks, code fences and text around the object. Empty — no decomposition — unless at least
/// two usable sub-questions remain: one question is the question again.
pub fn parse_sub_questions(raw: &str, question: &str) -> Vec<String> {
    let Some(object) = json_object(strip_fences(strip_think(raw))) else {
        return Vec::new();
    };
    let items: Vec<&str> = match object.get("sub_questions") {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        Some(Value::String(one)) => vec![one.as_str()],
        _ => Vec::new(),
    };
    let same = |a: &str, b: &str| normalised(a) == normalised(b);
    let mut kept: Vec<String> = Vec::new();
    for item in items {
        let cleaned: String = item.chars().filter(|c| !c.is_control()).collect();
        let item = cleaned.trim();
        let usable = !item.is_empty()
            && item.chars().count() <= MAX_SUB_QUESTION_CHARS
            && item.chars().any(char::is_alphanumeric)
            && !same(item, question)
            && !kept.iter().any(|k| same(k, item));
        if usable {
            kept.push(item.to_string());
        }
        if kept.len() == MAX_SUB_QUESTIONS {
            break;
        }
    }
    if kept.len() < 2 { Vec::new() } else { kept }
}

/// Lower-case words only, for telling questions apart.
fn normalised(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The question's sub-questions, when decomposition is on and a chat model is configured; empty
/// otherwise, and when the model's answer is unusable or the call fails (logged).
pub(crate) async fn sub_questions(inner: &Inner, question: &str, mode: QueryMode, scope: &UsageScope) -> Vec<String> {
    if !inner.config.query.ppr.decompose || !inner.gateway.has_llm() {
        return Vec::new();
    }
    let cache = CacheSpec {
        mode: mode.as_str(),
        cache_type: "decompose",
        chunk_id: None,
        enabled: inner.config.llm.enable_cache,
    };
    let request = decompose_request(question);
    let call = ChatCall::new(UsageRole::Keywords, &request).cached(cache).scoped(scope);
    let reply = match inner.gateway.chat(call).await {
        Ok(reply) => reply.text().await,
        Err(e) => Err(e),
    };
    match reply {
        Ok(reply) => {
            let found = parse_sub_questions(&reply.content, question);
            if found.is_empty() {
                tracing::debug!("the model did not split the question into sub-questions; searching it whole");
            }
            found
        }
        Err(e) => {
            tracing::warn!("query decomposition failed ({e}); searching the question whole");
            Vec::new()
        }
    }
}

/// For each sub-question, its first `depth` passages: the chunk vector index's and the lexical
/// index's hits fused as the fused walk fuses the question's own. One embedding call for all.
pub(crate) async fn channels(
    inner: &Inner,
    store: &dyn RetrievalStore,
    subs: &[String],
    limits: &Limits,
    scope: &UsageScope,
) -> Result<Vec<Vec<String>>> {
    if subs.is_empty() {
        return Ok(Vec::new());
    }
    let cfg = &inner.config.query.ppr;
    let depth = cfg.fusion_depth;
    let vectors = inner.gateway.embed(EmbedCall::new(subs, TextKind::Query, Priority::Query).scoped(scope)).await?;
    let searches = subs.iter().zip(&vectors).map(|(sub, vector)| async move {
        let words = fusion::question_words(sub);
        let (dense, lexical) = futures::try_join!(
            store.search_vectors(VectorKind::Chunk, vector, depth, limits.cosine_threshold),
            async {
                if cfg.fusion_weights.lexical > 0.0 && !words.is_empty() {
                    store.search_chunk_text(&words, depth).await
                } else {
                    Ok(Vec::new())
                }
            }
        )?;
        let lists = vec![
            (dense.into_iter().map(|h| h.key).collect::<Vec<_>>(), cfg.fusion_weights.vector),
            (lexical.into_iter().map(|h| h.key).collect(), cfg.fusion_weights.lexical),
        ];
        let mut fused = fusion::weighted_rank_fusion(lists, cfg.fusion_k, Clone::clone);
        fused.truncate(depth);
        Ok::<_, crate::error::EngineError>(fused)
    });
    let lists = futures::future::try_join_all(searches).await?;
    Ok(lists.into_iter().filter(|l| !l.is_empty()).collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const Q: &str = "Where was the director of the film Inception born?";

    fn subs(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reads_the_list_through_think_blocks_fences_and_chatter() {
        let raw = "<think>two hops {x}</think>\n```json\n{\"sub_questions\": [\"Who directed Inception?\", \
                   \"Where was Christopher Nolan born?\"]}\n```";
        assert_eq!(
            parse_sub_questions(raw, Q),
            subs(&["Who directed Inception?", "Where was Christopher Nolan born?"])
        );
        let chatty = "Sure: {\"sub_questions\": [\"A?\", \"B?\",]} done";
        assert_eq!(parse_sub_questions(chatty, Q), subs(&["A?", "B?"]));
    }

    #[test]
    fn garbage_and_single_questions_mean_no_decomposition() {
        for raw in [
            "",
            "I cannot help with that.",
            "[\"A?\", \"B?\"]",
            "{\"sub_questions\": \"Who directed Inception?\"}",
            "{\"sub_questions\": []}",
            "{\"questions\": [\"A?\", \"B?\"]}",
            "{\"sub_questions\": [1, null, {\"q\": \"A?\"}, \"B?\"]}",
            "{\"sub_questions\": [\"Where was the director of the film Inception born\", \"B?\"]}",
            "{\"sub_questions\": [\"B?\", \"b\", \"  \", \"???\"]}",
            "{\"sub_questions\": [\"Who directed Inception?\",",
        ] {
            assert_eq!(parse_sub_questions(raw, Q), Vec::<String>::new(), "{raw}");
        }
    }

    #[test]
    fn keeps_at_most_four_short_distinct_questions() {
        let long = "x".repeat(MAX_SUB_QUESTION_CHARS + 1);
        let raw = serde_json::json!({"sub_questions": ["A?", long, "a", "B?", "C?", "D?", "E?"]}).to_string();
        assert_eq!(parse_sub_questions(&raw, Q), subs(&["A?", "B?", "C?", "D?"]));
        let raw = serde_json::json!({"sub_questions": ["A\u{0}?", "B\n?"]}).to_string();
        assert_eq!(parse_sub_questions(&raw, Q), subs(&["A?", "B?"]));
    }

    proptest::proptest! {
        #[test]
        fn parsing_never_panics_and_yields_two_to_four_questions_or_none(raw in ".{0,300}") {
            let found = parse_sub_questions(&raw, Q);
            proptest::prop_assert!(found.is_empty() || (2..=MAX_SUB_QUESTIONS).contains(&found.len()));
            for s in &found {
                proptest::prop_assert!(!s.is_empty() && s.trim() == s);
            }
        }
    }
}
