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
/// Default lollms host (LightRAG's).
pub const DEFAULT_LOLLMS_HOST: &str = "http://localhost:9600";
/// Default Gemini API root (the Gemini Developer API; `/v1beta` is added to it).
pub const DEFAULT_GEMINI_HOST: &str = "https://generativelanguage.googleapis.com";
/// Default Jina AI API root.
pub const DEFAULT_JINA_HOST: &str = "https://api.jina.ai/v1";
/// Default Voyage AI API root.
pub const DEFAULT_VOYAGE_HOST: &str = "https://api.voyageai.com/v1";

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
    /// lollms: `{host}/lollms_generate` (plain-text answers) and `{host}/lollms_embed`.
    Lollms,
    /// Google Gemini API: `{host}/v1beta/models/{model}:generateContent`, `:streamGenerateContent`,
    /// `:embedContent`, `:batchEmbedContents`; `x-goog-api-key` header.
    Gemini,
    /// Amazon Bedrock Runtime: `/model/{id}/converse`, `/converse-stream`, `/invoke`; AWS SigV4
    /// signatures or a Bedrock API key (bearer token).
    Bedrock,
    /// Jina AI embeddings (`{host}/embeddings`, base64 vectors). No chat API.
    Jina,
    /// Voyage AI embeddings (`{host}/embeddings`). No chat API.
    VoyageAi,
}

impl LlmBinding {
    /// The name used in `LLM_BINDING` / `EMBEDDING_BINDING` and in identities:
    /// `openai`, `ollama`, `azure_openai`, `lollms`, `gemini`, `bedrock`, `jina`, `voyageai`.
    pub fn as_str(self) -> &'static str {
        match self {
            LlmBinding::OpenAi => "openai",
            LlmBinding::Ollama => "ollama",
            LlmBinding::AzureOpenAi => "azure_openai",
            LlmBinding::Lollms => "lollms",
            LlmBinding::Gemini => "gemini",
            LlmBinding::Bedrock => "bedrock",
            LlmBinding::Jina => "jina",
            LlmBinding::VoyageAi => "voyageai",
        }
    }

    /// The host used when none is configured (Azure has none: its endpoint is per resource;
    /// Bedrock's is per region).
    pub fn default_host(self) -> Option<&'static str> {
        match self {
            LlmBinding::OpenAi => Some(DEFAULT_OPENAI_HOST),
            LlmBinding::Ollama => Some(DEFAULT_OLLAMA_HOST),
            LlmBinding::Lollms => Some(DEFAULT_LOLLMS_HOST),
            LlmBinding::Gemini => Some(DEFAULT_GEMINI_HOST),
            LlmBinding::Jina => Some(DEFAULT_JINA_HOST),
            LlmBinding::VoyageAi => Some(DEFAULT_VOYAGE_HOST),
            LlmBinding::AzureOpenAi | LlmBinding::Bedrock => None,
        }
    }

    /// Whether the provider has a chat API (Jina and Voyage AI only embed).
    pub fn has_chat(self) -> bool {
        !matches!(self, LlmBinding::Jina | LlmBinding::VoyageAi)
    }
}

impl fmt::Display for LlmBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown binding name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown binding `{0}`: use openai, ollama, azure_openai, lollms, gemini, bedrock, jina or voyageai")]
pub struct UnknownBinding(pub String);

impl FromStr for LlmBinding {
    type Err = UnknownBinding;

    /// Accepts `openai`, `ollama`, `azure_openai` (also `azure`, `azure-openai`), `lollms`,
    /// `gemini`, `bedrock` (also `aws_bedrock`), `jina`, `voyageai`, any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(LlmBinding::OpenAi),
            "ollama" => Ok(LlmBinding::Ollama),
            "azure_openai" | "azure-openai" | "azure" => Ok(LlmBinding::AzureOpenAi),
            "lollms" => Ok(LlmBinding::Lollms),
            "gemini" => Ok(LlmBinding::Gemini),
            "bedrock" | "aws_bedrock" => Ok(LlmBinding::Bedrock),
            "jina" => Ok(LlmBinding::Jina),
            "voyageai" | "voyage" => Ok(LlmBinding::VoyageAi),
            _ => Err(UnknownBinding(s.to_string())),
        }
    }
}

fn redact(key: &Option<String>) -> &'static str {
    if key.is_some() { "Some(<redacted>)" } else { "None" }
}

/// Amazon Bedrock access: the region and either SigV4 credentials or a Bedrock API key.
/// `Debug` never prints secrets.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct AwsConfig {
    /// Region, e.g. `us-east-1` (`AWS_REGION`); picks the default endpoint and signs requests.
    pub region: String,
    /// `AWS_ACCESS_KEY_ID` (with `secret_access_key`: SigV4 signing).
    pub access_key_id: Option<String>,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: Option<String>,
    /// `AWS_SESSION_TOKEN` for temporary credentials (sent as `x-amz-security-token`).
    pub session_token: Option<String>,
    /// `AWS_BEARER_TOKEN_BEDROCK`: a Bedrock API key sent as a bearer token; wins over SigV4.
    pub bearer_token: Option<String>,
}

impl fmt::Debug for AwsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AwsConfig")
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &redact(&self.secret_access_key))
            .field("session_token", &redact(&self.session_token))
            .field("bearer_token", &redact(&self.bearer_token))
            .finish()
    }
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
    /// Extra JSON fields (an object): merged into every chat request body for OpenAI-compatible
    /// servers (`OPENAI_LLM_EXTRA_BODY`), into `generationConfig` for Gemini
    /// (`GEMINI_LLM_*` options), sent as `additionalModelRequestFields` to Bedrock
    /// (`BEDROCK_LLM_EXTRA_FIELDS`).
    pub extra_body: Option<serde_json::Value>,
    /// Nucleus sampling (`top_p`; Gemini `topP`, Bedrock `topP`, lollms `top_p`).
    pub top_p: Option<f32>,
    /// Stop sequences (Gemini `stopSequences`, Bedrock `stopSequences`).
    pub stop: Vec<String>,
    /// Bedrock access (region, credentials); required for `LlmBinding::Bedrock`.
    pub aws: Option<AwsConfig>,
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
            top_p: None,
            stop: Vec::new(),
            aws: None,
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
            .field("top_p", &self.top_p)
            .field("stop", &self.stop)
            .field("aws", &self.aws)
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
    /// The provider's task hint: Gemini `taskType` (default `RETRIEVAL_DOCUMENT`), Jina `task`
    /// (default `text-matching`), Voyage `input_type` (default none).
    pub task: Option<String>,
    /// Bedrock access (region, credentials); required for `LlmBinding::Bedrock`.
    pub aws: Option<AwsConfig>,
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
            task: None,
            aws: None,
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
            .field("task", &self.task)
            .field("aws", &self.aws)
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
        let aws = AwsConfig {
            region: "us-east-1".into(),
            secret_access_key: Some("aws-secret-789".into()),
            bearer_token: Some("secret-bearer".into()),
            ..AwsConfig::default()
        };
        let text = format!("{llm:?} {embed:?} {aws:?}");
        for value in ["sk-secret-123", "sk-secret-456", "aws-secret-789", "secret-bearer"] {
            assert!(!text.contains(value), "{text}");
        }
        assert!(text.contains("<redacted>"));
    }

    #[test]
    fn bindings_parse_and_print() {
        assert_eq!("OpenAI".parse::<LlmBinding>(), Ok(LlmBinding::OpenAi));
        assert_eq!("azure_openai".parse::<LlmBinding>(), Ok(LlmBinding::AzureOpenAi));
        assert_eq!("ollama".parse::<LlmBinding>().map(|b| b.to_string()), Ok("ollama".to_string()));
        assert_eq!("aws_bedrock".parse::<LlmBinding>(), Ok(LlmBinding::Bedrock));
        assert_eq!("VoyageAI".parse::<LlmBinding>(), Ok(LlmBinding::VoyageAi));
        assert!("anthropic".parse::<LlmBinding>().is_err());
        assert!(!LlmBinding::Jina.has_chat() && LlmBinding::Gemini.has_chat());
    }
}
