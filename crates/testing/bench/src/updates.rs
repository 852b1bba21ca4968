//! The benchmark of issue 14's query filters and in-place replacement (`--updates`): after
//! indexing, every query mode is timed without a filter and under three filters (one document,
//! half of the documents by id, a path glob); then the document with the most tokens gets three
//! edits (a word changed, a sentence appended, a sentence inserted mid-text), each made on a
//! fresh knowledge base in place (inserted again) and, on another fresh one, the way a LightRAG
//! user has to (delete, then insert the new version). Each update is timed with the model calls
//! it caused.
//!
//! ```text
//! cargo run --release -p lightrag-bench -- --updates --chunks 500 --queries 10
//! ```

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::{
    InsertDoc, NoProgress, ProcessOptions, ProcessReport, ReplacementReport, document_id,
};
use lightrag_engine::retrieval::query::{QueryFilter, QueryMode, QueryParam};
use lightrag_ports::{DocFilter, DocStatus};
use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, ScriptedServer, Stats};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::Args;
use crate::corpus::{self, CorpusDoc};
use crate::report::Indexing;
use crate::run::{QUESTIONS, index, load_docs};
use crate::settings::{parse_overrides, settings};
use crate::stats::Latency;

/// Everything `--updates` measured.
#[derive(Debug, Clone, Serialize)]
pub struct UpdatesReport {
    /// Logical CPUs.
    pub cpus: usize,
    /// `/proc/loadavg` when the run started.
    pub load_before: Option<String>,
    /// `--set` overrides.
    pub overrides: Vec<String>,
    /// Documents and chunks indexed.
    pub documents: usize,
    /// Chunks indexed.
    pub chunks: usize,
    /// Indexing wall time, s.
    pub index_s: f64,
    /// One row per mode and filter.
    pub queries: Vec<FilteredRow>,
    /// The two ways of updating one document.
    pub updates: Vec<UpdateRow>,
}

/// Latency of one mode under one filter.
#[derive(Debug, Clone, Serialize)]
pub struct FilteredRow {
    /// Query mode.
    pub mode: String,
    /// Which filter (`none`, `1 document`, `half (ids)`, `glob 18*`).
    pub filter: String,
    /// Documents that pass it.
    pub passing_docs: usize,
    /// Latency of the queries.
    pub latency: Latency,
}

/// One timed update of a document.
#[derive(Debug, Clone, Serialize)]
pub struct UpdateRow {
    /// `replace in place` or `delete + insert`.
    pub how: String,
    /// The document's file name.
    pub file_path: String,
    /// Chunks of the new version.
    pub chunks: usize,
    /// Of those, chunks whose extraction was reused (in place only).
    pub chunks_reused: Option<usize>,
    /// Wall time from the insert (or the deletion) to the commit, ms.
    pub ms: f64,
    /// Extraction and gleaning calls.
    pub extract_calls: u64,
    /// Summary calls.
    pub summary_calls: u64,
    /// Texts embedded.
    pub embed_texts: u64,
}

/// Runs `--updates`.
pub async fn run(args: &Args) -> Result<UpdatesReport> {
    if args.chunks == 0 || args.queries == 0 {
        bail!("--chunks and --queries must be at least 1");
    }
    let load_before = crate::procstat::load_average();
    let overrides = parse_overrides(&args.sets)?;
    let corpus_dir = corpus::resolve(args.corpus.as_deref())?;
    let server = ScriptedLlm::start(ScriptConfig { dim: args.dim, record_requests: 0, ..ScriptConfig::default() })
        .await
        .context("cannot start the scripted LLM server")?;
    // the queries are timed with the LLM cache off (every query runs its whole path)
    let mut without_cache = overrides.clone();
    without_cache.push(("ENABLE_LLM_CACHE".into(), "false".into()));
    let base = server.base_url();
    let scratch =
        tempfile::Builder::new().prefix("lightrag-bench-").tempdir().context("cannot create a temp folder")?;
    let settings = settings(&base, args.dim, scratch.path(), &without_cache)?;
    let (docs, _) = load_docs(args, &corpus_dir, &settings)?;
    let fresh = Fresh { server: &server, base: &base, dim: args.dim, overrides: &without_cache, docs: &docs };
    eprintln!("indexing {} documents from {} …", docs.len(), corpus_dir.display());
    let (_kb, engine, indexing) = fresh.build().await?;

    let filters = filters(&engine).await?;
    let mut queries = Vec::new();
    for mode in QueryMode::ALL {
        for (name, filter, passing_docs) in &filters {
            let param = QueryParam { filter: filter.clone(), ..QueryParam::with_mode(mode) };
            let mut ms = Vec::with_capacity(args.queries);
            for i in 0..args.queries {
                let question = QUESTIONS[i % QUESTIONS.len()];
                let started = Instant::now();
                engine.query(question, &param).await.with_context(|| format!("{mode} query ({name}) failed"))?;
                ms.push(started.elapsed().as_secs_f64() * 1000.0);
            }
            let latency = Latency::of(&ms);
            eprintln!("{mode:>6} {name:<12} median {:.1} ms", latency.median_ms);
            queries.push(FilteredRow {
                mode: mode.as_str().into(),
                filter: name.clone(),
                passing_docs: *passing_docs,
                latency,
            });
        }
    }

    drop(engine);
    let updates = update_largest(&fresh).await?;
    server.shutdown().await;
    Ok(UpdatesReport {
        cpus: crate::procstat::cpu_count(),
        load_before,
        overrides: args.sets.clone(),
        documents: indexing.docs_processed,
        chunks: indexing.chunks,
        index_s: indexing.wall_s,
        queries,
        updates,
    })
}

/// The filters timed: none, the middle document, every other document by id, and the glob `18*`.
async fn filters(engine: &Engine) -> Result<Vec<(String, Option<QueryFilter>, usize)>> {
    let filter = DocFilter { statuses: vec![DocStatus::Processed], ..Default::default() };
    let (docs, _) = engine.list_documents(&filter).await.context("cannot list documents")?;
    let ids: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
    let middle = ids.get(ids.len() / 2).cloned().into_iter().collect::<Vec<_>>();
    let half: Vec<String> = ids.iter().step_by(2).cloned().collect();
    let glob_docs = docs.iter().filter(|d| d.file_path.starts_with("18")).count();
    let by_ids = |ids: Vec<String>| Some(QueryFilter { doc_ids: ids, ..QueryFilter::default() });
    Ok(vec![
        ("none".into(), None, docs.len()),
        ("1 document".into(), by_ids(middle), 1),
        ("half (ids)".into(), by_ids(half.clone()), half.len()),
        ("glob 18*".into(), Some(QueryFilter { file_paths: vec!["18*".into()], ..QueryFilter::default() }), glob_docs),
    ])
}

/// A char boundary at or after byte `at` of `s`.
fn boundary(s: &str, at: usize) -> usize {
    (at.min(s.len())..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len())
}

/// One word after the middle of `s` changed for another of one token (` the` → ` our`): no chunk
/// boundary moves.
fn word_changed(s: &str) -> String {
    let middle = boundary(s, s.len() / 2);
    match s[middle..].find(" the ") {
        Some(i) => format!("{} our {}", &s[..middle + i], &s[middle + i + " the ".len()..]),
        None => format!("{s} Our"),
    }
}

/// `sentence` added at the end of `s`.
fn appended(s: &str, sentence: &str) -> String {
    format!("{s} {sentence}")
}

/// `sentence` inserted after the first sentence end past the middle of `s`: with token chunking,
/// every later chunk boundary moves.
fn inserted(s: &str, sentence: &str) -> String {
    let middle = boundary(s, s.len() / 2);
    let at = s[middle..].find(". ").map_or(s.len(), |i| middle + i + 1);
    format!("{} {sentence}{}", &s[..at], &s[at..])
}

/// The sentence the edits add.
const SENTENCE: &str = "The benchmark added this sentence about the Treasury and the Navy.";

/// Builds a fresh knowledge base of the same documents with the same settings.
struct Fresh<'a> {
    server: &'a ScriptedServer,
    base: &'a str,
    dim: usize,
    overrides: &'a [(String, String)],
    docs: &'a [CorpusDoc],
}

impl Fresh<'_> {
    async fn build(&self) -> Result<(tempfile::TempDir, Engine, Indexing)> {
        let dir =
            tempfile::Builder::new().prefix("lightrag-bench-").tempdir().context("cannot create a temp folder")?;
        let settings = settings(self.base, self.dim, dir.path(), self.overrides)?;
        let engine = lightrag_config::open_engine(&settings).await.context("cannot open the engine")?;
        let indexing = index(&engine, self.server, self.docs.to_vec()).await?;
        Ok((dir, engine, indexing))
    }
}

/// Makes each edit to the document with the most chunks twice, each time on a fresh knowledge
/// base: in place, and by deleting the document and inserting the new version.
async fn update_largest(fresh: &Fresh<'_>) -> Result<Vec<UpdateRow>> {
    let Some(doc) = fresh.docs.iter().max_by_key(|d| d.tokens) else { bail!("nothing was indexed") };
    let (name, original) = (doc.name.as_str(), doc.content.as_str());
    let edits = [
        ("one word changed mid-text", word_changed(original)),
        ("a sentence appended", appended(original, SENTENCE)),
        ("a sentence inserted mid-text", inserted(original, SENTENCE)),
    ];
    let mut rows = Vec::new();
    for (edit, version) in edits {
        for in_place in [true, false] {
            eprintln!("building a fresh knowledge base …");
            let (_kb, engine, _) = fresh.build().await?;
            let id = document_id(&InsertDoc { file_source: Some(name.to_string()), ..InsertDoc::default() });
            let before = fresh.server.stats();
            let started = Instant::now();
            if !in_place {
                engine.delete_document(&id).await.with_context(|| format!("deleting {name} failed"))?;
            }
            let report = insert_and_process(&engine, name, version.clone()).await?;
            let how = format!("{}: {edit}", if in_place { "replace in place" } else { "delete + insert" });
            rows.push(row(&how, name, &engine, &id, started, fresh.server, &before, report.replaced.get(&id)).await?);
        }
    }
    Ok(rows)
}

async fn insert_and_process(engine: &Engine, name: &str, content: String) -> Result<ProcessReport> {
    let doc = InsertDoc { content, file_source: Some(name.to_string()), ..InsertDoc::default() };
    engine.enqueue(vec![doc], None).await.context("enqueue failed")?;
    let report = engine
        .process(&ProcessOptions::default(), Arc::new(NoProgress), &CancellationToken::new())
        .await
        .context("processing failed")?;
    if let Some((id, e)) = report.failed.first() {
        bail!("{id} failed: {e}");
    }
    Ok(report)
}

#[allow(clippy::too_many_arguments)]
async fn row(
    how: &str,
    name: &str,
    engine: &Engine,
    doc_id: &str,
    started: Instant,
    server: &ScriptedServer,
    before: &Stats,
    replaced: Option<&ReplacementReport>,
) -> Result<UpdateRow> {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let after = server.stats();
    let status = engine.document_status(doc_id).await?.context("the updated document is gone")?;
    eprintln!("{how}: {name} in {ms:.0} ms");
    Ok(UpdateRow {
        how: how.into(),
        file_path: name.into(),
        chunks: status.chunks_list.len(),
        chunks_reused: replaced.map(|r| r.chunks_reused),
        ms,
        extract_calls: (after.extract + after.glean) - (before.extract + before.glean),
        summary_calls: after.summary - before.summary,
        embed_texts: after.embed_texts - before.embed_texts,
    })
}

/// The report as Markdown tables.
pub fn markdown(r: &UpdatesReport) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "## Query filters and in-place updates\n\n{} CPUs, load before {}; {} documents, {} chunks \
         indexed in {:.1} s; overrides {:?}; LLM cache off for the queries\n\n\
         | mode | filter | passing documents | n | median | p95 |\n|---|---|---|---|---|---|\n",
        r.cpus,
        r.load_before.as_deref().unwrap_or("?"),
        r.documents,
        r.chunks,
        r.index_s,
        r.overrides,
    );
    for q in &r.queries {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.1} ms | {:.1} ms |",
            q.mode, q.filter, q.passing_docs, q.latency.n, q.latency.median_ms, q.latency.p95_ms
        );
    }
    out.push_str(
        "\n| update | document | chunks | reused | time | extraction calls | summary calls | texts embedded |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for u in &r.updates {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.0} ms | {} | {} | {} |",
            u.how,
            u.file_path,
            u.chunks,
            u.chunks_reused.map_or("–".to_string(), |n| n.to_string()),
            u.ms,
            u.extract_calls,
            u.summary_calls,
            u.embed_texts
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{appended, inserted, word_changed};

    #[test]
    fn the_edits_change_what_they_say_and_nothing_else() {
        let text = "One sentence here. Another one follows the first. The third is the last one here.";
        let word = word_changed(text);
        assert_eq!(word.len(), text.len());
        assert_eq!(word.replacen(" our ", " the ", 1), text);
        assert_eq!(appended(text, "Added."), format!("{text} Added."));
        let mid = inserted(text, "Added.");
        assert_eq!(mid.replacen(" Added.", "", 1), text);
        assert!(mid.contains("first. Added. The third"), "{mid}");
        let unicode = "é".repeat(11);
        assert!(inserted(&unicode, "X.").ends_with(" X."));
        assert!(word_changed(&unicode).ends_with(" Our"));
    }
}
