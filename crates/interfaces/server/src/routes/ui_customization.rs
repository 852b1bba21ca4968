//! `GET /ui/customization`: LightRAG 1.5.7's web UI asks for its branding bundle on every load.
//! lightrag-rs has no `UI_TEMPLATES_DIR` bundles (the setting is warned about at start-up), so
//! it answers as LightRAG does without one: 200 with `customized: false` and the deployment's
//! title and description — never 404. Open without credentials, as in LightRAG (the welcome
//! page is shown before login).

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/ui/customization", get(customization))
        .route("/ui/customization/assets/{*asset}", get(no_asset))
}

/// UI customization
///
/// The web UI's branding: without a customization bundle, `{"customized": false, "brand":
/// {"title", "description"}}` (`WEBUI_TITLE`, `WEBUI_DESCRIPTION`, else LightRAG's defaults).
#[utoipa::path(get, path = "/ui/customization", tag = "system", responses(
    (status = 200, description = "No customization bundle: the brand strings", body = Object),
))]
async fn customization(State(state): State<AppState>) -> Response {
    let server = &state.settings().server;
    let pick = |value: &Option<String>, default: &str| {
        value.as_deref().filter(|v| !v.is_empty()).unwrap_or(default).to_string()
    };
    let body = json!({
        "customized": false,
        "brand": {
            "title": pick(&server.webui_title, "LightRAG"),
            "description": pick(&server.webui_description, "Simple and Fast RAG"),
        },
    });
    let mut response = Json(body).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Without a bundle there are no assets: 404, as LightRAG answers an unknown asset. (Not in the
/// OpenAPI document: it never answers anything else.)
async fn no_asset() -> Response {
    (StatusCode::NOT_FOUND, Json(json!({ "detail": "Unknown asset" }))).into_response()
}
