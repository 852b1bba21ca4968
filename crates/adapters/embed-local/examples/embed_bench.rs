//! Throughput of the local embedder on real text.
//!
//! ```text
//! scripts/install-model.sh && scripts/fetch-corpus.sh
//! cargo run --release -p lightrag-embed-local --example embed_bench -- [--threads 1,2] [--batch 10]
//!     [--precision f32,int8] [--quality] [--model DIR] [--corpus DIR] [--descriptions 1000] [--chunks 100]
//! ```
//!
//! The texts come from the State of the Union corpus (`../shared/corpus/sotu`, else the folder
//! `scripts/fetch-corpus.sh` fills) and look like what indexing embeds:
//!
//! * **descriptions**: one to three consecutive sentences clipped to 600 characters, like the
//!   rule-based extractor's entity and relation descriptions;
//! * **chunks**: about 900 words (~1,200 tokens, the default `CHUNK_SIZE`); the model reads only
//!   the first 256 tokens of each.
//!
//! For every worker-thread count it embeds each set in calls of `--batch` texts (the engine's
//! `EMBEDDING_BATCH_NUM`, 10) and prints texts and tokens per wall-second and per CPU-second
//! (CPU of the whole process: on a shared machine the per-CPU-second figure is the one that
//! does not depend on what else runs), for every precision asked (`auto`, `f32`, `int8`).
//!
//! `--quality` also embeds both sets in f32 and in int8 and prints the minimum and mean cosine
//! between the two (f32 matches sentence-transformers to ~1e-7, see `tests/reference.rs`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use lightrag_embed_local::{LoadOptions, LocalEmbedder, Precision, default_model_dir};

type Error = Box<dyn std::error::Error>;

struct Args {
    model: Option<PathBuf>,
    corpus: Option<PathBuf>,
    threads: Vec<usize>,
    precisions: Vec<Precision>,
    quality: bool,
    batch: usize,
    descriptions: usize,
    chunks: usize,
}

fn parse_args() -> Result<Args, Error> {
    let mut a = Args {
        model: None,
        corpus: None,
        threads: vec![1, 2],
        precisions: vec![Precision::F32, Precision::Int8],
        quality: false,
        batch: 10,
        descriptions: 1000,
        chunks: 100,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--model" => a.model = Some(PathBuf::from(value()?)),
            "--corpus" => a.corpus = Some(PathBuf::from(value()?)),
            "--threads" => {
                a.threads = value()?.split(',').map(|t| t.trim().parse()).collect::<Result<_, _>>()?;
            }
            "--precision" => {
                a.precisions = value()?.split(',').map(|p| parse_precision(p.trim())).collect::<Result<_, _>>()?;
            }
            "--quality" => a.quality = true,
            "--batch" => a.batch = value()?.parse::<usize>()?.max(1),
            "--descriptions" => a.descriptions = value()?.parse()?,
            "--chunks" => a.chunks = value()?.parse()?,
            other => return Err(format!("unknown argument {other:?} (see the file's header for usage)").into()),
        }
    }
    Ok(a)
}

fn parse_precision(p: &str) -> Result<Precision, Error> {
    match p {
        "auto" => Ok(Precision::Auto),
        "f32" => Ok(Precision::F32),
        "int8" => Ok(Precision::Int8),
        other => Err(format!("--precision {other:?}: use auto, f32 or int8").into()),
    }
}

fn model_dir(explicit: Option<PathBuf>) -> Result<PathBuf, Error> {
    if let Some(d) = explicit {
        return Ok(d);
    }
    Ok(default_model_dir(
        std::env::var_os("LIGHTRAG_MODEL_DIR").as_deref(),
        std::env::var_os("XDG_CACHE_HOME").as_deref(),
        std::env::var_os("HOME").map(PathBuf::from).as_deref(),
    )
    .ok_or("no model dir: pass --model DIR or set LIGHTRAG_MODEL_DIR")?)
}

fn corpus_dir(explicit: Option<PathBuf>) -> Result<PathBuf, Error> {
    let mut candidates = Vec::new();
    candidates.extend(explicit);
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../../shared/corpus/sotu"));
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    candidates.extend(cache.map(|c| c.join("lightrag-rs/corpus/sotu")));
    candidates
        .into_iter()
        .find(|p| p.is_dir())
        .ok_or_else(|| "no corpus found: run scripts/fetch-corpus.sh or pass --corpus DIR".into())
}

/// The corpus's texts, files in name order.
fn read_corpus(dir: &Path) -> Result<Vec<String>, Error> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files.into_iter().map(|f| Ok(std::fs::read_to_string(f)?)).collect()
}

/// Sentences: split after `.`, `?` or `!` followed by whitespace.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for i in 0..bytes.len().saturating_sub(1) {
        if matches!(bytes[i], b'.' | b'?' | b'!') && bytes[i + 1].is_ascii_whitespace() {
            let s = text[start..=i].trim();
            if s.split_whitespace().count() >= 4 {
                out.push(s);
            }
            start = i + 1;
        }
    }
    out
}

/// `n` description-like texts spread over the whole corpus: 1–3 consecutive sentences, at most
/// 600 characters (cut at a character boundary).
fn descriptions(docs: &[String], n: usize) -> Vec<String> {
    let all: Vec<&str> = docs.iter().flat_map(|d| sentences(d)).collect();
    if all.is_empty() || n == 0 {
        return Vec::new();
    }
    let step = (all.len() / n).max(1);
    (0..n)
        .map(|i| {
            let at = (i * step) % all.len();
            let take = 1 + i % 3;
            let joined = all[at..(at + take).min(all.len())].join(" ");
            joined.chars().take(600).collect()
        })
        .collect()
}

/// `n` chunks of about 900 words, spread over the corpus.
fn chunks(docs: &[String], n: usize) -> Vec<String> {
    let mut all = Vec::new();
    for d in docs {
        let words: Vec<&str> = d.split_whitespace().collect();
        all.extend(words.chunks(900).filter(|c| c.len() >= 300).map(|c| c.join(" ")));
    }
    if all.is_empty() || n == 0 {
        return Vec::new();
    }
    let step = (all.len() / n).max(1);
    (0..n).map(|i| all[(i * step) % all.len()].clone()).collect()
}

/// CPU seconds this process has used (all threads), from `/proc/self/stat` (Linux, 100 Hz
/// ticks); `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn bench(emb: &LocalEmbedder, label: &str, texts: &[String], batch: usize) -> Result<(), Error> {
    if texts.is_empty() {
        return Ok(());
    }
    emb.embed_blocking(&texts[..texts.len().min(batch)])?; // warm-up
    let tokens: usize = texts.iter().map(|t| emb.token_count(t)).sum::<Result<usize, _>>()?;
    let cpu = cpu_seconds();
    let t = Instant::now();
    for part in texts.chunks(batch) {
        emb.embed_blocking(part)?;
    }
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu.zip(cpu_seconds()).map(|(a, b)| b - a).filter(|c| *c > 0.0);
    let n = texts.len() as f64;
    let per_cpu = cpu
        .map_or_else(String::new, |c| format!(" | per CPU-s: {:>7.1} texts {:>8.0} tokens", n / c, tokens as f64 / c));
    println!(
        "  {label:>12}: {:>5} texts, {:>5.1} tokens avg | per wall-s: {:>7.1} texts {:>8.0} tokens{per_cpu}",
        texts.len(),
        tokens as f64 / n,
        n / wall,
        tokens as f64 / wall,
    );
    Ok(())
}

fn main() -> Result<(), Error> {
    let args = parse_args()?;
    let dir = model_dir(args.model)?;
    let corpus = corpus_dir(args.corpus)?.canonicalize()?;
    let docs = read_corpus(&corpus)?;
    let descs = descriptions(&docs, args.descriptions);
    let chunks = chunks(&docs, args.chunks);
    println!("model {}, corpus {} ({} files), batch {}", dir.display(), corpus.display(), docs.len(), args.batch);
    if args.quality {
        quality(&dir, &descs, &chunks)?;
    }
    for &precision in &args.precisions {
        for &threads in &args.threads {
            let t = Instant::now();
            let emb = LocalEmbedder::load_with(&dir, LoadOptions { threads, precision, ..LoadOptions::default() })?;
            println!("{:?}, threads {threads}: load {:.0} ms", emb.precision(), t.elapsed().as_secs_f64() * 1e3);
            bench(&emb, "descriptions", &descs, args.batch)?;
            bench(&emb, "chunks", &chunks, args.batch)?;
        }
    }
    Ok(())
}

/// Minimum and mean cosine between the f32 and int8 vectors of each set.
fn quality(dir: &Path, descs: &[String], chunks: &[String]) -> Result<(), Error> {
    let load = |precision| LocalEmbedder::load_with(dir, LoadOptions { precision, ..LoadOptions::default() });
    let (f32s, int8) = (load(Precision::F32)?, load(Precision::Int8)?);
    for (label, texts) in [("descriptions", descs), ("chunks", chunks)] {
        let a = f32s.embed_blocking(texts)?;
        let b = int8.embed_blocking(texts)?;
        let cos: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x.iter().zip(y).map(|(p, q)| p * q).sum()).collect();
        let min = cos.iter().copied().fold(f32::INFINITY, f32::min);
        let mean = cos.iter().sum::<f32>() / cos.len().max(1) as f32;
        let below = cos.iter().filter(|&&c| c < 0.99).count();
        println!(
            "int8 vs f32, {label:>12}: {} texts, cosine min {min:.5}, mean {mean:.5}, below 0.99: {below}",
            cos.len()
        );
    }
    Ok(())
}
