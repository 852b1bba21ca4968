//! [`HttpEmbedder`]: the [`Embedder`] port over OpenAI-compatible, Azure OpenAI and Ollama
//! embedding APIs. Every answer is checked: one vector per input, each of the configured size.

use async_trait::async_trait;
use lightrag_ports::{EmbedError, Embedder, EmbeddingIdentity};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::config::{HttpEmbedConfig, LlmBinding};
use crate::error::{BuildError, Failure};
use crate::http::{Operation, Transport, auth_for, endpoint_url};

/// An embedding model reached over HTTP. Build it with [`HttpEmbedder::new`] or
/// [`crate::build_embedder`].
#[derive(Clone)]
pub struct HttpEmbedder {
    binding: LlmBinding,
    url: String,
    model: String,
    dim: usize,
    send_dimensions: bool,
    num_ctx: Option<u32>,
    transport: Transport,
}

impl std::fmt::Debug for HttpEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpEmbedder")
            .field("binding", &self.binding)
            .field("url", &self.url)
            .field("model", &self.model)
            .field("dim", &self.dim)
            .finish()
    }
}

#[derive(Deserialize)]
struct OpenAiAnswer {
    data: Vec<OpenAiItem>,
}

#[derive(Deserialize)]
struct OpenAiItem {
    index: usize,
    embedding: Vec<f32>,
}

#[derive(Deserialize)]
struct OllamaAnswer {
    embeddings: Vec<Vec<f32>>,
}

impl HttpEmbedder {
    /// Checks the configuration and creates the HTTP client. Does not contact the provider.
    pub fn new(config: &HttpEmbedConfig) -> Result<Self, BuildError> {
        if config.model.trim().is_empty() {
            return Err(BuildError::MissingModel);
        }
        if config.dim == 0 {
            return Err(BuildError::ZeroDimension);
        }
        let op = Operation { openai: "embeddings", ollama: "api/embed", azure: "embeddings" };
        let url = endpoint_url(
            config.binding,
            &config.host,
            &op,
            &config.model,
            config.deployment.as_deref(),
            config.api_version.as_deref(),
        )?;
        let auth = auth_for(config.api_key.as_ref(), config.binding);
        Ok(Self {
            binding: config.binding,
            url,
            model: config.model.clone(),
            dim: config.dim,
            send_dimensions: config.send_dimensions,
            num_ctx: config.num_ctx,
            transport: Transport::new(config.timeout, auth)?,
        })
    }

    fn body(&self, texts: &[String]) -> Value {
        let mut body = json!({ "model": self.model, "input": texts });
        match self.binding {
            LlmBinding::Ollama => {
                if let Some(n) = self.num_ctx {
                    body["options"] = json!({ "num_ctx": n });
                }
            }
            _ => {
                if self.send_dimensions {
                    body["dimensions"] = json!(self.dim);
                }
            }
        }
        body
    }

    /// Puts the vectors in input order and checks their number and size.
    fn check(&self, mut vectors: Vec<(usize, Vec<f32>)>, expected: usize) -> Result<Vec<Vec<f32>>, Failure> {
        if vectors.len() != expected {
            return Err(Failure::Invalid(format!("server returned {} vectors for {expected} texts", vectors.len())));
        }
        vectors.sort_by_key(|(i, _)| *i);
        for (position, (index, vector)) in vectors.iter().enumerate() {
            if *index != position {
                return Err(Failure::Invalid(format!(
                    "server returned vector indexes that are not 0..{expected} (found {index} at position {position})"
                )));
            }
            if vector.len() != self.dim {
                return Err(Failure::Invalid(format!(
                    "server returned dim {}, EMBEDDING_DIM is {} (set EMBEDDING_DIM to the model's vector size{})",
                    vector.len(),
                    self.dim,
                    if self.send_dimensions { "" } else { ", or EMBEDDING_SEND_DIM=true if the model supports it" }
                )));
            }
            if vector.iter().any(|x| !x.is_finite()) {
                return Err(Failure::Invalid(format!(
                    "server returned a vector with NaN or infinite values (text {index})"
                )));
            }
        }
        Ok(vectors.into_iter().map(|(_, v)| v).collect())
    }
}

fn shape_error(e: serde_json::Error, expected: &str) -> Failure {
    Failure::Invalid(format!("embedding answer does not have the expected shape {expected}: {e}"))
}

#[async_trait]
impl Embedder for HttpEmbedder {
    fn identity(&self) -> EmbeddingIdentity {
        EmbeddingIdentity { model: self.model.clone(), dim: self.dim }
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let response = self.transport.post(&self.url, &self.body(texts), true).await?;
        let indexed: Vec<(usize, Vec<f32>)> = match self.binding {
            LlmBinding::Ollama => {
                let answer: OllamaAnswer =
                    self.transport.read_typed(response, |e| shape_error(e, "{\"embeddings\": [[...]]}")).await?;
                answer.embeddings.into_iter().enumerate().collect()
            }
            _ => {
                let answer: OpenAiAnswer = self
                    .transport
                    .read_typed(response, |e| shape_error(e, "{\"data\": [{\"index\", \"embedding\"}]}"))
                    .await?;
                answer.data.into_iter().map(|item| (item.index, item.embedding)).collect()
            }
        };
        Ok(self.check(indexed, texts.len())?)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn embedder(binding: LlmBinding, send_dimensions: bool) -> HttpEmbedder {
        HttpEmbedder::new(&HttpEmbedConfig {
            binding,
            host: "http://127.0.0.1:9".into(),
            model: "e1".into(),
            dim: 3,
            send_dimensions,
            num_ctx: Some(512),
            ..HttpEmbedConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn bodies_follow_the_binding() {
        let texts = vec!["a".to_string()];
        assert_eq!(embedder(LlmBinding::OpenAi, false).body(&texts), json!({"model": "e1", "input": ["a"]}));
        assert_eq!(embedder(LlmBinding::OpenAi, true).body(&texts)["dimensions"], json!(3));
        assert_eq!(
            embedder(LlmBinding::Ollama, true).body(&texts),
            json!({"model": "e1", "input": ["a"], "options": {"num_ctx": 512}})
        );
        assert_eq!(
            embedder(LlmBinding::AzureOpenAi, false).url,
            "http://127.0.0.1:9/openai/deployments/e1/embeddings?api-version=2024-08-01-preview"
        );
    }

    #[test]
    fn check_sorts_and_validates() {
        let e = embedder(LlmBinding::OpenAi, false);
        let got = e.check(vec![(1, vec![1.0, 1.0, 1.0]), (0, vec![0.0, 0.0, 0.0])], 2).unwrap();
        assert_eq!(got[0], vec![0.0, 0.0, 0.0]);
        assert!(
            matches!(e.check(vec![(0, vec![0.0; 3])], 2), Err(Failure::Invalid(m)) if m.contains("1 vectors for 2 texts"))
        );
        assert!(
            matches!(e.check(vec![(0, vec![0.0; 4])], 1), Err(Failure::Invalid(m)) if m.contains("server returned dim 4, EMBEDDING_DIM is 3"))
        );
        assert!(matches!(e.check(vec![(0, vec![0.0; 3]), (0, vec![0.0; 3])], 2), Err(Failure::Invalid(_))));
        assert!(matches!(e.check(vec![(0, vec![f32::NAN, 0.0, 0.0])], 1), Err(Failure::Invalid(_))));
    }

    #[test]
    fn building_rejects_bad_settings() {
        let base = HttpEmbedConfig { host: "http://x".into(), ..HttpEmbedConfig::default() };
        assert_eq!(
            HttpEmbedder::new(&HttpEmbedConfig { dim: 0, ..base.clone() }).unwrap_err(),
            BuildError::ZeroDimension
        );
        assert_eq!(
            HttpEmbedder::new(&HttpEmbedConfig { model: " ".into(), ..base.clone() }).unwrap_err(),
            BuildError::MissingModel
        );
        assert!(matches!(
            HttpEmbedder::new(&HttpEmbedConfig { host: "nope".into(), ..base }),
            Err(BuildError::InvalidHost { .. })
        ));
    }
}
