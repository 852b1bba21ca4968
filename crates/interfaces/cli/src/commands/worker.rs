//! `lightrag worker`: indexing only. Any number of workers (and servers) share one knowledge base:
//! each claims a few documents at a time under a lease it renews, so documents spread over the
//! workers, and a worker that dies leaves its documents to the others once its lease expires.

use std::sync::Arc;
use std::time::Duration;

use lightrag_config::Settings;
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::{PipelineEvent, ProcessOptions, ProcessReport, ProgressSink};
use lightrag_ports::DocStatus;
use tokio_util::sync::CancellationToken;

use crate::cli::WorkerArgs;

pub async fn run(settings: &Settings, args: WorkerArgs) -> anyhow::Result<()> {
    if !(args.poll_secs.is_finite() && args.poll_secs > 0.0) {
        anyhow::bail!("--poll-secs must be a positive number of seconds (got {})", args.poll_secs);
    }
    let engine = super::open(settings).await?;
    let stop = stop_token();
    let poll = Duration::from_secs_f64(args.poll_secs);
    // pending and interrupted documents; `lightrag process` retries failed ones
    let options = ProcessOptions::default();
    let log: Arc<dyn ProgressSink> = Arc::new(LogLines);
    let mut total = ProcessReport::default();
    eprintln!("worker {} is waiting for documents (Ctrl-C to stop)", engine.worker_id());
    loop {
        let report = engine.process(&options, log.clone(), &stop).await?;
        add(&mut total, report);
        if stop.is_cancelled() {
            break;
        }
        if args.exit_when_done && nothing_left(&engine).await? {
            break;
        }
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tokio::time::sleep(poll) => {}
        }
    }
    let summary = super::IndexSummary::build(&engine, &total, None, 0, 0).await?;
    summary.print(args.json)?;
    if stop.is_cancelled() {
        // stopping is how a worker ends: not an error (documents it held are pending again;
        // failures were reported as they happened)
        eprintln!("worker stopped; documents it had not finished are pending again for the other workers");
        return Ok(());
    }
    super::fail_if_failed(&summary)
}

/// No document is pending or being processed (by any worker).
async fn nothing_left(engine: &Engine) -> anyhow::Result<bool> {
    let counts = engine.status_counts().await?;
    let open = |s: DocStatus| counts.get(&s).copied().unwrap_or(0);
    Ok(open(DocStatus::Pending) == 0 && open(DocStatus::Processing) == 0)
}

fn add(total: &mut ProcessReport, report: ProcessReport) {
    total.processed.extend(report.processed);
    total.failed.extend(report.failed);
    total.chunks += report.chunks;
    total.entities_extracted += report.entities_extracted;
    total.relations_extracted += report.relations_extracted;
}

/// Cancelled by Ctrl-C or SIGTERM (how service managers stop a worker): documents being
/// extracted go back to `pending` for the next worker. A second Ctrl-C quits at once.
fn stop_token() -> CancellationToken {
    let token = super::ctrl_c_token();
    #[cfg(unix)]
    {
        let child = token.clone();
        tokio::spawn(async move {
            use tokio::signal::unix::{SignalKind, signal};
            if let Ok(mut term) = signal(SignalKind::terminate())
                && term.recv().await.is_some()
            {
                eprintln!("stopping after the current chunks (SIGTERM)…");
                child.cancel();
            }
        });
    }
    token
}

/// One line per document on standard error (a worker runs unattended: no progress bar).
struct LogLines;

impl ProgressSink for LogLines {
    fn event(&self, event: &PipelineEvent) {
        match event {
            PipelineEvent::Claimed { docs } => eprintln!("claimed {docs} document(s)"),
            PipelineEvent::DocProcessed { doc_id, entities, relations } => {
                eprintln!("processed {doc_id}: {entities} entities, {relations} relations")
            }
            PipelineEvent::DocFailed { doc_id, error } => eprintln!("failed {doc_id}: {error}"),
            PipelineEvent::DocStarted { .. } | PipelineEvent::ChunkExtracted { .. } => {}
        }
    }
}
