//! `--http-load`: a bounded, seeded load test of a real `lightrag serve` process on loopback.
//!
//! 1. Start the scripted OpenAI-compatible server in this process (chat and embeddings, no
//!    delay) and spawn `lightrag serve` (the `--bin` binary) on a free port of 127.0.0.1 with a
//!    fresh working directory.
//! 2. Build the knowledge base through the server: the corpus (State of the Union addresses,
//!    remixed copies when it runs out) in file-name order until about `--chunks` chunks, posted
//!    with `POST /documents/texts` and indexed by the server; wait until every document is
//!    processed.
//! 3. For `--duration-s`, run `--clients` concurrent clients (each a seeded loop over a mix of
//!    queries in every mode, `/query/stream`, uploads, text inserts, status polls and graph reads:
//!    see [`clients`]) while a background stream posts the next corpus document every
//!    `--insert-every-s` seconds, so indexing keeps running under the load. The server's `VmRSS`
//!    is read from `/proc/<pid>/status` every `--rss-every-s` seconds.
//! 4. Stop the server with SIGTERM and report requests, errors and p50/p99 per route, and RSS
//!    after the warm-up against RSS at the end.

pub mod clients;
mod report;
mod server;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub use clients::{Route, Sample};
pub use report::{LoadTestReport, RouteRow, markdown};

use crate::corpus::{self, CorpusDoc};
use crate::procstat;
use clients::Shared;
use server::{ServerProcess, ServerSetup, rss_kib};

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `lightrag` binary to serve with.
    pub bin: PathBuf,
    /// Corpus folder (default: see [`corpus::resolve`]).
    pub corpus: Option<PathBuf>,
    /// Chunks of the knowledge base built before the load.
    pub chunks: usize,
    /// Embedding dimension.
    pub dim: usize,
    /// Concurrent clients.
    pub clients: usize,
    /// Length of the load.
    pub duration: Duration,
    /// RSS samples before this are warm-up.
    pub warmup: Duration,
    /// Seed of the clients' choices.
    pub seed: u64,
    /// Interval of the RSS samples.
    pub rss_every: Duration,
    /// Interval of the background inserts.
    pub insert_every: Duration,
    /// No writes during the load (see `--reads-only`).
    pub reads_only: bool,
    /// Server settings, `NAME=VALUE`.
    pub sets: Vec<(String, String)>,
}

/// Documents per `POST /documents/texts` while building the knowledge base.
const BUILD_BATCH: usize = 20;

/// Runs the load test.
pub async fn run(opts: &Options) -> Result<LoadTestReport> {
    if opts.clients == 0 || opts.chunks == 0 || opts.duration.is_zero() {
        bail!("--clients, --chunks and --duration-s must be at least 1");
    }
    // Idempotent: fails harmlessly when a provider is installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let load_before = procstat::load_average();
    let corpus_dir = corpus::resolve(opts.corpus.as_deref())?;
    let tokenizer = lightrag_config::build_tokenizer()?;
    let setting = |name: &str, default: usize| {
        opts.sets.iter().find(|(k, _)| k == name).and_then(|(_, v)| v.parse().ok()).unwrap_or(default)
    };
    let (size, overlap) = (setting("CHUNK_SIZE", 1200), setting("CHUNK_OVERLAP_SIZE", 100));
    // enough after the knowledge base for one background document per interval
    let background_wanted =
        (opts.duration.as_secs_f64() / opts.insert_every.as_secs_f64().max(0.1)).ceil() as usize + 1;
    // a State of the Union address is about ten chunks
    let target = opts.chunks + background_wanted * 10;
    let (docs, _) = corpus::load(&corpus_dir, tokenizer.as_ref(), size, overlap, target, true)?;
    let (base, mut background, kb_chunks) = split(docs, opts.chunks, (size, overlap));
    if opts.reads_only {
        background.clear();
    }

    let dir = tempfile::Builder::new().prefix("lightrag-load-").tempdir().context("cannot create a temp dir")?;
    let llm = ScriptedLlm::start(ScriptConfig { dim: opts.dim, record_requests: 0, ..ScriptConfig::default() })
        .await
        .context("cannot start the scripted LLM server")?;
    // a pooled connection is dropped by the client before the server's KEEPALIVE_TIMEOUT (5 s)
    // closes it: otherwise a request sent on a connection the server is closing at that moment
    // fails with no reply (the race every HTTP/1.1 client with keep-alive has)
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(300))
        .pool_idle_timeout(Duration::from_secs(2))
        .build()
        .context("cannot build the HTTP client")?;
    let llm_base = llm.base_url();
    let setup = ServerSetup { bin: &opts.bin, dir: dir.path(), llm_base: &llm_base, dim: opts.dim, sets: &opts.sets };
    let mut server = ServerProcess::start(&setup, &http).await?;
    eprintln!("server pid {} at {}, log {}", server.pid(), server.url(""), server.log().display());

    eprintln!("building the knowledge base: {} documents (~{kb_chunks} chunks) …", base.len());
    let build_started = Instant::now();
    let mut tracks = Vec::new();
    for batch in base.chunks(BUILD_BATCH) {
        tracks.push(post_texts(&http, &server, batch).await?);
    }
    let processed_before = wait_until_indexed(&http, &server, base.len() as u64).await?;
    let kb_build_s = build_started.elapsed().as_secs_f64();
    eprintln!("knowledge base built in {kb_build_s:.1} s");

    let labels: Vec<String> = get_json(&http, &server.url("/graph/label/popular?limit=200")).await?;
    let texts = base.iter().take(50).map(|d| d.content.clone()).collect();
    let started = Instant::now();
    let shared = Arc::new(Shared {
        http: http.clone(),
        base: server.url(""),
        labels,
        texts,
        tracks: Mutex::new(tracks),
        started,
        failures: Mutex::new(Vec::new()),
        reads_only: opts.reads_only,
    });
    let deadline = started + opts.duration;
    let stop = CancellationToken::new();
    let sampler = tokio::spawn(sample_rss(server.pid(), opts.rss_every, started, stop.clone()));
    let feeder = tokio::spawn(feed(shared.clone(), background, opts.insert_every, deadline));
    eprintln!("{} clients for {:.0} s …", opts.clients, opts.duration.as_secs_f64());
    let workers: Vec<_> =
        (0..opts.clients).map(|id| tokio::spawn(clients::client(shared.clone(), id, opts.seed, deadline))).collect();
    let mut samples = Vec::new();
    for worker in workers {
        samples.extend(worker.await.context("a client panicked")?);
    }
    let (feed_samples, background_documents) = feeder.await.context("the background insert panicked")?;
    samples.extend(feed_samples);
    stop.cancel();
    let mut rss = sampler.await.context("the RSS sampler panicked")?;
    if let Some(kib) = rss_kib(server.pid()) {
        rss.push((started.elapsed().as_secs_f64(), kib as f64 / 1024.0));
    }
    let counts: Value = get_json(&http, &server.url("/documents/status_counts")).await?;
    let processed_after = count(&counts, "processed");
    if let Some(status) = server.exited() {
        bail!("the server died during the load ({status}); see {}", server.log().display());
    }
    let server_exit = server.stop().await?;
    llm.shutdown().await;
    let failures = shared.failures.lock().map(|f| f.clone()).unwrap_or_default();
    let errors = samples.iter().filter(|s| !s.ok).count();
    let warmup_s = opts.warmup.as_secs_f64();
    let after_warmup = rss.iter().find(|(t, _)| *t >= warmup_s).or(rss.last()).map(|(_, m)| *m).unwrap_or(0.0);
    Ok(LoadTestReport {
        bin: opts.bin.display().to_string(),
        cpus: procstat::cpu_count(),
        load_before,
        clients: opts.clients,
        seed: opts.seed,
        duration_s: opts.duration.as_secs_f64(),
        warmup_s,
        kb_documents: base.len(),
        kb_chunks_estimated: kb_chunks,
        kb_build_s,
        background_documents,
        processed_before,
        processed_after,
        requests: samples.len(),
        errors,
        error_rate: if samples.is_empty() { 0.0 } else { errors as f64 / samples.len() as f64 },
        routes: report::rows(&samples),
        rss_after_warmup_mib: after_warmup,
        rss_end_mib: rss.last().map(|(_, m)| *m).unwrap_or(0.0),
        rss_max_mib: rss.iter().map(|(_, m)| *m).fold(0.0, f64::max),
        rss_mib: rss,
        failures,
        server_exit,
    })
}

/// The knowledge base (documents until about `chunks` chunks) and the rest; with the base's
/// estimated chunks.
fn split(
    docs: Vec<CorpusDoc>,
    chunks: usize,
    (size, overlap): (usize, usize),
) -> (Vec<CorpusDoc>, Vec<CorpusDoc>, usize) {
    let (mut base, mut rest, mut in_base) = (Vec::new(), Vec::new(), 0);
    for doc in docs {
        if in_base < chunks {
            in_base += corpus::estimated_chunks(doc.tokens, size, overlap);
            base.push(doc);
        } else {
            rest.push(doc);
        }
    }
    (base, rest, in_base)
}

async fn post_texts(http: &reqwest::Client, server: &ServerProcess, docs: &[CorpusDoc]) -> Result<String> {
    let body = json!({
        "texts": docs.iter().map(|d| d.content.as_str()).collect::<Vec<_>>(),
        "file_sources": docs.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(),
    });
    let reply = http.post(server.url("/documents/texts")).json(&body).send().await.context("POST /documents/texts")?;
    let status = reply.status();
    let text = reply.text().await.context("reading the reply of /documents/texts")?;
    if !status.is_success() {
        bail!("POST /documents/texts → {status}: {text}");
    }
    clients::track_id(&text).context("no track_id in the reply of /documents/texts")
}

async fn get_json<T: serde::de::DeserializeOwned>(http: &reqwest::Client, url: &str) -> Result<T> {
    let reply = http.get(url).send().await.with_context(|| format!("GET {url}"))?;
    let status = reply.status();
    if !status.is_success() {
        bail!("GET {url} → {status}");
    }
    reply.json().await.with_context(|| format!("GET {url}: not the expected JSON"))
}

fn count(counts: &Value, status: &str) -> u64 {
    counts.get("status_counts").and_then(|c| c.get(status)).and_then(Value::as_u64).unwrap_or(0)
}

/// Polls `/documents/status_counts` until `total` documents are processed (an error if any
/// failed). Returns the processed count.
async fn wait_until_indexed(http: &reqwest::Client, server: &ServerProcess, total: u64) -> Result<u64> {
    let mut last_print = Instant::now();
    loop {
        let counts: Value = get_json(http, &server.url("/documents/status_counts")).await?;
        let (processed, failed) = (count(&counts, "processed"), count(&counts, "failed"));
        if failed > 0 {
            bail!("{failed} documents failed while building the knowledge base; see {}", server.log().display());
        }
        if processed >= total {
            return Ok(processed);
        }
        if last_print.elapsed() > Duration::from_secs(15) {
            eprintln!("  {processed} / {total} documents processed");
            last_print = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The background insert stream: the next document every `every` until `deadline`. Returns its
/// samples and how many documents it posted.
async fn feed(shared: Arc<Shared>, docs: Vec<CorpusDoc>, every: Duration, deadline: Instant) -> (Vec<Sample>, usize) {
    let mut out = Vec::new();
    let mut posted = 0;
    let mut ticker = tokio::time::interval(every);
    for doc in docs {
        ticker.tick().await;
        if Instant::now() >= deadline {
            break;
        }
        let body = json!({ "texts": [doc.content], "file_sources": [doc.name] });
        let request = shared.http.post(format!("{}/documents/texts", shared.base)).json(&body);
        if shared.send(Route::BackgroundTexts, request, &mut out).await.is_some() {
            posted += 1;
        }
    }
    (out, posted)
}

/// Samples the server's RSS every `every` until `stop`: seconds since `started`, MiB.
async fn sample_rss(pid: u32, every: Duration, started: Instant, stop: CancellationToken) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut ticker = tokio::time::interval(every);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return out,
            _ = ticker.tick() => {
                if let Some(kib) = rss_kib(pid) {
                    out.push((started.elapsed().as_secs_f64(), kib as f64 / 1024.0));
                }
            }
        }
    }
}
