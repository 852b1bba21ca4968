//! Retrieval and answers: LightRAG's query pipeline (reference §6).
//!
//! keywords ([`keywords`]) → one batched embedding call → vector search and one-hop graph
//! expansion per mode (`search`) → token truncation of entities and relations → chunk picking
//! from their provenance ([`chunks`]) → round-robin merge with the vector chunks → chunk budget →
//! reference list and context string ([`context`]) → answer (`answer`).
//!
//! [`Engine::query`] returns the retrieval data (the JSON of `/query/data`) and the answer;
//! [`Engine::query_data`] runs retrieval only.

pub(crate) mod answer;
pub mod chunks;
pub mod context;
pub mod direct;
pub mod keywords;
pub mod param;
pub mod result;
pub(crate) mod retrieve;
pub(crate) mod search;

pub use keywords::{Keywords, parse_keywords};
pub use param::{DEFAULT_RESPONSE_TYPE, QueryMode, QueryParam, UnknownQueryMode};
pub use result::{
    Answer, ChunkData, DataSection, Empty, EntityData, FailureMetadata, KeywordsInfo, Metadata, ProcessingInfo,
    QueryData, QueryResult, QueryStatus, Reference, RelationData, RetrievalMetadata, RetrievedData,
};

use crate::engine::{Engine, Inner};
use crate::error::{EngineError, Result};
use crate::prompts::FAIL_RESPONSE;

use answer::PromptKind;
use retrieve::Retrieval;

/// Message of a bypass-mode result.
const BYPASS_MESSAGE: &str = "Bypass mode: the question went to the LLM without retrieval";

impl Engine {
    /// Answers `question`: retrieval per `param.mode`, then the LLM answer (or the context, the
    /// prompt, or LightRAG's fail response when nothing was found). Without an LLM configured the
    /// answer is the retrieved context.
    pub async fn query(&self, question: &str, param: &QueryParam) -> Result<QueryResult> {
        let inner = &*self.inner;
        let query = checked_query(question)?;
        if param.mode == QueryMode::Bypass {
            let answer = answer::bypass(inner, query, param).await?;
            return Ok(QueryResult { data: QueryData::bypass(BYPASS_MESSAGE), answer });
        }
        let (retrieval, kind) = retrieve(inner, query, param).await?;
        let answer = match retrieval.context {
            Some(context) => answer::answer(inner, query, param, kind, context).await?,
            None => Answer::NoContext(FAIL_RESPONSE.to_string()),
        };
        Ok(QueryResult { data: retrieval.data, answer })
    }

    /// Retrieval only (what `/query/data` returns): no answer call. Keyword extraction may still
    /// call the LLM.
    pub async fn query_data(&self, question: &str, param: &QueryParam) -> Result<QueryData> {
        let query = checked_query(question)?;
        if param.mode == QueryMode::Bypass {
            return Ok(QueryData::bypass(BYPASS_MESSAGE));
        }
        Ok(retrieve(&self.inner, query, param).await?.0.data)
    }

    /// The retrieved context string, or `None` when nothing was found.
    pub async fn query_context(&self, question: &str, param: &QueryParam) -> Result<Option<String>> {
        let query = checked_query(question)?;
        if param.mode == QueryMode::Bypass {
            return Ok(None);
        }
        Ok(retrieve(&self.inner, query, param).await?.0.context)
    }
}

fn checked_query(question: &str) -> Result<&str> {
    let query = question.trim();
    if query.is_empty() {
        return Err(EngineError::Invalid("the query is empty; ask a question".to_string()));
    }
    Ok(query)
}

async fn retrieve(inner: &Inner, query: &str, param: &QueryParam) -> Result<(Retrieval, PromptKind)> {
    if param.mode == QueryMode::Naive {
        Ok((retrieve::naive(inner, query, param).await?, PromptKind::Naive))
    } else {
        Ok((retrieve::graph(inner, query, param).await?, PromptKind::Graph))
    }
}

#[cfg(test)]
mod tests;
