//! Retrieval and answers: LightRAG's query pipeline (reference §6).
//!
//! keywords ([`keywords`]) → one batched embedding call → vector search and one-hop graph
//! expansion per mode (`search`) → token truncation of entities and relations → chunk picking
//! from their provenance ([`chunks`]) → round-robin merge with the vector chunks → reranking
//! (`rerank`) → chunk budget →
//! reference list and context string ([`context`]) → answer (`answer`).
//!
//! [`Engine::query`] returns the retrieval data (the JSON of `/query/data`), the answer and the
//! query's trace ([`trace`]: scores and origins of the records, usage, timings);
//! [`Engine::query_data`] runs retrieval only.

pub(crate) mod answer;
pub mod auto;
pub mod chunks;
pub mod context;
pub mod decompose;
pub mod direct;
pub mod filter;
pub(crate) mod fused;
pub mod fusion;
pub(crate) mod hop;
pub mod keywords;
pub mod param;
pub mod ppr;
pub(crate) mod rerank;
pub mod result;
pub(crate) mod retrieve;
pub(crate) mod scoped;
pub(crate) mod search;
pub mod trace;

pub use auto::AutoChoice;
pub use filter::{FilterError, QueryFilter, Scope, parse_time};
pub use keywords::{Keywords, parse_keywords};
pub use param::{DEFAULT_RESPONSE_TYPE, QueryMode, QueryParam, UnknownQueryMode};
pub use result::{
    Answer, ChunkData, DataSection, Empty, EntityData, FailureMetadata, FilterInfo, KeywordsInfo, Metadata,
    ProcessingInfo, QueryData, QueryResult, QueryStatus, Reference, RelationData, RetrievalMetadata, RetrievedData,
    TracedData,
};
pub use trace::{
    ChunkOrigin, ChunkTrace, EntityTrace, GraphOrigin, QueryTimings, QueryTrace, QueryUsage, RelationTrace,
    TraceFinisher,
};

use std::sync::Arc;
use std::time::Instant;

use lightrag_ports::RetrievalStore;

use crate::engine::{Engine, Inner};
use crate::error::{EngineError, Result};
use crate::prompts::FAIL_RESPONSE;
use crate::providers::usage_scope::UsageScope;

use answer::PromptKind;
use retrieve::{NO_RESULTS, Retrieval};
use trace::millis;

/// Message of a bypass-mode result.
const BYPASS_MESSAGE: &str = "Bypass mode: the question went to the LLM without retrieval";

impl Engine {
    /// Answers `question`: retrieval per `param.mode`, then the LLM answer (or the context, the
    /// prompt, or LightRAG's fail response when nothing was found). Without an LLM configured the
    /// answer is the retrieved context. The result carries the query's [`QueryTrace`]; for a
    /// streamed answer, complete it with [`QueryResult::finisher`] once the stream has ended.
    pub async fn query(&self, question: &str, param: &QueryParam) -> Result<QueryResult> {
        let inner = &*self.inner;
        let query = checked_query(question)?;
        let started = Instant::now();
        let scope = UsageScope::new();
        let (retrieval, kind, phases) = retrieve(inner, query, param, &scope).await?;
        let answer_started = Instant::now();
        let answer = match (kind, retrieval.context) {
            (None, _) => answer::bypass(inner, query, param, &scope).await?,
            (Some(kind), Some(context)) => answer::answer(inner, query, param, kind, context, &scope).await?,
            (Some(_), None) => Answer::NoContext(FAIL_RESPONSE.to_string()),
        };
        let answer_started = matches!(answer, Answer::Text(_) | Answer::Stream(_)).then_some(answer_started);
        let timings = phases.timings(started, answer_started.map(|t| millis(t.elapsed())));
        let filter = retrieval.data.filter_info();
        let trace = QueryTrace::new(retrieval.records, QueryUsage::from_scope(&scope, true), timings, filter);
        let finisher = TraceFinisher::new(scope, started, answer_started);
        Ok(QueryResult { data: retrieval.data, answer, trace, finisher })
    }

    /// Retrieval only (what `/query/data` returns): no answer call. Keyword extraction may still
    /// call the LLM.
    pub async fn query_data(&self, question: &str, param: &QueryParam) -> Result<QueryData> {
        Ok(self.query_data_traced(question, param).await?.data)
    }

    /// [`Engine::query_data`] with the query's [`QueryTrace`] (its usage has no answer part).
    pub async fn query_data_traced(&self, question: &str, param: &QueryParam) -> Result<TracedData> {
        let query = checked_query(question)?;
        let started = Instant::now();
        let scope = UsageScope::new();
        let (retrieval, _, phases) = retrieve(&self.inner, query, param, &scope).await?;
        let timings = phases.timings(started, None);
        let filter = retrieval.data.filter_info();
        let trace = QueryTrace::new(retrieval.records, QueryUsage::from_scope(&scope, false), timings, filter);
        Ok(TracedData { data: retrieval.data, trace })
    }

    /// The retrieved context string, or `None` when nothing was found.
    pub async fn query_context(&self, question: &str, param: &QueryParam) -> Result<Option<String>> {
        let query = checked_query(question)?;
        Ok(retrieve(&self.inner, query, param, &UsageScope::new()).await?.0.context)
    }
}

fn checked_query(question: &str) -> Result<&str> {
    let query = question.trim();
    if query.is_empty() {
        return Err(EngineError::Invalid("the query is empty; ask a question".to_string()));
    }
    Ok(query)
}

/// Milliseconds of the retrieval phases.
#[derive(Debug, Clone, Copy, Default)]
struct Phases {
    keywords_ms: u64,
    retrieval_ms: u64,
}

impl Phases {
    /// The timings of a query that started at `started`, with its answer's milliseconds.
    fn timings(self, started: Instant, answer_ms: Option<u64>) -> QueryTimings {
        QueryTimings {
            keywords: self.keywords_ms,
            retrieval: self.retrieval_ms,
            answer: answer_ms,
            total: millis(started.elapsed()),
        }
    }
}

/// Keywords (graph modes) then retrieval per mode; provider calls are counted in `scope`. The
/// answer prompt to use, or `None` in bypass mode (no retrieval, an empty result). With a query
/// filter, the filter is resolved first and retrieval reads the store through it
/// ([`scoped::ScopedStore`]); bypass mode ignores filters.
async fn retrieve(
    inner: &Inner,
    query: &str,
    param: &QueryParam,
    scope: &UsageScope,
) -> Result<(Retrieval, Option<PromptKind>, Phases)> {
    let Some(filter) = param.active_filter().filter(|_| param.mode != QueryMode::Bypass) else {
        return retrieve_in(inner, &*inner.store, query, param, scope).await;
    };
    let started = Instant::now();
    let docs = Arc::new(filter::resolve(&*inner.store, filter).await?);
    let info = FilterInfo { applied: true, documents: docs.docs.len(), chunks: docs.chunks.len() };
    let resolve_ms = millis(started.elapsed());
    let (mut retrieval, kind, mut phases) = if docs.chunks.is_empty() {
        (Retrieval::failed(param.mode, retrieve::NO_RESULTS), Some(PromptKind::Graph), Phases::default())
    } else {
        let limit = inner.config.query.filter_exact_limit;
        let store = scoped::ScopedStore::new(inner.store.clone(), docs, inner.config.merge.clone(), limit);
        retrieve_in(inner, &store, query, param, scope).await?
    };
    phases.retrieval_ms += resolve_ms;
    match &mut retrieval.data.metadata {
        Metadata::Retrieval(m) => m.filter = Some(info),
        Metadata::Failure(m) => m.filter = Some(info),
        Metadata::Empty(_) => {}
    }
    Ok((retrieval, kind, phases))
}

/// [`retrieve`] over `store` (the whole store, or a filtered view of it).
async fn retrieve_in(
    inner: &Inner,
    store: &dyn RetrievalStore,
    query: &str,
    param: &QueryParam,
    scope: &UsageScope,
) -> Result<(Retrieval, Option<PromptKind>, Phases)> {
    if param.mode != QueryMode::Auto {
        return retrieve_as(inner, store, query, param, scope, None).await;
    }
    let started = Instant::now();
    let decision = auto::choose(store, query, param).await?;
    let analysis_ms = millis(started.elapsed());
    let (mut retrieval, kind, mut phases) =
        retrieve_as(inner, store, query, &decision.param, scope, Some(decision.named)).await?;
    phases.keywords_ms += analysis_ms;
    if let Metadata::Retrieval(metadata) = &mut retrieval.data.metadata {
        metadata.auto = Some(decision.choice);
    }
    Ok((retrieval, kind, phases))
}

/// [`retrieve`] for a mode other than `auto`; `named` are the entities the question names when
/// already looked up (used by `ppr`).
async fn retrieve_as(
    inner: &Inner,
    store: &dyn RetrievalStore,
    query: &str,
    param: &QueryParam,
    scope: &UsageScope,
    named: Option<Vec<lightrag_ports::Entity>>,
) -> Result<(Retrieval, Option<PromptKind>, Phases)> {
    let started = Instant::now();
    match param.mode {
        QueryMode::Bypass => Ok((Retrieval::bypass(BYPASS_MESSAGE), None, Phases::default())),
        QueryMode::Naive => {
            let retrieval = retrieve::naive(inner, store, query, param, scope).await?;
            let phases = Phases { keywords_ms: 0, retrieval_ms: millis(started.elapsed()) };
            Ok((retrieval, Some(PromptKind::Naive), phases))
        }
        QueryMode::Ppr => {
            let retrieval = ppr::ppr(inner, store, query, param, scope, named).await?;
            let phases = Phases { keywords_ms: 0, retrieval_ms: millis(started.elapsed()) };
            Ok((retrieval, Some(PromptKind::Graph), phases))
        }
        _ => {
            let keywords = keywords::keywords_for(inner, query, param, scope).await?;
            let keywords_ms = millis(started.elapsed());
            let started = Instant::now();
            let retrieval = match keywords {
                Some(keywords) => retrieve::graph(inner, store, query, param, keywords, scope).await?,
                None => Retrieval::failed(param.mode, NO_RESULTS),
            };
            let phases = Phases { keywords_ms, retrieval_ms: millis(started.elapsed()) };
            Ok((retrieval, Some(PromptKind::Graph), phases))
        }
    }
}

#[cfg(test)]
mod keywords_props;
#[cfg(test)]
mod tests;
