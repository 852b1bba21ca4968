//! The embedded web UI: redirects, the injected configuration and its CSP hash, caching, gzip,
//! security headers, `LIGHTRAG_API_PREFIX`, authentication and the OpenAPI document. Nothing here
//! depends on the names of the build's files: the JavaScript asset is found in `index.html`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Read;

use axum::http::{Method, StatusCode};
use base64::Engine as _;
use common::{Harness, Reply};
use serde_json::Value;
use sha2::{Digest, Sha256};

const HOSTILE_TITLE: &str = "</script><script>alert(1)</script>";

async fn get_with(h: &Harness, uri: &str, headers: &[(&str, &str)]) -> Reply {
    h.call(Method::GET, uri, headers, None).await
}

fn header<'a>(reply: &'a Reply, name: &str) -> &'a str {
    reply.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

fn assert_security_headers(reply: &Reply, what: &str) {
    assert_eq!(header(reply, "x-content-type-options"), "nosniff", "{what}");
    assert_eq!(header(reply, "referrer-policy"), "same-origin", "{what}");
}

/// The text of the injected configuration script.
fn config_script(html: &str) -> String {
    let start = html.find("<script>window.__LIGHTRAG_CONFIG__").unwrap_or_else(|| panic!("no config in {html}"));
    let body = &html[start + "<script>".len()..];
    body[..body.find("</script>").unwrap()].to_string()
}

/// The configuration object the UI will see.
fn config(html: &str) -> Value {
    let script = config_script(html);
    let json = script.strip_prefix("window.__LIGHTRAG_CONFIG__ = ").unwrap().strip_suffix(';').unwrap();
    serde_json::from_str(json).unwrap()
}

/// The `src` of the page's module script (`./assets/index-….js`), as a path under `/webui/`.
fn script_asset(html: &str) -> String {
    let at = html.find("src=\"").expect("no script src in index.html");
    let rest = &html[at + 5..];
    let src = &rest[..rest.find('"').unwrap()];
    assert!(src.ends_with(".js"), "{src}");
    src.trim_start_matches("./").trim_start_matches('/').trim_start_matches("webui/").to_string()
}

fn gunzip(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body).read_to_end(&mut out).unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_and_bare_webui_redirect_to_the_ui() {
    let h = Harness::new(&[]).await;
    for path in ["/", "/webui"] {
        let reply = h.get(path).await;
        assert_eq!(reply.status, StatusCode::TEMPORARY_REDIRECT, "{path}");
        assert_eq!(header(&reply, "location"), "/webui/", "{path}");
    }
    assert_security_headers(&h.get("/webui").await, "/webui");
    assert_eq!(h.get("/docs").await.status, StatusCode::OK, "/docs stays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_carries_the_configuration_safely_and_a_matching_csp() {
    let description = "Team <b>graph</b> & notes";
    let h = Harness::new(&[("WEBUI_TITLE", HOSTILE_TITLE), ("WEBUI_DESCRIPTION", description)]).await;
    for path in ["/webui/", "/webui/index.html"] {
        let reply = h.get(path).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(header(&reply, "content-type"), "text/html; charset=utf-8");
        assert_eq!(header(&reply, "cache-control"), "no-cache");
        assert_security_headers(&reply, path);
        let html = reply.text();
        assert!(!html.contains(HOSTILE_TITLE), "the title broke out: {html}");
        let script = config_script(&html);
        assert!(html.find(&script).unwrap() < html.to_ascii_lowercase().find("</head>").unwrap(), "in <head>");
        let c = config(&html);
        assert_eq!(c["apiPrefix"], "");
        assert_eq!(c["webuiPrefix"], "/webui/");
        assert_eq!(c["title"], HOSTILE_TITLE);
        assert_eq!(c["description"], description);

        let csp = header(&reply, "content-security-policy");
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(script.as_bytes()));
        assert!(csp.contains(&format!("script-src 'self' 'sha256-{hash}';")), "{csp}");
        for directive in ["default-src 'self'", "frame-ancestors 'self'", "object-src 'none'", "connect-src 'self'"] {
            assert!(csp.contains(directive), "{directive} missing in {csp}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_titles_match_health() {
    let h = Harness::new(&[]).await;
    let c = config(&h.get("/webui/").await.text());
    let health = h.get("/health").await.json();
    assert_eq!(c["title"], health["webui_title"]);
    assert_eq!(c["description"], health["webui_description"]);
    assert_eq!(health["webui_available"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assets_are_typed_cached_compressed_and_unknown_ones_404() {
    let h = Harness::new(&[]).await;
    let html = h.get("/webui/").await.text();
    let js_path = format!("/webui/{}", script_asset(&html));
    let js = h.get(&js_path).await;
    assert_eq!(js.status, StatusCode::OK, "{js_path}");
    assert!(header(&js, "content-type").contains("javascript"), "{}", header(&js, "content-type"));
    assert_eq!(header(&js, "cache-control"), "public, max-age=31536000, immutable");
    assert_security_headers(&js, &js_path);
    assert!(header(&js, "content-security-policy").is_empty(), "the CSP is for the page");
    assert!(!js.body.is_empty());

    // gzip on request, and the same bytes once unpacked (the placeholder build's script may be too
    // small to shrink; a real build's must be compressed)
    let packed = get_with(&h, &js_path, &[("accept-encoding", "gzip, deflate, br")]).await;
    assert_eq!(packed.status, StatusCode::OK);
    if header(&packed, "content-encoding") == "gzip" {
        assert_eq!(gunzip(&packed.body), js.body);
        assert_eq!(header(&packed, "vary"), "accept-encoding");
    } else {
        assert!(js.body.len() < 1024, "a {} byte script was not compressed", js.body.len());
        assert_eq!(packed.body, js.body);
    }
    let page = get_with(&h, "/webui/", &[("accept-encoding", "gzip")]).await;
    assert_eq!(header(&page, "content-encoding"), "gzip");
    assert_eq!(String::from_utf8(gunzip(&page.body)).unwrap(), html);
    let plain = get_with(&h, "/webui/", &[("accept-encoding", "gzip;q=0, br")]).await;
    assert!(header(&plain, "content-encoding").is_empty());
    assert_eq!(plain.text(), html);

    // revalidation
    let etag = header(&js, "etag").to_string();
    assert!(etag.starts_with("W/\""), "{etag}");
    let again = get_with(&h, &js_path, &[("if-none-match", &etag)]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.body.is_empty());

    // other top-level files of the build
    let favicon = h.get("/webui/favicon.svg").await;
    if favicon.status == StatusCode::OK {
        assert_eq!(header(&favicon, "cache-control"), "public, max-age=3600");
        assert!(header(&favicon, "content-type").starts_with("image/svg+xml"));
    }

    for missing in ["/webui/assets/no-such-file.js", "/webui/nothing", "/webui/assets/../index.html"] {
        let reply = h.get(missing).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{missing}");
        assert_security_headers(&reply, missing);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_works_under_an_api_prefix() {
    let h = Harness::new(&[("LIGHTRAG_API_PREFIX", "/lightrag")]).await;
    for path in ["/", "/lightrag", "/lightrag/", "/webui", "/lightrag/webui"] {
        let reply = h.get(path).await;
        assert_eq!(reply.status, StatusCode::TEMPORARY_REDIRECT, "{path}");
        assert_eq!(header(&reply, "location"), "/lightrag/webui/", "{path}");
    }
    for base in ["/lightrag/webui/", "/webui/"] {
        let reply = h.get(base).await;
        assert_eq!(reply.status, StatusCode::OK, "{base}");
        let html = reply.text();
        let c = config(&html);
        assert_eq!(c["apiPrefix"], "/lightrag", "{base}");
        assert_eq!(c["webuiPrefix"], "/lightrag/webui/", "{base}");
        let js = h.get(&format!("{base}{}", script_asset(&html))).await;
        assert_eq!(js.status, StatusCode::OK, "{base}");
        assert_eq!(header(&js, "cache-control"), "public, max-age=31536000, immutable");
        assert_eq!(h.get(&format!("{base}assets/no-such-file.js")).await.status, StatusCode::NOT_FOUND);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ui_loads_without_credentials_while_the_api_needs_them() {
    let h = Harness::new(&[("LIGHTRAG_API_KEY", "k")]).await;
    let html = h.get("/webui/").await;
    assert_eq!(html.status, StatusCode::OK);
    assert_eq!(h.get(&format!("/webui/{}", script_asset(&html.text()))).await.status, StatusCode::OK);
    for redirect in ["/", "/webui"] {
        assert_eq!(h.get(redirect).await.status, StatusCode::TEMPORARY_REDIRECT, "{redirect}");
    }
    assert_eq!(h.get("/documents").await.status, StatusCode::FORBIDDEN);
    assert_eq!(h.get("/workspaces").await.status, StatusCode::FORBIDDEN);
    assert_eq!(h.get("/graph/entity/sources?name=x").await.status, StatusCode::FORBIDDEN);

    let h = Harness::new(&[("AUTH_ACCOUNTS", "alice:pw"), ("TOKEN_SECRET", "s3cret")]).await;
    assert_eq!(h.get("/webui/").await.status, StatusCode::OK);
    assert_eq!(h.get("/webui").await.status, StatusCode::TEMPORARY_REDIRECT);
    assert_eq!(h.get("/documents").await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ui_is_not_in_the_openapi_document() {
    let h = Harness::new(&[]).await;
    let spec = h.get("/openapi.json").await.json();
    let paths: Vec<&String> = spec["paths"].as_object().unwrap().keys().collect();
    assert!(paths.iter().all(|p| !p.starts_with("/webui") && p.as_str() != "/"), "{paths:?}");
    assert!(paths.iter().any(|p| p.as_str() == "/graph/entity/sources"), "{paths:?}");
}
