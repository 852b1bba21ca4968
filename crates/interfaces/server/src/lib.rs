//! # lightrag-server
//!
//! The LightRAG-compatible REST server (`lightrag serve`): document, query and graph
//! (read and edit) routes with LightRAG's paths, JSON shapes and status codes; the `LIGHTRAG-WORKSPACE`
//! header on every route; a background indexing pipeline per workspace; CORS and the upload size
//! limit; and LightRAG's authentication ([`auth`]):
//!
//! * `X-API-Key` when `LIGHTRAG_API_KEY` is set;
//! * password login when `AUTH_ACCOUNTS` is set (`POST /login` → `Authorization: Bearer <jwt>`,
//!   signed with `TOKEN_SECRET`), or guest tokens from `GET /auth-status` when it is not;
//! * `WHITELIST_PATHS` (default `/health,/api/*`) open without credentials;
//! * tokens near expiry renewed through the `X-New-Token` response header (`TOKEN_AUTO_RENEW`).
//!
//! * [`app`] builds the router over an [`AppState`] (testable without a socket).
//! * [`openapi`]: `GET /openapi.json` generated from the handlers' annotations, Swagger UI at
//!   `/docs` (assets compiled in).
//! * [`webui`]: the web UI compiled in from `webui/dist` at `/webui/`; `GET /` → `/webui/`.
//! * [`metrics`]: `GET /metrics` (Prometheus text) and one structured log event per request.
//! * [`serve`] binds `HOST:PORT`, serves until `shutdown` resolves, then stops the pipelines
//!   (between chunks; unfinished documents resume on the next start).

pub mod absent;
pub mod auth;
pub mod errors;
pub mod exposure;
pub mod metrics;
pub mod openapi;
pub mod pipeline;
pub mod prefix;
pub mod redoc;
pub mod routes;
pub mod schemas;
mod serve;
pub mod state;
pub mod trace_schemas;
pub mod webui;
pub mod workspace;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, HeaderValue};
use tower_http::cors::{AllowHeaders, AllowMethods, AllowOrigin, CorsLayer};

pub use errors::{ApiError, ServerError};
pub use serve::serve;
pub use state::AppState;

/// Version reported as `api_version`.
pub const API_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Slack over `MAX_UPLOAD_SIZE` for multipart framing, so an over-size file is reported by the
/// upload route itself (413 with a message).
const BODY_SLACK: usize = 64 * 1024;

/// `/docs`, `/openapi.json` and `/redoc`, unless `ENABLE_API_DOCS=false`.
fn docs_routes(state: &AppState, prefix: &str) -> Router<AppState> {
    if !state.settings().server.enable_api_docs {
        return Router::new();
    }
    Router::new().merge(openapi::router(prefix)).merge(redoc::router(prefix))
}

/// The router with every route, authentication, request metrics and logs, CORS and the body limit.
pub fn app(state: AppState) -> Router {
    let server = &state.settings().server;
    // MAX_UPLOAD_SIZE=0 (or None): no limit, as in LightRAG
    let limit = server
        .max_upload_size
        .map_or(usize::MAX, |max| usize::try_from(max).unwrap_or(usize::MAX).saturating_add(BODY_SLACK));
    let cors = cors_layer(&server.cors_origins);
    let prefix = server.api_prefix.clone();
    let router = Router::new()
        .merge(routes::health::router())
        .merge(routes::ui_customization::router())
        .merge(routes::documents::router())
        .merge(routes::upload::router())
        .merge(routes::query::router())
        .merge(routes::graph::router())
        .merge(routes::graph_edit::router())
        .merge(routes::provenance::router())
        .merge(routes::workspaces::router())
        .merge(routes::admin::router())
        .merge(routes::login::router())
        .merge(routes::ollama::router())
        .merge(docs_routes(&state, &prefix))
        .merge(webui::router(&state))
        .merge(metrics::router())
        .layer(axum::middleware::from_fn_with_state(state.clone(), auth::authenticate))
        .layer(axum::middleware::from_fn_with_state(state.clone(), metrics::track))
        .layer(DefaultBodyLimit::max(limit))
        .layer(cors)
        .with_state(state);
    prefix::wrap(router, &prefix)
}

/// `CORS_ORIGINS`: listed origins get credentialed CORS (LightRAG's behaviour); `*` (the
/// default) answers `Access-Control-Allow-Origin: *` without credentials — echoing any origin
/// with credentials allowed would let every web page use a visitor's session with this server.
/// The API authenticates by header (`Authorization`, `X-API-Key`), which `*` still allows.
fn cors_layer(origins: &[String]) -> CorsLayer {
    let any = origins.iter().any(|o| o == "*");
    let allow_origin = if any {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_credentials(!any)
        .allow_methods(AllowMethods::mirror_request())
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([HeaderName::from_static("x-new-token"), HeaderName::from_static("x-request-id")])
}
