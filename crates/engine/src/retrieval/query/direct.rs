//! Direct completions: a prompt (with an optional system prompt and earlier turns) sent straight
//! to the chat model, without retrieval — what LightRAG's Ollama emulation does for
//! `/api/generate`, the `/bypass` chat prefix and Open WebUI's title/tag tasks.
//!
//! The call goes through the gateway like every other one (concurrency limit, timeout, retries,
//! usage ledger under the `answer` role) but is never cached: a chat client asking the same thing
//! twice expects a fresh answer.

use lightrag_ports::{ChatRequest, LlmError, TextStream, UsageRole};

use crate::engine::Engine;
use crate::error::Result;
use crate::providers::gateway::ChatCall;

impl Engine {
    /// Sends `request` to the chat model and returns the whole answer.
    ///
    /// Fails with [`LlmError::NotConfigured`] (as [`crate::EngineError::Llm`]) when no LLM is
    /// configured, or with the provider's error once retries are used up.
    pub async fn complete(&self, request: &ChatRequest) -> Result<String> {
        let gateway = &self.inner.gateway;
        if !gateway.has_llm() {
            return Err(LlmError::NotConfigured.into());
        }
        Ok(gateway.chat(ChatCall::new(UsageRole::Answer, request)).await?.text().await?.content)
    }

    /// Sends `request` to the chat model and streams the answer. Errors while opening the stream
    /// are returned here; errors after that arrive as an `Err` item of the stream.
    pub async fn complete_stream(&self, request: &ChatRequest) -> Result<TextStream> {
        let gateway = &self.inner.gateway;
        if !gateway.has_llm() {
            return Err(LlmError::NotConfigured.into());
        }
        Ok(gateway.chat(ChatCall::new(UsageRole::Answer, request).streaming()).await?.into_stream())
    }

    /// Tokens in `text` by the engine's tokenizer (the one used for chunking and budgets).
    pub fn count_tokens(&self, text: &str) -> usize {
        self.inner.tokenizer.count(text)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::{Arc, Mutex};

    use async_trait::async_trait;
    use futures::StreamExt;
    use lightrag_ports::{
        ChatMessage, ChatResponse, EmbedError, Embedder, EmbeddingIdentity, Llm, Role, Store, Tokenizer,
    };
    use lightrag_store_sqlite::SqliteStore;
    use lightrag_tokenizer::TiktokenTokenizer;

    use super::*;
    use crate::EngineError;
    use crate::config::EngineConfig;
    use crate::engine::EngineParts;

    struct Constant;

    #[async_trait]
    impl Embedder for Constant {
        fn identity(&self) -> EmbeddingIdentity {
            EmbeddingIdentity { model: "constant".into(), dim: 4 }
        }
        async fn embed(&self, texts: &[String]) -> std::result::Result<Vec<Vec<f32>>, EmbedError> {
            Ok(texts.iter().map(|_| vec![1.0, 0.0, 0.0, 0.0]).collect())
        }
    }

    /// Echoes the number of messages and the prompt; records requests.
    #[derive(Default)]
    struct Echo {
        requests: Mutex<Vec<ChatRequest>>,
    }

    #[async_trait]
    impl Llm for Echo {
        fn identity(&self) -> String {
            "echo".into()
        }
        async fn chat(&self, request: &ChatRequest) -> std::result::Result<ChatResponse, LlmError> {
            self.requests.lock().unwrap().push(request.clone());
            let content = format!("{} messages: {}", request.messages().len(), request.prompt);
            Ok(ChatResponse { content, usage: None })
        }
    }

    async fn engine(llm: Option<Arc<Echo>>) -> (Engine, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("store.db")).unwrap());
        let engine = Engine::open(EngineParts {
            config: EngineConfig::default(),
            store,
            llm: llm.map(|l| l as Arc<dyn Llm>),
            role_llms: Vec::new(),
            embedder: Arc::new(Constant),
            reranker: None,
            tokenizer: Arc::new(TiktokenTokenizer::o200k().unwrap()),
        })
        .await
        .unwrap();
        (engine, dir)
    }

    fn request() -> ChatRequest {
        ChatRequest {
            system: Some("Be brief.".into()),
            history: vec![ChatMessage::new(Role::User, "Hi"), ChatMessage::new(Role::Assistant, "Hello")],
            prompt: "What now?".into(),
            ..ChatRequest::default()
        }
    }

    #[tokio::test]
    async fn complete_sends_system_history_and_prompt_uncached_and_counts_usage() {
        let llm = Arc::new(Echo::default());
        let (engine, _dir) = engine(Some(llm.clone())).await;
        assert_eq!(engine.complete(&request()).await.unwrap(), "4 messages: What now?");
        assert_eq!(engine.complete(&request()).await.unwrap(), "4 messages: What now?");
        let seen = llm.requests.lock().unwrap().clone();
        assert_eq!(seen.len(), 2, "never answered from the cache");
        assert_eq!(seen[0], request());
        let usage = engine.session_usage();
        assert_eq!(usage[&UsageRole::Answer].calls, 2);
    }

    #[tokio::test]
    async fn complete_stream_yields_the_answer() {
        let llm = Arc::new(Echo::default());
        let (engine, _dir) = engine(Some(llm.clone())).await;
        let mut stream = engine.complete_stream(&request()).await.unwrap();
        let mut text = String::new();
        while let Some(item) = stream.next().await {
            text.push_str(&item.unwrap());
        }
        assert_eq!(text, "4 messages: What now?");
        assert_eq!(llm.requests.lock().unwrap()[0].system.as_deref(), Some("Be brief."));
    }

    #[tokio::test]
    async fn without_an_llm_both_fail_with_not_configured() {
        let (engine, _dir) = engine(None).await;
        let err = engine.complete(&request()).await.unwrap_err();
        assert!(matches!(err, EngineError::Llm(LlmError::NotConfigured)), "{err:?}");
        let err = engine.complete_stream(&request()).await.err().unwrap();
        assert!(matches!(err, EngineError::Llm(LlmError::NotConfigured)), "{err:?}");
    }

    #[tokio::test]
    async fn count_tokens_uses_the_engine_tokenizer() {
        let (engine, _dir) = engine(None).await;
        let text = "How many tokens does this sentence have?";
        assert_eq!(engine.count_tokens(text), TiktokenTokenizer::o200k().unwrap().count(text));
        assert_eq!(engine.count_tokens(""), 0);
    }
}
