//! The shared HTTP plumbing: client construction, URL checks, auth headers, sending a JSON
//! request, and mapping transport errors and HTTP statuses to [`Failure`]s. No retries: the
//! engine wraps every provider with retry and backoff.

use std::error::Error as _;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use reqwest::{Client, Response, StatusCode, Url};
use serde_json::Value;

use crate::config::{DEFAULT_AZURE_API_VERSION, LlmBinding};
use crate::error::{BuildError, Failure};

/// Longest error body kept in an error message, in characters.
const MAX_ERROR_BODY_CHARS: usize = 500;

/// How requests authenticate.
#[derive(Clone)]
pub(crate) enum Auth {
    None,
    Bearer(String),
    ApiKeyHeader(String),
    /// Any other header carrying the key as it is (`x-goog-api-key`, lollms' `Authorization`).
    Header(&'static str, String),
    /// AWS Signature Version 4 over the whole request.
    SigV4(crate::bedrock::sigv4::Signer),
}

/// A client plus the timeout it was configured with.
#[derive(Clone)]
pub(crate) struct Transport {
    client: Client,
    auth: Auth,
    timeout: Duration,
}

impl Transport {
    /// Builds the client: TLS with the ring provider, connect timeout `min(timeout, 30 s)`, read
    /// timeout `timeout` (the longest silence on a connection).
    pub fn new(timeout: Duration, auth: Auth) -> Result<Self, BuildError> {
        // Idempotent: fails harmlessly when a provider is already installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(30)))
            .read_timeout(timeout)
            .build()
            .map_err(|e| BuildError::Client(error_chain(&e)))?;
        Ok(Self { client, auth, timeout })
    }

    /// The timeout in whole seconds (rounded up), as reported in timeout errors.
    pub fn timeout_secs(&self) -> u64 {
        self.timeout.as_secs_f64().ceil() as u64
    }

    /// POSTs `body` to `url`. With `whole_timeout` the complete exchange must finish within the
    /// configured timeout; without it (streams) only silences are bounded. Non-2xx statuses come
    /// back as failures.
    pub async fn post(&self, url: &str, body: &Value, whole_timeout: bool) -> Result<Response, Failure> {
        let bytes =
            serde_json::to_vec(body).map_err(|e| Failure::Invalid(format!("cannot encode the request: {e}")))?;
        let mut request = self.client.post(url).header(CONTENT_TYPE, "application/json");
        request = match &self.auth {
            Auth::None => request,
            Auth::Bearer(key) => request.bearer_auth(key),
            Auth::ApiKeyHeader(key) => request.header("api-key", key),
            Auth::Header(name, value) => request.header(*name, value),
            Auth::SigV4(signer) => {
                let headers = signer
                    .sign_post(url, "application/json", &bytes, chrono::Utc::now())
                    .map_err(|e| Failure::Invalid(format!("cannot sign the request: {e}")))?;
                headers.into_iter().fold(request, |r, (k, v)| r.header(k, v))
            }
        };
        request = request.body(bytes);
        if whole_timeout {
            request = request.timeout(self.timeout);
        }
        let response = request.send().await.map_err(|e| self.failure(&e))?;
        let status = response.status();
        tracing::debug!(url, status = status.as_u16(), "provider answered");
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after_secs(response.headers());
        let text = response.text().await.unwrap_or_default();
        Err(status_failure(status, retry_after, &text))
    }

    /// Reads a whole JSON body.
    pub async fn read_json(&self, response: Response) -> Result<Value, Failure> {
        let bytes = response.bytes().await.map_err(|e| self.failure(&e))?;
        serde_json::from_slice(&bytes).map_err(|e| {
            let text = String::from_utf8_lossy(&bytes);
            Failure::Invalid(format!("response is not valid JSON ({e}): {}", truncate(&text)))
        })
    }

    /// Reads a JSON answer straight into `T` (no intermediate `Value`: an embedding answer of
    /// thousands of numbers is parsed once). Not JSON at all is the same failure as
    /// [`Transport::read_json`]'s; JSON of another shape is `shape`'s.
    pub async fn read_typed<T: serde::de::DeserializeOwned>(
        &self,
        response: Response,
        shape: impl FnOnce(serde_json::Error) -> Failure,
    ) -> Result<T, Failure> {
        let bytes = response.bytes().await.map_err(|e| self.failure(&e))?;
        serde_json::from_slice(&bytes).map_err(|e| {
            if e.is_data() {
                shape(e)
            } else {
                let text = String::from_utf8_lossy(&bytes);
                Failure::Invalid(format!("response is not valid JSON ({e}): {}", truncate(&text)))
            }
        })
    }

    /// Maps a reqwest error.
    pub fn failure(&self, e: &reqwest::Error) -> Failure {
        if e.is_timeout() {
            Failure::Timeout(self.timeout_secs())
        } else if e.is_decode() {
            Failure::Invalid(error_chain(e))
        } else {
            Failure::Connection(error_chain(e))
        }
    }
}

/// The failure for a non-2xx status.
pub(crate) fn status_failure(status: StatusCode, retry_after: Option<f64>, body: &str) -> Failure {
    let code = status.as_u16();
    let body = truncate(body.trim());
    if status == StatusCode::TOO_MANY_REQUESTS {
        Failure::RateLimited(retry_after)
    } else if status.is_server_error() {
        Failure::Server { status: code, body }
    } else {
        Failure::Client { status: code, body }
    }
}

/// `retry-after-ms` (OpenAI) or `Retry-After` in seconds; HTTP dates are ignored.
pub(crate) fn retry_after_secs(headers: &HeaderMap) -> Option<f64> {
    let read = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    let valid = |s: &f64| s.is_finite() && *s >= 0.0;
    if let Some(ms) = read("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(valid) {
        return Some(ms / 1000.0);
    }
    read(RETRY_AFTER.as_str()).and_then(|v| v.parse::<f64>().ok()).filter(|s| s.is_finite() && *s >= 0.0)
}

/// Cuts an error body to [`MAX_ERROR_BODY_CHARS`] characters.
pub(crate) fn truncate(text: &str) -> String {
    match text.char_indices().nth(MAX_ERROR_BODY_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// An error and its causes, `a: b: c`.
fn error_chain(e: &reqwest::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

/// Checks that `host` is an absolute http(s) URL and returns it without trailing slashes.
pub(crate) fn normalise_host(host: &str) -> Result<String, BuildError> {
    let trimmed = host.trim().trim_end_matches('/');
    let invalid = |reason: &str| BuildError::InvalidHost { host: host.to_string(), reason: reason.to_string() };
    let url = Url::parse(trimmed).map_err(|e| invalid(&e.to_string()))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(invalid("the scheme must be http or https"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("it has no host name"));
    }
    if url.query().is_some() {
        return Err(invalid("it must not have a query string"));
    }
    Ok(trimmed.to_string())
}

/// Percent-encodes a path segment or query value (anything but unreserved characters).
pub(crate) fn encode_component(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Which operation an endpoint serves: `(OpenAI path, Ollama path, Azure operation)`.
pub(crate) struct Operation {
    pub openai: &'static str,
    pub ollama: &'static str,
    pub azure: &'static str,
}

/// The URL of `op` for a binding (Azure: the deployment, defaulting to the model, and the API version).
pub(crate) fn endpoint_url(
    binding: LlmBinding,
    host: &str,
    op: &Operation,
    model: &str,
    deployment: Option<&str>,
    api_version: Option<&str>,
) -> Result<String, BuildError> {
    let host = normalise_host(host)?;
    Ok(match binding {
        LlmBinding::OpenAi => format!("{host}/{}", op.openai),
        LlmBinding::Ollama => format!("{host}/{}", op.ollama),
        LlmBinding::AzureOpenAi => format!(
            "{host}/openai/deployments/{}/{}?api-version={}",
            encode_component(deployment.unwrap_or(model)),
            op.azure,
            encode_component(api_version.unwrap_or(DEFAULT_AZURE_API_VERSION))
        ),
        other => {
            return Err(BuildError::InvalidHost {
                host,
                reason: format!("internal: {other} does not use the OpenAI-style endpoints"),
            });
        }
    })
}

/// How the key is sent: none, `api-key` header (Azure) or bearer token.
pub(crate) fn auth_for(api_key: Option<&String>, binding: LlmBinding) -> Auth {
    match (api_key, binding) {
        (None, _) => Auth::None,
        (Some(key), _) if key.is_empty() => Auth::None,
        (Some(key), LlmBinding::AzureOpenAi) => Auth::ApiKeyHeader(key.clone()),
        (Some(key), _) => Auth::Bearer(key.clone()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn statuses_map_to_failure_classes() {
        assert_eq!(status_failure(StatusCode::TOO_MANY_REQUESTS, Some(2.0), "x"), Failure::RateLimited(Some(2.0)));
        assert_eq!(
            status_failure(StatusCode::BAD_GATEWAY, None, " down "),
            Failure::Server { status: 502, body: "down".into() }
        );
        assert_eq!(
            status_failure(StatusCode::UNAUTHORIZED, None, "bad key"),
            Failure::Client { status: 401, body: "bad key".into() }
        );
    }

    #[test]
    fn retry_after_reads_seconds_and_milliseconds() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after_secs(&h), None);
        h.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after_secs(&h), Some(7.0));
        h.insert(RETRY_AFTER, HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after_secs(&h), None);
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after_secs(&h), Some(1.5));
    }

    #[test]
    fn long_bodies_are_truncated() {
        let long = "é".repeat(2000);
        let cut = truncate(&long);
        assert_eq!(cut.chars().count(), MAX_ERROR_BODY_CHARS + 1);
    }

    #[test]
    fn hosts_are_checked_and_trailing_slashes_dropped() {
        assert_eq!(normalise_host("http://127.0.0.1:8080/v1/").unwrap(), "http://127.0.0.1:8080/v1");
        assert_eq!(normalise_host(" https://api.openai.com/v1 ").unwrap(), "https://api.openai.com/v1");
        assert!(normalise_host("localhost:11434").is_err());
        assert!(normalise_host("ftp://x").is_err());
        assert!(normalise_host("").is_err());
    }

    #[test]
    fn components_are_percent_encoded() {
        assert_eq!(encode_component("gpt-4o mini/x"), "gpt-4o%20mini%2Fx");
    }
}
