//! # lightrag-server
//!
//! The LightRAG-compatible REST server (`lightrag serve`), phase 1: document, query and graph
//! (read and edit) routes with LightRAG's paths, JSON shapes and status codes; the `LIGHTRAG-WORKSPACE`
//! header on every route; a background indexing pipeline per workspace; `X-API-Key`
//! authentication with `WHITELIST_PATHS`; CORS and the upload size limit.
//!
//! * [`app`] builds the router over an [`AppState`] (testable without a socket).
//! * [`openapi`]: `GET /openapi.json` generated from the handlers' annotations, Swagger UI at
//!   `/docs` (assets compiled in), `GET /` → `/docs`.
//! * [`metrics`]: `GET /metrics` (Prometheus text) and one structured log event per request.
//! * [`serve`] binds `HOST:PORT`, serves until `shutdown` resolves, then stops the pipelines
//!   (between chunks; unfinished documents resume on the next start).

pub mod auth;
pub mod errors;
pub mod metrics;
pub mod openapi;
pub mod pipeline;
pub mod routes;
pub mod schemas;
pub mod state;
pub mod workspace;

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, HeaderValue};
use lightrag_app::Settings;
use tower_http::cors::{AllowHeaders, AllowMethods, AllowOrigin, CorsLayer};

pub use errors::{ApiError, ServerError};
pub use state::AppState;

/// Version reported as `api_version`.
pub const API_VERSION: &str = env!("CARGO_PKG_VERSION");

/// How long shutdown waits for background jobs after the last request finished.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(60);

/// Slack over `MAX_UPLOAD_SIZE` for multipart framing, so an over-size file is reported by the
/// upload route itself (413 with a message).
const BODY_SLACK: usize = 64 * 1024;

/// The router with every route, authentication, request metrics and logs, CORS and the body limit.
pub fn app(state: AppState) -> Router {
    let server = &state.settings().server;
    let limit = usize::try_from(server.max_upload_size).unwrap_or(usize::MAX).saturating_add(BODY_SLACK);
    let cors = cors_layer(&server.cors_origins);
    Router::new()
        .merge(routes::health::router())
        .merge(routes::documents::router())
        .merge(routes::upload::router())
        .merge(routes::query::router())
        .merge(routes::graph::router())
        .merge(routes::graph_edit::router())
        .merge(routes::login::router())
        .merge(routes::ollama::router())
        .merge(openapi::router())
        .merge(metrics::router())
        .layer(axum::middleware::from_fn_with_state(state.clone(), auth::require_api_key))
        .layer(axum::middleware::from_fn_with_state(state.clone(), metrics::track))
        .layer(DefaultBodyLimit::max(limit))
        .layer(cors)
        .with_state(state)
}

fn cors_layer(origins: &[String]) -> CorsLayer {
    let allow_origin = if origins.iter().any(|o| o == "*") {
        AllowOrigin::mirror_request()
    } else {
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_credentials(true)
        .allow_methods(AllowMethods::mirror_request())
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([HeaderName::from_static("x-new-token")])
}

/// Serves on `HOST:PORT` until `shutdown` resolves: stops accepting, lets in-flight requests
/// finish, cancels the pipelines and waits for them (up to a minute).
pub async fn serve(settings: Settings, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<(), ServerError> {
    let addr = format!("{}:{}", settings.server.host, settings.server.port);
    let state = AppState::from_settings(settings)?;
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .map_err(|source| ServerError::Bind { addr: addr.clone(), source })?;
    let local = listener.local_addr().map(|a| a.to_string()).unwrap_or(addr);
    if let Err(e) = state.warm_up().await {
        tracing::error!(error = %e.flat_message(), "the default workspace could not be opened");
    }
    tracing::info!(address = %local, "LightRAG server listening");
    eprintln!("lightrag server listening on http://{local}");
    let stop = state.inner.shutdown.clone();
    let signal = async move {
        shutdown.await;
        tracing::info!("shutdown requested: cancelling pipelines, finishing in-flight requests");
        stop.cancel();
    };
    let result = axum::serve(listener, app(state.clone())).with_graceful_shutdown(signal).await;
    if !state.shutdown(SHUTDOWN_GRACE).await {
        tracing::warn!("background jobs did not stop in time; their documents resume on the next start");
    }
    result.map_err(ServerError::Serve)
}
