//! The web UI's `index.html` as served: the build's page with the server's configuration
//! injected as an inline script (`window.__LIGHTRAG_CONFIG__`) right before `</head>`, and the
//! Content-Security-Policy that allows exactly that inline script (by its SHA-256).
//!
//! Everything here is computed once at start-up ([`IndexPage::build`]): the configuration does not
//! change while the server runs.

use axum::http::HeaderValue;
use base64::Engine as _;
use bytes::Bytes;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::assets::{gzip, weak_etag};

/// The global the UI reads its configuration from.
pub const CONFIG_GLOBAL: &str = "window.__LIGHTRAG_CONFIG__";

/// What the UI is told about the server: `{"apiPrefix", "webuiPrefix", "title", "description"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebUiConfig {
    /// `LIGHTRAG_API_PREFIX` (`""` when unset): what the UI puts before every API path.
    pub api_prefix: String,
    /// Where the UI itself lives: `{prefix}/webui/`.
    pub webui_prefix: String,
    /// `WEBUI_TITLE` or LightRAG's default.
    pub title: String,
    /// `WEBUI_DESCRIPTION` or LightRAG's default.
    pub description: String,
}

impl WebUiConfig {
    /// The configuration for a server under `api_prefix` (`""` or `/name`).
    pub fn new(api_prefix: &str, title: String, description: String) -> Self {
        Self { api_prefix: api_prefix.to_string(), webui_prefix: format!("{api_prefix}/webui/"), title, description }
    }

    /// The inline script's text: `window.__LIGHTRAG_CONFIG__ = {...};`, with the JSON made safe
    /// inside a `<script>` element ([`script_safe_json`]).
    pub fn script_text(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_else(|e| {
            tracing::error!(error = %e, "the web UI configuration could not be serialised");
            "{}".to_string()
        });
        format!("{CONFIG_GLOBAL} = {};", script_safe_json(&json))
    }
}

/// `json` with `<`, `>`, `&`, U+2028 and U+2029 written as `\uXXXX` escapes. These characters
/// can only occur inside JSON strings, where the escapes mean the same thing, so the value is
/// unchanged; but no `</script>`, `<!--` or line separator can end the script early.
pub fn script_safe_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// `<script>{script}</script>` inserted right before the first `</head>` (any case); before
/// `<body` when there is no `</head>`, at the end when there is neither.
pub fn inject(html: &str, script: &str) -> String {
    let tag = format!("<script>{script}</script>");
    let lower = html.to_ascii_lowercase();
    let at = lower.find("</head>").or_else(|| lower.find("<body")).unwrap_or(html.len());
    let mut out = String::with_capacity(html.len() + tag.len() + 1);
    out.push_str(&html[..at]);
    out.push_str(&tag);
    if at < html.len() {
        out.push('\n');
    }
    out.push_str(&html[at..]);
    out
}

/// `'sha256-<base64>'` source expression of an inline script's text.
pub fn script_hash(script: &str) -> String {
    let digest = Sha256::digest(script.as_bytes());
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(digest))
}

/// The page's Content-Security-Policy: same-origin everything, plus the one inline script.
pub fn content_security_policy(script: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' {}; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; \
         font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; frame-src 'self'; \
         frame-ancestors 'self'; base-uri 'self'; form-action 'self'; object-src 'none'",
        script_hash(script)
    )
}

/// The served `index.html`: body, its gzip form, validator and policy.
pub struct IndexPage {
    /// The page with the configuration script.
    pub html: Bytes,
    /// `html` gzip-compressed (when that is smaller).
    pub gzip: Option<Bytes>,
    /// Weak entity tag of `html`.
    pub etag: HeaderValue,
    /// The `Content-Security-Policy` header value.
    pub csp: HeaderValue,
}

impl IndexPage {
    /// Builds the page from the build's `index.html` (`template`) and `config`.
    pub fn build(template: &[u8], config: &WebUiConfig) -> Self {
        let script = config.script_text();
        let html = Bytes::from(inject(&String::from_utf8_lossy(template), &script));
        let csp = HeaderValue::from_str(&content_security_policy(&script))
            .unwrap_or_else(|_| HeaderValue::from_static("default-src 'self'"));
        let digest: [u8; 32] = Sha256::digest(&html).into();
        Self { gzip: gzip(&html), etag: weak_etag(&digest), csp, html }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_cannot_close_the_script() {
        let config = WebUiConfig::new(
            "/p",
            "</script><script>alert(1)</script>".to_string(),
            "a & b <!-- \u{2028}\u{2029}".to_string(),
        );
        let script = config.script_text();
        for bad in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
            assert!(!script.contains(bad), "{bad:?} in {script}");
        }
        let json = script.strip_prefix("window.__LIGHTRAG_CONFIG__ = ").and_then(|s| s.strip_suffix(';'));
        let value: serde_json::Value = serde_json::from_str(json.unwrap_or_default()).unwrap_or_default();
        assert_eq!(value["title"], "</script><script>alert(1)</script>");
        assert_eq!(value["description"], "a & b <!-- \u{2028}\u{2029}");
        assert_eq!(value["apiPrefix"], "/p");
        assert_eq!(value["webuiPrefix"], "/p/webui/");
    }

    #[test]
    fn the_script_goes_before_the_end_of_head() {
        let html = "<html><HEAD><title>t</title></HEAD><body></body></html>";
        assert_eq!(inject(html, "x"), "<html><HEAD><title>t</title><script>x</script>\n</HEAD><body></body></html>");
        assert_eq!(inject("<p>no head</p><body>", "x"), "<p>no head</p><script>x</script>\n<body>");
        assert_eq!(inject("bare", "x"), "bare<script>x</script>");
    }

    #[test]
    fn the_policy_names_the_script_hash() {
        // sha256("") is well known
        assert_eq!(script_hash(""), "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
        let csp = content_security_policy("");
        assert!(csp.contains("script-src 'self' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';"), "{csp}");
        assert!(csp.ends_with("object-src 'none'"));
    }
}
