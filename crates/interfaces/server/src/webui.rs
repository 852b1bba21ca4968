//! The web UI, compiled into the binary from `webui/dist` (no Node needed to build the server):
//!
//! * `GET /` and `GET /webui` → 307 to `{prefix}/webui/`;
//! * `GET /webui/` and `/webui/index.html` → the UI's page with `window.__LIGHTRAG_CONFIG__`
//!   (`apiPrefix`, `webuiPrefix`, `title`, `description`) injected, `Cache-Control: no-cache` and
//!   a Content-Security-Policy allowing that one inline script by hash ([`index`]);
//! * `GET /webui/assets/*` and the other files of the build ([`assets`]): long-lived immutable
//!   caching for the content-hashed `assets/`, an hour for the rest, 404 for unknown paths;
//! * gzip when the client accepts it (JavaScript, CSS, HTML, SVG; compressed once per process);
//! * `X-Content-Type-Options: nosniff` and `Referrer-Policy: same-origin` on every answer.
//!
//! These routes are open without credentials (`/webui/*` in [`crate::auth::OPEN_PATHS`]: the
//! login page must load first) and are not part of the OpenAPI document. Everything served is
//! prepared when the router is built.

pub mod assets;
pub mod index;

use std::sync::Arc;

use axum::Extension;
use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use bytes::Bytes;

use crate::routes::health::titles;
use crate::state::AppState;
use assets::Assets;
use index::{IndexPage, WebUiConfig};

/// Whether the embedded build has an `index.html` (`/health`'s `webui_available`).
pub fn available() -> bool {
    assets::has_index()
}

/// What the web UI routes serve, prepared once when the router is built.
struct WebUi {
    /// `{prefix}/webui/`: where `/` and `/webui` redirect.
    home: String,
    /// The page, when the build has one.
    index: Option<IndexPage>,
    /// The other files.
    assets: &'static Assets,
}

/// Routes of this module: `/`, `/webui`, `/webui/`, `/webui/index.html`, `/webui/{*file}`.
pub fn router(state: &AppState) -> Router<AppState> {
    let prefix = state.settings().server.api_prefix.clone();
    let (title, description) = titles(state);
    let config = WebUiConfig::new(&prefix, title, description);
    let index = assets::index_template().map(|template| IndexPage::build(&template, &config));
    if index.is_none() {
        tracing::warn!("the embedded web UI has no index.html; /webui/ answers 404");
    }
    let ui = Arc::new(WebUi { home: config.webui_prefix.clone(), index, assets: Assets::shared() });
    let pages = Router::new()
        .route("/webui", get(to_home))
        .route("/webui/", get(index_page))
        .route("/webui/index.html", get(index_page))
        .route("/webui/{*file}", get(file))
        .layer(axum::middleware::map_response(security_headers));
    Router::new().route("/", get(to_home)).merge(pages).layer(Extension(ui))
}

async fn to_home(Extension(ui): Extension<Arc<WebUi>>) -> Redirect {
    Redirect::temporary(&ui.home)
}

async fn index_page(Extension(ui): Extension<Arc<WebUi>>, headers: HeaderMap) -> Response {
    let Some(page) = &ui.index else { return StatusCode::NOT_FOUND.into_response() };
    let mut response = respond(&headers, &page.html, page.gzip.as_ref(), &page.etag);
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::CONTENT_SECURITY_POLICY, page.csp.clone());
    response
}

async fn file(Extension(ui): Extension<Arc<WebUi>>, Path(path): Path<String>, headers: HeaderMap) -> Response {
    let Some(asset) = ui.assets.get(&path) else { return StatusCode::NOT_FOUND.into_response() };
    let mut response = respond(&headers, &asset.body, asset.gzip.as_ref(), &asset.etag);
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, asset.content_type.clone());
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(asset.cache_control));
    response
}

/// 200 with `body` (its gzip form when the client accepts gzip), or 304 when the client's
/// `If-None-Match` names `etag`. Sets `ETag`, and `Vary: Accept-Encoding` for compressed types.
fn respond(headers: &HeaderMap, body: &Bytes, gzip: Option<&Bytes>, etag: &HeaderValue) -> Response {
    let mut response = if matches_etag(headers, etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        match gzip.filter(|_| accepts_gzip(headers)) {
            Some(packed) => {
                let mut r = packed.clone().into_response();
                r.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                r
            }
            None => body.clone().into_response(),
        }
    };
    let h = response.headers_mut();
    h.insert(header::ETAG, etag.clone());
    if gzip.is_some() {
        h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    response
}

/// Whether `If-None-Match` lists `etag` (weak comparison) or is `*`.
fn matches_etag(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let ours = etag.to_str().unwrap_or_default().trim_start_matches("W/");
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.trim_start_matches("W/") == ours)
}

/// Whether `Accept-Encoding` allows gzip: listed with a non-zero quality, or not listed and
/// `*` allowed.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut gzip = None;
    let mut any = None;
    for item in
        headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(','))
    {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or_default().trim();
        let quality =
            parts.filter_map(|p| p.trim().strip_prefix("q=")).find_map(|q| q.trim().parse::<f32>().ok()).unwrap_or(1.0);
        if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
            gzip = Some(quality > 0.0);
        } else if name == "*" {
            any = Some(quality > 0.0);
        }
    }
    gzip.or(any).unwrap_or(false)
}

/// Adds `X-Content-Type-Options: nosniff` and `Referrer-Policy: same-origin`.
async fn security_headers(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(value) {
            h.insert(header::ACCEPT_ENCODING, v);
        }
        h
    }

    #[test]
    fn gzip_is_negotiated_from_accept_encoding() {
        assert!(accepts_gzip(&accept("gzip, deflate, br")));
        assert!(accepts_gzip(&accept("br;q=1.0, GZIP;q=0.5")));
        assert!(accepts_gzip(&accept("*")));
        assert!(!accepts_gzip(&accept("gzip;q=0")));
        assert!(!accepts_gzip(&accept("gzip;q=0, *")));
        assert!(!accepts_gzip(&accept("br, deflate")));
        assert!(!accepts_gzip(&accept("identity")));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn if_none_match_compares_weakly() {
        let etag = HeaderValue::from_static("W/\"abc\"");
        let mut h = HeaderMap::new();
        assert!(!matches_etag(&h, &etag));
        h.insert(header::IF_NONE_MATCH, HeaderValue::from_static("\"x\", \"abc\""));
        assert!(matches_etag(&h, &etag));
        h.insert(header::IF_NONE_MATCH, HeaderValue::from_static("W/\"abd\""));
        assert!(!matches_etag(&h, &etag));
    }
}
