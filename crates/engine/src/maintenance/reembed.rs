//! Re-embedding every stored vector with another embedding model, without re-extracting
//! (`lightrag reembed`): the stored texts of the vectors are embedded again and staged beside the
//! live vectors, page by page (each page its own commit), then switched in with one commit
//! together with the recorded embedding identity (see [`lightrag_ports::reembed`]).
//!
//! * **No chat model** is called: each vector row keeps the exact text it was embedded from.
//! * **Queries keep working** on the old vectors (with the old model) until the switch.
//! * **Resumable**: a killed run loses at most the page in flight; running it again with the
//!   same model and dimension embeds only what is not staged yet.
//! * Records written while it runs (an insert with the old model) are embedded in a further round
//!   before the switch.
//!
//! It works on a bare store and a [`Gateway`] over the new embedder (so `EMBEDDING_TOKEN_LIMIT`,
//! batching, concurrency, timeouts, retries and the usage ledger apply as when indexing), not on
//! an [`Engine`](crate::Engine): the engine refuses to open a store built with another model —
//! the very state this repairs.

use lightrag_ports::{EmbeddingIdentity, ReembedProgress, StagedVector, Store, SwitchOutcome, TextKind, VectorKind};

use crate::error::{EngineError, Result};
use crate::providers::gateway::{EmbedCall, Gateway};
use crate::providers::limiter::Priority;

/// Rounds of embedding what was written meanwhile before giving up on the switch.
const MAX_ROUNDS: usize = 5;

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

/// Progress reports: the state when the run starts, then after each staged page.
pub trait ReembedObserver: Send + Sync {
    /// `done` of `total` vectors have their new vector.
    fn progress(&self, done: usize, total: usize);
}

impl ReembedObserver for () {
    fn progress(&self, _: usize, _: usize) {}
}

/// Re-embeds every vector of `store` with the gateway's embedder and switches them in (see the
/// module docs). The gateway's embedding policy applies (`EMBEDDING_BATCH_NUM`,
/// `EMBEDDING_FUNC_MAX_ASYNC`, `EMBEDDING_TOKEN_LIMIT`, timeout, retries); its usage is added to
/// the ledger at the end.
///
/// `page` texts are read, embedded and staged per commit (the caller passes `EMBEDDING_BATCH_NUM`
/// × `EMBEDDING_FUNC_MAX_ASYNC`, so that a page keeps every embedding slot busy once).
pub async fn reembed(
    store: &dyn Store,
    gateway: &Gateway,
    page: usize,
    observer: &dyn ReembedObserver,
) -> Result<ReembedReport> {
    let page = page.max(1);
    let identity = gateway.embedding_identity();
    let start: ReembedProgress = store.reembed_begin(&identity).await?;
    let total = start.staged + start.pending;
    tracing::info!(
        model = %identity.model, dim = identity.dim, staged = start.staged, pending = start.pending,
        "re-embedding the stored vectors"
    );
    observer.progress(start.staged, total);
    let mut done = start.staged;
    let mut embedded = 0;
    let outcome = async {
        for _ in 0..MAX_ROUNDS {
            for kind in VectorKind::ALL {
                embedded += embed_set(store, gateway, kind, page, &mut |staged| {
                    done += staged;
                    observer.progress(done, total.max(done));
                })
                .await?;
            }
            match store.reembed_switch().await? {
                SwitchOutcome::Switched { vectors } => return Ok(Some(vectors)),
                SwitchOutcome::Pending(n) => {
                    tracing::info!(pending = n, "records were written during the re-embedding; embedding them too");
                }
            }
        }
        Ok::<_, EngineError>(None)
    }
    .await;
    if let Err(e) = gateway.flush_usage().await {
        tracing::warn!("cannot record the embedding usage of the re-embedding: {e}");
    }
    match outcome? {
        Some(vectors) => {
            tracing::info!(vectors, model = %identity.model, dim = identity.dim, "re-embedded vectors switched in");
            Ok(ReembedReport { identity, resumed: start.staged, embedded, switched: vectors })
        }
        None => Err(EngineError::Invalid(format!(
            "the knowledge base kept changing during the re-embedding ({MAX_ROUNDS} rounds); stop the processes \
             indexing into it and run `lightrag reembed` again (what is embedded so far is kept)"
        ))),
    }
}

/// Embeds and stages every pending vector of one set, a page per commit; returns how many.
async fn embed_set(
    store: &dyn Store,
    gateway: &Gateway,
    kind: VectorKind,
    page: usize,
    on_staged: &mut (dyn FnMut(usize) + Send),
) -> Result<usize> {
    let text_kind = TextKind::of(kind);
    let mut after: Option<String> = None;
    let mut count = 0;
    loop {
        let pending = store.reembed_pending(kind, after.as_deref(), page).await?;
        let Some(last) = pending.last() else { return Ok(count) };
        after = Some(last.key.clone());
        let texts: Vec<String> = pending.iter().map(|p| p.content.clone()).collect();
        let vectors = gateway.embed(EmbedCall::new(&texts, text_kind, Priority::Extract)).await?;
        let rows: Vec<StagedVector> = pending
            .into_iter()
            .zip(vectors)
            .map(|(p, vector)| StagedVector { key: p.key, content: p.content, vector })
            .collect();
        let n = rows.len();
        store.reembed_stage(kind, rows).await?;
        count += n;
        on_staged(n);
    }
}
