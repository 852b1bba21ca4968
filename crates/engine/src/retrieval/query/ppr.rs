//! The `ppr` query mode: passages ranked by a personalized PageRank over entities and passages
//! (HippoRAG 2's design), for questions whose answer needs several passages.
//!
//! 1. **Seeds.** The question is embedded once. Entities seed the walk when the entity index
//!    finds them close to the question, when the entity lexical index (BM25 over names and
//!    descriptions) finds them for the question's name words (`PPR_NAME_TEXT_WEIGHT`: "King
//!    Dikkha" finds "Min Dikkha", a name the embedder places elsewhere), and — with full weight —
//!    when the question names them (every run of up to six of its words is looked up as an
//!    entity name). An entity's seed weight is divided by the number of chunks that mention it to
//!    the power `PPR_SPECIFICITY`, so that a specific name counts for more than "United States". The passages closest to the
//!    question seed the walk too, with `PPR_PASSAGE_SHARE` of the total weight, and — with
//!    `PPR_LEXICAL_SHARE`, most of it — the passages that hold a name the question gives whole
//!    (`fusion::name_passages`: "Palo Alto (2013 Film)" finds the film's passage, not every
//!    passage that says "film"). They catch names no entity was extracted for, and a passage
//!    that contains the whole name is the surest evidence a question offers.
//! 2. **The graph.** Starting from the seeds, the best-scoring nodes not yet expanded are expanded
//!    `PPR_ROUNDS` times, `PPR_EXPAND` at a time: an entity brings the first `PPR_ENTITY_CHUNKS`
//!    chunks that mention it and — unless those fill the page, a common entity whose relations
//!    lead everywhere — its `PPR_ENTITY_RELATIONS` best relations (edges of weight
//!    `PPR_RELATION_WEIGHT`, against 1 for entity–chunk edges), a chunk the entities it mentions.
//!    Three rounds reach a bridge entity's passage: question entity → its passage → the bridge
//!    entity named there → the bridge's passage. An expanded entity is also linked (weight 1) to
//!    the entities named by the other written forms of its name (`lightrag_nlp::name_variants`:
//!    "King Dikkha" → "Dikkha", "Lothair Ii" → "Lothair II").
//! 3. **The walk.** Personalized PageRank with continuation probability `PPR_DAMPING` ([`walk`]),
//!    optionally steered towards the entities that resemble the question (`PPR_QUERY_FOCUS`);
//!    chunks are ranked by their score (optionally divided by their entity count to the power
//!    `PPR_DEGREE_DAMPING`), entities too. An expanded passage's edge to an entity weighs more
//!    when a cue word of the question stands near the entity's mention there ([`cues`],
//!    `PPR_CUE_WEIGHT`): the walk follows "directed by X" when the question asks for a director.
//!
//! The settings and their defaults: [`crate::config::PprConfig`].
//!
//! The context has LightRAG's layout (entities, relations among them, chunks) under the same
//! token budgets, so answers are written from it as in the other graph modes.

mod cues;
mod walk;

use std::collections::{HashMap, HashSet};

use futures::TryFutureExt;
use lightrag_ports::{Chunk, Entity, GraphKey, ListRange, RetrievalStore, TextKind, VectorKind};

use super::context::{ContextParts, graph_context, relation_line};
use super::param::{Limits, QueryMode, QueryParam};
use super::result::KeywordsInfo;
use super::retrieve::{
    EMPTY_DATASET, Found, NO_RESULTS, Retrieval, count_until, finish_chunks, graph_chunk_budget, graph_data,
    keep_by_counts, truncate_entities,
};
use super::trace::{HitScores, RecordTraces};
use crate::config::PprConfig;
use crate::engine::Inner;
use crate::error::Result;
use crate::providers::gateway::EmbedCall;
use crate::providers::limiter::Priority;
use crate::providers::usage_scope::UsageScope;
use walk::{NodeKey, WalkGraph};

/// Longest run of question words looked up as an entity name.
const MAX_NAME_WORDS: usize = 6;
/// A named entity mentioned in more chunks than this is common: the lexical channel skips its
/// name.
const COMMON_NAME_CHUNKS: usize = 50;
/// Entity-index hits used as seeds (at most; fewer when `top_k` is smaller).
const ENTITY_SEEDS: usize = 20;

/// Runs the mode. `named`: the entities the question names when the caller has looked them up
/// already (the `auto` mode has), else they are looked up here. With `chunk_fusion` `rrf` the
/// walk's passages are fused with the other channels ([`super::fused`]).
pub(crate) async fn ppr(
    inner: &Inner,
    store: &dyn RetrievalStore,
    query: &str,
    param: &QueryParam,
    scope: &UsageScope,
    named: Option<Vec<Entity>>,
) -> Result<Retrieval> {
    let limits = Limits::resolve(param, &inner.config);
    let vectors = inner
        .gateway
        .embed(EmbedCall::new(&[query.to_string()], TextKind::Query, Priority::Query).scoped(scope))
        .await?;
    let Some(query_vector) = vectors.into_iter().next() else {
        return Ok(Retrieval::failed(QueryMode::Ppr, NO_RESULTS));
    };
    if limits.fusion == crate::config::ChunkFusion::Rrf {
        return super::fused::fused(inner, store, query, param, &limits, &query_vector, named, scope).await;
    }
    let Some(ranking) = rank(inner, store, query, &query_vector, &limits, named).await? else {
        return Ok(Retrieval::failed(QueryMode::Ppr, NO_RESULTS));
    };
    let chunk_ids: Vec<String> = ranking.chunks.iter().take(limits.chunk_top_k).cloned().collect();
    finish(inner, store, query, param, &limits, &ranking, chunk_ids).await
}

/// What the walk found: passages and entities best first, with their walk scores, and the
/// passages the chunk vector index found closest to the question (a walk seed).
#[derive(Debug, Default)]
pub(crate) struct Ranking {
    /// Every passage the walk reached, best first.
    pub chunks: Vec<String>,
    /// The best `top_k` entities.
    pub entities: Vec<String>,
    /// Walk scores of the passages and entities.
    pub chunk_scores: HashMap<String, f32>,
    pub entity_scores: HashMap<String, f32>,
    /// The chunk vector index's hits for the question, best first, and their similarities.
    pub dense: Vec<String>,
    pub vector_scores: HashMap<String, f32>,
    /// The entities the question names.
    pub named: Vec<String>,
}

/// The walk: seeds, graph, personalized PageRank (steps 1–3 of the module's description).
/// `None` when nothing seeds it.
pub(crate) async fn rank(
    inner: &Inner,
    store: &dyn RetrievalStore,
    query: &str,
    query_vector: &[f32],
    limits: &Limits,
    named: Option<Vec<Entity>>,
) -> Result<Option<Ranking>> {
    let cfg = &inner.config.query.ppr;
    // seeds: the named entities first (one read), then the three searches at once
    let named_records = match named {
        Some(records) => records,
        None => named_entities(store, query).await?,
    };
    // a name the graph finds in many passages singles none out: its lexical search would be
    // slow and add nothing the entity seed does not
    let common: HashSet<String> =
        named_records.iter().filter(|e| e.chunk_count > COMMON_NAME_CHUNKS).map(|e| e.name.to_lowercase()).collect();
    let named: Vec<String> = named_records.into_iter().map(|e| e.name).collect();
    let entity_search =
        store.search_vectors(VectorKind::Entity, query_vector, limits.top_k.min(ENTITY_SEEDS), limits.cosine_threshold);
    let passage_search =
        store.search_vectors(VectorKind::Chunk, query_vector, limits.chunk_top_k, limits.cosine_threshold);
    let lexical_search = async {
        if cfg.whole_names {
            super::fusion::name_passages(store, query, limits.chunk_top_k, &common).await
        } else {
            Ok(store.search_chunk_text(&super::fusion::name_words(query), limits.chunk_top_k).await?)
        }
    };
    let name_text_search = async {
        if cfg.name_text_weight > 0.0 {
            store.search_entity_text(&super::fusion::name_words(query), limits.top_k.min(ENTITY_SEEDS)).await
        } else {
            Ok(Vec::new())
        }
    };
    let (entity_hits, passage_hits, lexical_hits, name_text_hits) = futures::try_join!(
        entity_search.err_into(),
        passage_search.err_into(),
        lexical_search,
        name_text_search.err_into()
    )?;
    let mut entity_scores: HashMap<String, f64> = HashMap::new();
    for hit in &entity_hits {
        let slot = entity_scores.entry(hit.key.clone()).or_insert(0.0);
        *slot = slot.max(cfg.similar_entity_weight * f64::from(hit.score));
    }
    let best_text = name_text_hits.iter().map(|h| f64::from(h.score)).fold(0.0, f64::max);
    if best_text > 0.0 {
        for hit in &name_text_hits {
            let slot = entity_scores.entry(hit.key.clone()).or_insert(0.0);
            *slot = slot.max(cfg.name_text_weight * f64::from(hit.score.max(0.0)) / best_text);
        }
    }
    for name in &named {
        entity_scores.insert(name.clone(), 1.0);
    }
    let mut seed_names: Vec<String> = entity_scores.keys().cloned().collect();
    seed_names.sort();
    let seed_entities: Vec<Entity> = store.get_entities(&seed_names).await?.into_iter().flatten().collect();

    // three groups of seeds, each normalised, then weighted by its share (a group that found
    // nothing gives its share to the others)
    let entity_seeds: Vec<(NodeKey, f64)> = seed_entities
        .iter()
        .map(|e| {
            let weight = entity_scores.get(&e.name).copied().unwrap_or(0.0)
                / specificity_divisor(e.chunk_count, cfg.specificity);
            (NodeKey::Entity(e.name.clone()), weight)
        })
        .collect();
    let dense_seeds: Vec<(NodeKey, f64)> =
        passage_hits.iter().map(|h| (NodeKey::Chunk(h.key.clone()), f64::from(h.score.max(0.0)))).collect();
    let lexical_seeds: Vec<(NodeKey, f64)> =
        lexical_hits.iter().map(|h| (NodeKey::Chunk(h.key.clone()), f64::from(h.score.max(0.0)))).collect();
    let groups = [
        (entity_seeds, (1.0 - cfg.passage_share - cfg.lexical_share).max(0.0)),
        (dense_seeds, cfg.passage_share),
        (lexical_seeds, cfg.lexical_share),
    ];
    let total_of = |seeds: &[(NodeKey, f64)]| seeds.iter().map(|(_, w)| *w).sum::<f64>();
    let share_sum: f64 = groups.iter().filter(|(seeds, _)| total_of(seeds) > 0.0).map(|(_, share)| share).sum();
    if share_sum <= 0.0 {
        return Ok(None);
    }
    let mut graph = WalkGraph::default();
    let mut seeds: Vec<(usize, f64)> = Vec::new();
    for (group, share) in groups {
        let total = total_of(&group);
        if total <= 0.0 {
            continue;
        }
        for (key, weight) in group {
            let node = graph.node(key);
            seeds.push((node, share / share_sum * weight / total));
        }
    }

    // the graph, grown where the walk goes
    let cue_stems = if cfg.cue_weight > 0.0 { cues::cue_stems(query) } else { Vec::new() };
    let mut expanded: HashSet<usize> = HashSet::new();
    let mut focused: HashSet<usize> = HashSet::new();
    focus(store, cfg, &mut graph, &mut focused, query_vector).await?;
    for _ in 0..cfg.rounds {
        // only the order of the best nodes matters here: a rougher walk will do
        let scores = graph.personalized_pagerank(&seeds, cfg.damping, 20, 1e-3);
        let mut order: Vec<usize> = (0..graph.len()).filter(|i| !expanded.contains(i)).collect();
        order.sort_by(|a, b| scores[*b].total_cmp(&scores[*a]).then(a.cmp(b)));
        order.truncate(cfg.expand);
        if order.is_empty() {
            break;
        }
        expanded.extend(order.iter().copied());
        expand(store, cfg, &mut graph, &order, &cue_stems).await?;
        focus(store, cfg, &mut graph, &mut focused, query_vector).await?;
    }
    let scores = graph.personalized_pagerank(&seeds, cfg.damping, 100, 1e-6);

    // ranked chunks and entities
    let mut chunk_rank: Vec<(usize, f64)> = Vec::new();
    let mut entity_rank: Vec<(usize, f64)> = Vec::new();
    for (i, &s) in scores.iter().enumerate() {
        match graph.key(i) {
            NodeKey::Chunk(_) => {
                let degree = graph.degree(i).max(1) as f64;
                chunk_rank.push((i, s / degree.powf(cfg.degree_damping)));
            }
            NodeKey::Entity(_) => entity_rank.push((i, s)),
        }
    }
    let by_score = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    chunk_rank.sort_by(by_score);
    entity_rank.sort_by(by_score);
    let mut ranking = Ranking {
        dense: passage_hits.iter().map(|h| h.key.clone()).collect(),
        vector_scores: passage_hits.iter().map(|h| (h.key.clone(), h.score)).collect(),
        named,
        ..Ranking::default()
    };
    for (i, _) in chunk_rank {
        if let NodeKey::Chunk(id) = graph.key(i) {
            ranking.chunk_scores.insert(id.clone(), scores[i] as f32);
            ranking.chunks.push(id.clone());
        }
    }
    for (i, _) in entity_rank.into_iter().take(limits.top_k) {
        if let NodeKey::Entity(name) = graph.key(i) {
            ranking.entity_scores.insert(name.clone(), scores[i] as f32);
            ranking.entities.push(name.clone());
        }
    }
    Ok(Some(ranking))
}

/// Reads the passages `chunk_ids` (in that order), the ranking's entities and the relations among
/// them, and builds the query data and context.
pub(crate) async fn finish(
    inner: &Inner,
    store: &dyn RetrievalStore,
    query: &str,
    param: &QueryParam,
    limits: &Limits,
    ranking: &Ranking,
    chunk_ids: Vec<String>,
) -> Result<Retrieval> {
    let entity_names = &ranking.entities;
    let chunks: Vec<Chunk> = store.get_chunks(&chunk_ids).await?.into_iter().flatten().collect();
    let entities: Vec<Entity> = store.get_entities(entity_names).await?.into_iter().flatten().collect();
    let mut relations = store.relations_among(entity_names).await?;
    let position: HashMap<&str, usize> = entity_names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    // relations between the best entities first
    relations.sort_by_key(|r| {
        let a = position.get(r.key.src.as_str()).copied().unwrap_or(usize::MAX);
        let b = position.get(r.key.tgt.as_str()).copied().unwrap_or(usize::MAX);
        (a.max(b), a.min(b))
    });
    assemble(inner, query, param, limits, entities, relations, chunks, ranking)
}

/// `chunk_count`^`exponent` (`chunk_count` at least 1): what a seed entity's weight is divided by.
fn specificity_divisor(chunk_count: usize, exponent: f64) -> f64 {
    (chunk_count.max(1) as f64).powf(exponent)
}

/// The entities the question names: every run of up to [`MAX_NAME_WORDS`] words, as written and
/// with each word capitalised, that is an entity name.
pub(crate) async fn named_entities(store: &dyn RetrievalStore, query: &str) -> Result<Vec<Entity>> {
    let words: Vec<String> = query
        .split_whitespace()
        .map(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '\'' && c != '-');
            let w = w.strip_suffix("'s").or_else(|| w.strip_suffix("\u{2019}s")).unwrap_or(w);
            w.trim_end_matches(['.', '\'', '-']).to_string()
        })
        .collect();
    let mut candidates: Vec<String> = Vec::new();
    for start in 0..words.len() {
        for end in start + 1..=(start + MAX_NAME_WORDS).min(words.len()) {
            let run = &words[start..end];
            if run.iter().any(String::is_empty) {
                break;
            }
            if run
                .iter()
                .all(|w| w.chars().all(|c| c.is_ascii_digit()) || lightrag_nlp::is_stop_word(&w.to_lowercase()))
            {
                continue;
            }
            let text = run.join(" ");
            // a single lower-case word is a common noun ("film"), not a name the question gives
            let capitalised = (run.len() > 1).then(|| run.iter().map(|w| capitalise(w)).collect::<Vec<_>>().join(" "));
            for c in std::iter::once(text).chain(capitalised) {
                if !candidates.contains(&c) {
                    candidates.push(c);
                }
            }
        }
    }
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    Ok(store.get_entities(&candidates).await?.into_iter().flatten().collect())
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Weighs the entity nodes not weighed yet by their similarity to the question (see
/// `PPR_QUERY_FOCUS`).
async fn focus(
    store: &dyn RetrievalStore,
    cfg: &PprConfig,
    graph: &mut WalkGraph,
    done: &mut HashSet<usize>,
    query_vector: &[f32],
) -> Result<()> {
    if cfg.query_focus == 0.0 {
        return Ok(());
    }
    let mut nodes = Vec::new();
    let mut names = Vec::new();
    for i in 0..graph.len() {
        if let NodeKey::Entity(name) = graph.key(i)
            && done.insert(i)
        {
            nodes.push(i);
            names.push(name.clone());
        }
    }
    if names.is_empty() {
        return Ok(());
    }
    let similarities = store.similarities(VectorKind::Entity, &names, query_vector).await?;
    for (i, similarity) in nodes.into_iter().zip(similarities) {
        graph.set_weight(i, (cfg.query_focus * f64::from(similarity.unwrap_or(0.0))).exp());
    }
    Ok(())
}

/// Adds the neighbours of `nodes` to the graph: an entity's first chunks and best relations, a
/// chunk's entities.
async fn expand(
    store: &dyn RetrievalStore,
    cfg: &PprConfig,
    graph: &mut WalkGraph,
    nodes: &[usize],
    cue_stems: &[String],
) -> Result<()> {
    let mut entities: Vec<String> = Vec::new();
    let mut chunks: Vec<String> = Vec::new();
    for &i in nodes {
        match graph.key(i) {
            NodeKey::Entity(name) => entities.push(name.clone()),
            NodeKey::Chunk(id) => chunks.push(id.clone()),
        }
    }
    let range = ListRange { from_end: false, offset: 0, limit: cfg.entity_chunks };
    let owners: Vec<GraphKey> = entities.iter().map(|name| GraphKey::Entity(name.clone())).collect();
    let lists = store.chunk_lists(&owners, range).await?;
    // an entity whose chunk list fills the page is common ("United States"): its relations lead
    // everywhere, and ranking them visits every edge of a hub — only the others' are read
    let mut specific: Vec<&String> = Vec::new();
    for (name, list) in entities.iter().zip(lists) {
        if list.len() < cfg.entity_chunks {
            specific.push(name);
        }
        let e = graph.node(NodeKey::Entity(name.clone()));
        for id in list {
            let c = graph.node(NodeKey::Chunk(id));
            graph.connect(e, c, 1.0);
        }
    }
    // other written forms of an expanded entity's name that the graph also holds ("King Dikkha"
    // in one passage, "Dikkha" in another) denote the same thing: linked like a mention
    let variants: Vec<(String, String)> = entities
        .iter()
        .flat_map(|name| lightrag_nlp::name_variants(name).into_iter().map(move |v| (name.clone(), v)))
        .collect();
    let variant_names: Vec<String> = variants.iter().map(|(_, v)| v.clone()).collect();
    let (related, found_variants) = futures::try_join!(
        futures::future::try_join_all(
            specific.iter().map(|name| store.ranked_relations_of(std::slice::from_ref(*name), cfg.entity_relations)),
        ),
        store.get_entities(&variant_names),
    )?;
    for ((name, variant), found) in variants.into_iter().zip(found_variants) {
        if found.is_some() {
            let a = graph.node(NodeKey::Entity(name));
            let b = graph.node(NodeKey::Entity(variant));
            graph.connect(a, b, 1.0);
        }
    }
    for ranked in related {
        for r in ranked.relations {
            let a = graph.node(NodeKey::Entity(r.key.src.clone()));
            let b = graph.node(NodeKey::Entity(r.key.tgt.clone()));
            graph.connect(a, b, cfg.relation_weight);
        }
    }
    if !chunks.is_empty() {
        // the expanded passages' texts, to weigh their entities by the question's cues
        let texts: HashMap<String, String> = if cue_stems.is_empty() {
            HashMap::new()
        } else {
            store.get_chunks(&chunks).await?.into_iter().flatten().map(|c| (c.id, c.content)).collect()
        };
        for (chunk, owner) in store.chunk_owners(&chunks).await? {
            if let GraphKey::Entity(name) = owner {
                let near = texts.get(&chunk).map_or(0, |t| cues::cues_near(t, &name, cue_stems, cues::CUE_WINDOW));
                let c = graph.node(NodeKey::Chunk(chunk));
                let e = graph.node(NodeKey::Entity(name));
                graph.connect(c, e, 1.0 + cfg.cue_weight * near as f64);
            }
        }
    }
    Ok(())
}

/// The query data and context of the ranked records, under the token budgets.
#[allow(clippy::too_many_arguments)]
fn assemble(
    inner: &Inner,
    query: &str,
    param: &QueryParam,
    limits: &Limits,
    entities: Vec<Entity>,
    relations: Vec<lightrag_ports::Relation>,
    chunks: Vec<Chunk>,
    ranking: &Ranking,
) -> Result<Retrieval> {
    let tokenizer = &*inner.tokenizer;
    let (total_entities, total_relations, total_chunks) = (entities.len(), relations.len(), chunks.len());
    let mut entities = entities;
    let (entity_lines, entity_counts) = truncate_entities(inner, &mut entities, limits.max_entity_tokens);
    let mut relations = relations;
    let mut relation_lines: Vec<String> =
        relations.iter().map(|r| relation_line(&r.key.src, &r.key.tgt, &r.description)).collect();
    let mut relation_counts = count_until(inner, &relation_lines, limits.max_relation_tokens);
    let keep = keep_by_counts(&relation_counts, limits.max_relation_tokens);
    relations.truncate(keep);
    relation_lines.truncate(keep);
    relation_counts.truncate(keep);

    let mut parts = ContextParts { entities: entity_lines, relations: relation_lines, ..ContextParts::default() };
    let available = graph_chunk_budget(inner, query, param, limits, &entity_counts, &relation_counts);
    let (chunks, references) = finish_chunks(tokenizer, chunks, limits.chunk_top_k, available, &mut parts);
    if entities.is_empty() && relations.is_empty() && chunks.is_empty() {
        return Ok(Retrieval::failed(QueryMode::Ppr, EMPTY_DATASET));
    }
    // the trace shows each record's walk score; chunks that the chunk index also found count as
    // vector hits, the others as reached through entities
    let scores = HitScores {
        entities: entities
            .iter()
            .filter_map(|e| ranking.entity_scores.get(&e.name).map(|s| (e.name.clone(), *s)))
            .collect(),
        relations: HashMap::new(),
        chunks: chunks
            .iter()
            .filter(|c| ranking.vector_scores.contains_key(&c.chunk_id))
            .filter_map(|c| ranking.chunk_scores.get(&c.chunk_id).map(|s| (c.chunk_id.clone(), *s)))
            .collect(),
    };
    let records = RecordTraces {
        entities: entities.iter().enumerate().map(|(rank, e)| scores.entity(&e.name, rank)).collect(),
        relationships: relations.iter().enumerate().map(|(rank, r)| scores.relation(&r.key, rank)).collect(),
        chunks: chunks.iter().enumerate().map(|(rank, c)| scores.chunk(&c.chunk_id, rank, |_| true)).collect(),
    };
    let found = Found { entities: total_entities, relations: total_relations, merged_chunks: total_chunks };
    let data =
        graph_data(QueryMode::Ppr.as_str(), KeywordsInfo::default(), &entities, &relations, chunks, references, found);
    Ok(Retrieval { data, context: Some(graph_context(&parts)), records })
}
