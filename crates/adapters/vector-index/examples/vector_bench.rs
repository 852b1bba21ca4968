//! Vector search alone: build time, memory, latency and recall@10 against exact search.
//!
//! ```text
//! cargo run --release -p lightrag-vector-index --example vector_bench -- \
//!     --n 1000000 --dim 384 --index hnsw --threads 2 --encoding f32 --queries 200 --snapshot /tmp/v.vidx
//! cargo run --release -p lightrag-vector-index --example vector_bench -- --n 100000 --index exact --threads 1
//! ```
//!
//! Data (synthetic, clustered, regenerated from the vector's number so the benchmark never holds a
//! second copy): vector i = C[c] + 0.5·S[c][s] + 0.25·ε with C 2,000 centres, S 25 sub-directions
//! per centre, ε fresh noise, every component uniform in [-1, 1]. Queries are drawn the same way
//! with other noise. Exact top-10 is computed by brute force over the regenerated vectors.

#![allow(clippy::expect_used, clippy::unwrap_used, missing_docs)]

use std::sync::Arc;
use std::time::Instant;

use lightrag_ports::{SearchParams, VectorEncoding, VectorIndex};
use lightrag_vector_index::{ExactIndex, HnswIndex, HnswParams, IndexConfig, TieredIndex, normalised};
use rayon::prelude::*;

const CENTRES: u64 = 2000;
const SUBS: u64 = 25;

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn uniform(seed: u64, j: usize) -> f32 {
    ((mix(seed ^ (j as u64).wrapping_mul(0x1000_0000_01B3)) >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

fn point(i: u64, salt: u64, dim: usize) -> Vec<f32> {
    let h = mix(i ^ salt);
    let c = h % CENTRES;
    let s = (h / CENTRES) % SUBS;
    let (cs, ss, ns) = (mix(c + 1), mix((c << 8) + s + 7), mix(i ^ salt ^ 0xABCD));
    (0..dim).map(|j| uniform(cs, j) + 0.5 * uniform(ss, j) + 0.25 * uniform(ns, j)).collect()
}

fn vm(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// CPU time of the whole process so far (user + system), in ms, from `/proc/self/stat`.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let ticks: f64 = fields.get(11..13).map_or(0.0, |f| f.iter().filter_map(|x| x.parse::<f64>().ok()).sum());
    ticks * 10.0
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = arg(&args, "--n", 100_000);
    let dim: usize = arg(&args, "--dim", 384);
    let threads: usize = arg(&args, "--threads", 2);
    let nq: u64 = arg(&args, "--queries", 200);
    let kind: String = arg(&args, "--index", "hnsw".to_string());
    let encoding = VectorEncoding::parse(&arg(&args, "--encoding", "f32".to_string())).expect("encoding");
    let snapshot: String = arg(&args, "--snapshot", String::new());
    let efs: String = arg(&args, "--ef", "128,64,256".to_string());
    let m: usize = arg(&args, "--m", 16);
    let efc: usize = arg(&args, "--efc", 64);
    let pool = IndexConfig::pool_of(threads).expect("pool");
    println!(
        "n={n} dim={dim} index={kind} encoding={} threads={threads} queries={nq} raw_f32_bytes={}",
        encoding.as_str(),
        n * dim as u64 * 4
    );
    let load_only: String = arg(&args, "--load-only", String::new());
    let rss0 = vm("VmRSS:");
    let params = HnswParams { connectivity: m, expansion_add: efc, expansion_search: 64, max_concurrency: 16 };
    let graph = (kind == "hnsw").then(|| {
        Arc::new(if load_only.is_empty() {
            HnswIndex::new(dim, encoding, params, Some(pool.clone())).expect("hnsw")
        } else {
            // Measure a reopen instead of a build: the snapshot of an earlier run with the same --n.
            let t = Instant::now();
            let loaded = HnswIndex::load(std::path::Path::new(&load_only), dim, encoding, params, Some(pool.clone()))
                .expect("load snapshot");
            println!("load_seconds={:.1} len={}", t.elapsed().as_secs_f64(), loaded.len());
            loaded
        })
    });
    let index: Arc<dyn VectorIndex> = match kind.as_str() {
        "exact" => Arc::new(ExactIndex::new(dim, encoding, Some(pool.clone()))),
        "hnsw" => graph.clone().expect("graph"),
        _ => Arc::new(
            TieredIndex::new(dim, IndexConfig { encoding, pool: Some(pool.clone()), ..IndexConfig::default() })
                .expect("tiered"),
        ),
    };
    let started = Instant::now();
    let batch = 20_000u64;
    let mut at = 0u64;
    while at < n && load_only.is_empty() {
        let end = (at + batch).min(n);
        let data: Vec<(u64, Vec<f32>)> =
            pool.install(|| (at..end).into_par_iter().map(|i| (i, point(i, 0, dim))).collect());
        let items: Vec<(u64, &[f32])> = data.iter().map(|(i, v)| (*i, v.as_slice())).collect();
        index.upsert(&items).expect("upsert");
        at = end;
        if at.is_multiple_of(100_000) {
            println!("  built {at} in {:.1} s", started.elapsed().as_secs_f64());
        }
    }
    let build = started.elapsed().as_secs_f64();
    let rss1 = vm("VmRSS:");
    println!(
        "build_seconds={build:.1} rss_before_mb={} rss_after_mb={} index_rss_mb={} hwm_mb={} memory_bytes_mb={} ratio_to_raw_f32={:.3}",
        rss0 / 1024,
        rss1 / 1024,
        (rss1 - rss0) / 1024,
        vm("VmHWM:") / 1024,
        index.memory_bytes() / (1 << 20),
        ((rss1 - rss0) * 1024) as f64 / (n * dim as u64 * 4) as f64
    );

    // Exact top-10 of every query by brute force over regenerated vectors.
    let queries: Vec<Vec<f32>> = (0..nq).map(|q| normalised(&point(q, 0x5EED_0000, dim))).collect();
    let truth_file: String = arg(&args, "--truth", String::new());
    let cached: Option<Vec<Vec<u64>>> = std::fs::read_to_string(&truth_file)
        .ok()
        .map(|text| text.lines().map(|l| l.split(',').filter_map(|x| x.parse().ok()).collect()).collect());
    let t = Instant::now();
    let truth: Vec<Vec<u64>> = if let Some(c) = cached.filter(|c: &Vec<Vec<u64>>| c.len() == queries.len()) {
        c
    } else {
        pool.install(|| {
            let parts: Vec<Vec<Vec<(f32, u64)>>> = (0..n)
                .into_par_iter()
                .fold(
                    || vec![Vec::<(f32, u64)>::new(); queries.len()],
                    |mut acc, i| {
                        let v = normalised(&point(i, 0, dim));
                        for (qi, q) in queries.iter().enumerate() {
                            let s: f32 = v.iter().zip(q).map(|(a, b)| a * b).sum();
                            let top = &mut acc[qi];
                            if top.len() < 10 || s > top[top.len() - 1].0 {
                                top.push((s, i));
                                top.sort_by(|a, b| b.0.total_cmp(&a.0));
                                top.truncate(10);
                            }
                        }
                        acc
                    },
                )
                .collect();
            (0..queries.len())
                .map(|qi| {
                    let mut all: Vec<(f32, u64)> = parts.iter().flat_map(|p| p[qi].iter().copied()).collect();
                    all.sort_by(|a, b| b.0.total_cmp(&a.0));
                    all.into_iter().take(10).map(|(_, i)| i).collect()
                })
                .collect()
        })
    };
    println!("ground_truth_seconds={:.1}", t.elapsed().as_secs_f64());
    if !truth_file.is_empty() {
        let text: Vec<String> =
            truth.iter().map(|t| t.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",")).collect();
        std::fs::write(&truth_file, text.join("\n")).expect("write truth");
    }

    let run = |label: &str, index: &dyn VectorIndex| {
        let mut lat = Vec::with_capacity(queries.len());
        let (mut found, mut found_rescored) = (0usize, 0usize);
        let cpu0 = cpu_ms();
        let mut rescoring_cpu = 0.0;
        for (q, want) in queries.iter().zip(&truth) {
            let t = Instant::now();
            let hits = index.search(q, &SearchParams::top(10)).expect("search");
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
            found += hits.iter().filter(|h| want.contains(&h.id)).count();
            if encoding != VectorEncoding::F32 {
                let c = cpu_ms();
                // What the store does for f16/int8: 2k+10 candidates re-scored with the f32 vectors.
                let mut wide: Vec<(f32, u64)> = index
                    .search(q, &SearchParams::top(30))
                    .expect("search")
                    .iter()
                    .map(|h| {
                        let v = normalised(&point(h.id, 0, dim));
                        (v.iter().zip(q).map(|(a, b)| a * b).sum(), h.id)
                    })
                    .collect();
                wide.sort_by(|a, b| b.0.total_cmp(&a.0));
                found_rescored += wide.iter().take(10).filter(|(_, id)| want.contains(id)).count();
                rescoring_cpu += cpu_ms() - c;
            }
        }
        let cpu_per_query = (cpu_ms() - cpu0 - rescoring_cpu) / queries.len() as f64;
        lat.sort_by(f64::total_cmp);
        let rescored = if encoding == VectorEncoding::F32 {
            String::new()
        } else {
            format!(" recall@10_rescored_f32={:.4}", found_rescored as f64 / (10 * queries.len()) as f64)
        };
        println!(
            "{label}: p50_ms={:.3} p95_ms={:.3} cpu_ms_per_query={cpu_per_query:.2} recall@10={:.4}{rescored} (load {})",
            percentile(&lat, 0.5),
            percentile(&lat, 0.95),
            found as f64 / (10 * queries.len()) as f64,
            std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().next().unwrap_or("?")
        );
    };
    if kind == "hnsw" {
        for ef in efs.split(',').filter_map(|e| e.parse::<usize>().ok()) {
            if let Some(g) = &graph {
                g.set_expansion_search(ef);
            }
            run(&format!("search ef={ef}"), index.as_ref());
        }
    } else {
        run("search", index.as_ref());
    }

    if !snapshot.is_empty() && load_only.is_empty() {
        let path = std::path::Path::new(&snapshot);
        let t = Instant::now();
        index.save(path).expect("save");
        println!("save_seconds={:.1}", t.elapsed().as_secs_f64());
        drop(index);
        drop(graph);
        let t = Instant::now();
        let ef = efs.split(',').filter_map(|e| e.parse::<usize>().ok()).next().unwrap_or(64);
        let params = HnswParams { expansion_search: ef, ..params };
        let reopened: Box<dyn VectorIndex> = match kind.as_str() {
            "exact" => Box::new(ExactIndex::load(path, Some(pool.clone())).expect("load")),
            "hnsw" => Box::new(HnswIndex::load(path, dim, encoding, params, Some(pool.clone())).expect("load")),
            _ => Box::new(
                TieredIndex::load(
                    path,
                    dim,
                    IndexConfig { encoding, pool: Some(pool.clone()), ..IndexConfig::default() },
                )
                .expect("load"),
            ),
        };
        println!("load_seconds={:.1} len={}", t.elapsed().as_secs_f64(), reopened.len());
        run("search after reopen", reopened.as_ref());
    }
}
