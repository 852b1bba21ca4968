//! The request values of the gateway's two calls: [`ChatCall`] for [`Gateway::chat`] and
//! [`EmbedCall`] for [`Gateway::embed`]. Each says what varies between callers (usage role or
//! priority, the caller's [`UsageScope`], streaming, cache policy, known token counts), built
//! with a constructor for what every call needs and builder methods for the rest:
//!
//! ```ignore
//! gateway.chat(ChatCall::new(UsageRole::Answer, &request).cached(cache).scoped(&scope)).await?.text().await?;
//! gateway.chat(ChatCall::new(UsageRole::Answer, &request).scoped(&scope).streaming()).await?;
//! gateway.embed(EmbedCall::new(&texts, TextKind::Query, Priority::Query).scoped(&scope)).await?;
//! gateway.embed(EmbedCall::mixed(&items, Priority::Extract)).await?;
//! ```
//!
//! [`Gateway::chat`]: super::Gateway::chat
//! [`Gateway::embed`]: super::Gateway::embed

use futures::StreamExt;
use lightrag_ports::{ChatRequest, LlmError, TextKind, TextStream, UsageRole};

use crate::providers::limiter::Priority;
use crate::providers::usage_scope::UsageScope;

/// How a call uses the response cache.
#[derive(Debug, Clone, Copy)]
pub struct CacheSpec<'a> {
    /// First part of the key (`default` for indexing, the query mode for queries).
    pub mode: &'a str,
    /// `extract`, `summary`, `keywords` or `query`.
    pub cache_type: &'a str,
    /// Chunk the call is for.
    pub chunk_id: Option<&'a str>,
    /// Whether to read and write the cache for this call.
    pub enabled: bool,
}

/// One chat call: the role it is made for (its model, its limiter priority, its line in the usage
/// ledger), the request, and optionally a cache policy (default: no cache), the caller's usage
/// scope (default: none) and streaming (default: one reply).
#[derive(Clone, Copy)]
pub struct ChatCall<'a> {
    pub(super) role: UsageRole,
    pub(super) request: &'a ChatRequest,
    pub(super) cache: Option<CacheSpec<'a>>,
    pub(super) scope: Option<&'a UsageScope>,
    pub(super) streaming: bool,
}

impl<'a> ChatCall<'a> {
    /// A call of `role` with `request`: not cached, not scoped, not streaming.
    pub fn new(role: UsageRole, request: &'a ChatRequest) -> Self {
        Self { role, request, cache: None, scope: None, streaming: false }
    }

    /// Reads and writes the response cache as `cache` says (a streaming call is never cached).
    pub fn cached(mut self, cache: CacheSpec<'a>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Also counts the call (or its cache hit) in `scope`.
    pub fn scoped(mut self, scope: &'a UsageScope) -> Self {
        self.scope = Some(scope);
        self
    }

    /// Answers with a stream of text pieces ([`ChatReply::Stream`]). The concurrency slot is held
    /// until the stream ends; the call is counted when it ends (its output tokens are known only
    /// then), before the stream reports its end. Never cached.
    pub fn streaming(mut self) -> Self {
        self.streaming = true;
        self
    }
}

/// A chat answer and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmReply {
    /// The text.
    pub content: String,
    /// The cache key of this request (when caching was enabled).
    pub cache_key: Option<String>,
    /// Whether the answer came from the cache.
    pub cached: bool,
}

/// What [`Gateway::chat`](super::Gateway::chat) answers: the whole reply, or a stream when the
/// call asked for [`ChatCall::streaming`].
pub enum ChatReply {
    /// The whole answer.
    Text(LlmReply),
    /// The answer as it is produced.
    Stream(TextStream),
}

impl ChatReply {
    /// The whole answer; a stream is read to its end (its text is neither cached nor from the
    /// cache).
    pub async fn text(self) -> Result<LlmReply, LlmError> {
        match self {
            ChatReply::Text(reply) => Ok(reply),
            ChatReply::Stream(mut stream) => {
                let mut content = String::new();
                while let Some(piece) = stream.next().await {
                    content.push_str(&piece?);
                }
                Ok(LlmReply { content, cache_key: None, cached: false })
            }
        }
    }

    /// The answer as a stream; a whole answer is one piece.
    pub fn into_stream(self) -> TextStream {
        match self {
            ChatReply::Text(reply) => Box::pin(futures::stream::iter([Ok(reply.content)])),
            ChatReply::Stream(stream) => stream,
        }
    }
}

/// The texts of an [`EmbedCall`].
#[derive(Clone, Copy)]
pub(super) enum EmbedTexts<'a> {
    /// Texts of one kind.
    One(TextKind, &'a [String]),
    /// Texts of mixed kinds: one provider call per kind present.
    Mixed(&'a [(TextKind, String)]),
}

/// One embedding call: the texts, the limiter class it waits in, and optionally the caller's
/// usage scope (default: none) and the texts' token counts (default: the ledger estimates one
/// token per four bytes instead of tokenizing every text).
#[derive(Clone, Copy)]
pub struct EmbedCall<'a> {
    pub(super) texts: EmbedTexts<'a>,
    pub(super) priority: Priority,
    pub(super) scope: Option<&'a UsageScope>,
    pub(super) tokens: Option<&'a [usize]>,
}

impl<'a> EmbedCall<'a> {
    /// Embeds `texts`, all of `kind`, waiting in `priority`'s class.
    pub fn new(texts: &'a [String], kind: TextKind, priority: Priority) -> Self {
        Self { texts: EmbedTexts::One(kind, texts), priority, scope: None, tokens: None }
    }

    /// Embeds texts of mixed kinds (one provider call per kind present); the vectors come back in
    /// the order of `items`.
    pub fn mixed(items: &'a [(TextKind, String)], priority: Priority) -> Self {
        Self { texts: EmbedTexts::Mixed(items), priority, scope: None, tokens: None }
    }

    /// Also counts the calls in `scope`.
    pub fn scoped(mut self, scope: &'a UsageScope) -> Self {
        self.scope = Some(scope);
        self
    }

    /// The token count of each text, in order, when the caller knows them (chunks); counts of
    /// another length are ignored.
    pub fn counted(mut self, tokens: &'a [usize]) -> Self {
        self.tokens = Some(tokens);
        self
    }
}
