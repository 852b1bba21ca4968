//! `lightrag insert PATH...`

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use lightrag_config::Settings;
use lightrag_doc_text::DocTextError;
use lightrag_engine::input_text::{sanitize_text, strip_control_characters};
use lightrag_engine::pipeline::{InsertDoc, ProcessOptions, check_file_source};
use lightrag_ports::{ChunkingOptions, DocStatus, EnqueueOutcome};

use crate::cli::InsertArgs;

/// Plain-text extensions also picked up when walking a directory, besides
/// [`lightrag_doc_text::SUPPORTED_EXTENSIONS`] (whose text is extracted by format). A file named
/// on the command line with any other extension is read as UTF-8 text.
const EXTRA_TEXT_EXTENSIONS: &[&str] = &["markdown", "rst", "tsv", "jsonl", "toml", "cfg", "rs"];

pub async fn run(settings: &Settings, args: InsertArgs) -> anyhow::Result<()> {
    let chunking = ChunkingOptions {
        split_by_character: args.split_by_character.as_deref().map(unescape),
        split_by_character_only: args.split_by_character_only,
        ..ChunkingOptions::default()
    };
    let options = lightrag_doc_text::ExtractOptions {
        pdf_password: settings.pdf_decrypt_password.as_ref().map(|p| p.expose().to_string()),
    };
    // the name limit of every insert path, before any file is read (a file's own path is checked
    // when it is enqueued)
    if let Some(source) = &args.file_source {
        check_file_source("--file-source", source)?;
    }
    let metadata = super::filter_args::metadata(args.metadata.as_deref(), &args.meta)?;
    let mut docs = collect(&args, &chunking, &options)?;
    for doc in &mut docs {
        doc.metadata = metadata.clone();
    }
    if docs.is_empty() {
        bail!(
            "no readable files found in the given paths (looked for: {}, {})",
            lightrag_doc_text::SUPPORTED_EXTENSIONS.join(", "),
            EXTRA_TEXT_EXTENSIONS.join(", ")
        );
    }
    if args.dry_run {
        let (engine, _empty) = super::estimate::open_for_estimate(settings).await?;
        let estimate = engine.estimate(docs).await?;
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
        match engine.estimate(docs.clone()).await {
            Ok(estimate) => Some(estimate),
            Err(e) => {
                eprintln!("no estimate to compare with: {e}");
                None
            }
        }
    };
    // a re-run over the same files after a crash or Ctrl-C finishes what was left, rather than
    // recording each unfinished file as a failed duplicate
    let report = engine.enqueue_resuming(docs, args.track_id.clone()).await?;
    let mut duplicates = Vec::new();
    let mut resumed = 0;
    for outcome in &report.outcomes {
        match outcome {
            EnqueueOutcome::Duplicate { original_id, original_status, .. } => {
                let hint = match original_status {
                    DocStatus::Failed => " (it failed: `lightrag process` tries it again)",
                    DocStatus::Processing => {
                        " (it is being processed: insert the file again once that is done to replace it)"
                    }
                    _ => "",
                };
                eprintln!("duplicate: already stored as {original_id}; skipped{hint}");
                duplicates.push(original_id.clone());
            }
            EnqueueOutcome::Resumed { doc_id, status } => {
                eprintln!("resuming {doc_id}: left {} by an interrupted run", status.as_str());
                resumed += 1;
            }
            EnqueueOutcome::Replaced { doc_id, .. } => {
                eprintln!("new version of {doc_id}: it replaces the indexed one (unchanged chunks are reused)");
            }
            EnqueueOutcome::Enqueued { .. } => {}
            // (this command records duplicates, the store refuses nothing; counted as skipped)
            refused @ EnqueueOutcome::Refused { doc_id, .. } => {
                eprintln!("refused: {}; skipped", refused.refusal_message().unwrap_or_default());
                duplicates.push(doc_id.clone());
            }
        }
    }
    let enqueued = report.outcomes.len() - duplicates.len() - resumed;
    if args.no_wait {
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            outln!("track id:    {}", report.track_id);
            outln!("documents:   {enqueued} enqueued, {resumed} resumed, {} duplicate", duplicates.len());
            outln!("run `lightrag process` to index them");
        }
        return Ok(());
    }
    let processed = super::process_all(&engine, &ProcessOptions::default()).await?;
    let mut summary =
        super::IndexSummary::build(&engine, &processed, Some(report.track_id), enqueued, duplicates.len()).await?;
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

fn collect(
    args: &InsertArgs,
    chunking: &ChunkingOptions,
    options: &lightrag_doc_text::ExtractOptions,
) -> anyhow::Result<Vec<InsertDoc>> {
    let mut files = Vec::new();
    let mut docs = Vec::new();
    for path in &args.paths {
        if path.as_os_str() == "-" {
            let mut content = String::new();
            std::io::stdin().read_to_string(&mut content).context("cannot read stdin as UTF-8 text")?;
            docs.push(InsertDoc {
                // text handed in directly is sanitised as LightRAG's `ainsert` does
                content: sanitize_text(&content),
                file_source: args.file_source.clone(),
                id: None,
                chunking: chunking.clone(),
                metadata: Default::default(),
            });
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
        let Some(content) = read_document(&file, named, options)? else { continue };
        let source = args.file_source.clone().unwrap_or_else(|| file.to_string_lossy().into_owned());
        // a file's text as LightRAG's server takes an upload: control characters out
        let content = strip_control_characters(&content);
        docs.push(InsertDoc {
            content,
            file_source: Some(source),
            id: None,
            chunking: chunking.clone(),
            metadata: Default::default(),
        });
    }
    Ok(docs)
}

/// The text of one file, extracted according to its extension (PDF, DOCX, …; see
/// [`lightrag_doc_text`]); a named file of another type is read as UTF-8 text. `None` (with a
/// note on stderr) for a file without text, and for an unreadable file found by walking a
/// directory; an unreadable file named on the command line is an error naming it.
fn read_document(
    file: &Path,
    named: bool,
    options: &lightrag_doc_text::ExtractOptions,
) -> anyhow::Result<Option<String>> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let result = if lightrag_doc_text::is_supported(&name) {
        lightrag_doc_text::extract_text_with(&name, &bytes, options)
    } else {
        match lightrag_doc_text::extract_plain_text(&bytes) {
            Ok(text) if text.trim().is_empty() => Err(DocTextError::Empty { format: "text" }),
            Ok(text) => Ok(text),
            // not text: say which types are supported
            Err(_) => lightrag_doc_text::extract_text(&name, &bytes),
        }
    };
    match result {
        Ok(text) => Ok(Some(text)),
        Err(e @ DocTextError::Empty { .. }) => {
            eprintln!("skipped {}: {e}", file.display());
            Ok(None)
        }
        Err(e) if named => bail!("{}: {e}", file.display()),
        Err(e) => {
            eprintln!("skipped {}: {e}", file.display());
            Ok(None)
        }
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
    lightrag_doc_text::is_supported(name)
        || path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTRA_TEXT_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    use lightrag_doc_text::testing;

    #[test]
    fn documents_are_read_by_format() {
        let dir = tempfile::tempdir().unwrap();
        let docx = dir.path().join("memo.DOCX");
        std::fs::write(&docx, testing::docx(&["Alice Smith joins Acme."], &[])).unwrap();
        assert_eq!(
            read_document(&docx, true, &Default::default()).unwrap().as_deref(),
            Some("Alice Smith joins Acme.")
        );
        let pdf = dir.path().join("paper.pdf");
        std::fs::write(&pdf, testing::pdf(&["Bob Jones visits Berlin."])).unwrap();
        assert_eq!(
            read_document(&pdf, true, &Default::default()).unwrap().as_deref(),
            Some("Bob Jones visits Berlin.")
        );
        // a named file of another type is read as text
        let readme = dir.path().join("README");
        std::fs::write(&readme, "plain words").unwrap();
        assert_eq!(read_document(&readme, true, &Default::default()).unwrap().as_deref(), Some("plain words"));
    }

    #[test]
    fn unreadable_named_files_are_errors_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let broken = dir.path().join("broken.pdf");
        std::fs::write(&broken, b"%PDF-1.4 truncated").unwrap();
        let msg = read_document(&broken, true, &Default::default()).unwrap_err().to_string();
        assert!(msg.contains("broken.pdf") && msg.contains("could not be read as PDF"), "{msg}");
        let exe = dir.path().join("tool.exe");
        std::fs::write(&exe, b"MZ\x90\x00\xFF\xFE\xFD").unwrap();
        let msg = read_document(&exe, true, &Default::default()).unwrap_err().to_string();
        assert!(
            msg.contains("tool.exe") && msg.contains("unsupported file type '.exe'") && msg.contains("docx"),
            "{msg}"
        );
        // found by walking a directory, the same files are skipped, not fatal
        assert!(read_document(&broken, false, &Default::default()).unwrap().is_none());
        let blank = dir.path().join("scan.pdf");
        std::fs::write(&blank, testing::pdf(&[""])).unwrap();
        assert!(read_document(&blank, true, &Default::default()).unwrap().is_none());
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
