//! `lightrag-bench`: indexing and query benchmark of lightrag-rs.
//!
//! Starts the scripted OpenAI-compatible server in-process (zero delay), configures the engine
//! exactly as a user would (`LLM_BINDING=openai` pointing at it, real HTTP client, real SQLite
//! store, real tokenizer), indexes about `--chunks` chunks of a real corpus, then times every query
//! mode with the LLM cache on (first ask and repeats) and off. Prints Markdown, or JSON with
//! `--json`. Run it in release:
//!
//! ```text
//! cargo run --release -p lightrag-bench -- --chunks 500 --queries 20
//! ```
//!
//! `--under-load` measures instead how long a query takes while a large insert runs (scripted
//! delay per call, see [`load`]):
//!
//! ```text
//! cargo run --release -p lightrag-bench -- --under-load --chunks 100 --load-chunks 5000 --delay-ms 50 --queries 20
//! ```
//!
//! `--updates` times every mode under query filters and the in-place replacement of a changed
//! document against deleting and inserting it (see [`updates`]).
//!
//! `--delete-batch N` deletes N documents in one pass and, from a copy of the knowledge base,
//! one at a time, and compares the two (see [`batch_delete`]).

mod batch_delete;
mod delete;
mod load;
mod report;
mod run;
mod settings;
mod updates;

use lightrag_bench::{corpus, procstat, stats};

use std::path::PathBuf;

use anyhow::Result;
use clap::Parser;

/// Command-line arguments.
#[derive(Debug, Clone, Parser)]
#[command(name = "lightrag-bench", about = "Indexing and query benchmark against a scripted, instant LLM")]
pub struct Args {
    /// Folder of .txt files (default: ../shared/corpus/sotu, else the folder scripts/fetch-corpus.sh fills).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Index documents in file-name order until about this many chunks.
    #[arg(long, default_value_t = 500)]
    pub chunks: usize,
    /// When the corpus runs out before --chunks: go on with remixed copies of its documents
    /// (each one's sentences in a seeded shuffled order: new chunks, the same names), e.g. for
    /// 50,000 chunks from the State of the Union addresses.
    #[arg(long)]
    pub remix: bool,
    /// Runs per query mode and cache setting.
    #[arg(long, default_value_t = 20)]
    pub queries: usize,
    /// Embedding dimension of the scripted server.
    #[arg(long, default_value_t = 64)]
    pub dim: usize,
    /// Override a setting, NAME=VALUE (repeatable), e.g. --set MAX_ASYNC=8.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub sets: Vec<String>,
    /// Keep the store in this folder (must be empty or absent) instead of a deleted temp folder.
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Skip the query phase.
    #[arg(long)]
    pub skip_queries: bool,
    /// With `--work-dir`: query the store an earlier `--work-dir` run left there instead of
    /// indexing again (the same `--chunks`, `--remix` and `--dim`; the indexing table is left
    /// out). For iterating on query speed without re-indexing 50,000 chunks.
    #[arg(long, requires = "work_dir")]
    pub reuse: bool,
    /// After the queries, delete the oldest and the newest document (both usually share the most
    /// connected entity) and time each deletion with the store records it touched.
    #[arg(long)]
    pub delete_hub: bool,
    /// Instead of the indexing and query benchmark: delete this many documents spread over the
    /// knowledge base in one pass, and the same ones one at a time from a copy of it; time and
    /// summary calls of each way (the knowledge base is `--chunks` chunks).
    #[arg(long, value_name = "N")]
    pub delete_batch: Option<usize>,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    pub json: bool,
    /// Instead of the indexing and query benchmark: query latency while a large insert runs
    /// (the knowledge base is `--chunks` chunks; see `--load-chunks` and `--delay-ms`).
    #[arg(long)]
    pub under_load: bool,
    /// Instead of the indexing and query benchmark: query latency under filters, and the
    /// in-place update of a changed document against delete + insert (the knowledge base is
    /// `--chunks` chunks; `--queries` per mode and filter).
    #[arg(long)]
    pub updates: bool,
    /// With `--under-load`: chunks of the background insert.
    #[arg(long, default_value_t = 5000)]
    pub load_chunks: usize,
    /// With `--under-load`: delay of every scripted request, ms.
    #[arg(long, default_value_t = 50)]
    pub delay_ms: u64,
    /// Instead: the HTTP load test of a real `lightrag serve` process on loopback (see
    /// `--bin`, `--clients`, `--duration-s`); the knowledge base is `--chunks` chunks.
    #[arg(long)]
    pub http_load: bool,
    /// With `--http-load`: the lightrag binary to serve with (default: `lightrag` next to this
    /// program, e.g. target/release/lightrag).
    #[arg(long)]
    pub bin: Option<PathBuf>,
    /// With `--http-load`: concurrent clients.
    #[arg(long, default_value_t = 50)]
    pub clients: usize,
    /// With `--http-load`: length of the load, seconds.
    #[arg(long, default_value_t = 600)]
    pub duration_s: u64,
    /// With `--http-load`: RSS samples before this many seconds are warm-up.
    #[arg(long, default_value_t = 60)]
    pub warmup_s: u64,
    /// With `--http-load`: seed of the clients' choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// With `--http-load`: seconds between RSS samples of the server.
    #[arg(long, default_value_t = 5)]
    pub rss_every_s: u64,
    /// With `--http-load`: seconds between the background inserts of the next corpus document.
    #[arg(long, default_value_t = 2)]
    pub insert_every_s: u64,
    /// With `--http-load`: no writes once the knowledge base is built (no uploads, text inserts
    /// or background inserts; those turns poll the pipeline status instead), so the server's RSS
    /// can be watched over a knowledge base that does not grow.
    #[arg(long)]
    pub reads_only: bool,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match bench().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lightrag-bench: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The `--http-load` options from the arguments.
fn http_load_options(args: &Args) -> Result<lightrag_bench::http_load::Options> {
    use std::time::Duration;
    let bin = match &args.bin {
        Some(bin) => bin.clone(),
        None => std::env::current_exe()
            .map_err(|e| anyhow::anyhow!("cannot find this program's folder ({e}); pass --bin PATH"))?
            .with_file_name("lightrag"),
    };
    Ok(lightrag_bench::http_load::Options {
        bin,
        corpus: args.corpus.clone(),
        chunks: args.chunks,
        dim: args.dim,
        clients: args.clients,
        duration: Duration::from_secs(args.duration_s),
        warmup: Duration::from_secs(args.warmup_s),
        seed: args.seed,
        rss_every: Duration::from_secs(args.rss_every_s.max(1)),
        insert_every: Duration::from_secs(args.insert_every_s.max(1)),
        reads_only: args.reads_only,
        sets: settings::parse_overrides(&args.sets)?,
    })
}

async fn bench() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    if args.http_load {
        let report = lightrag_bench::http_load::run(&http_load_options(&args)?).await?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", lightrag_bench::http_load::markdown(&report));
        }
        return Ok(());
    }
    if let Some(n) = args.delete_batch {
        let report = batch_delete::run(&args, n).await?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", batch_delete::markdown(&report));
        }
        return Ok(());
    }
    if args.updates {
        let report = updates::run(&args).await?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", updates::markdown(&report));
        }
        return Ok(());
    }
    if args.under_load {
        let report = load::run(&args).await?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", load::markdown(&report));
        }
        return Ok(());
    }
    let report = run::run(&args).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report::markdown(&report));
    }
    Ok(())
}
