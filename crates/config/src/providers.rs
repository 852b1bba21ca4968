//! Chat-model settings (`LLM_*`, `AZURE_OPENAI_*`, `OPENAI_LLM_*`, `OLLAMA_LLM_*`, `GEMINI_LLM_*`,
//! `BEDROCK_LLM_*`, `AWS_*`); the embedding settings live in [`crate::embedding`] and are
//! re-exported here.

use crate::error::ConfigError;
use crate::parse::Reader;
use crate::provider_options::{
    DEFAULT_BEDROCK_ENDPOINT, DEFAULT_GEMINI_ENDPOINT, Sampling, aws_settings, bedrock_sampling, gemini_sampling,
};
use crate::secret::Secret;

type Result<T> = std::result::Result<T, ConfigError>;

/// Default OpenAI endpoint.
pub const OPENAI_HOST: &str = "https://api.openai.com/v1";
/// Default Ollama endpoint.
pub const OLLAMA_HOST: &str = "http://localhost:11434";
/// Default lollms endpoint.
pub const LOLLMS_HOST: &str = "http://localhost:9600";
/// Default Gemini API endpoint.
pub const GEMINI_HOST: &str = "https://generativelanguage.googleapis.com";
/// Default Gemini chat model.
pub const GEMINI_MODEL: &str = "gemini-2.5-flash";
/// Default Azure OpenAI API version (LightRAG's).
pub const AZURE_API_VERSION: &str = "2024-08-01-preview";
/// The local embedding model.
pub const LOCAL_EMBEDDING_MODEL: &str = "all-MiniLM-L6-v2";
/// Its dimension.
pub const LOCAL_EMBEDDING_DIM: usize = 384;

/// Which chat model provider to use (`LLM_BINDING`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmBinding {
    /// OpenAI or any OpenAI-compatible server (vLLM, llama.cpp, LM Studio, OpenRouter…).
    OpenAi,
    /// Ollama's native API.
    Ollama,
    /// Azure OpenAI.
    AzureOpenAi,
    /// lollms (`/lollms_generate`).
    Lollms,
    /// Google Gemini API (API key).
    Gemini,
    /// Amazon Bedrock (Converse API).
    Bedrock,
    /// No chat model: extraction uses rules, queries return context only.
    None,
}

impl LlmBinding {
    /// The `LLM_BINDING` value.
    pub fn as_str(self) -> &'static str {
        match self {
            LlmBinding::OpenAi => "openai",
            LlmBinding::Ollama => "ollama",
            LlmBinding::AzureOpenAi => "azure_openai",
            LlmBinding::Lollms => "lollms",
            LlmBinding::Gemini => "gemini",
            LlmBinding::Bedrock => "bedrock",
            LlmBinding::None => "none",
        }
    }
}

/// Chat model settings.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmSettings {
    /// `LLM_BINDING`.
    pub binding: LlmBinding,
    /// Base URL (`LLM_BINDING_HOST`; empty for `none`; for `bedrock` the region's endpoint
    /// unless set).
    pub host: String,
    /// `LLM_BINDING_API_KEY` (falls back to `OPENAI_API_KEY` / `AZURE_OPENAI_API_KEY` /
    /// `GEMINI_API_KEY`).
    pub api_key: Option<Secret>,
    /// `LLM_MODEL`.
    pub model: String,
    /// `LLM_TIMEOUT`, seconds.
    pub timeout_secs: u64,
    /// `MAX_ASYNC_LLM` (or `MAX_ASYNC`).
    pub max_async: usize,
    /// `AZURE_OPENAI_API_VERSION` (azure only).
    pub azure_api_version: Option<String>,
    /// `AZURE_OPENAI_DEPLOYMENT` (azure only; defaults to the model name).
    pub azure_deployment: Option<String>,
    /// `OPENAI_LLM_TEMPERATURE` (`OLLAMA_LLM_TEMPERATURE`, `GEMINI_LLM_TEMPERATURE`,
    /// `BEDROCK_LLM_TEMPERATURE` for those bindings).
    pub temperature: Option<f32>,
    /// `OPENAI_LLM_MAX_TOKENS` (`OLLAMA_LLM_NUM_PREDICT`, `GEMINI_LLM_MAX_OUTPUT_TOKENS`,
    /// `BEDROCK_LLM_MAX_TOKENS`).
    pub max_tokens: Option<u32>,
    /// `OLLAMA_LLM_NUM_CTX` (ollama only).
    pub ollama_num_ctx: Option<u32>,
    /// `OPENAI_LLM_EXTRA_BODY` (openai/azure); the other `GEMINI_LLM_*` options (gemini);
    /// `BEDROCK_LLM_EXTRA_FIELDS` (bedrock).
    pub extra_body: Option<serde_json::Value>,
    /// `GEMINI_LLM_TOP_P` / `BEDROCK_LLM_TOP_P`.
    pub top_p: Option<f32>,
    /// `GEMINI_LLM_STOP_SEQUENCES` / `BEDROCK_LLM_STOP_SEQUENCES`.
    pub stop: Vec<String>,
    /// Bedrock access (`AWS_*`), bedrock only.
    pub aws: Option<AwsSettings>,
}

/// What `LLM_BINDING` names: a binding, `openai-ollama` (OpenAI chat with Ollama embeddings), or
/// `local` (refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LlmChoice {
    Binding(LlmBinding),
    OpenAiOllama,
    Local,
}

const LLM_BINDINGS: [(&str, LlmChoice); 10] = [
    ("openai", LlmChoice::Binding(LlmBinding::OpenAi)),
    ("ollama", LlmChoice::Binding(LlmBinding::Ollama)),
    ("azure_openai", LlmChoice::Binding(LlmBinding::AzureOpenAi)),
    ("lollms", LlmChoice::Binding(LlmBinding::Lollms)),
    ("gemini", LlmChoice::Binding(LlmBinding::Gemini)),
    ("bedrock", LlmChoice::Binding(LlmBinding::Bedrock)),
    ("aws_bedrock", LlmChoice::Binding(LlmBinding::Bedrock)),
    ("openai-ollama", LlmChoice::OpenAiOllama),
    ("none", LlmChoice::Binding(LlmBinding::None)),
    ("local", LlmChoice::Local),
];

/// Whether `LLM_BINDING=openai-ollama` (LightRAG's OpenAI chat + Ollama embeddings).
pub(crate) fn openai_ollama(r: Reader<'_>) -> bool {
    r.opt_string("LLM_BINDING").is_some_and(|b| b.trim().eq_ignore_ascii_case("openai-ollama"))
}

/// `LLM_BINDING_HOST`, or `None` when unset or LightRAG's "default endpoint" placeholder.
fn host_setting(r: Reader<'_>, key: &str) -> Result<Option<String>> {
    match r.opt_string(key) {
        Some(v) if v == DEFAULT_GEMINI_ENDPOINT || v == DEFAULT_BEDROCK_ENDPOINT => Ok(None),
        _ => r.opt_url(key),
    }
}

/// Reads the chat model settings. `timeout_secs` and `max_async` are parsed by the caller
/// (they are shared with the engine's LLM policy).
pub(crate) fn llm_settings(r: Reader<'_>, timeout_secs: u64, max_async: usize) -> Result<LlmSettings> {
    // Default: openai when a host or key is given (any OpenAI-compatible server), else none.
    let default = if r.is_set("LLM_BINDING_HOST") || r.is_set("LLM_BINDING_API_KEY") {
        LlmChoice::Binding(LlmBinding::OpenAi)
    } else {
        LlmChoice::Binding(LlmBinding::None)
    };
    let binding = match r.choice("LLM_BINDING", default, &LLM_BINDINGS)? {
        LlmChoice::Binding(b) => b,
        LlmChoice::OpenAiOllama => LlmBinding::OpenAi,
        LlmChoice::Local => return Err(ConfigError::LocalLlmUnavailable(r.raw_source("LLM_BINDING"))),
    };
    let host = match binding {
        LlmBinding::None => String::new(),
        LlmBinding::OpenAi => r.opt_url("LLM_BINDING_HOST")?.unwrap_or_else(|| OPENAI_HOST.into()),
        LlmBinding::Ollama => r.opt_url("LLM_BINDING_HOST")?.unwrap_or_else(|| OLLAMA_HOST.into()),
        LlmBinding::Lollms => r.opt_url("LLM_BINDING_HOST")?.unwrap_or_else(|| LOLLMS_HOST.into()),
        LlmBinding::Gemini => host_setting(r, "LLM_BINDING_HOST")?.unwrap_or_else(|| GEMINI_HOST.into()),
        LlmBinding::Bedrock => host_setting(r, "LLM_BINDING_HOST")?.unwrap_or_default(),
        LlmBinding::AzureOpenAi => match r.opt_url("LLM_BINDING_HOST")? {
            Some(h) => h,
            None => r.opt_url("AZURE_OPENAI_ENDPOINT")?.ok_or_else(|| ConfigError::Missing {
                key: "LLM_BINDING_HOST".into(),
                hint: "LLM_BINDING=azure_openai needs the resource endpoint; set LLM_BINDING_HOST \
                       or AZURE_OPENAI_ENDPOINT (https://<resource>.openai.azure.com)"
                    .into(),
            })?,
        },
    };
    if binding == LlmBinding::Gemini {
        refuse_vertex(r, "LLM_BINDING")?;
    }
    let api_key = match binding {
        LlmBinding::None | LlmBinding::Bedrock => None,
        LlmBinding::OpenAi => r.secret("LLM_BINDING_API_KEY").or_else(|| r.secret("OPENAI_API_KEY")),
        LlmBinding::AzureOpenAi => r.secret("LLM_BINDING_API_KEY").or_else(|| r.secret("AZURE_OPENAI_API_KEY")),
        LlmBinding::Gemini => r.secret("LLM_BINDING_API_KEY").or_else(|| r.secret("GEMINI_API_KEY")),
        LlmBinding::Ollama | LlmBinding::Lollms => r.secret("LLM_BINDING_API_KEY"),
    };
    let needs_key = matches!(binding, LlmBinding::AzureOpenAi | LlmBinding::Gemini)
        || (binding == LlmBinding::OpenAi && host == OPENAI_HOST);
    if needs_key && api_key.is_none() {
        let fallback = match binding {
            LlmBinding::OpenAi => "OPENAI_API_KEY",
            LlmBinding::Gemini => "GEMINI_API_KEY",
            _ => "AZURE_OPENAI_API_KEY",
        };
        return Err(ConfigError::Missing {
            key: "LLM_BINDING_API_KEY".into(),
            hint: format!(
                "LLM_BINDING={} at {host} needs an API key; set LLM_BINDING_API_KEY or {fallback} \
                 (or LLM_BINDING=none to run without a chat model)",
                binding.as_str()
            ),
        });
    }
    let default_model = match binding {
        LlmBinding::OpenAi | LlmBinding::AzureOpenAi => "gpt-4o-mini",
        LlmBinding::Ollama | LlmBinding::Lollms => "mistral-nemo:latest",
        LlmBinding::Gemini => GEMINI_MODEL,
        LlmBinding::Bedrock | LlmBinding::None => "",
    };
    let model = r.string("LLM_MODEL", default_model);
    if binding == LlmBinding::Bedrock && model.trim().is_empty() {
        return Err(ConfigError::Missing {
            key: "LLM_MODEL".into(),
            hint: "LLM_BINDING=bedrock needs a Bedrock model id, e.g. anthropic.claude-3-5-haiku-20241022-v1:0 \
                   or an inference profile such as us.amazon.nova-lite-v1:0"
                .into(),
        });
    }
    let azure = binding == LlmBinding::AzureOpenAi;
    let azure_api_version = azure.then(|| r.string("AZURE_OPENAI_API_VERSION", AZURE_API_VERSION));
    let azure_deployment = azure.then(|| r.string("AZURE_OPENAI_DEPLOYMENT", &model));
    let sampling = match binding {
        LlmBinding::Gemini => gemini_sampling(r)?,
        LlmBinding::Bedrock => bedrock_sampling(r)?,
        LlmBinding::Ollama => Sampling {
            temperature: temperature(r, "OLLAMA_LLM_TEMPERATURE")?,
            max_tokens: r.opt_with("OLLAMA_LLM_NUM_PREDICT", "a positive integer", positive_u32)?,
            ..Sampling::default()
        },
        LlmBinding::OpenAi | LlmBinding::AzureOpenAi => Sampling {
            temperature: temperature(r, "OPENAI_LLM_TEMPERATURE")?,
            max_tokens: r.opt_with("OPENAI_LLM_MAX_TOKENS", "a positive integer", positive_u32)?,
            extra: with_reasoning_options(
                r,
                r.opt_with("OPENAI_LLM_EXTRA_BODY", "a JSON object such as {\"top_p\": 0.9}", |s| {
                    serde_json::from_str::<serde_json::Value>(s).ok().filter(|v| v.is_object())
                })?,
            )?,
            ..Sampling::default()
        },
        LlmBinding::Lollms | LlmBinding::None => Sampling::default(),
    };
    let ollama_num_ctx = if binding == LlmBinding::Ollama {
        r.opt_with("OLLAMA_LLM_NUM_CTX", "a positive integer", positive_u32)?
    } else {
        None
    };
    let aws = match binding {
        LlmBinding::Bedrock => Some(aws_settings(r, "LLM_BINDING")?),
        _ => None,
    };
    let host = match (&aws, host.is_empty()) {
        (Some(aws), true) => aws.default_endpoint(),
        _ => host,
    };
    Ok(LlmSettings {
        binding,
        host,
        api_key,
        model,
        timeout_secs,
        max_async,
        azure_api_version,
        azure_deployment,
        temperature: sampling.temperature,
        max_tokens: sampling.max_tokens,
        ollama_num_ctx,
        extra_body: sampling.extra,
        top_p: sampling.top_p,
        stop: sampling.stop,
        aws,
    })
}

fn temperature(r: Reader<'_>, key: &str) -> Result<Option<f32>> {
    r.opt_with(key, "a number between 0 and 2", |s| {
        s.parse::<f32>().ok().filter(|t| t.is_finite() && (0.0..=2.0).contains(t))
    })
}

/// Gemini's Vertex AI mode needs Google Cloud OAuth, which is not implemented: a start-up error
/// naming the alternatives.
pub(crate) fn refuse_vertex(r: Reader<'_>, binding_key: &str) -> Result<()> {
    if r.boolean("GOOGLE_GENAI_USE_VERTEXAI", false)? {
        return Err(ConfigError::Conflict(format!(
            "{binding_key}=gemini with GOOGLE_GENAI_USE_VERTEXAI=true ({}) is not supported: Vertex AI needs \
             Google Cloud OAuth credentials. Use a Gemini API key instead (unset GOOGLE_GENAI_USE_VERTEXAI, set \
             GEMINI_API_KEY), or Vertex AI's OpenAI-compatible endpoint with {binding_key}=openai",
            r.raw_source("GOOGLE_GENAI_USE_VERTEXAI")
        )));
    }
    Ok(())
}

/// `OPENAI_LLM_MAX_COMPLETION_TOKENS` and `OPENAI_LLM_REASONING_EFFORT` (openai/azure), sent as
/// the chat request's `max_completion_tokens` and `reasoning_effort` when set — the fields
/// reasoning models (o-series, gpt-5) take instead of `max_tokens`. Unset, nothing is sent (a
/// default effort would be refused by models without reasoning). `OPENAI_LLM_EXTRA_BODY` wins.
fn with_reasoning_options(r: Reader<'_>, extra: Option<serde_json::Value>) -> Result<Option<serde_json::Value>> {
    const EFFORTS: [&str; 6] = ["none", "minimal", "low", "medium", "high", "xhigh"];
    let max_completion = r.opt_with("OPENAI_LLM_MAX_COMPLETION_TOKENS", "a positive integer", positive_u32)?;
    let effort = r.opt_with("OPENAI_LLM_REASONING_EFFORT", "none, minimal, low, medium, high or xhigh", |s| {
        let s = s.trim().to_ascii_lowercase();
        EFFORTS.contains(&s.as_str()).then_some(s)
    })?;
    if max_completion.is_none() && effort.is_none() {
        return Ok(extra);
    }
    let mut body = serde_json::Map::new();
    if let Some(n) = max_completion {
        body.insert("max_completion_tokens".into(), serde_json::json!(n));
    }
    if let Some(e) = effort {
        body.insert("reasoning_effort".into(), serde_json::json!(e));
    }
    if let Some(serde_json::Value::Object(extra)) = extra {
        body.extend(extra);
    }
    Ok(Some(serde_json::Value::Object(body)))
}

fn positive_u32(s: &str) -> Option<u32> {
    s.parse::<u32>().ok().filter(|n| *n > 0)
}

pub(crate) use crate::embedding::{EmbedPolicyValues, embedding_settings};
pub use crate::embedding::{EmbeddingBinding, EmbeddingSettings, JINA_HOST, VOYAGE_HOST};
pub use crate::provider_options::AwsSettings;
