//! `lightrag insert PATH...`: files read to text by the read use case, documents admitted and
//! enqueued by the insert use case ([`lightrag_application`]), as a REST upload is: a stored name
//! with new content replaces it, with the same content (or while an earlier version waits to be
//! indexed) it is refused and skipped, saying why. A run over the same input after a crash or
//! Ctrl-C finishes what was left (`resuming …`).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use lightrag_application::insert::{self, InsertOptions, OutcomeKind};
use lightrag_application::{AppError, DocumentReader, Origin};
use lightrag_config::Settings;
use lightrag_engine::indexing::pipeline::{InsertDoc, ProcessOptions, check_file_source};
use lightrag_ports::{Admission, ChunkingOptions};

use crate::cli::InsertArgs;

/// Plain-text extensions also picked up when walking a directory, besides
/// [`lightrag_application::read::SUPPORTED_EXTENSIONS`] (whose text is extracted by format). A file named
/// on the command line with any other extension is read as UTF-8 text.
const EXTRA_TEXT_EXTENSIONS: &[&str] = &["markdown", "rst", "tsv", "jsonl", "toml", "cfg", "rs"];

pub async fn run(settings: &Settings, args: InsertArgs) -> anyhow::Result<()> {
    let chunking = ChunkingOptions {
        split_by_character: args.split_by_character.as_deref().map(unescape),
        split_by_character_only: args.split_by_character_only,
        ..ChunkingOptions::default()
    };
    // the name limit of every insert path, before any file is read (a file's own path is checked
    // when its document is built)
    if let Some(source) = &args.file_source {
        check_file_source("--file-source", source)?;
    }
    let metadata = super::filter_args::metadata(args.metadata.as_deref(), &args.meta)?;
    insert::check_metadata("--metadata", &metadata)?;
    let reader = DocumentReader::new(settings);
    let docs = collect(&args, &chunking, &metadata, &reader).await?;
    if docs.is_empty() {
        bail!(
            "no readable files found in the given paths (looked for: {}, {})",
            lightrag_application::read::SUPPORTED_EXTENSIONS.join(", "),
            EXTRA_TEXT_EXTENSIONS.join(", ")
        );
    }
    if args.dry_run {
        let (engine, _empty) = super::estimate::open_for_estimate(settings).await?;
        let estimate = lightrag_application::estimate::estimate(&engine, docs).await?;
        return super::estimate::print(&estimate, args.json);
    }
    let engine = super::open(settings).await?;
    // made before enqueueing (documents already stored are left out), shown beside the actuals;
    // not for rule-based extraction, which calls no model (the estimate would cost as much CPU
    // as the extraction itself)
    let llm_extraction = settings.engine.extraction.method == lightrag_engine::config::ExtractionMethod::Llm;
    let estimate = if args.no_wait || !llm_extraction {
        None
    } else {
        match lightrag_application::estimate::estimate(&engine, docs.clone()).await {
            Ok(estimate) => Some(estimate),
            Err(e) => {
                eprintln!("no estimate to compare with: {e}");
                None
            }
        }
    };
    // a re-run over the same files after a crash or Ctrl-C finishes what was left, rather than
    // refusing each unfinished file as a version not indexed yet
    let options =
        InsertOptions { resume: true, track_id: args.track_id.clone(), ..InsertOptions::new(Admission::NewVersion) };
    let report = insert::insert(&engine, docs, options).await?;
    for d in &report.documents {
        let message = d.message.as_deref().unwrap_or_default();
        match d.outcome {
            OutcomeKind::Enqueued => {}
            OutcomeKind::Resumed => eprintln!("resuming {}: {message}", d.doc_id),
            OutcomeKind::Replaced => eprintln!("new version of {}: {message}", d.doc_id),
            OutcomeKind::Duplicate | OutcomeKind::Refused => eprintln!("skipped {}: {message}", d.doc_id),
        }
    }
    let skipped = report.count(OutcomeKind::Duplicate) + report.count(OutcomeKind::Refused);
    let resumed = report.count(OutcomeKind::Resumed);
    let enqueued = report.documents.len() - skipped - resumed;
    if args.no_wait {
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            outln!("track id:    {}", report.track_id);
            outln!("documents:   {enqueued} enqueued, {resumed} resumed, {skipped} skipped");
            outln!("run `lightrag process` to index them");
        }
        return Ok(());
    }
    let processed = super::process_all(&engine, &ProcessOptions::default()).await?;
    let mut summary = super::IndexSummary::build(&engine, &processed, Some(report.track_id), enqueued, skipped).await?;
    summary.estimate = estimate.map(|e| super::estimate::Comparison::of(&e, &summary));
    summary.print(args.json)?;
    super::fail_if_failed(&summary)
}

/// Turns `\n`, `\t`, `\r` and `\\` written on the command line into the characters.
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

async fn collect(
    args: &InsertArgs,
    chunking: &ChunkingOptions,
    metadata: &serde_json::Map<String, serde_json::Value>,
    reader: &DocumentReader,
) -> anyhow::Result<Vec<InsertDoc>> {
    let mut files = Vec::new();
    let mut docs = Vec::new();
    for path in &args.paths {
        if path.as_os_str() == "-" {
            let mut content = String::new();
            std::io::stdin().read_to_string(&mut content).context("cannot read stdin as UTF-8 text")?;
            // text handed in directly is a typed text: sanitised as LightRAG's `ainsert` does
            let doc = insert::typed_document(
                &["stdin"],
                &content,
                args.file_source.clone(),
                metadata.clone(),
                chunking.clone(),
            )?;
            docs.push(doc);
        } else if path.is_dir() {
            walk(path, &mut files)?;
        } else if path.is_file() {
            files.push((path.clone(), true));
        } else {
            bail!("{} does not exist", path.display());
        }
    }
    files.sort();
    if args.file_source.is_some() && files.len() + docs.len() > 1 {
        bail!("--file-source names one document; it cannot be used with several inputs");
    }
    for (file, named) in files {
        let Some(content) = read_document(reader, &file, named).await? else { continue };
        let source = args.file_source.clone().unwrap_or_else(|| file.to_string_lossy().into_owned());
        docs.push(insert::file_document(content, source, metadata.clone(), chunking.clone())?);
    }
    Ok(docs)
}

/// The text of one file ([`lightrag_application::read`]: by its extension, a file of another type
/// as UTF-8 text). A file named on the command line that cannot be read or holds no text is an
/// error naming it; one found by walking a directory is skipped with a note on stderr.
async fn read_document(reader: &DocumentReader, file: &Path, named: bool) -> anyhow::Result<Option<String>> {
    match reader.read_path(file, Origin::Local).await {
        Ok(text) => Ok(Some(text)),
        Err(e) if named => Err(e.into()),
        Err(e @ (AppError::Unreadable { .. } | AppError::TooLarge(_) | AppError::Io { .. })) => {
            eprintln!("skipped {e}");
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// The files of `dir` (recursively, hidden ones excepted) with a readable extension, flagged as
/// not named on the command line.
fn walk(dir: &Path, out: &mut Vec<(PathBuf, bool)>) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    for entry in entries {
        let path = entry.with_context(|| format!("cannot list {}", dir.display()))?.path();
        let hidden = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, out)?;
        } else if readable_extension(&path) {
            out.push((path, false));
        }
    }
    Ok(())
}

fn readable_extension(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    lightrag_application::read::is_supported(name)
        || path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTRA_TEXT_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    use lightrag_doc_text::testing;

    fn reader() -> DocumentReader {
        DocumentReader::with_limits(None, None)
    }

    #[tokio::test]
    async fn named_files_that_cannot_be_read_are_errors_and_walked_ones_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("paper.pdf");
        std::fs::write(&pdf, testing::pdf(&["Bob Jones visits Berlin."])).unwrap();
        assert_eq!(read_document(&reader(), &pdf, true).await.unwrap().as_deref(), Some("Bob Jones visits Berlin."));
        let broken = dir.path().join("broken.pdf");
        std::fs::write(&broken, b"%PDF-1.4 truncated").unwrap();
        let msg = read_document(&reader(), &broken, true).await.unwrap_err().to_string();
        assert!(msg.contains("broken.pdf") && msg.contains("could not be read as PDF"), "{msg}");
        // a named file without text is an error like any unreadable one (every front end refuses it)
        let blank = dir.path().join("scan.pdf");
        std::fs::write(&blank, testing::pdf(&[""])).unwrap();
        let msg = read_document(&reader(), &blank, true).await.unwrap_err().to_string();
        assert!(msg.contains("no text found"), "{msg}");
        // found by walking a directory, the same files are skipped, not fatal
        assert!(read_document(&reader(), &broken, false).await.unwrap().is_none());
        assert!(read_document(&reader(), &blank, false).await.unwrap().is_none());
    }

    #[test]
    fn walking_picks_documents_and_text_but_not_other_files() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.pdf", "b.xlsx", "c.rs", "d.exe", "e.png", ".hidden.txt", "f.md"] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        let mut found = Vec::new();
        walk(dir.path(), &mut found).unwrap();
        let mut names: Vec<String> =
            found.iter().map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, ["a.pdf", "b.xlsx", "c.rs", "f.md"]);
        assert!(found.iter().all(|(_, named)| !named));
    }

    #[test]
    fn unescapes_common_sequences() {
        assert_eq!(unescape(r"\n\n"), "\n\n");
        assert_eq!(unescape(r"a\tb\\c\q"), "a\tb\\c\\q");
    }
}
