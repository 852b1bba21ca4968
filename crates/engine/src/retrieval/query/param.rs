//! The query request: [`QueryMode`] and [`QueryParam`] (LightRAG's `QueryParam`), and the
//! settings of one query once the engine's defaults are filled in.

use std::fmt;
use std::str::FromStr;

use lightrag_ports::ChatMessage;
use serde::{Deserialize, Serialize};

use super::filter::QueryFilter;
use crate::config::{ChunkFusion, ChunkPickMethod, EngineConfig};

/// How a query retrieves its context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryMode {
    /// Entities found by low-level keywords, and their relations.
    Local,
    /// Relations found by high-level keywords, and their endpoints.
    Global,
    /// Local and global, interleaved.
    Hybrid,
    /// Plain vector search over chunks.
    Naive,
    /// Hybrid plus vector search over chunks (LightRAG's default).
    Mix,
    /// No retrieval: the question goes straight to the LLM.
    Bypass,
    /// Passages ranked by a personalized PageRank over entities and passages, for questions that
    /// need several passages (not a LightRAG mode; see `query::ppr`).
    Ppr,
    /// Reads the question and runs the mode that suits it (the default; not a LightRAG mode; see
    /// `query::auto`).
    #[default]
    Auto,
}

impl QueryMode {
    /// Every mode.
    pub const ALL: [QueryMode; 8] = [
        QueryMode::Local,
        QueryMode::Global,
        QueryMode::Hybrid,
        QueryMode::Naive,
        QueryMode::Mix,
        QueryMode::Bypass,
        QueryMode::Ppr,
        QueryMode::Auto,
    ];

    /// The lowercase name (`local`, `global`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            QueryMode::Local => "local",
            QueryMode::Global => "global",
            QueryMode::Hybrid => "hybrid",
            QueryMode::Naive => "naive",
            QueryMode::Mix => "mix",
            QueryMode::Bypass => "bypass",
            QueryMode::Ppr => "ppr",
            QueryMode::Auto => "auto",
        }
    }
}

impl fmt::Display for QueryMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A query mode name that is not one of the eight.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown query mode '{0}'; use one of auto, local, global, hybrid, naive, mix, bypass, ppr")]
pub struct UnknownQueryMode(pub String);

impl FromStr for QueryMode {
    type Err = UnknownQueryMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        QueryMode::ALL.into_iter().find(|m| m.as_str() == wanted).ok_or_else(|| UnknownQueryMode(s.to_string()))
    }
}

/// What to ask and how. `None` fields take the engine's configured defaults
/// ([`crate::config::QueryConfig`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QueryParam {
    /// Retrieval mode (default `auto`; LightRAG's default is `mix`).
    pub mode: QueryMode,
    /// Return the retrieved context instead of an answer.
    pub only_need_context: bool,
    /// Return the full prompt (system prompt and question) instead of an answer.
    pub only_need_prompt: bool,
    /// Answer format told to the LLM (default `Multiple Paragraphs`).
    pub response_type: String,
    /// Stream the answer.
    pub stream: bool,
    /// Entities (local) / relations (global) taken from vector search (`TOP_K`).
    pub top_k: Option<usize>,
    /// Chunks from vector search, and kept in the end (`CHUNK_TOP_K`).
    pub chunk_top_k: Option<usize>,
    /// Token budget of the entity section (`MAX_ENTITY_TOKENS`).
    pub max_entity_tokens: Option<usize>,
    /// Token budget of the relation section (`MAX_RELATION_TOKENS`).
    pub max_relation_tokens: Option<usize>,
    /// Token budget of the whole prompt (`MAX_TOTAL_TOKENS`).
    pub max_total_tokens: Option<usize>,
    /// Caller-supplied high-level keywords; with `ll_keywords`, skips keyword extraction.
    pub hl_keywords: Vec<String>,
    /// Caller-supplied low-level keywords; with `hl_keywords`, skips keyword extraction.
    pub ll_keywords: Vec<String>,
    /// Earlier turns, sent to the answer LLM only (not used for keywords or retrieval).
    pub conversation_history: Vec<ChatMessage>,
    /// Extra instructions for the answer prompt.
    pub user_prompt: Option<String>,
    /// Whether the caller wants the reference list with the answer (used by the interfaces; the
    /// engine always computes it).
    pub include_references: bool,
    /// Extract keywords with the LLM (`None` = the engine setting; without an LLM, rules are used).
    pub use_llm_keywords: Option<bool>,
    /// Rerank the chunks with the rerank service (`None` = `RERANK_BY_DEFAULT`). Without a
    /// service, asking for it only logs a warning, as in LightRAG.
    pub enable_rerank: Option<bool>,
    /// How the chunk lists are merged (`None` = `CHUNK_FUSION`; not a LightRAG field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk_fusion: Option<ChunkFusion>,
    /// Only these documents' chunks, and the entities and relations they support (not a
    /// LightRAG field; see [`QueryFilter`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<QueryFilter>,
}

impl Default for QueryParam {
    fn default() -> Self {
        Self {
            mode: QueryMode::Auto,
            only_need_context: false,
            only_need_prompt: false,
            response_type: DEFAULT_RESPONSE_TYPE.to_string(),
            stream: false,
            top_k: None,
            chunk_top_k: None,
            max_entity_tokens: None,
            max_relation_tokens: None,
            max_total_tokens: None,
            hl_keywords: Vec::new(),
            ll_keywords: Vec::new(),
            conversation_history: Vec::new(),
            user_prompt: None,
            include_references: false,
            use_llm_keywords: None,
            enable_rerank: None,
            chunk_fusion: None,
            filter: None,
        }
    }
}

/// The default `response_type`.
pub const DEFAULT_RESPONSE_TYPE: &str = "Multiple Paragraphs";

impl QueryParam {
    /// A parameter set with the given mode and every other field at its default.
    pub fn with_mode(mode: QueryMode) -> Self {
        Self { mode, ..Self::default() }
    }

    /// The filter, when one restricts anything.
    pub fn active_filter(&self) -> Option<&QueryFilter> {
        self.filter.as_ref().filter(|f| !f.is_empty())
    }
}

/// Budgets and limits of one query with the defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Limits {
    pub top_k: usize,
    pub chunk_top_k: usize,
    pub max_entity_tokens: usize,
    pub max_relation_tokens: usize,
    pub max_total_tokens: usize,
    pub cosine_threshold: f32,
    pub related_chunk_number: usize,
    pub pick_method: ChunkPickMethod,
    /// Rerank the chunks (the query's `enable_rerank`, else `RERANK_BY_DEFAULT`).
    pub rerank: bool,
    /// `MIN_RERANK_SCORE`.
    pub min_rerank_score: f64,
    /// How the chunk lists are merged (the query's `chunk_fusion`, else `CHUNK_FUSION`).
    pub fusion: ChunkFusion,
    /// `RRF_K`.
    pub rrf_k: f64,
}

impl Limits {
    /// Fills the caller's `None`s from the configuration.
    pub(crate) fn resolve(param: &QueryParam, config: &EngineConfig) -> Self {
        let q = &config.query;
        Self {
            top_k: param.top_k.unwrap_or(q.top_k).max(1),
            chunk_top_k: param.chunk_top_k.unwrap_or(q.chunk_top_k).max(1),
            max_entity_tokens: param.max_entity_tokens.unwrap_or(q.max_entity_tokens),
            max_relation_tokens: param.max_relation_tokens.unwrap_or(q.max_relation_tokens),
            max_total_tokens: param.max_total_tokens.unwrap_or(q.max_total_tokens),
            cosine_threshold: q.cosine_threshold,
            related_chunk_number: q.related_chunk_number.max(1),
            pick_method: q.kg_chunk_pick_method,
            rerank: param.enable_rerank.unwrap_or(q.rerank_by_default),
            min_rerank_score: q.min_rerank_score,
            fusion: param.chunk_fusion.unwrap_or(q.chunk_fusion),
            rrf_k: q.rrf_k,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print_lowercase() {
        for mode in QueryMode::ALL {
            assert_eq!(mode.to_string().parse::<QueryMode>().unwrap(), mode);
        }
        assert_eq!(" MIX ".parse::<QueryMode>().unwrap(), QueryMode::Mix);
        assert!("graph".parse::<QueryMode>().is_err());
        assert_eq!(QueryMode::default(), QueryMode::Auto);
        assert_eq!(QueryParam::default().mode, QueryMode::Auto);
        assert_eq!(serde_json::to_string(&QueryMode::Hybrid).unwrap(), "\"hybrid\"");
    }

    #[test]
    fn limits_take_config_defaults_unless_given() {
        let config = EngineConfig::default();
        let param = QueryParam { top_k: Some(3), ..QueryParam::default() };
        let limits = Limits::resolve(&param, &config);
        assert_eq!(limits.top_k, 3);
        assert_eq!(limits.chunk_top_k, 20);
        assert_eq!(limits.max_total_tokens, 30000);
        assert_eq!(QueryParam::default().response_type, "Multiple Paragraphs");
    }
}
