//! The fused walk: `ppr` with `chunk_fusion` `rrf`, what the `auto` mode runs for a question
//! about particular things.
//!
//! No single channel wins everywhere. The walk finds the bridge passage of a two-hop question
//! that names its first hop (2WikiMultiHopQA); plain vector search finds passages that say what
//! the question means in other words, and lexical search those that share its rare words
//! (HotpotQA, MuSiQue), where the walk, which spreads from every name of a passage, dilutes
//! them. So the passages of each channel are fused by weighted reciprocal rank
//! ([`fusion::weighted_rank_fusion`], `PPR_FUSION_*_WEIGHT`): a passage two channels rank high
//! beats one that a single channel ranks first, and none is pushed out by a channel that missed
//! it.
//!
//! 1. **First hop**: the walk's passages ([`ppr::rank`]), the chunk vector index's hits for the
//!    question (the walk's dense seeds, no second search) and the chunk lexical index's hits for
//!    the question's words less stop words (BM25), fused.
//!    With `QUERY_DECOMPOSITION` and a chat model, each sub-question the model splits the
//!    question into brings its own vector and lexical hits as one more channel
//!    ([`super::decompose`]).
//! 2. **Second hop** ([`super::hop`], `PPR_HOP_WEIGHT`, 0 turns it off): the passages about the
//!    things the first `PPR_HOP_FROM` passages name, as a fourth channel; the four are fused
//!    again.
//!
//! The context is built as in `ppr` (the walk's entities and the relations among them, then the
//! fused passages).

use lightrag_ports::{Entity, RetrievalStore};

use super::decompose;
use super::fusion;
use super::param::{Limits, QueryMode, QueryParam};
use super::ppr::{self, Ranking};
use super::retrieve::{NO_RESULTS, Retrieval};
use crate::config::FusionWeights;
use crate::engine::Inner;
use crate::error::Result;
use crate::providers::usage_scope::UsageScope;

/// The first-hop channels fused with `weights`: walk, vectors, lexical (a channel with weight 0
/// is left out).
pub(crate) fn first_hop(
    walk: Vec<String>,
    vector: Vec<String>,
    lexical: Vec<String>,
    weights: &FusionWeights,
) -> Vec<(Vec<String>, f64)> {
    [(walk, weights.walk), (vector, weights.vector), (lexical, weights.lexical)]
        .into_iter()
        .filter(|(list, weight)| *weight > 0.0 && !list.is_empty())
        .collect()
}

/// Runs the fused walk (see the module's description).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn fused(
    inner: &Inner,
    store: &dyn RetrievalStore,
    query: &str,
    param: &QueryParam,
    limits: &Limits,
    query_vector: &[f32],
    named: Option<Vec<Entity>>,
    scope: &UsageScope,
) -> Result<Retrieval> {
    let cfg = &inner.config.query.ppr;
    let weights = cfg.fusion_weights;
    let depth = cfg.fusion_depth;
    let words = fusion::question_words(query);
    // only the first `depth` lexical hits are fused: more would be ranked for nothing
    let lexical_k = depth.min(limits.chunk_top_k);
    let lexical_search = async {
        if weights.lexical > 0.0 {
            Ok::<_, crate::error::EngineError>(store.search_chunk_text(&words, lexical_k).await?)
        } else {
            Ok(Vec::new())
        }
    };
    // the sub-questions' searches (when decomposition is on) run beside the walk
    let sub_questions = async {
        let subs = decompose::sub_questions(inner, query, param.mode, scope).await;
        decompose::channels(inner, store, &subs, limits, scope).await
    };
    let (ranking, lexical, subs) =
        futures::try_join!(ppr::rank(inner, store, query, query_vector, limits, named), lexical_search, sub_questions)?;
    let ranking: Ranking = ranking.unwrap_or_default();
    let walk: Vec<String> = ranking.chunks.iter().take(limits.chunk_top_k).cloned().collect();
    let lexical: Vec<String> = lexical.into_iter().take(depth).map(|h| h.key).collect();
    let dense: Vec<String> = ranking.dense.iter().take(depth).cloned().collect();
    let mut channels = first_hop(walk, dense, lexical, &weights);
    channels.extend(subs.into_iter().map(|list| (list, decompose::SUB_QUESTION_WEIGHT)));
    let mut ids = fusion::weighted_rank_fusion(channels.clone(), cfg.fusion_k, Clone::clone);
    if weights.hop > 0.0 && !ids.is_empty() {
        let from = &ids[..cfg.hop_from.min(ids.len())];
        let hop = super::hop::second_hop(store, from, &ranking.named, query_vector, depth).await?;
        if !hop.is_empty() {
            channels.push((hop, weights.hop));
            ids = fusion::weighted_rank_fusion(channels, cfg.fusion_k, Clone::clone);
        }
    }
    if ids.is_empty() {
        return Ok(Retrieval::failed(QueryMode::Ppr, NO_RESULTS));
    }
    ids.truncate(limits.chunk_top_k);
    ppr::finish(inner, store, query, param, limits, &ranking, ids).await
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn first_hop_leaves_out_channels_without_weight_or_hits() {
        let weights = FusionWeights { walk: 2.0, vector: 0.0, lexical: 1.0, hop: 1.0 };
        let channels = first_hop(ids(&["w"]), ids(&["v"]), Vec::new(), &weights);
        assert_eq!(channels, vec![(ids(&["w"]), 2.0)]);
        let weights = FusionWeights { walk: 1.0, vector: 1.0, lexical: 1.0, hop: 0.0 };
        let channels = first_hop(ids(&["w"]), ids(&["v"]), ids(&["l"]), &weights);
        assert_eq!(channels.len(), 3);
    }
}
