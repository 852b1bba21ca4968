//! "Why this answer": how each retrieved record came in and with what score, what the query cost
//! and how long its phases took ([`QueryTrace`]). Built on every query (it costs a few small
//! vectors); the interfaces decide whether to show it.
//!
//! Origins (small, stable vocabularies):
//!
//! * entities — `vector`: a hit of the entity index searched with the low-level keywords;
//!   `graph`: an endpoint of a relation hit (one hop), never a hit itself.
//! * relationships — `vector`: a hit of the relation index searched with the high-level keywords;
//!   `graph`: an edge of an entity hit (one hop), never a hit itself.
//! * chunks — `vector`: a hit of the chunk index searched with the question (naive and mix modes);
//!   `entity` / `relation`: picked from the source chunks of a retrieved entity / relation.
//!
//! A record both found by vector search and reached another way is reported as `vector`, with
//! the cosine similarity of its hit as `score`; every other record has `score: null`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use lightrag_ports::{RelKey, UsageCounters, UsageRole, VectorHit};
use serde::{Deserialize, Serialize};

use crate::providers::usage_scope::UsageScope;

/// How an entity or a relation came into the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GraphOrigin {
    /// A vector-search hit (`score` is its similarity).
    Vector,
    /// Reached through the graph only (one-hop expansion).
    Graph,
}

/// How a chunk came into the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChunkOrigin {
    /// A hit of the chunk index (`score` is its similarity).
    Vector,
    /// Picked from a retrieved entity's source chunks.
    Entity,
    /// Picked from a retrieved relation's source chunks.
    Relation,
}

/// One entity of `data.entities`, in the same order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityTrace {
    /// The entity's name.
    pub entity_name: String,
    /// Cosine similarity of its vector hit; `None` when it was reached through the graph only.
    pub score: Option<f32>,
    /// How it came in.
    pub origin: GraphOrigin,
    /// Its position in `data.entities` (from 0).
    pub rank: usize,
}

/// One relation of `data.relationships`, in the same order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelationTrace {
    /// One endpoint.
    pub src_id: String,
    /// The other endpoint.
    pub tgt_id: String,
    /// Cosine similarity of its vector hit; `None` when it was reached through the graph only.
    pub score: Option<f32>,
    /// How it came in.
    pub origin: GraphOrigin,
    /// Its position in `data.relationships` (from 0).
    pub rank: usize,
}

/// One chunk of `data.chunks`, in the same order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkTrace {
    /// The chunk id.
    pub chunk_id: String,
    /// Cosine similarity of its vector hit; `None` for chunks picked from provenance.
    pub score: Option<f32>,
    /// How it came in.
    pub origin: ChunkOrigin,
    /// Its position in `data.chunks` (from 0).
    pub rank: usize,
}

/// What one query cost, per role of the usage ledger.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryUsage {
    /// Keyword extraction (a call, or a cache hit).
    pub keywords: UsageCounters,
    /// The answer call; `None` for retrieval only (`/query/data`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<UsageCounters>,
    /// Embedding of the question and the keywords.
    pub embed: UsageCounters,
    /// Reranking of the chunks; present only when the query reranked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerank: Option<UsageCounters>,
    /// The sum of the above.
    pub total: UsageCounters,
}

impl QueryUsage {
    /// The query's usage from its scope; `with_answer` is false for retrieval only.
    pub(crate) fn from_scope(scope: &UsageScope, with_answer: bool) -> Self {
        let keywords = scope.role(UsageRole::Keywords);
        let answer = with_answer.then(|| scope.role(UsageRole::Answer));
        let embed = scope.role(UsageRole::Embed);
        let rerank = Some(scope.role(UsageRole::Rerank)).filter(|r| *r != UsageCounters::default());
        let mut total = UsageCounters::default();
        for part in [Some(keywords), answer, Some(embed), rerank].into_iter().flatten() {
            total.add(&part);
        }
        Self { keywords, answer, embed, rerank, total }
    }
}

/// Wall-clock milliseconds of the phases of a query.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryTimings {
    /// Getting the keywords (0 in naive and bypass mode).
    pub keywords: u64,
    /// Embedding, searches, graph reads, chunk picking, budgets and context.
    pub retrieval: u64,
    /// The answer call (for a stream: until the stream ended); `None` when no answer was asked
    /// of the LLM.
    pub answer: Option<u64>,
    /// The whole query.
    pub total: u64,
}

/// The records of a query's result, with how they came in.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RecordTraces {
    /// One per entity of `data.entities`, in order.
    pub entities: Vec<EntityTrace>,
    /// One per relation of `data.relationships`, in order.
    pub relationships: Vec<RelationTrace>,
    /// One per chunk of `data.chunks`, in order.
    pub chunks: Vec<ChunkTrace>,
}

/// Why this answer: the records with their scores and origins, the usage and the timings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryTrace {
    /// One per entity of `data.entities`, in order.
    pub entities: Vec<EntityTrace>,
    /// One per relation of `data.relationships`, in order.
    pub relationships: Vec<RelationTrace>,
    /// One per chunk of `data.chunks`, in order.
    pub chunks: Vec<ChunkTrace>,
    /// What this query cost.
    pub usage: QueryUsage,
    /// How long its phases took.
    pub timings_ms: QueryTimings,
    /// What the query's filter let through (absent without a filter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<super::result::FilterInfo>,
}

impl QueryTrace {
    pub(crate) fn new(
        records: RecordTraces,
        usage: QueryUsage,
        timings_ms: QueryTimings,
        filter: Option<super::result::FilterInfo>,
    ) -> Self {
        let RecordTraces { entities, relationships, chunks } = records;
        Self { entities, relationships, chunks, usage, timings_ms, filter }
    }
}

/// Completes the trace of a streamed answer once the stream has ended: the answer's output
/// tokens and its duration are known only then.
#[derive(Debug, Clone)]
pub struct TraceFinisher {
    scope: UsageScope,
    started: Instant,
    answer_started: Option<Instant>,
}

impl TraceFinisher {
    pub(crate) fn new(scope: UsageScope, started: Instant, answer_started: Option<Instant>) -> Self {
        Self { scope, started, answer_started }
    }

    /// `trace` with the usage counted so far and the answer and total times measured up to now.
    /// Call it after the answer stream has ended (for other answers the trace is already
    /// complete).
    pub fn finish(&self, mut trace: QueryTrace) -> QueryTrace {
        trace.usage = QueryUsage::from_scope(&self.scope, trace.usage.answer.is_some());
        if let Some(answer_started) = self.answer_started {
            trace.timings_ms.answer = Some(millis(answer_started.elapsed()));
        }
        trace.timings_ms.total = millis(self.started.elapsed());
        trace
    }
}

/// Whole milliseconds of `d`.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The similarity of each key's first (best) hit.
pub(crate) fn first_scores<K, F>(hits: &[VectorHit], key: F) -> HashMap<K, f32>
where
    K: std::hash::Hash + Eq,
    F: Fn(&str) -> Option<K>,
{
    let mut scores = HashMap::new();
    for hit in hits {
        if let Some(k) = key(&hit.key) {
            scores.entry(k).or_insert(hit.score);
        }
    }
    scores
}

/// Similarities of the vector hits of a query, by record.
#[derive(Debug, Clone, Default)]
pub(crate) struct HitScores {
    /// Entity hits by name.
    pub entities: HashMap<String, f32>,
    /// Relation hits by key.
    pub relations: HashMap<RelKey, f32>,
    /// Chunk hits by id.
    pub chunks: HashMap<String, f32>,
}

impl HitScores {
    /// The trace of an entity at `rank`.
    pub(crate) fn entity(&self, name: &str, rank: usize) -> EntityTrace {
        let score = self.entities.get(name).copied();
        EntityTrace { entity_name: name.to_string(), score, origin: graph_origin(score), rank }
    }

    /// The trace of a relation at `rank`.
    pub(crate) fn relation(&self, key: &RelKey, rank: usize) -> RelationTrace {
        let score = self.relations.get(key).copied();
        RelationTrace { src_id: key.src.clone(), tgt_id: key.tgt.clone(), score, origin: graph_origin(score), rank }
    }

    /// The trace of a chunk at `rank`: a vector hit, else picked for an entity when
    /// `from_entity` says so, else picked for a relation.
    pub(crate) fn chunk(&self, id: &str, rank: usize, from_entity: impl Fn(&str) -> bool) -> ChunkTrace {
        let score = self.chunks.get(id).copied();
        let origin = match score {
            Some(_) => ChunkOrigin::Vector,
            None if from_entity(id) => ChunkOrigin::Entity,
            None => ChunkOrigin::Relation,
        };
        ChunkTrace { chunk_id: id.to_string(), score, origin, rank }
    }
}

fn graph_origin(score: Option<f32>) -> GraphOrigin {
    if score.is_some() { GraphOrigin::Vector } else { GraphOrigin::Graph }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hit(key: &str, score: f32) -> VectorHit {
        VectorHit { key: key.into(), score }
    }

    #[test]
    fn first_hit_wins_and_unparsable_keys_are_skipped() {
        let hits = [hit("a", 0.9), hit("b", 0.8), hit("a", 0.1), hit("bad", 0.7)];
        let scores = first_scores(&hits, |k| (k != "bad").then(|| k.to_string()));
        assert_eq!(scores.len(), 2);
        assert_eq!(scores["a"], 0.9);
    }

    #[test]
    fn origins_follow_the_scores() {
        let scores = HitScores {
            entities: [("A".to_string(), 0.5)].into(),
            relations: [(RelKey::new("A", "B"), 0.4)].into(),
            chunks: [("c1".to_string(), 0.3)].into(),
        };
        assert_eq!(scores.entity("A", 0).origin, GraphOrigin::Vector);
        assert_eq!(
            scores.entity("B", 1),
            EntityTrace { entity_name: "B".into(), score: None, origin: GraphOrigin::Graph, rank: 1 }
        );
        assert_eq!(scores.relation(&RelKey::new("A", "B"), 0).score, Some(0.4));
        assert_eq!(scores.relation(&RelKey::new("B", "C"), 1).origin, GraphOrigin::Graph);
        let picked_for_entity = |id: &str| id == "c2";
        assert_eq!(scores.chunk("c1", 0, picked_for_entity).origin, ChunkOrigin::Vector);
        assert_eq!(scores.chunk("c2", 1, picked_for_entity).origin, ChunkOrigin::Entity);
        assert_eq!(scores.chunk("c3", 2, picked_for_entity).origin, ChunkOrigin::Relation);
    }

    #[test]
    fn usage_sums_the_roles_and_leaves_out_the_answer_for_retrieval() {
        let scope = UsageScope::new();
        scope.add(UsageRole::Keywords, UsageCounters { calls: 1, tokens_in: 100, tokens_out: 20, cache_hits: 0 });
        scope.add(UsageRole::Embed, UsageCounters { calls: 1, tokens_in: 7, ..Default::default() });
        scope.add(UsageRole::Answer, UsageCounters { calls: 1, tokens_in: 500, tokens_out: 50, cache_hits: 0 });
        let usage = QueryUsage::from_scope(&scope, true);
        assert_eq!(usage.total, UsageCounters { calls: 3, cache_hits: 0, tokens_in: 607, tokens_out: 70 });
        let retrieval = QueryUsage::from_scope(&scope, false);
        assert_eq!(retrieval.answer, None);
        assert_eq!(retrieval.total.tokens_in, 107);
        let json = serde_json::to_value(retrieval).unwrap();
        assert!(json.get("answer").is_none(), "{json}");
        assert_eq!(
            json["keywords"],
            serde_json::json!({"calls": 1, "cache_hits": 0, "tokens_in": 100, "tokens_out": 20})
        );
    }

    #[test]
    fn the_finisher_counts_what_a_stream_added_later() {
        let scope = UsageScope::new();
        let started = Instant::now();
        let trace = QueryTrace {
            usage: QueryUsage::from_scope(&scope, true),
            timings_ms: QueryTimings { answer: Some(0), ..QueryTimings::default() },
            ..QueryTrace::default()
        };
        scope.add(UsageRole::Answer, UsageCounters { calls: 1, tokens_out: 12, ..Default::default() });
        let finished = TraceFinisher::new(scope, started, Some(started)).finish(trace);
        assert_eq!(finished.usage.answer.unwrap().tokens_out, 12);
        assert_eq!(finished.usage.total.calls, 1);
        assert!(finished.timings_ms.answer.is_some());
    }
}
