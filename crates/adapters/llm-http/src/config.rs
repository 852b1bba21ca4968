//! Plain-data configuration of the HTTP providers. `Debug` never prints API keys.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// Default Azure OpenAI API version when none is configured.
pub const DEFAULT_AZURE_API_VERSION: &str = "2024-08-01-preview";
/// Default OpenAI host.
pub const DEFAULT_OPENAI_HOST: &str = "https://api.openai.com/v1";
/// Default Ollama host.
pub const DEFAULT_OLLAMA_HOST: &str = "http://localhost:11434";

/// Which wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LlmBinding {
    /// OpenAI-compatible `/chat/completions` and `/embeddings` under `host` (OpenAI, vLLM,
    /// llama.cpp, LM Studio, Ollama's `/v1`, ...). Bearer key.
    #[default]
    OpenAi,
    /// Ollama native `/api/chat` and `/api/embed`.
    Ollama,
    /// Azure OpenAI: `{host}/openai/deployments/{deployment}/...?api-version=V`, `api-key` header.
    AzureOpenAi,
}

impl LlmBinding {
    /// The name used in `LLM_BINDING` / `EMBEDDING_BINDING` and in identities:
    /// `openai`, `ollama`, `azure_openai`.
    pub fn as_str(self) -> &'static str {
        match self {
            LlmBinding::OpenAi => "openai",
            LlmBinding::Ollama => "ollama",
            LlmBinding::AzureOpenAi => "azure_openai",
        }
    }

    /// The host used when none is configured (Azure has none: its endpoint is per resource).
    pub fn default_host(self) -> Option<&'static str> {
        match self {
            LlmBinding::OpenAi => Some(DEFAULT_OPENAI_HOST),
            LlmBinding::Ollama => Some(DEFAULT_OLLAMA_HOST),
            LlmBinding::AzureOpenAi => None,
        }
    }
}

impl fmt::Display for LlmBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown binding name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown binding `{0}`: use openai, ollama or azure_openai")]
pub struct UnknownBinding(pub String);

impl FromStr for LlmBinding {
    type Err = UnknownBinding;

    /// Accepts `openai`, `ollama`, `azure_openai` (also `azure`, `azure-openai`), any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(LlmBinding::OpenAi),
            "ollama" => Ok(LlmBinding::Ollama),
            "azure_openai" | "azure-openai" | "azure" => Ok(LlmBinding::AzureOpenAi),
            _ => Err(UnknownBinding(s.to_string())),
        }
    }
}

fn redact(key: &Option<String>) -> &'static str {
    if key.is_some() { "Some(<redacted>)" } else { "None" }
}

/// Configuration of an HTTP chat model.
#[derive(Clone, PartialEq)]
pub struct HttpLlmConfig {
    /// Wire protocol.
    pub binding: LlmBinding,
    /// Base URL: `https://api.openai.com/v1`, `http://127.0.0.1:8000/v1`, `http://localhost:11434`
    /// (Ollama), `https://RESOURCE.openai.azure.com` (Azure). A trailing slash is fine.
    pub host: String,
    /// API key: bearer token (OpenAI, Ollama behind a proxy) or `api-key` header (Azure).
    pub api_key: Option<String>,
    /// Model name (`LLM_MODEL`); on Azure also the deployment when `deployment` is unset.
    pub model: String,
    /// Per-request timeout (`LLM_TIMEOUT`); for streams, the longest silence between chunks.
    pub timeout: Duration,
    /// Azure API version (default [`DEFAULT_AZURE_API_VERSION`]).
    pub api_version: Option<String>,
    /// Azure deployment name (default: `model`).
    pub deployment: Option<String>,
    /// Default temperature; a request's own temperature wins.
    pub temperature: Option<f32>,
    /// Default completion-token limit; a request's own limit wins.
    pub max_tokens: Option<u32>,
    /// Ollama context window (`options.num_ctx`, `OLLAMA_LLM_NUM_CTX`).
    pub num_ctx: Option<u32>,
    /// Extra top-level JSON fields merged into every chat request body (`OPENAI_LLM_EXTRA_BODY`);
    /// must be a JSON object to have an effect.
    pub extra_body: Option<serde_json::Value>,
}

impl Default for HttpLlmConfig {
    fn default() -> Self {
        Self {
            binding: LlmBinding::OpenAi,
            host: DEFAULT_OPENAI_HOST.to_string(),
            api_key: None,
            model: "gpt-4o-mini".to_string(),
            timeout: Duration::from_secs(240),
            api_version: None,
            deployment: None,
            temperature: None,
            max_tokens: None,
            num_ctx: None,
            extra_body: None,
        }
    }
}

impl fmt::Debug for HttpLlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpLlmConfig")
            .field("binding", &self.binding)
            .field("host", &self.host)
            .field("api_key", &redact(&self.api_key))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("api_version", &self.api_version)
            .field("deployment", &self.deployment)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("num_ctx", &self.num_ctx)
            .field("extra_body", &self.extra_body.as_ref().map(|_| "<set>"))
            .finish()
    }
}

/// Configuration of an HTTP embedding model.
#[derive(Clone, PartialEq)]
pub struct HttpEmbedConfig {
    /// Wire protocol.
    pub binding: LlmBinding,
    /// Base URL, as for [`HttpLlmConfig::host`].
    pub host: String,
    /// API key.
    pub api_key: Option<String>,
    /// Model name (`EMBEDDING_MODEL`); on Azure also the deployment when `deployment` is unset.
    pub model: String,
    /// Vector dimension (`EMBEDDING_DIM`); every returned vector must have it.
    pub dim: usize,
    /// Per-request timeout (`EMBEDDING_TIMEOUT`).
    pub timeout: Duration,
    /// Send `dimensions: dim` in OpenAI/Azure requests (`EMBEDDING_SEND_DIM`).
    pub send_dimensions: bool,
    /// Azure API version (default [`DEFAULT_AZURE_API_VERSION`]).
    pub api_version: Option<String>,
    /// Azure deployment name (default: `model`).
    pub deployment: Option<String>,
    /// Ollama context window (`options.num_ctx`, `OLLAMA_EMBEDDING_NUM_CTX`).
    pub num_ctx: Option<u32>,
}

impl Default for HttpEmbedConfig {
    fn default() -> Self {
        Self {
            binding: LlmBinding::OpenAi,
            host: DEFAULT_OPENAI_HOST.to_string(),
            api_key: None,
            model: "text-embedding-3-small".to_string(),
            dim: 1536,
            timeout: Duration::from_secs(30),
            send_dimensions: false,
            api_version: None,
            deployment: None,
            num_ctx: None,
        }
    }
}

impl fmt::Debug for HttpEmbedConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpEmbedConfig")
            .field("binding", &self.binding)
            .field("host", &self.host)
            .field("api_key", &redact(&self.api_key))
            .field("model", &self.model)
            .field("dim", &self.dim)
            .field("timeout", &self.timeout)
            .field("send_dimensions", &self.send_dimensions)
            .field("api_version", &self.api_version)
            .field("deployment", &self.deployment)
            .field("num_ctx", &self.num_ctx)
            .finish()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_keys() {
        let llm = HttpLlmConfig { api_key: Some("sk-secret-123".into()), ..HttpLlmConfig::default() };
        let embed = HttpEmbedConfig { api_key: Some("sk-secret-456".into()), ..HttpEmbedConfig::default() };
        let text = format!("{llm:?} {embed:?}");
        assert!(!text.contains("secret"), "{text}");
        assert!(text.contains("<redacted>"));
    }

    #[test]
    fn bindings_parse_and_print() {
        assert_eq!("OpenAI".parse::<LlmBinding>(), Ok(LlmBinding::OpenAi));
        assert_eq!("azure_openai".parse::<LlmBinding>(), Ok(LlmBinding::AzureOpenAi));
        assert_eq!("ollama".parse::<LlmBinding>().map(|b| b.to_string()), Ok("ollama".to_string()));
        assert!("bedrock".parse::<LlmBinding>().is_err());
    }
}
