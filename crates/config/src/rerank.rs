//! Rerank settings, with LightRAG's names: `RERANK_BINDING` (`null`, `cohere`, `jina`,
//! `aliyun`), `RERANK_MODEL`, `RERANK_BINDING_HOST`, `RERANK_BINDING_API_KEY`,
//! `MAX_ASYNC_RERANK`, `RERANK_TIMEOUT`, `RERANK_ENABLE_CHUNKING`, `RERANK_MAX_TOKENS_PER_DOC`.
//! (`RERANK_BY_DEFAULT` and `MIN_RERANK_SCORE` are query settings of the engine.)

use lightrag_llm_http::RerankBinding;

use crate::error::ConfigError;
use crate::parse::Reader;
use crate::secret::Secret;

type Result<T> = std::result::Result<T, ConfigError>;

/// LightRAG's default `RERANK_MAX_TOKENS_PER_DOC`.
pub const RERANK_MAX_TOKENS_PER_DOC: usize = 4096;

/// The configured rerank service.
#[derive(Debug, Clone, PartialEq)]
pub struct RerankSettings {
    /// `RERANK_BINDING`.
    pub binding: RerankBinding,
    /// `RERANK_MODEL` (default per service).
    pub model: String,
    /// `RERANK_BINDING_HOST`: the full endpoint URL (default per service).
    pub host: String,
    /// `RERANK_BINDING_API_KEY` (or `COHERE_API_KEY` / `JINA_API_KEY` / `DASHSCOPE_API_KEY`).
    pub api_key: Option<Secret>,
    /// `RERANK_ENABLE_CHUNKING`: split long chunks before scoring (cohere only, as in LightRAG;
    /// the other services score whole chunks).
    pub enable_chunking: bool,
    /// `RERANK_MAX_TOKENS_PER_DOC` (4096): the longest piece when chunking.
    pub max_tokens_per_doc: usize,
}

/// Reads the rerank service, or `None` for `RERANK_BINDING=null` (the default).
pub(crate) fn rerank_settings(r: Reader<'_>) -> Result<Option<RerankSettings>> {
    let name = r.string("RERANK_BINDING", "null");
    if matches!(name.trim().to_ascii_lowercase().as_str(), "null" | "none" | "") {
        return Ok(None);
    }
    let binding: RerankBinding =
        name.parse().map_err(|_| r.invalid("RERANK_BINDING", "one of null, cohere, jina, aliyun"))?;
    let fallback_key = match binding {
        RerankBinding::Cohere => "COHERE_API_KEY",
        RerankBinding::Jina => "JINA_API_KEY",
        RerankBinding::Aliyun => "DASHSCOPE_API_KEY",
    };
    let host = r.opt_url("RERANK_BINDING_HOST")?.unwrap_or_else(|| binding.default_url().to_string());
    let api_key = r.secret("RERANK_BINDING_API_KEY").or_else(|| r.secret(fallback_key));
    if api_key.is_none() && host == binding.default_url() {
        return Err(ConfigError::Missing {
            key: "RERANK_BINDING_API_KEY".into(),
            hint: format!(
                "RERANK_BINDING={binding} at {host} needs an API key; set RERANK_BINDING_API_KEY or {fallback_key} \
                 (or RERANK_BINDING=null to query without reranking)"
            ),
        });
    }
    let enable_chunking = r.boolean("RERANK_ENABLE_CHUNKING", false)?;
    let max_tokens_per_doc = r.positive("RERANK_MAX_TOKENS_PER_DOC", RERANK_MAX_TOKENS_PER_DOC)?;
    Ok(Some(RerankSettings {
        binding,
        model: r.string("RERANK_MODEL", binding.default_model()),
        host,
        api_key,
        enable_chunking,
        max_tokens_per_doc,
    }))
}
