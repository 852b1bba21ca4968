//! The chat-completion provider port.

use std::pin::Pin;

use async_trait::async_trait;
use futures::Stream;
use serde::{Deserialize, Serialize};

use crate::embed::retry_hint;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// System instructions.
    System,
    /// The user.
    User,
    /// The model.
    Assistant,
}

impl Role {
    /// The wire name (`system`, `user`, `assistant`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }

    /// The role of a wire name (`system`, `user`, `assistant`); `None` for anything else.
    pub fn parse(name: &str) -> Option<Role> {
        [Role::System, Role::User, Role::Assistant].into_iter().find(|r| r.as_str() == name)
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Hash)]
pub struct ChatMessage {
    /// Speaker.
    pub role: Role,
    /// Text.
    pub content: String,
}

impl ChatMessage {
    /// A message with the given role.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self { role, content: content.into() }
    }
}

/// A chat request: optional system prompt, prior turns, then the new user prompt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// System prompt, sent first.
    pub system: Option<String>,
    /// Earlier turns, oldest first.
    pub history: Vec<ChatMessage>,
    /// The new user message.
    pub prompt: String,
    /// Ask the provider for a JSON object (`response_format = json_object` where supported).
    pub json_mode: bool,
    /// Upper bound on generated tokens, if any.
    pub max_tokens: Option<u32>,
    /// Sampling temperature, if set.
    pub temperature: Option<f32>,
}

impl ChatRequest {
    /// All messages in wire order: system, history, prompt.
    pub fn messages(&self) -> Vec<ChatMessage> {
        let mut out = Vec::with_capacity(self.history.len() + 2);
        if let Some(system) = &self.system {
            out.push(ChatMessage::new(Role::System, system.clone()));
        }
        out.extend(self.history.iter().cloned());
        out.push(ChatMessage::new(Role::User, self.prompt.clone()));
        out
    }
}

/// Token counts a provider reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Prompt (input) tokens.
    pub prompt_tokens: u64,
    /// Completion (output) tokens.
    pub completion_tokens: u64,
}

/// A complete answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// Generated text.
    pub content: String,
    /// Usage as reported by the provider, when it reports it.
    pub usage: Option<TokenUsage>,
}

/// A stream of text deltas.
pub type TextStream = Pin<Box<dyn Stream<Item = Result<String, LlmError>> + Send>>;

/// Errors from a chat provider.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    /// HTTP 429. Retryable.
    #[error("LLM provider is rate limiting (HTTP 429){}", retry_hint(*.retry_after_secs))]
    RateLimited {
        /// Seconds the provider asked us to wait, when it said.
        retry_after_secs: Option<f64>,
    },
    /// HTTP 5xx. Retryable.
    #[error("LLM provider error (HTTP {status}): {body}")]
    Server {
        /// HTTP status code.
        status: u16,
        /// Response body (truncated).
        body: String,
    },
    /// HTTP 4xx other than 429: bad key, unknown model, request too large. Not retryable.
    #[error("LLM request rejected (HTTP {status}): {body}")]
    Client {
        /// HTTP status code.
        status: u16,
        /// Response body (truncated).
        body: String,
    },
    /// No answer within the timeout. Retryable.
    #[error("LLM call timed out after {0} s (raise LLM_TIMEOUT if the model is slow)")]
    Timeout(u64),
    /// Could not connect or the connection broke. Retryable.
    #[error("cannot reach the LLM provider: {0}")]
    Connection(String),
    /// The answer could not be read (bad JSON, missing fields).
    #[error("unusable LLM response: {0}")]
    InvalidResponse(String),
    /// No LLM is configured (`LLM_BINDING=none`).
    #[error("no LLM is configured (LLM_BINDING=none); set LLM_BINDING and LLM_MODEL to use this feature")]
    NotConfigured,
    /// The operation was cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl LlmError {
    /// The kind of failure, as a metric label: `rate_limited`, `server_error`, `refused` (any
    /// other 4xx), `timeout`, `connection`, `invalid_response`, `not_configured`, `cancelled`.
    pub fn kind(&self) -> &'static str {
        match self {
            LlmError::RateLimited { .. } => "rate_limited",
            LlmError::Server { .. } => "server_error",
            LlmError::Client { .. } => "refused",
            LlmError::Timeout(_) => "timeout",
            LlmError::Connection(_) => "connection",
            LlmError::InvalidResponse(_) => "invalid_response",
            LlmError::NotConfigured => "not_configured",
            LlmError::Cancelled => "cancelled",
        }
    }

    /// Whether retrying the same call may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. } | LlmError::Server { .. } | LlmError::Timeout(_) | LlmError::Connection(_)
        )
    }
}

/// A chat-completion model.
#[async_trait]
pub trait Llm: Send + Sync {
    /// Model identity used in cache keys (binding + model name).
    fn identity(&self) -> String;
    /// Where the calls go (endpoint URL and model), as a key: models with the same key are one
    /// provider and share one concurrency limit. The default, [`Llm::identity`], suits models
    /// that are not reached over a network; HTTP clients add their URL.
    fn endpoint(&self) -> String {
        self.identity()
    }
    /// One complete answer.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError>;
    /// The answer as a stream of text deltas. The default calls [`Llm::chat`] and yields once.
    async fn chat_stream(&self, request: &ChatRequest) -> Result<TextStream, LlmError> {
        let response = self.chat(request).await?;
        Ok(Box::pin(futures::stream::once(async move { Ok(response.content) })))
    }
}
