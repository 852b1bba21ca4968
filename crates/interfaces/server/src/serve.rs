//! Running the server on a socket: plain HTTP, or HTTPS when `SSL` is on, with graceful shutdown
//! (stop accepting, let in-flight requests finish, stop the pipelines between chunks).

use std::future::Future;
use std::time::Duration;

use lightrag_app::{ServerSettings, Settings};

use crate::errors::ServerError;
use crate::state::AppState;

/// How long shutdown waits for background jobs after the last request finished.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(60);

/// How long in-flight HTTPS requests may take to finish at shutdown.
const DRAIN_GRACE: Duration = Duration::from_secs(30);

/// Serves on `HOST:PORT` (HTTPS with `SSL=true`) until `shutdown` resolves: stops accepting, lets
/// in-flight requests finish, cancels the pipelines and waits for them (up to a minute).
pub async fn serve(settings: Settings, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<(), ServerError> {
    let addr = format!("{}:{}", settings.server.host, settings.server.port);
    let tls = tls_config(&settings.server).await?;
    for warning in crate::exposure::warnings(&settings.server) {
        tracing::warn!("{warning}");
        eprintln!("warning: {warning}");
    }
    let state = AppState::from_settings(settings)?;
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .map_err(|source| ServerError::Bind { addr: addr.clone(), source })?;
    let local = listener.local_addr().map(|a| a.to_string()).unwrap_or(addr.clone());
    if let Err(e) = state.warm_up().await {
        tracing::error!(error = %e.flat_message(), "the default workspace could not be opened");
    }
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!(address = %local, scheme, "LightRAG server listening");
    eprintln!("lightrag server listening on {scheme}://{local}");
    if crate::webui::available() {
        eprintln!("web UI: {scheme}://{local}{}/webui/", state.settings().server.api_prefix);
    }
    let stop = state.inner.shutdown.clone();
    let signal = async move {
        shutdown.await;
        tracing::info!("shutdown requested: cancelling pipelines, finishing in-flight requests");
        stop.cancel();
    };
    let router = crate::app(state.clone());
    let result = match tls {
        None => {
            axum::serve(listener, router.into_make_service_with_connect_info::<std::net::SocketAddr>())
                .with_graceful_shutdown(signal)
                .await
        }
        Some(config) => {
            let handle = axum_server::Handle::new();
            let drain = handle.clone();
            tokio::spawn(async move {
                signal.await;
                drain.graceful_shutdown(Some(DRAIN_GRACE));
            });
            let std_listener = listener.into_std().map_err(|source| ServerError::Bind { addr, source })?;
            match axum_server::from_tcp_rustls(std_listener, config) {
                Ok(server) => {
                    server
                        .handle(handle)
                        .serve(router.into_make_service_with_connect_info::<std::net::SocketAddr>())
                        .await
                }
                Err(e) => Err(e),
            }
        }
    };
    if !state.shutdown(SHUTDOWN_GRACE).await {
        tracing::warn!("background jobs did not stop in time; their documents resume on the next start");
    }
    result.map_err(ServerError::Serve)
}

/// The TLS configuration when `SSL` is on (the files were checked to be named by the settings).
async fn tls_config(server: &ServerSettings) -> Result<Option<axum_server::tls_rustls::RustlsConfig>, ServerError> {
    let (true, Some(cert), Some(key)) = (server.ssl, &server.ssl_certfile, &server.ssl_keyfile) else {
        return Ok(None);
    };
    // The ring provider, as for outgoing HTTPS; idempotent (an installed provider is kept).
    let _ = rustls::crypto::ring::default_provider().install_default();
    axum_server::tls_rustls::RustlsConfig::from_pem_file(cert, key).await.map(Some).map_err(|e| ServerError::Tls {
        cert: cert.display().to_string(),
        key: key.display().to_string(),
        reason: e.to_string(),
    })
}
