//! Recovering a chunk's extraction records from LightRAG's `extract` cache entries, the way
//! LightRAG itself does before rebuilding after a deletion: the entries listed in the chunk's
//! `llm_cache_list` (or, for releases without that list, every `extract` entry of the chunk),
//! ordered by creation time, each parsed — here with our hardened parser — and combined like a
//! first pass and its gleaning.
//!
//! The answers are also stored in our cache: the first extraction under the key our own
//! extraction request for the same chunk text has, the gleaning under the key of our gleaning
//! request that follows that answer — so extracting the chunk again costs no LLM call. Answers in
//! LightRAG's JSON extraction format are kept under their LightRAG keys instead (our extraction
//! asks for the record format).

use std::collections::{BTreeMap, HashMap};

use lightrag_engine::Engine;
use lightrag_engine::indexing::extract::merge_gleaning;
use lightrag_engine::indexing::extract::parse::{ParsedExtraction, parse_extraction};
use lightrag_ports::{CacheEntry, Chunk, ChunkExtraction};
use serde_json::Value;

use crate::source::kv::CacheRow;

/// What was recovered for one chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRecovery {
    /// The records, or `None` when no extraction entry of the chunk is in the cache.
    pub extraction: Option<ChunkExtraction>,
    /// Cache entries to write with the chunk.
    pub cache: Vec<CacheEntry>,
    /// LightRAG cache keys these entries came from.
    pub consumed: Vec<String>,
    /// Answers stored under the key of our own request for the same work.
    pub rekeyed: usize,
    /// Answers kept under their LightRAG key.
    pub kept: usize,
}

/// Index of the `extract` entries of each chunk (for releases without `llm_cache_list`).
pub fn extract_entries_by_chunk(cache: &BTreeMap<String, CacheRow>) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for (key, row) in cache {
        if is_extract(key, row)
            && let Some(chunk) = &row.chunk_id
        {
            out.entry(chunk.clone()).or_default().push(key.clone());
        }
    }
    out
}

fn is_extract(key: &str, row: &CacheRow) -> bool {
    match &row.cache_type {
        Some(t) => t == "extract",
        None => key.split(':').nth(1) == Some("extract"),
    }
}

/// Recovers the extraction of `chunk` from the cache entries `listed` (its `llm_cache_list`; the
/// index is used when that is empty).
pub fn recover(
    engine: &Engine,
    chunk: &Chunk,
    listed: &[String],
    cache: &BTreeMap<String, CacheRow>,
    by_chunk: &HashMap<String, Vec<String>>,
) -> ChunkRecovery {
    let keys: Vec<&String> = if listed.is_empty() {
        by_chunk.get(&chunk.id).map(|v| v.iter().collect()).unwrap_or_default()
    } else {
        listed.iter().collect()
    };
    let mut entries: Vec<(&String, &CacheRow)> = keys
        .into_iter()
        .filter_map(|k| cache.get(k).map(|row| (k, row)))
        .filter(|(k, row)| is_extract(k, row) && row.chunk_id.as_deref().is_none_or(|c| c == chunk.id))
        .collect();
    // LightRAG replays them oldest first (stable: the list is in call order)
    entries.sort_by_key(|(_, row)| row.create_time.as_ref().and_then(|t| t.millis()).unwrap_or(0));

    let mut recovery = ChunkRecovery { extraction: None, cache: Vec::new(), consumed: Vec::new(), rekeyed: 0, kept: 0 };
    if entries.is_empty() {
        return recovery;
    }
    let limits = lightrag_engine::indexing::extract::record_limits(&engine.config().extraction);
    let mut parsed: Option<ParsedExtraction> = None;
    let mut first_answer: Option<&str> = None;
    let mut created_at = None;
    for (position, (key, row)) in entries.iter().enumerate() {
        let stamp = row.create_time.as_ref().and_then(|t| t.millis()).unwrap_or(0);
        created_at.get_or_insert(stamp);
        let json = looks_like_json(&row.answer);
        let text = if json { json_to_records(&row.answer) } else { row.answer.clone() };
        let this = parse_extraction(&text, limits);
        parsed = Some(match parsed {
            None => this,
            Some(before) => merge_gleaning(before, this),
        });
        // our key for the same work: the first extraction, then the gleaning that follows it
        let ours = match (position, json) {
            (0, false) => engine.extraction_cache_key(&chunk.content),
            (1, false) => first_answer.and_then(|first| engine.gleaning_cache_key(&chunk.content, first)),
            _ => None,
        };
        if position == 0 && !json {
            first_answer = Some(&row.answer);
        }
        let stored_key = match ours {
            Some(k) => {
                recovery.rekeyed += 1;
                k
            }
            None => {
                recovery.kept += 1;
                (*key).clone()
            }
        };
        recovery.consumed.push((*key).clone());
        recovery.cache.push(CacheEntry {
            key: stored_key,
            cache_type: "extract".to_string(),
            response: row.answer.clone(),
            chunk_id: Some(chunk.id.clone()),
            created_at: stamp,
        });
    }
    let parsed = parsed.unwrap_or_default();
    recovery.extraction = Some(ChunkExtraction {
        chunk_id: chunk.id.clone(),
        doc_id: chunk.doc_id.clone(),
        entities: parsed.entities,
        relations: parsed.relations,
        cache_keys: recovery.cache.iter().map(|e| e.key.clone()).collect(),
        created_at: created_at.unwrap_or(0),
        folded_relations: Vec::new(),
    });
    recovery
}

/// Whether an answer is in LightRAG's JSON extraction format (`ENTITY_EXTRACTION_USE_JSON`).
fn looks_like_json(answer: &str) -> bool {
    let t = answer.trim_start();
    t.starts_with('{') || t.starts_with("```json")
}

/// Rewrites a JSON extraction answer (`{"entities": [{name, type, description}], "relationships":
/// [{source, target, keywords, description}]}`) as record lines, so the one hardened parser reads
/// both formats. Unreadable JSON gives no records.
pub fn json_to_records(answer: &str) -> String {
    let t = answer.trim().trim_start_matches("```json").trim_start_matches("```").trim_end_matches("```").trim();
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(t) else {
        return String::new();
    };
    let field = |v: &Value, names: &[&str]| -> String {
        names
            .iter()
            .find_map(|n| v.get(*n))
            .map(|x| match x {
                Value::String(s) => s.clone(),
                Value::Array(items) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(","),
                other => other.to_string(),
            })
            .unwrap_or_default()
            .replace(['\n', '\r'], " ")
    };
    let mut lines = Vec::new();
    let list = |name: &str| map.get(name).and_then(Value::as_array).cloned().unwrap_or_default();
    for e in list("entities") {
        lines.push(format!(
            "entity<|#|>{}<|#|>{}<|#|>{}",
            field(&e, &["name", "entity_name"]),
            field(&e, &["type", "entity_type"]),
            field(&e, &["description"])
        ));
    }
    for r in list("relationships").into_iter().chain(list("relations")) {
        lines.push(format!(
            "relation<|#|>{}<|#|>{}<|#|>{}<|#|>{}",
            field(&r, &["source", "src_id", "source_entity"]),
            field(&r, &["target", "tgt_id", "target_entity"]),
            field(&r, &["keywords"]),
            field(&r, &["description"])
        ));
    }
    lines.push("<|COMPLETE|>".to_string());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_answers_become_records() {
        let out = json_to_records(
            r#"```json
{"entities": [{"name": "Ada", "type": "person", "description": "A\nmathematician"}],
 "relationships": [{"source": "Ada", "target": "Engine", "keywords": ["code", "math"], "description": "wrote"}]}
```"#,
        );
        assert_eq!(
            out,
            "entity<|#|>Ada<|#|>person<|#|>A mathematician\nrelation<|#|>Ada<|#|>Engine<|#|>code,math<|#|>wrote\n<|COMPLETE|>"
        );
        assert_eq!(json_to_records("{not json"), "");
        assert!(looks_like_json("  {\"entities\": []}"));
        assert!(!looks_like_json("entity<|#|>A"));
    }
}
