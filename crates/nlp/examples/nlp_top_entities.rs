//! Runs rule-based extraction over every `.txt` file of a directory, chunk by chunk, and prints
//! the most frequent entities with their types and relation degree, plus timing.
//!
//! ```text
//! cargo run --release -p lightrag-nlp --example nlp_top_entities -- <dir> [top=30] [chunk_chars=4800]
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
        eprintln!("usage: nlp_top_entities <dir-with-txt-files> [top=30] [chunk_chars=4800]");
        std::process::exit(2);
    };
    let top: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(30);
    let chunk_chars: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(4800);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "txt")).collect(),
        Err(e) => {
            eprintln!("cannot read directory {dir}: {e} (pass a directory of .txt files)");
            std::process::exit(1);
        }
    };
    files.sort();
    let opts = NlpOptions::default();
    let mut stats: HashMap<String, Stats> = HashMap::new();
    let (mut chunks, mut chars, mut entities, mut relations) = (0usize, 0usize, 0usize, 0usize);
    let mut elapsed = Duration::ZERO;
    let mut slowest = Duration::ZERO;
    for path in &files {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("skipping {}: {e}", path.display());
                continue;
            }
        };
        for chunk in split_chunks(&text, chunk_chars) {
            let started = Instant::now();
            let out = extract(chunk, &opts);
            let took = started.elapsed();
            elapsed += took;
            slowest = slowest.max(took);
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
    let per_chunk = if chunks > 0 { elapsed / chunks as u32 } else { Duration::ZERO };
    println!(
        "\n{} files, {chunks} chunks, {:.1} MB, {entities} entities, {relations} relations, {} distinct names",
        files.len(),
        chars as f64 / 1e6,
        stats.len()
    );
    println!("extraction time {elapsed:.2?} total, {per_chunk:.2?} per chunk on average, slowest {slowest:.2?}");
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
