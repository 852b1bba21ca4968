//! `lightrag insert PATH...`

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use lightrag_app::Settings;
use lightrag_engine::pipeline::{InsertDoc, ProcessOptions};
use lightrag_ports::{ChunkingOptions, EnqueueOutcome};

use crate::cli::InsertArgs;

/// Extensions read when walking a directory (named files are read whatever their extension).
const TEXT_EXTENSIONS: &[&str] = &[
    "txt", "md", "mdx", "markdown", "rst", "tex", "csv", "tsv", "json", "jsonl", "xml", "yaml", "yml", "toml", "ini",
    "conf", "cfg", "log", "sql", "html", "htm", "py", "rs", "js", "ts", "java", "c", "h", "cpp", "hpp", "go", "rb",
    "php", "sh", "css",
];

pub async fn run(settings: &Settings, args: InsertArgs) -> anyhow::Result<()> {
    let chunking = ChunkingOptions {
        split_by_character: args.split_by_character.as_deref().map(unescape),
        split_by_character_only: args.split_by_character_only,
    };
    let docs = collect(&args, &chunking)?;
    if docs.is_empty() {
        bail!("no text files found in the given paths (looked for: {})", TEXT_EXTENSIONS.join(", "));
    }
    let engine = super::open(settings).await?;
    let report = engine.enqueue(docs, args.track_id.clone()).await?;
    let duplicates: Vec<_> = report
        .outcomes
        .iter()
        .filter_map(|o| match o {
            EnqueueOutcome::Duplicate { original_id, .. } => Some(original_id.clone()),
            EnqueueOutcome::Enqueued { .. } => None,
        })
        .collect();
    let enqueued = report.outcomes.len() - duplicates.len();
    for original in &duplicates {
        eprintln!("duplicate: already indexed as {original}; skipped");
    }
    if args.no_wait {
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            outln!("track id:    {}", report.track_id);
            outln!("documents:   {enqueued} enqueued, {} duplicate", duplicates.len());
            outln!("run `lightrag process` to index them");
        }
        return Ok(());
    }
    super::process_and_summarise(
        &engine,
        &ProcessOptions::default(),
        Some(report.track_id),
        enqueued,
        duplicates.len(),
        args.json,
    )
    .await
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

fn collect(args: &InsertArgs, chunking: &ChunkingOptions) -> anyhow::Result<Vec<InsertDoc>> {
    let mut files = Vec::new();
    let mut docs = Vec::new();
    for path in &args.paths {
        if path.as_os_str() == "-" {
            let mut content = String::new();
            std::io::stdin().read_to_string(&mut content).context("cannot read stdin as UTF-8 text")?;
            docs.push(InsertDoc {
                content,
                file_source: args.file_source.clone(),
                id: None,
                chunking: chunking.clone(),
            });
        } else if path.is_dir() {
            walk(path, &mut files)?;
        } else if path.is_file() {
            files.push(path.clone());
        } else {
            bail!("{} does not exist", path.display());
        }
    }
    files.sort();
    if args.file_source.is_some() && files.len() + docs.len() > 1 {
        bail!("--file-source names one document; it cannot be used with several inputs");
    }
    for file in files {
        let bytes = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
        let content = String::from_utf8(bytes).map_err(|_| {
            anyhow::anyhow!(
                "{} is not UTF-8 text (rich formats such as PDF are not supported by the CLI yet)",
                file.display()
            )
        })?;
        if content.trim().is_empty() {
            eprintln!("skipped empty file {}", file.display());
            continue;
        }
        let source = args.file_source.clone().unwrap_or_else(|| file.to_string_lossy().into_owned());
        docs.push(InsertDoc { content, file_source: Some(source), id: None, chunking: chunking.clone() });
    }
    Ok(docs)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    for entry in entries {
        let path = entry.with_context(|| format!("cannot list {}", dir.display()))?.path();
        let hidden = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| TEXT_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescapes_common_sequences() {
        assert_eq!(unescape(r"\n\n"), "\n\n");
        assert_eq!(unescape(r"a\tb\\c\q"), "a\tb\\c\\q");
    }
}
