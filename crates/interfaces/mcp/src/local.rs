//! [`LocalHost`]: one knowledge base opened by this process (`lightrag mcp`). Inserted documents
//! are indexed by a background task — one run at a time, each taking every pending document — so
//! a tool call returns as soon as its documents are stored; deletions wait for the run in
//! progress. Documents are admitted as over HTTP (the tools choose, [`crate::tools`]). [`LocalHost::shutdown`] stops indexing between chunks; what was left is resumed by
//! the next `lightrag mcp`, `lightrag process` or server on the knowledge base.

use std::sync::Arc;
use std::time::Duration;

use lightrag_application::DocumentReader;
use lightrag_application::delete::{self, BatchDeletionReport, DeleteOptions, NoDeletionProgress};
use lightrag_application::insert::{self, InsertOptions, InsertReport};
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::{Host, HostError, KnowledgeBase, LocalFiles};

/// A host serving one knowledge base from this process, reading local files.
pub struct LocalHost {
    kb: Arc<LocalKb>,
    files: LocalFiles,
}

struct LocalKb {
    engine: Engine,
    reader: DocumentReader,
    /// Held by an indexing run and by deletions.
    indexing: Arc<tokio::sync::Mutex<()>>,
    cancel: CancellationToken,
    tasks: TaskTracker,
}

impl LocalHost {
    /// A host over `engine` whose `insert_file` reads `files` with `reader`. Documents left
    /// pending by an earlier run are indexed at once.
    pub fn new(engine: Engine, files: LocalFiles, reader: DocumentReader) -> Self {
        let kb = Arc::new(LocalKb {
            engine,
            reader,
            indexing: Arc::new(tokio::sync::Mutex::new(())),
            cancel: CancellationToken::new(),
            tasks: TaskTracker::new(),
        });
        kb.index_in_background();
        LocalHost { kb, files }
    }

    /// Stops indexing (between chunks) and waits up to `grace` for the run to end. Returns
    /// whether it ended.
    pub async fn shutdown(&self, grace: Duration) -> bool {
        self.kb.cancel.cancel();
        self.kb.tasks.close();
        let ended = tokio::time::timeout(grace, self.kb.tasks.wait()).await.is_ok();
        // the usage of the session's queries and indexing is kept with the knowledge base
        if let Err(e) = self.kb.engine.flush_usage().await {
            tracing::warn!("cannot save the usage counters: {e}");
        }
        ended
    }
}

impl LocalKb {
    fn index_in_background(&self) {
        let engine = self.engine.clone();
        let lock = self.indexing.clone();
        let cancel = self.cancel.clone();
        self.tasks.spawn(async move {
            let _running = lock.lock().await;
            if cancel.is_cancelled() {
                return;
            }
            match engine.process(&ProcessOptions::default(), Arc::new(NoProgress), &cancel).await {
                Ok(report) => {
                    for (id, error) in &report.failed {
                        tracing::warn!(doc_id = %id, "indexing failed: {error}");
                    }
                    tracing::info!(
                        processed = report.processed.len(),
                        failed = report.failed.len(),
                        "indexing run done"
                    );
                }
                Err(e) => tracing::error!("indexing stopped: {e}"),
            }
        });
    }
}

#[async_trait::async_trait]
impl KnowledgeBase for LocalKb {
    fn engine(&self) -> &Engine {
        &self.engine
    }

    fn reader(&self) -> &DocumentReader {
        &self.reader
    }

    async fn insert(&self, docs: Vec<InsertDoc>, options: InsertOptions) -> Result<InsertReport, HostError> {
        if self.cancel.is_cancelled() {
            return Err(HostError::Unavailable("the server is stopping; start it again to insert".into()));
        }
        let report = insert::insert(&self.engine, docs, options).await?;
        if report.written() > 0 {
            self.index_in_background();
        }
        Ok(report)
    }

    async fn delete(&self, ids: &[String], options: DeleteOptions) -> Result<BatchDeletionReport, HostError> {
        // no deletion while a run indexes: the run is waited for
        let _no_indexing = self.indexing.lock().await;
        Ok(delete::delete_many(&self.engine, ids, options, &NoDeletionProgress, &self.cancel).await?)
    }
}

#[async_trait::async_trait]
impl Host for LocalHost {
    async fn open(&self, _http: Option<&http::request::Parts>) -> Result<Arc<dyn KnowledgeBase>, HostError> {
        Ok(self.kb.clone())
    }

    fn local_files(&self) -> Option<&LocalFiles> {
        Some(&self.files)
    }
}
