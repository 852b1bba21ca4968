//! Throughput of the local embedder.
//!
//! ```text
//! scripts/install-model.sh
//! cargo run --release -p lightrag-embed-local --example embed_bench [MODEL_DIR]
//! ```
//!
//! Embeds 256 sentences of about 25 tokens and 256 passages of about 200 tokens, on one worker
//! thread and on all cores, and prints sentences per second. Also times loading the model and
//! hashing its weights (what a SHA-256 check at load would cost).

use std::path::PathBuf;
use std::time::Instant;

use lightrag_embed_local::{LoadOptions, LocalEmbedder, default_model_dir};
use sha2::{Digest, Sha256};

const BASE: [&str; 16] = [
    "The city council approved the new budget for public transport on Tuesday evening.",
    "Researchers found that the enzyme breaks down plastic waste faster at higher temperatures.",
    "Marie Curie was the first person to win Nobel Prizes in two different sciences.",
    "The company reported a sharp rise in quarterly revenue driven by cloud services.",
    "Heavy rain caused flooding in several villages along the river over the weekend.",
    "A knowledge graph links entities such as people, places and organisations by relations.",
    "The orchestra will perform Beethoven's ninth symphony at the festival next summer.",
    "Engineers replaced the bridge's steel cables after inspections revealed corrosion.",
    "The novel follows a young sailor who discovers an island missing from every map.",
    "Vaccination rates increased after the clinic extended its opening hours to weekends.",
    "The startup trains small language models that run entirely on mobile phones.",
    "Archaeologists uncovered Roman coins and pottery beneath the old market square.",
    "The football club signed a young striker from a second-division team in Portugal.",
    "Solar panels on the school roof now cover most of its electricity consumption.",
    "The museum's new exhibition explores the history of printing from Gutenberg onwards.",
    "Farmers switched to drought-resistant wheat after three unusually dry summers.",
];

fn short_sentences(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{} (report {i}, page {})", BASE[i % BASE.len()], i % 7)).collect()
}

fn long_passages(n: usize) -> Vec<String> {
    (0..n).map(|i| (0..13).map(|j| BASE[(i + j * 3) % BASE.len()]).collect::<Vec<_>>().join(" ")).collect()
}

/// CPU seconds this process has used (all threads), from `/proc/self/stat` (Linux, 100 Hz
/// ticks); `None` elsewhere. On a busy machine, texts per CPU-second is the figure that does not
/// depend on what else runs.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

struct Rates {
    per_wall_second: f64,
    per_cpu_second: Option<f64>,
    avg_tokens: f64,
}

fn bench(emb: &LocalEmbedder, texts: &[String]) -> Result<Rates, Box<dyn std::error::Error>> {
    emb.embed_blocking(&texts[..8])?; // warm-up
    let cpu = cpu_seconds();
    let t = Instant::now();
    emb.embed_blocking(texts)?;
    let wall = t.elapsed().as_secs_f64();
    let cpu = cpu.zip(cpu_seconds()).map(|(a, b)| b - a);
    let tokens: usize = texts.iter().map(|t| emb.token_count(t)).sum::<Result<usize, _>>()?;
    let n = texts.len() as f64;
    Ok(Rates {
        per_wall_second: n / wall,
        per_cpu_second: cpu.filter(|c| *c > 0.0).map(|c| n / c),
        avg_tokens: tokens as f64 / n,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = match std::env::args_os().nth(1) {
        Some(d) => PathBuf::from(d),
        None => default_model_dir(
            std::env::var_os("LIGHTRAG_MODEL_DIR").as_deref(),
            std::env::var_os("XDG_CACHE_HOME").as_deref(),
            std::env::var_os("HOME").map(PathBuf::from).as_deref(),
        )
        .ok_or("no model dir: pass one or set LIGHTRAG_MODEL_DIR")?,
    };

    let t = Instant::now();
    let bytes = std::fs::read(dir.join("model.safetensors"))?;
    let read = t.elapsed();
    let t = Instant::now();
    let digest = Sha256::digest(&bytes);
    println!(
        "read weights {:.0} ms, SHA-256 {:.0} ms ({}…)",
        read.as_secs_f64() * 1e3,
        t.elapsed().as_secs_f64() * 1e3,
        &hex::encode(digest)[..16]
    );
    drop(bytes);

    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let short = short_sentences(256);
    let long = long_passages(256);
    for threads in [1, all] {
        let t = Instant::now();
        let emb = LocalEmbedder::load_with(&dir, LoadOptions { threads, ..LoadOptions::default() })?;
        println!("threads {threads}: load {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
        for (label, texts) in [("short", &short), ("long", &long)] {
            let r = bench(&emb, texts)?;
            let cpu = r.per_cpu_second.map_or_else(String::new, |c| format!(", {c:.1} per CPU-second"));
            println!(
                "  {label:>5}: 256 texts of ~{:.0} tokens: {:.1} texts/s wall{cpu}",
                r.avg_tokens, r.per_wall_second
            );
        }
    }
    Ok(())
}
