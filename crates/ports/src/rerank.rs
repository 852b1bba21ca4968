//! The reranking provider port: scores documents against a query (LightRAG's
//! `rerank_model_func`), used to reorder the chunks of a query before they are cut to
//! `chunk_top_k`.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::embed::retry_hint;

/// One scored document: its position in the request and its relevance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RerankHit {
    /// Index of the document in the request's list.
    pub index: usize,
    /// Relevance to the query (higher is better; providers use `[0, 1]`).
    pub relevance_score: f64,
}

/// Errors from a reranking provider.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RerankError {
    /// HTTP 429. Retryable.
    #[error("rerank provider is rate limiting (HTTP 429){}", retry_hint(*.retry_after_secs))]
    RateLimited {
        /// Seconds the provider asked us to wait, when it said.
        retry_after_secs: Option<f64>,
    },
    /// HTTP 5xx. Retryable.
    #[error("rerank provider error (HTTP {status}): {body}")]
    Server {
        /// HTTP status code.
        status: u16,
        /// Response body (truncated).
        body: String,
    },
    /// HTTP 4xx other than 429 (bad key, unknown model). Not retryable.
    #[error("rerank request rejected (HTTP {status}): {body}")]
    Client {
        /// HTTP status code.
        status: u16,
        /// Response body (truncated).
        body: String,
    },
    /// No answer within the timeout. Retryable.
    #[error("rerank call timed out after {0} s (raise RERANK_TIMEOUT if the service is slow)")]
    Timeout(u64),
    /// Could not connect or the connection broke. Retryable.
    #[error("cannot reach the rerank provider: {0}")]
    Connection(String),
    /// The answer could not be read.
    #[error("unusable rerank response: {0}")]
    InvalidResponse(String),
}

impl RerankError {
    /// The kind of failure, as a metric label: `rate_limited`, `server_error`, `refused` (any
    /// other 4xx), `timeout`, `connection`, `invalid_response`.
    pub fn kind(&self) -> &'static str {
        match self {
            RerankError::RateLimited { .. } => "rate_limited",
            RerankError::Server { .. } => "server_error",
            RerankError::Client { .. } => "refused",
            RerankError::Timeout(_) => "timeout",
            RerankError::Connection(_) => "connection",
            RerankError::InvalidResponse(_) => "invalid_response",
        }
    }

    /// Whether retrying the same call may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            RerankError::RateLimited { .. }
                | RerankError::Server { .. }
                | RerankError::Timeout(_)
                | RerankError::Connection(_)
        )
    }
}

/// Scores documents against a query.
#[async_trait]
pub trait Reranker: Send + Sync {
    /// `binding:model`, e.g. `cohere:rerank-v3.5`.
    fn identity(&self) -> String;

    /// Scores `documents` against `query`. Returns at most `top_n` hits (all when `None`), best
    /// first, each naming a valid index into `documents`; an index appears at most once.
    /// Documents the provider left out are not relevant enough to be kept.
    async fn rerank(
        &self,
        query: &str,
        documents: &[String],
        top_n: Option<usize>,
    ) -> Result<Vec<RerankHit>, RerankError>;
}

/// Checks a provider's hits: drops indexes out of range, repeated indexes and non-finite
/// scores, sorts by score (best first, stable), and keeps at most `top_n`. Returns the hits
/// kept and how many were dropped.
pub fn clean_hits(hits: Vec<RerankHit>, documents: usize, top_n: Option<usize>) -> (Vec<RerankHit>, usize) {
    let total = hits.len();
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<RerankHit> = hits
        .into_iter()
        .filter(|h| h.index < documents && h.relevance_score.is_finite() && seen.insert(h.index))
        .collect();
    let dropped = total - kept.len();
    kept.sort_by(|a, b| b.relevance_score.total_cmp(&a.relevance_score));
    if let Some(n) = top_n {
        kept.truncate(n);
    }
    (kept, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(index: usize, relevance_score: f64) -> RerankHit {
        RerankHit { index, relevance_score }
    }

    #[test]
    fn clean_hits_drops_bad_entries_sorts_and_cuts() {
        let hits = vec![hit(0, 0.2), hit(5, 0.9), hit(1, f64::NAN), hit(2, 0.7), hit(0, 0.99), hit(3, 0.5)];
        let (kept, dropped) = clean_hits(hits, 4, Some(2));
        assert_eq!(kept, vec![hit(2, 0.7), hit(3, 0.5)]);
        assert_eq!(dropped, 3);
        let (all, _) = clean_hits(vec![hit(1, 0.1), hit(0, 0.1)], 2, None);
        assert_eq!(all, vec![hit(1, 0.1), hit(0, 0.1)], "ties keep the provider's order");
    }

    #[test]
    fn retryable_errors() {
        assert!(RerankError::Timeout(3).is_retryable());
        assert!(RerankError::RateLimited { retry_after_secs: None }.is_retryable());
        assert!(!RerankError::Client { status: 401, body: String::new() }.is_retryable());
        assert!(!RerankError::InvalidResponse(String::new()).is_retryable());
    }
}
