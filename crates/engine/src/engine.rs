//! The [`Engine`] handle: owns the ports and the provider gateway for one store (workspace).

use std::sync::Arc;

use lightrag_ports::{Embedder, Llm, Reranker, Store, Tokenizer, Usage};

use crate::config::EngineConfig;
use crate::error::Result;
use crate::providers::gateway::Gateway;
use crate::providers::limiter::{LimiterStatus, ProviderLimits};

/// What an [`Engine`] is built from. The application layer picks the adapters.
pub struct EngineParts {
    /// Validated configuration.
    pub config: EngineConfig,
    /// The store of this working directory / workspace.
    pub store: Arc<dyn Store>,
    /// The chat model, or `None` when `LLM_BINDING=none`.
    pub llm: Option<Arc<dyn Llm>>,
    /// Chat models for particular roles (`EXTRACT_LLM_*` …); calls of other roles use `llm`.
    pub role_llms: Vec<crate::providers::gateway::RoleLlm>,
    /// The embedding model.
    pub embedder: Arc<dyn Embedder>,
    /// The rerank service, or `None` (queries then keep their retrieval order).
    pub reranker: Option<Arc<dyn Reranker>>,
    /// The tokenizer used for chunking and budgets.
    pub tokenizer: Arc<dyn Tokenizer>,
}

/// A handle on one knowledge base. Cheap to clone; share it between tasks.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) config: EngineConfig,
    pub(crate) store: Arc<dyn Store>,
    pub(crate) gateway: Gateway,
    pub(crate) tokenizer: Arc<dyn Tokenizer>,
    /// Identifies this process as a lease owner: `host/pid/nonce`.
    pub(crate) worker_id: String,
    /// One merge at a time per engine (documents commit in order).
    pub(crate) merge_lock: tokio::sync::Mutex<()>,
    /// The store merge locks this process holds for the commit in progress (renewed with the
    /// leases; only these, so a lock whose release failed is not kept alive).
    pub(crate) merge_keys_held: std::sync::Mutex<Vec<String>>,
    /// Tokens of the extraction prompts without the chunk (computed on first use).
    pub(crate) extract_prompt_tokens: std::sync::OnceLock<usize>,
    /// Memoised token counts of context lines.
    pub(crate) line_tokens: TokenMemo,
    /// Token counts of description fragments, kept between merges.
    pub(crate) fragment_tokens: crate::indexing::merge::FragmentTokens,
    /// Tokens per relation line seen by the last graph query, to size the first read of the next
    /// one's local neighbourhood (a guess only: a wrong one costs a second read, not a different
    /// answer).
    pub(crate) relation_line_tokens: std::sync::atomic::AtomicUsize,
}

/// A bounded memo of token counts keyed by a hash of the text (cleared when full).
#[derive(Default)]
pub(crate) struct TokenMemo {
    counts: std::sync::Mutex<std::collections::HashMap<u64, usize>>,
}

impl TokenMemo {
    const CAPACITY: usize = 200_000;

    /// The token count of `text`, from the memo or the tokenizer.
    pub(crate) fn count(&self, tokenizer: &dyn Tokenizer, text: &str) -> usize {
        use std::hash::Hasher;
        let mut hasher = std::hash::DefaultHasher::new();
        hasher.write(text.as_bytes());
        let key = hasher.finish();
        if let Some(n) = self.counts.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return *n;
        }
        let n = tokenizer.count(text);
        let mut memo = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if memo.len() >= Self::CAPACITY {
            memo.clear();
        }
        memo.insert(key, n);
        n
    }
}

impl Engine {
    /// Opens an engine: checks that the store was built with the configured embedding model.
    /// Its providers' concurrency limits are its own; see [`Engine::open_shared`].
    pub async fn open(parts: EngineParts) -> Result<Engine> {
        Engine::open_shared(parts, ProviderLimits::new()).await
    }

    /// [`Engine::open`] with concurrency limits shared with other engines on the same providers
    /// (one engine per workspace): a provider's limit then holds over all of them.
    pub async fn open_shared(parts: EngineParts, limits: Arc<ProviderLimits>) -> Result<Engine> {
        let identity = parts.embedder.identity();
        parts.store.check_embedding_identity(&identity).await?;
        let gateway = Gateway::new(
            parts.llm,
            parts.role_llms,
            parts.embedder,
            parts.store.clone(),
            parts.tokenizer.clone(),
            parts.config.llm.clone(),
            parts.config.embedding.clone(),
            limits,
        )
        .with_reranker(parts.reranker, parts.config.rerank.clone());
        let worker_id = format!("{}/{}/{:08x}", hostname(), std::process::id(), rand::random::<u32>());
        Ok(Engine {
            inner: Arc::new(Inner {
                config: parts.config,
                store: parts.store,
                gateway,
                tokenizer: parts.tokenizer,
                worker_id,
                merge_lock: tokio::sync::Mutex::new(()),
                merge_keys_held: std::sync::Mutex::new(Vec::new()),
                extract_prompt_tokens: std::sync::OnceLock::new(),
                line_tokens: TokenMemo::default(),
                fragment_tokens: crate::indexing::merge::FragmentTokens::default(),
                relation_line_tokens: std::sync::atomic::AtomicUsize::new(0),
            }),
        })
    }

    /// The configuration the engine runs with.
    pub fn config(&self) -> &EngineConfig {
        &self.inner.config
    }

    /// The store, for tests and diagnostics that inspect stored records. The CLI, the server and
    /// the tools read and write through the engine's methods instead (documents and listings in
    /// `catalog.rs`, graph edits, deletion, queries), so that they work on any backend.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.inner.store
    }

    /// Whether a rerank service is configured.
    pub fn has_reranker(&self) -> bool {
        self.inner.gateway.has_reranker()
    }

    /// Whether a chat model is configured.
    pub fn has_llm(&self) -> bool {
        self.inner.gateway.has_llm()
    }

    /// The concurrency limiter of every provider this engine uses (shared with the engines opened
    /// on the same [`ProviderLimits`]): slots, running calls, waiters per priority class.
    pub fn provider_status(&self) -> Vec<(String, LimiterStatus)> {
        self.inner.gateway.provider_status()
    }

    /// Chat requests made so far by this handle (answered by the model or the cache).
    pub fn llm_requests(&self) -> u64 {
        self.inner.gateway.llm_requests()
    }

    /// Provider calls in flight per role and failed attempts per role and kind of error, since
    /// this engine was opened (for `/metrics`).
    pub fn provider_activity(&self) -> crate::providers::provider_stats::ProviderActivity {
        self.inner.gateway.provider_activity()
    }

    /// The lease owner this engine claims documents as (`host/pid/nonce`).
    pub fn worker_id(&self) -> &str {
        &self.inner.worker_id
    }

    /// Usage by this engine handle since it was opened (calls, cache hits and tokens per role).
    pub fn session_usage(&self) -> Usage {
        self.inner.gateway.session_usage()
    }

    /// Writes usage not yet recorded to the store's ledger.
    pub async fn flush_usage(&self) -> Result<()> {
        self.inner.gateway.flush_usage().await
    }

    /// The usage ledger of the store (all processes, all time), including this handle's unflushed usage.
    pub async fn total_usage(&self) -> Result<Usage> {
        self.flush_usage().await?;
        Ok(self.inner.store.usage().await?)
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}
