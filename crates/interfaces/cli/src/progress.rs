//! Progress of indexing fed by pipeline events: a bar on a terminal; when stderr is not a
//! terminal (CI logs, `| tee`, a service's journal), a plain line when indexing starts, at most
//! every [`LINE_EVERY`] while it runs, and when it ends — long runs are never silent.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::{PipelineEvent, ProgressSink};

/// Shortest time between two progress lines when stderr is not a terminal.
pub const LINE_EVERY: Duration = Duration::from_secs(10);

/// Progress bar over documents, with chunk and LLM-call counts in the message.
pub struct Bar {
    bar: ProgressBar,
    /// Not on a terminal: when the run started and when the last line was printed (`None`: none yet).
    lines: Option<Mutex<(Instant, Option<Instant>)>>,
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
        let lines = (!std::io::stderr().is_terminal()).then(|| Mutex::new((Instant::now(), None)));
        Arc::new(Self {
            bar,
            lines,
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

    /// The progress as one line: elapsed time, documents, chunks, LLM calls.
    fn line(&self, elapsed: Duration) -> String {
        let secs = elapsed.as_secs();
        format!(
            "indexing [{:02}:{:02}:{:02}] {}/{} docs · chunks {}/{} · LLM calls {}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            self.bar.position(),
            self.bar.length().unwrap_or(0),
            self.chunks_done.load(Ordering::Relaxed),
            self.chunks_total.load(Ordering::Relaxed),
            self.engine.llm_requests()
        )
    }

    /// Off a terminal: prints a line if none was printed yet, or [`LINE_EVERY`] has passed (or
    /// always, when `last`).
    fn maybe_line(&self, last: bool) {
        let Some(lines) = &self.lines else { return };
        let Ok(mut state) = lines.lock() else { return };
        let (started, printed) = *state;
        if last || printed.is_none_or(|at| at.elapsed() >= LINE_EVERY) {
            state.1 = Some(Instant::now());
            eprintln!("{}", self.line(started.elapsed()));
        }
    }

    /// Removes the bar (off a terminal: prints the last line, if any was printed).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
        let started_lines = self.lines.as_ref().and_then(|l| l.lock().ok().map(|s| s.1.is_some()));
        if started_lines == Some(true) {
            self.maybe_line(true);
        }
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
        self.maybe_line(false);
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
