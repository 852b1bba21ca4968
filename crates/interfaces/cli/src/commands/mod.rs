//! One module per subcommand, plus what they share.

pub mod admin;
pub mod backup;
pub mod check;
pub mod copy;
pub mod delete;
pub mod demo;
pub mod estimate;
pub mod eval;
pub mod filter_args;
pub mod graph;
pub mod hash_password;
pub mod import_lightrag;
pub mod insert;
pub mod mcp;
pub mod migrate;
pub mod process;
pub mod query;
pub mod reembed;
pub mod serve;
pub mod status;
pub mod worker;

use std::collections::BTreeMap;

use anyhow::Context;
use lightrag_config::Settings;
use lightrag_engine::Engine;
use lightrag_engine::indexing::extract::schema::SchemaReport;
use lightrag_engine::indexing::pipeline::{ProcessOptions, ProcessReport};
use lightrag_ports::{DocStatus, Usage, UsageRole};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::progress::Bar;

/// Opens the engine of the configured working directory / workspace.
pub async fn open(settings: &Settings) -> anyhow::Result<Engine> {
    lightrag_config::open_engine(settings).await.with_context(|| match &settings.postgres {
        Some(pg) => format!("cannot open the knowledge base '{}' in PostgreSQL", pg.workspace_for(&settings.workspace)),
        None => format!("cannot open the knowledge base in {}", settings.data_dir().display()),
    })
}

/// A token cancelled by the first Ctrl-C (processing stops between chunks); a second Ctrl-C exits.
pub fn ctrl_c_token() -> CancellationToken {
    ctrl_c_token_saying("stopping after the current chunks")
}

/// [`ctrl_c_token`], saying `stopping` (what happens now) at the first Ctrl-C.
pub fn ctrl_c_token_saying(stopping: &'static str) -> CancellationToken {
    let token = CancellationToken::new();
    let child = token.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\n{stopping} (Ctrl-C again to quit now)…");
            child.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        }
    });
    token
}

/// Runs the pipeline with a progress bar.
pub async fn process_all(engine: &Engine, options: &ProcessOptions) -> anyhow::Result<ProcessReport> {
    let cancel = ctrl_c_token();
    let bar = Bar::new(engine.clone());
    // the pending documents, so that the bar's total is right from the start (they are claimed a
    // few at a time; a run retrying failed documents claims them all in its first claim)
    if options.only_ids.is_empty()
        && let Ok(counts) = engine.status_counts().await
    {
        bar.expect(counts.get(&DocStatus::Pending).copied().unwrap_or(0) as u64);
    }
    let result = engine.process(options, bar.clone(), &cancel).await;
    bar.finish();
    Ok(result?)
}

/// The summary printed after indexing.
#[derive(Debug, Serialize)]
pub struct IndexSummary {
    pub track_id: Option<String>,
    pub documents_enqueued: usize,
    pub documents_duplicate: usize,
    pub documents_processed: usize,
    pub documents_failed: usize,
    pub failures: Vec<(String, String)>,
    pub cancelled: bool,
    pub chunks: usize,
    pub entities: usize,
    pub relations: usize,
    pub llm_calls: u64,
    pub llm_cache_hits: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub embedding_calls: u64,
    pub usage: Usage,
    /// Typed extraction: what the schema changed, per processed document.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub schema: BTreeMap<String, SchemaReport>,
    /// Documents that replaced their indexed version: chunks reused, extracted again, removed.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub replaced: BTreeMap<String, lightrag_engine::indexing::pipeline::ReplacementReport>,
    /// The estimate made before the run beside the run's figures (`lightrag insert`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<estimate::Comparison>,
}

impl IndexSummary {
    pub async fn build(
        engine: &Engine,
        report: &ProcessReport,
        track_id: Option<String>,
        enqueued: usize,
        duplicates: usize,
    ) -> anyhow::Result<Self> {
        let counts = engine.graph_counts().await?;
        let usage = engine.session_usage();
        let llm = |f: fn(&lightrag_ports::UsageCounters) -> u64| -> u64 {
            usage.iter().filter(|(r, _)| r.is_chat()).map(|(_, c)| f(c)).sum()
        };
        Ok(Self {
            track_id,
            documents_enqueued: enqueued,
            documents_duplicate: duplicates,
            documents_processed: report.processed.len(),
            documents_failed: report.failed.len(),
            failures: report.failed.clone(),
            cancelled: report.cancelled,
            chunks: report.chunks,
            entities: counts.nodes,
            relations: counts.edges,
            llm_calls: llm(|c| c.calls),
            llm_cache_hits: llm(|c| c.cache_hits),
            tokens_in: llm(|c| c.tokens_in),
            tokens_out: llm(|c| c.tokens_out),
            embedding_calls: usage.get(&UsageRole::Embed).map(|c| c.calls).unwrap_or(0),
            usage,
            schema: report.schema.clone(),
            replaced: report.replaced.clone(),
            estimate: None,
        })
    }

    pub fn print(&self, json: bool) -> anyhow::Result<()> {
        if json {
            outln!("{}", serde_json::to_string_pretty(self)?);
            return Ok(());
        }
        if let Some(track) = &self.track_id {
            outln!("track id:    {track}");
        }
        outln!(
            "documents:   {} processed, {} failed, {} duplicate",
            self.documents_processed,
            self.documents_failed,
            self.documents_duplicate
        );
        for (id, error) in &self.failures {
            outln!("  failed {id}: {error}");
        }
        for (id, r) in &self.replaced {
            outln!(
                "replaced {id} ({} chunks reused, {} re-extracted, {} removed)",
                r.chunks_reused,
                r.chunks_extracted,
                r.chunks_removed
            );
        }
        outln!("chunks:      {} indexed", self.chunks);
        outln!("graph:       {} entities, {} relations", self.entities, self.relations);
        outln!(
            "LLM:         {} calls ({} from cache), {} tokens in, {} tokens out",
            self.llm_calls,
            self.llm_cache_hits,
            self.tokens_in,
            self.tokens_out
        );
        outln!("embeddings:  {} calls", self.embedding_calls);
        for (doc, report) in &self.schema {
            outln!("schema:      {doc}: {report}");
        }
        if let Some(comparison) = &self.estimate {
            comparison.print()?;
        }
        if self.cancelled {
            outln!("cancelled:   run `lightrag process` to finish");
        }
        Ok(())
    }
}

/// Exit with an error when documents failed.
pub fn fail_if_failed(summary: &IndexSummary) -> anyhow::Result<()> {
    if summary.cancelled {
        anyhow::bail!("cancelled; run `lightrag process` to resume");
    }
    if summary.documents_failed > 0 {
        anyhow::bail!(
            "{} document(s) failed (see above); fix the cause and run `lightrag process` to retry",
            summary.documents_failed
        );
    }
    Ok(())
}

/// Shared by insert and process.
pub async fn process_and_summarise(
    engine: &Engine,
    options: &ProcessOptions,
    track_id: Option<String>,
    enqueued: usize,
    duplicates: usize,
    json: bool,
) -> anyhow::Result<()> {
    let report = process_all(engine, options).await?;
    let summary = IndexSummary::build(engine, &report, track_id, enqueued, duplicates).await?;
    summary.print(json)?;
    fail_if_failed(&summary)
}
