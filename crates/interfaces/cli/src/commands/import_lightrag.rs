//! `lightrag import-lightrag DIR [--from-workspace NAME] [--check] [--json]`

use anyhow::Context;
use indicatif::ProgressBar;
use lightrag_config::Settings;
use lightrag_import::{ImportEvent, ImportOptions, ImportProgress, ImportReport};

use crate::cli::ImportLightragArgs;

pub async fn run(settings: &Settings, args: ImportLightragArgs) -> anyhow::Result<()> {
    let engine = super::open(settings).await?;
    let options = ImportOptions {
        dir: args.dir.clone(),
        from_workspace: args.from_workspace.clone(),
        target_workspace: settings.workspace.clone(),
        // the CLI reads what its user names
        allowed_dirs: Vec::new(),
    };
    let target = settings.data_dir();
    if args.check {
        let report = lightrag_import::check(&engine, &options)
            .await
            .with_context(|| format!("cannot check {}", args.dir.display()))?;
        print(&report, args.json, &target)?;
        if let Some(why) = &report.blocked {
            anyhow::bail!("the import cannot run into {}: {why}", target.display());
        }
        return Ok(());
    }
    let cancel = super::ctrl_c_token();
    let bar = Bar::new();
    let result = lightrag_import::import(&engine, &options, &bar, &cancel).await;
    bar.bar.finish_and_clear();
    let report = result.with_context(|| format!("cannot import {}", args.dir.display()))?;
    engine.flush_usage().await?;
    print(&report, args.json, &target)?;
    if report.cancelled {
        anyhow::bail!("stopped before the end; run the same command again to continue the import");
    }
    Ok(())
}

fn print(report: &ImportReport, json: bool, target: &std::path::Path) -> anyhow::Result<()> {
    if json {
        outln!("{}", serde_json::to_string_pretty(report)?);
    } else {
        outln!("target:      {}", target.display());
        outln!("{}", report.render().trim_end());
    }
    Ok(())
}

/// A progress bar over documents (hidden when stderr is not a terminal).
struct Bar {
    bar: ProgressBar,
}

impl Bar {
    fn new() -> Self {
        Self { bar: crate::progress::counting_bar("reading the LightRAG files…") }
    }
}

impl ImportProgress for Bar {
    fn event(&self, event: &ImportEvent) {
        match event {
            ImportEvent::Loaded { documents, entities, relations, cache_entries } => {
                self.bar.set_length(*documents as u64);
                self.bar.set_message(format!(
                    "documents ({entities} entities, {relations} relations, {cache_entries} cached answers found)"
                ));
            }
            ImportEvent::Vectors { reuse, reason } => {
                self.bar.suspend(|| eprintln!("vectors: {reason}"));
                if !reuse {
                    self.bar.set_message("documents (embedding every vector again)");
                }
            }
            ImportEvent::Document { index, total, .. } => {
                self.bar.set_length(*total as u64);
                self.bar.set_position(*index as u64);
            }
            ImportEvent::Graph { done, total } => {
                self.bar.set_length(*total as u64);
                self.bar.set_position(*done as u64);
                self.bar.set_message("graph records no document links to");
            }
            ImportEvent::Cache { done, total } => {
                self.bar.set_length(*total as u64);
                self.bar.set_position(*done as u64);
                self.bar.set_message("cached LLM answers");
            }
        }
    }
}
