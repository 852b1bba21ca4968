//! The benchmark's results and how they are printed (Markdown tables, or JSON).

use std::fmt::Write as _;

use serde::Serialize;

use crate::stats::Latency;

/// Everything one run measured.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Where it ran.
    pub machine: Machine,
    /// What it ran with.
    pub setup: Setup,
    /// The indexing phase.
    pub indexing: Indexing,
    /// One row per query mode and cache situation.
    pub queries: Vec<QueryRow>,
    /// Timed deletions (`--delete-hub`).
    pub deletes: Vec<crate::delete::DeleteRow>,
    /// Peak resident memory of the whole process (`VmHWM`), MiB.
    pub peak_rss_mib: Option<f64>,
    /// Size of the store files (`lightrag.db` with its WAL and shared-memory files), bytes (`None`
    /// on PostgreSQL).
    pub store_bytes: Option<u64>,
}

/// The machine.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// Logical CPUs.
    pub cpus: usize,
    /// `/proc/loadavg` (1, 5, 15 min) when the run started.
    pub load_before: Option<String>,
    /// `/proc/loadavg` when the run ended.
    pub load_after: Option<String>,
}

/// The run's inputs.
#[derive(Debug, Clone, Serialize)]
pub struct Setup {
    /// Corpus folder.
    pub corpus: String,
    /// Documents indexed.
    pub documents: usize,
    /// First and last file name.
    pub first_file: String,
    /// Last file name.
    pub last_file: String,
    /// Tokens in those documents.
    pub corpus_tokens: usize,
    /// Chunks estimated before indexing.
    pub estimated_chunks: usize,
    /// Embedding dimension of the scripted server.
    pub dim: usize,
    /// Runs per query mode and cache setting.
    pub queries_per_mode: usize,
    /// Distinct questions asked (in rotation).
    pub questions: Vec<String>,
    /// `MAX_ASYNC` in effect.
    pub max_async: usize,
    /// `MAX_PARALLEL_INSERT` in effect.
    pub max_parallel_insert: usize,
    /// Settings given with `--set`.
    pub overrides: Vec<String>,
}

/// Indexing figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Indexing {
    /// Wall time of enqueue + process, seconds.
    pub wall_s: f64,
    /// CPU time of the whole process (all threads), seconds.
    pub cpu_process_s: f64,
    /// CPU time of the in-process scripted server's threads, seconds (part of `cpu_process_s`).
    pub cpu_server_s: f64,
    /// `cpu_process_s - cpu_server_s`: the engine, its HTTP client and the store.
    pub cpu_engine_s: f64,
    /// Documents processed.
    pub docs_processed: usize,
    /// Documents failed (with the first error).
    pub docs_failed: usize,
    /// First failure, if any.
    pub first_error: Option<String>,
    /// Chunks committed.
    pub chunks: usize,
    /// Entity records extracted (before merging).
    pub entities_extracted: usize,
    /// Relation records extracted (before merging).
    pub relations_extracted: usize,
    /// Entities in the graph after merging.
    pub graph_entities: usize,
    /// Relations in the graph after merging.
    pub graph_relations: usize,
    /// Chunks per second of wall time.
    pub chunks_per_s: f64,
    /// Calls the scripted server received.
    pub calls: ServerCalls,
    /// `--reuse`: nothing was indexed, the store of an earlier run was queried.
    pub reused: bool,
}

/// Requests seen by the scripted server.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ServerCalls {
    /// Extraction chat calls.
    pub extract: u64,
    /// Gleaning chat calls.
    pub glean: u64,
    /// Summary chat calls.
    pub summary: u64,
    /// Keyword chat calls.
    pub keywords: u64,
    /// Answer chat calls.
    pub answer: u64,
    /// Embedding requests.
    pub embed_requests: u64,
    /// Texts embedded.
    pub embed_texts: u64,
}

impl ServerCalls {
    /// Chat calls of every kind.
    pub fn chat(&self) -> u64 {
        self.extract + self.glean + self.summary + self.keywords + self.answer
    }
}

/// Latencies of one query mode in one cache situation.
#[derive(Debug, Clone, Serialize)]
pub struct QueryRow {
    /// `local`, `global`, …
    pub mode: String,
    /// `on, first ask`, `on, repeat (hit)` or `off`.
    pub cache: String,
    /// Latency summary.
    pub latency: Latency,
    /// Chat calls per query that reached the scripted server.
    pub chat_calls_per_query: f64,
    /// Embedding requests per query.
    pub embed_calls_per_query: f64,
    /// CPU per query of the process without the scripted server's threads, ms.
    pub cpu_ms_per_query: f64,
    /// Queries whose retrieval found nothing (LightRAG's fail response).
    pub no_context: usize,
}

/// Renders the report as Markdown.
pub fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let i = &r.indexing;
    let _ = writeln!(s, "### Setup\n");
    let _ = writeln!(
        s,
        "- corpus: `{}` — {} documents (`{}` … `{}`), {} tokens, ~{} chunks estimated",
        r.setup.corpus,
        r.setup.documents,
        r.setup.first_file,
        r.setup.last_file,
        r.setup.corpus_tokens,
        r.setup.estimated_chunks
    );
    let _ = writeln!(
        s,
        "- scripted LLM in-process, zero delay; embedding dim {}; MAX_ASYNC={}, MAX_PARALLEL_INSERT={}{}",
        r.setup.dim,
        r.setup.max_async,
        r.setup.max_parallel_insert,
        if r.setup.overrides.is_empty() { String::new() } else { format!("; --set {}", r.setup.overrides.join(" ")) }
    );
    let _ = writeln!(
        s,
        "- machine: {} CPUs; load average before {} / after {}\n",
        r.machine.cpus,
        r.machine.load_before.as_deref().unwrap_or("?"),
        r.machine.load_after.as_deref().unwrap_or("?")
    );
    let _ = writeln!(s, "### Indexing\n");
    if i.reused {
        let _ = writeln!(s, "(not run: `--reuse` queried the store of an earlier run)\n");
    }
    let _ = writeln!(s, "| figure | value |\n|---|---|");
    let rows: Vec<(&str, String)> = vec![
        ("wall time", format!("{:.2} s", i.wall_s)),
        ("CPU, whole process", format!("{:.2} s", i.cpu_process_s)),
        ("CPU, scripted server threads", format!("{:.2} s", i.cpu_server_s)),
        ("CPU, engine (process − server)", format!("{:.2} s", i.cpu_engine_s)),
        ("documents processed / failed", format!("{} / {}", i.docs_processed, i.docs_failed)),
        ("chunks", i.chunks.to_string()),
        ("chunks/s (wall)", format!("{:.1}", i.chunks_per_s)),
        ("entity / relation records extracted", format!("{} / {}", i.entities_extracted, i.relations_extracted)),
        ("entities / relations in the graph", format!("{} / {}", i.graph_entities, i.graph_relations)),
        (
            "LLM chat calls (extract + glean + summary)",
            format!("{} ({} + {} + {})", i.calls.chat(), i.calls.extract, i.calls.glean, i.calls.summary),
        ),
        ("embedding requests (texts)", format!("{} ({})", i.calls.embed_requests, i.calls.embed_texts)),
        ("peak RSS (whole run)", r.peak_rss_mib.map(|m| format!("{m:.0} MiB")).unwrap_or_else(|| "?".into())),
        (
            "store size",
            r.store_bytes
                .map(|b| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)))
                .unwrap_or_else(|| "in PostgreSQL (not measured)".into()),
        ),
    ];
    for (k, v) in rows {
        let _ = writeln!(s, "| {k} | {v} |");
    }
    if let Some(e) = &i.first_error {
        let _ = writeln!(s, "\nfirst failure: {e}");
    }
    if !r.deletes.is_empty() {
        let _ = writeln!(s, "\n### Deletions\n");
        let _ = writeln!(
            s,
            "| document | chunks | hub (degree) | shares hub | ms | records read | records written | rebuilt | deleted | summary calls | texts embedded |"
        );
        let _ = writeln!(s, "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|");
        for d in &r.deletes {
            let _ = writeln!(
                s,
                "| {} `{}` | {} | {} ({}) | {} | {:.1} | {} | {} | {} | {} | {} | {} |",
                d.which,
                d.file_path,
                d.chunks,
                d.hub,
                d.hub_degree,
                if d.shared_hub { "yes" } else { "no" },
                d.ms,
                d.records_read,
                d.records_written,
                d.rebuilt,
                d.deleted,
                d.summary_calls,
                d.embed_texts
            );
        }
    }
    if r.queries.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "\n### Queries ({} per mode and cache setting, answers from the scripted LLM)\n",
        r.setup.queries_per_mode
    );
    let _ = writeln!(
        s,
        "| mode | LLM cache | n | median ms | p95 ms | max ms | chat calls/query | embed calls/query | engine CPU ms/query | no context |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for q in &r.queries {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} |",
            q.mode,
            q.cache,
            q.latency.n,
            q.latency.median_ms,
            q.latency.p95_ms,
            q.latency.max_ms,
            q.chat_calls_per_query,
            q.embed_calls_per_query,
            q.cpu_ms_per_query,
            q.no_context
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_has_the_headline_figures() {
        let report = Report {
            machine: Machine { cpus: 2, load_before: Some("1.00 2.00 3.00".into()), load_after: None },
            setup: Setup {
                corpus: "c".into(),
                documents: 3,
                first_file: "a.txt".into(),
                last_file: "c.txt".into(),
                corpus_tokens: 1000,
                estimated_chunks: 2,
                dim: 64,
                queries_per_mode: 4,
                questions: vec!["Q?".into()],
                max_async: 4,
                max_parallel_insert: 3,
                overrides: vec!["MAX_ASYNC=8".into()],
            },
            indexing: Indexing { wall_s: 1.5, chunks: 2, chunks_per_s: 1.33, ..Indexing::default() },
            queries: vec![QueryRow {
                mode: "local".into(),
                cache: "off".into(),
                latency: Latency { n: 4, median_ms: 3.25, p95_ms: 7.5, max_ms: 8.0 },
                chat_calls_per_query: 2.0,
                embed_calls_per_query: 1.0,
                cpu_ms_per_query: 3.0,
                no_context: 0,
            }],
            deletes: vec![],
            peak_rss_mib: Some(100.0),
            store_bytes: Some(2 * 1024 * 1024),
        };
        let md = markdown(&report);
        assert!(md.contains("| wall time | 1.50 s |"), "{md}");
        assert!(md.contains("| local | off | 4 | 3.25 | 7.50 | 8.00 | 2.00 | 1.00 | 3.00 | 0 |"), "{md}");
        assert!(md.contains("--set MAX_ASYNC=8"), "{md}");
        assert!(md.contains("| store size | 2.0 MiB |"), "{md}");
        let mut without_queries = report.clone();
        without_queries.queries.clear();
        assert!(!markdown(&without_queries).contains("### Queries"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["indexing"]["chunks"], 2);
    }
}
