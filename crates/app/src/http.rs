//! Bridge from [`LlmSettings`] / [`EmbeddingSettings`] to the `lightrag-llm-http` adapters.

use std::sync::Arc;

use lightrag_ports::{Embedder, Llm};

use crate::error::AppError;
use crate::providers::{EmbeddingSettings, LlmSettings};

// GAP: lightrag-llm-http has no public API yet. Replace these two bodies with
// `HttpLlmConfig`/`HttpEmbedConfig` + `build_llm`/`build_embedder` once it lands.

/// Builds an HTTP chat model client.
pub(crate) fn llm(settings: &LlmSettings) -> Result<Arc<dyn Llm>, AppError> {
    Err(AppError::Llm {
        binding: settings.binding.as_str().into(),
        reason: "HTTP providers are not wired in this build yet; use LLM_BINDING=none".into(),
    })
}

/// Builds an HTTP embedding client.
pub(crate) fn embedder(settings: &EmbeddingSettings) -> Result<Arc<dyn Embedder>, AppError> {
    Err(AppError::Embedder {
        binding: settings.binding.as_str().into(),
        reason: "HTTP providers are not wired in this build yet; use EMBEDDING_BINDING=local".into(),
    })
}
