//! Entity and relation extraction per chunk: with an LLM (LightRAG's record format, or its JSON
//! layout with `ENTITY_EXTRACTION_USE_JSON`; one gleaning pass, the hardened [`parse`]rs,
//! per-response caps) or with rules (`EXTRACTION=nlp`).

pub mod json;
pub mod lenient_json;
pub mod parse;
#[cfg(test)]
pub(crate) mod parse_props;
pub mod schema;

use std::collections::HashMap;

use lightrag_ports::{
    ChatMessage, ChatRequest, Chunk, ChunkExtraction, ExtractedEntity, ExtractedRelation, RelKey, Role, Tokenizer,
    UsageRole,
};

use crate::config::{ExtractionConfig, ExtractionMethod};
use crate::engine::Inner;
use crate::error::{EngineError, Result};
use crate::prompts;
use crate::providers::gateway::{CacheSpec, ChatCall};
use crate::providers::usage_scope::UsageScope;
use crate::time::now_ms;
use parse::{ParsedExtraction, RecordLimits, parse_extraction};

/// What extracting one chunk changed besides giving its records.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChunkNotes {
    /// What the extraction schema changed (LLM extraction with a schema).
    pub schema: Option<schema::SchemaReport>,
}

/// Extracts the entities and relations of one chunk, counting its LLM calls in `scope` too.
pub(crate) async fn extract_chunk(
    inner: &Inner,
    chunk: &Chunk,
    scope: &UsageScope,
) -> Result<(ChunkExtraction, ChunkNotes)> {
    let cfg = &inner.config.extraction;
    match cfg.method {
        ExtractionMethod::Nlp => {
            // CPU work: on the blocking pool, off the threads that serve requests
            let (owned, cfg) = (chunk.clone(), cfg.clone());
            let summary_max_tokens = inner.config.merge.summary_max_tokens;
            let work = tokio::task::spawn_blocking(move || nlp_extract(&owned, &cfg, summary_max_tokens));
            let extraction = work.await.map_err(|e| {
                let what = format!("rule-based extraction of chunk {} crashed ({e})", chunk.id);
                EngineError::Invalid(format!("{what}; please report it with the document"))
            })?;
            Ok((extraction, ChunkNotes::default()))
        }
        ExtractionMethod::Llm => llm_extract(inner, chunk, scope).await,
    }
}

fn nlp_extract(chunk: &Chunk, cfg: &ExtractionConfig, summary_max_tokens: usize) -> ChunkExtraction {
    let options = lightrag_nlp::NlpOptions {
        max_entities: cfg.max_entities,
        max_relations: cfg.max_records.saturating_sub(cfg.max_entities).max(1),
        // a description is at most the summary size; ~4 characters per token
        max_description_chars: (summary_max_tokens * 4).clamp(200, 2400),
        ..lightrag_nlp::NlpOptions::default()
    };
    let found = lightrag_nlp::extract(&chunk.content, &options);
    // Common-noun concepts stay searchable nodes but do not link: co-occurrence with everything in
    // their sentence would make loose phrases the best-connected "entities" of the graph.
    let concepts: std::collections::HashSet<&str> =
        found.entities.iter().filter(|e| e.entity_type == "concept").map(|e| e.name.as_str()).collect();
    let relations = found
        .relations
        .iter()
        .filter(|r| !concepts.contains(r.src.as_str()) && !concepts.contains(r.tgt.as_str()))
        .cloned()
        .collect();
    ChunkExtraction {
        chunk_id: chunk.id.clone(),
        doc_id: chunk.doc_id.clone(),
        entities: found.entities,
        relations,
        cache_keys: Vec::new(),
        created_at: now_ms(),
        folded_relations: Vec::new(),
    }
}

/// The three prompts of an extraction: system, user (around the chunk text) and gleaning, in the
/// record or the JSON layout as configured.
fn extraction_prompts(cfg: &ExtractionConfig, chunk_text: &str) -> (String, String, String) {
    let input = prompts::ExtractionPromptInput {
        entity_types: &cfg.entity_types,
        language: &cfg.language,
        max_records: cfg.max_records,
        max_entities: cfg.max_entities,
        schema: cfg.schema.as_ref(),
    };
    if cfg.use_json {
        (
            prompts::extraction_json_system(&input),
            prompts::extraction_json_user(chunk_text),
            prompts::extraction_json_glean(),
        )
    } else {
        (prompts::extraction_system(&input), prompts::extraction_user(chunk_text), prompts::extraction_glean())
    }
}

/// The first extraction request for a chunk with this text (JSON answers are asked for with the
/// provider's JSON mode too, `response_format`).
pub(crate) fn extraction_request(cfg: &ExtractionConfig, chunk_text: &str) -> ChatRequest {
    let (system, user, _) = extraction_prompts(cfg, chunk_text);
    ChatRequest { system: Some(system), prompt: user, json_mode: cfg.use_json, ..Default::default() }
}

/// The gleaning request that follows the first extraction of a chunk (its exchange as history).
pub(crate) fn gleaning_request(cfg: &ExtractionConfig, chunk_text: &str, first_answer: &str) -> ChatRequest {
    let (system, user, glean) = extraction_prompts(cfg, chunk_text);
    ChatRequest {
        system: Some(system),
        history: vec![ChatMessage::new(Role::User, user), ChatMessage::new(Role::Assistant, first_answer)],
        prompt: glean,
        json_mode: cfg.use_json,
        ..Default::default()
    }
}

/// The record caps of one extraction answer.
pub fn record_limits(cfg: &ExtractionConfig) -> RecordLimits {
    RecordLimits { max_records: cfg.max_records, max_entities: cfg.max_entities }
}

/// Whether a gleaning request whose other parts take `before_answer` tokens still fits in `limit`
/// with the first `answer`: `Err(tokens)` when it does not. A token stands for at least one byte,
/// so an answer that fits in bytes is not encoded just to learn that it fits in tokens.
fn gleaning_input(
    tokenizer: &dyn Tokenizer,
    before_answer: usize,
    answer: &str,
    limit: usize,
) -> std::result::Result<(), usize> {
    if before_answer + answer.len() <= limit {
        return Ok(());
    }
    let size = before_answer + tokenizer.count(answer);
    if size <= limit { Ok(()) } else { Err(size) }
}

/// Reads one extraction answer in the configured layout (a JSON answer that is not JSON is read as
/// records).
pub fn read_extraction(cfg: &ExtractionConfig, output: &str) -> ParsedExtraction {
    let limits = record_limits(cfg);
    if cfg.use_json { json::parse_any_extraction(output, limits) } else { parse_extraction(output, limits) }
}

async fn llm_extract(inner: &Inner, chunk: &Chunk, scope: &UsageScope) -> Result<(ChunkExtraction, ChunkNotes)> {
    let cfg = &inner.config.extraction;
    let read = |output: &str| read_extraction(cfg, output);
    let request = extraction_request(cfg, &chunk.content);
    let cache = CacheSpec {
        mode: "default",
        cache_type: "extract",
        chunk_id: Some(&chunk.id),
        enabled: inner.config.llm.enable_cache_for_extract,
    };
    let call = ChatCall::new(UsageRole::Extract, &request).cached(cache).scoped(scope);
    let first = inner.gateway.chat(call).await?.text().await?;
    let mut parsed = read(&first.content);
    let mut cache_keys: Vec<String> = first.cache_key.iter().cloned().collect();

    if cfg.max_gleaning > 0 {
        // the prompts around the chunk are the same for every chunk: count them once
        let fixed = *inner.extract_prompt_tokens.get_or_init(|| {
            let (system, empty_user, glean) = extraction_prompts(cfg, "");
            inner.tokenizer.count(&system) + inner.tokenizer.count(&empty_user) + inner.tokenizer.count(&glean)
        });
        let before_answer = fixed + chunk.tokens as usize;
        let glean_input =
            gleaning_input(inner.tokenizer.as_ref(), before_answer, &first.content, cfg.max_extract_input_tokens);
        if let Ok(()) = glean_input {
            let request = gleaning_request(cfg, &chunk.content, &first.content);
            let call = ChatCall::new(UsageRole::Extract, &request).cached(cache).scoped(scope);
            let second = inner.gateway.chat(call).await?.text().await?;
            cache_keys.extend(second.cache_key.iter().cloned());
            let extra = read(&second.content);
            parsed = merge_gleaning(parsed, extra);
        } else if let Err(size) = glean_input {
            tracing::debug!("chunk {}: gleaning skipped ({size} tokens > MAX_EXTRACT_INPUT_TOKENS)", chunk.id);
        }
    }
    if parsed.stats.dropped > 0 || parsed.stats.repaired > 0 {
        tracing::debug!(
            "chunk {}: {} extraction rows repaired, {} dropped",
            chunk.id,
            parsed.stats.repaired,
            parsed.stats.dropped
        );
    }
    // after gleaning: a relation's endpoint types are checked against the entities of both passes
    let schema = cfg.schema.as_ref().map(|s| s.apply(&mut parsed.entities, &mut parsed.relations));
    if let Some(report) = schema.filter(|r| *r != schema::SchemaReport::default()) {
        tracing::debug!("chunk {}: extraction schema: {report}", chunk.id);
    }
    let notes = ChunkNotes { schema };
    Ok((
        ChunkExtraction {
            chunk_id: chunk.id.clone(),
            doc_id: chunk.doc_id.clone(),
            entities: parsed.entities,
            relations: parsed.relations,
            cache_keys,
            created_at: now_ms(),
            folded_relations: Vec::new(),
        },
        notes,
    ))
}

/// Combines a first pass with a gleaning pass: for a key present in both, the record set with the
/// longer total description wins; keys only in the gleaning pass are added.
pub fn merge_gleaning(first: ParsedExtraction, extra: ParsedExtraction) -> ParsedExtraction {
    let entities = merge_by_key(first.entities, extra.entities, |e| e.name.clone(), |e| e.description.len());
    let relations = merge_by_key(
        first.relations,
        extra.relations,
        |r: &ExtractedRelation| RelKey::new(r.src.clone(), r.tgt.clone()),
        |r| r.description.len(),
    );
    let mut stats = first.stats;
    stats.repaired += extra.stats.repaired;
    stats.dropped += extra.stats.dropped;
    stats.capped += extra.stats.capped;
    stats.complete = stats.complete || extra.stats.complete;
    ParsedExtraction { entities, relations, stats }
}

fn merge_by_key<T, K, FK, FL>(first: Vec<T>, extra: Vec<T>, key: FK, len: FL) -> Vec<T>
where
    K: std::hash::Hash + Eq + Clone,
    FK: Fn(&T) -> K,
    FL: Fn(&T) -> usize,
{
    let mut order: Vec<K> = Vec::new();
    let mut groups: HashMap<K, (Vec<T>, Vec<T>)> = HashMap::new();
    for item in first {
        let k = key(&item);
        let slot = groups.entry(k.clone()).or_insert_with(|| {
            order.push(k);
            (Vec::new(), Vec::new())
        });
        slot.0.push(item);
    }
    for item in extra {
        let k = key(&item);
        let slot = groups.entry(k.clone()).or_insert_with(|| {
            order.push(k);
            (Vec::new(), Vec::new())
        });
        slot.1.push(item);
    }
    let mut out = Vec::new();
    for k in order {
        if let Some((a, b)) = groups.remove(&k) {
            let la: usize = a.iter().map(&len).sum();
            let lb: usize = b.iter().map(&len).sum();
            if a.is_empty() || (!b.is_empty() && lb > la) {
                out.extend(b);
            } else {
                out.extend(a);
            }
        }
    }
    out
}

/// Convenience for tests and tools: an entity record.
pub fn entity(name: &str, entity_type: &str, description: &str) -> ExtractedEntity {
    ExtractedEntity {
        name: name.into(),
        entity_type: entity_type.into(),
        description: description.into(),
        written_as: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::indexing::text::tests_support::CountingWords as Words;

    #[test]
    fn gleaning_is_decided_on_the_answers_tokens_as_before_the_byte_shortcut() {
        // 5 words in 29 bytes
        let answer = "entity one, entity two, done";
        for limit in 0..60 {
            let words = Words::default();
            let decided = gleaning_input(&words, 20, answer, limit);
            // what the check was before: always the counted size
            let counted = 20 + answer.split_whitespace().count();
            assert_eq!(decided, if counted <= limit { Ok(()) } else { Err(counted) }, "limit {limit}");
            // the answer is encoded only when its bytes could pass the limit
            assert_eq!(words.asked(), usize::from(20 + answer.len() > limit), "limit {limit}");
        }
    }

    fn rel(a: &str, b: &str, d: &str) -> ExtractedRelation {
        ExtractedRelation {
            src: a.into(),
            tgt: b.into(),
            keywords: "k".into(),
            description: d.into(),
            weight: 1.0,
            src_written_as: None,
            tgt_written_as: None,
        }
    }

    #[test]
    fn gleaning_keeps_longer_descriptions_and_adds_new_keys() {
        let first = ParsedExtraction {
            entities: vec![entity("A", "person", "short"), entity("B", "person", "a long description of B")],
            relations: vec![rel("A", "B", "x")],
            ..Default::default()
        };
        let extra = ParsedExtraction {
            entities: vec![
                entity("A", "person", "a much longer description of A"),
                entity("B", "person", "b"),
                entity("C", "place", "new"),
            ],
            relations: vec![rel("B", "A", "a longer relation description")],
            ..Default::default()
        };
        let merged = merge_gleaning(first, extra);
        let descs: Vec<_> = merged.entities.iter().map(|e| (e.name.as_str(), e.description.as_str())).collect();
        assert_eq!(
            descs,
            vec![("A", "a much longer description of A"), ("B", "a long description of B"), ("C", "new")]
        );
        assert_eq!(merged.relations.len(), 1);
        assert_eq!(merged.relations[0].description, "a longer relation description");
    }
}
