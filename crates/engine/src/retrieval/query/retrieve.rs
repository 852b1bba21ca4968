//! The retrieval pipelines: graph modes (local, global, hybrid, mix) and naive mode. Each turns a
//! question into the [`QueryData`] of §2.2 plus the context string for the answer.

use std::collections::HashSet;

use lightrag_ports::ErrorChain;
use lightrag_ports::{Chunk, Entity, Relation, RetrievalStore, TextKind, Tokenizer, VectorKind};

use crate::config::{ChunkFusion, ChunkPickMethod};
use crate::engine::Inner;
use crate::error::Result;
use crate::indexing::order::dedup_in_order;
use crate::prompts;
use crate::providers::gateway::EmbedCall;
use crate::providers::limiter::Priority;
use crate::providers::usage_scope::UsageScope;

use super::chunks::{
    self, Candidates, HashMapExt, HashSetExt, candidates, pick_by_vector, pick_by_weight, round_robin, union_of,
};
use super::context::{
    ContextParts, chunk_context, chunk_line, entity_line, graph_context, json_line, reference_lines, reference_list,
    relation_line,
};
use super::fusion;
use super::keywords::Keywords;
use super::param::{DEFAULT_RESPONSE_TYPE, Limits, QueryMode, QueryParam};
use super::rerank;
use super::result::{
    ChunkData, DataSection, EntityData, KeywordsInfo, Metadata, ProcessingInfo, QueryData, QueryStatus, RelationData,
    RetrievalMetadata, RetrievedData,
};
use super::search::{GraphHits, QueryVectors, SearchLimits, SearchPlan, expand, find, vector_chunks};
use super::trace::{HitScores, RecordTraces};

/// Tokens kept free for the answer's framing (LightRAG's buffer).
const BUFFER_TOKENS: usize = 200;
/// Message of a successful retrieval.
pub(super) const SUCCESS_MESSAGE: &str = "Query processed successfully";
/// Message when retrieval found nothing.
pub(crate) const NO_RESULTS: &str = "Query returned no results";
/// Message when naive retrieval found no chunk.
const NO_CHUNKS: &str = "No relevant document chunks found.";
/// Message when everything found was cut by the budgets.
pub(super) const EMPTY_DATASET: &str = "Query returned empty dataset.";
/// Tokens a relation line is expected to take at least before any query was seen, to size the
/// first read of the local neighbourhood (a wrong guess costs a second read, never a different
/// answer).
const RELATION_LINE_TOKENS: usize = 40;

/// How many of the local neighbourhood's best relations are read first: about as many as the
/// relation budget can hold (a quarter more), at lines of `line_tokens` (the average the last
/// query saw; 0 before the first, then [`RELATION_LINE_TOKENS`] is assumed).
fn first_edge_limit(max_relation_tokens: usize, line_tokens: usize) -> usize {
    let per_line = if line_tokens == 0 { RELATION_LINE_TOKENS } else { line_tokens };
    (max_relation_tokens / per_line + max_relation_tokens / per_line / 4).max(32)
}

/// A retrieval: the data, the context string when something was found, and how each record of
/// the data came in.
#[derive(Debug)]
pub(crate) struct Retrieval {
    pub data: QueryData,
    pub context: Option<String>,
    pub records: RecordTraces,
}

impl Retrieval {
    pub(crate) fn failed(mode: QueryMode, message: &str) -> Self {
        Self { data: QueryData::failure(mode.as_str(), message), context: None, records: RecordTraces::default() }
    }

    /// Bypass mode: nothing retrieved, no context.
    pub(crate) fn bypass(message: &str) -> Self {
        Self { data: QueryData::bypass(message), context: None, records: RecordTraces::default() }
    }
}

/// The response type with LightRAG's default for an empty one.
pub(crate) fn response_type(param: &QueryParam) -> &str {
    let t = param.response_type.trim();
    if t.is_empty() { DEFAULT_RESPONSE_TYPE } else { t }
}

/// The JSON wrapper of a chunk line (its content is counted from `Chunk::tokens`).
fn chunk_budget_line(c: &Chunk) -> String {
    json_line(&[("content", ""), ("file_path", &c.file_path), ("chunk_id", &c.id)])
}

/// Token counts of the leading lines, stopping after the first line that overflows `max_tokens`
/// (the rest cannot be kept). Counts are memoised per engine: the same entity and relation lines
/// come back query after query.
pub(super) fn count_until(inner: &Inner, lines: &[String], max_tokens: usize) -> Vec<usize> {
    let mut counts = Vec::with_capacity(lines.len());
    let mut total = 0usize;
    for line in lines {
        let n = inner.line_tokens.count(inner.tokenizer.as_ref(), line);
        counts.push(n);
        total += n;
        if total > max_tokens {
            break;
        }
    }
    counts
}

/// How many leading items fit in `max_tokens`, given each item's token count.
pub(super) fn keep_by_counts(counts: &[usize], max_tokens: usize) -> usize {
    let mut total = 0usize;
    for (i, n) in counts.iter().enumerate() {
        total += n;
        if total > max_tokens {
            return i;
        }
    }
    counts.len()
}

/// Cuts chunks to `chunk_top_k` and the token budget, assigns reference ids, and renders the
/// chunk and reference parts of the context.
pub(super) fn finish_chunks(
    tokenizer: &dyn Tokenizer,
    chunks: Vec<Chunk>,
    chunk_top_k: usize,
    available_tokens: usize,
    parts: &mut ContextParts,
) -> (Vec<ChunkData>, Vec<super::result::Reference>) {
    let mut chunks = chunks;
    chunks.truncate(chunk_top_k);
    // a chunk line costs its stored token count plus its JSON wrapper
    let costs: Vec<usize> = chunks.iter().map(|c| c.tokens as usize + tokenizer.count(&chunk_budget_line(c))).collect();
    let keep = keep_by_counts(&costs, available_tokens);
    chunks.truncate(keep);
    let (references, ids) = reference_list(chunks.iter().map(|c| c.file_path.as_str()));
    let data: Vec<ChunkData> = chunks
        .into_iter()
        .zip(ids)
        .map(|(c, reference_id)| ChunkData { reference_id, content: c.content, file_path: c.file_path, chunk_id: c.id })
        .collect();
    parts.chunks = data.iter().map(|c| chunk_line(&c.reference_id, &c.content)).collect();
    parts.references = reference_lines(&references);
    (data, references)
}

/// Cuts `entities` to the entity token budget (§6.3); returns the kept entities' context lines and
/// their token counts.
pub(super) fn truncate_entities(
    inner: &Inner,
    entities: &mut Vec<Entity>,
    max_tokens: usize,
) -> (Vec<String>, Vec<usize>) {
    let mut lines: Vec<String> =
        entities.iter().map(|e| entity_line(&e.name, &e.entity_type, &e.description)).collect();
    let mut counts = count_until(inner, &lines, max_tokens);
    let keep = keep_by_counts(&counts, max_tokens);
    entities.truncate(keep);
    lines.truncate(keep);
    counts.truncate(keep);
    (lines, counts)
}

/// The tokens a graph query's context has left for chunks: the total budget less the answer's
/// system prompt, the graph part (its fixed layout + the kept entity and relation lines, one
/// newline each), the question and LightRAG's buffer. The layout and the system prompt are the
/// same on every query: counted once, memoised.
pub(super) fn graph_chunk_budget(
    inner: &Inner,
    query: &str,
    param: &QueryParam,
    limits: &Limits,
    entity_counts: &[usize],
    relation_counts: &[usize],
) -> usize {
    let tokenizer = &*inner.tokenizer;
    let system = prompts::rag_answer_system("", response_type(param), param.user_prompt.as_deref());
    let layout = inner.line_tokens.count(tokenizer, &graph_context(&ContextParts::default()));
    let graph_tokens = layout
        + entity_counts.iter().sum::<usize>()
        + relation_counts.iter().sum::<usize>()
        + entity_counts.len()
        + relation_counts.len();
    saturating_budget(
        limits.max_total_tokens,
        &[inner.line_tokens.count(tokenizer, &system), graph_tokens, tokenizer.count(query), BUFFER_TOKENS],
    )
}

/// Loads the first `limit` chunks of `ids` that exist, in order, reading only as many as needed
/// (one read unless ids are dangling). Returns them and how many ids were found missing.
async fn load_first(store: &dyn RetrievalStore, ids: &[String], limit: usize) -> Result<(Vec<Chunk>, usize)> {
    let mut found = Vec::new();
    let mut missing = 0;
    let mut next = 0;
    while found.len() < limit && next < ids.len() {
        let end = (next + (limit - found.len())).min(ids.len());
        let batch = &ids[next..end];
        for chunk in store.get_chunks(batch).await? {
            match chunk {
                Some(c) => found.push(c),
                None => missing += 1,
            }
        }
        next = end;
    }
    Ok((found, missing))
}

fn saturating_budget(total: usize, used: &[usize]) -> usize {
    total.saturating_sub(used.iter().sum())
}

/// Naive mode: vector search over chunks only.
pub(crate) async fn naive(
    inner: &Inner,
    store: &dyn RetrievalStore,
    query: &str,
    param: &QueryParam,
    scope: &UsageScope,
) -> Result<Retrieval> {
    let limits = Limits::resolve(param, &inner.config);
    let vectors = inner
        .gateway
        .embed(EmbedCall::new(&[query.to_string()], TextKind::Query, Priority::Query).scoped(scope))
        .await?;
    let Some(query_vector) = vectors.into_iter().next() else {
        return Ok(Retrieval::failed(QueryMode::Naive, NO_CHUNKS));
    };
    let hits = vector_chunks(store, &query_vector, limits.chunk_top_k, limits.cosine_threshold).await?;
    let scores = HitScores { chunks: hits.iter().map(|h| (h.key.clone(), h.score)).collect(), ..HitScores::default() };
    let mut ids: Vec<String> = hits.into_iter().map(|h| h.key).collect();
    if limits.fusion == ChunkFusion::Rrf {
        let lexical = fusion::lexical_chunks(store, query, &[], limits.chunk_top_k).await?;
        ids = fusion::reciprocal_rank_fusion(vec![ids, lexical], limits.rrf_k, Clone::clone);
    }
    let (found, _) = load_first(store, &ids, limits.chunk_top_k).await?;
    let found = rerank::rerank_chunks(inner, query, found, param, &limits, scope).await;
    if found.is_empty() {
        return Ok(Retrieval::failed(QueryMode::Naive, NO_CHUNKS));
    }
    let total_found = found.len();
    let tokenizer = &*inner.tokenizer;
    let system = prompts::naive_answer_system("", response_type(param), param.user_prompt.as_deref());
    // the system prompt repeats query after query: its count comes from the memo
    let system_tokens = inner.line_tokens.count(tokenizer, &system);
    let available = saturating_budget(limits.max_total_tokens, &[system_tokens, tokenizer.count(query), BUFFER_TOKENS]);
    let mut parts = ContextParts::default();
    let (chunks, references) = finish_chunks(tokenizer, found, limits.chunk_top_k, available, &mut parts);
    if chunks.is_empty() {
        return Ok(Retrieval::failed(QueryMode::Naive, NO_CHUNKS));
    }
    let final_count = chunks.len();
    // every chunk here is a vector hit
    let records = RecordTraces {
        chunks: chunks.iter().enumerate().map(|(rank, c)| scores.chunk(&c.chunk_id, rank, |_| false)).collect(),
        ..RecordTraces::default()
    };
    let data = QueryData {
        status: QueryStatus::Success,
        message: SUCCESS_MESSAGE.to_string(),
        data: DataSection::Retrieved(RetrievedData { entities: vec![], relationships: vec![], chunks, references }),
        metadata: Metadata::Retrieval(RetrievalMetadata {
            query_mode: QueryMode::Naive.as_str().to_string(),
            keywords: KeywordsInfo::default(),
            processing_info: ProcessingInfo::Naive { total_chunks_found: total_found, final_chunks_count: final_count },
            auto: None,
            filter: None,
        }),
    };
    Ok(Retrieval { data, context: Some(chunk_context(&parts)), records })
}

/// Which searches run, following LightRAG: `local` (`global`) without low-level (high-level)
/// keywords falls through to the hybrid branch.
pub(crate) fn plan_for(mode: QueryMode, keywords: &Keywords) -> SearchPlan {
    let has_low = !keywords.low_level.is_empty();
    let has_high = !keywords.high_level.is_empty();
    let (local, global) = match mode {
        QueryMode::Local if has_low => (true, false),
        QueryMode::Global if has_high => (false, true),
        _ => (has_low, has_high),
    };
    SearchPlan { local, global, vector_chunks: mode == QueryMode::Mix }
}

/// Embeds what the plan needs in one batched call.
async fn embed_for(
    inner: &Inner,
    query: &str,
    keywords: &Keywords,
    plan: SearchPlan,
    need_query: bool,
    scope: &UsageScope,
) -> Result<QueryVectors> {
    let mut texts = Vec::new();
    let mut slots = [None; 3];
    if need_query {
        slots[0] = Some(texts.len());
        texts.push(query.to_string());
    }
    if plan.local {
        slots[1] = Some(texts.len());
        texts.push(keywords.low_level.join(", "));
    }
    if plan.global {
        slots[2] = Some(texts.len());
        texts.push(keywords.high_level.join(", "));
    }
    let mut vectors: Vec<Option<Vec<f32>>> = inner
        .gateway
        .embed(EmbedCall::new(&texts, TextKind::Query, Priority::Query).scoped(scope))
        .await?
        .into_iter()
        .map(Some)
        .collect();
    let mut take = |slot: Option<usize>| slot.and_then(|i| vectors.get_mut(i).and_then(Option::take));
    Ok(QueryVectors { query: take(slots[0]), low: take(slots[1]), high: take(slots[2]) })
}

/// Graph modes, once the keywords are known: searches → truncation → chunk picking → merge →
/// budget → context.
pub(crate) async fn graph(
    inner: &Inner,
    store: &dyn RetrievalStore,
    query: &str,
    param: &QueryParam,
    keywords: Keywords,
    scope: &UsageScope,
) -> Result<Retrieval> {
    let mode = param.mode;
    let limits = Limits::resolve(param, &inner.config);
    let plan = plan_for(mode, &keywords);
    let need_query = plan.vector_chunks || limits.pick_method == ChunkPickMethod::Vector;
    let vectors = embed_for(inner, query, &keywords, plan, need_query, scope).await?;
    let search_limits =
        SearchLimits { top_k: limits.top_k, chunk_top_k: limits.chunk_top_k, min_score: limits.cosine_threshold };
    let found = find(store, plan, &vectors, search_limits).await?;
    if found.is_empty() {
        return Ok(Retrieval::failed(mode, NO_RESULTS));
    }
    let tokenizer = &*inner.tokenizer;
    // The local neighbourhood is read best first, only as far as the relation budget can reach:
    // if every relation read survives the §6.3 cut and more exist, read further.
    let seen_line_tokens = inner.relation_line_tokens.load(std::sync::atomic::Ordering::Relaxed);
    let mut edge_limit = first_edge_limit(limits.max_relation_tokens, seen_line_tokens);
    let (hits, relation_lines, relation_counts) = loop {
        let hits = expand(store, &found, edge_limit).await?;
        let lines: Vec<String> =
            hits.relations.iter().map(|r| relation_line(&r.key.src, &r.key.tgt, &r.description)).collect();
        let counts = count_until(inner, &lines, limits.max_relation_tokens);
        let keep = keep_by_counts(&counts, limits.max_relation_tokens);
        let kept: HashSet<&lightrag_ports::RelKey> = hits.relations[..keep].iter().map(|r| &r.key).collect();
        let reaches_cut = hits.local_relations.iter().all(|k| kept.contains(k));
        if hits.local_complete || !reaches_cut {
            if !counts.is_empty() {
                let average = counts.iter().sum::<usize>().div_ceil(counts.len()).max(1);
                inner.relation_line_tokens.store(average, std::sync::atomic::Ordering::Relaxed);
            }
            break (hits, lines, counts);
        }
        edge_limit = edge_limit.saturating_mul(4);
    };
    let total_relations = hits.total_relations;
    let GraphHits { entities, relations, vector_chunks, scores, .. } = hits;
    let total_entities = entities.len();

    // §6.3 token truncation.
    // Each line is tokenized once; the counts also size the graph part of the context below.
    let mut entities = entities;
    let (entity_lines, entity_counts) = truncate_entities(inner, &mut entities, limits.max_entity_tokens);
    let (mut relations, mut relation_lines, mut relation_counts) = (relations, relation_lines, relation_counts);
    let keep = keep_by_counts(&relation_counts, limits.max_relation_tokens);
    relations.truncate(keep);
    relation_lines.truncate(keep);
    relation_counts.truncate(keep);

    // §6.4 chunk picking.
    let picked = pick_graph_chunks(store, &entities, &relations, &limits, vectors.query.as_deref()).await?;
    let picked_for_entities: HashSet<String> = picked.entity.iter().cloned().collect();
    // §6.5 round-robin merge: vector, entity, relation (or their reciprocal-rank fusion with the
    // lexical channels of chunks and of entities). Only the chunks that can survive the `chunk_top_k` cut are read.
    let merged_ids = match limits.fusion {
        ChunkFusion::RoundRobin => round_robin(vec![vector_chunks, picked.entity, picked.relation], Clone::clone),
        ChunkFusion::Rrf => {
            let (lexical, entity_text) = futures::try_join!(
                fusion::lexical_chunks(store, query, &keywords.low_level, limits.chunk_top_k),
                fusion::entity_text_chunks(store, query, &keywords.low_level, limits.chunk_top_k),
            )?;
            fusion::reciprocal_rank_fusion(
                vec![vector_chunks, picked.entity, picked.relation, lexical, entity_text],
                limits.rrf_k,
                Clone::clone,
            )
        }
    };
    // reranking scores every merged chunk; otherwise only those within `chunk_top_k` are read
    let wanted = if rerank::active(inner, &limits) { merged_ids.len() } else { limits.chunk_top_k };
    let (merged, missing) = load_first(store, &merged_ids, wanted).await?;
    let merged_count = merged_ids.len() - missing;
    let merged = rerank::rerank_chunks(inner, query, merged, param, &limits, scope).await;

    let mut parts = ContextParts { entities: entity_lines, relations: relation_lines, ..ContextParts::default() };
    let available = graph_chunk_budget(inner, query, param, &limits, &entity_counts, &relation_counts);
    let (chunks, references) = finish_chunks(tokenizer, merged, limits.chunk_top_k, available, &mut parts);
    if entities.is_empty() && relations.is_empty() && chunks.is_empty() {
        return Ok(Retrieval::failed(mode, EMPTY_DATASET));
    }
    let context = graph_context(&parts);
    let records = RecordTraces {
        entities: entities.iter().enumerate().map(|(rank, e)| scores.entity(&e.name, rank)).collect(),
        relationships: relations.iter().enumerate().map(|(rank, r)| scores.relation(&r.key, rank)).collect(),
        chunks: chunks
            .iter()
            .enumerate()
            .map(|(rank, c)| scores.chunk(&c.chunk_id, rank, |id| picked_for_entities.contains(id)))
            .collect(),
    };
    let keywords = KeywordsInfo { high_level: keywords.high_level, low_level: keywords.low_level };
    let found = Found { entities: total_entities, relations: total_relations, merged_chunks: merged_count };
    let data = graph_data(mode.as_str(), keywords, &entities, &relations, chunks, references, found);
    Ok(Retrieval { data, context: Some(context), records })
}

/// What a knowledge-graph retrieval found before truncation.
pub(super) struct Found {
    /// Entities found.
    pub entities: usize,
    /// Relations found.
    pub relations: usize,
    /// Chunks after merging the chunk lists.
    pub merged_chunks: usize,
}

/// The `/query/data` result of a knowledge-graph retrieval (every graph mode and `ppr`): the kept
/// records, the reference list and LightRAG's processing counts.
pub(super) fn graph_data(
    mode: &str,
    keywords: KeywordsInfo,
    entities: &[Entity],
    relations: &[Relation],
    chunks: Vec<ChunkData>,
    references: Vec<super::result::Reference>,
    found: Found,
) -> QueryData {
    let processing_info = ProcessingInfo::Graph {
        total_entities_found: found.entities,
        total_relations_found: found.relations,
        entities_after_truncation: entities.len(),
        relations_after_truncation: relations.len(),
        merged_chunks_count: found.merged_chunks,
        final_chunks_count: chunks.len(),
    };
    QueryData {
        status: QueryStatus::Success,
        message: SUCCESS_MESSAGE.to_string(),
        data: DataSection::Retrieved(RetrievedData {
            entities: entities.iter().map(EntityData::from).collect(),
            relationships: relations.iter().map(RelationData::from).collect(),
            chunks,
            references,
        }),
        metadata: Metadata::Retrieval(RetrievalMetadata {
            query_mode: mode.to_string(),
            keywords,
            processing_info,
            auto: None,
            filter: None,
        }),
    }
}

/// Chunk ids picked for the entities and for the relations.
#[derive(Debug, Default)]
struct PickedIds {
    entity: Vec<String>,
    relation: Vec<String>,
}

/// §6.4: candidates per entity (then relation, minus the entities' picks), picked by similarity
/// to the query (VECTOR) or by linear-gradient polling (WEIGHT, also the fallback).
async fn pick_graph_chunks(
    store: &dyn RetrievalStore,
    entities: &[Entity],
    relations: &[Relation],
    limits: &Limits,
    query_vector: Option<&[f32]>,
) -> Result<PickedIds> {
    let none = chunks::HashSet::new();
    let entity_items = candidates(entities.iter().map(|e| e.source_ids.as_slice()), &none, false);
    // Every id a relation could pick, whatever the entities take (for one vector read).
    let relation_all = candidates(relations.iter().map(|r| r.source_ids.as_slice()), &none, true);
    let similarity = match (limits.pick_method, query_vector) {
        (ChunkPickMethod::Vector, Some(q)) => {
            let mut seen = chunks::HashSet::new();
            let ids: Vec<&str> = union_of(&entity_items)
                .into_iter()
                .chain(union_of(&relation_all))
                .filter(|id| seen.insert(*id))
                .collect();
            similarities(store, &ids, q).await
        }
        _ => chunks::HashMap::new(),
    };
    let pick = |items: &[Candidates<'_>]| -> Vec<String> {
        let by_vector = pick_by_vector(items, limits.related_chunk_number, &similarity);
        let picked =
            if by_vector.is_empty() { pick_by_weight(items, limits.related_chunk_number, 1) } else { by_vector };
        dedup_in_order(picked.into_iter().map(str::to_string))
    };
    let entity = pick(&entity_items);
    let taken: chunks::HashSet<&str> = entity.iter().map(String::as_str).collect();
    let relation_items = candidates(relations.iter().map(|r| r.source_ids.as_slice()), &taken, true);
    let relation = pick(&relation_items);
    Ok(PickedIds { entity, relation })
}

/// Cosine similarity of each chunk's stored vector to the query, scored by the store (chunks
/// without a vector are left out; a failed read leaves them all out, and the caller picks by
/// weight).
async fn similarities<'a>(store: &dyn RetrievalStore, ids: &[&'a str], query: &[f32]) -> chunks::HashMap<&'a str, f32> {
    if ids.is_empty() {
        return chunks::HashMap::new();
    }
    let keys: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    match store.similarities(VectorKind::Chunk, &keys, query).await {
        Ok(found) => ids.iter().zip(found).filter_map(|(id, s)| s.map(|s| (*id, s))).collect(),
        Err(e) => {
            tracing::warn!("scoring chunk vectors failed, picking chunks by weight instead: {}", ErrorChain(&e));
            chunks::HashMap::new()
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn kw(h: &[&str], l: &[&str]) -> Keywords {
        Keywords {
            high_level: h.iter().map(|s| s.to_string()).collect(),
            low_level: l.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn plans_follow_lightrag_including_the_fallthrough_quirk() {
        let both = kw(&["h"], &["l"]);
        let p = plan_for(QueryMode::Local, &both);
        assert!(p.local && !p.global && !p.vector_chunks);
        let p = plan_for(QueryMode::Global, &both);
        assert!(!p.local && p.global);
        let p = plan_for(QueryMode::Mix, &both);
        assert!(p.local && p.global && p.vector_chunks);
        // local without low-level keywords falls through to the hybrid branch: global search runs
        let p = plan_for(QueryMode::Local, &kw(&["h"], &[]));
        assert!(!p.local && p.global);
        let p = plan_for(QueryMode::Global, &kw(&[], &["l"]));
        assert!(p.local && !p.global);
        let p = plan_for(QueryMode::Hybrid, &kw(&[], &["l"]));
        assert!(p.local && !p.global && !p.vector_chunks);
    }
}
