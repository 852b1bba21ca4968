//! The cache keys of this engine's own requests, for tools that bring answers from elsewhere: an
//! answer recorded for the same work (extracting a chunk, gleaning it, a question's keywords, a
//! description summary) can be stored under the key the engine's request for that work has, so
//! the engine finds it in its cache and makes no call. Keys depend on the prompts (our own
//! words), the configuration they are built from and the identity of the model serving the role,
//! so they are computed here and nowhere else.

use lightrag_ports::{EmbeddingIdentity, TextKind, UsageRole};

use crate::engine::Engine;
use crate::error::Result;
use crate::indexing::extract::{extraction_request, gleaning_request};
use crate::indexing::merge::{relation_summary_name, summary_request};
use crate::prompts::SummaryKind;
use crate::providers::gateway::EmbedCall;
use crate::retrieval::query::QueryMode;
use crate::retrieval::query::keywords::keywords_request;

/// What a summary is about, for [`Engine::summary_cache_key`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SummarySubject {
    /// An entity, by name.
    Entity(String),
    /// A relation, by its two endpoint names (either order).
    Relation(String, String),
}

impl Engine {
    /// The cache key of the first extraction request for a chunk with this text; `None` when no
    /// chat model serves extraction.
    pub fn extraction_cache_key(&self, chunk_text: &str) -> Option<String> {
        let request = extraction_request(&self.inner.config.extraction, chunk_text);
        self.inner.gateway.cache_key_for(UsageRole::Extract, &request, "default", "extract")
    }

    /// The cache key of the gleaning request that follows `first_answer` for a chunk with this
    /// text; `None` when no chat model serves extraction or gleaning is off (`MAX_GLEANING=0`).
    pub fn gleaning_cache_key(&self, chunk_text: &str, first_answer: &str) -> Option<String> {
        let cfg = &self.inner.config.extraction;
        if cfg.max_gleaning == 0 {
            return None;
        }
        let request = gleaning_request(cfg, chunk_text, first_answer);
        self.inner.gateway.cache_key_for(UsageRole::Extract, &request, "default", "extract")
    }

    /// The cache key of the keyword request for `question` in `mode` (the question as a query
    /// receives it, surrounding whitespace removed); `None` when no chat model serves keywords.
    pub fn keywords_cache_key(&self, question: &str, mode: QueryMode) -> Option<String> {
        let request = keywords_request(question.trim(), &self.inner.config.extraction.language);
        self.inner.gateway.cache_key_for(UsageRole::Keywords, &request, mode.as_str(), "keywords")
    }

    /// The cache key of a summary request over these descriptions, in this order; `None` when no
    /// chat model serves summaries.
    pub fn summary_cache_key(&self, subject: &SummarySubject, descriptions: &[String]) -> Option<String> {
        let (kind, name) = match subject {
            SummarySubject::Entity(name) => (SummaryKind::Entity, name.clone()),
            SummarySubject::Relation(a, b) => {
                (SummaryKind::Relation, relation_summary_name(&lightrag_ports::RelKey::new(a.clone(), b.clone())))
            }
        };
        let sizes: Vec<usize> = descriptions.iter().map(|d| self.inner.tokenizer.count(d)).collect();
        let request = summary_request(&self.inner.config, kind, &name, descriptions, &sizes);
        self.inner.gateway.cache_key_for(UsageRole::Summary, &request, "default", "summary")
    }

    /// The embedding model's name and dimension.
    pub fn embedding_identity(&self) -> EmbeddingIdentity {
        self.inner.gateway.embedding_identity()
    }

    /// Embeds texts of `kind` through the provider gateway (batches, concurrency limit, retries,
    /// usage), as bulk indexing work: queries are served first.
    pub async fn embed(&self, texts: &[String], kind: TextKind) -> Result<Vec<Vec<f32>>> {
        Ok(self.inner.gateway.embed(EmbedCall::new(texts, kind, crate::providers::limiter::Priority::Extract)).await?)
    }

    /// [`Engine::embed`] for texts of mixed kinds (e.g. the texts of several vector sets, with
    /// [`TextKind::of`]); the vectors come back in the order of `items`.
    pub async fn embed_each(&self, items: &[(TextKind, String)]) -> Result<Vec<Vec<f32>>> {
        Ok(self.inner.gateway.embed(EmbedCall::mixed(items, crate::providers::limiter::Priority::Extract)).await?)
    }
}
