//! Chunk reranking (LightRAG's `process_chunks_unified`, steps 1 and 2): when the query asks for
//! it (`enable_rerank`, default `RERANK_BY_DEFAULT`) and a rerank service is configured, the
//! merged chunks are scored against the question and reordered best first, at most
//! `chunk_top_k` kept; with `MIN_RERANK_SCORE` > 0 the chunks scoring below it are dropped.
//! A failed or empty rerank keeps the retrieval order, as in LightRAG. Only chunks are
//! reranked, never entities or relations.

use lightrag_ports::Chunk;

use crate::engine::Inner;
use crate::providers::usage_scope::UsageScope;

use super::param::{Limits, QueryParam};

/// Whether this query reranks (asked for, and a service exists).
pub(crate) fn active(inner: &Inner, limits: &Limits) -> bool {
    limits.rerank && inner.gateway.has_reranker()
}

/// Reranks `chunks` for `query` (see the module docs). Returns them in their new order.
pub(crate) async fn rerank_chunks(
    inner: &Inner,
    query: &str,
    chunks: Vec<Chunk>,
    param: &QueryParam,
    limits: &Limits,
    scope: &UsageScope,
) -> Vec<Chunk> {
    if !limits.rerank || chunks.is_empty() {
        return chunks;
    }
    if !inner.gateway.has_reranker() {
        if param.enable_rerank == Some(true) {
            tracing::warn!(
                "the query asked for reranking (enable_rerank) but no rerank service is configured \
                 (RERANK_BINDING); chunks keep their retrieval order"
            );
        }
        return chunks;
    }
    let documents: Vec<String> = chunks.iter().map(|c| c.content.clone()).collect();
    let tokens_in = chunks.iter().map(|c| c.tokens as u64).sum::<u64>() + query.len().div_ceil(4) as u64;
    let hits = match inner.gateway.rerank(query, &documents, Some(limits.chunk_top_k), tokens_in, Some(scope)).await {
        Ok(Some(hits)) if !hits.is_empty() => hits,
        Ok(_) => {
            tracing::warn!("the rerank service returned no results; chunks keep their retrieval order");
            return chunks;
        }
        Err(e) => {
            tracing::warn!("reranking failed, chunks keep their retrieval order: {e}");
            return chunks;
        }
    };
    let mut slots: Vec<Option<Chunk>> = chunks.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(hits.len());
    for hit in hits {
        if limits.min_rerank_score > 0.0 && hit.relevance_score < limits.min_rerank_score {
            continue;
        }
        if let Some(chunk) = slots.get_mut(hit.index).and_then(Option::take) {
            out.push(chunk);
        }
    }
    tracing::debug!("reranked {} chunks, {} kept", documents.len(), out.len());
    out
}
