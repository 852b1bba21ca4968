//! `lightrag eval --questions FILE [--corpus FILE]`

use std::path::Path;

use anyhow::{Context, bail};
use lightrag_config::Settings;
use lightrag_engine::indexing::pipeline::{InsertDoc, ProcessOptions, document_id};
use lightrag_engine::retrieval::query::{QueryMode, QueryParam};
use lightrag_eval::fixture::{self, Passage};
use lightrag_eval::run::EvalMode;
use lightrag_eval::{EvalOptions, compare, report};
use lightrag_ports::{ChunkingOptions, DocStatus, EnqueueOutcome};

use crate::cli::EvalArgs;

pub async fn run(settings: &Settings, args: EvalArgs) -> anyhow::Result<()> {
    let modes = parse_modes(&args.modes)?;
    let mut questions = fixture::read_questions(&args.questions)?;
    if let Some(limit) = args.limit {
        questions.truncate(limit);
    }
    let baseline = args.baseline.as_deref().map(compare::read_report).transpose()?;
    let engine = super::open(settings).await?;
    if args.answers && !engine.has_llm() {
        bail!("--answers needs a chat model: set LLM_BINDING, LLM_BINDING_HOST and LLM_MODEL (see README)");
    }
    if let Some(corpus) = &args.corpus {
        index_corpus(&engine, corpus).await?;
    } else if engine.status_counts().await?.values().sum::<usize>() == 0 {
        bail!("the knowledge base is empty: pass --corpus FILE to index the passages the questions refer to");
    }

    let options = EvalOptions {
        modes,
        answers: args.answers,
        param: QueryParam {
            top_k: args.top_k,
            chunk_top_k: args.chunk_top_k,
            chunk_fusion: args.chunk_fusion,
            ..QueryParam::default()
        },
    };
    let bar = crate::progress::counting_bar("questions");
    bar.set_length((questions.len() * options.modes.len()) as u64);
    let progress = |done: usize, _total: usize| bar.set_position(done as u64);
    let result = lightrag_eval::evaluate(&engine, &questions, &options, &progress).await;
    bar.finish_and_clear();
    let result = result?;
    engine.flush_usage().await?;

    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut markdown = report::markdown(&result);
    if let Some(baseline) = &baseline {
        let comparison = compare::markdown(&compare::compare(&result, baseline));
        markdown.push_str(&format!("\nAgainst the baseline:\n\n{comparison}"));
    }
    write(&args.out.join("results.json"), &serde_json::to_string_pretty(&result)?)?;
    write(&args.out.join("results.md"), &markdown)?;
    write(&args.out.join("chart.svg"), &report::svg(&result))?;
    outln!("{markdown}");
    eprintln!(
        "wrote {} (every question's passages and scores), results.md and chart.svg",
        args.out.join("results.json").display()
    );
    Ok(())
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `naive,local,…,bm25` (or `all`: every retrieval mode and the BM25 baseline).
fn parse_modes(list: &str) -> anyhow::Result<Vec<EvalMode>> {
    if list.trim() == "all" {
        return Ok(EvalMode::all());
    }
    let mut modes = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let mode: EvalMode =
            name.parse().map_err(|e| anyhow::anyhow!("--modes: {e} (or bm25, the lexical baseline)"))?;
        if mode == EvalMode::Query(QueryMode::Bypass) {
            bail!("--modes: bypass retrieves nothing to evaluate");
        }
        if !modes.contains(&mode) {
            modes.push(mode);
        }
    }
    if modes.is_empty() {
        bail!("--modes names no mode (e.g. --modes naive,local,mix)");
    }
    Ok(modes)
}

/// Enqueues the passages not indexed yet (one document per passage, named by its title) and
/// processes whatever is pending — so an interrupted run continues where it stopped. A passage
/// whose document is processed already is left alone: enqueued again it would only add a `failed`
/// duplicate record per passage and run.
async fn index_corpus(engine: &lightrag_engine::Engine, corpus: &Path) -> anyhow::Result<()> {
    let passages = fixture::read_corpus(corpus)?;
    let mut docs: Vec<InsertDoc> = Vec::with_capacity(passages.len());
    for doc in passages.iter().map(document) {
        let status = engine.document_status(&document_id(&doc)).await?;
        if status.is_none_or(|row| row.status != DocStatus::Processed) {
            docs.push(doc);
        }
    }
    let report = engine.enqueue_resuming(docs, None).await?;
    let new = report.outcomes.iter().filter(|o| matches!(o, EnqueueOutcome::Enqueued { .. })).count();
    eprintln!("corpus: {} passages, {new} new", passages.len());
    let processed = super::process_all(engine, &ProcessOptions::default()).await?;
    if processed.cancelled {
        bail!("cancelled; run the same command again to finish indexing and evaluate");
    }
    if !processed.failed.is_empty() {
        for (id, error) in &processed.failed {
            eprintln!("failed {id}: {error}");
        }
        bail!("{} passage(s) failed to index; fix the cause and run the command again", processed.failed.len());
    }
    Ok(())
}

fn document(passage: &Passage) -> InsertDoc {
    InsertDoc {
        content: fixture::passage_text(passage),
        file_source: Some(fixture::passage_source(&passage.title)),
        id: None,
        chunking: ChunkingOptions::default(),
        metadata: Default::default(),
    }
}
