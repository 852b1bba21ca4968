//! `lightrag reembed [--model M] [--dim D] [--binding B] [--host URL] [--json]`: embeds every
//! stored vector again with another embedding model, without re-extracting (no LLM call), and
//! switches the knowledge base to it in one commit at the end. Resumable after a kill.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lightrag_config::{Providers, Settings};
use lightrag_engine::maintenance::reembed::ReembedObserver;
use serde_json::json;

use crate::cli::ReembedArgs;

/// The flags as settings overrides (they win over the environment and the configuration files).
pub fn flags(args: &ReembedArgs, flags: &mut BTreeMap<String, String>) {
    let pairs = [
        ("EMBEDDING_MODEL", args.model.clone()),
        ("EMBEDDING_DIM", args.dim.map(|d| d.to_string())),
        ("EMBEDDING_BINDING", args.binding.clone()),
        ("EMBEDDING_BINDING_HOST", args.host.clone()),
    ];
    for (name, value) in pairs {
        if let Some(value) = value {
            flags.insert(name.to_string(), value);
        }
    }
}

/// Progress on stderr: a bar on a terminal; otherwise a line at most every
/// [`LINE_EVERY`](crate::progress::LINE_EVERY), so that a long run is never silent in a log.
struct Progress {
    bar: ProgressBar,
    /// Not on a terminal: when the last line was printed.
    last_line: Option<Mutex<Option<Instant>>>,
}

impl ReembedObserver for Progress {
    fn progress(&self, done: usize, total: usize) {
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        let Some(last) = &self.last_line else { return };
        let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
        if last.is_none_or(|t| t.elapsed() >= crate::progress::LINE_EVERY) {
            eprintln!("re-embedding: {done}/{total} vectors");
            *last = Some(Instant::now());
        }
    }
}

pub async fn run(settings: &Settings, args: ReembedArgs) -> anyhow::Result<()> {
    let providers = Providers::build(settings)?;
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} vectors re-embedded")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let last_line = (!std::io::stderr().is_terminal()).then(|| Mutex::new(None));
    let progress = Progress { bar: bar.clone(), last_line };
    let result = lightrag_config::reembed::reembed(settings, &providers, &progress).await;
    bar.finish_and_clear();
    let report = result?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&json!(report))?);
        return Ok(());
    }
    outln!(
        "re-embedded {} vectors with '{}' (dimension {}): {} embedded now, {} from an interrupted run",
        report.switched,
        report.identity.model,
        report.identity.dim,
        report.embedded,
        report.resumed
    );
    if args.model.is_some() || args.dim.is_some() || args.binding.is_some() || args.host.is_some() {
        outln!(
            "the knowledge base now uses this model: set EMBEDDING_MODEL={} and EMBEDDING_DIM={} (and the \
             binding/host given) in your configuration before the next command",
            report.identity.model,
            report.identity.dim
        );
    }
    Ok(())
}
