//! The query trace ("why this answer", ours, opt-in with `include_trace` on `/query`,
//! `/query/stream` and `/query/data`) for the OpenAPI document.
//!
//! The handlers serialise the engine's [`lightrag_engine::retrieval::query::QueryTrace`]; these `ToSchema`
//! structs describe the same shape. `tests/openapi.rs` checks traced live responses against them
//! (and `tests/query_trace.rs` the exact key sets), so a drift fails a test.

use serde::Serialize;
use utoipa::ToSchema;

/// `trace`: how each record of `data` came in, what the query cost and how long it took.
#[derive(Debug, Serialize, ToSchema)]
pub struct QueryTrace {
    /// One per entity of the retrieved data, in the same order.
    pub entities: Vec<TracedEntity>,
    /// One per relation of the retrieved data, in the same order.
    pub relationships: Vec<TracedRelationship>,
    /// One per chunk of the retrieved data, in the same order.
    pub chunks: Vec<TracedChunk>,
    /// What this query cost, per role.
    pub usage: TraceUsage,
    /// Wall-clock milliseconds of the phases.
    pub timings_ms: TraceTimings,
    /// On `/query` and `/query/stream` only: the retrieved records themselves (what `/query/data`
    /// returns as `data`), so the answer can be explained without a second retrieval.
    pub data: Option<crate::schemas::QueryDataPayload>,
    /// On `/query` and `/query/stream` only: the keywords the retrieval used (null in naive and
    /// bypass mode).
    pub keywords: Option<TraceKeywords>,
    /// The query `filter` applied (absent without one).
    pub filter: Option<TraceFilter>,
}

/// What a query filter let through.
#[derive(Debug, Serialize, ToSchema)]
pub struct TraceFilter {
    /// Always true.
    pub applied: bool,
    /// Processed documents that pass.
    pub documents: usize,
    /// Their chunks.
    pub chunks: usize,
}

/// The keywords of a retrieval.
#[derive(Debug, Serialize, ToSchema)]
pub struct TraceKeywords {
    /// High-level (theme) keywords.
    pub high_level: Vec<String>,
    /// Low-level (entity) keywords.
    pub low_level: Vec<String>,
}

/// How an entity or relation came in.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum GraphOrigin {
    /// A vector-search hit (entities: low-level keywords; relations: high-level keywords).
    Vector,
    /// Reached through the graph only (one-hop expansion).
    Graph,
}

/// How a chunk came in.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChunkOrigin {
    /// A hit of the chunk index searched with the question (naive and mix modes).
    Vector,
    /// Picked from a retrieved entity's source chunks.
    Entity,
    /// Picked from a retrieved relation's source chunks.
    Relation,
}

/// One retrieved entity.
#[derive(Debug, Serialize, ToSchema)]
pub struct TracedEntity {
    /// The entity's name.
    pub entity_name: String,
    /// Cosine similarity of the vector hit; null when reached through the graph only.
    #[schema(required = true)]
    pub score: Option<f32>,
    /// How it came in.
    pub origin: GraphOrigin,
    /// Position in the final order (from 0).
    pub rank: u64,
}

/// One retrieved relation.
#[derive(Debug, Serialize, ToSchema)]
pub struct TracedRelationship {
    /// One endpoint.
    pub src_id: String,
    /// The other endpoint.
    pub tgt_id: String,
    /// Cosine similarity of the vector hit; null when reached through the graph only.
    #[schema(required = true)]
    pub score: Option<f32>,
    /// How it came in.
    pub origin: GraphOrigin,
    /// Position in the final order (from 0).
    pub rank: u64,
}

/// One retrieved chunk.
#[derive(Debug, Serialize, ToSchema)]
pub struct TracedChunk {
    /// The chunk id.
    pub chunk_id: String,
    /// Cosine similarity of the vector hit; null for chunks picked from provenance.
    #[schema(required = true)]
    pub score: Option<f32>,
    /// How it came in.
    pub origin: ChunkOrigin,
    /// Position in the final order (from 0).
    pub rank: u64,
}

/// Counters of one role (the roles of the usage ledger and `/metrics`).
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageCounts {
    /// Calls that reached the provider.
    pub calls: u64,
    /// Calls answered from the LLM cache.
    pub cache_hits: u64,
    /// Input tokens (the provider's count, or ours when it gives none).
    pub tokens_in: u64,
    /// Output tokens.
    pub tokens_out: u64,
}

/// What the query cost.
#[derive(Debug, Serialize, ToSchema)]
pub struct TraceUsage {
    /// Keyword extraction (a call, or a cache hit).
    pub keywords: UsageCounts,
    /// The answer call (absent on `/query/data`, which makes none).
    pub answer: Option<UsageCounts>,
    /// Embedding of the question and the keywords.
    pub embed: UsageCounts,
    /// Reranking of the chunks (present only when the query reranked).
    pub rerank: Option<UsageCounts>,
    /// The sum of the above.
    pub total: UsageCounts,
}

/// Wall-clock milliseconds.
#[derive(Debug, Serialize, ToSchema)]
pub struct TraceTimings {
    /// Getting the keywords (0 in naive and bypass mode).
    pub keywords: u64,
    /// Embedding, searches, graph reads, chunk picking, budgets and context.
    pub retrieval: u64,
    /// The answer call (streamed: until the stream ended); null when no answer was asked of the
    /// LLM.
    #[schema(required = true)]
    pub answer: Option<u64>,
    /// The whole query.
    pub total: u64,
}
