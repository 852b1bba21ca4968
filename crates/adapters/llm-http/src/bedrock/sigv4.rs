//! AWS Signature Version 4 for requests to Amazon Bedrock Runtime.
//!
//! The canonical request, string to sign and signing key follow the AWS documentation ("Create a
//! signed AWS API request"): headers lower-cased and sorted, the payload hashed with SHA-256, the
//! key derived by HMAC-SHA256 over date, region, service and `aws4_request`. Services other than
//! S3 encode each path segment a second time in the canonical URI (a model id
//! `a.b:1` travels as `a.b%3A1` and is signed as `a.b%253A1`).

use chrono::{DateTime, Utc};
use hmac::{KeyInit, Mac};
use reqwest::Url;
use sha2::{Digest, Sha256};

type HmacSha256 = hmac::Hmac<Sha256>;

/// The signing name of Bedrock Runtime.
pub(crate) const BEDROCK_SERVICE: &str = "bedrock";

/// Long-term or temporary credentials.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

/// Signs requests for one region and service.
#[derive(Clone)]
pub(crate) struct Signer {
    pub credentials: Credentials,
    pub region: String,
    pub service: &'static str,
}

/// A request as far as signing is concerned.
pub(crate) struct Parts<'a> {
    pub method: &'a str,
    /// The path as sent (already percent-encoded).
    pub path: &'a str,
    /// The query string as sent, without `?`.
    pub query: &'a str,
    /// Headers to sign, any case.
    pub headers: &'a [(String, String)],
    pub payload: &'a [u8],
}

pub(crate) fn hex_sha256(data: &[u8]) -> String {
    hex_lower(&Sha256::digest(data))
}

fn hex_lower(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length, so this cannot fail.
    match HmacSha256::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(data);
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

/// Percent-encodes everything but unreserved characters (and `/` when `keep_slash`).
fn uri_encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') || (keep_slash && b == b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The canonical URI of a non-S3 service: the sent path, encoded once more.
fn canonical_uri(path: &str) -> String {
    if path.is_empty() { "/".to_string() } else { uri_encode(path, true) }
}

/// The canonical query string: parameters sorted by name then value, each encoded.
fn canonical_query(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (uri_encode(&percent_decode(k), false), uri_encode(&percent_decode(v), false))
        })
        .collect();
    pairs.sort();
    pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Signer {
    fn scope(&self, date: &str) -> String {
        format!("{date}/{}/{}/aws4_request", self.region, self.service)
    }

    fn signing_key(&self, date: &str) -> Vec<u8> {
        let k_date = hmac(format!("AWS4{}", self.credentials.secret_access_key).as_bytes(), date.as_bytes());
        let k_region = hmac(&k_date, self.region.as_bytes());
        let k_service = hmac(&k_region, self.service.as_bytes());
        hmac(&k_service, b"aws4_request")
    }

    /// The `Authorization` header value of `parts` signed at `amz_date` (`YYYYMMDDTHHMMSSZ`).
    pub(crate) fn authorization(&self, parts: &Parts<'_>, amz_date: &str) -> String {
        let date = amz_date.get(..8).unwrap_or(amz_date);
        let mut headers: Vec<(String, String)> = parts
            .headers
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v.split_whitespace().collect::<Vec<_>>().join(" ")))
            .collect();
        headers.sort();
        let signed: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
        let signed = signed.join(";");
        let canonical_headers: String = headers.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
        let canonical_request = format!(
            "{}\n{}\n{}\n{}\n{}\n{}",
            parts.method,
            canonical_uri(parts.path),
            canonical_query(parts.query),
            canonical_headers,
            signed,
            hex_sha256(parts.payload)
        );
        let scope = self.scope(date);
        let string_to_sign =
            format!("AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}", hex_sha256(canonical_request.as_bytes()));
        let signature = hex_lower(&hmac(&self.signing_key(date), string_to_sign.as_bytes()));
        format!(
            "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed}, Signature={signature}",
            self.credentials.access_key_id
        )
    }

    /// The headers to add to a JSON POST to `url` at `now`: `host`, `x-amz-date`,
    /// `x-amz-security-token` (temporary credentials) and `authorization`.
    pub(crate) fn sign_post(
        &self,
        url: &str,
        content_type: &str,
        payload: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Vec<(String, String)>, String> {
        let parsed = Url::parse(url).map_err(|e| e.to_string())?;
        let host = match (parsed.host_str(), parsed.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            (None, _) => return Err(format!("{url} has no host")),
        };
        let amz_date = now.format("%Y%m%dT%H%M%SZ").to_string();
        let mut headers = vec![
            ("content-type".to_string(), content_type.to_string()),
            ("host".to_string(), host.clone()),
            ("x-amz-date".to_string(), amz_date.clone()),
        ];
        if let Some(token) = &self.credentials.session_token {
            headers.push(("x-amz-security-token".to_string(), token.clone()));
        }
        let parts = Parts {
            method: "POST",
            path: parsed.path(),
            query: parsed.query().unwrap_or(""),
            headers: &headers,
            payload,
        };
        let authorization = self.authorization(&parts, &amz_date);
        let mut out: Vec<(String, String)> = headers.into_iter().filter(|(k, _)| k != "content-type").collect();
        out.push(("authorization".to_string(), authorization));
        Ok(out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn signer(region: &str, service: &'static str) -> Signer {
        Signer {
            credentials: Credentials {
                access_key_id: "AKIDEXAMPLE".into(),
                secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
                session_token: None,
            },
            region: region.into(),
            service,
        }
    }

    /// The worked example of the AWS Signature Version 4 documentation (IAM `ListUsers`).
    #[test]
    fn matches_the_aws_documentation_example() {
        let headers = vec![
            ("Content-Type".to_string(), "application/x-www-form-urlencoded; charset=utf-8".to_string()),
            ("Host".to_string(), "iam.amazonaws.com".to_string()),
            ("X-Amz-Date".to_string(), "20150830T123600Z".to_string()),
        ];
        let parts = Parts {
            method: "GET",
            path: "/",
            query: "Action=ListUsers&Version=2010-05-08",
            headers: &headers,
            payload: b"",
        };
        let auth = signer("us-east-1", "iam").authorization(&parts, "20150830T123600Z");
        assert_eq!(
            auth,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date, \
             Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
        );
    }

    #[test]
    fn paths_are_encoded_twice_and_queries_sorted() {
        assert_eq!(canonical_uri("/model/a.b-v2%3A0/converse"), "/model/a.b-v2%253A0/converse");
        assert_eq!(canonical_query("b=2&a=x%20y&a=1"), "a=1&a=x%20y&b=2");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
    }

    #[test]
    fn sign_post_adds_date_host_token_and_authorization() {
        let mut s = signer("eu-west-1", BEDROCK_SERVICE);
        s.credentials.session_token = Some("tok".into());
        let now = DateTime::parse_from_rfc3339("2024-05-01T10:20:30Z").unwrap().with_timezone(&Utc);
        let headers =
            s.sign_post("http://127.0.0.1:8080/model/m%3A1/converse", "application/json", b"{}", now).unwrap();
        let get = |k: &str| headers.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap();
        assert_eq!(get("host"), "127.0.0.1:8080");
        assert_eq!(get("x-amz-date"), "20240501T102030Z");
        assert_eq!(get("x-amz-security-token"), "tok");
        let auth = get("authorization");
        assert!(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240501/eu-west-1/bedrock/aws4_request"));
        assert!(auth.contains("SignedHeaders=content-type;host;x-amz-date;x-amz-security-token"), "{auth}");
    }
}
