//! The batch deletion benchmark (`--delete-batch N`, issue 28 item 2): a knowledge base of
//! `--chunks` chunks is indexed once and copied; from one copy `N` documents spread over it are
//! deleted in one call ([`Engine::delete_documents`]), from the other the same documents one at
//! a time ([`Engine::delete_document`], what LightRAG does for a list). Each way is timed with
//! the summary calls and embedded texts it caused, and the two graphs are compared.
//!
//! ```text
//! cargo run --release -p lightrag-bench -- --delete-batch 50 --chunks 5000 --remix
//! ```

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use lightrag_engine::Engine;
use lightrag_engine::maintenance::delete::{DeleteOptions, NoDeletionProgress};
use lightrag_engine::retrieval::graph::ExportFormat;
use lightrag_ports::{DocFilter, DocSort, DocStatus};
use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm};
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::Args;
use crate::corpus;
use crate::run::{index, load_docs};
use crate::settings::{parse_overrides, settings};

/// Everything `--delete-batch` measured.
#[derive(Debug, Clone, Serialize)]
pub struct BatchDeleteReport {
    /// Logical CPUs.
    pub cpus: usize,
    /// `/proc/loadavg` when the run started.
    pub load_before: Option<String>,
    /// `--set` overrides.
    pub overrides: Vec<String>,
    /// Documents indexed.
    pub documents: usize,
    /// Chunks indexed.
    pub chunks: usize,
    /// Entities and relations in the graph before the deletions.
    pub graph_before: (usize, usize),
    /// Indexing wall time, s.
    pub index_s: f64,
    /// Documents deleted.
    pub deleted_documents: usize,
    /// Their chunks.
    pub deleted_chunks: usize,
    /// The two ways.
    pub rows: Vec<BatchDeleteRow>,
    /// Whether the two knowledge bases ended with the same graph (creation times aside).
    pub same_graph: bool,
    /// Entities and relations in the graph after the deletions (one pass).
    pub graph_after: (usize, usize),
}

/// One way of deleting the documents.
#[derive(Debug, Clone, Serialize)]
pub struct BatchDeleteRow {
    /// `one pass` or `one at a time`.
    pub how: String,
    /// Engine calls made (1, or one per document).
    pub calls: usize,
    /// Wall time of all of them, s.
    pub seconds: f64,
    /// Summary chat calls the scripted server received.
    pub summary_calls: u64,
    /// Texts embedded.
    pub embed_texts: u64,
    /// Entities and relations rebuilt, counted once per rebuild (a record rebuilt by several
    /// single deletions counts each time).
    pub rebuilds: usize,
    /// Store records read.
    pub records_read: usize,
    /// Store records written or removed.
    pub records_written: usize,
}

/// Runs `--delete-batch`.
pub async fn run(args: &Args, wanted: usize) -> Result<BatchDeleteReport> {
    if args.chunks == 0 || wanted == 0 {
        bail!("--chunks and --delete-batch must be at least 1");
    }
    let load_before = crate::procstat::load_average();
    let overrides = parse_overrides(&args.sets)?;
    let corpus_dir = corpus::resolve(args.corpus.as_deref())?;
    let server = ScriptedLlm::start(ScriptConfig { dim: args.dim, record_requests: 0, ..ScriptConfig::default() })
        .await
        .context("cannot start the scripted LLM server")?;
    let base = server.base_url();
    let scratch =
        tempfile::Builder::new().prefix("lightrag-bench-").tempdir().context("cannot create a temp folder")?;
    let (one_pass_dir, single_dir) = (scratch.path().join("one-pass"), scratch.path().join("one-at-a-time"));
    let one_pass_settings = settings(&base, args.dim, &one_pass_dir, &overrides)?;
    let single_settings = settings(&base, args.dim, &single_dir, &overrides)?;

    let (docs, _) = load_docs(args, &corpus_dir, &one_pass_settings)?;
    eprintln!("indexing {} documents from {} …", docs.len(), corpus_dir.display());
    let engine = lightrag_config::open_engine(&one_pass_settings).await.context("cannot open the engine")?;
    let indexing = index(&engine, &server, docs).await?;
    eprintln!("indexed {} chunks in {:.1} s", indexing.chunks, indexing.wall_s);
    let graph_before = graph_size(&engine).await?;
    let victims = spread(&engine, wanted).await?;
    let deleted_chunks = victims.iter().map(|(_, chunks)| chunks).sum();
    let ids: Vec<String> = victims.into_iter().map(|(id, _)| id).collect();
    drop(engine);
    copy_dir(&one_pass_dir, &single_dir)?;

    eprintln!("deleting {} documents ({deleted_chunks} chunks) in one call …", ids.len());
    let one_pass = lightrag_config::open_engine(&one_pass_settings).await.context("cannot open the engine")?;
    let before = server.stats();
    let started = Instant::now();
    let report = one_pass
        .delete_documents(&ids, DeleteOptions::default(), &NoDeletionProgress, &CancellationToken::new())
        .await
        .context("the deletion in one pass failed")?;
    let seconds = started.elapsed().as_secs_f64();
    let after = server.stats();
    if report.deleted.len() != ids.len() {
        bail!("the pass deleted {} of {} documents: {report:?}", report.deleted.len(), ids.len());
    }
    let mut rows = vec![BatchDeleteRow {
        how: format!("one pass ({} commit(s))", report.passes),
        calls: 1,
        seconds,
        summary_calls: after.summary - before.summary,
        embed_texts: after.embed_texts - before.embed_texts,
        rebuilds: report.entities_rebuilt.len() + report.relations_rebuilt.len(),
        records_read: report.records_read,
        records_written: report.records_written,
    }];
    eprintln!("one pass: {seconds:.1} s, {} summary calls", rows[0].summary_calls);

    eprintln!("deleting the same documents one at a time …");
    let single = lightrag_config::open_engine(&single_settings).await.context("cannot open the copy")?;
    let before = server.stats();
    let started = Instant::now();
    let (mut rebuilds, mut records_read, mut records_written) = (0, 0, 0);
    for id in &ids {
        let r = single.delete_document(id).await.with_context(|| format!("deleting {id} failed"))?;
        rebuilds += r.entities_rebuilt.len() + r.relations_rebuilt.len();
        records_read += r.records_read;
        records_written += r.records_written;
    }
    let seconds = started.elapsed().as_secs_f64();
    let after = server.stats();
    rows.push(BatchDeleteRow {
        how: "one at a time".into(),
        calls: ids.len(),
        seconds,
        summary_calls: after.summary - before.summary,
        embed_texts: after.embed_texts - before.embed_texts,
        rebuilds,
        records_read,
        records_written,
    });
    eprintln!("one at a time: {seconds:.1} s, {} summary calls", rows[1].summary_calls);

    let same_graph = graph(&one_pass).await? == graph(&single).await?;
    let graph_after = graph_size(&one_pass).await?;
    server.shutdown().await;
    Ok(BatchDeleteReport {
        cpus: crate::procstat::cpu_count(),
        load_before,
        overrides: args.sets.clone(),
        documents: indexing.docs_processed,
        chunks: indexing.chunks,
        graph_before,
        index_s: indexing.wall_s,
        deleted_documents: ids.len(),
        deleted_chunks,
        rows,
        same_graph,
        graph_after,
    })
}

/// `wanted` processed documents spread evenly over the knowledge base (in creation order), with
/// their chunk counts.
async fn spread(engine: &Engine, wanted: usize) -> Result<Vec<(String, usize)>> {
    let filter = DocFilter { statuses: vec![DocStatus::Processed], sort: DocSort::CreatedAsc, ..Default::default() };
    let (docs, _) = engine.list_documents(&filter).await.context("cannot list documents")?;
    if docs.len() < wanted {
        bail!("only {} documents were indexed; ask for more --chunks or a smaller --delete-batch", docs.len());
    }
    let step = docs.len() as f64 / wanted as f64;
    Ok((0..wanted)
        .map(|i| &docs[((i as f64 + 0.5) * step) as usize])
        .map(|d| (d.id.clone(), d.chunks_list.len()))
        .collect())
}

/// The graph as exported, without creation times (a rebuilt entity gets a new one).
async fn graph(engine: &Engine) -> Result<Value> {
    let mut out = Vec::new();
    engine.export_graph(ExportFormat::Json, &mut out).await.context("cannot export the graph")?;
    let mut graph: Value = serde_json::from_slice(&out).context("the exported graph is not JSON")?;
    for list in ["nodes", "edges"] {
        if let Some(items) = graph[list].as_array_mut() {
            for item in items {
                if let Some(object) = item.as_object_mut() {
                    object.remove("created_at");
                }
            }
        }
    }
    Ok(graph)
}

/// Entities and relations in the graph.
async fn graph_size(engine: &Engine) -> Result<(usize, usize)> {
    let g = graph(engine).await?;
    let count = |list: &str| g[list].as_array().map_or(0, Vec::len);
    Ok((count("nodes"), count("edges")))
}

/// Copies the closed knowledge base folder `from` (store, WAL, vector snapshots) to `to`.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("cannot copy {} to {}", entry.path().display(), target.display()))?;
        }
    }
    Ok(())
}

/// The report as Markdown.
pub fn markdown(r: &BatchDeleteReport) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "## Deleting {} documents: one pass against one at a time\n\n{} CPUs, load before {}; {} documents, \
         {} chunks indexed in {:.1} s (graph: {} entities, {} relations); overrides {:?}; deleted: {} \
         documents spread over the knowledge base, {} chunks\n\n\
         | how | engine calls | time | summary calls | texts embedded | rebuilds | records read | records written |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
        r.deleted_documents,
        r.cpus,
        r.load_before.as_deref().unwrap_or("?"),
        r.documents,
        r.chunks,
        r.index_s,
        r.graph_before.0,
        r.graph_before.1,
        r.overrides,
        r.deleted_documents,
        r.deleted_chunks,
    );
    for row in &r.rows {
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} s | {} | {} | {} | {} | {} |",
            row.how,
            row.calls,
            row.seconds,
            row.summary_calls,
            row.embed_texts,
            row.rebuilds,
            row.records_read,
            row.records_written
        );
    }
    let _ = writeln!(
        out,
        "\nSame graph both ways: {} (after: {} entities, {} relations)",
        if r.same_graph { "yes" } else { "**no**" },
        r.graph_after.0,
        r.graph_after.1
    );
    out
}
