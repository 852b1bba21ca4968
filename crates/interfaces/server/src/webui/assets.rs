//! The web UI's build (`webui/dist`) compiled into the binary, and what each file is served
//! with: content type, cache policy, entity tag and a gzip form prepared once per process.
//!
//! * `assets/*` (content-hashed names) — `Cache-Control: public, max-age=31536000, immutable`;
//! * other files (`favicon.svg`, …) — `public, max-age=3600`;
//! * JavaScript, CSS, HTML and SVG are gzip-compressed once, on first use of the table
//!   ([`Assets::shared`], forced when the router is built).

use std::collections::HashMap;
use std::io::Write;
use std::sync::LazyLock;

use axum::http::HeaderValue;
use bytes::Bytes;
use flate2::Compression;
use flate2::write::GzEncoder;
use rust_embed::RustEmbed;

/// `webui/dist`, embedded at compile time (debug builds too: `debug-embed`). `build.rs` makes
/// cargo rebuild when a file there is added, removed or changed.
#[derive(RustEmbed)]
#[folder = "../../../webui/dist/"]
struct Dist;

/// The page the UI starts from.
pub const INDEX: &str = "index.html";

/// `Cache-Control` of content-hashed files under `assets/`.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// `Cache-Control` of the other files.
pub const SHORT: &str = "public, max-age=3600";

/// Whether the embedded build has an `index.html`.
pub fn has_index() -> bool {
    Dist::get(INDEX).is_some()
}

/// The build's `index.html`, as built (before the configuration is injected).
pub fn index_template() -> Option<Bytes> {
    Dist::get(INDEX).map(|f| to_bytes(f.data))
}

/// One file as served.
pub struct Asset {
    /// The file.
    pub body: Bytes,
    /// `body` gzip-compressed, for compressible types when that is smaller.
    pub gzip: Option<Bytes>,
    /// `Content-Type`.
    pub content_type: HeaderValue,
    /// `Cache-Control`.
    pub cache_control: &'static str,
    /// Weak entity tag (from the file's SHA-256).
    pub etag: HeaderValue,
}

/// Every embedded file but `index.html`, by path relative to `dist` (`assets/index-1a2b.js`).
pub struct Assets {
    files: HashMap<String, Asset>,
}

static SHARED: LazyLock<Assets> = LazyLock::new(Assets::load);

impl Assets {
    /// The table of this process (the embedded files never change while it runs).
    pub fn shared() -> &'static Assets {
        &SHARED
    }

    /// Builds the table from the embedded files.
    fn load() -> Self {
        let files = Dist::iter()
            .filter(|path| path.as_ref() != INDEX)
            .filter_map(|path| {
                let file = Dist::get(&path)?;
                let mime = content_type(file.metadata.mimetype());
                let body = to_bytes(file.data);
                let gzip = if compressible(&mime) { gzip(&body) } else { None };
                let asset = Asset {
                    content_type: HeaderValue::from_str(&mime)
                        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream")),
                    cache_control: cache_control(&path),
                    etag: weak_etag(&file.metadata.sha256_hash()),
                    body,
                    gzip,
                };
                Some((path.into_owned(), asset))
            })
            .collect();
        Self { files }
    }

    /// The file at `path` (relative to `dist`, no leading `/`).
    pub fn get(&self, path: &str) -> Option<&Asset> {
        self.files.get(path)
    }
}

fn to_bytes(data: std::borrow::Cow<'static, [u8]>) -> Bytes {
    match data {
        std::borrow::Cow::Borrowed(b) => Bytes::from_static(b),
        std::borrow::Cow::Owned(v) => Bytes::from(v),
    }
}

/// The cache policy of `path`: long and immutable under `assets/`, an hour elsewhere.
pub fn cache_control(path: &str) -> &'static str {
    if path.starts_with("assets/") { IMMUTABLE } else { SHORT }
}

/// The `Content-Type` for a MIME type guessed from the extension: text types (and JavaScript
/// and JSON) say `charset=utf-8`.
pub fn content_type(mime: &str) -> String {
    let textual = mime.starts_with("text/") || mime == "application/javascript" || mime == "application/json";
    if textual && !mime.contains("charset") { format!("{mime}; charset=utf-8") } else { mime.to_string() }
}

/// Whether a type is worth compressing: JavaScript, CSS, HTML and SVG.
pub fn compressible(content_type: &str) -> bool {
    let mime = content_type.split(';').next().unwrap_or_default().trim();
    matches!(mime, "text/javascript" | "application/javascript" | "text/css" | "text/html" | "image/svg+xml")
}

/// `data` gzip-compressed, or `None` when that is not smaller (or fails).
pub fn gzip(data: &[u8]) -> Option<Bytes> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(data.len() / 3 + 32), Compression::default());
    let compressed = encoder.write_all(data).and_then(|()| encoder.finish());
    match compressed {
        Ok(out) if out.len() < data.len() => Some(Bytes::from(out)),
        Ok(_) => None,
        Err(e) => {
            tracing::warn!(error = %e, "a web UI file could not be compressed; it is served uncompressed");
            None
        }
    }
}

/// `W/"<first 16 bytes of the digest, hex>"`.
pub fn weak_etag(digest: &[u8; 32]) -> HeaderValue {
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    HeaderValue::from_str(&format!("W/\"{hex}\"")).unwrap_or_else(|_| HeaderValue::from_static("W/\"0\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_assets_are_immutable_and_the_rest_short_lived() {
        assert_eq!(cache_control("assets/index-1a2b3c.js"), IMMUTABLE);
        assert_eq!(cache_control("favicon.svg"), SHORT);
        assert_eq!(cache_control("assetsx/a.js"), SHORT);
    }

    #[test]
    fn text_types_carry_a_charset_and_only_code_and_markup_is_compressed() {
        assert_eq!(content_type("text/javascript"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("image/svg+xml"), "image/svg+xml");
        assert!(compressible("text/javascript; charset=utf-8"));
        assert!(compressible("image/svg+xml"));
        assert!(compressible("text/css; charset=utf-8"));
        assert!(!compressible("image/png"));
        assert!(!compressible("font/woff2"));
        assert!(!compressible("application/json; charset=utf-8"));
    }

    #[test]
    fn gzip_round_trips_and_skips_what_does_not_shrink() {
        use std::io::Read;
        let text = "function f() { return 1; }\n".repeat(50);
        let packed = gzip(text.as_bytes()).unwrap_or_default();
        assert!(!packed.is_empty() && packed.len() < text.len());
        let mut unpacked = String::new();
        let read = flate2::read::GzDecoder::new(&packed[..]).read_to_string(&mut unpacked);
        assert!(read.is_ok());
        assert_eq!(unpacked, text);
        assert!(gzip(b"x").is_none());
    }

    #[test]
    fn every_embedded_file_but_the_index_is_in_the_table() {
        let assets = Assets::shared();
        for path in Dist::iter() {
            assert_eq!(assets.get(&path).is_some(), path != INDEX, "{path}");
        }
        assert!(has_index(), "webui/dist has no index.html");
    }
}
