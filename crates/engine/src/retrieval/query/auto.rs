//! The `auto` mode (the default when a query names no mode): reads the question, picks the
//! retrieval that suits it, and says why in the result's metadata (`metadata.auto`).
//!
//! The question is analysed without an LLM, in a few milliseconds:
//!
//! * **Named entities**: runs of its words that are entity names of the graph (the lookup of
//!   `ppr`, with each word also capitalised: "lothair ii" finds "Lothair II").
//! * **Question type**: a broad question ("What are the main themes…", "Summarize…", "overall",
//!   "trends") asks about the whole corpus; another one asks about particular things.
//!
//! The choice, in order:
//!
//! 1. The question names entities of the graph → **`ppr` with `chunk_fusion` `rrf`**, the fused
//!    walk ([`super::fused`]): the walk from the named entities reaches the passages one and two
//!    hops away — the bridge passage of a multi-hop question that no single search finds — and
//!    its passages are fused with those of vector search, lexical search (BM25 over the
//!    question's words) and a second hop from the first passages' entities, so that a passage
//!    the question describes rather than names is not lost (BENCHMARKS.md, "Retrieval on three
//!    multi-hop sets").
//! 2. A broad question that names no entity → **`hybrid`** with reciprocal-rank fusion:
//!    relations found by its high-level keywords carry the corpus-wide picture.
//! 3. A question with names that are not entities of the graph (capitalised words after the
//!    first, numbers: "Back In The U.S.A.") → the fused walk too: the walk starts from the
//!    passages the lexical and vector indexes find for them.
//! 4. Otherwise → **`mix`** with reciprocal-rank fusion of chunk vectors, entity and relation
//!    chunks and the lexical index.
//!
//! A query that names a mode gets that mode's algorithm unchanged; `auto` only ever runs one of
//! them, with fusion turned on unless the query sets `chunk_fusion` itself (`round_robin` gives
//! the walk alone).

use lightrag_ports::{Entity, RetrievalStore};
use serde::{Deserialize, Serialize};

use super::fusion::written_names;
use super::param::{QueryMode, QueryParam};
use super::ppr::named_entities;
use crate::config::ChunkFusion;
use crate::error::Result;

/// Most entity names listed in a choice's reason.
const NAMES_SHOWN: usize = 5;

/// Phrases that make a question broad: it asks about the corpus as a whole rather than about
/// particular things (matched on the lower-cased question, at word boundaries).
const BROAD_MARKERS: &[&str] = &[
    "main themes",
    "main theme",
    "main ideas",
    "main topics",
    "key themes",
    "key ideas",
    "key points",
    "themes",
    "summarize",
    "summarise",
    "summary of",
    "overview",
    "overall",
    "in general",
    "trends",
    "recurring",
    "common patterns",
    "what is the corpus about",
    "what are these documents about",
];

/// What `auto` chose and why (shown as `metadata.auto`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoChoice {
    /// The mode run.
    pub mode: QueryMode,
    /// How its chunk lists were merged.
    pub chunk_fusion: ChunkFusion,
    /// Why, in words.
    pub reason: String,
    /// The entities of the graph that the question names.
    pub named_entities: Vec<String>,
}

/// Whether the question asks about the corpus as a whole (see [`BROAD_MARKERS`]).
pub fn is_broad_question(question: &str) -> bool {
    let lower = question.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let padded = format!(" {} ", words.join(" "));
    BROAD_MARKERS.iter().any(|m| padded.contains(&format!(" {m} ")))
}

/// The choice for a question, given the graph entities it names.
pub fn choose_for(question: &str, named: Vec<String>, fusion: Option<ChunkFusion>) -> AutoChoice {
    let fused = fusion.unwrap_or(ChunkFusion::Rrf);
    if !named.is_empty() {
        let mut shown: Vec<&str> = named.iter().take(NAMES_SHOWN).map(String::as_str).collect();
        if named.len() > NAMES_SHOWN {
            shown.push("…");
        }
        let reason = format!(
            "the question names {} entit{} of the graph ({}): a walk from them reaches their passages and the ones they lead to, fused with vector and lexical search",
            named.len(),
            if named.len() == 1 { "y" } else { "ies" },
            shown.join(", ")
        );
        // the walk's passages fused with vector and lexical search and the second hop
        return AutoChoice { mode: QueryMode::Ppr, chunk_fusion: fused, reason, named_entities: named };
    }
    if is_broad_question(question) {
        return AutoChoice {
            mode: QueryMode::Hybrid,
            chunk_fusion: fused,
            reason: "a broad question that names no entity of the graph: relations and entities found by its keywords"
                .to_string(),
            named_entities: Vec::new(),
        };
    }
    let names = written_names(question);
    if !names.is_empty() {
        let reason = format!(
            "the question names {} (not entities of the graph): a walk from the passages that mention them",
            names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
        );
        return AutoChoice { mode: QueryMode::Ppr, chunk_fusion: fused, reason, named_entities: Vec::new() };
    }
    AutoChoice {
        mode: QueryMode::Mix,
        chunk_fusion: fused,
        reason: "the question names no entity of the graph: chunk vectors, graph and lexical channels, fused"
            .to_string(),
        named_entities: Vec::new(),
    }
}

/// What `auto` decided: the choice, the parameters to run it with, and the entities the
/// question names (so that `ppr` does not look them up again).
pub(crate) struct Decision {
    pub choice: AutoChoice,
    pub param: QueryParam,
    pub named: Vec<Entity>,
}

/// Analyses the question and decides.
pub(crate) async fn choose(store: &dyn RetrievalStore, question: &str, param: &QueryParam) -> Result<Decision> {
    let named = named_entities(store, question).await?;
    let choice = choose_for(question, named.iter().map(|e| e.name.clone()).collect(), param.chunk_fusion);
    let param = QueryParam { mode: choice.mode, chunk_fusion: Some(choice.chunk_fusion), ..param.clone() };
    Ok(Decision { choice, param, named })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_question_naming_entities_walks_the_graph() {
        let c = choose_for(
            "Who is the mother of the director of film Polish-Russian War?",
            vec!["Xawery Żuławski".into()],
            None,
        );
        assert_eq!((c.mode, c.chunk_fusion), (QueryMode::Ppr, ChunkFusion::Rrf));
        assert!(c.reason.contains("1 entity") && c.reason.contains("Xawery Żuławski"), "{}", c.reason);
        // a query that asks for round-robin gets the walk alone
        let c = choose_for(
            "Who is the mother of Xawery Żuławski?",
            vec!["Xawery Żuławski".into()],
            Some(ChunkFusion::RoundRobin),
        );
        assert_eq!((c.mode, c.chunk_fusion), (QueryMode::Ppr, ChunkFusion::RoundRobin));
        let many: Vec<String> = (0..7).map(|i| format!("E{i}")).collect();
        let c = choose_for("Compare them", many, None);
        assert!(c.reason.contains("7 entities") && c.reason.contains("…") && !c.reason.contains("E6"), "{}", c.reason);
    }

    #[test]
    fn a_broad_question_goes_hybrid_with_fusion() {
        for q in [
            "What are the main themes of these speeches?",
            "Summarize the documents",
            "How did the overall tone change?",
            "What trends recur across the addresses?",
        ] {
            let c = choose_for(q, Vec::new(), None);
            assert_eq!((c.mode, c.chunk_fusion), (QueryMode::Hybrid, ChunkFusion::Rrf), "{q}");
        }
    }

    #[test]
    fn names_the_graph_lacks_still_walk() {
        let c = choose_for("Where was the composer of song Back In The U.S.A. born?", Vec::new(), None);
        assert_eq!((c.mode, c.chunk_fusion), (QueryMode::Ppr, ChunkFusion::Rrf));
        assert!(c.reason.contains("\"Back In The U.S.A\""), "{}", c.reason);
        assert!(c.named_entities.is_empty());
    }

    #[test]
    fn other_questions_use_mix_with_fusion_unless_the_query_says() {
        let c = choose_for("Where was the treaty signed?", Vec::new(), None);
        assert_eq!((c.mode, c.chunk_fusion), (QueryMode::Mix, ChunkFusion::Rrf));
        let c = choose_for("Where was the treaty signed?", Vec::new(), Some(ChunkFusion::RoundRobin));
        assert_eq!(c.chunk_fusion, ChunkFusion::RoundRobin);
        // markers match whole words only: "overalls" is not "overall"
        assert!(!is_broad_question("Who sold the overalls?"));
        assert!(is_broad_question("Give me an OVERVIEW."));
    }
}
