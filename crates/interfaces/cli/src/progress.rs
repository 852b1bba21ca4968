//! A terminal progress bar fed by pipeline events (hidden when stderr is not a terminal).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lightrag_engine::Engine;
use lightrag_engine::pipeline::{PipelineEvent, ProgressSink};

/// Progress bar over documents, with chunk and LLM-call counts in the message.
pub struct Bar {
    bar: ProgressBar,
    chunks_total: AtomicU64,
    chunks_done: AtomicU64,
    /// Documents claimed so far (claims come a few at a time).
    claimed: AtomicU64,
    engine: Engine,
}

impl Bar {
    /// A bar that starts hidden until documents are claimed.
    pub fn new(engine: Engine) -> Arc<Self> {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} docs · {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        Arc::new(Self {
            bar,
            chunks_total: AtomicU64::new(0),
            chunks_done: AtomicU64::new(0),
            claimed: AtomicU64::new(0),
            engine,
        })
    }

    /// Sizes the bar for `docs` documents expected (the claimable ones when processing starts);
    /// it grows if more are claimed.
    pub fn expect(&self, docs: u64) {
        self.bar.set_length(docs.max(self.claimed.load(Ordering::Relaxed)));
    }

    fn refresh(&self) {
        self.bar.set_message(format!(
            "chunks {}/{} · LLM calls {}",
            self.chunks_done.load(Ordering::Relaxed),
            self.chunks_total.load(Ordering::Relaxed),
            self.engine.llm_requests()
        ));
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl ProgressSink for Bar {
    fn event(&self, event: &PipelineEvent) {
        match event {
            PipelineEvent::Claimed { docs } => {
                let claimed = self.claimed.fetch_add(*docs as u64, Ordering::Relaxed) + *docs as u64;
                if claimed > self.bar.length().unwrap_or(0) {
                    self.bar.set_length(claimed);
                }
            }
            PipelineEvent::DocStarted { chunks, .. } => {
                self.chunks_total.fetch_add(*chunks as u64, Ordering::Relaxed);
            }
            PipelineEvent::ChunkExtracted { .. } => {
                self.chunks_done.fetch_add(1, Ordering::Relaxed);
            }
            PipelineEvent::DocProcessed { .. } => self.bar.inc(1),
            PipelineEvent::DocFailed { doc_id, error } => {
                self.bar.inc(1);
                self.bar.suspend(|| eprintln!("failed: {doc_id}: {error}"));
            }
        }
        self.refresh();
    }
}

/// A bar over a count that is not known yet (length set later), on stderr (hidden when stderr is
/// not a terminal), ticking while a step without progress runs: `message` says what happens first.
pub fn counting_bar(message: &'static str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar.set_message(message);
    bar
}
