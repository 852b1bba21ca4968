//! `lightrag demo`: index a sample of the U.S. State of the Union addresses and ask three
//! questions in different modes.
//!
//! Offline by default: with no chat model configured (`LLM_BINDING` unset or `none`) extraction
//! is rule-based (`EXTRACTION=nlp`) and the answers show the retrieved context; the embedding
//! model is whatever `EMBEDDING_BINDING` says (default: the local all-MiniLM-L6-v2). A configured
//! LLM is used as configured, for extraction (unless `EXTRACTION=nlp`) and for the answers.
//! The knowledge base goes to `./demo_storage` unless a working directory was chosen; a re-run
//! reuses it (documents already indexed are skipped).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use lightrag_config::{LlmBinding, Settings};
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::{InsertDoc, ProcessOptions, document_id};
use lightrag_engine::retrieval::query::{Answer, QueryMode, QueryParam, RetrievedData};
use lightrag_ports::{DocStatus, GRAPH_FIELD_SEP};

use crate::cli::DemoArgs;

/// `WORKING_DIR`'s built-in default; the demo replaces it with [`DEMO_WORKING_DIR`].
const DEFAULT_WORKING_DIR: &str = "./rag_storage";
/// Where the demo's knowledge base goes unless a working directory was chosen.
const DEMO_WORKING_DIR: &str = "./demo_storage";
/// The sample questions and their modes.
const QUESTIONS: [(&str, QueryMode); 4] = [
    ("What did the presidents say about the Treasury and public debt?", QueryMode::Global),
    ("What is said about Great Britain and France?", QueryMode::Local),
    ("How did the United States deal with Mexico?", QueryMode::Mix),
    ("What did James Polk report about the war with Mexico?", QueryMode::Auto),
];

pub async fn run(settings: &Settings, args: DemoArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let settings = demo_settings(settings);
    let corpus = match args.corpus {
        Some(dir) => dir,
        None => default_corpus_dir()?,
    };
    let files = list_corpus(&corpus)?;
    let picked = spread(&files, args.docs as usize);
    outln!("lightrag demo: {} of {} addresses from {}", picked.len(), files.len(), corpus.display());
    outln!("knowledge base: {}", settings.data_dir().display());
    outln!("{}", describe_models(&settings));

    let engine = super::open(&settings).await?;
    let (docs, ids) = read_docs(&picked)?;
    let (to_enqueue, already) = split_known(&engine, docs).await?;
    if already > 0 {
        outln!(
            "{already} document(s) already indexed; skipped (delete {} to start over)",
            settings.data_dir().display()
        );
    }
    let enqueued = to_enqueue.len();
    if enqueued > 0 {
        engine.enqueue(to_enqueue, Some("demo".to_string())).await?;
    }
    outln!("\n== Indexing ==");
    let index_start = Instant::now();
    let options = ProcessOptions { include_failed: true, only_ids: ids };
    let report = super::process_all(&engine, &options).await?;
    let summary = super::IndexSummary::build(&engine, &report, None, enqueued, already).await?;
    summary.print(false)?;
    outln!("time:        {:.1}s", index_start.elapsed().as_secs_f64());
    super::fail_if_failed(&summary)?;

    print_graph(&engine).await?;
    for (question, mode) in QUESTIONS {
        ask(&engine, question, mode).await?;
    }
    engine.flush_usage().await?;
    outln!(
        "\ndone in {:.1}s. Ask your own: lightrag --working-dir {} query \"...\"",
        started.elapsed().as_secs_f64(),
        settings.working_dir.display()
    );
    Ok(())
}

/// The settings with the demo's working directory (unless one was chosen).
fn demo_settings(settings: &Settings) -> Settings {
    let mut settings = settings.clone();
    if settings.working_dir == Path::new(DEFAULT_WORKING_DIR) {
        settings.working_dir = PathBuf::from(DEMO_WORKING_DIR);
    }
    settings
}

/// `${XDG_CACHE_HOME:-$HOME/.cache}/lightrag-rs/corpus/sotu`, where scripts/fetch-corpus.sh puts it.
fn default_corpus_dir() -> anyhow::Result<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))
        .context("cannot find the corpus: neither XDG_CACHE_HOME nor HOME is set; pass --corpus DIR")?;
    Ok(cache.join("lightrag-rs").join("corpus").join("sotu"))
}

/// The `.txt` files of the corpus folder, sorted by name.
fn list_corpus(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let missing =
        || format!("no corpus in {}; run scripts/fetch-corpus.sh to download it (or pass --corpus DIR)", dir.display());
    let entries = std::fs::read_dir(dir).with_context(missing)?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.with_context(missing)?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "txt") {
            files.push(path);
        }
    }
    if files.is_empty() {
        bail!("{}", missing());
    }
    files.sort();
    Ok(files)
}

/// Up to `n` files spread evenly over the (chronologically sorted) list. The order follows the
/// van der Corput sequence (1/2, 1/4, 3/4, 1/8, …), so a larger `n` keeps every file a smaller
/// one picked and the index built before is reused. Returned in list order.
fn spread(files: &[PathBuf], n: usize) -> Vec<PathBuf> {
    let len = files.len();
    let mut taken = vec![false; len];
    let mut count = 0;
    let steps = len.next_power_of_two();
    for k in 0..steps {
        if count >= n {
            break;
        }
        // bit-reversed k over log2(steps) bits, as a fraction of `steps`
        let bits = steps.trailing_zeros();
        let reversed = if bits == 0 { 0 } else { k.reverse_bits() >> (usize::BITS - bits) };
        let index = reversed * len / steps;
        if !taken[index] {
            taken[index] = true;
            count += 1;
        }
    }
    files.iter().zip(taken).filter(|(_, t)| *t).map(|(f, _)| f.clone()).collect()
}

/// Reads the files as documents; also returns their ids.
fn read_docs(files: &[PathBuf]) -> anyhow::Result<(Vec<InsertDoc>, Vec<String>)> {
    let mut docs = Vec::with_capacity(files.len());
    for file in files {
        let content =
            std::fs::read_to_string(file).with_context(|| format!("cannot read {} as UTF-8 text", file.display()))?;
        if content.trim().is_empty() {
            continue;
        }
        docs.push(InsertDoc {
            content,
            file_source: Some(file.to_string_lossy().into_owned()),
            ..InsertDoc::default()
        });
    }
    let ids = docs.iter().map(document_id).collect();
    Ok((docs, ids))
}

/// Splits off the documents the store already has (processed, or left to resume); returns the
/// new ones and how many were already indexed.
async fn split_known(engine: &Engine, docs: Vec<InsertDoc>) -> anyhow::Result<(Vec<InsertDoc>, usize)> {
    let mut new = Vec::new();
    let mut already = 0;
    for doc in docs {
        match engine.document_status(&document_id(&doc)).await? {
            None => new.push(doc),
            Some(record) if record.status == DocStatus::Processed => already += 1,
            Some(_) => {} // pending, processing or failed: `process` picks it up again
        }
    }
    Ok((new, already))
}

fn describe_models(settings: &Settings) -> String {
    let embedding = format!("{} {}", settings.embedding.binding.as_str(), settings.embedding.model);
    if settings.llm.binding == LlmBinding::None {
        format!(
            "LLM: none (offline; rule-based extraction, answers show the retrieved context) · embeddings: {embedding}"
        )
    } else {
        format!(
            "LLM: {} {} at {} · extraction: {:?} · embeddings: {embedding}",
            settings.llm.binding.as_str(),
            settings.llm.model,
            settings.llm.host,
            settings.engine.extraction.method
        )
    }
}

async fn print_graph(engine: &Engine) -> anyhow::Result<()> {
    let stats = engine.graph_stats(10).await?;
    outln!("\n== Knowledge graph ==");
    outln!("entities:    {}", stats.nodes);
    outln!("relations:   {}", stats.edges);
    outln!("top entities by degree:");
    for e in &stats.top_entities {
        outln!("  {:>5}  {} ({})", e.degree, e.name, e.entity_type);
    }
    Ok(())
}

async fn ask(engine: &Engine, question: &str, mode: QueryMode) -> anyhow::Result<()> {
    outln!("\n== Question ({mode} mode) ==\n{question}\n");
    let param = QueryParam { mode, include_references: true, ..QueryParam::default() };
    let result = engine.query(question, &param).await?;
    if let lightrag_engine::retrieval::query::Metadata::Retrieval(m) = &result.data.metadata
        && let Some(choice) = &m.auto
    {
        outln!("(auto ran {}: {})\n", choice.mode, choice.reason);
    }
    let retrieved = result.data.retrieved();
    match (&result.answer, retrieved) {
        (Answer::Context(_), Some(data)) => print_context(data)?,
        (answer, _) => outln!("{}", answer.text().unwrap_or_default().trim()),
    }
    let references = result.data.references();
    if !references.is_empty() {
        outln!("\nReferences:");
        for r in references.iter().take(8) {
            outln!("  [{}] {}", r.reference_id, r.file_path);
        }
        if references.len() > 8 {
            outln!("  … and {} more", references.len() - 8);
        }
    }
    Ok(())
}

/// The retrieved context, trimmed to a readable size (no LLM to write an answer).
fn print_context(data: &RetrievedData) -> anyhow::Result<()> {
    outln!("(no LLM configured: showing the retrieved context)");
    if !data.entities.is_empty() {
        outln!("Entities:");
        for e in data.entities.iter().take(5) {
            outln!("  - {} ({}): {}", e.entity_name, e.entity_type, clip(first(&e.description), 140));
        }
    }
    if !data.relationships.is_empty() {
        outln!("Relations:");
        for r in data.relationships.iter().take(5) {
            outln!("  - {} — {}: {}", r.src_id, r.tgt_id, clip(first(&r.description), 140));
        }
    }
    if !data.chunks.is_empty() {
        outln!("Top passages:");
        for c in data.chunks.iter().take(2) {
            outln!("  [{}] {}", c.reference_id, clip(&c.content, 300));
        }
    }
    Ok(())
}

/// The first of several merged descriptions.
fn first(description: &str) -> &str {
    description.split(GRAPH_FIELD_SEP).next().unwrap_or(description)
}

/// One line of at most `max` characters.
fn clip(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max { line } else { format!("{}…", line.chars().take(max).collect::<String>()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<PathBuf> {
        (0..n).map(|i| PathBuf::from(format!("{i:03}.txt"))).collect()
    }

    #[test]
    fn spread_covers_the_range_and_grows_by_extension() {
        let files = names(233);
        let four = spread(&files, 4);
        assert_eq!(four.len(), 4);
        assert_eq!(four[0], PathBuf::from("000.txt"));
        assert!(four.iter().any(|f| *f.to_string_lossy() >= *"170"), "reaches the late years: {four:?}");
        let forty = spread(&files, 40);
        assert_eq!(forty.len(), 40);
        assert!(four.iter().all(|f| forty.contains(f)), "a larger sample keeps the smaller one");
        assert_eq!(spread(&files, 500).len(), 233);
        assert_eq!(spread(&names(3), 3).len(), 3);
        assert_eq!(spread(&names(1), 5), names(1));
        assert!(spread(&files, 0).is_empty());
    }

    #[test]
    fn clip_makes_one_short_line() {
        assert_eq!(clip("a\n b  c", 10), "a b c");
        assert_eq!(clip("abcdef", 3), "abc…");
    }
}
