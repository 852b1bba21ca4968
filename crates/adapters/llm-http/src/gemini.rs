//! Google Gemini API (the Developer API with an API key): chat through
//! `POST {root}/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`, embeddings
//! through `:embedContent` (one text) and `:batchEmbedContents` (several). The key travels in the
//! `x-goog-api-key` header. Shapes follow the Gemini API reference: `contents` of `parts`,
//! `systemInstruction`, `generationConfig` (`responseMimeType: application/json` for JSON
//! answers), answers in `candidates[].content.parts[].text` with `usageMetadata`; embeddings
//! in `embedding.values` / `embeddings[].values`.

use async_trait::async_trait;
use lightrag_ports::{
    ChatRequest, ChatResponse, EmbedError, Embedder, EmbeddingIdentity, Llm, LlmError, Role, TextStream, TokenUsage,
};
use serde_json::{Map, Value, json};

use crate::config::{HttpEmbedConfig, HttpLlmConfig};
use crate::error::{BuildError, Failure};
use crate::http::{Auth, Transport, normalise_host, truncate};
use crate::stream::{SseDecoder, Step, text_stream};

/// Dimension of Gemini's full-size embeddings (already unit length); smaller ones are
/// normalised here, as LightRAG does.
const FULL_DIM: usize = 3072;
/// Default embedding task type (LightRAG's for documents).
pub const DEFAULT_GEMINI_TASK: &str = "RETRIEVAL_DOCUMENT";

/// The API root: the host with `/v1beta` appended unless it already names a version.
fn api_root(host: &str) -> Result<String, BuildError> {
    let host = normalise_host(host)?;
    let versioned = host.rsplit('/').next().is_some_and(|last| last.starts_with("v1"));
    Ok(if versioned { host } else { format!("{host}/v1beta") })
}

/// `models/NAME` (a name already starting with `models/` or `tunedModels/` is kept).
fn model_path(model: &str) -> String {
    if model.starts_with("models/") || model.starts_with("tunedModels/") {
        model.to_string()
    } else {
        format!("models/{model}")
    }
}

fn key_auth(key: &Option<String>) -> Auth {
    match key {
        Some(k) if !k.is_empty() => Auth::Header("x-goog-api-key", k.clone()),
        _ => Auth::None,
    }
}

/// A Gemini chat model.
#[derive(Clone)]
pub struct GeminiLlm {
    url: String,
    stream_url: String,
    model: String,
    generation: Map<String, Value>,
    transport: Transport,
}

impl std::fmt::Debug for GeminiLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeminiLlm").field("url", &self.url).field("model", &self.model).finish()
    }
}

impl GeminiLlm {
    /// Checks the configuration. Does not contact the provider.
    pub fn new(config: &HttpLlmConfig) -> Result<Self, BuildError> {
        if config.model.trim().is_empty() {
            return Err(BuildError::MissingModel);
        }
        let base = format!("{}/{}", api_root(&config.host)?, model_path(&config.model));
        let mut generation = Map::new();
        if let Some(t) = config.temperature {
            generation.insert("temperature".into(), json!(t));
        }
        if let Some(n) = config.max_tokens {
            generation.insert("maxOutputTokens".into(), json!(n));
        }
        if let Some(p) = config.top_p {
            generation.insert("topP".into(), json!(p));
        }
        if !config.stop.is_empty() {
            generation.insert("stopSequences".into(), json!(config.stop));
        }
        if let Some(Value::Object(extra)) = &config.extra_body {
            generation.extend(extra.clone());
        }
        Ok(Self {
            url: format!("{base}:generateContent"),
            stream_url: format!("{base}:streamGenerateContent?alt=sse"),
            model: config.model.clone(),
            generation,
            transport: Transport::new(config.timeout, key_auth(&config.api_key))?,
        })
    }

    fn body(&self, request: &ChatRequest) -> Value {
        let mut system: Vec<Value> = Vec::new();
        if let Some(s) = &request.system {
            system.push(json!({ "text": s }));
        }
        let mut contents: Vec<Value> = Vec::new();
        for m in &request.history {
            match m.role {
                Role::System => system.push(json!({ "text": m.content })),
                Role::User => contents.push(json!({ "role": "user", "parts": [{ "text": m.content }] })),
                Role::Assistant => contents.push(json!({ "role": "model", "parts": [{ "text": m.content }] })),
            }
        }
        contents.push(json!({ "role": "user", "parts": [{ "text": request.prompt }] }));
        let mut body = json!({ "contents": contents });
        if !system.is_empty() {
            body["systemInstruction"] = json!({ "parts": system });
        }
        let mut generation = self.generation.clone();
        if let Some(t) = request.temperature {
            generation.insert("temperature".into(), json!(t));
        }
        if let Some(n) = request.max_tokens {
            generation.insert("maxOutputTokens".into(), json!(n));
        }
        if request.json_mode {
            generation.insert("responseMimeType".into(), json!("application/json"));
        }
        if !generation.is_empty() {
            body["generationConfig"] = Value::Object(generation);
        }
        body
    }
}

/// The answer text of a response (thought parts left out), and why there is none.
fn answer_text(v: &Value) -> Result<String, String> {
    if let Some(error) = v.get("error").filter(|e| !e.is_null()) {
        let message = error.get("message").and_then(Value::as_str).map(str::to_string).unwrap_or(error.to_string());
        return Err(format!("Gemini answered with an error: {}", truncate(&message)));
    }
    let parts = v.pointer("/candidates/0/content/parts").and_then(Value::as_array);
    let text: String = parts
        .map(|p| {
            p.iter()
                .filter(|part| part.get("thought").and_then(Value::as_bool) != Some(true))
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .concat()
        })
        .unwrap_or_default();
    if parts.is_none()
        && let Some(reason) = v.pointer("/promptFeedback/blockReason").and_then(Value::as_str)
    {
        return Err(format!("Gemini blocked the prompt ({reason})"));
    }
    Ok(text)
}

fn usage_of(v: &Value) -> Option<TokenUsage> {
    let u = v.get("usageMetadata")?;
    let prompt = u.get("promptTokenCount")?.as_u64()?;
    let out = u.get("candidatesTokenCount").and_then(Value::as_u64).unwrap_or(0)
        + u.get("thoughtsTokenCount").and_then(Value::as_u64).unwrap_or(0);
    Some(TokenUsage { prompt_tokens: prompt, completion_tokens: out })
}

fn parse_generate(v: &Value) -> Result<ChatResponse, Failure> {
    let text = answer_text(v).map_err(Failure::Invalid)?;
    if text.is_empty() {
        let reason = v.pointer("/candidates/0/finishReason").and_then(Value::as_str).unwrap_or("none");
        return Err(Failure::Invalid(format!(
            "Gemini answered without text (finishReason {reason}{}): {}",
            if reason == "MAX_TOKENS" { "; raise GEMINI_LLM_MAX_OUTPUT_TOKENS" } else { "" },
            truncate(&v.to_string())
        )));
    }
    Ok(ChatResponse { content: text, usage: usage_of(v) })
}

/// One SSE event of `streamGenerateContent?alt=sse`: a whole `GenerateContentResponse`.
fn stream_event(data: &str) -> Step {
    match serde_json::from_str::<Value>(data) {
        Ok(v) => match answer_text(&v) {
            Ok(text) => Step::Text(text),
            Err(e) => Step::Fail(LlmError::InvalidResponse(e)),
        },
        Err(e) => Step::Fail(LlmError::InvalidResponse(format!(
            "Gemini stream event is not valid JSON ({e}): {}",
            truncate(data)
        ))),
    }
}

#[async_trait]
impl Llm for GeminiLlm {
    /// `gemini:MODEL`.
    fn identity(&self) -> String {
        format!("gemini:{}", self.model)
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let response = self.transport.post(&self.url, &self.body(request), true).await?;
        let v = self.transport.read_json(response).await?;
        Ok(parse_generate(&v)?)
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<TextStream, LlmError> {
        let response = self.transport.post(&self.stream_url, &self.body(request), false).await?;
        let mut sse = SseDecoder::default();
        Ok(text_stream(response, self.transport.clone(), move |line| match sse.line(line) {
            Some(data) => stream_event(&data),
            None => Step::Skip,
        }))
    }
}

/// A Gemini embedding model.
#[derive(Clone)]
pub struct GeminiEmbedder {
    single_url: String,
    batch_url: String,
    model_path: String,
    model: String,
    dim: usize,
    task: String,
    transport: Transport,
}

impl std::fmt::Debug for GeminiEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeminiEmbedder").field("model", &self.model).field("dim", &self.dim).finish()
    }
}

impl GeminiEmbedder {
    /// Checks the configuration. The dimension is always sent (`outputDimensionality`).
    pub fn new(config: &HttpEmbedConfig) -> Result<Self, BuildError> {
        if config.model.trim().is_empty() {
            return Err(BuildError::MissingModel);
        }
        if config.dim == 0 {
            return Err(BuildError::ZeroDimension);
        }
        let model_path = model_path(&config.model);
        let base = format!("{}/{model_path}", api_root(&config.host)?);
        Ok(Self {
            single_url: format!("{base}:embedContent"),
            batch_url: format!("{base}:batchEmbedContents"),
            model_path,
            model: config.model.clone(),
            dim: config.dim,
            task: config.task.clone().unwrap_or_else(|| DEFAULT_GEMINI_TASK.to_string()),
            transport: Transport::new(config.timeout, key_auth(&config.api_key))?,
        })
    }

    fn item(&self, text: &str) -> Value {
        json!({
            "model": self.model_path,
            "content": { "parts": [{ "text": text }] },
            "taskType": self.task,
            "outputDimensionality": self.dim,
        })
    }

    fn values(v: &Value) -> Result<Vec<f32>, Failure> {
        let values = v
            .get("values")
            .and_then(Value::as_array)
            .ok_or_else(|| Failure::Invalid(format!("Gemini embedding has no values: {}", truncate(&v.to_string()))))?;
        values
            .iter()
            .map(|x| {
                x.as_f64().map(|f| f as f32).ok_or_else(|| Failure::Invalid("a vector value is not a number".into()))
            })
            .collect()
    }

    /// Unit length below the full size, as LightRAG normalises them.
    fn normalise(&self, mut v: Vec<f32>) -> Vec<f32> {
        if self.dim < FULL_DIM {
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                v.iter_mut().for_each(|x| *x /= norm);
            }
        }
        v
    }

    async fn embed_all(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, Failure> {
        let vectors: Vec<Vec<f32>> = if let [text] = texts {
            let response = self.transport.post(&self.single_url, &self.item(text), true).await?;
            let v = self.transport.read_json(response).await?;
            let embedding = v.get("embedding").ok_or_else(|| {
                Failure::Invalid(format!("Gemini answer has no embedding: {}", truncate(&v.to_string())))
            })?;
            vec![Self::values(embedding)?]
        } else {
            let requests: Vec<Value> = texts.iter().map(|t| self.item(t)).collect();
            let response = self.transport.post(&self.batch_url, &json!({ "requests": requests }), true).await?;
            let v = self.transport.read_json(response).await?;
            let list = v.get("embeddings").and_then(Value::as_array).ok_or_else(|| {
                Failure::Invalid(format!("Gemini answer has no embeddings: {}", truncate(&v.to_string())))
            })?;
            list.iter().map(Self::values).collect::<Result<_, _>>()?
        };
        if vectors.len() != texts.len() {
            return Err(Failure::Invalid(format!(
                "Gemini returned {} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        if let Some(bad) = vectors.iter().find(|v| v.len() != self.dim) {
            return Err(Failure::Invalid(format!(
                "Gemini returned dim {}, EMBEDDING_DIM is {} (Gemini accepts 128 to 3072)",
                bad.len(),
                self.dim
            )));
        }
        Ok(vectors.into_iter().map(|v| self.normalise(v)).collect())
    }
}

#[async_trait]
impl Embedder for GeminiEmbedder {
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

    #[test]
    fn roots_get_a_version_unless_they_have_one() {
        assert_eq!(
            api_root("https://generativelanguage.googleapis.com").unwrap(),
            "https://generativelanguage.googleapis.com/v1beta"
        );
        assert_eq!(api_root("http://127.0.0.1:9/v1/").unwrap(), "http://127.0.0.1:9/v1");
        assert_eq!(model_path("gemini-2.5-flash"), "models/gemini-2.5-flash");
        assert_eq!(model_path("models/x"), "models/x");
    }

    #[test]
    fn body_has_roles_system_instruction_and_json_mime_type() {
        let llm = GeminiLlm::new(&HttpLlmConfig {
            host: "http://127.0.0.1:9".into(),
            model: "gemini-x".into(),
            temperature: Some(0.1),
            extra_body: Some(json!({"thinkingConfig": {"thinkingBudget": 0}})),
            ..HttpLlmConfig::default()
        })
        .unwrap();
        assert_eq!(llm.url, "http://127.0.0.1:9/v1beta/models/gemini-x:generateContent");
        assert_eq!(llm.stream_url, "http://127.0.0.1:9/v1beta/models/gemini-x:streamGenerateContent?alt=sse");
        let body = llm.body(&ChatRequest {
            system: Some("sys".into()),
            history: vec![ChatMessage::new(Role::User, "u"), ChatMessage::new(Role::Assistant, "a")],
            prompt: "p".into(),
            json_mode: true,
            ..ChatRequest::default()
        });
        assert_eq!(body["systemInstruction"], json!({"parts": [{"text": "sys"}]}));
        assert_eq!(body["contents"][1], json!({"role": "model", "parts": [{"text": "a"}]}));
        assert_eq!(body["generationConfig"]["responseMimeType"], json!("application/json"));
        assert_eq!(body["generationConfig"]["thinkingConfig"], json!({"thinkingBudget": 0}));
    }

    #[test]
    fn answers_skip_thoughts_and_report_blocks() {
        let v = json!({"candidates": [{"content": {"parts": [{"text": "hmm", "thought": true}, {"text": "yes"}]}}],
                       "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 1, "thoughtsTokenCount": 2}});
        let r = parse_generate(&v).unwrap();
        assert_eq!(r.content, "yes");
        assert_eq!(r.usage, Some(TokenUsage { prompt_tokens: 4, completion_tokens: 3 }));
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
        assert!(matches!(parse_generate(&blocked), Err(Failure::Invalid(m)) if m.contains("SAFETY")));
        assert!(matches!(stream_event("{bad"), Step::Fail(_)));
    }
}
