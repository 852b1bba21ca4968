//! Amazon Bedrock Runtime: chat through the Converse API (`POST /model/{id}/converse`, and
//! `/converse-stream` answering in the AWS event-stream framing) and embeddings through
//! `InvokeModel` (`POST /model/{id}/invoke`) for the Titan and Cohere embedding models.
//!
//! Requests are signed with AWS SigV4 ([`sigv4`]) from an access key pair (plus a session
//! token for temporary credentials), or carry a Bedrock API key as a bearer token
//! (`AWS_BEARER_TOKEN_BEDROCK`). Request and answer shapes follow the Bedrock API reference
//! (`Converse`, `ConverseStream`, `InvokeModel`; Titan Text Embeddings `inputText` →
//! `embedding`, Cohere Embed `texts` → `embeddings`).

pub(crate) mod eventstream;
pub(crate) mod sigv4;

use async_trait::async_trait;
use lightrag_ports::{
    ChatRequest, ChatResponse, EmbedError, Embedder, EmbeddingIdentity, Llm, LlmError, Role, TextStream, TokenUsage,
};
use serde_json::{Map, Value, json};

use crate::config::{AwsConfig, HttpEmbedConfig, HttpLlmConfig};
use crate::error::{BuildError, Failure};
use crate::http::{Auth, Transport, encode_component, normalise_host, truncate};
use crate::stream::{Step, bytes_stream};
use eventstream::{Decoder, Frame};
use sigv4::{BEDROCK_SERVICE, Credentials, Signer};

/// The endpoint: the configured host, or the region's Bedrock Runtime endpoint.
fn endpoint(host: &str, aws: &AwsConfig) -> Result<String, BuildError> {
    if host.trim().is_empty() {
        Ok(format!("https://bedrock-runtime.{}.amazonaws.com", aws.region))
    } else {
        normalise_host(host)
    }
}

/// How requests authenticate: a Bedrock API key, else SigV4 with the key pair.
fn auth(aws: &AwsConfig) -> Result<Auth, BuildError> {
    if aws.region.trim().is_empty() {
        return Err(BuildError::Aws("no region: set AWS_REGION (e.g. us-east-1)".into()));
    }
    if let Some(token) = aws.bearer_token.as_ref().filter(|t| !t.is_empty()) {
        return Ok(Auth::Bearer(token.clone()));
    }
    match (&aws.access_key_id, &aws.secret_access_key) {
        (Some(id), Some(secret)) if !id.is_empty() && !secret.is_empty() => Ok(Auth::SigV4(Signer {
            credentials: Credentials {
                access_key_id: id.clone(),
                secret_access_key: secret.clone(),
                session_token: aws.session_token.clone().filter(|t| !t.is_empty()),
            },
            region: aws.region.clone(),
            service: BEDROCK_SERVICE,
        })),
        _ => Err(BuildError::Aws(
            "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for \
             temporary credentials), or AWS_BEARER_TOKEN_BEDROCK for a Bedrock API key; profiles, SSO and \
             instance roles are not read"
                .into(),
        )),
    }
}

fn aws_of(aws: &Option<AwsConfig>) -> Result<&AwsConfig, BuildError> {
    aws.as_ref().ok_or_else(|| BuildError::Aws("no region or credentials configured: set AWS_REGION".into()))
}

/// A Bedrock chat model (Converse API).
#[derive(Clone)]
pub struct BedrockLlm {
    base: String,
    model: String,
    inference: Map<String, Value>,
    extra: Option<Value>,
    transport: Transport,
}

impl std::fmt::Debug for BedrockLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BedrockLlm").field("base", &self.base).field("model", &self.model).finish()
    }
}

impl BedrockLlm {
    /// Checks the configuration (region, credentials, model). Does not contact the provider.
    pub fn new(config: &HttpLlmConfig) -> Result<Self, BuildError> {
        if config.model.trim().is_empty() {
            return Err(BuildError::MissingModel);
        }
        let aws = aws_of(&config.aws)?;
        let auth = auth(aws)?;
        let base = format!("{}/model/{}", endpoint(&config.host, aws)?, encode_component(&config.model));
        let mut inference = Map::new();
        if let Some(n) = config.max_tokens {
            inference.insert("maxTokens".into(), json!(n));
        }
        if let Some(t) = config.temperature {
            inference.insert("temperature".into(), json!(t));
        }
        if let Some(p) = config.top_p {
            inference.insert("topP".into(), json!(p));
        }
        if !config.stop.is_empty() {
            inference.insert("stopSequences".into(), json!(config.stop));
        }
        let extra = config.extra_body.clone().filter(|v| v.as_object().is_some_and(|m| !m.is_empty()));
        Ok(Self {
            base,
            model: config.model.clone(),
            inference,
            extra,
            transport: Transport::new(config.timeout, auth)?,
        })
    }

    /// The Converse request body. Bedrock has no JSON mode: `json_mode` only shapes the prompt.
    fn body(&self, request: &ChatRequest) -> Value {
        let mut system: Vec<Value> = Vec::new();
        if let Some(s) = &request.system {
            system.push(json!({ "text": s }));
        }
        let mut messages: Vec<Value> = Vec::new();
        for m in &request.history {
            match m.role {
                Role::System => system.push(json!({ "text": m.content })),
                role => messages.push(json!({ "role": role.as_str(), "content": [{ "text": m.content }] })),
            }
        }
        messages.push(json!({ "role": "user", "content": [{ "text": request.prompt }] }));
        let mut body = json!({ "messages": messages });
        if !system.is_empty() {
            body["system"] = Value::Array(system);
        }
        let mut inference = self.inference.clone();
        if let Some(n) = request.max_tokens {
            inference.insert("maxTokens".into(), json!(n));
        }
        if let Some(t) = request.temperature {
            inference.insert("temperature".into(), json!(t));
        }
        if !inference.is_empty() {
            body["inferenceConfig"] = Value::Object(inference);
        }
        if let Some(extra) = &self.extra {
            body["additionalModelRequestFields"] = extra.clone();
        }
        body
    }
}

fn parse_converse(v: &Value) -> Result<ChatResponse, Failure> {
    let blocks = v.pointer("/output/message/content").and_then(Value::as_array);
    let text: String = blocks
        .map(|b| b.iter().filter_map(|block| block.get("text").and_then(Value::as_str)).collect::<Vec<_>>().concat())
        .unwrap_or_default();
    if text.trim().is_empty() {
        let stop = v.get("stopReason").and_then(Value::as_str).unwrap_or("unknown");
        return Err(Failure::Invalid(format!(
            "Bedrock answered without text (stopReason {stop}{}): {}",
            if stop == "max_tokens" { "; raise BEDROCK_LLM_MAX_TOKENS" } else { "" },
            truncate(&v.to_string())
        )));
    }
    let usage = v.get("usage").and_then(|u| {
        Some(TokenUsage {
            prompt_tokens: u.get("inputTokens")?.as_u64()?,
            completion_tokens: u.get("outputTokens").and_then(Value::as_u64).unwrap_or(0),
        })
    });
    Ok(ChatResponse { content: text, usage })
}

/// The error an exception frame of a stream stands for.
fn stream_exception(frame: &Frame) -> LlmError {
    let kind = frame.header(":exception-type").or(frame.header(":error-code")).unwrap_or("unknown");
    let message = serde_json::from_slice::<Value>(&frame.payload)
        .ok()
        .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| String::from_utf8_lossy(&frame.payload).into_owned());
    let body = truncate(&format!("{kind}: {message}"));
    match kind {
        "throttlingException" => LlmError::RateLimited { retry_after_secs: None },
        "internalServerException" | "modelStreamErrorException" => LlmError::Server { status: 500, body },
        "serviceUnavailableException" => LlmError::Server { status: 503, body },
        "validationException" => LlmError::Client { status: 400, body },
        _ => LlmError::InvalidResponse(format!("Bedrock stream error {body}")),
    }
}

/// What one event of a `ConverseStream` answer means.
fn stream_step(frame: &Frame) -> Step {
    match frame.header(":message-type") {
        Some("exception") | Some("error") => return Step::Fail(stream_exception(frame)),
        _ => {}
    }
    match frame.header(":event-type") {
        Some("contentBlockDelta") => match serde_json::from_slice::<Value>(&frame.payload) {
            Ok(v) => Step::Text(v.pointer("/delta/text").and_then(Value::as_str).unwrap_or("").to_string()),
            Err(e) => Step::Fail(LlmError::InvalidResponse(format!("Bedrock stream event is not JSON: {e}"))),
        },
        Some("messageStop") => Step::Done,
        _ => Step::Skip,
    }
}

#[async_trait]
impl Llm for BedrockLlm {
    /// `bedrock:MODEL`.
    fn identity(&self) -> String {
        format!("bedrock:{}", self.model)
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let response = self.transport.post(&format!("{}/converse", self.base), &self.body(request), true).await?;
        let v = self.transport.read_json(response).await?;
        Ok(parse_converse(&v)?)
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<TextStream, LlmError> {
        let url = format!("{}/converse-stream", self.base);
        let response = self.transport.post(&url, &self.body(request), false).await?;
        let mut decoder = Decoder::default();
        Ok(bytes_stream(response, self.transport.clone(), move |bytes| match bytes {
            Some(b) => match decoder.push(b) {
                Ok(frames) => frames.iter().map(stream_step).collect(),
                Err(e) => vec![Step::Fail(LlmError::InvalidResponse(format!("Bedrock stream: {e}")))],
            },
            None if decoder.leftover() > 0 => {
                vec![Step::Fail(LlmError::InvalidResponse("Bedrock stream ended in the middle of an event".into()))]
            }
            None => Vec::new(),
        }))
    }
}

/// Which request shape an embedding model takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EmbedFamily {
    /// Titan Text Embeddings v2: one text per call, `embeddingTypes`, optional `dimensions`.
    TitanV2,
    /// Titan Text Embeddings v1: one text per call.
    TitanV1,
    /// Cohere Embed: all texts in one call.
    Cohere,
}

/// A Bedrock embedding model (`InvokeModel`).
#[derive(Clone)]
pub struct BedrockEmbedder {
    url: String,
    model: String,
    dim: usize,
    family: EmbedFamily,
    send_dimensions: bool,
    transport: Transport,
}

impl std::fmt::Debug for BedrockEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BedrockEmbedder").field("url", &self.url).field("dim", &self.dim).finish()
    }
}

impl BedrockEmbedder {
    /// Checks the configuration. Titan (`amazon.titan-embed-text-v1`/`-v2`) and Cohere
    /// (`cohere.embed-*`) models are supported, as in LightRAG.
    pub fn new(config: &HttpEmbedConfig) -> Result<Self, BuildError> {
        if config.model.trim().is_empty() {
            return Err(BuildError::MissingModel);
        }
        if config.dim == 0 {
            return Err(BuildError::ZeroDimension);
        }
        let family = match config.model.split('.').next().unwrap_or("") {
            "amazon" if config.model.contains("v2") => EmbedFamily::TitanV2,
            "amazon" if config.model.contains("v1") => EmbedFamily::TitanV1,
            "cohere" => EmbedFamily::Cohere,
            _ => {
                return Err(BuildError::Aws(format!(
                    "embedding model {} is not supported; use amazon.titan-embed-text-v2:0, \
                     amazon.titan-embed-text-v1 or a cohere.embed-* model",
                    config.model
                )));
            }
        };
        let aws = aws_of(&config.aws)?;
        let auth = auth(aws)?;
        let url = format!("{}/model/{}/invoke", endpoint(&config.host, aws)?, encode_component(&config.model));
        Ok(Self {
            url,
            model: config.model.clone(),
            dim: config.dim,
            family,
            send_dimensions: config.send_dimensions,
            transport: Transport::new(config.timeout, auth)?,
        })
    }

    async fn invoke(&self, body: Value) -> Result<Value, Failure> {
        let response = self.transport.post(&self.url, &body, true).await?;
        self.transport.read_json(response).await
    }

    fn vector(v: &Value, at: &str) -> Result<Vec<f32>, Failure> {
        let values = v.pointer(at).and_then(Value::as_array).ok_or_else(|| {
            Failure::Invalid(format!("Bedrock embedding answer has no {at}: {}", truncate(&v.to_string())))
        })?;
        values
            .iter()
            .map(|x| {
                x.as_f64().map(|f| f as f32).ok_or_else(|| Failure::Invalid("a vector value is not a number".into()))
            })
            .collect()
    }

    async fn embed_all(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, Failure> {
        let vectors = match self.family {
            EmbedFamily::Cohere => {
                let v =
                    self.invoke(json!({ "texts": texts, "input_type": "search_document", "truncate": "NONE" })).await?;
                // `embeddings` is a list of vectors, or `{"float": [...]}` when types were asked for
                let list = v.get("embeddings").map(|e| e.get("float").unwrap_or(e)).and_then(Value::as_array);
                let list = list.ok_or_else(|| {
                    Failure::Invalid(format!("Cohere answer has no embeddings: {}", truncate(&v.to_string())))
                })?;
                list.iter().map(|item| Self::vector(item, "")).collect::<Result<Vec<_>, _>>()?
            }
            family => {
                let mut out = Vec::with_capacity(texts.len());
                for text in texts {
                    let mut body = json!({ "inputText": text });
                    if family == EmbedFamily::TitanV2 {
                        body["embeddingTypes"] = json!(["float"]);
                        if self.send_dimensions {
                            body["dimensions"] = json!(self.dim);
                        }
                    }
                    let v = self.invoke(body).await?;
                    out.push(Self::vector(&v, "/embedding")?);
                }
                out
            }
        };
        if vectors.len() != texts.len() {
            return Err(Failure::Invalid(format!(
                "Bedrock returned {} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        if let Some(bad) = vectors.iter().find(|v| v.len() != self.dim) {
            return Err(Failure::Invalid(format!(
                "Bedrock returned dim {}, EMBEDDING_DIM is {} (set EMBEDDING_DIM to the model's vector size)",
                bad.len(),
                self.dim
            )));
        }
        Ok(vectors)
    }
}

#[async_trait]
impl Embedder for BedrockEmbedder {
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
    use lightrag_ports::ChatMessage;

    fn aws() -> AwsConfig {
        AwsConfig {
            region: "us-west-2".into(),
            access_key_id: Some("AKID".into()),
            secret_access_key: Some("secret".into()),
            ..AwsConfig::default()
        }
    }

    fn llm() -> BedrockLlm {
        BedrockLlm::new(&HttpLlmConfig {
            host: String::new(),
            model: "anthropic.claude-3-haiku-20240307-v1:0".into(),
            max_tokens: Some(512),
            top_p: Some(0.9),
            stop: vec!["END".into()],
            aws: Some(aws()),
            ..HttpLlmConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn urls_use_the_regional_endpoint_and_encode_the_model() {
        assert_eq!(
            llm().base,
            "https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0"
        );
    }

    #[test]
    fn converse_body_has_system_messages_and_inference_config() {
        let request = ChatRequest {
            system: Some("sys".into()),
            history: vec![ChatMessage::new(Role::User, "u1"), ChatMessage::new(Role::Assistant, "a1")],
            prompt: "now".into(),
            temperature: Some(0.2),
            json_mode: true,
            ..ChatRequest::default()
        };
        let body = llm().body(&request);
        assert_eq!(body["system"], json!([{"text": "sys"}]));
        assert_eq!(body["messages"][1], json!({"role": "assistant", "content": [{"text": "a1"}]}));
        assert_eq!(body["messages"][2], json!({"role": "user", "content": [{"text": "now"}]}));
        assert_eq!(
            body["inferenceConfig"],
            json!({"maxTokens": 512, "topP": 0.9f32, "stopSequences": ["END"], "temperature": 0.2f32})
        );
        assert!(body.get("response_format").is_none());
    }

    #[test]
    fn missing_region_or_credentials_are_build_errors() {
        let no_region = AwsConfig { region: String::new(), ..aws() };
        assert!(matches!(auth(&no_region), Err(BuildError::Aws(m)) if m.contains("AWS_REGION")));
        let no_keys = AwsConfig { region: "us-east-1".into(), ..AwsConfig::default() };
        assert!(matches!(auth(&no_keys), Err(BuildError::Aws(m)) if m.contains("AWS_ACCESS_KEY_ID")));
        let bearer = AwsConfig { bearer_token: Some("k".into()), ..no_keys };
        assert!(matches!(auth(&bearer), Ok(Auth::Bearer(_))));
        let bad_model = HttpEmbedConfig { model: "meta.llama".into(), aws: Some(aws()), ..HttpEmbedConfig::default() };
        assert!(matches!(BedrockEmbedder::new(&bad_model), Err(BuildError::Aws(_))));
    }

    #[test]
    fn converse_answers_parse_and_empty_ones_fail() {
        let v = json!({"output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}},
                       "stopReason": "end_turn", "usage": {"inputTokens": 5, "outputTokens": 1, "totalTokens": 6}});
        let r = parse_converse(&v).unwrap();
        assert_eq!(r.content, "hi");
        assert_eq!(r.usage, Some(TokenUsage { prompt_tokens: 5, completion_tokens: 1 }));
        let empty = json!({"output": {"message": {"content": []}}, "stopReason": "max_tokens"});
        assert!(matches!(parse_converse(&empty), Err(Failure::Invalid(m)) if m.contains("BEDROCK_LLM_MAX_TOKENS")));
    }

    #[test]
    fn stream_frames_map_to_steps() {
        let frame = |headers: &[(&str, &str)], payload: &str| Frame {
            headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            payload: payload.as_bytes().to_vec(),
        };
        let delta =
            frame(&[(":event-type", "contentBlockDelta"), (":message-type", "event")], r#"{"delta":{"text":"a"}}"#);
        assert!(matches!(stream_step(&delta), Step::Text(t) if t == "a"));
        assert!(matches!(stream_step(&frame(&[(":event-type", "messageStop")], "{}")), Step::Done));
        assert!(matches!(stream_step(&frame(&[(":event-type", "messageStart")], "{}")), Step::Skip));
        let throttled = frame(
            &[(":message-type", "exception"), (":exception-type", "throttlingException")],
            r#"{"message":"slow down"}"#,
        );
        assert!(matches!(stream_step(&throttled), Step::Fail(LlmError::RateLimited { .. })));
    }
}
