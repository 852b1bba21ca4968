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
//! * [`access`]: who may do what — the caller of each request (master key, keys and managed
//!   accounts of the access store, logins, guests), roles per workspace applied from one route
//!   table before any handler runs, the audit log and the owners' `/admin/…` routes.
//! * [`app`] builds the router over an [`AppState`] (testable without a socket).
//! * [`openapi`]: `GET /openapi.json` generated from the handlers' annotations, Swagger UI at
//!   `/docs` (assets compiled in).
//! * [`webui`]: the web UI compiled in from `webui/dist` at `/webui/`; `GET /` → `/webui/`.
//! * [`limits`]: the body limit of each route, `TIMEOUT` (504) and `MAX_CONCURRENT_REQUESTS` (503).
//! * [`mcp`]: the MCP server over streamable HTTP at `/mcp` (same authentication and workspace
//!   header as the other routes); [`mcp_admission`] caps its sessions and event streams.
//! * [`metrics`]: `GET /metrics` (Prometheus text) and one structured log event per request.
//! * [`serve`] binds `HOST:PORT`, serves until `shutdown` resolves, then stops the pipelines
//!   (between chunks; unfinished documents resume on the next start).

pub mod absent;
pub mod access;
pub mod app_errors;
pub mod auth;
mod connections;
pub mod errors;
pub mod exposure;
mod guarded_body;
pub mod json_body;
pub mod limits;
pub mod mcp;
pub mod mcp_admission;
pub mod metrics;
pub mod openapi;
pub mod pipeline;
pub mod prefix;
pub mod redoc;
pub mod routes;
pub mod schemas;
mod serve;
pub mod state;
mod tls;
pub mod trace_schemas;
pub mod webui;
pub mod workspace;

use std::time::Duration;

use axum::Router;
use axum::http::{HeaderName, HeaderValue};
use limits::{BodyLimit, with_body_limit};
use tower_http::cors::{AllowHeaders, AllowMethods, AllowOrigin, CorsLayer};

pub use errors::{ApiError, ServerError};
pub use serve::{serve, serve_on};
pub use state::AppState;

/// Version reported as `api_version`.
pub const API_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Slack over `MAX_UPLOAD_SIZE` for multipart framing (and a text's JSON around it), so an
/// over-size file is reported by the upload route itself (413 with a message).
const BODY_SLACK: usize = 64 * 1024;

/// `/docs`, `/openapi.json` and `/redoc`, unless `ENABLE_API_DOCS=false`.
fn docs_routes(state: &AppState, prefix: &str) -> Router<AppState> {
    if !state.settings().server.enable_api_docs {
        return Router::new();
    }
    Router::new().merge(openapi::router(prefix)).merge(redoc::router(prefix))
}

/// The router with every route, authentication, request metrics and logs, CORS and the bounds
/// of [`limits`]: `/health` is bounded by its body limit only (a monitor must see a live server
/// under load); uploads by the concurrency limit and their own idle timeout; `/mcp` by
/// [`mcp_admission`] and `TIMEOUT`; every other route by the concurrency limit and `TIMEOUT`.
pub fn app(state: AppState) -> Router {
    let server = &state.settings().server;
    let json = BodyLimit::json(server.max_json_body_size);
    let documents = BodyLimit::documents(server.max_upload_size);
    let timeout = Duration::from_secs(server.limits.timeout_secs);
    let cors = cors_layer(&server.cors_origins);
    let prefix = server.api_prefix.clone();
    let small_bodies = Router::new()
        .merge(routes::ui_customization::router())
        .merge(routes::documents::router())
        .merge(routes::upload::scan_router())
        .merge(routes::query::router())
        .merge(routes::graph::router())
        .merge(routes::graph_edit::router())
        .merge(routes::provenance::router())
        .merge(routes::workspaces::router())
        .merge(routes::admin::router())
        .merge(access::admin_routes::router())
        .merge(routes::login::router())
        .merge(routes::ollama::router())
        .merge(docs_routes(&state, &prefix))
        .merge(webui::router(&state))
        .merge(metrics::router());
    let timed = Router::new()
        .merge(with_body_limit(small_bodies, json, 0))
        .merge(with_body_limit(routes::documents::text_router(), documents, BODY_SLACK))
        .merge(with_body_limit(routes::estimate::router(), documents, BODY_SLACK))
        .layer(axum::middleware::from_fn_with_state(timeout, limits::deadline));
    let counted = timed
        .merge(with_body_limit(routes::upload::router(), documents, BODY_SLACK))
        .layer(axum::middleware::from_fn_with_state(state.clone(), limits::admit));
    // `/mcp` admits its own requests: an event stream lives as long as the client wants and takes
    // no request slot; it is bounded by the MCP caps instead
    let mcp = with_body_limit(mcp::router(&state), json, 0)
        .layer(axum::middleware::from_fn_with_state(timeout, limits::deadline));
    let router = counted
        .merge(mcp)
        .merge(with_body_limit(routes::health::router(), json, 0))
        .layer(axum::middleware::from_fn_with_state(state.clone(), auth::authenticate))
        .layer(axum::middleware::from_fn_with_state(state.clone(), access::audit::record))
        .layer(axum::middleware::from_fn_with_state(state.clone(), metrics::track))
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
        .expose_headers([
            HeaderName::from_static("x-new-token"),
            HeaderName::from_static("x-request-id"),
            HeaderName::from_static("mcp-session-id"),
        ])
}
