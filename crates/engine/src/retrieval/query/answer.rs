//! Answer generation (§6.7) and bypass mode.

use lightrag_ports::{ChatRequest, UsageRole};

use crate::engine::Inner;
use crate::error::{EngineError, Result};
use crate::prompts;
use crate::providers::gateway::{CacheSpec, ChatCall};
use crate::providers::usage_scope::UsageScope;

use super::param::QueryParam;
use super::result::Answer;
use super::retrieve::response_type;

/// Which answer prompt to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PromptKind {
    /// Knowledge graph and chunks.
    Graph,
    /// Chunks only (naive mode).
    Naive,
}

/// The system prompt for `context`.
pub(crate) fn system_prompt(kind: PromptKind, context: &str, param: &QueryParam) -> String {
    let user_prompt = param.user_prompt.as_deref();
    match kind {
        PromptKind::Graph => prompts::rag_answer_system(context, response_type(param), user_prompt),
        PromptKind::Naive => prompts::naive_answer_system(context, response_type(param), user_prompt),
    }
}

/// Turns a retrieved context into the requested answer: the context itself, the prompt, or the
/// LLM's answer (streamed or not). Without an LLM the context is returned. The answer call is
/// counted in `scope`.
pub(crate) async fn answer(
    inner: &Inner,
    query: &str,
    param: &QueryParam,
    kind: PromptKind,
    context: String,
    scope: &UsageScope,
) -> Result<Answer> {
    if param.only_need_context {
        return Ok(Answer::Context(context));
    }
    let system = system_prompt(kind, &context, param);
    if param.only_need_prompt {
        return Ok(Answer::Prompt(prompts::full_prompt(&system, query)));
    }
    if !inner.gateway.has_llm() {
        return Ok(Answer::Context(context));
    }
    let request = ChatRequest {
        system: Some(system),
        history: param.conversation_history.clone(),
        prompt: query.to_string(),
        ..ChatRequest::default()
    };
    if param.stream {
        let call = ChatCall::new(UsageRole::Answer, &request).scoped(scope).streaming();
        return Ok(Answer::Stream(inner.gateway.chat(call).await?.into_stream()));
    }
    let cache = CacheSpec {
        mode: param.mode.as_str(),
        cache_type: "query",
        chunk_id: None,
        enabled: inner.config.llm.enable_cache,
    };
    let call = ChatCall::new(UsageRole::Answer, &request).cached(cache).scoped(scope);
    let reply = inner.gateway.chat(call).await?.text().await?;
    Ok(Answer::Text(reply.content))
}

/// Bypass mode: the question and the conversation go straight to the LLM (counted in `scope`).
pub(crate) async fn bypass(inner: &Inner, query: &str, param: &QueryParam, scope: &UsageScope) -> Result<Answer> {
    if !inner.gateway.has_llm() {
        return Err(EngineError::Invalid(
            "bypass mode needs an LLM; set LLM_BINDING (and LLM_MODEL), or use another query mode".to_string(),
        ));
    }
    let request = ChatRequest {
        history: param.conversation_history.clone(),
        prompt: query.to_string(),
        ..ChatRequest::default()
    };
    if param.stream {
        let call = ChatCall::new(UsageRole::Answer, &request).scoped(scope).streaming();
        return Ok(Answer::Stream(inner.gateway.chat(call).await?.into_stream()));
    }
    // never cached
    let reply = inner.gateway.chat(ChatCall::new(UsageRole::Answer, &request).scoped(scope)).await?.text().await?;
    Ok(Answer::Text(reply.content))
}
