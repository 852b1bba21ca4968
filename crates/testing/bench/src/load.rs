//! `--under-load`: how long a query takes while a large insert keeps the model busy.
//!
//! 1. Index `--chunks` chunks with an instant scripted LLM (the knowledge base the queries read).
//! 2. Arm a delay of `--delay-ms` on every request of the scripted server (chat, embeddings), so
//!    that calls take time and a queue forms, and ask `--queries` questions one after the other
//!    with nothing else running: the **idle** latency.
//! 3. Enqueue about `--load-chunks` more chunks (the next documents of the corpus) and start
//!    processing them in the background. Once extraction calls flow, ask the same questions again:
//!    the latency **under load**. Then cancel the insert.
//!
//! The query LLM cache is off for the whole run, so every query calls the model (keywords and
//! answer). The result is the ratio of the two medians; the target is at most 2.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use lightrag_engine::retrieval::query::{QueryMode, QueryParam};
use lightrag_scripted_llm::{Fault, ScriptConfig, ScriptedLlm, ScriptedServer};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::Args;
use crate::corpus::{self, CorpusDoc};
use crate::procstat;
use crate::run::QUESTIONS;
use crate::settings::{parse_overrides, settings};
use crate::stats::Latency;

/// What the under-load run measured.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// Logical CPUs and load average before the run.
    pub cpus: usize,
    /// `/proc/loadavg` when the run started.
    pub load_before: Option<String>,
    /// Settings given with `--set`.
    pub overrides: Vec<String>,
    /// `MAX_ASYNC` in effect.
    pub max_async: usize,
    /// `MAX_PARALLEL_INSERT` in effect.
    pub max_parallel_insert: usize,
    /// Delay of every scripted request, ms.
    pub delay_ms: u64,
    /// Query mode asked.
    pub mode: String,
    /// Chunks of the knowledge base the queries read.
    pub base_chunks: usize,
    /// Documents and estimated chunks of the background insert.
    pub load_documents: usize,
    /// Estimated chunks of the background insert.
    pub load_chunks_estimated: usize,
    /// Query latency with nothing else running.
    pub idle: Latency,
    /// Query latency while the insert runs.
    pub under_load: Latency,
    /// Median of each phase (keywords, retrieval with the query embedding, answer), idle.
    pub idle_phases: Phases,
    /// Median of each phase while the insert runs.
    pub under_load_phases: Phases,
    /// `under_load.median_ms / idle.median_ms`.
    pub median_ratio: f64,
    /// Extraction (first pass and gleaning) requests the server received while the loaded
    /// queries ran: the insert kept going.
    pub extraction_calls_during_queries: u64,
    /// Chunks the insert committed before it was cancelled.
    pub load_chunks_committed: usize,
}

/// Median milliseconds of a query's phases, from its trace.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Phases {
    /// The keyword call.
    pub keywords_ms: f64,
    /// Query embedding, searches, graph reads, context.
    pub retrieval_ms: f64,
    /// The answer call.
    pub answer_ms: f64,
}

/// Runs the under-load benchmark.
pub async fn run(args: &Args) -> Result<LoadReport> {
    if args.chunks == 0 || args.load_chunks == 0 || args.queries == 0 {
        bail!("--chunks, --load-chunks and --queries must be at least 1");
    }
    let load_before = procstat::load_average();
    let mut overrides = parse_overrides(&args.sets)?;
    overrides.push(("ENABLE_LLM_CACHE".to_string(), "false".to_string()));
    let corpus_dir = corpus::resolve(args.corpus.as_deref())?;
    let temp = tempfile::Builder::new().prefix("lightrag-bench-load-").tempdir().context("cannot create a temp dir")?;
    let server = ScriptedLlm::start(ScriptConfig { dim: args.dim, record_requests: 0, ..ScriptConfig::default() })
        .await
        .context("cannot start the scripted LLM server")?;
    let settings = settings(&server.base_url(), args.dim, temp.path(), &overrides)?;
    let tokenizer = lightrag_config::build_tokenizer()?;
    let chunking = &settings.engine.chunking;
    let (docs, _) =
        corpus::load(&corpus_dir, tokenizer.as_ref(), chunking.chunk_size, chunking.chunk_overlap, usize::MAX, false)?;
    let sizes = (chunking.chunk_size, chunking.chunk_overlap);
    let (base, load, load_estimate) = split(docs, args.chunks, args.load_chunks, sizes);
    if load_estimate < args.load_chunks {
        bail!(
            "the corpus {} has only ~{load_estimate} chunks after the first {}; give a smaller --set CHUNK_SIZE \
             or a larger --corpus",
            corpus_dir.display(),
            args.chunks
        );
    }
    let engine = lightrag_config::open_engine(&settings).await.context("cannot open the engine")?;
    eprintln!("indexing the knowledge base ({} documents) …", base.len());
    let base_chunks = index_now(&engine, base).await?;

    server.set_faults(vec![Fault::delay(args.delay_ms, u32::MAX)]);
    let mode = QueryMode::Mix;
    eprintln!("{} idle {mode} queries with a {} ms delay per call …", args.queries, args.delay_ms);
    let (idle, idle_phases) = ask(&engine, mode, args.queries).await?;

    eprintln!("enqueueing {} documents (~{load_estimate} chunks) and processing them …", load.len());
    let load_documents = load.len();
    let inserts: Vec<InsertDoc> = load.into_iter().map(to_insert).collect();
    engine.enqueue(inserts, None).await.context("enqueue failed")?;
    let cancel = CancellationToken::new();
    let worker = {
        let engine = engine.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move { engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &cancel).await })
    };
    wait_for_backlog(&server, settings.engine.llm.max_async as u64 * 2).await?;
    let before = server.stats();
    eprintln!("{} {mode} queries while the insert runs …", args.queries);
    let (under_load, under_load_phases) = ask(&engine, mode, args.queries).await?;
    let after = server.stats();
    cancel.cancel();
    let processed = worker.await.context("the insert task panicked")?.context("the insert failed")?;
    server.shutdown().await;
    Ok(LoadReport {
        cpus: procstat::cpu_count(),
        load_before,
        overrides: args.sets.clone(),
        max_async: settings.engine.llm.max_async,
        max_parallel_insert: settings.engine.pipeline.max_parallel_insert,
        delay_ms: args.delay_ms,
        mode: mode.as_str().to_string(),
        base_chunks,
        load_documents,
        load_chunks_estimated: load_estimate,
        median_ratio: if idle.median_ms > 0.0 { under_load.median_ms / idle.median_ms } else { 0.0 },
        idle,
        under_load,
        idle_phases,
        under_load_phases,
        extraction_calls_during_queries: (after.extract + after.glean) - (before.extract + before.glean),
        load_chunks_committed: processed.chunks,
    })
}

/// Splits the corpus (in file-name order) into the knowledge base (about `base_chunks` chunks)
/// and the insert (about `load_chunks` after it). Returns both and the insert's estimated chunks.
fn split(
    docs: Vec<CorpusDoc>,
    base_chunks: usize,
    load_chunks: usize,
    (size, overlap): (usize, usize),
) -> (Vec<CorpusDoc>, Vec<CorpusDoc>, usize) {
    let mut base = Vec::new();
    let mut rest = Vec::new();
    let (mut in_base, mut in_rest) = (0, 0);
    for doc in docs {
        let chunks = corpus::estimated_chunks(doc.tokens, size, overlap);
        if in_base < base_chunks {
            in_base += chunks;
            base.push(doc);
        } else if in_rest < load_chunks {
            in_rest += chunks;
            rest.push(doc);
        }
    }
    (base, rest, in_rest)
}

fn to_insert(doc: CorpusDoc) -> InsertDoc {
    InsertDoc { content: doc.content, file_source: Some(doc.name), ..InsertDoc::default() }
}

/// Indexes `docs` to the end; returns the chunks committed.
async fn index_now(engine: &Engine, docs: Vec<CorpusDoc>) -> Result<usize> {
    engine.enqueue(docs.into_iter().map(to_insert).collect(), None).await.context("enqueue failed")?;
    let report = engine
        .process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new())
        .await
        .context("processing failed")?;
    if let Some((id, e)) = report.failed.first() {
        bail!("indexing the knowledge base failed: {id}: {e}");
    }
    Ok(report.chunks)
}

/// Waits until the server has received `calls` extraction requests (the insert is under way).
async fn wait_for_backlog(server: &ScriptedServer, calls: u64) -> Result<()> {
    let started = Instant::now();
    while server.stats().extract < calls {
        if started.elapsed() > Duration::from_secs(120) {
            bail!("the background insert sent no extraction calls within 2 minutes");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Asks `n` questions in turn; returns their latency and the median of their phases.
async fn ask(engine: &Engine, mode: QueryMode, n: usize) -> Result<(Latency, Phases)> {
    let param = QueryParam::with_mode(mode);
    let mut samples = Vec::with_capacity(n);
    let (mut keywords, mut retrieval, mut answer) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let question = QUESTIONS[i % QUESTIONS.len()];
        let started = Instant::now();
        let result =
            engine.query(question, &param).await.with_context(|| format!("{mode} query failed: {question}"))?;
        samples.push(started.elapsed().as_secs_f64() * 1000.0);
        let t = result.trace.timings_ms;
        keywords.push(t.keywords as f64);
        retrieval.push(t.retrieval as f64);
        answer.push(t.answer.unwrap_or(0) as f64);
    }
    let median = |v: &[f64]| Latency::of(v).median_ms;
    let phases =
        Phases { keywords_ms: median(&keywords), retrieval_ms: median(&retrieval), answer_ms: median(&answer) };
    Ok((Latency::of(&samples), phases))
}

/// The report as Markdown.
pub fn markdown(r: &LoadReport) -> String {
    format!(
        "## Query latency under an insert\n\n\
         {} CPUs, load before {}; MAX_ASYNC={}, MAX_PARALLEL_INSERT={}, scripted delay {} ms per call, \
         overrides {:?}\n\n\
         Knowledge base {} chunks; background insert {} documents (~{} chunks, {} committed before \
         it was cancelled); {} extraction calls served while the loaded queries ran.\n\n\
         | {} queries | n | median | p95 | max |\n|---|---|---|---|---|\n\
         | idle | {} | {:.0} ms | {:.0} ms | {:.0} ms |\n\
         | under load | {} | {:.0} ms | {:.0} ms | {:.0} ms |\n\n\
         Median under load / idle: **{:.2}×**\n\n\
         Median phases (keywords / retrieval / answer): idle {:.0} / {:.0} / {:.0} ms, under load \
         {:.0} / {:.0} / {:.0} ms\n",
        r.cpus,
        r.load_before.as_deref().unwrap_or("?"),
        r.max_async,
        r.max_parallel_insert,
        r.delay_ms,
        r.overrides,
        r.base_chunks,
        r.load_documents,
        r.load_chunks_estimated,
        r.load_chunks_committed,
        r.extraction_calls_during_queries,
        r.mode,
        r.idle.n,
        r.idle.median_ms,
        r.idle.p95_ms,
        r.idle.max_ms,
        r.under_load.n,
        r.under_load.median_ms,
        r.under_load.p95_ms,
        r.under_load.max_ms,
        r.median_ratio,
        r.idle_phases.keywords_ms,
        r.idle_phases.retrieval_ms,
        r.idle_phases.answer_ms,
        r.under_load_phases.keywords_ms,
        r.under_load_phases.retrieval_ms,
        r.under_load_phases.answer_ms,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn under_load_run_measures_both_phases() {
        let corpus = tempfile::tempdir().unwrap();
        for (i, name) in ["1790_a.txt", "1791_b.txt", "1792_c.txt", "1793_d.txt"].iter().enumerate() {
            let text = format!(
                "In year {i} George Washington met Congress in New York. The Navy of the United States guarded \
                 the Atlantic in year {i}. Great Britain and France argued over neutral shipping. "
            )
            .repeat(15);
            std::fs::write(corpus.path().join(name), text).unwrap();
        }
        let path = corpus.path().to_string_lossy().into_owned();
        let args = Args::parse_from([
            "lightrag-bench",
            "--corpus",
            &path,
            "--chunks",
            "1",
            "--queries",
            "2",
            "--dim",
            "16",
            "--set",
            "CHUNK_SIZE=100",
            "--set",
            "CHUNK_OVERLAP_SIZE=10",
            "--under-load",
            "--load-chunks",
            "10",
            "--delay-ms",
            "2",
        ]);
        let report = run(&args).await.unwrap();
        assert_eq!(report.idle.n, 2);
        assert_eq!(report.under_load.n, 2);
        assert!(report.base_chunks >= 1);
        assert!(report.load_documents >= 1 && report.load_chunks_estimated >= 10, "{report:?}");
        assert!(report.median_ratio > 0.0);
        assert!(markdown(&report).contains("Median under load / idle"));
    }

    #[test]
    fn split_fills_the_base_first() {
        let doc = |name: &str, tokens: usize| CorpusDoc { name: name.into(), content: String::new(), tokens };
        let docs = vec![doc("a", 250), doc("b", 250), doc("c", 450), doc("d", 100)];
        let (base, rest, estimate) = split(docs, 2, 4, (100, 0));
        assert_eq!(base.len(), 1, "a alone makes 3 chunks ≥ 2");
        assert_eq!(rest.len(), 2, "b and c make 3 + 5 ≥ 4: d is left out");
        assert_eq!(estimate, 3 + 5);
    }
}
