//! Summaries of description fragments (LightRAG's map-reduce `_handle_entity_relation_summary`),
//! and what lets several processes merge the same busy record without making its summary twice.
//!
//! A merge is built before its store locks are taken (`pipeline::commit`). When two processes
//! merge a hub entity at once and both need its summary, one of them would throw its summary away
//! at commit. Two rules keep that work:
//!
//! * **summary claims** — before calling the model for a record, a merging process takes the
//!   record's claim (a store merge lock under its own key, never waited for). A process that finds
//!   the claim taken does not summarise: the fragments stay joined, to be summarised by the claim
//!   holder's commit or the record's next merge (unless they grew past twice the summary limits);
//! * **rebasing** — a merge rebuilt under the locks after a conflict keeps the summary its first
//!   build made ([`MadeSummary`]) when every fragment that summary read is still in the record:
//!   the summary stands for them and the fragments other processes appended meanwhile follow it.
//!
//! Neither rule changes what a single process does: its claims are always free and its merges
//! never conflict.

use std::collections::{HashMap, HashSet};

use lightrag_ports::{GRAPH_FIELD_SEP, GraphKey, RelKey, UsageRole};

use crate::config::{ExtractionMethod, MergeConfig};
use crate::engine::Inner;
use crate::error::Result;
use crate::prompts::{self, SummaryKind};
use crate::providers::gateway::{CacheSpec, ChatCall};
use crate::time::now_ms;

/// What a summary missing from the LLM cache may do while a merge is built.
#[derive(Clone, Copy, Default)]
pub(crate) enum SummaryPolicy<'a> {
    /// Call the model.
    #[default]
    Call,
    /// Take summaries from the LLM cache only; otherwise leave the fragments joined.
    CachedOnly,
    /// Call the model when this process wins the record's summary claim; otherwise as
    /// [`SummaryPolicy::CachedOnly`].
    Claim(&'a SummaryClaims),
}

/// The summary claims one merge took; released with its merge locks after the commit.
#[derive(Default)]
pub(crate) struct SummaryClaims {
    taken: std::sync::Mutex<Vec<String>>,
}

impl SummaryClaims {
    /// Takes the claim on a record's summary, without waiting: `false` when another process holds
    /// it. A claim expires after `LEASE_SECS` (it is not renewed: one held too long only lets
    /// another process summarise the same record, which costs a call and loses nothing).
    async fn take(&self, inner: &Inner, kind: SummaryKind, name: &str) -> Result<bool> {
        let key = claim_key(kind, name);
        let now = now_ms();
        let lease_ms = (inner.config.pipeline.lease_secs.max(3) * 1000) as i64;
        let keys = std::slice::from_ref(&key);
        let taken = inner.store.lock_keys(&inner.worker_id, keys, now, now + lease_ms).await?;
        if taken {
            self.taken.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(key);
        }
        Ok(taken)
    }

    /// The claims taken, to release.
    pub(crate) fn into_keys(self) -> Vec<String> {
        self.taken.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The merge-lock key of a record's summary claim (`\u{1}` keeps it apart from entity names);
/// `name` is the entity's name, or a relation's "A and B" ([`relation_summary_name`]).
pub fn claim_key(kind: SummaryKind, name: &str) -> String {
    let kind = match kind {
        SummaryKind::Entity => "entity",
        SummaryKind::Relation => "relation",
    };
    format!("\u{1}summary\u{1}{kind}\u{1}{name}")
}

/// A summary a merge made (or found in the cache): the fragments it read and its text.
#[derive(Debug, Clone)]
pub(crate) struct MadeSummary {
    pub key: GraphKey,
    pub fragments: Vec<String>,
    pub text: String,
}

/// The fragments to summarise for `key`, rebased on an earlier build's summary when that summary's
/// fragments are all still there: the summary, then the fragments it did not read.
pub(crate) fn rebased(
    earlier: &HashMap<&GraphKey, &MadeSummary>,
    key: &GraphKey,
    fragments: Vec<String>,
) -> Vec<String> {
    let Some(made) = earlier.get(key) else { return fragments };
    let present: HashSet<&str> = fragments.iter().map(String::as_str).collect();
    if !made.fragments.iter().all(|f| present.contains(f.as_str())) {
        // another process summarised the record meanwhile: the earlier summary is stale
        return fragments;
    }
    let read: HashSet<&str> = made.fragments.iter().map(String::as_str).collect();
    let appended = fragments.iter().filter(|f| !read.contains(f.as_str())).cloned();
    std::iter::once(made.text.clone()).chain(appended).collect()
}

/// Summarises description fragments when they have piled up (more than
/// `FORCE_LLM_SUMMARY_ON_MERGE`, or `SUMMARY_MAX_TOKENS`), map-reduce over
/// `SUMMARY_CONTEXT_SIZE`-token groups; an extractive cut without an LLM. What the model may be
/// called for follows `policy`, except that a description past twice the limits is summarised
/// whatever the policy (a description left joined grows with every deferral). Returns the
/// description and whether it is a summary (made now or taken from the cache).
pub(crate) async fn summarize(
    inner: &Inner,
    kind: SummaryKind,
    name: &str,
    fragments: Vec<String>,
    policy: SummaryPolicy<'_>,
) -> Result<(String, bool)> {
    let cfg = &inner.config.merge;
    let use_llm = inner.gateway.has_llm() && inner.config.extraction.method == ExtractionMethod::Llm;
    let mut fragments = fragments;
    let mut policy = policy;
    let mut used_llm = false;
    loop {
        if fragments.len() <= 1 {
            return Ok((fragments.pop().unwrap_or_default(), used_llm));
        }
        // a fragment has at most as many tokens as bytes: skip tokenizing small descriptions
        let bytes: usize = fragments.iter().map(String::len).sum();
        if fragments.len() < cfg.force_llm_summary_on_merge && bytes < cfg.summary_max_tokens {
            return Ok((fragments.join(GRAPH_FIELD_SEP), used_llm));
        }
        // the stored fragments were counted at an earlier merge: remembered, not encoded again
        let sizes = inner.fragment_tokens.counts(inner.tokenizer.as_ref(), &fragments);
        let total: usize = sizes.iter().sum();
        let small = total <= cfg.summary_context_size || fragments.len() <= 2;
        if small && fragments.len() < cfg.force_llm_summary_on_merge && total < cfg.summary_max_tokens {
            return Ok((fragments.join(GRAPH_FIELD_SEP), used_llm));
        }
        if !use_llm {
            return Ok((extractive_cut(&fragments, &sizes, cfg), used_llm));
        }
        let deferrable = fragments.len() < 2 * cfg.force_llm_summary_on_merge && total < 2 * cfg.summary_max_tokens;
        let may_call = match policy {
            _ if !deferrable => true,
            SummaryPolicy::Call => true,
            SummaryPolicy::CachedOnly => false,
            SummaryPolicy::Claim(claims) => claims.take(inner, kind, name).await?,
        };
        if may_call {
            // once allowed, the rest of a map-reduce goes on
            policy = SummaryPolicy::Call;
        }
        if small {
            if may_call {
                return Ok((llm_summary(inner, kind, name, &fragments, &sizes).await?, true));
            }
            return Ok(match cached_summary(inner, kind, name, &fragments, &sizes).await {
                Some(summary) => (summary, true),
                None => (fragments.join(GRAPH_FIELD_SEP), used_llm),
            });
        }
        if !may_call {
            return Ok((fragments.join(GRAPH_FIELD_SEP), used_llm));
        }
        // map step: group fragments into groups of at most summary_context_size tokens (with
        // their token counts, so nothing is counted twice)
        let mut groups: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
        let mut current: (Vec<String>, Vec<usize>) = (Vec::new(), Vec::new());
        let mut current_tokens = 0;
        for (fragment, size) in fragments.into_iter().zip(sizes) {
            if !current.0.is_empty() && current_tokens + size > cfg.summary_context_size && current.0.len() >= 2 {
                groups.push(std::mem::take(&mut current));
                current_tokens = 0;
            }
            current.0.push(fragment);
            current.1.push(size);
            current_tokens += size;
        }
        if !current.0.is_empty() {
            groups.push(current);
        }
        let calls = groups.into_iter().map(|(group, sizes)| async move {
            if group.len() == 1 {
                Ok(group.into_iter().next().unwrap_or_default())
            } else {
                llm_summary(inner, kind, name, &group, &sizes).await
            }
        });
        fragments = futures::future::try_join_all(calls).await?;
        used_llm = true;
    }
}

/// Without an LLM: keep whole fragments, oldest first, while they fit in `summary_max_tokens` and
/// stay fewer than `force_llm_summary_on_merge`.
fn extractive_cut(fragments: &[String], sizes: &[usize], cfg: &MergeConfig) -> String {
    let max_fragments = cfg.force_llm_summary_on_merge.saturating_sub(1).max(1);
    let mut kept = Vec::new();
    let mut tokens = 0;
    for (fragment, size) in fragments.iter().zip(sizes) {
        if !kept.is_empty() && (tokens + size > cfg.summary_max_tokens || kept.len() >= max_fragments) {
            break;
        }
        kept.push(fragment.as_str());
        tokens += size;
    }
    kept.join(GRAPH_FIELD_SEP)
}

/// One summary call over `fragments` (`sizes`: their token counts).
fn summary_cache(inner: &Inner) -> CacheSpec<'static> {
    CacheSpec {
        mode: "default",
        cache_type: "summary",
        chunk_id: None,
        enabled: inner.config.llm.enable_cache_for_extract,
    }
}

/// The summary [`llm_summary`] would make, when the LLM cache holds it.
async fn cached_summary(
    inner: &Inner,
    kind: SummaryKind,
    name: &str,
    fragments: &[String],
    sizes: &[usize],
) -> Option<String> {
    let request = summary_request(&inner.config, kind, name, fragments, sizes);
    let text = inner.gateway.cached_reply(UsageRole::Summary, &request, summary_cache(inner)).await?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

async fn llm_summary(
    inner: &Inner,
    kind: SummaryKind,
    name: &str,
    fragments: &[String],
    sizes: &[usize],
) -> Result<String> {
    let request = summary_request(&inner.config, kind, name, fragments, sizes);
    let used = summarised_fragments(inner.config.merge.summary_context_size, fragments, sizes);
    let call = ChatCall::new(UsageRole::Summary, &request).cached(summary_cache(inner));
    let reply = inner.gateway.chat(call).await?.text().await?;
    let text = reply.content.trim().to_string();
    Ok(if text.is_empty() { used.join(GRAPH_FIELD_SEP) } else { text })
}

/// The leading fragments one summary call reads: as many as fit in `context_size` tokens (at
/// least one).
fn summarised_fragments(context_size: usize, fragments: &[String], sizes: &[usize]) -> Vec<String> {
    let mut budget = context_size;
    let mut used = Vec::new();
    for (f, &n) in fragments.iter().zip(sizes) {
        if n > budget && !used.is_empty() {
            break;
        }
        budget = budget.saturating_sub(n);
        used.push(f.clone());
    }
    used
}

/// The summary request over `fragments` (`sizes`: their token counts).
pub(crate) fn summary_request(
    config: &crate::config::EngineConfig,
    kind: SummaryKind,
    name: &str,
    fragments: &[String],
    sizes: &[usize],
) -> lightrag_ports::ChatRequest {
    let used = summarised_fragments(config.merge.summary_context_size, fragments, sizes);
    let prompt = prompts::summarize_descriptions(
        kind,
        name,
        &used,
        config.merge.summary_length_recommended,
        &config.extraction.language,
    );
    lightrag_ports::ChatRequest { prompt, ..Default::default() }
}

/// The name a relation's summary request gives it.
pub(crate) fn relation_summary_name(key: &RelKey) -> String {
    format!("{} and {}", key.src, key.tgt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extractive_cut_respects_limits() {
        let cfg = MergeConfig { summary_max_tokens: 5, force_llm_summary_on_merge: 3, ..MergeConfig::default() };
        let f: Vec<String> = vec!["a b".into(), "c d".into(), "e f".into(), "g".into()];
        let sizes = vec![2, 2, 2, 1];
        assert_eq!(extractive_cut(&f, &sizes, &cfg), "a b<SEP>c d");
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_summary_is_rebased_when_other_processes_only_appended() {
        let key = GraphKey::Entity("Senate".into());
        let made = MadeSummary { key: key.clone(), fragments: strings(&["a", "b", "mine"]), text: "S".into() };
        let earlier = HashMap::from([(&key, &made)]);
        // another process appended "x" between the first build and the rebuild
        assert_eq!(rebased(&earlier, &key, strings(&["a", "b", "x", "mine"])), strings(&["S", "x"]));
        // nothing changed: the summary alone
        assert_eq!(rebased(&earlier, &key, strings(&["a", "b", "mine"])), strings(&["S"]));
    }

    #[test]
    fn a_summary_is_dropped_when_another_process_summarised_the_record() {
        let key = GraphKey::Entity("Senate".into());
        let made = MadeSummary { key: key.clone(), fragments: strings(&["a", "b", "mine"]), text: "S".into() };
        let earlier = HashMap::from([(&key, &made)]);
        let current = strings(&["T", "mine"]);
        assert_eq!(rebased(&earlier, &key, current.clone()), current);
        let other = GraphKey::Entity("House".into());
        assert_eq!(rebased(&earlier, &other, strings(&["a", "b"])), strings(&["a", "b"]));
    }
}
