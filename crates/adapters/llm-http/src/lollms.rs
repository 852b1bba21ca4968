//! lollms: `POST {host}/lollms_generate` answers with the generated text as a plain body (a
//! text stream when `stream` is true); `POST {host}/lollms_embed` takes one `text` and answers
//! `{"vector": [...]}`. lollms has no JSON mode and no chat turns: the system prompt and the
//! history go in front of the prompt, one `role: content` line per turn (LightRAG's layout).

use async_trait::async_trait;
use lightrag_ports::{ChatRequest, ChatResponse, EmbedError, Embedder, EmbeddingIdentity, Llm, LlmError, TextStream};
use serde_json::{Value, json};

use crate::config::{HttpEmbedConfig, HttpLlmConfig};
use crate::error::{BuildError, Failure};
use crate::http::{Auth, Transport, normalise_host, truncate};
use crate::stream::{Step, Utf8Decoder, bytes_stream};

/// A lollms chat model.
#[derive(Clone)]
pub struct LollmsLlm {
    url: String,
    model: String,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
    top_p: Option<f32>,
    transport: Transport,
}

impl std::fmt::Debug for LollmsLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LollmsLlm").field("url", &self.url).field("model", &self.model).finish()
    }
}

impl LollmsLlm {
    /// Checks the configuration. Does not contact the server.
    pub fn new(config: &HttpLlmConfig) -> Result<Self, BuildError> {
        if config.model.trim().is_empty() {
            return Err(BuildError::MissingModel);
        }
        let auth = match &config.api_key {
            Some(k) if !k.is_empty() => Auth::Bearer(k.clone()),
            _ => Auth::None,
        };
        Ok(Self {
            url: format!("{}/lollms_generate", normalise_host(&config.host)?),
            model: config.model.clone(),
            temperature: config.temperature,
            max_tokens: config.max_tokens,
            top_p: config.top_p,
            transport: Transport::new(config.timeout, auth)?,
        })
    }

    /// The whole conversation as one prompt.
    fn prompt(request: &ChatRequest) -> String {
        let mut out = String::new();
        if let Some(system) = &request.system {
            out.push_str(system);
            out.push('\n');
        }
        for m in &request.history {
            out.push_str(&format!("{}: {}\n", m.role.as_str(), m.content));
        }
        out.push_str(&request.prompt);
        out
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        json!({
            "prompt": Self::prompt(request),
            "model_name": self.model,
            "personality": -1,
            "n_predict": request.max_tokens.or(self.max_tokens),
            "stream": stream,
            "temperature": request.temperature.or(self.temperature).unwrap_or(1.0),
            "top_k": 50,
            "top_p": self.top_p.unwrap_or(0.95),
            "repeat_penalty": 0.8,
            "repeat_last_n": 40,
            "seed": Value::Null,
            "n_threads": 8,
        })
    }
}

#[async_trait]
impl Llm for LollmsLlm {
    /// `lollms:MODEL`.
    fn identity(&self) -> String {
        format!("lollms:{}", self.model)
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let response = self.transport.post(&self.url, &self.body(request, false), true).await?;
        let bytes = response.bytes().await.map_err(|e| LlmError::from(self.transport.failure(&e)))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if text.trim().is_empty() {
            return Err(Failure::Invalid("lollms answered with an empty body".into()).into());
        }
        // no usage is reported: the gateway counts the tokens
        Ok(ChatResponse { content: text, usage: None })
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<TextStream, LlmError> {
        let response = self.transport.post(&self.url, &self.body(request, true), false).await?;
        let mut utf8 = Utf8Decoder::default();
        Ok(bytes_stream(response, self.transport.clone(), move |bytes| vec![Step::Text(utf8.push(bytes))]))
    }
}

/// lollms embeddings (the server's configured vectorizer; one request per text).
#[derive(Clone)]
pub struct LollmsEmbedder {
    url: String,
    model: String,
    dim: usize,
    transport: Transport,
}

impl std::fmt::Debug for LollmsEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LollmsEmbedder").field("url", &self.url).field("dim", &self.dim).finish()
    }
}

impl LollmsEmbedder {
    /// Checks the configuration. The key, if any, is sent as the raw `Authorization` value (as
    /// LightRAG does for this endpoint).
    pub fn new(config: &HttpEmbedConfig) -> Result<Self, BuildError> {
        if config.dim == 0 {
            return Err(BuildError::ZeroDimension);
        }
        let auth = match &config.api_key {
            Some(k) if !k.is_empty() => Auth::Header("authorization", k.clone()),
            _ => Auth::None,
        };
        Ok(Self {
            url: format!("{}/lollms_embed", normalise_host(&config.host)?),
            model: config.model.clone(),
            dim: config.dim,
            transport: Transport::new(config.timeout, auth)?,
        })
    }
}

#[async_trait]
impl Embedder for LollmsEmbedder {
    fn identity(&self) -> EmbeddingIdentity {
        EmbeddingIdentity { model: self.model.clone(), dim: self.dim }
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for text in texts {
            let response = self.transport.post(&self.url, &json!({ "text": text }), true).await?;
            let v = self.transport.read_json(response).await?;
            let vector: Vec<f32> = v
                .get("vector")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_f64).map(|x| x as f32).collect())
                .ok_or_else(|| {
                    Failure::Invalid(format!("lollms answer has no vector: {}", truncate(&v.to_string())))
                })?;
            if vector.len() != self.dim {
                return Err(Failure::Invalid(format!(
                    "lollms returned dim {}, EMBEDDING_DIM is {} (set EMBEDDING_DIM to the vectorizer's size)",
                    vector.len(),
                    self.dim
                ))
                .into());
            }
            out.push(vector);
        }
        Ok(out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use lightrag_ports::{ChatMessage, Role};

    #[test]
    fn the_conversation_becomes_one_prompt() {
        let request = ChatRequest {
            system: Some("sys".into()),
            history: vec![ChatMessage::new(Role::User, "hi"), ChatMessage::new(Role::Assistant, "yo")],
            prompt: "now".into(),
            ..ChatRequest::default()
        };
        assert_eq!(LollmsLlm::prompt(&request), "sys\nuser: hi\nassistant: yo\nnow");
        let llm = LollmsLlm::new(&HttpLlmConfig {
            host: "http://127.0.0.1:9600/".into(),
            model: "m".into(),
            max_tokens: Some(10),
            ..HttpLlmConfig::default()
        })
        .unwrap();
        assert_eq!(llm.url, "http://127.0.0.1:9600/lollms_generate");
        let body = llm.body(&request, true);
        assert_eq!(body["n_predict"], json!(10));
        assert_eq!(body["stream"], json!(true));
        assert_eq!(body["model_name"], json!("m"));
    }
}
