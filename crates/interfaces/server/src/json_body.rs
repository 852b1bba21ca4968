//! [`ApiJson`]: a JSON request body whose errors are FastAPI's 422 `{"detail": [...]}` with the
//! offending field in `loc` (`["body", "conversation_history", "0", "role"]`), as LightRAG
//! answers; a body over the route's limit is a 413 naming the limit and its setting.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, StatusCode, header};
use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;

use crate::errors::ApiError;
use crate::limits::BodyLimit;

/// A JSON body whose parse errors become 422 `{"detail": [...]}` like FastAPI's.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let limit = req.extensions().get::<BodyLimit>().copied();
        if !is_json(req.headers()) {
            return Err(ApiError::invalid(&[], "Expected request with `Content-Type: application/json`"));
        }
        let bytes = match Bytes::from_request(req, state).await {
            Ok(bytes) => bytes,
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                return Err(match limit {
                    Some(limit) => limit.refusal(),
                    None => ApiError::TooLarge("request body too large; send less".into()),
                });
            }
            Err(e) => return Err(ApiError::invalid(&[], e.body_text())),
        };
        parse(&bytes).map(ApiJson)
    }
}

/// `application/json` or any `…+json` type.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Parses `bytes` as `T`; a data error names the field where it happened.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize::<_, T>(&mut de).map_err(|e| {
        let inner = e.inner();
        if !inner.is_data() {
            return ApiError::invalid(&[], format!("JSON decode error: {inner}"));
        }
        let mut loc: Vec<String> = e
            .path()
            .iter()
            .filter_map(|segment| match segment {
                Segment::Seq { index } => Some(index.to_string()),
                Segment::Map { key } => Some(key.clone()),
                Segment::Enum { variant } => Some(variant.clone()),
                Segment::Unknown => None,
            })
            .collect();
        let message = inner.to_string();
        if let Some(field) = missing_field(&message) {
            loc.push(field.to_string());
        }
        let loc: Vec<&str> = loc.iter().map(String::as_str).collect();
        ApiError::invalid(&loc, message)
    })?;
    de.end().map_err(|e| ApiError::invalid(&[], format!("JSON decode error: {e}")))?;
    Ok(value)
}

/// The field of serde's "missing field `name`" message.
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Turn {
        role: String,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Body {
        query: String,
        #[serde(default)]
        top_k: Option<u32>,
        #[serde(default)]
        history: Vec<Turn>,
    }

    fn loc(bytes: &str) -> serde_json::Value {
        match parse::<Body>(bytes.as_bytes()) {
            Err(ApiError::Validation(items)) => items[0]["loc"].clone(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn errors_name_the_field_as_fastapi_does() {
        assert_eq!(loc(r#"{"query": "q", "top_k": "many"}"#), serde_json::json!(["body", "top_k"]));
        assert_eq!(loc(r#"{"top_k": 3}"#), serde_json::json!(["body", "query"]));
        assert_eq!(
            loc(r#"{"query": "q", "history": [{"role": 1}]}"#),
            serde_json::json!(["body", "history", "0", "role"])
        );
        assert_eq!(loc(r#"{"query": "q"#), serde_json::json!(["body"]));
        assert_eq!(loc(r#"{"query": "q"} trailing"#), serde_json::json!(["body"]));
        assert!(parse::<Body>(br#"{"query": "q", "top_k": 3}"#).is_ok());
    }
}
