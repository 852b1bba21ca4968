//! The LLM cache entries that do not belong to an imported chunk: keyword answers, description
//! summaries, query answers, extractions of chunks that are gone.
//!
//! Our prompts are our own words, so LightRAG's cache keys never match our requests. An answer
//! whose format our request expects too is stored under the key our request for the same work
//! has: keywords of the same question in the same mode (a JSON object with
//! `high_level_keywords`/`low_level_keywords` in both), and summaries of the same description
//! list of the same entity or relation (plain text in both). Everything else — query answers
//! (our answer prompt differs), extractions of chunks that were not imported, summaries whose
//! subject cannot be read back — is kept under its LightRAG key with its type, for inspection.

use std::collections::{BTreeMap, HashSet};

use lightrag_engine::Engine;
use lightrag_engine::providers::cache_keys::SummarySubject;
use lightrag_engine::retrieval::query::QueryMode;
use lightrag_ports::CacheEntry;
use serde::Serialize;
use serde_json::Value;

use crate::source::kv::CacheRow;

/// Counts of one cache type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TypeCounts {
    /// Entries of this type in LightRAG's cache.
    pub total: usize,
    /// Stored under the key of our own request for the same work (reused: no LLM call).
    pub reused: usize,
    /// Stored under their LightRAG key (kept for inspection; our requests never hit them).
    pub kept: usize,
}

/// Counts per cache type (`extract`, `keywords`, `summary`, `query`, …).
pub type CacheCounts = BTreeMap<String, TypeCounts>;

/// The cache type of an entry (its field, else the middle part of its key).
pub fn cache_type(key: &str, row: &CacheRow) -> String {
    row.cache_type.clone().unwrap_or_else(|| key.split(':').nth(1).unwrap_or("unknown").to_string())
}

/// Entries not consumed by an imported chunk, ready to store, and their counts.
pub fn remainder(
    engine: &Engine,
    cache: &BTreeMap<String, CacheRow>,
    consumed: &HashSet<String>,
) -> (Vec<CacheEntry>, CacheCounts) {
    let mut out = Vec::new();
    let mut counts = CacheCounts::new();
    for (key, row) in cache.iter().filter(|(k, _)| !consumed.contains(*k)) {
        let kind = cache_type(key, row);
        let ours = match kind.as_str() {
            "keywords" => keywords_key(engine, key, row),
            "summary" => row
                .original_prompt
                .as_deref()
                .and_then(parse_summary_prompt)
                .and_then(|(subject, descriptions)| engine.summary_cache_key(&subject, &descriptions)),
            _ => None,
        };
        let slot = counts.entry(kind.clone()).or_default();
        slot.total += 1;
        if ours.is_some() {
            slot.reused += 1;
        } else {
            slot.kept += 1;
        }
        out.push(CacheEntry {
            key: ours.unwrap_or_else(|| key.clone()),
            cache_type: kind,
            response: row.answer.clone(),
            chunk_id: row.chunk_id.clone(),
            created_at: row.create_time.as_ref().and_then(|t| t.millis()).unwrap_or(0),
        });
    }
    (out, counts)
}

/// Our key for a keyword entry: the same question in the same mode (the mode is the first part of
/// LightRAG's key, or `queryparam.mode`).
fn keywords_key(engine: &Engine, key: &str, row: &CacheRow) -> Option<String> {
    let question = row.original_prompt.as_deref()?.trim();
    if question.is_empty() {
        return None;
    }
    let mode = key
        .split(':')
        .next()
        .and_then(|m| m.parse::<QueryMode>().ok())
        .or_else(|| row.queryparam.as_ref()?.get("mode")?.as_str()?.parse::<QueryMode>().ok())?;
    engine.keywords_cache_key(question, mode)
}

/// Reads the subject and the description list back out of LightRAG's summary prompt
/// (`Entity Name: X` or `Relation Name: (A, B)` / `Relation Name: A-B`, then `Description List:`
/// and a fenced block of `{"Description": …}` lines). `None` when the prompt does not have that
/// shape or a relation's two names cannot be told apart.
pub fn parse_summary_prompt(prompt: &str) -> Option<(SummarySubject, Vec<String>)> {
    let list_at = prompt.find("Description List:")?;
    let head = &prompt[..list_at];
    let name_line = head.lines().rev().find(|l| l.contains(" Name: "))?;
    let (kind, name) = name_line.split_once(" Name: ")?;
    let subject = match kind.trim() {
        "Entity" => SummarySubject::Entity(name.trim().to_string()),
        "Relation" => relation_names(name.trim())?,
        _ => return None,
    };
    let body = &prompt[list_at..];
    let open = body.find("```")? + 3;
    let rest = &body[open..];
    let close = rest.find("\n```")?;
    let mut descriptions = Vec::new();
    for line in rest[..close].lines().map(str::trim).filter(|l| !l.is_empty()) {
        let value: Value = serde_json::from_str(line).ok()?;
        descriptions.push(value.get("Description")?.as_str()?.to_string());
    }
    (!descriptions.is_empty()).then_some((subject, descriptions))
}

fn relation_names(name: &str) -> Option<SummarySubject> {
    let (a, b) = if let Some(inner) = name.strip_prefix('(').and_then(|n| n.strip_suffix(')')) {
        let mut parts = inner.split(", ");
        let (a, b) = (parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        (a, b)
    } else {
        let mut parts = name.split('-');
        let (a, b) = (parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        (a, b)
    };
    let (a, b) = (a.trim(), b.trim());
    (!a.is_empty() && !b.is_empty()).then(|| SummarySubject::Relation(a.to_string(), b.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn prompt(name_line: &str) -> String {
        format!(
            "---Role---\nYou are …\n---Input---\n{name_line}\n\nDescription List:\n\n```\n{{\"Description\": \"one\"}}\n\
             {{\"Description\": \"two \\\"quoted\\\"\"}}\n```\n\n---Output---\n"
        )
    }

    #[test]
    fn summary_prompts_are_read_back() {
        let (subject, list) = parse_summary_prompt(&prompt("Entity Name: Marina Castell")).unwrap();
        assert_eq!(subject, SummarySubject::Entity("Marina Castell".into()));
        assert_eq!(list, ["one", "two \"quoted\""]);
        let (subject, _) = parse_summary_prompt(&prompt("Relation Name: (Port Avalon, Kestrel River)")).unwrap();
        assert_eq!(subject, SummarySubject::Relation("Port Avalon".into(), "Kestrel River".into()));
        let (subject, _) = parse_summary_prompt(&prompt("Relation Name: Greta Holm-Kestrel River")).unwrap();
        assert_eq!(subject, SummarySubject::Relation("Greta Holm".into(), "Kestrel River".into()));
        assert!(parse_summary_prompt(&prompt("Relation Name: Jean-Luc-Paris")).is_none(), "ambiguous");
        assert!(parse_summary_prompt("no list here").is_none());
        assert!(parse_summary_prompt(&prompt("Other Name: x")).is_none());
    }
}
