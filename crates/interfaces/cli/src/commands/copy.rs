//! `lightrag copy --from STORE --to STORE`: a whole knowledge base from one store to another.

use anyhow::Context;
use indicatif::ProgressBar;
use lightrag_config::{Settings, StoreLocation};
use lightrag_copy::{CopyEvent, CopyProgress, CopyReport};

use crate::cli::CopyArgs;

pub async fn run(settings: &Settings, args: CopyArgs) -> anyhow::Result<()> {
    let from = StoreLocation::parse(&args.from).map_err(|e| anyhow::anyhow!("--from: {e}"))?;
    let to = StoreLocation::parse(&args.to).map_err(|e| anyhow::anyhow!("--to: {e}"))?;
    let default_workspace = match &settings.postgres {
        Some(pg) => pg.workspace_for(&settings.workspace),
        None if settings.workspace.is_empty() => "default".to_string(),
        None => settings.workspace.clone(),
    };
    for (flag, given, location) in
        [("--from-workspace", &args.from_workspace, &from), ("--to-workspace", &args.to_workspace, &to)]
    {
        if given.is_some() && matches!(location, StoreLocation::Sqlite(_)) {
            anyhow::bail!(
                "{flag} names a PostgreSQL workspace; for a SQLite store point sqlite:PATH at the workspace's folder \
                 (WORKING_DIR/NAME)"
            );
        }
    }
    let from_ws = args.from_workspace.clone().unwrap_or_else(|| default_workspace.clone());
    let to_ws = args.to_workspace.clone().unwrap_or(default_workspace);
    if from == to && from_ws == to_ws {
        anyhow::bail!("--from and --to name the same store; copy into another file, database or workspace");
    }
    let (from_name, to_name) = (from.describe(&from_ws), to.describe(&to_ws));
    let source = lightrag_config::open_store_at(settings, &from, &from_ws, false)
        .await
        .with_context(|| format!("cannot open the source {from_name}"))?;
    let target = lightrag_config::open_store_at(settings, &to, &to_ws, true)
        .await
        .with_context(|| format!("cannot open the target {to_name}"))?;
    let cancel = super::ctrl_c_token();
    let bar = Bar::new();
    let result = lightrag_copy::copy(source.as_ref(), target.as_ref(), &bar, &cancel).await;
    bar.bar.finish_and_clear();
    let report = result.with_context(|| format!("cannot copy {from_name} to {to_name}"))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&report, &from_name, &to_name)?;
    }
    if report.cancelled {
        anyhow::bail!("stopped before the end; run the same command again to continue the copy");
    }
    Ok(())
}

fn print(r: &CopyReport, from: &str, to: &str) -> anyhow::Result<()> {
    outln!("copied {from} to {to}");
    outln!(
        "documents:   {} copied, {} already there{}",
        r.documents_copied,
        r.documents_skipped,
        if r.documents_pending_again > 0 {
            format!(" ({} were being processed in the source: pending again)", r.documents_pending_again)
        } else {
            String::new()
        }
    );
    outln!("chunks:      {}", r.chunks);
    outln!("graph:       {} entities, {} relations", r.entities, r.relations);
    outln!("vectors:     {}", r.vectors);
    if r.vectors_missing > 0 {
        outln!(
            "             {} records came over without a vector: the source has none usable for them (missing, or \
             NaN, infinite or zero); run `lightrag check --repair` on the target to embed them",
            r.vectors_missing
        );
    }
    outln!("LLM cache:   {} entries", r.cache_entries);
    outln!("usage:       {}", if r.usage_copied { "copied" } else { "left as it was (the target had its own)" });
    Ok(())
}

/// A progress bar over documents (hidden when stderr is not a terminal).
struct Bar {
    bar: ProgressBar,
}

impl Bar {
    fn new() -> Self {
        Self { bar: crate::progress::counting_bar("listing the documents…") }
    }
}

impl CopyProgress for Bar {
    fn event(&self, event: &CopyEvent) {
        match event {
            CopyEvent::Started { documents, already_copied } => {
                self.bar.set_length(*documents as u64);
                self.bar.set_position(0);
                let resumed = if *already_copied > 0 {
                    format!(" ({already_copied} already copied by an earlier run)")
                } else {
                    String::new()
                };
                self.bar.set_message(format!("documents{resumed}"));
            }
            CopyEvent::Document { .. } => self.bar.inc(1),
            CopyEvent::Graph { copied } => self.bar.set_message(format!("graph records without documents: {copied}")),
            CopyEvent::Cache { copied } => self.bar.set_message(format!("LLM cache entries: {copied}")),
        }
    }
}
