//! `lightrag insert --dry-run`: what an insert would cost, and after a real insert the estimate
//! beside what it cost.

use std::path::PathBuf;

use lightrag_config::Settings;
use lightrag_engine::Engine;
use lightrag_engine::indexing::estimate::{Estimate, ExtractionFigures};
use lightrag_ports::UsageRole;
use serde::Serialize;

use super::IndexSummary;

/// An engine to estimate with. A knowledge base that does not exist yet is not created: the
/// estimate then runs against an empty one in a temporary folder (removed with the guard).
pub async fn open_for_estimate(settings: &Settings) -> anyhow::Result<(Engine, Option<tempfile::TempDir>)> {
    if settings.postgres.is_some() || settings.store_path().is_file() {
        return Ok((super::open(settings).await?, None));
    }
    let dir = tempfile::Builder::new().prefix("lightrag-estimate-").tempdir()?;
    let mut empty = settings.clone();
    empty.working_dir = PathBuf::from(dir.path());
    empty.workspace = String::new();
    Ok((super::open(&empty).await?, Some(dir)))
}

fn usd(value: Option<f64>) -> String {
    value.map_or_else(|| "unknown price".to_string(), |v| format!("${v:.4}"))
}

fn price(value: Option<f64>) -> String {
    value.map_or_else(|| "?".to_string(), |v| format!("${v}"))
}

/// Prints an estimate (JSON: the [`Estimate`] itself).
pub fn print(estimate: &Estimate, json: bool) -> anyhow::Result<()> {
    if json {
        outln!("{}", serde_json::to_string_pretty(estimate)?);
        return Ok(());
    }
    let llm = &estimate.llm;
    let emb = &estimate.embedding;
    let cost = &estimate.cost;
    outln!("dry run: nothing was sent to a model and nothing was stored");
    outln!(
        "documents:   {} to index, {} skipped; {} chunks, {} tokens",
        estimate.documents,
        estimate.skipped.len(),
        estimate.chunks,
        estimate.chunk_tokens
    );
    for skipped in &estimate.skipped {
        outln!("  skipped {} ({}): {}", skipped.file_path, skipped.id, skipped.reason);
    }
    outln!(
        "LLM calls:   {} ({} extraction, {} gleaning, ~{} summaries)",
        llm.calls,
        llm.extraction_calls,
        llm.gleaning_calls,
        llm.summary_calls
    );
    outln!("LLM tokens:  {} in, ~{} out", llm.tokens_in, llm.tokens_out);
    outln!(
        "embeddings:  {} calls, ~{} tokens ({} of chunks, ~{} of entity and relation texts)",
        emb.calls,
        emb.tokens,
        emb.chunk_tokens,
        emb.description_tokens
    );
    outln!(
        "cost:        {} (LLM in {} + out {} + embeddings {}) at {}/{} per M tokens in/out, {} per M embedded",
        usd(cost.total_usd),
        usd(cost.llm_input_usd),
        usd(cost.llm_output_usd),
        usd(cost.embedding_usd),
        price(cost.prices.llm_input),
        price(cost.prices.llm_output),
        price(cost.prices.embedding)
    );
    if cost.total_usd.is_none() {
        outln!("             set LLM_PRICE_INPUT, LLM_PRICE_OUTPUT and EMBEDDING_PRICE (USD per million tokens)");
    }
    outln!("(output tokens and summaries are modelled: treat them as ±50 % for a real model)");
    Ok(())
}

/// An estimate set against what the run cost.
#[derive(Debug, Serialize)]
pub struct Comparison {
    /// The estimate made before the run.
    pub estimated: ExtractionFigures,
    /// What the run's LLM calls cost (calls that reached the model; cache hits apart).
    pub actual: ExtractionFigures,
    /// Estimated and actual embedding tokens.
    pub embedding_tokens: (u64, u64),
}

impl Comparison {
    /// The estimate beside the session's usage.
    pub fn of(estimate: &Estimate, summary: &IndexSummary) -> Self {
        let mut actual = ExtractionFigures::default();
        for counters in summary.usage.iter().filter(|(r, _)| r.is_chat()).map(|(_, c)| *c) {
            actual.add(&counters.into());
        }
        let embedded = summary.usage.get(&UsageRole::Embed).map(|c| c.tokens_in).unwrap_or(0);
        Comparison {
            estimated: ExtractionFigures {
                llm_calls: estimate.llm.calls,
                cache_hits: 0,
                tokens_in: estimate.llm.tokens_in,
                tokens_out: estimate.llm.tokens_out,
            },
            actual,
            embedding_tokens: (estimate.embedding.tokens, embedded),
        }
    }

    pub fn print(&self) -> anyhow::Result<()> {
        let (e, a) = (&self.estimated, &self.actual);
        outln!(
            "estimate:    {} LLM calls, {} tokens in, {} out; {} embedding tokens",
            e.llm_calls,
            e.tokens_in,
            e.tokens_out,
            self.embedding_tokens.0
        );
        outln!(
            "actual:      {} LLM calls ({} from cache), {} tokens in, {} out; {} embedding tokens",
            a.llm_calls,
            a.cache_hits,
            a.tokens_in,
            a.tokens_out,
            self.embedding_tokens.1
        );
        Ok(())
    }
}
