//! [`HttpLlm`]: the [`Llm`] port over OpenAI-compatible, Azure OpenAI and Ollama chat APIs.

use async_trait::async_trait;
use lightrag_ports::{ChatRequest, ChatResponse, Llm, LlmError, TextStream, TokenUsage};
use serde_json::{Map, Value, json};

use crate::config::{HttpLlmConfig, LlmBinding};
use crate::error::{BuildError, Failure};
use crate::http::{Operation, Transport, auth_for, endpoint_url, truncate};
use crate::stream::{SseDecoder, Step, text_stream};

/// A chat model reached over HTTP. Build it with [`HttpLlm::new`] or [`crate::build_llm`].
#[derive(Clone)]
pub struct HttpLlm {
    binding: LlmBinding,
    url: String,
    model: String,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
    num_ctx: Option<u32>,
    extra_body: Option<Map<String, Value>>,
    transport: Transport,
}

impl std::fmt::Debug for HttpLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpLlm")
            .field("binding", &self.binding)
            .field("url", &self.url)
            .field("model", &self.model)
            .finish()
    }
}

impl HttpLlm {
    /// Checks the configuration and creates the HTTP client. Does not contact the provider.
    pub fn new(config: &HttpLlmConfig) -> Result<Self, BuildError> {
        if config.model.trim().is_empty() {
            return Err(BuildError::MissingModel);
        }
        let op = Operation { openai: "chat/completions", ollama: "api/chat", azure: "chat/completions" };
        let url = endpoint_url(
            config.binding,
            &config.host,
            &op,
            &config.model,
            config.deployment.as_deref(),
            config.api_version.as_deref(),
        )?;
        let auth = auth_for(config.api_key.as_ref(), config.binding);
        let extra_body = match &config.extra_body {
            Some(Value::Object(map)) => Some(map.clone()),
            _ => None,
        };
        Ok(Self {
            binding: config.binding,
            url,
            model: config.model.clone(),
            temperature: config.temperature,
            max_tokens: config.max_tokens,
            num_ctx: config.num_ctx,
            extra_body,
            transport: Transport::new(config.timeout, auth)?,
        })
    }

    /// The request body for `request`.
    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let messages: Vec<Value> =
            request.messages().iter().map(|m| json!({ "role": m.role.as_str(), "content": m.content })).collect();
        let temperature = request.temperature.or(self.temperature);
        let max_tokens = request.max_tokens.or(self.max_tokens);
        let mut body = json!({ "model": self.model, "messages": messages });
        if self.binding == LlmBinding::Ollama {
            body["stream"] = json!(stream);
            if request.json_mode {
                body["format"] = json!("json");
            }
            let mut options = Map::new();
            if let Some(t) = temperature {
                options.insert("temperature".into(), json!(t));
            }
            if let Some(n) = max_tokens {
                options.insert("num_predict".into(), json!(n));
            }
            if let Some(n) = self.num_ctx {
                options.insert("num_ctx".into(), json!(n));
            }
            if !options.is_empty() {
                body["options"] = Value::Object(options);
            }
        } else {
            if stream {
                body["stream"] = json!(true);
            }
            if let Some(t) = temperature {
                body["temperature"] = json!(t);
            }
            if let Some(n) = max_tokens {
                body["max_tokens"] = json!(n);
            }
            if request.json_mode {
                body["response_format"] = json!({ "type": "json_object" });
            }
        }
        if let (Some(extra), Value::Object(target)) = (&self.extra_body, &mut body) {
            for (k, v) in extra {
                target.insert(k.clone(), v.clone());
            }
        }
        body
    }
}

fn invalid(what: &str, v: &Value) -> Failure {
    Failure::Invalid(format!("{what}: {}", truncate(&v.to_string())))
}

/// An `error` field in a 200 answer (some compatible servers, Ollama streams).
fn embedded_error(v: &Value) -> Option<String> {
    let error = v.get("error")?;
    if error.is_null() {
        return None;
    }
    Some(match error {
        Value::String(s) => s.clone(),
        other => other.get("message").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| other.to_string()),
    })
}

fn parse_openai(v: &Value) -> Result<ChatResponse, Failure> {
    if let Some(error) = embedded_error(v) {
        return Err(Failure::Invalid(format!("the provider answered with an error: {}", truncate(&error))));
    }
    let content = v
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("no text at choices[0].message.content", v))?;
    let usage = v.get("usage").and_then(|u| {
        Some(TokenUsage {
            prompt_tokens: u.get("prompt_tokens")?.as_u64()?,
            completion_tokens: u.get("completion_tokens").and_then(Value::as_u64).unwrap_or(0),
        })
    });
    Ok(ChatResponse { content: content.to_string(), usage })
}

fn parse_ollama(v: &Value) -> Result<ChatResponse, Failure> {
    if let Some(error) = embedded_error(v) {
        return Err(Failure::Invalid(format!("Ollama answered with an error: {}", truncate(&error))));
    }
    let content = v
        .pointer("/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("no text at message.content", v))?;
    let prompt = v.get("prompt_eval_count").and_then(Value::as_u64);
    let completion = v.get("eval_count").and_then(Value::as_u64);
    let usage = (prompt.is_some() || completion.is_some())
        .then(|| TokenUsage { prompt_tokens: prompt.unwrap_or(0), completion_tokens: completion.unwrap_or(0) });
    Ok(ChatResponse { content: content.to_string(), usage })
}

/// One SSE event of an OpenAI stream.
pub(crate) fn openai_event(data: &str) -> Step {
    if data.trim() == "[DONE]" {
        return Step::Done;
    }
    let v: Value = match serde_json::from_str(data) {
        Ok(v) => v,
        Err(e) => {
            return Step::Fail(LlmError::InvalidResponse(format!(
                "stream event is not valid JSON ({e}): {}",
                truncate(data)
            )));
        }
    };
    if let Some(error) = embedded_error(&v) {
        return Step::Fail(LlmError::InvalidResponse(format!(
            "the provider reported an error mid-stream: {}",
            truncate(&error)
        )));
    }
    match v.pointer("/choices/0/delta/content").and_then(Value::as_str) {
        Some(text) => Step::Text(text.to_string()),
        None => Step::Skip,
    }
}

/// One NDJSON line of an Ollama stream.
pub(crate) fn ollama_line(line: &str) -> Step {
    if line.trim().is_empty() {
        return Step::Skip;
    }
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Step::Fail(LlmError::InvalidResponse(format!(
                "stream line is not valid JSON ({e}): {}",
                truncate(line)
            )));
        }
    };
    if let Some(error) = embedded_error(&v) {
        return Step::Fail(LlmError::InvalidResponse(format!(
            "Ollama reported an error mid-stream: {}",
            truncate(&error)
        )));
    }
    let text = v.pointer("/message/content").and_then(Value::as_str).unwrap_or("").to_string();
    if v.get("done").and_then(Value::as_bool) == Some(true) {
        // The final line may still carry text; a following `Done` is implied by the body ending.
        return if text.is_empty() { Step::Done } else { Step::Text(text) };
    }
    Step::Text(text)
}

#[async_trait]
impl Llm for HttpLlm {
    /// `binding:model`, e.g. `openai:gpt-4o-mini`.
    fn identity(&self) -> String {
        format!("{}:{}", self.binding, self.model)
    }

    fn endpoint(&self) -> String {
        format!("{} {}", self.url, self.model)
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = self.body(request, false);
        let response = self.transport.post(&self.url, &body, true).await?;
        let v = self.transport.read_json(response).await?;
        let parsed = match self.binding {
            LlmBinding::Ollama => parse_ollama(&v),
            _ => parse_openai(&v),
        };
        Ok(parsed?)
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<TextStream, LlmError> {
        let body = self.body(request, true);
        let response = self.transport.post(&self.url, &body, false).await?;
        let transport = self.transport.clone();
        Ok(match self.binding {
            LlmBinding::Ollama => text_stream(response, transport, ollama_line),
            _ => {
                let mut sse = SseDecoder::default();
                text_stream(response, transport, move |line| match sse.line(line) {
                    Some(data) => openai_event(&data),
                    None => Step::Skip,
                })
            }
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use lightrag_ports::{ChatMessage, Role};

    fn llm(binding: LlmBinding) -> HttpLlm {
        HttpLlm::new(&HttpLlmConfig {
            binding,
            host: "http://127.0.0.1:9/v1/".into(),
            model: "m1".into(),
            temperature: Some(0.5),
            num_ctx: Some(4096),
            ..HttpLlmConfig::default()
        })
        .unwrap()
    }

    fn request() -> ChatRequest {
        ChatRequest {
            system: Some("sys".into()),
            history: vec![ChatMessage::new(Role::Assistant, "earlier")],
            prompt: "now".into(),
            json_mode: true,
            max_tokens: Some(99),
            temperature: None,
        }
    }

    #[test]
    fn openai_body_has_messages_options_and_json_mode() {
        let body = llm(LlmBinding::OpenAi).body(&request(), false);
        assert_eq!(
            body,
            json!({
                "model": "m1",
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "assistant", "content": "earlier"},
                    {"role": "user", "content": "now"}
                ],
                "temperature": 0.5,
                "max_tokens": 99,
                "response_format": {"type": "json_object"}
            })
        );
        assert_eq!(llm(LlmBinding::OpenAi).body(&request(), true)["stream"], json!(true));
    }

    #[test]
    fn ollama_body_uses_format_and_options() {
        let body = llm(LlmBinding::Ollama).body(&request(), false);
        assert_eq!(body["stream"], json!(false));
        assert_eq!(body["format"], json!("json"));
        assert_eq!(body["options"], json!({"temperature": 0.5, "num_predict": 99, "num_ctx": 4096}));
        assert!(body.get("response_format").is_none());
    }

    #[test]
    fn urls_follow_the_binding() {
        assert_eq!(llm(LlmBinding::OpenAi).url, "http://127.0.0.1:9/v1/chat/completions");
        assert_eq!(llm(LlmBinding::Ollama).url, "http://127.0.0.1:9/v1/api/chat");
        assert_eq!(
            llm(LlmBinding::AzureOpenAi).url,
            "http://127.0.0.1:9/v1/openai/deployments/m1/chat/completions?api-version=2024-08-01-preview"
        );
        assert_eq!(llm(LlmBinding::AzureOpenAi).identity(), "azure_openai:m1");
    }

    #[test]
    fn extra_body_is_merged() {
        let l = HttpLlm::new(&HttpLlmConfig {
            host: "http://x".into(),
            extra_body: Some(json!({"top_p": 0.9, "model": "override"})),
            ..HttpLlmConfig::default()
        })
        .unwrap();
        let body = l.body(&ChatRequest { prompt: "p".into(), ..ChatRequest::default() }, false);
        assert_eq!(body["top_p"], json!(0.9));
        assert_eq!(body["model"], json!("override"));
    }

    #[test]
    fn responses_parse_content_and_usage() {
        let v =
            json!({"choices": [{"message": {"content": "hi"}}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}});
        let r = parse_openai(&v).unwrap();
        assert_eq!(r.content, "hi");
        assert_eq!(r.usage, Some(TokenUsage { prompt_tokens: 3, completion_tokens: 1 }));
        assert!(matches!(parse_openai(&json!({"choices": []})), Err(Failure::Invalid(_))));
        assert!(
            matches!(parse_openai(&json!({"error": {"message": "boom"}})), Err(Failure::Invalid(m)) if m.contains("boom"))
        );
        let o =
            parse_ollama(&json!({"message": {"content": "yo"}, "done": true, "prompt_eval_count": 5, "eval_count": 2}))
                .unwrap();
        assert_eq!(o.usage, Some(TokenUsage { prompt_tokens: 5, completion_tokens: 2 }));
        assert_eq!(parse_ollama(&json!({"message": {"content": "yo"}})).unwrap().usage, None);
    }

    #[test]
    fn stream_events_map_to_steps() {
        assert!(matches!(openai_event("[DONE]"), Step::Done));
        assert!(matches!(openai_event(r#"{"choices":[{"delta":{"content":"a"}}]}"#), Step::Text(t) if t == "a"));
        assert!(matches!(openai_event(r#"{"choices":[],"usage":{}}"#), Step::Skip));
        assert!(matches!(openai_event("{oops"), Step::Fail(LlmError::InvalidResponse(_))));
        assert!(matches!(ollama_line(r#"{"message":{"content":"b"},"done":false}"#), Step::Text(t) if t == "b"));
        assert!(matches!(ollama_line(r#"{"message":{"content":""},"done":true}"#), Step::Done));
        assert!(matches!(ollama_line(r#"{"error":"model not found"}"#), Step::Fail(_)));
    }
}
