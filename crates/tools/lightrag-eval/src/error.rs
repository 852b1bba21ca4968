//! What can go wrong reading fixtures or running an evaluation.

use std::path::PathBuf;

/// An evaluation error; the message says what to fix.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A fixture or baseline file could not be read.
    #[error("cannot read {path}: {reason}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A line of a JSONL fixture is not the expected object.
    #[error("{path}, line {line}: {reason} (expected {expected})")]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
        /// The shape a line must have.
        expected: &'static str,
    },
    /// A fixture holds nothing usable.
    #[error("{path} holds no {what}")]
    Empty {
        /// The file.
        path: PathBuf,
        /// What was looked for.
        what: &'static str,
    },
    /// The engine failed a query.
    #[error("question {index} ({mode}): {source}")]
    Query {
        /// 1-based question number.
        index: usize,
        /// The mode.
        mode: String,
        /// The engine's error.
        source: lightrag_engine::EngineError,
    },
    /// A baseline file is not the JSON `lightrag eval` writes.
    #[error("{path} is not a `lightrag eval` results file: {reason}")]
    Baseline {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}
