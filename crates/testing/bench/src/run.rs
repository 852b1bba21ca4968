//! The benchmark itself: start the scripted server, index, query, measure.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use lightrag_config::Settings;
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use lightrag_engine::retrieval::query::{Answer, QueryMode, QueryParam};
use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, ScriptedServer, Stats};
use tokio_util::sync::CancellationToken;

use crate::Args;
use crate::corpus::{self, CorpusDoc};
use crate::procstat::{self, CpuSample};
use crate::report::{Indexing, Machine, QueryRow, Report, ServerCalls, Setup};
use crate::settings::{parse_overrides, settings};
use crate::stats::Latency;

/// Questions about the early State of the Union addresses, asked in rotation.
pub const QUESTIONS: [&str; 5] = [
    "What did George Washington tell Congress about the public debt and public credit?",
    "How did the United States deal with Great Britain and France over neutral shipping?",
    "What was said about the Indian tribes on the western frontier?",
    "Why did the presidents ask Congress to strengthen the Navy?",
    "What were the arguments about the Bank of the United States and the currency?",
];

/// Runs the whole benchmark.
pub async fn run(args: &Args) -> Result<Report> {
    if args.chunks == 0 {
        bail!("--chunks must be at least 1");
    }
    let load_before = procstat::load_average();
    let overrides = parse_overrides(&args.sets)?;
    let corpus_dir = corpus::resolve(args.corpus.as_deref())?;

    let (_temp, working_dir) = working_dir(args.work_dir.as_deref(), args.reuse)?;
    let server = ScriptedLlm::start(ScriptConfig { dim: args.dim, record_requests: 0, ..ScriptConfig::default() })
        .await
        .context("cannot start the scripted LLM server")?;
    let base = server.base_url();
    let settings = settings(&base, args.dim, &working_dir, &overrides)?;
    if args.reuse && !settings.store_path().is_file() {
        bail!(
            "--reuse: {} holds no store; index into it first with --work-dir and without --reuse",
            settings.store_path().display()
        );
    }
    let (docs, estimate) = load_docs(args, &corpus_dir, &settings)?;
    let setup = Setup {
        corpus: corpus_dir.display().to_string(),
        documents: docs.len(),
        first_file: docs.first().map(|d| d.name.clone()).unwrap_or_default(),
        last_file: docs.last().map(|d| d.name.clone()).unwrap_or_default(),
        corpus_tokens: docs.iter().map(|d| d.tokens).sum(),
        estimated_chunks: estimate,
        dim: args.dim,
        queries_per_mode: args.queries,
        questions: QUESTIONS.iter().map(|q| q.to_string()).collect(),
        max_async: settings.engine.llm.max_async,
        max_parallel_insert: settings.engine.pipeline.max_parallel_insert,
        overrides: args.sets.clone(),
    };
    eprintln!(
        "indexing {} documents (~{} chunks) from {} into {} …",
        setup.documents,
        estimate,
        setup.corpus,
        working_dir.display()
    );

    let engine = lightrag_config::open_engine(&settings).await.context("cannot open the engine")?;
    let texts: std::collections::HashMap<String, String> = if args.delete_hub {
        docs.iter().map(|d| (d.name.clone(), d.content.clone())).collect()
    } else {
        Default::default()
    };
    let indexing = if args.reuse {
        eprintln!("reusing the store in {} (no indexing)", working_dir.display());
        Indexing { reused: true, ..Indexing::default() }
    } else {
        let indexing = index(&engine, &server, docs).await?;
        eprintln!("indexed {} chunks in {:.2} s", indexing.chunks, indexing.wall_s);
        indexing
    };

    let mut queries = Vec::new();
    if !args.skip_queries {
        eprintln!("querying with the LLM cache on …");
        queries.extend(query_modes(&engine, &server, args.queries, true).await?);
        drop(engine);
        let mut off = overrides.clone();
        off.push(("ENABLE_LLM_CACHE".to_string(), "false".to_string()));
        let settings_off = crate::settings::settings(&base, args.dim, &working_dir, &off)?;
        let engine = lightrag_config::open_engine(&settings_off).await.context("cannot reopen the engine")?;
        eprintln!("querying with the LLM cache off …");
        queries.extend(query_modes(&engine, &server, args.queries, false).await?);
    }

    let deletes = if args.delete_hub {
        let engine = lightrag_config::open_engine(&settings).await.context("cannot reopen the engine")?;
        eprintln!("deleting documents that share the most connected entity …");
        crate::delete::delete_hub_documents(&engine, &server, &texts).await?
    } else {
        Vec::new()
    };
    let store_bytes = settings.postgres.is_none().then(|| store_size(&settings));
    server.shutdown().await;
    Ok(Report {
        machine: Machine { cpus: procstat::cpu_count(), load_before, load_after: procstat::load_average() },
        setup,
        indexing,
        queries,
        deletes,
        peak_rss_mib: procstat::peak_rss_mib(),
        store_bytes,
    })
}

/// The corpus documents of `--chunks` (and `--remix`), cut as `settings` cut them; with the
/// estimated number of chunks.
pub(crate) fn load_docs(args: &Args, corpus_dir: &Path, settings: &Settings) -> Result<(Vec<CorpusDoc>, usize)> {
    let tokenizer = lightrag_config::build_tokenizer()?;
    let chunking = &settings.engine.chunking;
    corpus::load(corpus_dir, tokenizer.as_ref(), chunking.chunk_size, chunking.chunk_overlap, args.chunks, args.remix)
}

/// The folder the store goes in, and the temp folder guard that deletes it (when not kept).
fn working_dir(keep: Option<&Path>, reuse: bool) -> Result<(Option<tempfile::TempDir>, PathBuf)> {
    match keep {
        // whether it holds a store is checked once the settings say where the store file is
        Some(dir) if reuse => Ok((None, dir.to_path_buf())),
        Some(dir) => {
            if dir.exists() && std::fs::read_dir(dir).map(|mut d| d.next().is_some()).unwrap_or(true) {
                bail!(
                    "--work-dir {}: must be an empty or absent folder (the benchmark needs a fresh store)",
                    dir.display()
                );
            }
            Ok((None, dir.to_path_buf()))
        }
        None => {
            let temp = tempfile::Builder::new()
                .prefix("lightrag-bench-")
                .tempdir()
                .context("cannot create a temporary working directory")?;
            let path = temp.path().to_path_buf();
            Ok((Some(temp), path))
        }
    }
}

fn calls_between(before: &Stats, after: &Stats) -> ServerCalls {
    ServerCalls {
        extract: after.extract - before.extract,
        glean: after.glean - before.glean,
        summary: after.summary - before.summary,
        keywords: after.keywords - before.keywords,
        answer: after.answer - before.answer,
        embed_requests: after.embed - before.embed,
        embed_texts: after.embed_texts - before.embed_texts,
    }
}

pub(crate) async fn index(engine: &Engine, server: &ScriptedServer, docs: Vec<CorpusDoc>) -> Result<Indexing> {
    let inserts: Vec<InsertDoc> = docs
        .into_iter()
        .map(|d| InsertDoc { content: d.content, file_source: Some(d.name), ..InsertDoc::default() })
        .collect();
    let stats_before = server.stats();
    let cpu_before = CpuSample::now();
    let started = Instant::now();
    engine.enqueue(inserts, None).await.context("enqueue failed")?;
    let report = engine
        .process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new())
        .await
        .context("processing failed")?;
    let wall_s = started.elapsed().as_secs_f64();
    let cpu = CpuSample::now().since(&cpu_before);
    let calls = calls_between(&stats_before, &server.stats());
    let counts = engine.graph_counts().await.context("cannot count the graph")?;
    Ok(Indexing {
        wall_s,
        cpu_process_s: cpu.process_s,
        cpu_server_s: cpu.server_s,
        cpu_engine_s: cpu.engine_s(),
        docs_processed: report.processed.len(),
        docs_failed: report.failed.len(),
        first_error: report.failed.first().map(|(id, e)| format!("{id}: {e}")),
        chunks: report.chunks,
        entities_extracted: report.entities_extracted,
        relations_extracted: report.relations_extracted,
        graph_entities: counts.nodes,
        graph_relations: counts.edges,
        chunks_per_s: if wall_s > 0.0 { report.chunks as f64 / wall_s } else { 0.0 },
        calls,
        reused: false,
    })
}

/// One timed query.
struct Sample {
    ms: f64,
    first_ask: bool,
    no_context: bool,
    chat_calls: u64,
    embed_calls: u64,
    cpu_s: f64,
}

/// Runs every mode `n` times; with the cache on, splits first asks of a question from repeats.
async fn query_modes(engine: &Engine, server: &ScriptedServer, n: usize, cache_on: bool) -> Result<Vec<QueryRow>> {
    let mut rows = Vec::new();
    for mode in QueryMode::ALL {
        let param = QueryParam::with_mode(mode);
        let mut asked: HashSet<&str> = HashSet::new();
        let mut samples = Vec::with_capacity(n);
        for i in 0..n {
            let question = QUESTIONS[i % QUESTIONS.len()];
            let first_ask = asked.insert(question);
            let stats_before = server.stats();
            let cpu_before = CpuSample::now_precise();
            let started = Instant::now();
            let result =
                engine.query(question, &param).await.with_context(|| format!("{mode} query failed: {question}"))?;
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            let cpu_s = CpuSample::now_precise().since(&cpu_before).engine_s();
            let calls = calls_between(&stats_before, &server.stats());
            let no_context = matches!(result.answer, Answer::NoContext(_));
            samples.push(Sample {
                ms,
                first_ask,
                no_context,
                chat_calls: calls.chat(),
                embed_calls: calls.embed_requests,
                cpu_s,
            });
        }
        let make = |cache: &str, pick: &dyn Fn(&Sample) -> bool| {
            let picked: Vec<&Sample> = samples.iter().filter(|s| pick(s)).collect();
            let count = picked.len().max(1) as f64;
            let ms: Vec<f64> = picked.iter().map(|s| s.ms).collect();
            QueryRow {
                mode: mode.as_str().to_string(),
                cache: cache.to_string(),
                latency: Latency::of(&ms),
                chat_calls_per_query: picked.iter().map(|s| s.chat_calls).sum::<u64>() as f64 / count,
                embed_calls_per_query: picked.iter().map(|s| s.embed_calls).sum::<u64>() as f64 / count,
                cpu_ms_per_query: (picked.iter().map(|s| s.cpu_s).sum::<f64>() * 1000.0 / count).max(0.0),
                no_context: picked.iter().filter(|s| s.no_context).count(),
            }
        };
        if cache_on {
            rows.push(make("on, first ask", &|s: &Sample| s.first_ask));
            rows.push(make("on, repeat (hit)", &|s: &Sample| !s.first_ask));
        } else {
            rows.push(make("off", &|_: &Sample| true));
        }
    }
    Ok(rows)
}

/// Bytes of `lightrag.db` and its `-wal` / `-shm` files.
fn store_size(settings: &Settings) -> u64 {
    let db = settings.store_path();
    let name = db.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let Ok(entries) = std::fs::read_dir(settings.data_dir()) else { return 0 };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&name))
        .filter_map(|e| e.metadata().ok().map(|m| m.len()))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn small_run_indexes_and_times_every_mode() {
        let corpus = tempfile::tempdir().unwrap();
        let text = "George Washington met Congress in New York. The Navy of the United States \
                    guarded the Atlantic. Great Britain and France argued over neutral shipping. "
            .repeat(20);
        std::fs::write(corpus.path().join("1790_a.txt"), &text).unwrap();
        std::fs::write(corpus.path().join("1791_b.txt"), text.replace("Navy", "Army")).unwrap();
        let path = corpus.path().to_string_lossy().into_owned();
        let queries = (QUESTIONS.len() + 1).to_string();
        let args = Args::parse_from([
            "lightrag-bench",
            "--corpus",
            &path,
            "--chunks",
            "1",
            "--queries",
            &queries,
            "--dim",
            "16",
            "--set",
            "CHUNK_SIZE=200",
            "--set",
            "CHUNK_OVERLAP_SIZE=20",
            "--delete-hub",
            "--load-chunks",
            "0",
            "--delay-ms",
            "0",
        ]);
        let report = run(&args).await.unwrap();
        assert_eq!(report.deletes.len(), 1, "one document: deleted as the oldest, none left for the newest");
        assert!(report.deletes[0].records_written > 0);
        // One document reaches the target of one estimated chunk.
        assert_eq!(report.setup.documents, 1);
        assert_eq!(report.indexing.docs_failed, 0, "{:?}", report.indexing.first_error);
        assert!(report.indexing.chunks >= 2);
        assert!(report.indexing.graph_entities > 0);
        assert_eq!(report.indexing.calls.extract as usize, report.indexing.chunks);
        assert!(report.store_bytes.is_some_and(|b| b > 0));
        // Two rows per mode with the cache on, one with it off.
        assert_eq!(report.queries.len(), QueryMode::ALL.len() * 3);
        for row in &report.queries {
            let expected = match row.cache.as_str() {
                "on, first ask" => QUESTIONS.len(),
                "on, repeat (hit)" => 1,
                _ => QUESTIONS.len() + 1,
            };
            assert_eq!(row.latency.n, expected, "{row:?}");
            if row.cache == "on, repeat (hit)" && row.mode != "bypass" {
                assert_eq!(row.chat_calls_per_query, 0.0, "a repeat must be a cache hit: {row:?}");
            }
            if row.cache == "off" && row.mode != "bypass" {
                // naive and ppr ask for no keywords; auto walks (ppr) on these questions, which
                // all give names
                let calls = if matches!(row.mode.as_str(), "naive" | "ppr" | "auto") { 1.0 } else { 2.0 };
                assert_eq!(row.chat_calls_per_query, calls, "keywords + answer: {row:?}");
            }
        }
    }
}
