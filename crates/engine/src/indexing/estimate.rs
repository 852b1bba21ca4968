//! Cost and time before indexing: what inserting some documents would cost — documents, chunks,
//! LLM calls, input and output tokens, embedding tokens and money at the configured prices —
//! without calling a model and without writing the store (`lightrag insert --dry-run`,
//! `POST /documents/estimate`).
//!
//! Documents are read, identified and chunked exactly as the insert does; documents already in the
//! store (same id) and repeats within the batch are left out and listed, except a new version of
//! an indexed file, which counts the chunks whose text is not indexed yet (the replacement reuses
//! the others). [`model`] says what is
//! counted and what is modelled. The pipeline also records each document's extraction estimate
//! beside its actual extraction usage in the document's metadata ([`DOC_ESTIMATE_KEY`],
//! [`DOC_USAGE_KEY`]), so that status listings can set one against the other.

pub mod model;

use std::collections::{HashMap, HashSet};

use lightrag_ports::{Chunk, DocStatus, GRAPH_FIELD_SEP, RelKey, Tokenizer, UsageCounters};
use serde::{Deserialize, Serialize};

use crate::config::{EngineConfig, ExtractionMethod, PriceConfig};
use crate::engine::Engine;
use crate::error::{EngineError, Result};
use crate::indexing::pipeline::InsertDoc;
use model::{CallFigures, ChunkRecords, FixedPrompts, MergeReplay, chunk_extraction, stand_in_records};

/// Metadata key of a document's extraction estimate (an [`ExtractionFigures`]).
pub const DOC_ESTIMATE_KEY: &str = "extraction_estimate";
/// Metadata key of a document's actual extraction usage (an [`ExtractionFigures`]).
pub const DOC_USAGE_KEY: &str = "extraction_usage";

/// Chat calls and tokens of some work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractionFigures {
    /// Calls that reach the model.
    pub llm_calls: u64,
    /// Calls answered from the LLM cache (actual usage only).
    #[serde(default)]
    pub cache_hits: u64,
    /// Input tokens.
    pub tokens_in: u64,
    /// Output tokens.
    pub tokens_out: u64,
}

impl From<CallFigures> for ExtractionFigures {
    fn from(f: CallFigures) -> Self {
        Self { llm_calls: f.calls, cache_hits: 0, tokens_in: f.tokens_in, tokens_out: f.tokens_out }
    }
}

impl From<UsageCounters> for ExtractionFigures {
    fn from(c: UsageCounters) -> Self {
        Self { llm_calls: c.calls, cache_hits: c.cache_hits, tokens_in: c.tokens_in, tokens_out: c.tokens_out }
    }
}

impl ExtractionFigures {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &ExtractionFigures) {
        self.llm_calls += other.llm_calls;
        self.cache_hits += other.cache_hits;
        self.tokens_in += other.tokens_in;
        self.tokens_out += other.tokens_out;
    }
}

/// A document left out of the estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedDocument {
    /// The id it would get.
    pub id: String,
    /// Its file path.
    pub file_path: String,
    /// Why it is left out.
    pub reason: String,
}

/// One document of the estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentEstimate {
    /// The id it gets.
    pub id: String,
    /// Its file path.
    pub file_path: String,
    /// Chunks.
    pub chunks: usize,
    /// Tokens of its chunks.
    pub tokens: u64,
    /// Its extraction calls.
    pub extraction: ExtractionFigures,
}

/// LLM calls of an insert.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LlmEstimate {
    /// First extraction calls (one per chunk).
    pub extraction_calls: u64,
    /// Gleaning calls (`MAX_GLEANING`).
    pub gleaning_calls: u64,
    /// Description summary calls (modelled).
    pub summary_calls: u64,
    /// All calls.
    pub calls: u64,
    /// Input tokens.
    pub tokens_in: u64,
    /// Output tokens (modelled).
    pub tokens_out: u64,
}

/// Embedding work of an insert.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingEstimate {
    /// Calls (`EMBEDDING_BATCH_NUM` texts each).
    pub calls: u64,
    /// Tokens of the chunks (cut at `EMBEDDING_TOKEN_LIMIT`).
    pub chunk_tokens: u64,
    /// Tokens of entity and relation texts (modelled).
    pub description_tokens: u64,
    /// All tokens.
    pub tokens: u64,
}

/// Money at the configured prices (US dollars); `None` where a price is unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CostEstimate {
    /// LLM input.
    pub llm_input_usd: Option<f64>,
    /// LLM output.
    pub llm_output_usd: Option<f64>,
    /// Embeddings.
    pub embedding_usd: Option<f64>,
    /// The sum, when every price is known.
    pub total_usd: Option<f64>,
    /// The prices used (US dollars per million tokens).
    pub prices: PriceConfig,
}

/// What inserting a batch of documents would cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Documents that would be indexed.
    pub documents: usize,
    /// Chunks they give.
    pub chunks: usize,
    /// Tokens of those chunks.
    pub chunk_tokens: u64,
    /// LLM work.
    pub llm: LlmEstimate,
    /// Embedding work.
    pub embedding: EmbeddingEstimate,
    /// Money.
    pub cost: CostEstimate,
    /// Per document.
    pub per_document: Vec<DocumentEstimate>,
    /// Documents left out (already stored, or repeated in the batch).
    pub skipped: Vec<SkippedDocument>,
}

/// The extraction estimate of a document's chunks (the pipeline records it with the document).
pub(crate) fn chunks_extraction(config: &EngineConfig, tokenizer: &dyn Tokenizer, chunks: &[Chunk]) -> CallFigures {
    let mut figures = CallFigures::default();
    if config.extraction.method != ExtractionMethod::Llm {
        return figures;
    }
    // the system and gleaning prompts are the same for every chunk: counted once
    let mut fixed = FixedPrompts::default();
    for chunk in chunks {
        figures.add(chunk_extraction(&config.extraction, tokenizer, &mut fixed, &chunk.content, chunk.tokens as usize));
    }
    figures
}

/// Prices applied to token counts.
fn cost(prices: PriceConfig, llm: &LlmEstimate, embedding: &EmbeddingEstimate) -> CostEstimate {
    let usd = |price: Option<f64>, tokens: u64| price.map(|p| p * tokens as f64 / 1_000_000.0);
    let llm_input_usd = usd(prices.llm_input, llm.tokens_in);
    let llm_output_usd = usd(prices.llm_output, llm.tokens_out);
    let embedding_usd = usd(prices.embedding, embedding.tokens);
    // no LLM work costs nothing whatever the price
    let or_free = |v: Option<f64>, tokens: u64| if tokens == 0 { Some(v.unwrap_or(0.0)) } else { v };
    let total_usd = match (
        or_free(llm_input_usd, llm.tokens_in),
        or_free(llm_output_usd, llm.tokens_out),
        or_free(embedding_usd, embedding.tokens),
    ) {
        (Some(a), Some(b), Some(c)) => Some(a + b + c),
        _ => None,
    };
    CostEstimate { llm_input_usd, llm_output_usd, embedding_usd, total_usd, prices }
}

/// One document's chunks and the records the stand-in extractor finds in them.
struct Chunked {
    id: String,
    file_path: String,
    chunks: Vec<Chunk>,
    records: Vec<ChunkRecords>,
}

impl Engine {
    /// What inserting `docs` would cost, without calling a model or writing the store.
    pub async fn estimate(&self, docs: Vec<InsertDoc>) -> Result<Estimate> {
        let inner = &self.inner;
        let (_, new_docs) = crate::indexing::pipeline::hashed(docs, Some("estimate".into())).await?;
        let mut skipped = Vec::new();
        let mut seen_ids = HashSet::new();
        let mut seen_hashes = HashSet::new();
        let mut chunked = Vec::new();
        for new in new_docs {
            let (id, file_path) = (new.document.id.clone(), new.document.file_path.clone());
            if !seen_ids.insert(id.clone()) || !seen_hashes.insert(new.document.content_hash.clone()) {
                skipped.push(SkippedDocument { id, file_path, reason: "repeated in this batch".into() });
                continue;
            }
            // a new version of an indexed file pays for the chunks whose text is not indexed yet
            let mut indexed: HashSet<String> = HashSet::new();
            if let Some(row) = inner.store.get_doc_status(&id).await? {
                // an interrupted insert of the same text is finished by the next run: still to pay
                let resumes = row.content_hash == new.document.content_hash
                    && matches!(row.status, DocStatus::Pending | DocStatus::Processing);
                let replaces = new.replacement_row(&row).is_some();
                if replaces {
                    let old = inner.store.get_chunks(&row.chunks_list).await?;
                    indexed = old.into_iter().flatten().map(|c| lightrag_ports::ids::md5_hex(&c.content)).collect();
                } else if !resumes {
                    let reason = format!("already stored ({})", row.status.as_str());
                    skipped.push(SkippedDocument { id, file_path, reason });
                    continue;
                }
            }
            let doc = new.document;
            match self.document_chunks(&doc).await {
                Ok(mut chunks) => {
                    chunks.retain(|c| !indexed.contains(&lightrag_ports::ids::md5_hex(&c.content)));
                    chunked.push(Chunked { id, file_path, chunks, records: Vec::new() })
                }
                // the insert would record it as failed, at no model cost
                Err(e) => skipped.push(SkippedDocument { id, file_path, reason: format!("would fail: {e}") }),
            }
        }
        // the stand-in extraction is CPU work: on the blocking pool
        let cfg = inner.config.extraction.clone();
        let chunked = tokio::task::spawn_blocking(move || {
            for doc in &mut chunked {
                doc.records = doc.chunks.iter().map(|c| stand_in_records(&c.content, &cfg)).collect();
            }
            chunked
        })
        .await
        .map_err(|e| EngineError::Invalid(format!("estimating the documents crashed ({e}); please report it")))?;
        let mut replay = self.replay_with_stored(&chunked).await?;

        let config = &inner.config;
        let use_llm = config.extraction.method == ExtractionMethod::Llm && inner.gateway.has_llm();
        let tokenizer = inner.tokenizer.as_ref();
        let batch = config.embedding.batch_num.max(1) as u64;
        let mut llm = LlmEstimate::default();
        let mut embedding = EmbeddingEstimate::default();
        let mut per_document = Vec::new();
        let mut fixed = FixedPrompts::default();
        for doc in &chunked {
            let mut extraction = CallFigures::default();
            if use_llm {
                for chunk in &doc.chunks {
                    let figures = chunk_extraction(
                        &config.extraction,
                        tokenizer,
                        &mut fixed,
                        &chunk.content,
                        chunk.tokens as usize,
                    );
                    llm.extraction_calls += 1;
                    llm.gleaning_calls += figures.calls - 1;
                    extraction.add(figures);
                }
            }
            let tokens: u64 = doc.chunks.iter().map(|c| c.tokens as u64).sum();
            let limit = config.embedding.token_limit.unwrap_or(usize::MAX) as u64;
            embedding.chunk_tokens += doc.chunks.iter().map(|c| (c.tokens as u64).min(limit)).sum::<u64>();
            embedding.calls += (doc.chunks.len() as u64).div_ceil(batch);
            llm.tokens_in += extraction.tokens_in;
            llm.tokens_out += extraction.tokens_out;
            replay.merge_document(&mentions(&doc.records), use_llm);
            per_document.push(DocumentEstimate {
                id: doc.id.clone(),
                file_path: doc.file_path.clone(),
                chunks: doc.chunks.len(),
                tokens,
                extraction: extraction.into(),
            });
        }
        llm.summary_calls = replay.summaries.calls;
        llm.tokens_in += replay.summaries.tokens_in;
        llm.tokens_out += replay.summaries.tokens_out;
        llm.calls = llm.extraction_calls + llm.gleaning_calls + llm.summary_calls;
        embedding.description_tokens = replay.embedded_tokens;
        embedding.calls += replay.embedding_calls;
        embedding.tokens = embedding.chunk_tokens + embedding.description_tokens;
        Ok(Estimate {
            documents: per_document.len(),
            chunks: per_document.iter().map(|d| d.chunks).sum(),
            chunk_tokens: per_document.iter().map(|d| d.tokens).sum(),
            cost: cost(config.prices, &llm, &embedding),
            llm,
            embedding,
            per_document,
            skipped,
        })
    }

    /// A merge replay that starts from the descriptions the store holds for the records the
    /// batch names.
    async fn replay_with_stored(&self, chunked: &[Chunked]) -> Result<MergeReplay<'_>> {
        let inner = &self.inner;
        let mut replay = MergeReplay::new(&inner.config, inner.tokenizer.as_ref());
        let mut names: Vec<String> =
            chunked.iter().flat_map(|d| d.records.iter().flat_map(|r| r.entities.clone())).collect();
        names.sort();
        names.dedup();
        let stored = inner.store.get_entities(&names).await?;
        for (name, entity) in names.into_iter().zip(stored) {
            if let Some(entity) = entity {
                let fragments = entity.description.split(GRAPH_FIELD_SEP).count();
                replay.stored(name, fragments, entity.description.len() as f64 / 4.0);
            }
        }
        let mut keys: Vec<String> =
            chunked.iter().flat_map(|d| d.records.iter().flat_map(|r| r.relations.clone())).collect();
        keys.sort();
        keys.dedup();
        let rel_keys: Vec<RelKey> = keys
            .iter()
            .filter_map(|k| k.split_once('\u{1}').map(|(a, b)| RelKey::new(a.to_string(), b.to_string())))
            .collect();
        if rel_keys.len() == keys.len() {
            let stored = inner.store.get_relations(&rel_keys).await?;
            for (key, relation) in keys.into_iter().zip(stored) {
                if let Some(relation) = relation {
                    let fragments = relation.description.split(GRAPH_FIELD_SEP).count();
                    replay.stored(key, fragments, relation.description.len() as f64 / 4.0);
                }
            }
        }
        Ok(replay)
    }
}

/// Per record key, the chunks of a document that name it.
fn mentions(records: &[ChunkRecords]) -> HashMap<String, usize> {
    let mut out: HashMap<String, usize> = HashMap::new();
    for chunk in records {
        let mut keys: Vec<&String> = chunk.entities.iter().chain(&chunk.relations).collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            *out.entry(key.clone()).or_default() += 1;
        }
    }
    out
}
