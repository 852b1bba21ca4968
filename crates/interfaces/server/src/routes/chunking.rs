//! Per-request `chunking` of `/documents/text(s)`: LightRAG's `TextChunkingConfig`,
//! `{"strategy": "...", "params": {...}}`, validated as strictly as LightRAG (unknown keys, wrong
//! types and out-of-range values → 422).
//!
//! * `fixed_token` (the default) is honoured: `chunk_token_size`, `chunk_overlap_token_size`,
//!   `split_by_character`, `split_by_character_only` are stored with the document.
//! * `recursive_character`, `paragraph_semantic` and `semantic_vector` are validated like
//!   LightRAG, then refused with 400 naming the strategy and the alternative (`fixed_token`):
//!   their chunkers (LangChain's recursive splitter, paragraph blocks of LightRAG's parsers,
//!   embedding-based sentence breaks) are not implemented here.
//! * `custom` is refused with 422, as LightRAG refuses it without an injected chunking function.

use lightrag_ports::ChunkingOptions;
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::errors::{ApiError, detail_item};

/// LightRAG's `TextChunkingConfig`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChunkingRequest {
    /// `fixed_token` (default); `recursive_character`, `paragraph_semantic`, `semantic_vector`
    /// are answered 400 (not implemented), `custom` 422.
    strategy: Option<String>,
    /// The strategy's parameters (all optional; unset = the server's settings). `fixed_token`:
    /// `chunk_token_size` (≥ 1), `chunk_overlap_token_size` (≥ 0, < size), `split_by_character`
    /// (string), `split_by_character_only` (bool).
    #[serde(default)]
    #[schema(value_type = Object)]
    params: Map<String, Value>,
}

const STRATEGIES: [&str; 5] = ["fixed_token", "recursive_character", "semantic_vector", "paragraph_semantic", "custom"];

/// The parameters each strategy accepts (LightRAG's per-strategy models, `extra="forbid"`).
fn allowed(strategy: &str) -> &'static [&'static str] {
    const OVERLAP: [&str; 2] = ["chunk_token_size", "chunk_overlap_token_size"];
    match strategy {
        "fixed_token" | "custom" => {
            &["chunk_token_size", "chunk_overlap_token_size", "split_by_character", "split_by_character_only"]
        }
        "recursive_character" => &["chunk_token_size", "chunk_overlap_token_size", "separators"],
        "paragraph_semantic" => &["chunk_token_size", "chunk_overlap_token_size", "drop_references"],
        "semantic_vector" => {
            &["chunk_token_size", "breakpoint_threshold_type", "breakpoint_threshold_amount", "buffer_size"]
        }
        _ => &OVERLAP,
    }
}

/// Collects the problems of one request (422 `detail` items).
struct Check {
    problems: Vec<Value>,
}

impl Check {
    fn fail(&mut self, field: &str, msg: impl Into<String>) {
        self.problems.push(detail_item(&["chunking", "params", field], msg));
    }

    /// A strict integer (no bool, no string, no float) ≥ `min`.
    fn int(&mut self, params: &Map<String, Value>, field: &str, min: u64) -> Option<usize> {
        match params.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.is_u64() || n.is_i64() => match n.as_u64() {
                Some(v) if v >= min => usize::try_from(v).ok(),
                _ => {
                    self.fail(field, format!("Input should be greater than or equal to {min}"));
                    None
                }
            },
            Some(_) => {
                self.fail(field, "Input should be a valid integer");
                None
            }
        }
    }

    fn string<'a>(&mut self, params: &'a Map<String, Value>, field: &str) -> Option<&'a str> {
        match params.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => {
                self.fail(field, "Input should be a valid string");
                None
            }
        }
    }

    fn boolean(&mut self, params: &Map<String, Value>, field: &str) -> Option<bool> {
        match params.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                self.fail(field, "Input should be a valid boolean");
                None
            }
        }
    }
}

impl ChunkingRequest {
    /// The document's chunking options; `default_size`/`default_overlap` are the server's
    /// `CHUNK_SIZE`/`CHUNK_OVERLAP_SIZE` (the effective overlap must stay below the size).
    pub fn options(self, default_size: usize, default_overlap: usize) -> Result<ChunkingOptions, ApiError> {
        let strategy = self.strategy.unwrap_or_else(|| "fixed_token".to_string());
        if !STRATEGIES.contains(&strategy.as_str()) {
            return Err(ApiError::Validation(vec![detail_item(
                &["chunking", "strategy"],
                format!("Input should be {}", STRATEGIES.map(|s| format!("'{s}'")).join(", ")),
            )]));
        }
        let params = self.params;
        let mut check = Check { problems: Vec::new() };
        let known = allowed(&strategy);
        for key in params.keys().filter(|k| !known.contains(&k.as_str())) {
            check.fail(key, "Extra inputs are not permitted");
        }
        let size = check.int(&params, "chunk_token_size", 1);
        let overlap = if known.contains(&"chunk_overlap_token_size") {
            check.int(&params, "chunk_overlap_token_size", 0)
        } else {
            None
        };
        let (split, only) = if strategy == "fixed_token" || strategy == "custom" {
            (check.string(&params, "split_by_character"), check.boolean(&params, "split_by_character_only"))
        } else {
            (None, None)
        };
        validate_others(&strategy, &params, &mut check);
        if !check.problems.is_empty() {
            return Err(ApiError::Validation(check.problems));
        }
        if strategy == "custom" {
            return Err(ApiError::invalid(
                &["chunking"],
                "Value error, custom chunking requires a non-default LightRAG.chunking_func; use fixed_token",
            ));
        }
        // the effective overlap (inherited when not given) must stay below the effective size,
        // except for delimiter-only splitting, which never applies it
        let delimiter_only = split.is_some_and(|s| !s.is_empty()) && only == Some(true);
        if strategy != "semantic_vector" && !delimiter_only {
            let (size, overlap) = (size.unwrap_or(default_size), overlap.unwrap_or(default_overlap));
            if overlap >= size {
                return Err(ApiError::invalid(
                    &["chunking"],
                    format!(
                        "chunking for strategy '{strategy}': effective chunk_overlap_token_size ({overlap}) must be \
                         < chunk_token_size ({size}); the overlap is CHUNK_OVERLAP_SIZE when not given: raise \
                         chunk_token_size or lower chunk_overlap_token_size"
                    ),
                ));
            }
        }
        if strategy != "fixed_token" {
            return Err(ApiError::BadRequest(format!(
                "chunking strategy '{strategy}' is not supported by lightrag-rs; use 'fixed_token' (token windows with \
                 chunk_token_size, chunk_overlap_token_size and optionally split_by_character)"
            )));
        }
        Ok(ChunkingOptions {
            split_by_character: split.filter(|s| !s.is_empty()).map(String::from),
            split_by_character_only: only.unwrap_or(false),
            chunk_token_size: size,
            chunk_overlap_token_size: overlap,
        })
    }
}

/// LightRAG's checks of the parameters of the strategies refused afterwards (so a malformed
/// request is still a 422, as there).
fn validate_others(strategy: &str, params: &Map<String, Value>, check: &mut Check) {
    match strategy {
        "recursive_character" => match params.get("separators") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {}
            Some(_) => check.fail("separators", "Input should be a valid list of strings"),
        },
        "paragraph_semantic" => {
            check.boolean(params, "drop_references");
        }
        "semantic_vector" => {
            check.int(params, "buffer_size", 1);
            let kind = check.string(params, "breakpoint_threshold_type");
            const KINDS: [&str; 4] = ["percentile", "standard_deviation", "interquartile", "gradient"];
            if kind.is_some_and(|k| !KINDS.contains(&k)) {
                check.fail(
                    "breakpoint_threshold_type",
                    "Input should be 'percentile', 'standard_deviation', 'interquartile' or 'gradient'",
                );
            }
            match params.get("breakpoint_threshold_amount") {
                None | Some(Value::Null) => {}
                Some(Value::Number(n)) => {
                    let amount = n.as_f64().unwrap_or(f64::NAN);
                    if amount.is_nan() || amount <= 0.0 {
                        check.fail(
                            "breakpoint_threshold_amount",
                            "Value error, breakpoint_threshold_amount must be > 0",
                        );
                    } else if amount > 100.0 && kind.is_none_or(|k| k == "percentile" || k == "gradient") {
                        check.fail(
                            "breakpoint_threshold_amount",
                            "Value error, breakpoint_threshold_amount must be within (0, 100] for percentile/gradient",
                        );
                    }
                }
                Some(_) => check.fail("breakpoint_threshold_amount", "Input should be a valid number"),
            }
        }
        _ => {}
    }
}
