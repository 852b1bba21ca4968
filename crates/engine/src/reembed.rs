//! Re-embedding every stored vector with another embedding model, without re-extracting
//! (`lightrag reembed`): the stored texts of the vectors are embedded again and staged beside the
//! live vectors, batch by batch (each batch its own commit), then switched in with one commit
//! together with the recorded embedding identity (see [`lightrag_ports::reembed`]).
//!
//! * **No chat model** is called: each vector row keeps the exact text it was embedded from.
//! * **Queries keep working** on the old vectors (with the old model) until the switch.
//! * **Resumable**: a killed run loses at most the batches in flight; running it again with the
//!   same model and dimension embeds only what is not staged yet.
//! * Records written while it runs (an insert with the old model) are embedded in a further round
//!   before the switch.
//!
//! It works on a bare store and embedder, not an [`Engine`](crate::Engine), because the engine
//! refuses to open a store built with another model — the very state this repairs.

use std::time::Duration;

use futures::future::try_join_all;
use lightrag_ports::{
    EmbedError, Embedder, EmbeddingIdentity, ReembedProgress, StagedVector, Store, SwitchOutcome, TextKind, VectorKind,
};

use crate::error::{EngineError, Result};

/// Rounds of embedding what was written meanwhile before giving up on the switch.
const MAX_ROUNDS: usize = 5;

/// Attempts per batch (transient provider errors are retried with a growing pause).
const ATTEMPTS: u32 = 3;

/// How the re-embedding runs.
#[derive(Debug, Clone, Copy)]
pub struct ReembedOptions {
    /// Texts per embedding call (`EMBEDDING_BATCH_NUM`).
    pub batch: usize,
    /// Embedding calls in flight at once (`EMBEDDING_FUNC_MAX_ASYNC`).
    pub concurrency: usize,
}

impl Default for ReembedOptions {
    fn default() -> Self {
        ReembedOptions { batch: 10, concurrency: 8 }
    }
}

/// What a re-embedding did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReembedReport {
    /// The identity now recorded (the embedder's).
    pub identity: EmbeddingIdentity,
    /// Vectors already staged by an earlier, interrupted run (not embedded again).
    pub resumed: usize,
    /// Vectors embedded by this run.
    pub embedded: usize,
    /// Vectors switched in.
    pub switched: usize,
}

/// Progress reports: the state when the run starts, then after each staged batch.
pub trait ReembedObserver: Send + Sync {
    /// `done` of `total` vectors have their new vector.
    fn progress(&self, done: usize, total: usize);
}

impl ReembedObserver for () {
    fn progress(&self, _: usize, _: usize) {}
}

/// Re-embeds every vector of `store` with `embedder` and switches them in (see the module docs).
pub async fn reembed(
    store: &dyn Store,
    embedder: &dyn Embedder,
    options: ReembedOptions,
    observer: &dyn ReembedObserver,
) -> Result<ReembedReport> {
    let identity = embedder.identity();
    let start: ReembedProgress = store.reembed_begin(&identity).await?;
    let total = start.staged + start.pending;
    tracing::info!(
        model = %identity.model, dim = identity.dim, staged = start.staged, pending = start.pending,
        "re-embedding the stored vectors"
    );
    observer.progress(start.staged, total);
    let mut done = start.staged;
    let mut embedded = 0;
    for _ in 0..MAX_ROUNDS {
        for kind in VectorKind::ALL {
            let n = embed_set(store, embedder, kind, options, &mut |staged| {
                done += staged;
                observer.progress(done, total.max(done));
            })
            .await?;
            embedded += n;
        }
        match store.reembed_switch().await? {
            SwitchOutcome::Switched { vectors } => {
                tracing::info!(vectors, model = %identity.model, dim = identity.dim, "re-embedded vectors switched in");
                return Ok(ReembedReport { identity, resumed: start.staged, embedded, switched: vectors });
            }
            SwitchOutcome::Pending(n) => {
                tracing::info!(pending = n, "records were written during the re-embedding; embedding them too");
            }
        }
    }
    Err(EngineError::Invalid(format!(
        "the knowledge base kept changing during the re-embedding ({MAX_ROUNDS} rounds); stop the processes \
         indexing into it and run `lightrag reembed` again (what is embedded so far is kept)"
    )))
}

/// Embeds and stages every pending vector of one set; returns how many.
async fn embed_set(
    store: &dyn Store,
    embedder: &dyn Embedder,
    kind: VectorKind,
    options: ReembedOptions,
    on_staged: &mut (dyn FnMut(usize) + Send),
) -> Result<usize> {
    let batch = options.batch.max(1);
    let page = batch.saturating_mul(options.concurrency.max(1));
    let text_kind = TextKind::of(kind);
    let mut after: Option<String> = None;
    let mut count = 0;
    loop {
        let pending = store.reembed_pending(kind, after.as_deref(), page).await?;
        let Some(last) = pending.last() else { return Ok(count) };
        after = Some(last.key.clone());
        let calls = pending.chunks(batch).map(|part| async move {
            let texts: Vec<String> = part.iter().map(|p| p.content.clone()).collect();
            let vectors = embed_with_retry(embedder, &texts, text_kind).await?;
            if vectors.len() != part.len() {
                return Err(EngineError::Embed(EmbedError::InvalidResponse(format!(
                    "asked for {} vectors, got {}",
                    part.len(),
                    vectors.len()
                ))));
            }
            let rows: Vec<StagedVector> = part
                .iter()
                .zip(vectors)
                .map(|(p, vector)| StagedVector { key: p.key.clone(), content: p.content.clone(), vector })
                .collect();
            store.reembed_stage(kind, rows).await?;
            Ok::<usize, EngineError>(part.len())
        });
        let staged: usize = try_join_all(calls).await?.into_iter().sum();
        count += staged;
        on_staged(staged);
    }
}

async fn embed_with_retry(embedder: &dyn Embedder, texts: &[String], kind: TextKind) -> Result<Vec<Vec<f32>>> {
    let mut attempt = 1;
    loop {
        match embedder.embed_as(texts, kind).await {
            Ok(v) => return Ok(v),
            Err(e) if attempt < ATTEMPTS && e.is_retryable() => {
                tracing::warn!(attempt, "embedding call failed, retrying: {e}");
                tokio::time::sleep(Duration::from_secs(u64::from(attempt))).await;
                attempt += 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
}
