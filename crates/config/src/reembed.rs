//! Re-embedding a knowledge base with the configured embedding model (`lightrag reembed`, and
//! `REEMBED_ON_MODEL_CHANGE=true` at start-up); the work itself is
//! [`lightrag_engine::maintenance::reembed`].

use std::sync::Arc;

use lightrag_engine::EngineError;
use lightrag_engine::maintenance::reembed::{ReembedObserver, ReembedReport};
use lightrag_engine::providers::gateway::Gateway;
use lightrag_ports::Store;

use crate::error::AppError;
use crate::settings::Settings;
use crate::wiring::{Providers, open_configured_store};

/// Texts per commit: one embedding batch for each slot of the model.
fn page(settings: &Settings) -> usize {
    settings.engine.embedding.batch_num.max(1).saturating_mul(settings.engine.embedding.max_async.max(1))
}

/// A gateway over the configured embedder only (no chat model is called by a re-embedding).
fn gateway(settings: &Settings, providers: &Providers, store: Arc<dyn Store>) -> Gateway {
    Gateway::new(
        None,
        Vec::new(),
        providers.embedder.clone(),
        store,
        providers.tokenizer.clone(),
        settings.engine.llm.clone(),
        settings.engine.embedding.clone(),
        providers.limits.clone(),
    )
}

/// Re-embeds `store` with the configured embedder (resuming an interrupted run) and switches.
async fn run(
    settings: &Settings,
    providers: &Providers,
    store: Arc<dyn Store>,
    observer: &dyn ReembedObserver,
) -> Result<ReembedReport, AppError> {
    let gateway = gateway(settings, providers, store.clone());
    Ok(lightrag_engine::maintenance::reembed::reembed(store.as_ref(), &gateway, page(settings), observer).await?)
}

/// Re-embeds every vector of the configured knowledge base with the configured embedding model
/// (resuming an interrupted run) and switches them in.
pub async fn reembed(
    settings: &Settings,
    providers: &Providers,
    observer: &dyn ReembedObserver,
) -> Result<ReembedReport, AppError> {
    let store = open_configured_store(settings, providers).await?;
    run(settings, providers, store, observer).await
}

/// Re-embeds `store` when it records another embedding model or dimension than `embedder`'s
/// (`REEMBED_ON_MODEL_CHANGE=true`); does nothing on a new store or a matching one.
pub(crate) async fn reembed_if_changed(
    settings: &Settings,
    providers: &Providers,
    store: &Arc<dyn Store>,
) -> Result<(), AppError> {
    let configured = providers.embedder.identity();
    let stored = store.embedding_identity().await.map_err(EngineError::from)?;
    let Some(stored) = stored.filter(|s| *s != configured) else { return Ok(()) };
    tracing::warn!(
        from_model = %stored.model, from_dim = stored.dim, to_model = %configured.model, to_dim = configured.dim,
        "the embedding model changed (REEMBED_ON_MODEL_CHANGE=true): re-embedding the knowledge base before starting"
    );
    let report = run(settings, providers, store.clone(), &()).await?;
    tracing::info!(vectors = report.switched, embedded = report.embedded, "re-embedding done");
    Ok(())
}
