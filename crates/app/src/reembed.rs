//! Re-embedding a knowledge base with the configured embedding model (`lightrag reembed`, and
//! `REEMBED_ON_MODEL_CHANGE=true` at start-up); the work itself is
//! [`lightrag_engine::reembed`].

use lightrag_engine::EngineError;
use lightrag_engine::reembed::{ReembedObserver, ReembedOptions, ReembedReport};
use lightrag_ports::{Embedder, Store};

use crate::error::AppError;
use crate::settings::Settings;
use crate::wiring::{Providers, open_configured_store};

/// The batch size and concurrency of the configured embedding settings.
pub fn options(settings: &Settings) -> ReembedOptions {
    ReembedOptions { batch: settings.engine.embedding.batch_num, concurrency: settings.engine.embedding.max_async }
}

/// Re-embeds every vector of the configured knowledge base with the configured embedding model
/// (resuming an interrupted run) and switches them in.
pub async fn reembed(
    settings: &Settings,
    providers: &Providers,
    observer: &dyn ReembedObserver,
) -> Result<ReembedReport, AppError> {
    let store = open_configured_store(settings, providers).await?;
    let report =
        lightrag_engine::reembed::reembed(store.as_ref(), providers.embedder.as_ref(), options(settings), observer)
            .await?;
    Ok(report)
}

/// Re-embeds `store` when it records another embedding model or dimension than `embedder`'s
/// (`REEMBED_ON_MODEL_CHANGE=true`); does nothing on a new store or a matching one.
pub(crate) async fn reembed_if_changed(
    settings: &Settings,
    store: &dyn Store,
    embedder: &dyn Embedder,
) -> Result<(), AppError> {
    let configured = embedder.identity();
    let stored = store.embedding_identity().await.map_err(EngineError::from)?;
    let Some(stored) = stored.filter(|s| *s != configured) else { return Ok(()) };
    tracing::warn!(
        from_model = %stored.model, from_dim = stored.dim, to_model = %configured.model, to_dim = configured.dim,
        "the embedding model changed (REEMBED_ON_MODEL_CHANGE=true): re-embedding the knowledge base before starting"
    );
    let report = lightrag_engine::reembed::reembed(store, embedder, options(settings), &()).await?;
    tracing::info!(vectors = report.switched, embedded = report.embedded, "re-embedding done");
    Ok(())
}
