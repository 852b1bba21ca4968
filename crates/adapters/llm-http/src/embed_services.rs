//! Embedding-only services: Jina AI (`POST {host}/embeddings`, vectors as base64 float32 with
//! `embedding_type: "base64"`, the dimension always sent) and Voyage AI
//! (`POST {host}/embeddings`, `output_dimension` when asked). Both answer
//! `{"data": [{"index", "embedding"}], "usage": {...}}` and take a bearer key.

use async_trait::async_trait;
use base64::Engine as _;
use lightrag_ports::{EmbedError, Embedder, EmbeddingIdentity};
use serde_json::{Value, json};

use crate::config::{HttpEmbedConfig, LlmBinding};
use crate::error::{BuildError, Failure};
use crate::http::{Auth, Transport, normalise_host, truncate};

/// Jina's default task (LightRAG's when no query/document context is given).
pub const DEFAULT_JINA_TASK: &str = "text-matching";

/// A Jina AI or Voyage AI embedding model.
#[derive(Clone)]
pub struct ServiceEmbedder {
    binding: LlmBinding,
    url: String,
    model: String,
    dim: usize,
    send_dimensions: bool,
    task: Option<String>,
    transport: Transport,
}

impl std::fmt::Debug for ServiceEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceEmbedder").field("binding", &self.binding).field("url", &self.url).finish()
    }
}

/// `{host}/embeddings`, unless the host already is that URL.
fn embeddings_url(host: &str) -> Result<String, BuildError> {
    let host = normalise_host(host)?;
    Ok(if host.ends_with("/embeddings") { host } else { format!("{host}/embeddings") })
}

impl ServiceEmbedder {
    /// Checks the configuration (`binding` must be Jina or Voyage AI).
    pub fn new(config: &HttpEmbedConfig) -> Result<Self, BuildError> {
        if !matches!(config.binding, LlmBinding::Jina | LlmBinding::VoyageAi) {
            return Err(BuildError::NoEmbeddingApi(config.binding.as_str()));
        }
        if config.model.trim().is_empty() {
            return Err(BuildError::MissingModel);
        }
        if config.dim == 0 {
            return Err(BuildError::ZeroDimension);
        }
        let auth = match &config.api_key {
            Some(k) if !k.is_empty() => Auth::Bearer(k.clone()),
            _ => Auth::None,
        };
        Ok(Self {
            binding: config.binding,
            url: embeddings_url(&config.host)?,
            model: config.model.clone(),
            dim: config.dim,
            // Jina needs the dimension (LightRAG always sends it); Voyage only when asked
            send_dimensions: config.binding == LlmBinding::Jina || config.send_dimensions,
            task: config.task.clone(),
            transport: Transport::new(config.timeout, auth)?,
        })
    }

    fn body(&self, texts: &[String]) -> Value {
        match self.binding {
            LlmBinding::Jina => json!({
                "model": self.model,
                "task": self.task.as_deref().unwrap_or(DEFAULT_JINA_TASK),
                "dimensions": self.dim,
                "embedding_type": "base64",
                "input": texts,
            }),
            _ => {
                let mut body = json!({ "model": self.model, "input": texts, "truncation": true });
                if let Some(task) = &self.task {
                    body["input_type"] = json!(task);
                }
                if self.send_dimensions {
                    body["output_dimension"] = json!(self.dim);
                }
                body
            }
        }
    }

    /// A vector given as a JSON list or as base64 little-endian float32.
    fn vector(v: &Value) -> Result<Vec<f32>, Failure> {
        match v {
            Value::Array(items) => items
                .iter()
                .map(|x| {
                    x.as_f64()
                        .map(|f| f as f32)
                        .ok_or_else(|| Failure::Invalid("a vector value is not a number".into()))
                })
                .collect(),
            Value::String(b64) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(b64.trim())
                    .map_err(|e| Failure::Invalid(format!("embedding is not valid base64: {e}")))?;
                if bytes.len() % 4 != 0 {
                    return Err(Failure::Invalid(format!("base64 embedding of {} bytes is not float32", bytes.len())));
                }
                Ok(bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
            }
            other => Err(Failure::Invalid(format!("unexpected embedding value: {}", truncate(&other.to_string())))),
        }
    }

    async fn embed_all(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, Failure> {
        let response = self.transport.post(&self.url, &self.body(texts), true).await?;
        let v = self.transport.read_json(response).await?;
        let data = v.get("data").and_then(Value::as_array).ok_or_else(|| {
            Failure::Invalid(format!("{} answer has no data list: {}", self.binding, truncate(&v.to_string())))
        })?;
        let mut indexed = Vec::with_capacity(data.len());
        for (position, item) in data.iter().enumerate() {
            let index = item.get("index").and_then(Value::as_u64).map_or(position, |i| i as usize);
            let embedding =
                item.get("embedding").ok_or_else(|| Failure::Invalid("a data item has no embedding".into()))?;
            indexed.push((index, Self::vector(embedding)?));
        }
        indexed.sort_by_key(|(i, _)| *i);
        if indexed.len() != texts.len() || indexed.iter().enumerate().any(|(p, (i, _))| p != *i) {
            return Err(Failure::Invalid(format!(
                "{} returned {} vectors for {} texts (or indexes that are not 0..n)",
                self.binding,
                indexed.len(),
                texts.len()
            )));
        }
        if let Some((_, bad)) = indexed.iter().find(|(_, v)| v.len() != self.dim) {
            return Err(Failure::Invalid(format!(
                "{} returned dim {}, EMBEDDING_DIM is {}",
                self.binding,
                bad.len(),
                self.dim
            )));
        }
        Ok(indexed.into_iter().map(|(_, v)| v).collect())
    }
}

#[async_trait]
impl Embedder for ServiceEmbedder {
    fn identity(&self) -> EmbeddingIdentity {
        EmbeddingIdentity { model: self.model.clone(), dim: self.dim }
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        Ok(self.embed_all(texts).await?)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn embedder(binding: LlmBinding) -> ServiceEmbedder {
        ServiceEmbedder::new(&HttpEmbedConfig {
            binding,
            host: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            dim: 2,
            ..HttpEmbedConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn bodies_follow_each_service() {
        let texts = vec!["a".to_string()];
        let jina = embedder(LlmBinding::Jina);
        assert_eq!(jina.url, "http://127.0.0.1:9/v1/embeddings");
        assert_eq!(
            jina.body(&texts),
            json!({"model": "m", "task": "text-matching", "dimensions": 2, "embedding_type": "base64", "input": ["a"]})
        );
        assert_eq!(
            embedder(LlmBinding::VoyageAi).body(&texts),
            json!({"model": "m", "input": ["a"], "truncation": true})
        );
        assert_eq!(embeddings_url("https://api.jina.ai/v1/embeddings").unwrap(), "https://api.jina.ai/v1/embeddings");
    }

    #[test]
    fn base64_vectors_decode_as_little_endian_float32() {
        let bytes: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|f| f.to_le_bytes()).collect();
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        assert_eq!(ServiceEmbedder::vector(&json!(b64)).unwrap(), vec![1.5, -2.0]);
        assert!(ServiceEmbedder::vector(&json!("AAA=")).is_err());
        assert!(ServiceEmbedder::vector(&json!("%%%")).is_err());
    }
}
