//! Request bodies and response shapes of the Ollama emulation: the model constants of
//! `/api/tags` and `/api/ps`, the lenient body parser (JSON whatever the `Content-Type`), the
//! chat/generate message lines and their timing fields.

use std::time::Instant;

use lightrag_ports::{ChatMessage, Role};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::errors::ApiError;

/// Version reported by `/api/version`.
pub const OLLAMA_VERSION: &str = "0.9.3";
/// Size of the emulated model, in bytes.
pub const MODEL_SIZE: u64 = 7_365_960_935;
/// Digest of the emulated model.
pub const MODEL_DIGEST: &str = "sha256:lightrag";
/// `modified_at` of the model and `created_at` of every answer line.
pub const MODEL_CREATED_AT: &str = "2024-01-15T00:00:00Z";
/// `expires_at` of the running model in `/api/ps`.
pub const MODEL_EXPIRES_AT: &str = "2050-12-31T14:38:31.83753-07:00";
/// Answer text when the model returned nothing.
pub const NO_RESPONSE: &str = "No response generated";

/// `/api/tags`: the one emulated model, named `model` (`name:tag`), family `family` (`name`).
pub fn tags_body(model: &str, family: &str) -> Value {
    json!({"models": [{
        "name": model,
        "model": model,
        "modified_at": MODEL_CREATED_AT,
        "size": MODEL_SIZE,
        "digest": MODEL_DIGEST,
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": family,
            "families": [family],
            "parameter_size": "13B",
            "quantization_level": "Q4_0",
        },
    }]})
}

/// `/api/ps`: the emulated model, always loaded.
pub fn ps_body(model: &str) -> Value {
    json!({"models": [{
        "name": model,
        "model": model,
        "size": MODEL_SIZE,
        "digest": MODEL_DIGEST,
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": "llama",
            "families": ["llama"],
            "parameter_size": "7.2B",
            "quantization_level": "Q4_0",
        },
        "expires_at": MODEL_EXPIRES_AT,
        "size_vram": MODEL_SIZE,
    }]})
}

/// `POST /api/generate` (unknown fields, e.g. `options`, are ignored).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct OllamaGenerateRequest {
    /// The model asked for (any name is answered by the emulated one).
    #[allow(dead_code)]
    pub model: String,
    /// The prompt, sent to the LLM as is.
    pub prompt: String,
    /// System prompt.
    pub system: Option<String>,
    /// Stream NDJSON (default false).
    #[serde(default)]
    pub stream: bool,
}

/// One message of `POST /api/chat` (`images` are ignored).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct OllamaMessage {
    /// `user`, `assistant` or `system`.
    pub role: String,
    /// The text.
    pub content: String,
}

/// `POST /api/chat` (unknown fields, e.g. `options`, are ignored).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct OllamaChatRequest {
    /// The model asked for (any name is answered by the emulated one).
    #[allow(dead_code)]
    pub model: String,
    /// The conversation; the last one is the question.
    pub messages: Vec<OllamaMessage>,
    /// Stream NDJSON (default true).
    #[serde(default = "yes")]
    pub stream: bool,
    /// System prompt for direct LLM calls (`/bypass`, Open WebUI tasks).
    pub system: Option<String>,
}

fn yes() -> bool {
    true
}

/// Parses a body as JSON whatever its `Content-Type` (LightRAG also reads
/// `application/octet-stream` and untyped bodies). Errors are 400 with what went wrong.
pub fn parse_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        if e.is_data() {
            ApiError::BadRequest(format!("Error parsing request body: {e}"))
        } else {
            ApiError::BadRequest(format!("Invalid JSON in request body: {e}"))
        }
    })
}

/// Earlier chat messages as conversation history; roles other than user, assistant and system
/// are refused (400).
pub fn history(messages: &[OllamaMessage]) -> Result<Vec<ChatMessage>, ApiError> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let role = Role::parse(&m.role).ok_or_else(|| {
                ApiError::BadRequest(format!("messages[{i}].role is '{}'; use 'user', 'assistant' or 'system'", m.role))
            })?;
            Ok(ChatMessage::new(role, m.content.clone()))
        })
        .collect()
}

/// Which endpoint a line belongs to: the text goes in `response` (generate) or in
/// `message.content` (chat).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `/api/generate`.
    Generate,
    /// `/api/chat`.
    Chat,
}

impl Flavor {
    /// `{model, created_at, response|message, done}`.
    pub fn line(self, model: &str, text: &str, done: bool) -> Map<String, Value> {
        let mut line = Map::new();
        line.insert("model".into(), json!(model));
        line.insert("created_at".into(), json!(MODEL_CREATED_AT));
        match self {
            Flavor::Generate => line.insert("response".into(), json!(text)),
            Flavor::Chat => {
                line.insert("message".into(), json!({"role": "assistant", "content": text, "images": null}))
            }
        };
        line.insert("done".into(), json!(done));
        line
    }

    /// The closing line of an answer: `text` (empty when streamed), `done: true`,
    /// `done_reason: "stop"`, `context: []` (generate only) and the timing fields.
    pub fn final_line(self, model: &str, text: &str, timings: &Timings) -> Value {
        let mut line = self.line(model, text, true);
        line.insert("done_reason".into(), json!("stop"));
        if self == Flavor::Generate {
            line.insert("context".into(), json!([]));
        }
        timings.write(&mut line);
        Value::Object(line)
    }

    /// The line reporting a failure inside a stream: the error text as content and as `error`.
    pub fn error_line(self, model: &str, message: &str) -> Value {
        let text = format!("\n\nError: {message}");
        let mut line = self.line(model, &text, false);
        line.insert("error".into(), json!(text));
        Value::Object(line)
    }
}

/// When an answer started, produced its first text and its last.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    start: Instant,
    first: Option<Instant>,
    last: Instant,
}

impl Clock {
    /// Starts timing now.
    pub fn start() -> Self {
        let now = Instant::now();
        Self { start: now, first: None, last: now }
    }

    /// Marks output now: the first mark starts generation (the model call, or the first
    /// streamed piece), the last one ends it.
    pub fn mark(&mut self) {
        let now = Instant::now();
        self.first.get_or_insert(now);
        self.last = now;
    }

    /// The timing fields for `prompt_tokens` in and `eval_tokens` out.
    pub fn timings(&self, prompt_tokens: usize, eval_tokens: usize) -> Timings {
        let first = self.first.unwrap_or(self.start);
        let nanos = |d: std::time::Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        Timings {
            total_duration: nanos(self.last.saturating_duration_since(self.start)),
            prompt_eval_count: prompt_tokens,
            prompt_eval_duration: nanos(first.saturating_duration_since(self.start)),
            eval_count: eval_tokens,
            eval_duration: nanos(self.last.saturating_duration_since(first)),
        }
    }
}

/// Ollama's timing fields (nanoseconds) and token counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timings {
    /// From the request to the last output.
    pub total_duration: u64,
    /// Tokens of the prompt.
    pub prompt_eval_count: usize,
    /// From the request to the first output.
    pub prompt_eval_duration: u64,
    /// Tokens of the answer.
    pub eval_count: usize,
    /// From the first output to the last.
    pub eval_duration: u64,
}

impl Timings {
    fn write(&self, line: &mut Map<String, Value>) {
        line.insert("total_duration".into(), json!(self.total_duration));
        line.insert("load_duration".into(), json!(0));
        line.insert("prompt_eval_count".into(), json!(self.prompt_eval_count));
        line.insert("prompt_eval_duration".into(), json!(self.prompt_eval_duration));
        line.insert("eval_count".into(), json!(self.eval_count));
        line.insert("eval_duration".into(), json!(self.eval_duration));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn bodies_parse_with_defaults_and_report_errors() {
        let chat: OllamaChatRequest =
            parse_body(br#"{"model":"m","messages":[{"role":"user","content":"hi","images":null}]}"#).unwrap();
        assert!(chat.stream, "chat streams by default");
        let generate: OllamaGenerateRequest = parse_body(br#"{"model":"m","prompt":"p","options":{"x":1}}"#).unwrap();
        assert!(!generate.stream, "generate does not stream by default");
        let err = parse_body::<OllamaChatRequest>(b"{not json").unwrap_err();
        assert!(err.flat_message().starts_with("Invalid JSON in request body"), "{}", err.flat_message());
        let err = parse_body::<OllamaGenerateRequest>(br#"{"model":"m"}"#).unwrap_err();
        assert!(err.flat_message().contains("missing field `prompt`"), "{}", err.flat_message());
        assert_eq!(err.status(), axum::http::StatusCode::BAD_REQUEST);
    }

    #[test]
    fn history_maps_roles_and_refuses_unknown_ones() {
        let msgs = vec![
            OllamaMessage { role: "system".into(), content: "s".into() },
            OllamaMessage { role: "user".into(), content: "u".into() },
            OllamaMessage { role: "assistant".into(), content: "a".into() },
        ];
        let h = history(&msgs).unwrap();
        assert_eq!(h.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::System, Role::User, Role::Assistant]);
        let bad = vec![OllamaMessage { role: "tool".into(), content: "t".into() }];
        assert!(history(&bad).unwrap_err().flat_message().contains("messages[0].role is 'tool'"));
    }

    #[test]
    fn lines_have_the_shapes_of_each_endpoint() {
        let t = Timings {
            total_duration: 9,
            prompt_eval_count: 2,
            prompt_eval_duration: 1,
            eval_count: 3,
            eval_duration: 8,
        };
        let g = Flavor::Generate.final_line("lightrag:latest", "", &t);
        assert_eq!(
            g,
            json!({"model": "lightrag:latest", "created_at": MODEL_CREATED_AT, "response": "", "done": true,
                   "done_reason": "stop", "context": [], "total_duration": 9, "load_duration": 0,
                   "prompt_eval_count": 2, "prompt_eval_duration": 1, "eval_count": 3, "eval_duration": 8})
        );
        let c = Flavor::Chat.final_line("m", "answer", &t);
        assert_eq!(c["message"], json!({"role": "assistant", "content": "answer", "images": null}));
        assert!(c.get("context").is_none());
        let e = Flavor::Chat.error_line("m", "boom");
        assert_eq!(e["error"], "\n\nError: boom");
        assert_eq!(e["message"]["content"], "\n\nError: boom");
        assert_eq!(e["done"], false);
    }

    #[test]
    fn clock_durations_add_up() {
        let mut clock = Clock::start();
        std::thread::sleep(std::time::Duration::from_millis(2));
        clock.mark();
        std::thread::sleep(std::time::Duration::from_millis(2));
        clock.mark();
        let t = clock.timings(5, 7);
        assert_eq!(t.total_duration, t.prompt_eval_duration + t.eval_duration);
        assert!(t.prompt_eval_duration >= 2_000_000 && t.eval_duration >= 2_000_000, "{t:?}");
        assert_eq!((t.prompt_eval_count, t.eval_count), (5, 7));
        let idle = Clock::start().timings(0, 0);
        assert_eq!((idle.prompt_eval_duration, idle.eval_duration), (0, 0));
    }
}
