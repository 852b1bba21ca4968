//! Bridge from [`LlmSettings`] / [`EmbeddingSettings`] / [`RerankSettings`] to the
//! `lightrag-llm-http` adapters.

use std::sync::Arc;
use std::time::Duration;

use lightrag_engine::config::RerankPolicy;
use lightrag_llm_http::{HttpEmbedConfig, HttpLlmConfig, LlmBinding as Wire, RerankChunking, RerankConfig};
use lightrag_ports::{Embedder, Llm, Reranker, Tokenizer};

use crate::error::AppError;
use crate::providers::{EmbeddingBinding, EmbeddingSettings, LlmBinding, LlmSettings};
use crate::rerank::RerankSettings;

/// The adapter's binding for a chat binding (`None` has no HTTP client).
fn llm_binding(b: LlmBinding) -> Option<Wire> {
    match b {
        LlmBinding::OpenAi => Some(Wire::OpenAi),
        LlmBinding::Ollama => Some(Wire::Ollama),
        LlmBinding::AzureOpenAi => Some(Wire::AzureOpenAi),
        LlmBinding::Lollms => Some(Wire::Lollms),
        LlmBinding::Gemini => Some(Wire::Gemini),
        LlmBinding::Bedrock => Some(Wire::Bedrock),
        LlmBinding::None => None,
    }
}

/// The adapter's binding for an embedding binding (`Local` has no HTTP client).
fn embed_binding(b: EmbeddingBinding) -> Option<Wire> {
    match b {
        EmbeddingBinding::OpenAi => Some(Wire::OpenAi),
        EmbeddingBinding::Ollama => Some(Wire::Ollama),
        EmbeddingBinding::AzureOpenAi => Some(Wire::AzureOpenAi),
        EmbeddingBinding::Lollms => Some(Wire::Lollms),
        EmbeddingBinding::Gemini => Some(Wire::Gemini),
        EmbeddingBinding::Bedrock => Some(Wire::Bedrock),
        EmbeddingBinding::Jina => Some(Wire::Jina),
        EmbeddingBinding::VoyageAi => Some(Wire::VoyageAi),
        EmbeddingBinding::Local => None,
    }
}

/// The adapter configuration for `settings`, or `None` for `LLM_BINDING=none`.
pub(crate) fn llm_config(settings: &LlmSettings) -> Option<HttpLlmConfig> {
    Some(HttpLlmConfig {
        binding: llm_binding(settings.binding)?,
        host: settings.host.clone(),
        api_key: settings.api_key.as_ref().map(|k| k.expose().to_string()),
        model: settings.model.clone(),
        timeout: Duration::from_secs(settings.timeout_secs),
        api_version: settings.azure_api_version.clone(),
        deployment: settings.azure_deployment.clone(),
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
        num_ctx: settings.ollama_num_ctx,
        extra_body: settings.extra_body.clone(),
        top_p: settings.top_p,
        stop: settings.stop.clone(),
        aws: settings.aws.as_ref().map(|a| a.to_adapter()),
    })
}

/// The adapter configuration for `settings`, or `None` for `EMBEDDING_BINDING=local`.
pub(crate) fn embed_config(settings: &EmbeddingSettings) -> Option<HttpEmbedConfig> {
    Some(HttpEmbedConfig {
        binding: embed_binding(settings.binding)?,
        host: settings.host.clone()?,
        api_key: settings.api_key.as_ref().map(|k| k.expose().to_string()),
        model: settings.model.clone(),
        dim: settings.dim,
        timeout: Duration::from_secs(settings.timeout_secs),
        send_dimensions: settings.send_dim,
        api_version: settings.azure_api_version.clone(),
        deployment: settings.azure_deployment.clone(),
        num_ctx: settings.ollama_num_ctx,
        task: settings.task.clone(),
        aws: settings.aws.as_ref().map(|a| a.to_adapter()),
    })
}

/// The adapter configuration of the rerank service.
pub(crate) fn rerank_config(
    settings: &RerankSettings,
    policy: &RerankPolicy,
    tokenizer: &Arc<dyn Tokenizer>,
) -> RerankConfig {
    RerankConfig {
        binding: settings.binding,
        url: settings.host.clone(),
        api_key: settings.api_key.as_ref().map(|k| k.expose().to_string()),
        model: settings.model.clone(),
        timeout: Duration::from_secs(policy.timeout_secs),
        chunking: settings
            .enable_chunking
            .then(|| RerankChunking { max_tokens_per_doc: settings.max_tokens_per_doc, tokenizer: tokenizer.clone() }),
    }
}

/// Builds the rerank client (no network call).
pub(crate) fn reranker(
    settings: &RerankSettings,
    policy: &RerankPolicy,
    tokenizer: &Arc<dyn Tokenizer>,
) -> Result<Arc<dyn Reranker>, AppError> {
    lightrag_llm_http::build_reranker(&rerank_config(settings, policy, tokenizer))
        .map_err(|e| AppError::Reranker { binding: settings.binding.as_str().into(), reason: e.to_string() })
}

/// Builds an HTTP chat model client (no network call).
pub(crate) fn llm(settings: &LlmSettings) -> Result<Arc<dyn Llm>, AppError> {
    let err = |reason: String| AppError::Llm { binding: settings.binding.as_str().into(), reason };
    let config = llm_config(settings).ok_or_else(|| err("this binding has no HTTP client".into()))?;
    lightrag_llm_http::build_llm(&config).map_err(|e| err(e.to_string()))
}

/// Builds an HTTP embedding client (no network call).
pub(crate) fn embedder(settings: &EmbeddingSettings) -> Result<Arc<dyn Embedder>, AppError> {
    let err = |reason: String| AppError::Embedder { binding: settings.binding.as_str().into(), reason };
    let config = embed_config(settings).ok_or_else(|| err("this binding has no HTTP client".into()))?;
    lightrag_llm_http::build_embedder(&config).map_err(|e| err(e.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::{RawConfig, Settings};
    use std::collections::BTreeMap;

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        let env = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        Settings::from_raw(&RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap()).unwrap()
    }

    #[test]
    fn azure_settings_map_to_the_adapter() {
        let s = settings(&[
            ("LLM_BINDING", "azure_openai"),
            ("AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com/"),
            ("AZURE_OPENAI_API_KEY", "az-key"),
            ("AZURE_OPENAI_DEPLOYMENT", "my-gpt"),
            ("AZURE_OPENAI_API_VERSION", "2025-01-01"),
            ("LLM_MODEL", "gpt-4o"),
            ("LLM_TIMEOUT", "17"),
            ("OPENAI_LLM_TEMPERATURE", "0.3"),
            ("OPENAI_LLM_MAX_TOKENS", "900"),
            ("EMBEDDING_BINDING", "azure_openai"),
            ("EMBEDDING_MODEL", "text-embedding-3-large"),
            ("EMBEDDING_DIM", "1024"),
            ("EMBEDDING_SEND_DIM", "true"),
        ]);
        let c = llm_config(&s.llm).unwrap();
        assert_eq!(c.binding, lightrag_llm_http::LlmBinding::AzureOpenAi);
        assert_eq!(c.host, "https://res.openai.azure.com");
        assert_eq!(c.api_key.as_deref(), Some("az-key"));
        assert_eq!(c.deployment.as_deref(), Some("my-gpt"));
        assert_eq!(c.api_version.as_deref(), Some("2025-01-01"));
        assert_eq!(c.model, "gpt-4o");
        assert_eq!(c.timeout, Duration::from_secs(17));
        assert_eq!(c.temperature, Some(0.3));
        assert_eq!(c.max_tokens, Some(900));
        let e = embed_config(&s.embedding).unwrap();
        assert_eq!(e.host, "https://res.openai.azure.com");
        assert_eq!(e.api_key.as_deref(), Some("az-key"));
        assert_eq!(e.dim, 1024);
        assert!(e.send_dimensions);
        assert_eq!(e.deployment.as_deref(), Some("text-embedding-3-large"));
        assert_eq!(e.api_version.as_deref(), Some("2025-01-01"));
        // Building makes no network call and succeeds.
        assert!(llm(&s.llm).is_ok());
        assert!(embedder(&s.embedding).is_ok());
    }

    #[test]
    fn none_and_local_have_no_http_config() {
        let s = settings(&[("HOME", "/h")]);
        assert!(llm_config(&s.llm).is_none());
        assert!(embed_config(&s.embedding).is_none());
    }

    #[test]
    fn ollama_options_map() {
        let s = settings(&[
            ("LLM_BINDING", "ollama"),
            ("LLM_MODEL", "qwen2.5:7b"),
            ("OLLAMA_LLM_NUM_CTX", "32768"),
            ("OLLAMA_LLM_TEMPERATURE", "0.1"),
            ("EMBEDDING_BINDING", "ollama"),
            ("EMBEDDING_MODEL", "nomic-embed-text"),
            ("OLLAMA_EMBEDDING_NUM_CTX", "8192"),
        ]);
        let c = llm_config(&s.llm).unwrap();
        assert_eq!(c.host, "http://localhost:11434");
        assert_eq!(c.num_ctx, Some(32768));
        assert_eq!(c.temperature, Some(0.1));
        assert!(c.api_key.is_none());
        let e = embed_config(&s.embedding).unwrap();
        assert_eq!(e.host, "http://localhost:11434");
        assert_eq!(e.dim, 768);
        assert_eq!(e.num_ctx, Some(8192));
        let identity = embedder(&s.embedding).unwrap().identity();
        assert_eq!(identity.dim, 768);
    }
}
