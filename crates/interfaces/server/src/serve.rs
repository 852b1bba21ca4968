//! Running the server on a socket: plain HTTP, or HTTPS when `SSL` is on, with the connection
//! bounds of [`crate::connections`] and graceful shutdown (stop accepting, let in-flight requests
//! finish, stop the pipelines between chunks).

use std::future::Future;
use std::time::Duration;

use lightrag_config::Settings;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::connections::{self, ConnectionLimits};
use crate::errors::ServerError;
use crate::state::AppState;

/// How long shutdown waits for background jobs after the last request finished.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(60);

/// How long in-flight requests may take to finish at shutdown.
const DRAIN_GRACE: Duration = Duration::from_secs(30);

/// Serves on `HOST:PORT` (HTTPS with `SSL=true`) until `shutdown` resolves: stops accepting, lets
/// in-flight requests finish, cancels the pipelines and waits for them (up to a minute).
pub async fn serve(settings: Settings, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<(), ServerError> {
    let addr = format!("{}:{}", settings.server.host, settings.server.port);
    let listener = TcpListener::bind(&addr).await.map_err(|source| ServerError::Bind { addr, source })?;
    serve_on(listener, settings, shutdown).await
}

/// [`serve`] on a socket already bound (tests bind `127.0.0.1:0`; `HOST` and `PORT` are not read).
pub async fn serve_on(
    listener: TcpListener,
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let tls = crate::tls::acceptor(&settings.server)?;
    for warning in crate::exposure::warnings(&settings.server) {
        tracing::warn!("{warning}");
        eprintln!("warning: {warning}");
    }
    let open_files = connections::raise_open_file_limit();
    let limits = ConnectionLimits::of(&settings.server.limits, open_files);
    let state = AppState::from_settings(settings)?;
    let local = listener.local_addr().map_err(ServerError::Serve)?;
    if let Err(e) = state.warm_up().await {
        tracing::error!(error = %e.flat_message(), "the default workspace could not be opened");
    }
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!(address = %local, scheme, "LightRAG server listening");
    eprintln!("lightrag server listening on {scheme}://{local}");
    if crate::webui::available() {
        eprintln!("web UI: {scheme}://{local}{}/webui/", state.settings().server.api_prefix);
    }
    // the audit log keeps AUDIT_RETENTION_DAYS: pruned now and daily
    state.inner.tracker.spawn(crate::access::audit::prune_daily(state.clone(), state.inner.shutdown.child_token()));
    let pipelines = state.inner.shutdown.clone();
    let stop = CancellationToken::new();
    let stop_accepting = stop.clone();
    tokio::spawn(async move {
        shutdown.await;
        tracing::info!("shutdown requested: cancelling pipelines, finishing in-flight requests");
        pipelines.cancel();
        stop_accepting.cancel();
    });
    let router = crate::app(state.clone());
    connections::serve(listener, tls, router, limits, stop, DRAIN_GRACE).await;
    if !state.shutdown(SHUTDOWN_GRACE).await {
        tracing::warn!("background jobs did not stop in time; their documents resume on the next start");
    }
    Ok(())
}
