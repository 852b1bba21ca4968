//! The model behind [`crate::indexing::estimate`]: what one chunk's extraction costs, and which description
//! summaries the merges of a batch are expected to ask for.
//!
//! Known exactly (the real prompts counted with the configured tokenizer): the input of every
//! first extraction call, and the fixed parts of gleaning and summary prompts. Modelled:
//!
//! * **output tokens** — a first extraction answer is [`OUTPUT_PER_CHUNK_TOKEN`] tokens per token
//!   of its chunk plus [`ANSWER_END_TOKENS`]; a gleaning answer is [`GLEANING_OUTPUT_SHARE`] of
//!   the first answer;
//! * **summaries** — the rule-based extractor (`EXTRACTION=nlp`, crate `lightrag-nlp`) stands in
//!   for the model to tell which entities and relations each chunk names; each document's records
//!   are merged in turn, one description fragment of [`DESCRIPTION_TOKENS`] per chunk that names
//!   the record, starting from the fragments the store already holds; a record reaching
//!   `FORCE_LLM_SUMMARY_ON_MERGE` fragments (or `SUMMARY_MAX_TOKENS`) costs one summary call
//!   (map-reduce above `SUMMARY_CONTEXT_SIZE`) answering [`SUMMARY_OUTPUT_SHARE`] of
//!   `SUMMARY_LENGTH_RECOMMENDED` tokens, and is one fragment afterwards.
//!
//! The constants were calibrated with the scripted LLM (`crates/testing/scripted-llm`, which
//! writes a record per capitalised name and per neighbouring pair of names, each with its whole
//! sentence as description) on the State of the Union sample bundled with the CLI tests
//! (`crates/interfaces/cli/tests/fixtures/sotu`): 14,870 output tokens for 8 chunks of 6,922
//! tokens. A real model writes more or less than that: treat output figures as ±50 % and compare
//! them with the actual figures `lightrag insert` prints after a run.

use std::collections::HashMap;

use lightrag_ports::{ChatRequest, Tokenizer};

use crate::config::{EngineConfig, ExtractionConfig};
use crate::indexing::extract::extraction_request;
use crate::prompts::{self, SummaryKind};

/// Output tokens of a first extraction answer per token of its chunk.
pub const OUTPUT_PER_CHUNK_TOKEN: f64 = 2.15;
/// Output tokens of an answer's last line (`<|COMPLETE|>`).
pub const ANSWER_END_TOKENS: u64 = 6;
/// A gleaning answer's size relative to the first answer of its chunk.
pub const GLEANING_OUTPUT_SHARE: f64 = 0.05;
/// Tokens of a record's description (the record without its name, type and delimiters).
/// (The scripted LLM's descriptions quote their sentence: ~60 tokens on the bundled sample.)
pub const DESCRIPTION_TOKENS: f64 = 60.0;
/// A summary's size relative to `SUMMARY_LENGTH_RECOMMENDED`.
pub const SUMMARY_OUTPUT_SHARE: f64 = 0.25;
/// Tokens around each fragment in a summary prompt (its JSON line).
const FRAGMENT_WRAPPER_TOKENS: f64 = 6.0;

/// Calls and tokens of some chat calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallFigures {
    /// Calls.
    pub calls: u64,
    /// Input tokens.
    pub tokens_in: u64,
    /// Output tokens.
    pub tokens_out: u64,
}

impl CallFigures {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: CallFigures) {
        self.calls += other.calls;
        self.tokens_in += other.tokens_in;
        self.tokens_out += other.tokens_out;
    }
}

/// What the stand-in extractor found in one chunk.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChunkRecords {
    /// Entity names.
    pub entities: Vec<String>,
    /// Relations, as "source\u{1}target" with the names sorted.
    pub relations: Vec<String>,
}

/// The records the rule-based extractor finds in `text`.
pub(crate) fn stand_in_records(text: &str, cfg: &ExtractionConfig) -> ChunkRecords {
    let options = lightrag_nlp::NlpOptions {
        max_entities: cfg.max_entities,
        max_relations: cfg.max_records.saturating_sub(cfg.max_entities).max(1),
        ..lightrag_nlp::NlpOptions::default()
    };
    let found = lightrag_nlp::extract(text, &options);
    let relations = found
        .relations
        .iter()
        .map(|r| {
            let (a, b) = if r.src <= r.tgt { (&r.src, &r.tgt) } else { (&r.tgt, &r.src) };
            format!("{a}\u{1}{b}")
        })
        .collect();
    ChunkRecords { entities: found.entities.into_iter().map(|e| e.name).collect(), relations }
}

/// Token counts of the prompt texts that are the same for every chunk (the extraction system
/// prompt, the gleaning prompt), kept over the chunks of one estimate: each is counted once and
/// found again by its whole text (a different text is counted).
#[derive(Debug, Default)]
pub(crate) struct FixedPrompts {
    known: Vec<(String, u64)>,
}

impl FixedPrompts {
    /// Texts remembered at most (the system prompt and the gleaning prompt; a few more if the
    /// configuration changes between estimates).
    const CAPACITY: usize = 4;

    fn count(&mut self, tokenizer: &dyn Tokenizer, text: &str) -> u64 {
        if let Some((_, n)) = self.known.iter().find(|(known, _)| known == text) {
            return *n;
        }
        let n = tokenizer.count(text) as u64;
        if self.known.len() < Self::CAPACITY {
            self.known.push((text.to_string(), n));
        }
        n
    }
}

/// The input tokens of `request`: the system prompt from `fixed`, the rest counted.
fn request_tokens(tokenizer: &dyn Tokenizer, request: &ChatRequest, fixed: &mut FixedPrompts) -> u64 {
    let system = request.system.as_deref().map_or(0, |s| fixed.count(tokenizer, s));
    let rest: u64 = request.history.iter().map(|m| tokenizer.count(&m.content) as u64).sum();
    system + rest + tokenizer.count(&request.prompt) as u64
}

/// The extraction calls of one chunk (first pass and gleaning), as `llm_extract` makes them.
pub(crate) fn chunk_extraction(
    cfg: &ExtractionConfig,
    tokenizer: &dyn Tokenizer,
    fixed: &mut FixedPrompts,
    text: &str,
    chunk_tokens: usize,
) -> CallFigures {
    let first_in = request_tokens(tokenizer, &extraction_request(cfg, text), fixed);
    let first_out = (chunk_tokens as f64 * OUTPUT_PER_CHUNK_TOKEN).round() as u64 + ANSWER_END_TOKENS;
    let mut figures = CallFigures { calls: 1, tokens_in: first_in, tokens_out: first_out };
    if cfg.max_gleaning > 0 {
        let glean_prompt = if cfg.use_json { prompts::extraction_json_glean() } else { prompts::extraction_glean() };
        let glean_in = first_in + first_out + fixed.count(tokenizer, &glean_prompt);
        // the pipeline's own check: the gleaning request must fit MAX_EXTRACT_INPUT_TOKENS
        if glean_in as usize <= cfg.max_extract_input_tokens {
            let glean_out = (first_out as f64 * GLEANING_OUTPUT_SHARE).round() as u64 + ANSWER_END_TOKENS;
            figures.add(CallFigures { calls: 1, tokens_in: glean_in, tokens_out: glean_out });
        }
    }
    figures
}

/// A record's description as the merges build it: fragment count and tokens.
#[derive(Debug, Clone, Copy, Default)]
struct Description {
    fragments: usize,
    tokens: f64,
}

/// Replays the merges of a batch, document by document, to count summaries and the texts
/// embedded for entities and relations.
pub(crate) struct MergeReplay<'a> {
    config: &'a EngineConfig,
    /// Input tokens of an empty summary prompt.
    template_tokens: f64,
    records: HashMap<String, Description>,
    /// Summary calls.
    pub summaries: CallFigures,
    /// Tokens of the entity and relation texts embedded.
    pub embedded_tokens: u64,
    /// Embedding calls for those texts.
    pub embedding_calls: u64,
}

impl<'a> MergeReplay<'a> {
    pub(crate) fn new(config: &'a EngineConfig, tokenizer: &dyn Tokenizer) -> Self {
        let template = prompts::summarize_descriptions(
            SummaryKind::Entity,
            "",
            &[],
            config.merge.summary_length_recommended,
            &config.extraction.language,
        );
        MergeReplay {
            config,
            template_tokens: tokenizer.count(&template) as f64,
            records: HashMap::new(),
            summaries: CallFigures::default(),
            embedded_tokens: 0,
            embedding_calls: 0,
        }
    }

    /// Starts a record from what the store holds (`fragments` fragments, `tokens` tokens).
    pub(crate) fn stored(&mut self, key: String, fragments: usize, tokens: f64) {
        self.records.insert(key, Description { fragments, tokens });
    }

    /// Merges one document: `mentions` counts, per record key, the chunks that name it.
    /// `summarise` is whether summaries call the model (an LLM does the extraction).
    pub(crate) fn merge_document(&mut self, mentions: &HashMap<String, usize>, summarise: bool) {
        let merge = &self.config.merge;
        let summary_out = (merge.summary_length_recommended as f64 * SUMMARY_OUTPUT_SHARE).round();
        let batch = self.config.embedding.batch_num.max(1) as u64;
        for (key, &chunks) in mentions {
            let record = self.records.entry(key.clone()).or_default();
            record.fragments += chunks;
            record.tokens += chunks as f64 * DESCRIPTION_TOKENS;
            let many = record.fragments >= merge.force_llm_summary_on_merge.max(1);
            let long = record.tokens >= merge.summary_max_tokens as f64;
            if summarise && record.fragments > 1 && (many || long) {
                let context = merge.summary_context_size.max(1) as f64;
                let groups = (record.tokens / context).ceil().max(1.0) as u64;
                let calls = if groups > 1 { groups + 1 } else { 1 };
                let wrapped = record.tokens + record.fragments as f64 * FRAGMENT_WRAPPER_TOKENS;
                let tokens_in = wrapped + self.template_tokens * calls as f64 + summary_out * (calls - 1) as f64;
                self.summaries.add(CallFigures {
                    calls,
                    tokens_in: tokens_in.round() as u64,
                    tokens_out: (summary_out * calls as f64) as u64,
                });
                *record = Description { fragments: 1, tokens: summary_out };
            }
            // the record's text (name line and description) is embedded again after each merge
            let name_tokens = (key.len() as f64 / 4.0).ceil();
            self.embedded_tokens += (record.tokens + name_tokens).round() as u64;
        }
        self.embedding_calls += (mentions.len() as u64).div_ceil(batch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_named_in_many_chunks_is_summarised_once_it_reaches_the_fragment_limit() {
        let mut config = EngineConfig::default();
        config.merge.force_llm_summary_on_merge = 4;
        struct Bytes;
        impl Tokenizer for Bytes {
            fn encode(&self, text: &str) -> Vec<u32> {
                text.bytes().map(u32::from).collect()
            }
            fn decode(&self, tokens: &[u32]) -> String {
                tokens.iter().filter_map(|t| char::from_u32(*t)).collect()
            }
        }
        let mut replay = MergeReplay::new(&config, &Bytes);
        let doc = HashMap::from([("Senate".to_string(), 2), ("House".to_string(), 1)]);
        replay.merge_document(&doc, true);
        assert_eq!(replay.summaries.calls, 0, "two fragments stay joined");
        replay.merge_document(&doc, true);
        assert_eq!(replay.summaries.calls, 1, "the fourth fragment of Senate asks for a summary");
        replay.merge_document(&doc, false);
        assert_eq!(replay.summaries.calls, 1, "no summary without an LLM");
    }

    use crate::indexing::text::tests_support::CountingWords as Words;

    #[test]
    fn the_extraction_estimate_counts_the_fixed_prompts_once_and_gives_the_same_figures() {
        let cfg = ExtractionConfig::default();
        let chunks = ["The Senate met in Philadelphia.", "Congress adjourned and the House voted."];
        let uncached: Vec<CallFigures> = chunks
            .iter()
            .map(|text| chunk_extraction(&cfg, &Words::default(), &mut FixedPrompts::default(), text, 8))
            .collect();
        let words = Words::default();
        let mut fixed = FixedPrompts::default();
        let cached: Vec<CallFigures> =
            chunks.iter().map(|text| chunk_extraction(&cfg, &words, &mut fixed, text, 8)).collect();
        assert_eq!(cached, uncached);
        // first chunk: system, user and gleaning prompts; second chunk: its user prompt only
        assert_eq!(words.asked(), 4);
    }

    #[test]
    fn a_fixed_prompts_count_is_not_reused_for_a_different_text() {
        let words = Words::default();
        let mut fixed = FixedPrompts::default();
        assert_eq!(fixed.count(&words, "extract the entities"), 3);
        assert_eq!(fixed.count(&words, "extract the entities and relations"), 5);
        assert_eq!(fixed.count(&words, "extract the entities"), 3);
        assert_eq!(words.asked(), 2);
    }
}
