//! The document pipeline: enqueue (dedup, status `pending`) and process (claim → chunk → extract
//! → merge → one atomic commit per document).
//!
//! Extraction of up to `MAX_PARALLEL_INSERT` documents runs concurrently; merges run one at a time
//! **in claim order**, so the resulting graph does not depend on which document's extraction
//! finished first ([`commit`] merges and commits one document, also when other processes merge
//! into the same store). A document's whole result is one [`ChangeSet`]: a crash leaves it either fully
//! committed or still `processing`, and the next run picks it up again (its LLM answers come from
//! the cache). Cancellation stops between chunks; documents not started, and documents being
//! extracted when the run was interrupted (shutdown, Ctrl-C), go back to `pending`; only a
//! user's cancel ([`Engine::process_with_user_cancel`]) marks the latter `failed`.
//!
//! A known file enqueued again with new content is a replacement: its indexed version stays live
//! until one commit swaps it for the new one, extracting only the chunks whose text changed
//! ([`replace`]); a replacement that fails or is cancelled gives the indexed version back instead
//! of failing the document.

use std::collections::{HashSet, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use lightrag_ports::ErrorChain;
use lightrag_ports::{
    Admission, ChangeSet, Chunk, ChunkExtraction, ChunkingOptions, ClaimRequest, DocFilter, DocStatus, DocStatusRecord,
    Document, EnqueueOutcome, NewDocument, StoreError, UsageRole, ids,
};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::config::ExtractionMethod;
use crate::engine::Engine;
use crate::error::{EngineError, Result};
use crate::indexing::chunking::chunk_text;
use crate::indexing::extract::extract_chunk;
use crate::indexing::extract::schema::SchemaReport;
use crate::indexing::text::content_hash;
use crate::providers::gateway::EmbedCall;
use crate::providers::limiter::Priority;
use crate::time::{now_ms, track_id};

mod commit;
pub(crate) use commit::{lock_held, merge_backoff};
mod name;
mod replace;

pub use name::{MAX_FILE_NAME_BYTES, MAX_FILE_SOURCE_BYTES, NameError, check_file_source};
pub use replace::ReplacementReport;
pub(crate) use replace::given_back;

/// Placeholder file path for documents without a source.
pub const UNKNOWN_SOURCE: &str = "unknown_source";

/// A document to insert.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InsertDoc {
    /// Text.
    pub content: String,
    /// File name or path it came from (its basename becomes the file path and the id source).
    pub file_source: Option<String>,
    /// Explicit id (wins over the derived one).
    pub id: Option<String>,
    /// Chunking options for this document.
    pub chunking: ChunkingOptions,
    /// The caller's metadata object (empty = none): stored on the status row under `custom`,
    /// matched by query filters ([`crate::retrieval::query::QueryFilter::metadata`]).
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

/// The largest metadata object a document may carry, serialized (64 KiB).
pub const MAX_METADATA_BYTES: usize = 64 * 1024;

/// Result of [`Engine::enqueue`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnqueueReport {
    /// Track id shared by the documents of this call.
    pub track_id: String,
    /// One outcome per input document, in order.
    pub outcomes: Vec<EnqueueOutcome>,
}

/// What to process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessOptions {
    /// Also retry `failed` documents.
    pub include_failed: bool,
    /// Only these documents (empty = all claimable).
    pub only_ids: Vec<String>,
}

/// Result of [`Engine::process`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProcessReport {
    /// Documents committed as `processed`.
    pub processed: Vec<String>,
    /// Documents that failed, with the error.
    pub failed: Vec<(String, String)>,
    /// Whether processing stopped because of cancellation.
    pub cancelled: bool,
    /// Chunks committed.
    pub chunks: usize,
    /// Entity records extracted.
    pub entities_extracted: usize,
    /// Relation records extracted.
    pub relations_extracted: usize,
    /// Per processed document, what the extraction schema changed (typed extraction only).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub schema: std::collections::BTreeMap<String, SchemaReport>,
    /// Per document that replaced an indexed version: how many chunks were reused, extracted
    /// again and removed.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub replaced: std::collections::BTreeMap<String, ReplacementReport>,
}

/// Progress notifications.
#[derive(Debug, Clone, PartialEq)]
pub enum PipelineEvent {
    /// Documents were claimed for processing.
    Claimed {
        /// How many.
        docs: usize,
    },
    /// A document was chunked and its extraction starts.
    DocStarted {
        /// Document id.
        doc_id: String,
        /// File path.
        file_path: String,
        /// Number of chunks.
        chunks: usize,
    },
    /// One chunk was extracted.
    ChunkExtracted {
        /// Document id.
        doc_id: String,
        /// Entity records.
        entities: usize,
        /// Relation records.
        relations: usize,
    },
    /// A document was committed.
    DocProcessed {
        /// Document id.
        doc_id: String,
        /// Entities written.
        entities: usize,
        /// Relations written.
        relations: usize,
    },
    /// A document failed.
    DocFailed {
        /// Document id.
        doc_id: String,
        /// Error text.
        error: String,
    },
}

/// Receives [`PipelineEvent`]s (progress bars, server pipeline status).
pub trait ProgressSink: Send + Sync {
    /// Called for each event, from any task.
    fn event(&self, event: &PipelineEvent);
}

/// Ignores events.
pub struct NoProgress;

impl ProgressSink for NoProgress {
    fn event(&self, _event: &PipelineEvent) {}
}

/// A document ready to merge.
struct Prepared {
    record: DocStatusRecord,
    doc: Document,
    chunks: Vec<Chunk>,
    extractions: Vec<ChunkExtraction>,
    chunk_vectors: Vec<Vec<f32>>,
    started_at: i64,
    /// What the extraction schema changed, summed over the chunks (`None` without a schema).
    schema: Option<SchemaReport>,
    /// The extraction estimate of its chunks and the extraction's actual usage.
    extraction: (crate::indexing::estimate::ExtractionFigures, crate::indexing::estimate::ExtractionFigures),
    /// When it replaces an indexed version: the old chunks and what was reused of them.
    replacement: Option<replace::ReplaceInfo>,
}

enum PrepareError {
    /// Cancelled before any work: the document goes back to `pending`.
    NotStarted,
    Failed(EngineError),
}

impl From<EngineError> for PrepareError {
    fn from(e: EngineError) -> Self {
        PrepareError::Failed(e)
    }
}

/// Canonical file name: the basename of a path, or `unknown_source`.
pub fn canonical_file_path(source: Option<&str>) -> String {
    source
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != UNKNOWN_SOURCE)
        .and_then(|s| Path::new(s).file_name().map(|n| n.to_string_lossy().into_owned()).or(Some(s.to_string())))
        .unwrap_or_else(|| UNKNOWN_SOURCE.to_string())
}

/// The id a document gets: explicit id, else `doc-md5(basename)` for sourced documents, else
/// `doc-md5(content)`.
pub fn document_id(doc: &InsertDoc) -> String {
    id_with_hash(doc, || content_hash(&doc.content))
}

/// [`document_id`], taking the content hash (`md5(normalize_content)`) from `hash` only when the
/// id depends on the content, so enqueue hashes each document once.
fn id_with_hash(doc: &InsertDoc, hash: impl FnOnce() -> String) -> String {
    if let Some(id) = doc.id.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        return id.to_string();
    }
    let path = canonical_file_path(doc.file_source.as_deref());
    if path != UNKNOWN_SOURCE { ids::mdhash_id(&path, "doc-") } else { format!("doc-{}", hash()) }
}

/// The records of documents to enqueue under `track`: content hash, id, canonical file path.
fn new_documents(docs: Vec<InsertDoc>, track: &str) -> Result<Vec<NewDocument>> {
    let now = now_ms();
    let mut new_docs = Vec::with_capacity(docs.len());
    for doc in docs {
        if doc.content.trim().is_empty() {
            return Err(EngineError::Invalid(format!(
                "document {} is empty; nothing to index",
                doc.file_source.as_deref().unwrap_or("(text)")
            )));
        }
        if let Some(source) = doc.file_source.as_deref() {
            check_file_source("file_source", source)?;
        }
        let metadata_bytes = serde_json::to_string(&doc.metadata).map(|s| s.len()).unwrap_or(0);
        if metadata_bytes > MAX_METADATA_BYTES {
            return Err(EngineError::Invalid(format!(
                "the metadata of document {} is {metadata_bytes} bytes as JSON, over the limit of {MAX_METADATA_BYTES}; \
                 keep large data in the document text and only short keys and values in metadata",
                doc.file_source.as_deref().unwrap_or("(text)")
            )));
        }
        let hash = content_hash(&doc.content);
        let id = id_with_hash(&doc, || hash.clone());
        new_docs.push(NewDocument {
            document: Document {
                id,
                content_hash: hash,
                file_path: canonical_file_path(doc.file_source.as_deref()),
                content: doc.content,
                chunking: doc.chunking,
                created_at: now,
            },
            track_id: track.to_string(),
            metadata: doc.metadata,
            admission: Admission::Record,
        });
    }
    Ok(new_docs)
}

/// The track id (the given one, or a new `insert_…`) and the documents with their ids and content
/// hashes. Hashing large texts is CPU work: on the blocking pool, off the threads that serve
/// requests.
pub(crate) async fn hashed(docs: Vec<InsertDoc>, track: Option<String>) -> Result<(String, Vec<NewDocument>)> {
    let track = track.filter(|t| !t.trim().is_empty()).unwrap_or_else(|| track_id("insert"));
    let owned_track = track.clone();
    let new_docs = tokio::task::spawn_blocking(move || new_documents(docs, &owned_track))
        .await
        .map_err(|e| EngineError::Invalid(format!("hashing the documents crashed ({e}); please report it")))??;
    Ok((track, new_docs))
}

/// [`hashed`], every document under `admission`.
async fn admitted(
    docs: Vec<InsertDoc>,
    track: Option<String>,
    admission: Admission,
) -> Result<(String, Vec<NewDocument>)> {
    let (track, mut new_docs) = hashed(docs, track).await?;
    for doc in &mut new_docs {
        doc.admission = admission;
    }
    Ok((track, new_docs))
}

impl Engine {
    /// Stores documents as `pending` (duplicates by file name or content are recorded, not
    /// indexed; a known file name with new content becomes a pending replacement of the indexed
    /// version, [`EnqueueOutcome::Replaced`]). Returns the track id and one outcome per document.
    pub async fn enqueue(&self, docs: Vec<InsertDoc>, track: Option<String>) -> Result<EnqueueReport> {
        self.enqueue_with(docs, track, Admission::Record).await
    }

    /// [`Engine::enqueue`] admitting the documents as `admission` says: the store decides, in the
    /// transaction that writes them, whether a stored name refuses a document
    /// ([`EnqueueOutcome::Refused`], nothing written) — so that of concurrent inserts of one name
    /// exactly one gets in, whichever process they come from.
    pub async fn enqueue_with(
        &self,
        docs: Vec<InsertDoc>,
        track: Option<String>,
        admission: Admission,
    ) -> Result<EnqueueReport> {
        let (track, new_docs) = admitted(docs, track, admission).await?;
        let outcomes = self.enqueue_within_quotas(new_docs).await?;
        Ok(EnqueueReport { track_id: track, outcomes })
    }

    /// [`Engine::enqueue`] for a run over the same input again (`lightrag insert` after a crash
    /// or Ctrl-C): a document already stored under the same id with the same content that is
    /// still `pending` or `processing` is not enqueued again — it would become a `failed`
    /// duplicate — but reported as [`EnqueueOutcome::Resumed`]; the next [`Engine::process`]
    /// finishes it. Everything else is enqueued as by [`Engine::enqueue`].
    pub async fn enqueue_resuming(&self, docs: Vec<InsertDoc>, track: Option<String>) -> Result<EnqueueReport> {
        self.enqueue_resuming_with(docs, track, Admission::Record).await
    }

    /// [`Engine::enqueue_resuming`] admitting the documents that are not resumed as `admission`
    /// says ([`Engine::enqueue_with`]).
    pub async fn enqueue_resuming_with(
        &self,
        docs: Vec<InsertDoc>,
        track: Option<String>,
        admission: Admission,
    ) -> Result<EnqueueReport> {
        let (track, new_docs) = admitted(docs, track, admission).await?;
        let mut outcomes: Vec<Option<EnqueueOutcome>> = Vec::with_capacity(new_docs.len());
        let mut to_store = Vec::new();
        for doc in new_docs {
            let stored = self.inner.store.get_doc_status(&doc.document.id).await?;
            match stored {
                Some(row)
                    if row.content_hash == doc.document.content_hash
                        && matches!(row.status, DocStatus::Pending | DocStatus::Processing) =>
                {
                    outcomes.push(Some(EnqueueOutcome::Resumed { doc_id: row.id, status: row.status }));
                }
                _ => {
                    outcomes.push(None);
                    to_store.push(doc);
                }
            }
        }
        let mut stored = self.enqueue_within_quotas(to_store).await?.into_iter();
        let outcomes =
            outcomes.into_iter().map(|o| o.or_else(|| stored.next())).collect::<Option<Vec<_>>>().ok_or_else(|| {
                EngineError::Invalid("the store returned fewer enqueue outcomes than documents".into())
            })?;
        Ok(EnqueueReport { track_id: track, outcomes })
    }

    /// Processes every claimable document (pending, interrupted, and failed when asked) until none
    /// is left or `cancel` fires.
    ///
    /// A cancellation is an interruption (Ctrl-C, server shutdown): documents being extracted go
    /// back to `pending` and resume at the next run, their LLM answers coming from the cache.
    pub async fn process(
        &self,
        options: &ProcessOptions,
        progress: Arc<dyn ProgressSink>,
        cancel: &CancellationToken,
    ) -> Result<ProcessReport> {
        self.process_with_user_cancel(options, progress, cancel, &CancellationToken::new()).await
    }

    /// [`Engine::process`], where `cancel` firing while `user_cancel` is cancelled too means a
    /// user's cancel (LightRAG's `/documents/cancel_pipeline`): documents being extracted are
    /// marked `failed` ("cancelled by user") instead of going back to `pending`.
    pub async fn process_with_user_cancel(
        &self,
        options: &ProcessOptions,
        progress: Arc<dyn ProgressSink>,
        cancel: &CancellationToken,
        user_cancel: &CancellationToken,
    ) -> Result<ProcessReport> {
        let mut report = ProcessReport::default();
        if cancel.is_cancelled() {
            report.cancelled = true;
        } else {
            // A cancellation requested through the store (`Engine::request_cancel`, from any
            // process) after this run started stops it as a user's cancel does.
            let (cancel, user_cancel) = (cancel.child_token(), user_cancel.child_token());
            let generation = self.inner.store.cancel_generation().await?;
            let watcher = self.watch_cancel_requests(generation, cancel.clone(), user_cancel.clone());
            let outcome = self.process_claims(options, progress, &cancel, &user_cancel, &mut report).await;
            watcher.abort();
            outcome?;
        }
        self.inner.gateway.flush_usage().await?;
        Ok(report)
    }

    /// Asks the knowledge base's pipeline runs to stop, in every process (servers, workers): they
    /// stop after the chunks in flight and mark the documents they were extracting `failed`
    /// ("cancelled by user"), as `/documents/cancel_pipeline` does for a server's own run.
    pub async fn request_cancel(&self) -> Result<()> {
        self.inner.store.request_cancel().await?;
        Ok(())
    }

    /// Cancels `cancel` and `user_cancel` once the store's cancel count rises above `seen`
    /// (checked every [`CANCEL_POLL`]; a failed read is retried at the next tick).
    fn watch_cancel_requests(
        &self,
        seen: u64,
        cancel: CancellationToken,
        user_cancel: CancellationToken,
    ) -> tokio::task::JoinHandle<()> {
        let store = self.inner.store.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = tokio::time::sleep(CANCEL_POLL) => {}
                }
                match store.cancel_generation().await {
                    Ok(now) if now > seen => {
                        tracing::info!("pipeline cancellation requested through the store; stopping this run");
                        user_cancel.cancel();
                        cancel.cancel();
                        return;
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!("could not read pipeline cancellation requests: {}", ErrorChain(&e)),
                }
            }
        })
    }

    /// Claims the next documents: a few at a time (twice `MAX_PARALLEL_INSERT`), so that other
    /// workers on the same store get their share; all at once for `only_ids`, and on the first
    /// claim of a run that retries failed documents (only that claim may take failed ones: a
    /// document failing again in this run must not be retried in a loop).
    async fn claim(&self, options: &ProcessOptions, first_round: bool) -> Result<Vec<DocStatusRecord>> {
        let inner = &self.inner;
        let limit = if !options.only_ids.is_empty() || (options.include_failed && first_round) {
            100_000
        } else {
            inner.config.pipeline.max_parallel_insert.max(1) * CLAIM_BATCH_PER_SLOT
        };
        let dead_owners = self.dead_owners().await?;
        // A process that died holding merge locks or summary claims must not make the others wait
        // for them to expire, nor defer summaries it will never make.
        let released = inner.store.release_locks_of(&dead_owners).await?;
        if released > 0 {
            tracing::info!("released {released} merge lock(s) of processes that are gone ({})", dead_owners.join(", "));
        }
        let now = now_ms();
        let request = ClaimRequest {
            owner: inner.worker_id.clone(),
            lease_until: now + (inner.config.pipeline.lease_secs as i64) * 1000,
            now,
            dead_owners,
            include_failed: options.include_failed && first_round,
            only_ids: options.only_ids.clone(),
            limit,
        };
        Ok(inner.store.claim(&request).await?)
    }

    /// Owners of `processing` documents that are processes of this host which no longer exist.
    async fn dead_owners(&self) -> Result<Vec<String>> {
        let filter = DocFilter { statuses: vec![DocStatus::Processing], ..Default::default() };
        let (rows, _) = self.inner.store.list_docs(&filter).await?;
        let mine = &self.inner.worker_id;
        let host = mine.split('/').next().unwrap_or_default();
        let mut dead: Vec<String> = rows
            .into_iter()
            .filter_map(|r| r.lease_owner)
            .filter(|owner| owner != mine && owner_is_dead(owner, host))
            .collect();
        dead.sort();
        dead.dedup();
        Ok(dead)
    }

    /// Processes claimed documents while claiming more as places free up, until nothing is left
    /// to claim (or `cancel` fires, or a document went back to `pending`).
    async fn process_claims(
        &self,
        options: &ProcessOptions,
        progress: Arc<dyn ProgressSink>,
        cancel: &CancellationToken,
        user_cancel: &CancellationToken,
        report: &mut ProcessReport,
    ) -> Result<()> {
        let in_flight: Arc<Mutex<HashSet<String>>> = Arc::new(Mutex::new(HashSet::new()));
        let renewal = self.spawn_lease_renewal(in_flight.clone());
        // Set once a document went back to `pending`: the ones after it must follow (claim order),
        // so nothing more is claimed.
        let stop_claiming = Arc::new(AtomicBool::new(false));
        let claim_failure: Arc<Mutex<Option<EngineError>>> = Arc::new(Mutex::new(None));
        let source = ClaimSource {
            engine: self.clone(),
            options: options.clone(),
            cancel: cancel.clone(),
            in_flight: in_flight.clone(),
            progress: progress.clone(),
            stop: stop_claiming.clone(),
            failure: claim_failure.clone(),
            queue: VecDeque::new(),
            first_round: true,
            exhausted: false,
        };
        let claimed = futures::stream::unfold(source, ClaimSource::next);
        let outcome = self
            .process_stream(claimed, &in_flight, &stop_claiming, progress.clone(), cancel, user_cancel, report)
            .await;
        renewal.abort();
        let claim_error = lock(&claim_failure).take();
        match (outcome, claim_error) {
            (Err(e), _) | (Ok(()), Some(e)) => Err(e),
            (Ok(()), None) => Ok(()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn process_stream(
        &self,
        claimed: impl futures::Stream<Item = DocStatusRecord>,
        in_flight: &Mutex<HashSet<String>>,
        stop_claiming: &AtomicBool,
        progress: Arc<dyn ProgressSink>,
        cancel: &CancellationToken,
        user_cancel: &CancellationToken,
        report: &mut ProcessReport,
    ) -> Result<()> {
        // `MAX_PARALLEL_INSERT` documents are extracted at once. Documents commit in claim order,
        // so one that is extracted waits for the ones before it; up to as many again may wait so,
        // and a long document at the head does not stop the next ones from being extracted.
        let parallel = self.inner.config.pipeline.max_parallel_insert.max(1);
        let extracting = Arc::new(tokio::sync::Semaphore::new(parallel));
        let mut started: Vec<tokio::task::AbortHandle> = Vec::new();
        let mut results = Box::pin(claimed.map(|record| {
            let engine = self.clone();
            let cancel = cancel.clone();
            let progress = progress.clone();
            let fallback = record.clone();
            let extracting = extracting.clone();
            // spawned at once, so that a document starts when a place frees up even while an
            // earlier one is being merged (places go in about claim order: the semaphore is FIFO)
            let handle = tokio::spawn(async move {
                let Ok(_place) = extracting.acquire_owned().await else { return Err(PrepareError::NotStarted) };
                engine.prepare(record, &cancel, progress.as_ref()).await
            });
            started.push(handle.abort_handle());
            async move { (fallback, handle.await) }
        }))
        .buffered(parallel * 2);

        let mut outcome = Ok(());
        // Once a document goes back to `pending`, the ones after it must too, even when their
        // extraction is done: committing them now would change the merge order from claim order
        // (the resumed run commits the earlier document after them).
        let mut held_back = false;
        while let Some((record, joined)) = results.next().await {
            let id = record.id.clone();
            let result = match joined {
                Ok(Ok(prepared)) if held_back => self.interrupt(prepared.record).await,
                Ok(Ok(prepared)) if prepared.replacement.is_some() => {
                    self.commit_replacement(prepared, progress.as_ref(), report).await
                }
                Ok(Ok(prepared)) => self.commit(prepared, progress.as_ref(), report).await,
                Ok(Err(PrepareError::NotStarted)) => {
                    held_back = true;
                    stop_claiming.store(true, Ordering::Relaxed);
                    self.release(record).await
                }
                Ok(Err(PrepareError::Failed(EngineError::Cancelled))) if user_cancel.is_cancelled() => {
                    report.cancelled = true;
                    self.fail(record, replace::CANCELLED_BY_USER, progress.as_ref(), report).await
                }
                // an interruption (shutdown, Ctrl-C) is not a user's cancel: the document resumes
                Ok(Err(PrepareError::Failed(EngineError::Cancelled))) => {
                    report.cancelled = true;
                    held_back = true;
                    stop_claiming.store(true, Ordering::Relaxed);
                    self.interrupt(record).await
                }
                // a full disk or an unavailable store is not the document's fault: stop, it stays
                // claimable for the next run
                Ok(Err(PrepareError::Failed(e))) if e.is_store_outage() => Err(e),
                Ok(Err(PrepareError::Failed(e))) => self.fail(record, &e.to_string(), progress.as_ref(), report).await,
                Err(join_error) => {
                    self.fail(record, &format!("internal error: {join_error}"), progress.as_ref(), report).await
                }
            };
            lock(in_flight).remove(&id);
            if let Err(e) = result {
                // a store failure: stop, the remaining documents stay claimable
                outcome = Err(e);
                break;
            }
        }
        // after a store failure, documents still being extracted are of no use: stop them
        drop(results);
        for task in started {
            task.abort();
        }
        if cancel.is_cancelled() {
            report.cancelled = true;
        }
        outcome
    }

    fn spawn_lease_renewal(&self, in_flight: Arc<Mutex<HashSet<String>>>) -> tokio::task::JoinHandle<()> {
        let inner = self.inner.clone();
        tokio::spawn(async move {
            let lease_ms = (inner.config.pipeline.lease_secs.max(3) * 1000) as i64;
            loop {
                tokio::time::sleep(Duration::from_millis((lease_ms / 3) as u64)).await;
                let ids: Vec<String> = in_flight.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect();
                if ids.is_empty() {
                    continue;
                }
                let until = now_ms() + lease_ms;
                // the merge locks of the document being committed live as long as its lease
                let held = inner.merge_keys_held.lock().unwrap_or_else(|e| e.into_inner()).clone();
                if !held.is_empty()
                    && let Err(e) = inner.store.renew_key_locks(&inner.worker_id, &held, until).await
                {
                    tracing::warn!("could not renew merge locks: {}", ErrorChain(&e));
                }
                let renewed = inner.store.renew_leases(&inner.worker_id, &ids, until).await;
                match renewed.map(|lost| still_in_flight(lost, &in_flight)) {
                    Ok(lost) if !lost.is_empty() => {
                        let lost = not_finished(inner.store.as_ref(), lost).await;
                        if !lost.is_empty() {
                            tracing::warn!("lost the processing lease on {} document(s): {lost:?}", lost.len())
                        }
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!("could not renew processing leases: {}", ErrorChain(&e)),
                }
            }
        })
    }

    /// The chunks of a document, as processing cuts them: its own chunking options, else the
    /// configured ones. (Deterministic: `lightrag check --repair` rebuilds lost chunk rows with it.)
    pub(crate) async fn document_chunks(&self, doc: &Document) -> Result<Vec<Chunk>> {
        let inner = &self.inner;
        let cfg = inner.config.chunking.clone();
        let tokenizer = inner.tokenizer.clone();
        let (content, mut chunking) = (doc.content.clone(), doc.chunking.clone());
        // a document that names no separator gets the server's (CHUNK_F_SPLIT_BY_CHARACTER)
        if chunking.split_by_character.is_none() && cfg.split_by_character.is_some() {
            chunking.split_by_character = cfg.split_by_character.clone();
            chunking.split_by_character_only = cfg.split_by_character_only;
        }
        let pieces = tokio::task::spawn_blocking(move || {
            let size = chunking.chunk_token_size.unwrap_or(cfg.chunk_size);
            let overlap = chunking.chunk_overlap_token_size.unwrap_or(cfg.chunk_overlap);
            chunk_text(tokenizer.as_ref(), &content, &chunking, size, overlap)
        })
        .await
        .map_err(|e| EngineError::Invalid(format!("chunking failed: {e}")))??;
        Ok(pieces
            .into_iter()
            .map(|p| Chunk {
                id: ids::chunk_id(&doc.id, p.order),
                doc_id: doc.id.clone(),
                order: p.order as u32,
                tokens: p.tokens as u32,
                content: p.content,
                file_path: doc.file_path.clone(),
            })
            .collect())
    }

    async fn prepare(
        &self,
        record: DocStatusRecord,
        cancel: &CancellationToken,
        progress: &dyn ProgressSink,
    ) -> Result<Prepared, PrepareError> {
        if cancel.is_cancelled() {
            return Err(PrepareError::NotStarted);
        }
        let inner = &self.inner;
        let started_at = now_ms();
        let doc = inner.store.get_document(&record.id).await.map_err(EngineError::from)?.ok_or_else(|| {
            EngineError::NotFound(format!("the text of document {} is missing from the store", record.id))
        })?;
        let chunks = self.document_chunks(&doc).await?;
        // a new version of an indexed document: the records and vectors of its unchanged chunks
        let reuse = replace::reusable(inner, &record, &chunks).await?;
        progress.event(&PipelineEvent::DocStarted {
            doc_id: doc.id.clone(),
            file_path: doc.file_path.clone(),
            chunks: chunks.len(),
        });

        let reused_vector = |i: usize| reuse.as_ref().and_then(|r| r.vectors.get(i)).and_then(Option::as_ref);
        let reused_extraction = |i: usize| reuse.as_ref().and_then(|r| r.extractions.get(i)).and_then(Option::as_ref);
        let to_embed: Vec<usize> = (0..chunks.len()).filter(|i| reused_vector(*i).is_none()).collect();
        let texts: Vec<String> = to_embed.iter().map(|i| chunks[*i].content.clone()).collect();
        let token_counts: Vec<usize> = to_embed.iter().map(|i| chunks[*i].tokens as usize).collect();
        let embed = async {
            let mut fresh = if texts.is_empty() {
                Vec::new()
            } else {
                let call = EmbedCall::new(&texts, lightrag_ports::TextKind::Passage, Priority::Extract);
                inner.gateway.embed(call.counted(&token_counts)).await.map_err(EngineError::from)?
            }
            .into_iter();
            (0..chunks.len())
                .map(|i| match reused_vector(i) {
                    Some(v) => Ok(v.clone()),
                    None => fresh
                        .next()
                        .ok_or_else(|| EngineError::Invalid("the embedder returned fewer vectors than texts".into())),
                })
                .collect::<Result<Vec<Vec<f32>>>>()
        };
        // At most `in_flight` chunks of this document wait for or hold a slot at a time, so the
        // documents extracted in parallel share the model instead of queueing behind the
        // largest one.
        let in_flight = self.chunks_in_flight();
        let scope = crate::providers::usage_scope::UsageScope::new();
        let scope = &scope;
        // (the futures are made up front: only `in_flight` of them run at a time)
        let per_chunk: Vec<_> = chunks
            .iter()
            .enumerate()
            .map(|(index, chunk)| async move {
                if cancel.is_cancelled() {
                    return Err(EngineError::Cancelled);
                }
                if let Some(reused) = reused_extraction(index) {
                    progress.event(&PipelineEvent::ChunkExtracted {
                        doc_id: chunk.doc_id.clone(),
                        entities: reused.entities.len(),
                        relations: reused.relations.len(),
                    });
                    return Ok((index, reused.clone(), None));
                }
                let result = tokio::select! {
                    r = extract_chunk(inner, chunk, scope) => r?,
                    _ = cancel.cancelled() => return Err(EngineError::Cancelled),
                };
                let (extraction, notes) = result;
                progress.event(&PipelineEvent::ChunkExtracted {
                    doc_id: chunk.doc_id.clone(),
                    entities: extraction.entities.len(),
                    relations: extraction.relations.len(),
                });
                Ok((index, extraction, notes.schema))
            })
            .collect();
        let extract = futures::stream::iter(per_chunk).buffer_unordered(in_flight).try_collect::<Vec<(
            usize,
            ChunkExtraction,
            Option<SchemaReport>,
        )>>();
        let (chunk_vectors, mut extractions) = futures::future::try_join(embed, extract).await?;
        extractions.sort_by_key(|(index, _, _)| *index);
        let mut schema: Option<SchemaReport> = None;
        for report in extractions.iter().filter_map(|(_, _, report)| report.as_ref()) {
            schema.get_or_insert_with(SchemaReport::default).add(report);
        }
        let extractions = extractions.into_iter().map(|(_, extraction, _)| extraction).collect();
        // (a replacement is estimated for the chunks it extracts)
        let estimated = match &reuse {
            None => self.extraction_estimate(&chunks).await?,
            Some(_) => {
                let extracted: Vec<Chunk> = chunks
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| reused_extraction(*i).is_none())
                    .map(|(_, c)| c.clone())
                    .collect();
                self.extraction_estimate(&extracted).await?
            }
        };
        let extraction = (estimated, scope.role(UsageRole::Extract).into());
        let replacement = reuse.map(|r| r.info);
        Ok(Prepared { record, doc, chunks, extractions, chunk_vectors, started_at, schema, extraction, replacement })
    }

    /// The extraction estimate of a document's chunks (CPU work: on the blocking pool).
    /// Rule-based extraction calls no model: nothing to estimate (and no CPU spent on it).
    async fn extraction_estimate(&self, chunks: &[Chunk]) -> Result<crate::indexing::estimate::ExtractionFigures> {
        if self.inner.config.extraction.method != ExtractionMethod::Llm {
            return Ok(crate::indexing::estimate::ExtractionFigures::default());
        }
        let inner = self.inner.clone();
        let chunks = chunks.to_vec();
        let figures = tokio::task::spawn_blocking(move || {
            crate::indexing::estimate::chunks_extraction(&inner.config, inner.tokenizer.as_ref(), &chunks)
        })
        .await
        .map_err(|e| EngineError::Invalid(format!("estimating the extraction crashed ({e}); please report it")))?;
        Ok(figures.into())
    }

    /// How many chunks of one document are extracted at once: the slots of the extraction model
    /// (so one document alone still keeps the model busy), or the CPU count for rule-based
    /// extraction.
    fn chunks_in_flight(&self) -> usize {
        match self.inner.config.extraction.method {
            ExtractionMethod::Llm => self.inner.gateway.chat_capacity(UsageRole::Extract),
            ExtractionMethod::Nlp => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
        .max(1)
    }

    /// Marks a document `failed` (`error`), unless it is the replacement of an indexed version
    /// whose previous version is kept: that version is given back instead, `processed` as before
    /// the replacement began, with the failed (or cancelled) revision in its history.
    async fn fail(
        &self,
        mut record: DocStatusRecord,
        error: &str,
        progress: &dyn ProgressSink,
        report: &mut ProcessReport,
    ) -> Result<()> {
        let owner = self.inner.worker_id.clone();
        let id = record.id.clone();
        let (mut changes, error) = match replace::given_back(&self.inner, &record, error).await? {
            Some(restored) => (restored, format!("{error} (its new version was not indexed; the previous one stays)")),
            None => {
                record.status = DocStatus::Failed;
                record.error_msg = Some(error.to_string());
                record.updated_at = now_ms();
                record.lease_owner = None;
                record.lease_until = None;
                (ChangeSet { doc_status: vec![record], ..Default::default() }, error.to_string())
            }
        };
        changes.expect_doc_owners = vec![(id.clone(), owner)];
        changes.usage = self.inner.gateway.take_unflushed();
        let usage = changes.usage.clone();
        match self.inner.store.apply(changes).await {
            Ok(()) | Err(StoreError::Conflict(_)) => {}
            Err(e) => {
                self.inner.gateway.restore_unflushed(usage);
                return Err(e.into());
            }
        }
        tracing::warn!("document {id} failed: {error}");
        progress.event(&PipelineEvent::DocFailed { doc_id: id.clone(), error: error.clone() });
        report.failed.push((id, error));
        Ok(())
    }

    /// Puts a document whose extraction was interrupted back to `pending` (it resumes at the
    /// next run, also when it was a retried `failed` one).
    async fn interrupt(&self, mut record: DocStatusRecord) -> Result<()> {
        tracing::info!("document {}: extraction interrupted; it resumes at the next start", record.id);
        record.error_msg = None;
        self.release(record).await
    }

    async fn release(&self, mut record: DocStatusRecord) -> Result<()> {
        let owner = self.inner.worker_id.clone();
        record.status = if record.error_msg.is_some() { DocStatus::Failed } else { DocStatus::Pending };
        record.lease_owner = None;
        record.lease_until = None;
        record.updated_at = now_ms();
        let changes = ChangeSet {
            expect_doc_owners: vec![(record.id.clone(), owner)],
            doc_status: vec![record],
            ..Default::default()
        };
        match self.inner.store.apply(changes).await {
            Ok(()) | Err(StoreError::Conflict(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

/// Whether the owner `host/pid/nonce` is a process of this host that no longer runs.
pub(crate) fn owner_is_dead(owner: &str, my_host: &str) -> bool {
    let mut parts = owner.split('/');
    let (Some(host), Some(pid)) = (parts.next(), parts.next()) else {
        return false;
    };
    if host != my_host {
        return false;
    }
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    if pid == std::process::id() {
        return false;
    }
    Path::new("/proc").is_dir() && !Path::new(&format!("/proc/{pid}")).exists()
}

/// How often a run looks for cancellation requests made through the store by other processes.
const CANCEL_POLL: Duration = Duration::from_secs(1);

/// Documents claimed per place of `MAX_PARALLEL_INSERT` in one claim: enough that a worker
/// rarely waits for a claim, few enough that other workers on the same store get their share.
const CLAIM_BATCH_PER_SLOT: usize = 2;

/// The claims of one run, as a stream of documents: a new claim is made when the documents of
/// the last one were all handed to the pipeline (so claiming goes on while earlier documents are
/// still being extracted), until a claim comes back empty.
struct ClaimSource {
    engine: Engine,
    options: ProcessOptions,
    cancel: CancellationToken,
    in_flight: Arc<Mutex<HashSet<String>>>,
    progress: Arc<dyn ProgressSink>,
    /// Set once a document went back to `pending`.
    stop: Arc<AtomicBool>,
    /// The error of a failed claim (the run stops and returns it).
    failure: Arc<Mutex<Option<EngineError>>>,
    queue: VecDeque<DocStatusRecord>,
    first_round: bool,
    exhausted: bool,
}

impl ClaimSource {
    async fn next(mut self) -> Option<(DocStatusRecord, ClaimSource)> {
        if self.queue.is_empty() && !self.exhausted {
            self.exhausted = true;
            if !self.cancel.is_cancelled() && !self.stop.load(Ordering::Relaxed) {
                // The claim runs as its own task, which puts the documents in the in-flight set
                // (whose leases are renewed) the moment the store hands them over. Run inside this
                // stream's future, it could be left half-way for as long as the pipeline commits
                // other documents (the stream is not polled meanwhile): the claimed documents went
                // unrenewed and another worker took them over once their lease ran out.
                let (engine, options, in_flight) = (self.engine.clone(), self.options.clone(), self.in_flight.clone());
                let first_round = self.first_round;
                let claim = tokio::spawn(async move {
                    let batch = engine.claim(&options, first_round).await?;
                    lock(&in_flight).extend(batch.iter().map(|r| r.id.clone()));
                    Ok::<_, EngineError>(batch)
                });
                let claimed = claim.await.unwrap_or_else(|e| {
                    Err(EngineError::Invalid(format!("claiming documents crashed ({e}); please report it")))
                });
                match claimed {
                    Ok(batch) if !batch.is_empty() => {
                        self.progress.event(&PipelineEvent::Claimed { docs: batch.len() });
                        self.queue.extend(batch);
                        // `only_ids` are claimed in one go
                        self.exhausted = !self.options.only_ids.is_empty();
                    }
                    Ok(_) => {}
                    Err(e) => *lock(&self.failure) = Some(e),
                }
            }
            self.first_round = false;
        }
        self.queue.pop_front().map(|record| (record, self))
    }
}

/// Locks a mutex whose data stays valid if a holder panicked.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The documents of `lost` that have not finished. The renewal reads the in-flight set before its
/// write waits for the store's write lock; a document committed meanwhile is `processed` (or
/// `failed`) by the time the renewal runs, and leaves the in-flight set only after its commit
/// returns: it was done, not lost. Only a document that went back to `pending` or is processed by
/// another worker was taken away.
async fn not_finished(store: &dyn lightrag_ports::Store, lost: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(lost.len());
    for id in lost {
        match store.get_doc_status(&id).await {
            Ok(Some(row)) if matches!(row.status, DocStatus::Processed | DocStatus::Failed) => {}
            _ => out.push(id),
        }
    }
    out
}

fn still_in_flight(lost: Vec<String>, in_flight: &Mutex<HashSet<String>>) -> Vec<String> {
    if lost.is_empty() {
        return lost;
    }
    let current = in_flight.lock().unwrap_or_else(|e| e.into_inner());
    lost.into_iter().filter(|id| current.contains(id)).collect()
}
#[cfg(test)]
mod tests {
    use super::*;
    use lightrag_ports::prelude::*;

    #[test]
    fn ids_follow_lightrag_rules() {
        let sourced =
            InsertDoc { content: "x".into(), file_source: Some("/a/b/report.txt".into()), ..Default::default() };
        assert_eq!(document_id(&sourced), ids::mdhash_id("report.txt", "doc-"));
        let raw = InsertDoc { content: " text \r\n".into(), ..Default::default() };
        assert_eq!(document_id(&raw), ids::mdhash_id("text", "doc-"));
        let explicit = InsertDoc { id: Some("my-id".into()), ..raw };
        assert_eq!(document_id(&explicit), "my-id");
        assert_eq!(canonical_file_path(None), UNKNOWN_SOURCE);
        assert_eq!(canonical_file_path(Some("dir/x.md")), "x.md");
    }

    #[test]
    fn a_document_committed_during_lease_renewal_is_not_reported_lost() {
        // "b" committed (left the in-flight set) between the snapshot and the renewal
        let in_flight = Mutex::new(HashSet::from(["a".to_string(), "c".to_string()]));
        let lost = still_in_flight(vec!["b".into(), "c".into()], &in_flight);
        assert_eq!(lost, vec!["c".to_string()], "only a document still being processed was lost");
        assert!(still_in_flight(Vec::new(), &in_flight).is_empty());
    }

    fn row(id: &str, status: DocStatus, owner: Option<&str>) -> DocStatusRecord {
        DocStatusRecord {
            id: id.into(),
            status,
            file_path: format!("{id}.txt"),
            track_id: "t".into(),
            content_summary: String::new(),
            content_length: 0,
            content_hash: id.into(),
            chunks_count: None,
            chunks_list: Vec::new(),
            error_msg: None,
            metadata: serde_json::Map::new(),
            created_at: 1,
            updated_at: 1,
            lease_owner: owner.map(str::to_string),
            lease_until: owner.map(|_| i64::MAX),
        }
    }

    #[tokio::test]
    async fn a_document_committed_while_its_renewal_waited_for_the_write_lock_is_not_reported_lost() {
        let dir = tempfile::tempdir().unwrap();
        let store = lightrag_store_sqlite::SqliteStore::open(&dir.path().join("kb.sqlite")).unwrap();
        let rows = vec![
            row("done", DocStatus::Processed, None),
            row("gave-up", DocStatus::Failed, None),
            row("taken", DocStatus::Processing, Some("other-worker")),
            row("reset", DocStatus::Pending, None),
        ];
        store.apply(ChangeSet { doc_status: rows, ..Default::default() }).await.unwrap();
        let all = ["done", "gave-up", "taken", "reset", "gone"].map(String::from).to_vec();
        let lost = not_finished(&store, all).await;
        assert_eq!(lost, ["taken", "reset", "gone"].map(String::from).to_vec(), "finished documents were not lost");
    }

    #[test]
    fn only_local_missing_processes_are_dead() {
        assert!(!owner_is_dead("otherhost/1/abc", "me"));
        assert!(!owner_is_dead(&format!("me/{}/abc", std::process::id()), "me"));
        assert!(!owner_is_dead("me/1/abc", "me"), "pid 1 exists");
        assert!(owner_is_dead("me/4294967/abc", "me"));
        assert!(!owner_is_dead("garbage", "me"));
    }
}
