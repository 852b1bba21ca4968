//! `GET /redoc`: the OpenAPI document rendered by ReDoc, as LightRAG serves it. LightRAG's page
//! loads ReDoc from a CDN; here the standalone bundle (npm `redoc` 2.5.4, MIT, see
//! `assets/redoc/README.md`) is compiled into the binary and served at
//! `/redoc/redoc.standalone.js`, so the page works offline.

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use crate::state::AppState;

/// The vendored bundle.
const REDOC_JS: &[u8] = include_bytes!("../assets/redoc/redoc.standalone.js");

/// Routes of this module (under `api_prefix`).
pub fn router(api_prefix: &str) -> Router<AppState> {
    let page = page(api_prefix);
    Router::new()
        .route("/redoc", get(move || async move { Html(page) }))
        .route("/redoc/redoc.standalone.js", get(bundle))
}

/// The ReDoc page: our spec URL and the bundle, both under the API prefix.
fn page(prefix: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>LightRAG Server API - ReDoc</title>
  <style>body {{ margin: 0; padding: 0; }}</style>
</head>
<body>
  <noscript>This page needs JavaScript to show the API documentation; the raw document is at {prefix}/openapi.json.</noscript>
  <redoc spec-url="{prefix}/openapi.json"></redoc>
  <script src="{prefix}/redoc/redoc.standalone.js"></script>
</body>
</html>
"#
    )
}

async fn bundle() -> Response {
    let mut response = REDOC_JS.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/javascript; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=86400"));
    response
}
