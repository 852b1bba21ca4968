//! What a load run measured, per route and over time, and its Markdown table.

use std::collections::BTreeMap;

use serde::Serialize;

use super::clients::{Route, Sample};
use crate::stats::nearest_rank;

/// One row of the table.
#[derive(Debug, Clone, Serialize)]
pub struct RouteRow {
    /// Method, path and mode.
    pub route: String,
    /// query, stream, insert, status or graph.
    pub class: String,
    /// Requests sent.
    pub count: usize,
    /// Requests that failed (not 2xx, no reply, or an error line in a stream).
    pub errors: usize,
    /// Median latency, ms.
    pub p50_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct LoadTestReport {
    /// The server binary.
    pub bin: String,
    /// Logical CPUs.
    pub cpus: usize,
    /// `/proc/loadavg` before the run.
    pub load_before: Option<String>,
    /// Concurrent clients.
    pub clients: usize,
    /// Seed of the clients' choices.
    pub seed: u64,
    /// Length of the load, s.
    pub duration_s: f64,
    /// RSS samples before this many seconds are warm-up.
    pub warmup_s: f64,
    /// Documents of the knowledge base built before the load.
    pub kb_documents: usize,
    /// Its estimated chunks.
    pub kb_chunks_estimated: usize,
    /// Wall time of building it through the server, s.
    pub kb_build_s: f64,
    /// Documents posted by the background insert stream during the load.
    pub background_documents: usize,
    /// Documents in `processed` when the load started and when it ended.
    pub processed_before: u64,
    /// See `processed_before`.
    pub processed_after: u64,
    /// All requests.
    pub requests: usize,
    /// All failed requests.
    pub errors: usize,
    /// `errors / requests`.
    pub error_rate: f64,
    /// Per route, sorted by name.
    pub routes: Vec<RouteRow>,
    /// Server RSS samples: seconds since the load started, MiB.
    pub rss_mib: Vec<(f64, f64)>,
    /// First sample at or after the warm-up, MiB.
    pub rss_after_warmup_mib: f64,
    /// Last sample, MiB.
    pub rss_end_mib: f64,
    /// Largest sample, MiB.
    pub rss_max_mib: f64,
    /// First failures: route, status, start of the body.
    pub failures: Vec<String>,
    /// How the server ended after SIGTERM.
    pub server_exit: String,
}

/// Rows per route, sorted by route.
pub fn rows(samples: &[Sample]) -> Vec<RouteRow> {
    let mut by_route: BTreeMap<Route, (Vec<f64>, usize)> = BTreeMap::new();
    for s in samples {
        let entry = by_route.entry(s.route).or_default();
        entry.0.push(s.ms);
        entry.1 += usize::from(!s.ok);
    }
    by_route
        .into_iter()
        .map(|(route, (mut ms, errors))| {
            ms.sort_by(f64::total_cmp);
            RouteRow {
                route: route.name(),
                class: route.class().into(),
                count: ms.len(),
                errors,
                p50_ms: nearest_rank(&ms, 0.50),
                p99_ms: nearest_rank(&ms, 0.99),
                max_ms: ms.last().copied().unwrap_or(0.0),
            }
        })
        .collect()
}

/// The report as Markdown.
pub fn markdown(r: &LoadTestReport) -> String {
    let mut out = format!(
        "## HTTP load test\n\n\
         `{}`; {} CPUs, load before {}; {} clients for {:.0} s, seed {}; knowledge base {} documents \
         (~{} chunks) built through the server in {:.1} s; {} documents posted by the background insert \
         stream, processed documents {} → {} during the load.\n\n\
         **{} requests, {} errors ({:.3} %).**\n\n\
         | route | count | errors | p50 | p99 | max |\n|---|---|---|---|---|---|\n",
        r.bin,
        r.cpus,
        r.load_before.as_deref().unwrap_or("?"),
        r.clients,
        r.duration_s,
        r.seed,
        r.kb_documents,
        r.kb_chunks_estimated,
        r.kb_build_s,
        r.background_documents,
        r.processed_before,
        r.processed_after,
        r.requests,
        r.errors,
        r.error_rate * 100.0,
    );
    for row in &r.routes {
        out.push_str(&format!(
            "| {} | {} | {} | {:.1} ms | {:.1} ms | {:.1} ms |\n",
            row.route, row.count, row.errors, row.p50_ms, row.p99_ms, row.max_ms
        ));
    }
    out.push_str(&format!(
        "\nServer RSS (VmRSS): {:.1} MiB after the {:.0} s warm-up, {:.1} MiB at the end, {:.1} MiB at most \
         ({} samples). Server exit after SIGTERM: {}.\n",
        r.rss_after_warmup_mib,
        r.warmup_s,
        r.rss_end_mib,
        r.rss_max_mib,
        r.rss_mib.len(),
        r.server_exit
    ));
    if !r.failures.is_empty() {
        out.push_str("\nFirst failures:\n\n");
        for f in &r.failures {
            out.push_str(&format!("* {f}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_count_errors_and_percentiles_per_route() {
        let sample = |route, ok, ms| Sample { route, ok, ms, at_s: 0.0 };
        let mut samples: Vec<Sample> = (1..=100).map(|i| sample(Route::Popular, true, f64::from(i))).collect();
        samples.push(sample(Route::Stream, false, 5.0));
        let rows = rows(&samples);
        assert_eq!(rows.len(), 2);
        let popular = rows.iter().find(|r| r.route == "GET /graph/label/popular").unwrap();
        assert_eq!((popular.count, popular.errors, popular.p50_ms, popular.p99_ms), (100, 0, 50.0, 99.0));
        let stream = rows.iter().find(|r| r.class == "stream").unwrap();
        assert_eq!((stream.count, stream.errors), (1, 1));
    }
}
