//! The background pipeline of one workspace: LightRAG's `pipeline_status` ([`PipelineStatus`],
//! §5.9), the [`ProgressSink`] that fills it, and the busy / `request_pending` worker loop
//! ([`PipelineState::request_run`]).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::{PipelineEvent, ProcessOptions, ProgressSink};
use lightrag_engine::maintenance::delete::DeletionEvent;
use lightrag_engine::time::{iso, now_ms};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How many history messages are kept.
pub const HISTORY_LIMIT: usize = 1000;

/// The fields of LightRAG's `pipeline_status` (one per workspace).
#[derive(Debug, Clone, Default)]
pub struct PipelineStatus {
    /// A job (indexing, deletion, clearing) is running.
    pub busy: bool,
    /// Name of the running (or last) job.
    pub job_name: String,
    /// Unix ms the job started.
    pub job_start: Option<i64>,
    /// Documents claimed by the job so far.
    pub docs: usize,
    /// Batches claimed so far.
    pub batchs: usize,
    /// The batch being processed.
    pub cur_batch: usize,
    /// More work arrived while busy: the worker runs again.
    pub request_pending: bool,
    /// The last progress message.
    pub latest_message: String,
    /// Progress messages, oldest first (the last [`HISTORY_LIMIT`]).
    pub history_messages: VecDeque<String>,
    /// Messages dropped from the front of the history.
    pub dropped_messages: usize,
    /// A cancellation was requested for the running job.
    pub cancellation_requested: bool,
    /// A scan of the input folder is running.
    pub scanning: bool,
    /// A destructive job (clear all, deletion) is running: enqueues are refused.
    pub destructive_busy: bool,
    /// The pipeline was kicked at start-up.
    pub autoscanned: bool,
    /// A pending re-run should also retry failed documents.
    pub pending_include_failed: bool,
    /// Enqueue requests between their admission check and their write to the store; destructive
    /// jobs and scans wait until this is zero.
    pub pending_enqueues: usize,
}

impl PipelineStatus {
    /// Appends a progress message (also the latest message).
    pub fn log(&mut self, message: impl Into<String>) {
        let message = message.into();
        tracing::info!(target: "lightrag_server::pipeline", "{message}");
        self.latest_message = message.clone();
        self.history_messages.push_back(message);
        while self.history_messages.len() > HISTORY_LIMIT {
            self.history_messages.pop_front();
            self.dropped_messages += 1;
        }
    }

    /// Shows the progress of a deletion job: documents and passes as `docs` / `batchs` /
    /// `cur_batch`, each step as a message.
    pub fn deletion_progress(&mut self, event: &DeletionEvent) {
        match event {
            DeletionEvent::Planned { documents, chunks, passes } => {
                self.docs = *documents;
                self.batchs = *passes;
                self.log(format!("Deleting {documents} documents ({chunks} chunks) in {passes} pass(es)"));
            }
            DeletionEvent::Skipped { doc_id, reason } => self.log(format!("Document {doc_id} {reason}; not deleted")),
            DeletionEvent::PassStarted { pass, passes, documents, chunks } => {
                self.cur_batch = *pass;
                self.log(format!("Pass {pass}/{passes}: removing {documents} documents ({chunks} chunks)"));
            }
            DeletionEvent::PassBuilt { pass, rebuilt, deleted } => self.log(format!(
                "Pass {pass}: {rebuilt} entities and relations rebuilt from the remaining chunks, {deleted} removed; \
                 committing"
            )),
            DeletionEvent::PassCommitted { pass, passes, deleted, documents } => {
                self.log(format!("Pass {pass}/{passes} committed: {deleted}/{documents} documents deleted"))
            }
        }
    }

    /// No job, scan or enqueue is running (a destructive job is always also `busy`): a scan or
    /// an exclusive job may start.
    pub fn is_idle(&self) -> bool {
        !self.busy && !self.scanning && self.pending_enqueues == 0
    }

    /// Resets the per-job counters and marks a job as started.
    pub fn start_job(&mut self, name: &str) {
        self.busy = true;
        self.job_name = name.to_string();
        self.job_start = Some(now_ms());
        self.docs = 0;
        self.batchs = 0;
        self.cur_batch = 0;
        self.cancellation_requested = false;
        self.history_messages.clear();
        self.dropped_messages = 0;
    }

    /// The `/documents/pipeline_status` JSON.
    pub fn to_json(&self) -> Value {
        let mut history: Vec<String> = Vec::with_capacity(self.history_messages.len() + 1);
        if self.dropped_messages > 0 {
            let total = self.dropped_messages + self.history_messages.len();
            history.push(format!("[Truncated history messages: {}/{total}]", self.dropped_messages));
        }
        history.extend(self.history_messages.iter().cloned());
        json!({
            "autoscanned": self.autoscanned,
            "busy": self.busy,
            "job_name": if self.job_name.is_empty() { "Default Job" } else { self.job_name.as_str() },
            "job_start": self.job_start.map(iso),
            "docs": self.docs,
            "batchs": self.batchs,
            "cur_batch": self.cur_batch,
            "request_pending": self.request_pending,
            "latest_message": self.latest_message,
            "history_messages": history,
            "update_status": {},
            "cancellation_requested": self.cancellation_requested,
            "scanning": self.scanning,
            "scanning_exclusive": self.scanning,
            "destructive_busy": self.destructive_busy,
            "pending_enqueues": self.pending_enqueues,
        })
    }
}

/// Pipeline state of one workspace: the status and the running job's cancellation tokens.
pub struct PipelineState {
    status: Mutex<PipelineStatus>,
    /// The running job's token: cancelled by a user's cancel or by shutdown (its parent).
    cancel: Mutex<CancellationToken>,
    /// Cancelled by a user's cancel only: tells the engine that documents being extracted are
    /// to be marked `failed` (a shutdown leaves them to resume at the next start).
    user_cancel: Mutex<CancellationToken>,
}

impl Default for PipelineState {
    fn default() -> Self {
        Self {
            status: Mutex::new(PipelineStatus::default()),
            cancel: Mutex::new(CancellationToken::new()),
            user_cancel: Mutex::new(CancellationToken::new()),
        }
    }
}

/// Why a job could not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

/// A running exclusive job (see [`PipelineState::begin_exclusive`]).
pub struct ExclusiveJob {
    state: Arc<PipelineState>,
    runner: Option<Runner>,
    token: CancellationToken,
    finished: bool,
}

impl ExclusiveJob {
    /// Cancelled by `/documents/cancel_pipeline` or shutdown.
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// Ends the job with `message` as its last progress line.
    pub fn finish(mut self, message: impl Into<String>) {
        self.finished = true;
        self.state.end_exclusive(message.into(), self.runner.as_ref());
    }
}

impl Drop for ExclusiveJob {
    fn drop(&mut self) {
        if !self.finished {
            self.state.end_exclusive("The job was interrupted before it finished".to_string(), self.runner.as_ref());
        }
    }
}

/// Why an enqueue request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnqueueRefused {
    /// A deletion or clearing job runs.
    Destructive,
    /// A scan of the input folder runs.
    Scanning,
}

impl EnqueueRefused {
    /// What the client is told (409).
    pub fn message(self) -> &'static str {
        match self {
            Self::Destructive => "a deletion or clearing job is running; retry when it has finished",
            Self::Scanning => "the input folder is being scanned; retry in a moment",
        }
    }
}

/// An admitted enqueue request; counted in `pending_enqueues` until dropped.
pub struct EnqueueGuard(Arc<PipelineState>);

impl Drop for EnqueueGuard {
    fn drop(&mut self) {
        let mut status = self.0.lock();
        status.pending_enqueues = status.pending_enqueues.saturating_sub(1);
    }
}

/// What the indexing worker needs from its surroundings.
#[derive(Clone)]
pub struct Runner {
    /// The workspace's engine.
    pub engine: Engine,
    /// Tracks background tasks so shutdown can wait for them.
    pub tracker: TaskTracker,
    /// Cancelled at server shutdown; every job token is its child.
    pub shutdown: CancellationToken,
}

impl PipelineState {
    /// Locks the status (a poisoned lock is recovered: the status is plain data).
    pub fn lock(&self) -> MutexGuard<'_, PipelineStatus> {
        self.status.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A snapshot of the status.
    pub fn snapshot(&self) -> PipelineStatus {
        self.lock().clone()
    }

    fn new_token(&self, parent: &CancellationToken) -> CancellationToken {
        let token = parent.child_token();
        *self.cancel.lock().unwrap_or_else(|p| p.into_inner()) = token.clone();
        *self.user_cancel.lock().unwrap_or_else(|p| p.into_inner()) = CancellationToken::new();
        token
    }

    fn user_token(&self) -> CancellationToken {
        self.user_cancel.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Admits an enqueue request (upload, text, texts) unless a destructive job or a scan runs.
    /// While the guard lives, destructive jobs and scans do not start.
    pub fn begin_enqueue(self: &Arc<Self>) -> Result<EnqueueGuard, EnqueueRefused> {
        let mut status = self.lock();
        if status.destructive_busy {
            return Err(EnqueueRefused::Destructive);
        }
        if status.scanning {
            return Err(EnqueueRefused::Scanning);
        }
        status.pending_enqueues += 1;
        Ok(EnqueueGuard(self.clone()))
    }

    /// Requests cancellation of the running job. Returns false when nothing runs.
    pub fn cancel(&self) -> bool {
        let mut status = self.lock();
        if !status.busy {
            return false;
        }
        status.cancellation_requested = true;
        status.log("Cancellation requested by user");
        self.user_cancel.lock().unwrap_or_else(|p| p.into_inner()).cancel();
        self.cancel.lock().unwrap_or_else(|p| p.into_inner()).cancel();
        true
    }

    /// Claims the pipeline for an exclusive job (deletion, clearing). Fails when a job runs.
    /// The job's token is cancelled by `/documents/cancel_pipeline` or shutdown. The job ends
    /// when [`ExclusiveJob::finish`] is called or, if its task is dropped or panics, when the
    /// guard is dropped — the pipeline never stays busy.
    pub fn begin_exclusive(self: &Arc<Self>, name: &str, runner: &Runner) -> Result<ExclusiveJob, Busy> {
        self.claim_exclusive(name, &runner.shutdown, Some(runner.clone()))
    }

    /// [`PipelineState::begin_exclusive`]; without a runner, work asked for during the job is
    /// not started at its end (unit tests).
    fn claim_exclusive(
        self: &Arc<Self>,
        name: &str,
        parent: &CancellationToken,
        runner: Option<Runner>,
    ) -> Result<ExclusiveJob, Busy> {
        let mut status = self.lock();
        if !status.is_idle() {
            return Err(Busy);
        }
        status.start_job(name);
        status.destructive_busy = true;
        status.log(format!("{name} started"));
        drop(status);
        let token = self.new_token(parent);
        Ok(ExclusiveJob { state: self.clone(), runner, token, finished: false })
    }

    fn end_exclusive(self: &Arc<Self>, message: String, runner: Option<&Runner>) {
        let rerun = {
            let mut status = self.lock();
            status.log(message);
            status.busy = false;
            status.destructive_busy = false;
            status.cancellation_requested = false;
            // work asked for meanwhile (reprocess_failed, a kick) starts now
            std::mem::take(&mut status.request_pending).then_some(std::mem::take(&mut status.pending_include_failed))
        };
        if let (Some(include_failed), Some(runner)) = (rerun, runner) {
            self.request_run(runner, include_failed);
        }
    }

    /// Makes sure the indexing worker runs: starts it, or (when busy) asks it to go round once
    /// more. `include_failed` also retries failed documents.
    pub fn request_run(self: &Arc<Self>, runner: &Runner, include_failed: bool) {
        let (token, user_cancel) = {
            let mut status = self.lock();
            if status.busy {
                status.request_pending = true;
                status.pending_include_failed |= include_failed;
                return;
            }
            status.start_job("Default Job");
            status.request_pending = false;
            status.log("Processing queued documents");
            (self.new_token(&runner.shutdown), self.user_token())
        };
        let state = self.clone();
        let runner_owned = runner.clone();
        runner.tracker.spawn(async move { state.work(runner_owned, token, user_cancel, include_failed).await });
    }

    async fn work(
        self: Arc<Self>,
        runner: Runner,
        token: CancellationToken,
        user_cancel: CancellationToken,
        include_failed: bool,
    ) {
        let mut reset = ResetOnAbort::new(self.clone(), |status| {
            status.busy = false;
            status.request_pending = false;
            status.pending_include_failed = false;
            status.cancellation_requested = false;
        });
        let sink: Arc<dyn ProgressSink> = Arc::new(StatusSink(self.clone()));
        let mut options = ProcessOptions { include_failed, only_ids: Vec::new() };
        loop {
            let result = runner.engine.process_with_user_cancel(&options, sink.clone(), &token, &user_cancel).await;
            let mut status = self.lock();
            match result {
                Ok(report) if report.cancelled && user_cancel.is_cancelled() => status.log(
                    "Processing cancelled by user: documents being extracted were marked failed, \
                     documents not started stay pending",
                ),
                Ok(report) if report.cancelled => {
                    status.log("Processing interrupted; unfinished documents resume at the next start")
                }
                Ok(report) => status.log(format!(
                    "Processing finished: {} processed, {} failed",
                    report.processed.len(),
                    report.failed.len()
                )),
                Err(e) => status.log(format!("Processing stopped with an error: {e}")),
            }
            if status.request_pending && !token.is_cancelled() {
                status.request_pending = false;
                status.log("More documents arrived; processing again");
                options.include_failed = std::mem::take(&mut status.pending_include_failed);
                continue;
            }
            status.busy = false;
            status.request_pending = false;
            status.pending_include_failed = false;
            status.cancellation_requested = false;
            reset.disarm();
            return;
        }
    }
}

/// Resets status flags if a background job ends without reaching its normal end (its task
/// panicked or was dropped), so the workspace does not stay busy until restart.
pub struct ResetOnAbort {
    state: Arc<PipelineState>,
    reset: Option<fn(&mut PipelineStatus)>,
}

impl ResetOnAbort {
    /// Arms the guard: `reset` runs on drop unless [`ResetOnAbort::disarm`] was called.
    pub fn new(state: Arc<PipelineState>, reset: fn(&mut PipelineStatus)) -> Self {
        Self { state, reset: Some(reset) }
    }

    /// The job reached its normal end (and reset the flags itself).
    pub fn disarm(&mut self) {
        self.reset = None;
    }
}

impl Drop for ResetOnAbort {
    fn drop(&mut self) {
        if let Some(reset) = self.reset.take() {
            let mut status = self.state.lock();
            reset(&mut status);
            status.log("The job stopped unexpectedly; see the server log");
        }
    }
}

/// Writes pipeline events into the status.
struct StatusSink(Arc<PipelineState>);

impl ProgressSink for StatusSink {
    fn event(&self, event: &PipelineEvent) {
        let mut status = self.0.lock();
        match event {
            PipelineEvent::Claimed { docs } => {
                status.docs += docs;
                status.batchs += 1;
                status.cur_batch = status.batchs;
                let batch = status.batchs;
                status.log(format!("Batch {batch}: processing {docs} document(s)"));
            }
            PipelineEvent::DocStarted { doc_id, file_path, chunks } => {
                status.log(format!("Extracting {chunks} chunk(s) of {doc_id} ({file_path})"));
            }
            PipelineEvent::ChunkExtracted { doc_id, entities, relations } => {
                status.log(format!("Chunk of {doc_id} extracted {entities} Ent + {relations} Rel"));
            }
            PipelineEvent::DocProcessed { doc_id, entities, relations } => {
                status.log(format!("Completed {doc_id}: {entities} entities, {relations} relations merged"));
            }
            PipelineEvent::DocFailed { doc_id, error } => {
                status.log(format!("Failed {doc_id}: {error}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_capped_and_reports_truncation() {
        let mut status = PipelineStatus::default();
        for i in 0..(HISTORY_LIMIT + 5) {
            status.log(format!("m{i}"));
        }
        let json = status.to_json();
        let history = json["history_messages"].as_array().map(Vec::len).unwrap_or_default();
        assert_eq!(history, HISTORY_LIMIT + 1);
        assert_eq!(json["history_messages"][0], format!("[Truncated history messages: 5/{}]", HISTORY_LIMIT + 5));
        assert_eq!(json["latest_message"], format!("m{}", HISTORY_LIMIT + 4));
        assert_eq!(json["job_name"], "Default Job");
    }

    #[test]
    fn exclusive_jobs_exclude_each_other() {
        let state = Arc::new(PipelineState::default());
        let parent = CancellationToken::new();
        let job = state.claim_exclusive("Deleting 1 Documents", &parent, None).unwrap();
        assert!(state.claim_exclusive("Clearing", &parent, None).is_err());
        assert!(state.cancel());
        assert!(job.token().is_cancelled());
        job.finish("done");
        assert!(!state.snapshot().busy);
        assert!(!state.cancel());
    }

    #[test]
    fn pending_enqueues_hold_off_destructive_jobs_and_the_reverse() {
        let state = Arc::new(PipelineState::default());
        let parent = CancellationToken::new();
        let guard = state.begin_enqueue();
        assert!(guard.is_ok());
        assert_eq!(state.snapshot().to_json()["pending_enqueues"], 1);
        assert!(state.claim_exclusive("Clearing", &parent, None).is_err(), "an enqueue in flight blocks clearing");
        drop(guard);
        assert_eq!(state.snapshot().pending_enqueues, 0);
        let job = state.claim_exclusive("Clearing", &parent, None).unwrap();
        assert_eq!(state.begin_enqueue().err(), Some(EnqueueRefused::Destructive));
        job.finish("done");
        state.lock().scanning = true;
        assert_eq!(state.begin_enqueue().err(), Some(EnqueueRefused::Scanning));
        assert_eq!(state.snapshot().to_json()["scanning_exclusive"], true);
    }

    /// Regression (security review): a clearing request whose client went away, or a job that
    /// panicked, left the workspace busy until restart.
    #[test]
    fn a_dropped_exclusive_job_does_not_leave_the_pipeline_busy() {
        let state = Arc::new(PipelineState::default());
        let job = state.claim_exclusive("Clearing all documents", &CancellationToken::new(), None).unwrap();
        assert!(state.snapshot().busy && state.snapshot().destructive_busy);
        drop(job);
        let status = state.snapshot();
        assert!(!status.busy && !status.destructive_busy);
        assert!(status.latest_message.contains("interrupted"), "{}", status.latest_message);
        assert!(state.begin_enqueue().is_ok(), "inserts are accepted again");
    }
}
