//! The one wrapper every provider call goes through (chat, embeddings, rerank): concurrency
//! limit per provider with priority classes ([`crate::providers::limiter`]: queries before merges before
//! extraction), timeout, retry with exponential backoff (429, 5xx, timeouts, connection errors), a
//! response cache kept in the store for chat (keyed by a hash of the whole request and the model
//! identity), and a usage ledger per role.
//! Two calls, [`Gateway::chat`] and [`Gateway::embed`], each taking a request value
//! ([`ChatCall`], [`EmbedCall`]) that says what varies: role or priority, cache policy, streaming,
//! known token counts, and the caller's own [`UsageScope`] that also counts the call (a query's
//! usage, reported in its trace).

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use lightrag_ports::ErrorChain;
use lightrag_ports::ids::md5_hex;
use lightrag_ports::{
    CacheEntry, ChangeSet, ChatRequest, EmbedError, Embedder, Llm, LlmError, RerankError, RerankHit, Reranker, Store,
    TextKind, TextStream, Tokenizer, Usage, UsageCounters, UsageRole,
};

use crate::config::{EmbeddingPolicy, LlmPolicy, RerankPolicy};
use crate::error::Result;
use crate::indexing::deferred_writes::DeferredWrites;
use crate::providers::limiter::{LimiterStatus, Priority, PriorityLimiter, ProviderLimits};
use crate::providers::provider_stats::{ProviderActivity, ProviderStats};
use crate::providers::usage_scope::UsageScope;
use crate::time::now_ms;

mod call;

use call::EmbedTexts;
pub use call::{CacheSpec, ChatCall, ChatReply, EmbedCall, LlmReply};

/// Usage counters shared by the gateway and the streams it hands out.
#[derive(Default)]
struct Ledger {
    unflushed: Mutex<Usage>,
    session: Mutex<Usage>,
}

impl Ledger {
    /// Adds `delta` to the engine's counters and, when given, to the caller's scope.
    fn add(&self, role: UsageRole, delta: UsageCounters, scope: Option<&UsageScope>) {
        for map in [&self.unflushed, &self.session] {
            let mut guard = map.lock().unwrap_or_else(|e| e.into_inner());
            guard.entry(role).or_default().add(&delta);
        }
        if let Some(scope) = scope {
            scope.add(role, delta);
        }
    }
}

/// A chat model for some roles (LightRAG's `EXTRACT_LLM_*`, `KEYWORD_LLM_*`, `QUERY_LLM_*`):
/// calls of these roles go to it, with its own timeout, instead of the main model. Models with
/// the same [`Llm::endpoint`] (the main one included) are one provider with one concurrency
/// limit: the largest `max_async` among them.
#[derive(Clone)]
pub struct RoleLlm {
    /// The roles it serves (e.g. extraction and summaries).
    pub roles: Vec<UsageRole>,
    /// The model.
    pub llm: Arc<dyn Llm>,
    /// Its concurrent calls.
    pub max_async: usize,
    /// Its seconds per call.
    pub timeout_secs: u64,
}

/// A chat model with the limiter of its provider and its timeout.
#[derive(Clone)]
struct Model {
    llm: Arc<dyn Llm>,
    slots: Arc<PriorityLimiter>,
    timeout_secs: u64,
}

/// The class a chat call of `role` waits in.
pub fn priority_of(role: UsageRole) -> Priority {
    match role {
        UsageRole::Extract => Priority::Extract,
        UsageRole::Summary => Priority::Merge,
        UsageRole::Keywords | UsageRole::Answer | UsageRole::Rerank | UsageRole::Embed => Priority::Query,
    }
}

/// Provider wrapper. One per engine.
pub struct Gateway {
    llm: Option<Model>,
    by_role: std::collections::HashMap<UsageRole, Model>,
    embedder: Arc<dyn Embedder>,
    store: Arc<dyn Store>,
    tokenizer: Arc<dyn Tokenizer>,
    llm_policy: LlmPolicy,
    embed_policy: EmbeddingPolicy,
    embed_slots: Arc<PriorityLimiter>,
    reranker: Option<Arc<dyn Reranker>>,
    rerank_policy: RerankPolicy,
    rerank_slots: Arc<PriorityLimiter>,
    limits: Arc<ProviderLimits>,
    deferred: Arc<DeferredWrites>,
    ledger: Arc<Ledger>,
    llm_requests: AtomicU64,
    stats: Arc<ProviderStats>,
}

impl Gateway {
    /// Wraps the providers. Their concurrency limits come from `limits` (shared by the engines
    /// built on the same providers): one per chat endpoint, one for the embedding model.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        llm: Option<Arc<dyn Llm>>,
        role_llms: Vec<RoleLlm>,
        embedder: Arc<dyn Embedder>,
        store: Arc<dyn Store>,
        tokenizer: Arc<dyn Tokenizer>,
        llm_policy: LlmPolicy,
        embed_policy: EmbeddingPolicy,
        limits: Arc<ProviderLimits>,
    ) -> Self {
        // one provider per endpoint, with the largest limit any of its users asks for
        let mut capacity: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let users = llm
            .iter()
            .map(|l| (l.endpoint(), llm_policy.max_async))
            .chain(role_llms.iter().map(|r| (r.llm.endpoint(), r.max_async)));
        for (endpoint, max_async) in users {
            let slot = capacity.entry(endpoint).or_insert(0);
            *slot = (*slot).max(max_async);
        }
        let limiter = |llm: &Arc<dyn Llm>| {
            let endpoint = llm.endpoint();
            let slots = capacity.get(&endpoint).copied().unwrap_or(1);
            limits.limiter(&format!("chat {endpoint}"), slots)
        };
        let base = llm.map(|llm| Model { slots: limiter(&llm), llm, timeout_secs: llm_policy.timeout_secs });
        let mut by_role = std::collections::HashMap::new();
        for role_llm in role_llms {
            let model = Model { slots: limiter(&role_llm.llm), llm: role_llm.llm, timeout_secs: role_llm.timeout_secs };
            for role in role_llm.roles {
                by_role.insert(role, model.clone());
            }
        }
        let embed_key = format!("embed {}", embedder.identity().model);
        Self {
            llm: base,
            by_role,
            embedder,
            store,
            tokenizer,
            embed_slots: limits.limiter(&embed_key, embed_policy.max_async),
            llm_policy,
            embed_policy,
            reranker: None,
            rerank_policy: RerankPolicy::default(),
            rerank_slots: PriorityLimiter::new(RerankPolicy::default().max_async),
            limits,
            deferred: Arc::new(DeferredWrites::default()),
            ledger: Arc::new(Ledger::default()),
            llm_requests: AtomicU64::new(0),
            stats: Arc::new(ProviderStats::default()),
        }
    }

    /// Adds the rerank service and its call policy (`MAX_ASYNC_RERANK`, `RERANK_TIMEOUT`).
    pub fn with_reranker(mut self, reranker: Option<Arc<dyn Reranker>>, policy: RerankPolicy) -> Self {
        if let Some(reranker) = &reranker {
            self.rerank_slots = self.limits.limiter(&format!("rerank {}", reranker.identity()), policy.max_async);
        }
        self.reranker = reranker;
        self.rerank_policy = policy;
        self
    }

    /// Whether a rerank service is configured.
    pub fn has_reranker(&self) -> bool {
        self.reranker.is_some()
    }

    /// Scores `documents` against `query` with the rerank service, with the concurrency limit,
    /// timeout and retries of the rerank policy; counted under [`UsageRole::Rerank`] with
    /// `tokens_in` (the caller knows the documents' token counts). `Ok(None)` when no service is
    /// configured.
    pub async fn rerank(
        &self,
        query: &str,
        documents: &[String],
        top_n: Option<usize>,
        tokens_in: u64,
        scope: Option<&UsageScope>,
    ) -> Result<Option<Vec<RerankHit>>, RerankError> {
        let Some(reranker) = self.reranker.clone() else { return Ok(None) };
        let timeout = self.rerank_policy.timeout_secs;
        let hits = with_retries(self.llm_policy.max_retries, self.llm_policy.retry_base_ms, RerankRetry, || {
            let reranker = reranker.clone();
            let slots = self.rerank_slots.clone();
            async move {
                let _permit = slots.acquire(Priority::Query).await;
                let call = reranker.rerank(query, documents, top_n);
                attempt(&self.stats, UsageRole::Rerank, timeout, call, RerankError::Timeout, RerankError::kind).await
            }
        })
        .await?;
        self.ledger.add(UsageRole::Rerank, UsageCounters { calls: 1, cache_hits: 0, tokens_in, tokens_out: 0 }, scope);
        Ok(Some(hits))
    }

    /// Concurrent calls the provider serving `role` allows (its limiter's slots; 1 without a
    /// chat model).
    pub fn chat_capacity(&self, role: UsageRole) -> usize {
        self.model(role).map_or(1, |m| m.slots.capacity())
    }

    /// The limiters of every provider (shared with other engines on the same providers), by key:
    /// `chat <endpoint>`, `embed <model>`, `rerank <service>`.
    pub fn provider_status(&self) -> Vec<(String, LimiterStatus)> {
        self.limits.status()
    }

    /// Whether a chat model is configured.
    pub fn has_llm(&self) -> bool {
        self.llm.is_some()
    }

    /// The chat model's identity, if any.
    pub fn llm_identity(&self) -> Option<String> {
        self.llm.as_ref().map(|m| m.llm.identity())
    }

    /// The model serving `role`: its own (`{ROLE}_LLM_*`) or the main one.
    fn model(&self, role: UsageRole) -> Option<&Model> {
        self.by_role.get(&role).or(self.llm.as_ref())
    }

    /// Chat requests answered so far (from the provider or the cache), for progress displays.
    pub fn llm_requests(&self) -> u64 {
        self.llm_requests.load(Ordering::Relaxed)
    }

    /// The cache key of a request to the model `identity`: `{mode}:{cache_type}:{md5(identity + request)}`.
    pub fn cache_key(identity: &str, request: &ChatRequest, mode: &str, cache_type: &str) -> String {
        let body = serde_json::to_string(request).unwrap_or_default();
        format!("{mode}:{cache_type}:{}", md5_hex(&format!("{identity}\n{body}")))
    }

    /// The cache key a call of `role` with `request` would use, or `None` when no chat model
    /// serves that role.
    pub fn cache_key_for(
        &self,
        role: UsageRole,
        request: &ChatRequest,
        mode: &str,
        cache_type: &str,
    ) -> Option<String> {
        self.model(role).map(|m| Self::cache_key(&m.llm.identity(), request, mode, cache_type))
    }

    /// The embedding model's name and dimension.
    pub fn embedding_identity(&self) -> lightrag_ports::EmbeddingIdentity {
        self.embedder.identity()
    }

    /// The cached reply to `request`, without calling the model (counted as a cache hit when
    /// found; `None` when the cache is off, misses or cannot be read).
    pub async fn cached_reply(&self, role: UsageRole, request: &ChatRequest, cache: CacheSpec<'_>) -> Option<String> {
        if !cache.enabled {
            return None;
        }
        let model = self.model(role)?;
        let key = Self::cache_key(&model.llm.identity(), request, cache.mode, cache.cache_type);
        let response = match self.deferred.get(&key) {
            Some(response) => response,
            None => self.store.cache_get(&key).await.ok().flatten()?.response,
        };
        self.ledger.add(role, UsageCounters { cache_hits: 1, ..Default::default() }, None);
        Some(response)
    }

    /// One chat call with cache, limit, timeout, retries and accounting, as `call` says
    /// ([`ChatCall`]): the whole reply, or a stream when the call is
    /// [streaming](ChatCall::streaming).
    pub async fn chat(&self, call: ChatCall<'_>) -> Result<ChatReply, LlmError> {
        if call.streaming {
            return Ok(ChatReply::Stream(self.chat_stream(call.role, call.request, call.scope).await?));
        }
        let disabled = CacheSpec { mode: "", cache_type: "", chunk_id: None, enabled: false };
        let reply = self.chat_text(call.role, call.request, call.cache.unwrap_or(disabled), call.scope).await?;
        Ok(ChatReply::Text(reply))
    }

    async fn chat_text(
        &self,
        role: UsageRole,
        request: &ChatRequest,
        cache: CacheSpec<'_>,
        scope: Option<&UsageScope>,
    ) -> Result<LlmReply, LlmError> {
        let model = self.model(role).cloned().ok_or(LlmError::NotConfigured)?;
        let llm = model.llm.clone();
        self.llm_requests.fetch_add(1, Ordering::Relaxed);
        let key = cache.enabled.then(|| Self::cache_key(&llm.identity(), request, cache.mode, cache.cache_type));
        if let Some(key) = &key {
            // an answer still being written in the background counts as cached
            let found = match self.deferred.get(key) {
                Some(response) => Ok(Some(response)),
                None => self.store.cache_get(key).await.map(|hit| hit.map(|entry| entry.response)),
            };
            match found {
                Ok(Some(response)) => {
                    self.ledger.add(role, UsageCounters { cache_hits: 1, ..Default::default() }, scope);
                    return Ok(LlmReply { content: response, cache_key: Some(key.clone()), cached: true });
                }
                Ok(None) => {}
                Err(e) => tracing::warn!("LLM cache read failed, calling the model: {}", ErrorChain(&e)),
            }
        }
        let timeout = model.timeout_secs;
        let response = with_retries(self.llm_policy.max_retries, self.llm_policy.retry_base_ms, LlmRetry, || {
            let llm = llm.clone();
            let slots = model.slots.clone();
            async move {
                let _permit = slots.acquire(priority_of(role)).await;
                attempt(&self.stats, role, timeout, llm.chat(request), LlmError::Timeout, LlmError::kind).await
            }
        })
        .await?;
        let usage = match response.usage {
            Some(u) => {
                UsageCounters { calls: 1, cache_hits: 0, tokens_in: u.prompt_tokens, tokens_out: u.completion_tokens }
            }
            None => UsageCounters {
                calls: 1,
                cache_hits: 0,
                tokens_in: self.count_request_tokens(request),
                tokens_out: self.tokenizer.count(&response.content) as u64,
            },
        };
        self.ledger.add(role, usage, scope);
        if let Some(key) = &key {
            let entry = CacheEntry {
                key: key.clone(),
                cache_type: cache.cache_type.to_string(),
                response: response.content.clone(),
                chunk_id: cache.chunk_id.map(str::to_string),
                created_at: now_ms(),
            };
            if priority_of(role) == Priority::Query {
                // a query does not wait for the store's writer (a commit may hold it)
                self.deferred.put(self.store.clone(), entry);
            } else if let Err(e) = self.store.cache_put(entry).await {
                tracing::warn!("LLM cache write failed (the answer is still used): {}", ErrorChain(&e));
            }
        }
        Ok(LlmReply { content: response.content, cache_key: key, cached: false })
    }

    /// A streaming chat call, counted in `scope` too when the stream ends.
    async fn chat_stream(
        &self,
        role: UsageRole,
        request: &ChatRequest,
        scope: Option<&UsageScope>,
    ) -> Result<TextStream, LlmError> {
        let model = self.model(role).cloned().ok_or(LlmError::NotConfigured)?;
        let llm = model.llm.clone();
        self.llm_requests.fetch_add(1, Ordering::Relaxed);
        let timeout = model.timeout_secs;
        let slots = model.slots.clone();
        let (permit, stream) =
            with_retries(self.llm_policy.max_retries, self.llm_policy.retry_base_ms, LlmRetry, || {
                let llm = llm.clone();
                let slots = slots.clone();
                async move {
                    let permit = slots.acquire(priority_of(role)).await;
                    let flight = self.stats.start(role);
                    let result =
                        match tokio::time::timeout(Duration::from_secs(timeout.max(1)), llm.chat_stream(request)).await
                        {
                            Ok(Ok(stream)) => Ok(((permit, flight), stream)),
                            Ok(Err(e)) => Err(e),
                            Err(_) => Err(LlmError::Timeout(timeout)),
                        };
                    if let Err(e) = &result {
                        self.stats.failed(role, e.kind());
                    }
                    result
                }
            })
            .await?;
        let tokens_in = self.count_request_tokens(request);
        let ledger = self.ledger.clone();
        let scope = scope.cloned();
        let tokenizer = self.tokenizer.clone();
        let stats = self.stats.clone();
        let mut produced = String::new();
        let mut stream = stream;
        let out = async_stream_fold(move |tx| async move {
            // the slot and the in-flight count are held until the stream ends
            let _permit = permit;
            while let Some(item) = stream.next().await {
                match &item {
                    Ok(delta) => produced.push_str(delta),
                    Err(e) => stats.failed(role, e.kind()),
                }
                let failed = item.is_err();
                if tx.send(item).await.is_err() || failed {
                    break;
                }
            }
            ledger.add(
                role,
                UsageCounters { calls: 1, cache_hits: 0, tokens_in, tokens_out: tokenizer.count(&produced) as u64 },
                scope.as_ref(),
            );
            // `tx` is dropped only now, so the stream ends after the usage is counted
            drop(tx);
        });
        Ok(out)
    }

    /// Whether the embedder would see the same input for `a` and `b`, both of `kind`
    /// ([`Embedder::same_input`]).
    pub fn same_embedding_input(&self, kind: TextKind, a: &str, b: &str) -> bool {
        self.embedder.same_input(kind, a, b)
    }

    /// Embeds the texts of `call` ([`EmbedCall`]) in batches of `EMBEDDING_BATCH_NUM`, at most
    /// `EMBEDDING_FUNC_MAX_ASYNC` batches at once (over every caller of the model, by the call's
    /// priority), with timeout, retries and accounting. Returns one vector per text, in order.
    pub async fn embed(&self, call: EmbedCall<'_>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let items = match call.texts {
            EmbedTexts::One(kind, texts) => {
                return self.embed_batches(texts, kind, call.tokens, call.scope, call.priority).await;
            }
            EmbedTexts::Mixed(items) => items,
        };
        let tokens = call.tokens.filter(|t| t.len() == items.len());
        let mut out: Vec<Option<Vec<f32>>> = vec![None; items.len()];
        for kind in [TextKind::Passage, TextKind::Description, TextKind::Query] {
            let (at, texts): (Vec<usize>, Vec<String>) =
                items.iter().enumerate().filter(|(_, (k, _))| *k == kind).map(|(i, (_, t))| (i, t.clone())).unzip();
            if texts.is_empty() {
                continue;
            }
            let counts: Option<Vec<usize>> = tokens.map(|t| at.iter().filter_map(|&i| t.get(i).copied()).collect());
            let vectors = self.embed_batches(&texts, kind, counts.as_deref(), call.scope, call.priority).await?;
            for (i, vector) in at.into_iter().zip(vectors) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(vector);
                }
            }
        }
        // `embed_batches` returns one vector per text, so every slot is filled
        out.into_iter()
            .map(|v| v.ok_or_else(|| EmbedError::InvalidResponse("a text was left without a vector".into())))
            .collect()
    }

    /// Each text cut to its first `limit` tokens (`EMBEDDING_TOKEN_LIMIT`), as LightRAG's
    /// embedding functions do before sending.
    fn truncate_for_embedding(&self, texts: &[String], limit: usize) -> Vec<String> {
        let (out, cut) = cut_to_tokens(self.tokenizer.as_ref(), texts, limit);
        if cut > 0 {
            tracing::info!("{cut} text(s) longer than EMBEDDING_TOKEN_LIMIT ({limit} tokens) cut before embedding");
        }
        out
    }

    async fn embed_batches(
        &self,
        texts: &[String],
        kind: TextKind,
        tokens: Option<&[usize]>,
        scope: Option<&UsageScope>,
        priority: Priority,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let truncated = self.embed_policy.token_limit.map(|limit| self.truncate_for_embedding(texts, limit));
        let texts = truncated.as_deref().unwrap_or(texts);
        let batch = self.embed_policy.batch_num.max(1);
        let timeout = self.embed_policy.timeout_secs;
        let dim = self.embedder.identity().dim;
        let counts: Vec<usize> = match tokens {
            Some(t) if t.len() == texts.len() => t.to_vec(),
            _ => texts.iter().map(|t| t.len().div_ceil(4)).collect(),
        };
        let calls: Vec<_> = texts
            .chunks(batch)
            .zip(counts.chunks(batch))
            .enumerate()
            .map(|(index, (part, part_tokens))| {
                let embedder = self.embedder.clone();
                let slots = self.embed_slots.clone();
                let ledger = self.ledger.clone();
                async move {
                    let vectors = with_retries(
                        self.embed_policy.max_retries,
                        self.embed_policy.retry_base_ms,
                        EmbedRetry,
                        || {
                            let embedder = embedder.clone();
                            let slots = slots.clone();
                            async move {
                                let _permit = slots.acquire(priority).await;
                                let call = embedder.embed_as(part, kind);
                                attempt(
                                    &self.stats,
                                    UsageRole::Embed,
                                    timeout,
                                    call,
                                    EmbedError::Timeout,
                                    EmbedError::kind,
                                )
                                .await
                            }
                        },
                    )
                    .await?;
                    if vectors.len() != part.len() {
                        self.stats.failed(UsageRole::Embed, "invalid_response");
                        return Err(EmbedError::InvalidResponse(format!(
                            "asked for {} vectors, got {}",
                            part.len(),
                            vectors.len()
                        )));
                    }
                    if let Some(bad) = vectors.iter().find(|v| v.len() != dim) {
                        self.stats.failed(UsageRole::Embed, "invalid_response");
                        return Err(EmbedError::InvalidResponse(format!(
                            "the embedding model returned dimension {}, but EMBEDDING_DIM is {dim}",
                            bad.len()
                        )));
                    }
                    // one check for every binding: a NaN, infinite or zero vector would rank
                    // first or nowhere in every later search
                    if let Some((i, flaw)) =
                        vectors.iter().enumerate().find_map(|(i, v)| lightrag_ports::vector_flaw(v).map(|f| (i, f)))
                    {
                        self.stats.failed(UsageRole::Embed, "invalid_response");
                        return Err(EmbedError::InvalidResponse(format!(
                            "the embedding model returned a vector holding {} (text {} of {} in its batch); \
                             no search can use it: check the model and its server (EMBEDDING_MODEL, \
                             EMBEDDING_BINDING_HOST)",
                            flaw.describe(),
                            i + 1,
                            part.len()
                        )));
                    }
                    let tokens_in: usize = part_tokens.iter().sum();
                    ledger.add(
                        UsageRole::Embed,
                        UsageCounters { calls: 1, cache_hits: 0, tokens_in: tokens_in as u64, tokens_out: 0 },
                        scope,
                    );
                    Ok((index, vectors))
                }
            })
            .collect();
        // A caller keeps at most as many batches waiting as the model has slots, so that one
        // large document does not queue all its batches ahead of everyone else's.
        let mut results: Vec<(usize, Vec<Vec<f32>>)> =
            futures::stream::iter(calls).buffer_unordered(self.embed_slots.capacity()).try_collect().await?;
        results.sort_by_key(|(index, _)| *index);
        Ok(results.into_iter().flat_map(|(_, vectors)| vectors).collect())
    }

    /// Provider calls in flight per role and failed attempts per role and kind of error, since
    /// this gateway was created.
    pub fn provider_activity(&self) -> ProviderActivity {
        self.stats.snapshot()
    }

    /// Usage since this gateway was created.
    pub fn session_usage(&self) -> Usage {
        self.ledger.session.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Takes the usage not yet written to the store (to put into a change set).
    pub fn take_unflushed(&self) -> Usage {
        std::mem::take(&mut *self.ledger.unflushed.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Puts usage back after a failed commit.
    pub fn restore_unflushed(&self, usage: Usage) {
        let mut guard = self.ledger.unflushed.lock().unwrap_or_else(|e| e.into_inner());
        for (role, c) in usage {
            guard.entry(role).or_default().add(&c);
        }
    }

    /// Waits until the query answers being written to the cache in the background have landed.
    pub async fn settle_cache_writes(&self) {
        self.deferred.settle().await;
    }

    /// Writes unflushed usage to the store, after the cache writes in flight have landed (so a
    /// command that ends after this leaves a complete cache).
    pub async fn flush_usage(&self) -> Result<()> {
        self.deferred.settle().await;
        let usage = self.take_unflushed();
        if usage.is_empty() {
            return Ok(());
        }
        let changes = ChangeSet { usage: usage.clone(), ..Default::default() };
        if let Err(e) = self.store.apply(changes).await {
            self.restore_unflushed(usage);
            return Err(e.into());
        }
        Ok(())
    }

    fn count_request_tokens(&self, request: &ChatRequest) -> u64 {
        request.messages().iter().map(|m| self.tokenizer.count(&m.content) as u64).sum()
    }
}

/// Tells the retry loop which errors are transient and how long the provider asked to wait.
trait RetryPolicy<E> {
    fn retryable(&self, error: &E) -> bool;
    fn retry_after(&self, error: &E) -> Option<f64>;
}

struct LlmRetry;
impl RetryPolicy<LlmError> for LlmRetry {
    fn retryable(&self, e: &LlmError) -> bool {
        e.is_retryable()
    }
    fn retry_after(&self, e: &LlmError) -> Option<f64> {
        match e {
            LlmError::RateLimited { retry_after_secs } => *retry_after_secs,
            _ => None,
        }
    }
}

struct RerankRetry;
impl RetryPolicy<RerankError> for RerankRetry {
    fn retryable(&self, e: &RerankError) -> bool {
        e.is_retryable()
    }
    fn retry_after(&self, e: &RerankError) -> Option<f64> {
        match e {
            RerankError::RateLimited { retry_after_secs } => *retry_after_secs,
            _ => None,
        }
    }
}

struct EmbedRetry;
impl RetryPolicy<EmbedError> for EmbedRetry {
    fn retryable(&self, e: &EmbedError) -> bool {
        e.is_retryable()
    }
    fn retry_after(&self, e: &EmbedError) -> Option<f64> {
        match e {
            EmbedError::RateLimited { retry_after_secs } => *retry_after_secs,
            _ => None,
        }
    }
}

/// The longest wait between two tries, whether from the backoff or a provider's Retry-After.
const MAX_WAIT: Duration = Duration::from_secs(60);

/// Runs `attempt` until it succeeds, fails with a permanent error, or `max_retries` retries are
/// used. Waits `base_ms · 2^n` (±50 % jitter) between tries, or what the provider asked for
/// (Retry-After), at most [`MAX_WAIT`]. The loop is `backon`'s: its exponential backoff (without
/// its own jitter, which only adds up to +100 %) gives the next wait and the retry count, and
/// its `adjust` hook puts the provider's Retry-After, or our jitter, in its place.
async fn with_retries<T, E, F, Fut, P>(max_retries: u32, base_ms: u64, policy: P, attempt: F) -> Result<T, E>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    P: RetryPolicy<E>,
    E: std::fmt::Display,
{
    use backon::Retryable as _;
    let backoff = backon::ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(base_ms))
        .with_factor(2.0)
        .with_max_delay(MAX_WAIT)
        .with_max_times(max_retries as usize);
    let mut tries = 0u32;
    attempt
        .retry(backoff)
        .when(|e| policy.retryable(e))
        // `next` is `None` once the retries are used up: then no Retry-After extends them
        .adjust(|e, next| {
            next.map(|backoff| {
                let wait = match policy.retry_after(e) {
                    Some(secs) => {
                        Duration::try_from_secs_f64(secs.clamp(0.0, MAX_WAIT.as_secs_f64())).unwrap_or_default()
                    }
                    None => backoff.mul_f64(0.5 + rand::random::<f64>()),
                };
                wait.min(MAX_WAIT)
            })
        })
        .notify(|e, wait| {
            tries += 1;
            tracing::warn!("{e}; retry {tries}/{max_retries} in {:.0} ms", wait.as_secs_f64() * 1000.0);
        })
        .await
}

/// Builds a stream from a producer task writing into a channel.
fn async_stream_fold<F, Fut>(producer: F) -> TextStream
where
    F: FnOnce(tokio::sync::mpsc::Sender<Result<String, LlmError>>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel(32);
    tokio::spawn(producer(tx));
    Box::pin(tokio_stream_from(rx))
}

fn tokio_stream_from(
    mut rx: tokio::sync::mpsc::Receiver<Result<String, LlmError>>,
) -> impl futures::Stream<Item = Result<String, LlmError>> + Send {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

/// One attempt at a provider: counted in flight while it runs, bounded by `secs` (at least 1;
/// `timed_out` makes the error), and a failure counted by its kind.
async fn attempt<T, E>(
    stats: &ProviderStats,
    role: UsageRole,
    secs: u64,
    call: impl Future<Output = Result<T, E>>,
    timed_out: fn(u64) -> E,
    kind: fn(&E) -> &'static str,
) -> Result<T, E> {
    let _flight = stats.start(role);
    let result = match tokio::time::timeout(Duration::from_secs(secs.max(1)), call).await {
        Ok(result) => result,
        Err(_) => Err(timed_out(secs)),
    };
    if let Err(e) = &result {
        stats.failed(role, kind(e));
    }
    result
}

/// Each text cut to its first `limit` tokens, and how many were cut. A token stands for at least
/// one byte, so a text of at most `limit` bytes is kept without encoding it: encoding every text
/// sent (chunks, entity and relation descriptions) was a tenth of the indexing CPU.
fn cut_to_tokens(tokenizer: &dyn Tokenizer, texts: &[String], limit: usize) -> (Vec<String>, usize) {
    let mut cut = 0;
    let out = texts
        .iter()
        .map(|text| {
            if text.len() <= limit {
                return text.clone();
            }
            let tokens = tokenizer.encode(text);
            if tokens.len() <= limit {
                return text.clone();
            }
            cut += 1;
            tokenizer.decode(&tokens[..limit])
        })
        .collect();
    (out, cut)
}

#[cfg(test)]
mod tests {
    /// One token per byte, counting the texts it encodes.
    #[derive(Default)]
    struct ByteTokens {
        encoded: std::sync::atomic::AtomicUsize,
    }

    impl Tokenizer for ByteTokens {
        fn encode(&self, text: &str) -> Vec<u32> {
            self.encoded.fetch_add(1, Ordering::SeqCst);
            text.bytes().map(u32::from).collect()
        }
        fn decode(&self, tokens: &[u32]) -> String {
            tokens.iter().filter_map(|t| char::from_u32(*t)).collect()
        }
    }

    #[test]
    fn texts_within_the_embedding_limit_in_bytes_are_not_encoded() {
        let tokens = ByteTokens::default();
        let texts = vec!["short".to_string(), "exactly8".to_string(), "ten bytes!".to_string()];
        let (out, cut) = cut_to_tokens(&tokens, &texts, 8);
        // only the text longer than the limit in bytes is encoded, and it is cut
        assert_eq!(tokens.encoded.load(Ordering::SeqCst), 1);
        assert_eq!(out, vec!["short".to_string(), "exactly8".to_string(), "ten byte".to_string()]);
        assert_eq!(cut, 1);
    }

    use super::*;

    struct Flaky {
        fails: std::sync::atomic::AtomicU32,
    }

    #[tokio::test]
    async fn retries_transient_errors_then_succeeds() {
        let flaky = Flaky { fails: std::sync::atomic::AtomicU32::new(2) };
        let out: Result<u32, LlmError> = with_retries(3, 1, LlmRetry, || async {
            if flaky.fails.load(Ordering::SeqCst) > 0 {
                flaky.fails.fetch_sub(1, Ordering::SeqCst);
                Err(LlmError::Server { status: 500, body: String::new() })
            } else {
                Ok(7)
            }
        })
        .await;
        assert_eq!(out.unwrap(), 7);
    }

    /// Runs a call that is rate limited `limited` times (asking for `retry_after` seconds, when
    /// given) with `max_retries`, on a paused clock; returns the outcome, the tries and the
    /// time waited.
    async fn rate_limited(limited: u32, retry_after: Option<f64>, max_retries: u32) -> (bool, u32, Duration) {
        let tries = std::sync::atomic::AtomicU32::new(0);
        let start = tokio::time::Instant::now();
        let out: Result<u32, LlmError> = with_retries(max_retries, 100, LlmRetry, || async {
            if tries.fetch_add(1, Ordering::SeqCst) < limited {
                Err(LlmError::RateLimited { retry_after_secs: retry_after })
            } else {
                Ok(1)
            }
        })
        .await;
        (out.is_ok(), tries.load(Ordering::SeqCst), start.elapsed())
    }

    #[tokio::test(start_paused = true)]
    async fn a_rate_limited_call_waits_what_the_provider_asked_for() {
        let (ok, tries, waited) = rate_limited(2, Some(7.0), 3).await;
        assert!(ok && tries == 3);
        assert!(waited >= Duration::from_secs(14) && waited < Duration::from_secs(15), "{waited:?}");
        // a Retry-After beyond the longest wait is cut to it
        let (ok, _, waited) = rate_limited(1, Some(3600.0), 3).await;
        assert!(ok && waited >= MAX_WAIT && waited < MAX_WAIT + Duration::from_secs(1), "{waited:?}");
        // without Retry-After: base 100 ms, doubling, ±50 %: 50–150 ms then 100–300 ms
        let (ok, _, waited) = rate_limited(2, None, 3).await;
        assert!(ok && waited >= Duration::from_millis(150) && waited <= Duration::from_millis(451), "{waited:?}");
        // Retry-After does not add tries beyond the maximum
        let (ok, tries, _) = rate_limited(10, Some(1.0), 2).await;
        assert!(!ok && tries == 3);
    }

    #[tokio::test]
    async fn gives_up_after_max_retries_and_on_permanent_errors() {
        let calls = AtomicU64::new(0);
        let out: Result<u32, LlmError> = with_retries(2, 1, LlmRetry, || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(LlmError::RateLimited { retry_after_secs: Some(0.0) })
        })
        .await;
        assert!(out.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        calls.store(0, Ordering::SeqCst);
        let out: Result<u32, LlmError> = with_retries(5, 1, LlmRetry, || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(LlmError::Client { status: 401, body: String::new() })
        })
        .await;
        assert!(out.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
