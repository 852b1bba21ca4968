//! Runs rule-based extraction over every `.txt` file of a directory, chunk by chunk, and prints
//! the most frequent entities with their types and relation degree, plus timing.
//!
//! ```text
//! cargo run --release -p lightrag-nlp --example nlp_top_entities -- <dir> [top=30] [chunk_chars=4800] [timing_passes=0]
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use lightrag_nlp::{NlpOptions, extract};

#[derive(Default)]
struct Stats {
    chunks: usize,
    types: BTreeMap<String, usize>,
    neighbours: BTreeSet<String>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: nlp_top_entities <dir-with-txt-files> [top=30] [chunk_chars=4800] [timing_passes=0]");
        std::process::exit(2);
    };
    let top: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(30);
    let chunk_chars: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(4800);
    // Extra passes over every chunk with nothing else going on, to time extraction alone
    // (compare `perf stat` or `time` user seconds between runs with different pass counts).
    let timing_passes: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut all_chunks: Vec<String> = Vec::new();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => {
            rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "txt")).collect()
        }
        Err(e) => {
            eprintln!("cannot read directory {dir}: {e} (pass a directory of .txt files)");
            std::process::exit(1);
        }
    };
    files.sort();
    let opts = NlpOptions::default();
    let mut stats: HashMap<String, Stats> = HashMap::new();
    let (mut chunks, mut chars, mut entities, mut relations) = (0usize, 0usize, 0usize, 0usize);
    let mut times: Vec<Duration> = Vec::new();
    for path in &files {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("skipping {}: {e}", path.display());
                continue;
            }
        };
        for chunk in split_chunks(&text, chunk_chars) {
            if timing_passes > 0 {
                all_chunks.push(chunk.to_string());
            }
            let started = Instant::now();
            let out = extract(chunk, &opts);
            times.push(started.elapsed());
            chunks += 1;
            chars += chunk.len();
            entities += out.entities.len();
            relations += out.relations.len();
            for e in &out.entities {
                let s = stats.entry(e.name.clone()).or_default();
                s.chunks += 1;
                *s.types.entry(e.entity_type.clone()).or_default() += 1;
            }
            for r in &out.relations {
                stats.entry(r.src.clone()).or_default().neighbours.insert(r.tgt.clone());
                stats.entry(r.tgt.clone()).or_default().neighbours.insert(r.src.clone());
            }
        }
    }
    let mut ranked: Vec<(&String, &Stats)> = stats.iter().collect();
    ranked.sort_by(|a, b| b.1.chunks.cmp(&a.1.chunks).then_with(|| a.0.cmp(b.0)));
    println!("{:>4}  {:<40} {:>7} {:>7}  type", "#", "entity", "chunks", "degree");
    for (i, (name, s)) in ranked.iter().take(top).enumerate() {
        let ty = s.types.iter().max_by_key(|(_, n)| **n).map_or("", |(t, _)| t.as_str());
        println!("{:>4}  {:<40} {:>7} {:>7}  {ty}", i + 1, name, s.chunks, s.neighbours.len());
    }
    println!(
        "\n{} files, {chunks} chunks, {:.1} MB, {entities} entities, {relations} relations, {} distinct names",
        files.len(),
        chars as f64 / 1e6,
        stats.len()
    );
    let total: Duration = times.iter().sum();
    let mean = total.checked_div(times.len().max(1) as u32).unwrap_or_default();
    times.sort();
    let pick = |q: f64| {
        let at = ((times.len().saturating_sub(1)) as f64 * q) as usize;
        times.get(at).copied().unwrap_or_default()
    };
    println!(
        "extraction wall time {total:.2?}; per chunk mean {mean:.2?}, median {:.2?}, p99 {:.2?}, max {:.2?}",
        pick(0.5),
        pick(0.99),
        pick(1.0)
    );
    println!("(wall clock: includes time the process waited for a CPU on a busy machine)");
    if timing_passes > 0 {
        let started = Instant::now();
        let mut found = 0usize;
        for _ in 0..timing_passes {
            for chunk in &all_chunks {
                found += extract(chunk, &opts).entities.len();
            }
        }
        let runs = (timing_passes * all_chunks.len()).max(1);
        println!(
            "timing passes: {timing_passes} x {} chunks in {:.2?} ({:.2?} per chunk; {found} entities)",
            all_chunks.len(),
            started.elapsed(),
            started.elapsed() / runs as u32
        );
    }
}

/// Cuts `text` into pieces of about `size` bytes, ending at whitespace when possible.
fn split_chunks(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if rest.len() <= size {
            out.push(rest);
            break;
        }
        let mut cut = size;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let at = rest[..cut].rfind(char::is_whitespace).filter(|&p| p > size / 2).unwrap_or(cut);
        let at = if at == 0 { rest.len() } else { at };
        out.push(&rest[..at]);
        rest = &rest[at..];
    }
    out
}
