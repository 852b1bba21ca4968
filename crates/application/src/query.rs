//! Validate a query, then run it: one set of limits and one set of messages for `/query`,
//! `/query/stream`, `/query/data`, the MCP `query` tool and `lightrag query`.
//!
//! The limits are LightRAG's where LightRAG has them (a question of at least 3 characters, the
//! `conversation_history` caps) and ours where it has none ([`MAX_TOP_K`], [`MAX_TOKEN_BUDGET`]);
//! a filter is checked by the engine's [`QueryFilter::validate`] (its caps and globs). Every
//! problem is reported at once, each naming its field, in FastAPI's words (the REST server answers
//! them as LightRAG's 422 `detail` items; MCP and the CLI print them as `field: message`).

use lightrag_engine::Engine;
use lightrag_engine::config::ChunkFusion;
use lightrag_engine::retrieval::query::{QueryFilter, QueryMode, QueryParam, QueryResult};
use lightrag_ports::{ChatMessage, Role};
use serde_json::Value;

use crate::error::{AppError, Problem, Result};

/// Most entities/relations (`top_k`) or chunks (`chunk_top_k`) one query may ask for: each costs
/// a vector search and context tokens, and LightRAG's defaults are 40 and 20. Ours.
pub const MAX_TOP_K: i64 = 1_000;
/// The largest token budget (`max_entity_tokens`, `max_relation_tokens`, `max_total_tokens`) one
/// query may ask for. Ours.
pub const MAX_TOKEN_BUDGET: i64 = 1_000_000;
/// The shortest question, in characters once trimmed (LightRAG's `QueryRequest`).
pub const MIN_QUERY_CHARS: usize = 3;

/// LightRAG's limits on `conversation_history` (`lightrag.constants`).
pub const MAX_HISTORY_MESSAGES: usize = 128;
/// The longest role name of a history message, in characters.
pub const MAX_ROLE_CHARS: usize = 64;
/// The longest content of a history message, in characters.
pub const MAX_MESSAGE_CHARS: usize = 32 * 1024;

/// A query as a front end received it, before any check. Numbers are signed so that a negative
/// value is reported rather than lost in parsing.
#[derive(Debug, Clone, Default)]
pub struct QueryRequest {
    /// The question.
    pub query: String,
    /// The retrieval mode's name (`None`: `DEFAULT_QUERY_MODE`).
    pub mode: Option<String>,
    /// Return the retrieved context instead of an answer.
    pub only_need_context: bool,
    /// Return the answer prompt instead of an answer.
    pub only_need_prompt: bool,
    /// Answer format (`None`: the default; empty is refused).
    pub response_type: Option<String>,
    /// Entities/relations to retrieve.
    pub top_k: Option<i64>,
    /// Chunks to keep.
    pub chunk_top_k: Option<i64>,
    /// Token budget of the entities section.
    pub max_entity_tokens: Option<i64>,
    /// Token budget of the relations section.
    pub max_relation_tokens: Option<i64>,
    /// Token budget of the whole prompt.
    pub max_total_tokens: Option<i64>,
    /// High-level keywords (given keywords skip the keyword extraction).
    pub hl_keywords: Vec<String>,
    /// Low-level keywords.
    pub ll_keywords: Vec<String>,
    /// Earlier turns: objects with a `role` and a `content` (other keys ignored), LightRAG's shape.
    pub conversation_history: Vec<Value>,
    /// Extra instructions for the answer.
    pub user_prompt: Option<String>,
    /// Rerank the chunks (`None`: `RERANK_BY_DEFAULT`).
    pub enable_rerank: Option<bool>,
    /// Include the references (`None`: yes).
    pub include_references: Option<bool>,
    /// How the chunk lists are merged (`round_robin`, `rrf`; `None`: `CHUNK_FUSION`).
    pub chunk_fusion: Option<String>,
    /// Extract keywords with the LLM (`None`: the configured way).
    pub use_llm_keywords: Option<bool>,
    /// Only draw on some documents.
    pub filter: Option<QueryFilter>,
    /// Stream the answer.
    pub stream: bool,
}

/// A query that passed [`QueryRequest::validate`].
#[derive(Debug, Clone)]
pub struct ValidQuery {
    /// The question, trimmed.
    pub query: String,
    /// The parameters.
    pub param: QueryParam,
}

/// A count of at least 1 and at most `max` (FastAPI's `ge=1, le=max` messages).
fn bounded(value: Option<i64>, field: &str, max: i64, problems: &mut Vec<Problem>) -> Option<usize> {
    match value {
        Some(v) if v < 1 => {
            problems.push(Problem::new(&[field], "Input should be greater than or equal to 1"));
            None
        }
        Some(v) if v > max => {
            problems.push(Problem::new(&[field], format!("Input should be less than or equal to {max}")));
            None
        }
        Some(v) => usize::try_from(v).ok(),
        None => None,
    }
}

/// The role a history message is sent with. LightRAG accepts any non-empty role string and
/// forwards it verbatim; our LLM clients speak `system`, `user` and `assistant`, so the usual
/// spellings of those map to them and any other role (`tool`, `function`, a custom name) is sent
/// as a user turn.
fn history_role(name: &str) -> Role {
    match name.trim().to_ascii_lowercase().as_str() {
        "system" | "developer" => Role::System,
        "assistant" | "ai" | "bot" | "model" => Role::Assistant,
        _ => Role::User,
    }
}

/// LightRAG's `conversation_history` check: each message has a non-empty string `role` (at most
/// [`MAX_ROLE_CHARS`]) and a string `content` (at most [`MAX_MESSAGE_CHARS`]); at most
/// [`MAX_HISTORY_MESSAGES`] messages.
fn history(items: Vec<Value>, problems: &mut Vec<Problem>) -> Vec<ChatMessage> {
    if items.len() > MAX_HISTORY_MESSAGES {
        problems.push(Problem::new(
            &["conversation_history"],
            format!("Value error, conversation_history must hold at most {MAX_HISTORY_MESSAGES} messages"),
        ));
        return Vec::new();
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let problem = match (item.get("role"), item.get("content")) {
            (None, _) => Some("Each message must have a 'role' key.".to_string()),
            (Some(role), _) if role.as_str().is_none_or(|r| r.trim().is_empty()) => {
                Some("Each message 'role' must be a non-empty string.".to_string())
            }
            (Some(role), _) if role.as_str().is_some_and(|r| r.chars().count() > MAX_ROLE_CHARS) => {
                Some(format!("Each message 'role' must be at most {MAX_ROLE_CHARS} characters."))
            }
            (_, None) => Some("Each message must have a 'content' key.".to_string()),
            (_, Some(content)) if !content.is_string() => Some("Each message 'content' must be a string.".to_string()),
            (_, Some(content)) if content.as_str().is_some_and(|c| c.chars().count() > MAX_MESSAGE_CHARS) => {
                Some(format!("Each message 'content' must be at most {MAX_MESSAGE_CHARS} characters."))
            }
            _ => None,
        };
        if let Some(problem) = problem {
            problems.push(Problem::new(&["conversation_history", &i.to_string()], format!("Value error, {problem}")));
            continue;
        }
        let role = history_role(item["role"].as_str().unwrap_or_default());
        out.push(ChatMessage::new(role, item["content"].as_str().unwrap_or_default()));
    }
    out
}

/// Keywords trimmed, blank ones dropped.
fn keywords(list: Vec<String>) -> Vec<String> {
    list.into_iter().map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect()
}

impl QueryRequest {
    /// Checks every field; `default_mode` is the mode of a request that names none
    /// (`DEFAULT_QUERY_MODE`). All problems are reported together.
    pub fn validate(self, default_mode: QueryMode) -> Result<ValidQuery> {
        let mut problems = Vec::new();
        let query = self.query.trim().to_string();
        if query.chars().count() < MIN_QUERY_CHARS {
            problems
                .push(Problem::new(&["query"], format!("String should have at least {MIN_QUERY_CHARS} characters")));
        }
        let mode = match self.mode.as_deref().map(str::parse::<QueryMode>) {
            None => default_mode,
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                problems.push(Problem::new(&["mode"], e.to_string()));
                default_mode
            }
        };
        let chunk_fusion = match self.chunk_fusion.as_deref().map(str::parse::<ChunkFusion>) {
            None => None,
            Some(Ok(f)) => Some(f),
            Some(Err(e)) => {
                problems.push(Problem::new(&["chunk_fusion"], e.to_string()));
                None
            }
        };
        if self.response_type.as_deref().is_some_and(str::is_empty) {
            problems.push(Problem::new(&["response_type"], "String should have at least 1 character"));
        }
        let mut param = QueryParam::with_mode(mode);
        param.only_need_context = self.only_need_context;
        param.only_need_prompt = self.only_need_prompt;
        if let Some(rt) = self.response_type.filter(|r| !r.is_empty()) {
            param.response_type = rt;
        }
        param.top_k = bounded(self.top_k, "top_k", MAX_TOP_K, &mut problems);
        param.chunk_top_k = bounded(self.chunk_top_k, "chunk_top_k", MAX_TOP_K, &mut problems);
        let budget = |value, field, problems: &mut Vec<Problem>| bounded(value, field, MAX_TOKEN_BUDGET, problems);
        param.max_entity_tokens = budget(self.max_entity_tokens, "max_entity_tokens", &mut problems);
        param.max_relation_tokens = budget(self.max_relation_tokens, "max_relation_tokens", &mut problems);
        param.max_total_tokens = budget(self.max_total_tokens, "max_total_tokens", &mut problems);
        param.hl_keywords = keywords(self.hl_keywords);
        param.ll_keywords = keywords(self.ll_keywords);
        param.conversation_history = history(self.conversation_history, &mut problems);
        param.user_prompt = self.user_prompt.filter(|p| !p.trim().is_empty());
        param.enable_rerank = self.enable_rerank;
        param.chunk_fusion = chunk_fusion;
        param.use_llm_keywords = self.use_llm_keywords;
        if let Some(Err(e)) = self.filter.as_ref().map(QueryFilter::validate) {
            let field: Vec<&str> = std::iter::once("filter").chain(e.field()).collect();
            problems.push(Problem::new(&field, format!("Value error, {e}")));
        }
        param.filter = self.filter;
        param.include_references = self.include_references.unwrap_or(true);
        param.stream = self.stream;
        if !problems.is_empty() {
            return Err(AppError::Invalid(problems));
        }
        Ok(ValidQuery { query, param })
    }
}

/// Runs a validated query: retrieval, then the answer (or the context, or the prompt).
pub async fn run(engine: &Engine, query: &ValidQuery) -> Result<QueryResult> {
    Ok(engine.query(&query.query, &query.param).await?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn request(query: &str) -> QueryRequest {
        QueryRequest { query: query.to_string(), ..QueryRequest::default() }
    }

    #[test]
    fn every_problem_is_reported_with_its_field() {
        let e = QueryRequest {
            top_k: Some(100_000),
            chunk_top_k: Some(0),
            max_total_tokens: Some(MAX_TOKEN_BUDGET + 1),
            mode: Some("deep".into()),
            ..request(" x ")
        }
        .validate(QueryMode::Mix)
        .unwrap_err();
        let fields: Vec<String> = e.problems().iter().map(Problem::path).collect();
        assert_eq!(fields, ["query", "mode", "top_k", "chunk_top_k", "max_total_tokens"], "{e}");
        assert!(e.to_string().contains("top_k: Input should be less than or equal to 1000"), "{e}");
        assert!(e.to_string().contains("query: String should have at least 3 characters"), "{e}");
    }

    #[test]
    fn a_valid_query_gets_its_parameters() {
        let valid = QueryRequest {
            top_k: Some(5),
            hl_keywords: vec![" a ".into(), " ".into()],
            conversation_history: vec![serde_json::json!({"role": "ai", "content": "hi"})],
            ..request("  who is Ahab?  ")
        }
        .validate(QueryMode::Local)
        .unwrap();
        assert_eq!(valid.query, "who is Ahab?");
        assert_eq!((valid.param.mode, valid.param.top_k), (QueryMode::Local, Some(5)));
        assert_eq!(valid.param.hl_keywords, ["a"]);
        assert_eq!(valid.param.conversation_history[0].role, Role::Assistant);
        assert!(valid.param.include_references);
        let bad_filter = QueryRequest {
            filter: Some(QueryFilter { file_paths: vec!["[oops".into()], ..QueryFilter::default() }),
            ..request("who?")
        }
        .validate(QueryMode::Mix)
        .unwrap_err();
        assert_eq!(bad_filter.problems()[0].path(), "filter.file_paths", "{bad_filter}");
    }
}
