//! The OpenAPI document, generated from the handlers' `#[utoipa::path]` annotations
//! (`GET /openapi.json`), Swagger UI over it (`GET /docs`, assets compiled into the binary: no
//! network at build or run time). `GET /` belongs to the web UI ([`crate::webui`]).
//!
//! To document a new route: put `#[utoipa::path(...)]` on its handler and add the handler to
//! `paths(...)` of [`ApiDoc`]. Request and response types need `utoipa::ToSchema`; their schemas
//! are collected from the annotations.

use std::sync::Arc;

use axum::Extension;
use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use utoipa::OpenApi;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};
use utoipa::openapi::server::Server;
use utoipa::openapi::{Content, Ref, RefOr, ResponseBuilder};
use utoipa_swagger_ui::Config;

use crate::API_VERSION;
use crate::auth::API_KEY_HEADER;
use crate::routes;
use crate::state::AppState;

/// Name of the API key security scheme.
pub const API_KEY_SCHEME: &str = "api_key";

/// Name of the bearer (JWT) security scheme.
pub const BEARER_SCHEME: &str = "bearer";

/// The annotated routes. Add a handler here after annotating it with `#[utoipa::path]`.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "LightRAG Server API",
        description = "LightRAG-compatible REST API of lightrag-rs: index documents into a knowledge graph and \
                       query it. Every route honours the `LIGHTRAG-WORKSPACE` header."
    ),
    paths(
        routes::health::health,
        routes::ui_customization::customization,
        crate::metrics::metrics,
        routes::documents::insert_text,
        routes::documents::insert_texts,
        routes::estimate::estimate,
        routes::documents::all_documents,
        routes::documents::clear_documents,
        routes::documents::pipeline_status,
        routes::documents::delete_documents,
        routes::documents::clear_cache,
        routes::documents::track_status,
        routes::documents::paginated,
        routes::documents::status_counts,
        routes::documents::reprocess_failed,
        routes::documents::cancel_pipeline,
        routes::query::query,
        routes::query::query_stream,
        routes::query::query_data,
        routes::graph::label_list,
        routes::graph::label_popular,
        routes::graph::label_search,
        routes::graph::graphs,
        routes::graph::entity_exists,
        routes::graph_edit::edit_entity,
        routes::graph_edit::edit_relation,
        routes::graph_edit::create_entity,
        routes::graph_edit::create_relation,
        routes::graph_edit::merge_entities,
        routes::graph_edit::delete_entity,
        routes::graph_edit::delete_relation,
        routes::provenance::entity_sources,
        routes::provenance::relation_sources,
        routes::workspaces::workspaces,
        routes::upload::upload,
        routes::upload::scan,
        routes::login::auth_status,
        routes::login::login,
        routes::ollama::version,
        routes::ollama::tags,
        routes::ollama::ps,
        routes::ollama::generate::generate,
        routes::ollama::chat::chat,
        routes::admin::import_lightrag,
        crate::access::admin_routes::list_keys,
        crate::access::admin_routes::create_key,
        crate::access::admin_routes::revoke_key,
        crate::access::admin_routes::list_accounts,
        crate::access::admin_routes::add_account,
        crate::access::admin_routes::remove_account,
        crate::access::admin_routes::list_grants,
        crate::access::admin_routes::set_grant,
        crate::access::admin_routes::remove_grant,
        crate::access::admin_routes::set_owner,
        crate::access::admin_routes::audit,
    ),
    components(schemas(
        crate::schemas::ErrorResponse,
        crate::schemas::ScanResponse,
        crate::schemas::admin::ImportCheckResponse
    )),
    tags(
        (name = "documents", description = "Insert, list, track and delete documents; the indexing pipeline"),
        (name = "query", description = "Questions over the knowledge graph and the chunks"),
        (name = "graph", description = "Read and edit the knowledge graph"),
        (name = "system", description = "Health, authentication status and server information"),
        (name = "ollama", description = "Ollama-compatible chat API (Open WebUI and other Ollama clients)"),
        (name = "admin", description = "Operations beyond LightRAG's API: importing a LightRAG working directory"),
        (name = "access", description = "Who may do what (owners only): API keys, managed accounts, roles per workspace, the audit log"),
    ),
    modifiers(&Common)
)]
pub struct ApiDoc;

/// Adds what every operation shares: the `X-API-Key` scheme (optional: only enforced when
/// `LIGHTRAG_API_KEY` is set) and the 403 / 500 error answers.
struct Common;

impl utoipa::Modify for Common {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            API_KEY_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                API_KEY_HEADER,
                "Required when the server sets LIGHTRAG_API_KEY (except WHITELIST_PATHS)",
            ))),
        );
        let mut bearer = Http::new(HttpAuthScheme::Bearer);
        bearer.bearer_format = Some("JWT".to_string());
        bearer.description = Some("A token from POST /login (AUTH_ACCOUNTS) or GET /auth-status (guest)".to_string());
        components.add_security_scheme(BEARER_SCHEME, SecurityScheme::Http(bearer));
        doc.security = Some(vec![
            SecurityRequirement::new(API_KEY_SCHEME, Vec::<String>::new()),
            SecurityRequirement::new(BEARER_SCHEME, Vec::<String>::new()),
            SecurityRequirement::default(),
        ]);
        for item in doc.paths.paths.values_mut() {
            for op in
                [&mut item.get, &mut item.post, &mut item.put, &mut item.delete, &mut item.patch].into_iter().flatten()
            {
                for (code, what) in [
                    ("401", "Login required, or the bearer token is invalid or expired"),
                    ("403", "API key missing or wrong (when LIGHTRAG_API_KEY is set)"),
                    ("500", "Internal error (storage or provider failure)"),
                ] {
                    op.responses.responses.entry(code.to_string()).or_insert_with(|| error_response(what));
                }
            }
        }
    }
}

fn error_response(description: &str) -> RefOr<utoipa::openapi::Response> {
    let content = Content::new(Some(Ref::from_schema_name("ErrorResponse")));
    RefOr::T(ResponseBuilder::new().description(description).content("application/json", content).build())
}

/// The OpenAPI document as served: version [`API_VERSION`], and `servers: [{url: prefix}]`
/// when `LIGHTRAG_API_PREFIX` is set.
pub fn document(api_prefix: &str) -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.info.version = API_VERSION.to_string();
    if !api_prefix.is_empty() {
        doc.servers = Some(vec![Server::new(api_prefix)]);
    }
    doc
}

/// What the docs routes serve, prepared once at start-up: the prefix is fixed for the life of
/// the server, so neither the spec nor the Swagger UI page changes between requests.
struct Docs {
    /// `/openapi.json`, serialised.
    spec: Vec<u8>,
    /// Swagger UI's configuration: our spec URL, no online validator.
    config: Arc<Config<'static>>,
    /// The Swagger UI page with its `<base>` and title (content type, bytes, gzipped).
    index: Option<(String, Vec<u8>, bool)>,
}

impl Docs {
    fn new(prefix: &str) -> Self {
        let spec = serde_json::to_vec(&document(prefix)).unwrap_or_else(|e| {
            tracing::error!(error = %e, "the OpenAPI document could not be serialised");
            b"{}".to_vec()
        });
        let spec_url = format!("{prefix}/openapi.json");
        let config =
            Arc::new(Config::from(spec_url).validator_url("none").try_it_out_enabled(true).persist_authorization(true));
        // A `<base>` element makes the page's relative asset links resolve under `/docs/`
        // whether it was asked for as `/docs` or `/docs/`.
        let index = swagger_file("index.html", &config).map(|(content_type, bytes, gzipped)| {
            if gzipped {
                return (content_type, bytes, true);
            }
            let html = String::from_utf8_lossy(&bytes)
                .replacen("<head>", &format!("<head>\n    <base href=\"{prefix}/docs/\">"), 1)
                .replacen("<title>Swagger UI</title>", "<title>LightRAG Server API - Swagger UI</title>", 1);
            (content_type, html.into_bytes(), false)
        });
        Self { spec, config, index }
    }
}

/// Routes of this module: `/openapi.json`, `/docs` and `/docs/*` (under `api_prefix`).
pub fn router(api_prefix: &str) -> Router<AppState> {
    Router::new()
        .route("/openapi.json", get(openapi_json))
        .route("/docs", get(docs_index))
        .route("/docs/", get(docs_index))
        .route("/docs/{*file}", get(docs_file))
        .layer(Extension(Arc::new(Docs::new(api_prefix))))
}

async fn openapi_json(Extension(docs): Extension<Arc<Docs>>) -> Response {
    asset_response("application/json".to_string(), docs.spec.clone(), false)
}

/// The Swagger UI page.
async fn docs_index(Extension(docs): Extension<Arc<Docs>>) -> Response {
    match &docs.index {
        Some((content_type, bytes, gzipped)) => asset_response(content_type.clone(), bytes.clone(), *gzipped),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn docs_file(Extension(docs): Extension<Arc<Docs>>, Path(file): Path<String>) -> Response {
    match swagger_file(&file, &docs.config) {
        Some((content_type, bytes, gzipped)) => asset_response(content_type, bytes, gzipped),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// One Swagger UI file (content type, bytes, gzip-compressed).
fn swagger_file(file: &str, config: &Arc<Config<'static>>) -> Option<(String, Vec<u8>, bool)> {
    match utoipa_swagger_ui::serve(file, config.clone()) {
        Ok(Some(f)) => Some((f.content_type, f.bytes.into_owned(), f.gzpipped)),
        Ok(None) => None,
        Err(e) => {
            tracing::error!(error = %e, file, "Swagger UI asset could not be prepared");
            None
        }
    }
}

fn asset_response(content_type: String, bytes: Vec<u8>, gzipped: bool) -> Response {
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    if gzipped {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    response
}
