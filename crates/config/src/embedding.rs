//! Embedding-model settings (`EMBEDDING_*`, and the keys and options of each provider).

use std::path::{Path, PathBuf};

use crate::error::ConfigError;
use crate::parse::Reader;
use crate::provider_options::{AwsSettings, DEFAULT_BEDROCK_ENDPOINT, DEFAULT_GEMINI_ENDPOINT, aws_settings};
use crate::providers::{
    AZURE_API_VERSION, GEMINI_HOST, LOCAL_EMBEDDING_DIM, LOCAL_EMBEDDING_MODEL, LOLLMS_HOST, OLLAMA_HOST, OPENAI_HOST,
    openai_ollama, refuse_vertex,
};
use crate::secret::Secret;

type Result<T> = std::result::Result<T, ConfigError>;

/// Default Jina AI endpoint.
pub const JINA_HOST: &str = "https://api.jina.ai/v1";
/// Default Voyage AI endpoint.
pub const VOYAGE_HOST: &str = "https://api.voyageai.com/v1";

/// Which embedding provider to use (`EMBEDDING_BINDING`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbeddingBinding {
    /// OpenAI or any OpenAI-compatible `/embeddings` endpoint.
    OpenAi,
    /// Ollama's native API.
    Ollama,
    /// Azure OpenAI.
    AzureOpenAi,
    /// lollms (`/lollms_embed`).
    Lollms,
    /// Google Gemini API.
    Gemini,
    /// Amazon Bedrock (Titan or Cohere embedding models).
    Bedrock,
    /// Jina AI.
    Jina,
    /// Voyage AI.
    VoyageAi,
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
            EmbeddingBinding::Lollms => "lollms",
            EmbeddingBinding::Gemini => "gemini",
            EmbeddingBinding::Bedrock => "bedrock",
            EmbeddingBinding::Jina => "jina",
            EmbeddingBinding::VoyageAi => "voyageai",
            EmbeddingBinding::Local => "local",
        }
    }

    /// The default model and its dimension (LightRAG's defaults).
    fn default_model(self) -> (&'static str, Option<usize>) {
        match self {
            EmbeddingBinding::Local => (LOCAL_EMBEDDING_MODEL, Some(LOCAL_EMBEDDING_DIM)),
            EmbeddingBinding::OpenAi | EmbeddingBinding::AzureOpenAi => ("text-embedding-3-small", Some(1536)),
            EmbeddingBinding::Ollama => ("bge-m3:latest", Some(1024)),
            EmbeddingBinding::Lollms => ("lollms_embedding_model", Some(1024)),
            EmbeddingBinding::Gemini => ("gemini-embedding-001", Some(1536)),
            EmbeddingBinding::Bedrock => ("amazon.titan-embed-text-v2:0", Some(1024)),
            EmbeddingBinding::Jina => ("jina-embeddings-v4", Some(2048)),
            EmbeddingBinding::VoyageAi => ("voyage-3", Some(1024)),
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
    /// `EMBEDDING_BINDING_API_KEY` (with each provider's own fallbacks: `OPENAI_API_KEY`,
    /// `AZURE_OPENAI_API_KEY`, `GEMINI_API_KEY`, `JINA_API_KEY`, `VOYAGE_API_KEY`).
    pub api_key: Option<Secret>,
    /// `EMBEDDING_MODEL`.
    pub model: String,
    /// `EMBEDDING_DIM`.
    pub dim: usize,
    /// `EMBEDDING_SEND_DIM`: send `dimensions` in requests (always for Gemini and Jina).
    pub send_dim: bool,
    /// `EMBEDDING_TIMEOUT`, seconds.
    pub timeout_secs: u64,
    /// `EMBEDDING_BATCH_NUM`.
    pub batch_num: usize,
    /// `EMBEDDING_FUNC_MAX_ASYNC`.
    pub max_async: usize,
    /// Folder of the local model (`LIGHTRAG_MODEL_DIR`); `Some` only for `local`.
    pub model_dir: Option<PathBuf>,
    /// Arithmetic of the local model (`LOCAL_EMBEDDING_PRECISION`: `auto`, `f32`, `int8`);
    /// `Auto` for other bindings.
    pub local_precision: lightrag_embed_local::Precision,
    /// Texts longer than the local model's 256 tokens (`LOCAL_EMBEDDING_LONG_TEXT`: `truncate`,
    /// the default, embeds the first window of every text; `pool` averages every window of a
    /// chunk, and still cuts entity and relation descriptions and queries to their first window);
    /// the default for other bindings.
    pub local_long_texts: lightrag_embed_local::LongTexts,
    /// `AZURE_EMBEDDING_API_VERSION` (or `AZURE_OPENAI_API_VERSION`), azure only.
    pub azure_api_version: Option<String>,
    /// `AZURE_EMBEDDING_DEPLOYMENT` (defaults to the model name), azure only.
    pub azure_deployment: Option<String>,
    /// `OLLAMA_EMBEDDING_NUM_CTX` (ollama only).
    pub ollama_num_ctx: Option<u32>,
    /// `GEMINI_EMBEDDING_TASK_TYPE` (gemini only; default `RETRIEVAL_DOCUMENT`).
    pub task: Option<String>,
    /// Bedrock access (`AWS_*`), bedrock only.
    pub aws: Option<AwsSettings>,
}

const EMBEDDING_BINDINGS: [(&str, EmbeddingBinding); 10] = [
    ("openai", EmbeddingBinding::OpenAi),
    ("ollama", EmbeddingBinding::Ollama),
    ("azure_openai", EmbeddingBinding::AzureOpenAi),
    ("lollms", EmbeddingBinding::Lollms),
    ("gemini", EmbeddingBinding::Gemini),
    ("bedrock", EmbeddingBinding::Bedrock),
    ("aws_bedrock", EmbeddingBinding::Bedrock),
    ("jina", EmbeddingBinding::Jina),
    ("voyageai", EmbeddingBinding::VoyageAi),
    ("local", EmbeddingBinding::Local),
];

/// The model name without a path prefix or `:latest`, lower-cased.
fn base_name(model: &str) -> String {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    name.strip_suffix(":latest").map(str::to_string).unwrap_or(name)
}

/// Native dimensions of well-known embedding models.
fn known_dim(model: &str) -> Option<usize> {
    Some(match base_name(model).as_str() {
        "text-embedding-3-small" | "text-embedding-ada-002" => 1536,
        "text-embedding-3-large" | "gemini-embedding-001" => 3072,
        "all-minilm-l6-v2" | "all-minilm" => 384,
        "bge-m3" | "mxbai-embed-large" => 1024,
        "nomic-embed-text" => 768,
        "text-embedding-004" => 768,
        "jina-embeddings-v4" => 2048,
        "jina-embeddings-v3" => 1024,
        "voyage-3" | "voyage-3-large" | "voyage-3.5" | "voyage-code-3" | "voyage-law-2" | "voyage-finance-2" => 1024,
        "voyage-3-lite" | "voyage-3.5-lite" => 512,
        "amazon.titan-embed-text-v2:0" => 1024,
        "amazon.titan-embed-text-v1" => 1536,
        "cohere.embed-english-v3" | "cohere.embed-multilingual-v3" => 1024,
        _ => return None,
    })
}

/// Models whose vectors can be shortened with a dimension request field.
fn supports_dimensions(model: &str) -> bool {
    let name = base_name(model);
    [
        "text-embedding-3",
        "gemini-embedding",
        "text-embedding-004",
        "jina-embeddings-v3",
        "jina-embeddings-v4",
        "voyage-3-large",
        "voyage-3.5",
        "voyage-code-3",
        "titan-embed-text-v2",
    ]
    .iter()
    .any(|m| name.contains(m))
}

/// Everything about the embedding model except the batch/concurrency policy, which the caller
/// passes in (it is shared with the engine's embedding policy).
pub(crate) struct EmbedPolicyValues {
    pub(crate) timeout_secs: u64,
    pub(crate) batch_num: usize,
    pub(crate) max_async: usize,
}

/// `EMBEDDING_BINDING_HOST` (LightRAG's "default endpoint" placeholders mean unset).
fn host_setting(r: Reader<'_>) -> Result<Option<String>> {
    match r.opt_string("EMBEDDING_BINDING_HOST") {
        Some(v) if v == DEFAULT_GEMINI_ENDPOINT || v == DEFAULT_BEDROCK_ENDPOINT => Ok(None),
        _ => r.opt_url("EMBEDDING_BINDING_HOST"),
    }
}

fn host_for(r: Reader<'_>, binding: EmbeddingBinding) -> Result<Option<String>> {
    let given = host_setting(r)?;
    let or = |default: &str| Ok(Some(given.clone().unwrap_or_else(|| default.to_string())));
    match binding {
        EmbeddingBinding::Local => Ok(None),
        EmbeddingBinding::OpenAi => or(OPENAI_HOST),
        EmbeddingBinding::Ollama => or(OLLAMA_HOST),
        EmbeddingBinding::Lollms => or(LOLLMS_HOST),
        EmbeddingBinding::Gemini => or(GEMINI_HOST),
        EmbeddingBinding::Jina => or(JINA_HOST),
        EmbeddingBinding::VoyageAi => or(VOYAGE_HOST),
        // empty: the region's endpoint, filled in once the region is known
        EmbeddingBinding::Bedrock => or(""),
        EmbeddingBinding::AzureOpenAi => {
            let host = match given {
                Some(h) => Some(h),
                None => match r.opt_url("AZURE_EMBEDDING_ENDPOINT")? {
                    Some(h) => Some(h),
                    None => r.opt_url("AZURE_OPENAI_ENDPOINT")?,
                },
            };
            Ok(Some(host.ok_or_else(|| {
                ConfigError::Missing {
                    key: "EMBEDDING_BINDING_HOST".into(),
                    hint: "EMBEDDING_BINDING=azure_openai needs the resource endpoint; set \
                       EMBEDDING_BINDING_HOST, AZURE_EMBEDDING_ENDPOINT or AZURE_OPENAI_ENDPOINT"
                        .into(),
                }
            })?))
        }
    }
}

fn api_key_for(r: Reader<'_>, binding: EmbeddingBinding) -> Option<Secret> {
    let first = |keys: &[&str]| keys.iter().find_map(|k| r.secret(k));
    match binding {
        EmbeddingBinding::Local | EmbeddingBinding::Bedrock => None,
        EmbeddingBinding::OpenAi => first(&["EMBEDDING_BINDING_API_KEY", "OPENAI_API_KEY"]),
        EmbeddingBinding::AzureOpenAi => {
            first(&["EMBEDDING_BINDING_API_KEY", "AZURE_EMBEDDING_API_KEY", "AZURE_OPENAI_API_KEY"])
        }
        EmbeddingBinding::Gemini => first(&["EMBEDDING_BINDING_API_KEY", "LLM_BINDING_API_KEY", "GEMINI_API_KEY"]),
        EmbeddingBinding::Jina => first(&["EMBEDDING_BINDING_API_KEY", "JINA_API_KEY"]),
        EmbeddingBinding::VoyageAi => first(&["EMBEDDING_BINDING_API_KEY", "VOYAGE_API_KEY", "VOYAGEAI_API_KEY"]),
        EmbeddingBinding::Ollama | EmbeddingBinding::Lollms => first(&["EMBEDDING_BINDING_API_KEY"]),
    }
}

/// Reads the embedding settings.
pub(crate) fn embedding_settings(r: Reader<'_>, policy: EmbedPolicyValues) -> Result<EmbeddingSettings> {
    let default = if openai_ollama(r) {
        // LightRAG's `openai-ollama` chat binding always embeds with Ollama
        EmbeddingBinding::Ollama
    } else if r.is_set("EMBEDDING_BINDING_HOST") {
        EmbeddingBinding::OpenAi
    } else {
        EmbeddingBinding::Local
    };
    let binding = if openai_ollama(r) { default } else { r.choice("EMBEDDING_BINDING", default, &EMBEDDING_BINDINGS)? };
    let host = host_for(r, binding)?;
    if binding == EmbeddingBinding::Gemini {
        refuse_vertex(r, "EMBEDDING_BINDING")?;
    }
    let api_key = api_key_for(r, binding);
    let hosted_key = matches!(binding, EmbeddingBinding::Gemini | EmbeddingBinding::Jina | EmbeddingBinding::VoyageAi)
        && host.as_deref().is_some_and(|h| [GEMINI_HOST, JINA_HOST, VOYAGE_HOST].contains(&h));
    let needs_key = binding == EmbeddingBinding::AzureOpenAi
        || hosted_key
        || (binding == EmbeddingBinding::OpenAi && host.as_deref() == Some(OPENAI_HOST));
    if needs_key && api_key.is_none() {
        let fallback = match binding {
            EmbeddingBinding::OpenAi => "OPENAI_API_KEY",
            EmbeddingBinding::Gemini => "GEMINI_API_KEY",
            EmbeddingBinding::Jina => "JINA_API_KEY",
            EmbeddingBinding::VoyageAi => "VOYAGE_API_KEY",
            _ => "AZURE_OPENAI_API_KEY",
        };
        return Err(ConfigError::Missing {
            key: "EMBEDDING_BINDING_API_KEY".into(),
            hint: format!(
                "EMBEDDING_BINDING={} needs an API key; set EMBEDDING_BINDING_API_KEY or {fallback} \
                 (or EMBEDDING_BINDING=local for the built-in offline model)",
                binding.as_str()
            ),
        });
    }
    let (default_model, default_dim) = binding.default_model();
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
    // Gemini and Jina always receive the dimension (LightRAG forces it)
    let send_dim =
        r.boolean("EMBEDDING_SEND_DIM", false)? || matches!(binding, EmbeddingBinding::Gemini | EmbeddingBinding::Jina);
    // the binding's default dimension applies to its default model (lollms ignores the model)
    let fallback_dim = (model == default_model || binding == EmbeddingBinding::Lollms).then_some(default_dim).flatten();
    let dim = embedding_dim(r, binding, &model, send_dim, fallback_dim)?;
    let model_dir = match binding {
        EmbeddingBinding::Local => Some(model_dir(r)?),
        _ => None,
    };
    let local_precision = match binding {
        EmbeddingBinding::Local => {
            use lightrag_embed_local::Precision;
            r.choice(
                "LOCAL_EMBEDDING_PRECISION",
                Precision::Auto,
                &[("auto", Precision::Auto), ("f32", Precision::F32), ("int8", Precision::Int8)],
            )?
        }
        _ => lightrag_embed_local::Precision::Auto,
    };
    let local_long_texts = match binding {
        EmbeddingBinding::Local => {
            use lightrag_embed_local::LongTexts;
            r.choice(
                "LOCAL_EMBEDDING_LONG_TEXT",
                LongTexts::Truncate,
                &[("pool", LongTexts::Pool), ("truncate", LongTexts::Truncate)],
            )?
        }
        _ => lightrag_embed_local::LongTexts::default(),
    };
    let azure = binding == EmbeddingBinding::AzureOpenAi;
    let azure_api_version = azure.then(|| {
        r.first_string(&["AZURE_EMBEDDING_API_VERSION", "AZURE_OPENAI_API_VERSION"])
            .unwrap_or_else(|| AZURE_API_VERSION.to_string())
    });
    let azure_deployment = azure.then(|| r.string("AZURE_EMBEDDING_DEPLOYMENT", &model));
    let ollama_num_ctx = if binding == EmbeddingBinding::Ollama {
        r.opt_with("OLLAMA_EMBEDDING_NUM_CTX", "a positive integer", |s| s.parse::<u32>().ok().filter(|n| *n > 0))?
    } else {
        None
    };
    let task = if binding == EmbeddingBinding::Gemini { r.opt_string("GEMINI_EMBEDDING_TASK_TYPE") } else { None };
    let aws = match binding {
        EmbeddingBinding::Bedrock => Some(aws_settings(r, "EMBEDDING_BINDING")?),
        _ => None,
    };
    let host = match (&aws, host) {
        (Some(aws), Some(h)) if h.is_empty() => Some(aws.default_endpoint()),
        (_, h) => h,
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
        local_precision,
        local_long_texts,
        azure_api_version,
        azure_deployment,
        ollama_num_ctx,
        task,
        aws,
    })
}

/// `EMBEDDING_DIM`: defaults to the model's native dimension (or the binding's default for its
/// default model); must agree with it unless the provider is asked for shorter vectors.
fn embedding_dim(
    r: Reader<'_>,
    binding: EmbeddingBinding,
    model: &str,
    send_dim: bool,
    fallback: Option<usize>,
) -> Result<usize> {
    let native = known_dim(model);
    let dim: Option<usize> =
        r.opt_with("EMBEDDING_DIM", "a positive integer", |s| s.parse::<usize>().ok().filter(|n| *n > 0))?;
    if let (None, Some(f)) = (dim, fallback) {
        return Ok(f);
    }
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
