//! Chat-model and embedding-model settings (`LLM_*`, `EMBEDDING_*`, `AZURE_*`).

use std::path::{Path, PathBuf};

use crate::error::ConfigError;
use crate::parse::Reader;
use crate::secret::Secret;

type Result<T> = std::result::Result<T, ConfigError>;

/// Default OpenAI endpoint.
pub const OPENAI_HOST: &str = "https://api.openai.com/v1";
/// Default Ollama endpoint.
pub const OLLAMA_HOST: &str = "http://localhost:11434";
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
            LlmBinding::None => "none",
        }
    }
}

/// Chat model settings.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmSettings {
    /// `LLM_BINDING`.
    pub binding: LlmBinding,
    /// Base URL (`LLM_BINDING_HOST`; empty for `none`).
    pub host: String,
    /// `LLM_BINDING_API_KEY` (falls back to `OPENAI_API_KEY` / `AZURE_OPENAI_API_KEY`).
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
    /// `OPENAI_LLM_TEMPERATURE` (or `OLLAMA_LLM_TEMPERATURE` for ollama).
    pub temperature: Option<f32>,
    /// `OPENAI_LLM_MAX_TOKENS` (or `OLLAMA_LLM_NUM_PREDICT` for ollama).
    pub max_tokens: Option<u32>,
    /// `OLLAMA_LLM_NUM_CTX` (ollama only).
    pub ollama_num_ctx: Option<u32>,
    /// `OPENAI_LLM_EXTRA_BODY`: a JSON object merged into every chat request (openai/azure).
    pub extra_body: Option<serde_json::Value>,
}

/// Which embedding provider to use (`EMBEDDING_BINDING`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbeddingBinding {
    /// OpenAI or any OpenAI-compatible `/embeddings` endpoint.
    OpenAi,
    /// Ollama's native API.
    Ollama,
    /// Azure OpenAI.
    AzureOpenAi,
    /// The in-process all-MiniLM-L6-v2 model.
    Local,
}

impl EmbeddingBinding {
    /// The `EMBEDDING_BINDING` value.
    pub fn as_str(self) -> &'static str {
        match self {
            EmbeddingBinding::OpenAi => "openai",
            EmbeddingBinding::Ollama => "ollama",
            EmbeddingBinding::AzureOpenAi => "azure_openai",
            EmbeddingBinding::Local => "local",
        }
    }
}

/// Embedding model settings.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddingSettings {
    /// `EMBEDDING_BINDING`.
    pub binding: EmbeddingBinding,
    /// Base URL (`EMBEDDING_BINDING_HOST`); `None` for `local`.
    pub host: Option<String>,
    /// `EMBEDDING_BINDING_API_KEY` (falls back to `OPENAI_API_KEY` / `AZURE_OPENAI_API_KEY`).
    pub api_key: Option<Secret>,
    /// `EMBEDDING_MODEL`.
    pub model: String,
    /// `EMBEDDING_DIM`.
    pub dim: usize,
    /// `EMBEDDING_SEND_DIM`: send `dimensions` in requests.
    pub send_dim: bool,
    /// `EMBEDDING_TIMEOUT`, seconds.
    pub timeout_secs: u64,
    /// `EMBEDDING_BATCH_NUM`.
    pub batch_num: usize,
    /// `EMBEDDING_FUNC_MAX_ASYNC`.
    pub max_async: usize,
    /// Folder of the local model (`LIGHTRAG_MODEL_DIR`); `Some` only for `local`.
    pub model_dir: Option<PathBuf>,
    /// `AZURE_EMBEDDING_API_VERSION` (or `AZURE_OPENAI_API_VERSION`), azure only.
    pub azure_api_version: Option<String>,
    /// `AZURE_EMBEDDING_DEPLOYMENT` (defaults to the model name), azure only.
    pub azure_deployment: Option<String>,
    /// `OLLAMA_EMBEDDING_NUM_CTX` (ollama only).
    pub ollama_num_ctx: Option<u32>,
}

const LLM_BINDINGS: [(&str, Option<LlmBinding>); 5] = [
    ("openai", Some(LlmBinding::OpenAi)),
    ("ollama", Some(LlmBinding::Ollama)),
    ("azure_openai", Some(LlmBinding::AzureOpenAi)),
    ("none", Some(LlmBinding::None)),
    ("local", None),
];

/// Reads the chat model settings. `timeout_secs` and `max_async` are parsed by the caller
/// (they are shared with the engine's LLM policy).
pub(crate) fn llm_settings(r: Reader<'_>, timeout_secs: u64, max_async: usize) -> Result<LlmSettings> {
    // Default: openai when a host or key is given (any OpenAI-compatible server), else none.
    let default = if r.is_set("LLM_BINDING_HOST") || r.is_set("LLM_BINDING_API_KEY") {
        Some(LlmBinding::OpenAi)
    } else {
        Some(LlmBinding::None)
    };
    let binding = match r.choice("LLM_BINDING", default, &LLM_BINDINGS)? {
        Some(b) => b,
        None => {
            return Err(ConfigError::LocalLlmUnavailable(r.raw_source("LLM_BINDING")));
        }
    };
    let host = match binding {
        LlmBinding::None => String::new(),
        LlmBinding::OpenAi => r.opt_url("LLM_BINDING_HOST")?.unwrap_or_else(|| OPENAI_HOST.into()),
        LlmBinding::Ollama => r.opt_url("LLM_BINDING_HOST")?.unwrap_or_else(|| OLLAMA_HOST.into()),
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
    let api_key = match binding {
        LlmBinding::None => None,
        LlmBinding::OpenAi => r.secret("LLM_BINDING_API_KEY").or_else(|| r.secret("OPENAI_API_KEY")),
        LlmBinding::AzureOpenAi => r.secret("LLM_BINDING_API_KEY").or_else(|| r.secret("AZURE_OPENAI_API_KEY")),
        LlmBinding::Ollama => r.secret("LLM_BINDING_API_KEY"),
    };
    let needs_key =
        matches!(binding, LlmBinding::AzureOpenAi) || (binding == LlmBinding::OpenAi && host == OPENAI_HOST);
    if needs_key && api_key.is_none() {
        let fallback = if binding == LlmBinding::OpenAi { "OPENAI_API_KEY" } else { "AZURE_OPENAI_API_KEY" };
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
        LlmBinding::Ollama => "mistral-nemo:latest",
        LlmBinding::None => "",
    };
    let model = r.string("LLM_MODEL", default_model);
    let azure = binding == LlmBinding::AzureOpenAi;
    let azure_api_version = azure.then(|| r.string("AZURE_OPENAI_API_VERSION", AZURE_API_VERSION));
    let azure_deployment = azure.then(|| r.string("AZURE_OPENAI_DEPLOYMENT", &model));
    let ollama = binding == LlmBinding::Ollama;
    let temp_key = if ollama { "OLLAMA_LLM_TEMPERATURE" } else { "OPENAI_LLM_TEMPERATURE" };
    let temperature = r.opt_with(temp_key, "a number between 0 and 2", |s| {
        s.parse::<f32>().ok().filter(|t| t.is_finite() && (0.0..=2.0).contains(t))
    })?;
    let max_tokens_key = if ollama { "OLLAMA_LLM_NUM_PREDICT" } else { "OPENAI_LLM_MAX_TOKENS" };
    let max_tokens = r.opt_with(max_tokens_key, "a positive integer", positive_u32)?;
    let ollama_num_ctx =
        if ollama { r.opt_with("OLLAMA_LLM_NUM_CTX", "a positive integer", positive_u32)? } else { None };
    let extra_body = if ollama {
        None
    } else {
        let extra = r.opt_with("OPENAI_LLM_EXTRA_BODY", "a JSON object such as {\"top_p\": 0.9}", |s| {
            serde_json::from_str::<serde_json::Value>(s).ok().filter(|v| v.is_object())
        })?;
        with_reasoning_options(&r, extra)?
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
        temperature,
        max_tokens,
        ollama_num_ctx,
        extra_body,
    })
}

/// `OPENAI_LLM_MAX_COMPLETION_TOKENS` and `OPENAI_LLM_REASONING_EFFORT` (openai/azure), sent as
/// the chat request's `max_completion_tokens` and `reasoning_effort` when set — the fields
/// reasoning models (o-series, gpt-5) take instead of `max_tokens`. Unset, nothing is sent (a
/// default effort would be refused by models without reasoning). `OPENAI_LLM_EXTRA_BODY` wins.
fn with_reasoning_options(r: &Reader<'_>, extra: Option<serde_json::Value>) -> Result<Option<serde_json::Value>> {
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

const EMBEDDING_BINDINGS: [(&str, EmbeddingBinding); 4] = [
    ("openai", EmbeddingBinding::OpenAi),
    ("ollama", EmbeddingBinding::Ollama),
    ("azure_openai", EmbeddingBinding::AzureOpenAi),
    ("local", EmbeddingBinding::Local),
];

/// Native dimensions of well-known embedding models.
fn known_dim(model: &str) -> Option<usize> {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    let name = name.strip_suffix(":latest").unwrap_or(&name);
    Some(match name {
        "text-embedding-3-small" | "text-embedding-ada-002" => 1536,
        "text-embedding-3-large" => 3072,
        "all-minilm-l6-v2" | "all-minilm" => 384,
        "bge-m3" | "mxbai-embed-large" => 1024,
        "nomic-embed-text" => 768,
        _ => return None,
    })
}

/// Models whose vectors can be shortened with the `dimensions` request field.
fn supports_dimensions(model: &str) -> bool {
    model.to_ascii_lowercase().contains("text-embedding-3")
}

/// Everything about the embedding model except the batch/concurrency policy, which the caller
/// passes in (it is shared with the engine's embedding policy).
pub(crate) struct EmbedPolicyValues {
    pub(crate) timeout_secs: u64,
    pub(crate) batch_num: usize,
    pub(crate) max_async: usize,
}

/// Reads the embedding settings.
pub(crate) fn embedding_settings(r: Reader<'_>, policy: EmbedPolicyValues) -> Result<EmbeddingSettings> {
    let default = if r.is_set("EMBEDDING_BINDING_HOST") { EmbeddingBinding::OpenAi } else { EmbeddingBinding::Local };
    let binding = r.choice("EMBEDDING_BINDING", default, &EMBEDDING_BINDINGS)?;
    let host = match binding {
        EmbeddingBinding::Local => None,
        EmbeddingBinding::OpenAi => Some(r.opt_url("EMBEDDING_BINDING_HOST")?.unwrap_or_else(|| OPENAI_HOST.into())),
        EmbeddingBinding::Ollama => Some(r.opt_url("EMBEDDING_BINDING_HOST")?.unwrap_or_else(|| OLLAMA_HOST.into())),
        EmbeddingBinding::AzureOpenAi => {
            let host = match r.opt_url("EMBEDDING_BINDING_HOST")? {
                Some(h) => Some(h),
                None => match r.opt_url("AZURE_EMBEDDING_ENDPOINT")? {
                    Some(h) => Some(h),
                    None => r.opt_url("AZURE_OPENAI_ENDPOINT")?,
                },
            };
            Some(host.ok_or_else(|| {
                ConfigError::Missing {
                    key: "EMBEDDING_BINDING_HOST".into(),
                    hint: "EMBEDDING_BINDING=azure_openai needs the resource endpoint; set \
                       EMBEDDING_BINDING_HOST, AZURE_EMBEDDING_ENDPOINT or AZURE_OPENAI_ENDPOINT"
                        .into(),
                }
            })?)
        }
    };
    let api_key = match binding {
        EmbeddingBinding::Local => None,
        EmbeddingBinding::OpenAi => r.secret("EMBEDDING_BINDING_API_KEY").or_else(|| r.secret("OPENAI_API_KEY")),
        EmbeddingBinding::AzureOpenAi => r
            .secret("EMBEDDING_BINDING_API_KEY")
            .or_else(|| r.secret("AZURE_EMBEDDING_API_KEY"))
            .or_else(|| r.secret("AZURE_OPENAI_API_KEY")),
        EmbeddingBinding::Ollama => r.secret("EMBEDDING_BINDING_API_KEY"),
    };
    let needs_key = binding == EmbeddingBinding::AzureOpenAi
        || (binding == EmbeddingBinding::OpenAi && host.as_deref() == Some(OPENAI_HOST));
    if needs_key && api_key.is_none() {
        return Err(ConfigError::Missing {
            key: "EMBEDDING_BINDING_API_KEY".into(),
            hint: format!(
                "EMBEDDING_BINDING={} needs an API key; set EMBEDDING_BINDING_API_KEY or {} \
                 (or EMBEDDING_BINDING=local for the built-in offline model)",
                binding.as_str(),
                if binding == EmbeddingBinding::OpenAi { "OPENAI_API_KEY" } else { "AZURE_OPENAI_API_KEY" }
            ),
        });
    }
    let default_model = match binding {
        EmbeddingBinding::Local => LOCAL_EMBEDDING_MODEL,
        EmbeddingBinding::OpenAi | EmbeddingBinding::AzureOpenAi => "text-embedding-3-small",
        EmbeddingBinding::Ollama => "bge-m3:latest",
    };
    let mut model = r.string("EMBEDDING_MODEL", default_model);
    if binding == EmbeddingBinding::Local {
        if known_dim(&model) != Some(LOCAL_EMBEDDING_DIM) {
            return Err(r.invalid(
                "EMBEDDING_MODEL",
                format!("{LOCAL_EMBEDDING_MODEL} (the only model EMBEDDING_BINDING=local runs)"),
            ));
        }
        model = LOCAL_EMBEDDING_MODEL.to_string();
    }
    let send_dim = r.boolean("EMBEDDING_SEND_DIM", false)?;
    let dim = embedding_dim(r, binding, &model, send_dim)?;
    let model_dir = match binding {
        EmbeddingBinding::Local => Some(model_dir(r)?),
        _ => None,
    };
    let azure = binding == EmbeddingBinding::AzureOpenAi;
    let azure_api_version = azure.then(|| {
        r.first_string(&["AZURE_EMBEDDING_API_VERSION", "AZURE_OPENAI_API_VERSION"])
            .unwrap_or_else(|| AZURE_API_VERSION.to_string())
    });
    let azure_deployment = azure.then(|| r.string("AZURE_EMBEDDING_DEPLOYMENT", &model));
    let ollama_num_ctx = if binding == EmbeddingBinding::Ollama {
        r.opt_with("OLLAMA_EMBEDDING_NUM_CTX", "a positive integer", positive_u32)?
    } else {
        None
    };
    Ok(EmbeddingSettings {
        binding,
        host,
        api_key,
        model,
        dim,
        send_dim,
        timeout_secs: policy.timeout_secs,
        batch_num: policy.batch_num,
        max_async: policy.max_async,
        model_dir,
        azure_api_version,
        azure_deployment,
        ollama_num_ctx,
    })
}

/// `EMBEDDING_DIM`: defaults to the model's native dimension; must agree with it.
fn embedding_dim(r: Reader<'_>, binding: EmbeddingBinding, model: &str, send_dim: bool) -> Result<usize> {
    let native = known_dim(model);
    let dim: Option<usize> =
        r.opt_with("EMBEDDING_DIM", "a positive integer", |s| s.parse::<usize>().ok().filter(|n| *n > 0))?;
    match (dim, native) {
        (None, Some(n)) => Ok(n),
        (None, None) => Err(ConfigError::Missing {
            key: "EMBEDDING_DIM".into(),
            hint: format!(
                "the dimension of EMBEDDING_MODEL={model:?} is not known here; set EMBEDDING_DIM \
                 to the length of the vectors the model returns"
            ),
        }),
        (Some(d), None) => Ok(d),
        (Some(d), Some(n)) if d == n => Ok(d),
        (Some(d), Some(n)) => {
            if binding == EmbeddingBinding::Local {
                Err(r.invalid("EMBEDDING_DIM", format!("{n} (EMBEDDING_BINDING=local runs {model})")))
            } else if send_dim && supports_dimensions(model) && d < n {
                Ok(d)
            } else if supports_dimensions(model) && d < n {
                Err(r.invalid(
                    "EMBEDDING_DIM",
                    format!(
                        "{n} for {model}, or set EMBEDDING_SEND_DIM=true to ask the provider for \
                         {d}-dimensional vectors"
                    ),
                ))
            } else {
                Err(r.invalid("EMBEDDING_DIM", format!("{n}, the dimension of {model}")))
            }
        }
    }
}

/// The local model folder: `LIGHTRAG_MODEL_DIR`, else under `$XDG_CACHE_HOME` or `$HOME/.cache`.
fn model_dir(r: Reader<'_>) -> Result<PathBuf> {
    let explicit = r.opt_string("LIGHTRAG_MODEL_DIR");
    let xdg = r.opt_string("XDG_CACHE_HOME");
    let home = r.opt_string("HOME");
    lightrag_embed_local::default_model_dir(
        explicit.as_deref().map(std::ffi::OsStr::new),
        xdg.as_deref().map(std::ffi::OsStr::new),
        home.as_deref().map(Path::new),
    )
    .ok_or_else(|| ConfigError::Missing {
        key: "LIGHTRAG_MODEL_DIR".into(),
        hint: "neither LIGHTRAG_MODEL_DIR, XDG_CACHE_HOME nor HOME is set, so the local \
               embedding model cannot be found; set LIGHTRAG_MODEL_DIR to its folder"
            .into(),
    })
}
