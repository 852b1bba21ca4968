//! Errors as Python exceptions, with the messages the `lightrag` CLI prints.
//!
//! The exception classes live in `lightrag_rs/exceptions.py` (so that they can also derive from
//! `ValueError` where LightRAG raises one); this module picks the class by the error's kind and
//! raises it with the error's text, every cause included on one line as the CLI writes it.

use lightrag_config::AppError;
use lightrag_engine::EngineError;
use pyo3::prelude::*;

/// Which exception class an error becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `InvalidInputError` (a `ValueError`): bad arguments, refused edits.
    Invalid,
    /// `NotFoundError` (a `ValueError`): no such document, entity or relation.
    NotFound,
    /// `ConfigurationError` (a `ValueError`): a constructor argument or setting is not usable.
    Config,
    /// `LLMError`: the chat model failed.
    Llm,
    /// `EmbeddingError`: the embedding model failed.
    Embedding,
    /// `StorageError`: the store failed (a full disk, a locked or damaged file, a lost server).
    Storage,
    /// `PipelineCancelledError`: the pipeline was cancelled (`request_cancel`, another process).
    Cancelled,
    /// `DocumentsFailedError`: documents were stored but could not be indexed.
    DocumentsFailed,
}

impl Kind {
    fn class_name(self) -> &'static str {
        match self {
            Kind::Invalid => "InvalidInputError",
            Kind::NotFound => "NotFoundError",
            Kind::Config => "ConfigurationError",
            Kind::Llm => "LLMError",
            Kind::Embedding => "EmbeddingError",
            Kind::Storage => "StorageError",
            Kind::Cancelled => "PipelineCancelledError",
            Kind::DocumentsFailed => "DocumentsFailedError",
        }
    }
}

/// An error on its way to Python: its kind and its one-line message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) kind: Kind,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(kind: Kind, message: impl Into<String>) -> Self {
        Failure { kind, message: message.into() }
    }

    /// `error` with the context the CLI puts before it (`cannot open the knowledge base in …`).
    pub(crate) fn context(mut self, context: impl std::fmt::Display) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }
}

/// The error and each of its causes joined with `: `, on one line (the CLI's `{:#}`).
fn one_line(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let next = cause.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = cause.source();
    }
    text.replace('\n', " ")
}

impl From<EngineError> for Failure {
    fn from(e: EngineError) -> Self {
        let kind = match &e {
            EngineError::Store(_) => Kind::Storage,
            EngineError::Llm(_) => Kind::Llm,
            EngineError::Embed(_) => Kind::Embedding,
            EngineError::Invalid(_) | EngineError::ChunkTooLarge { .. } => Kind::Invalid,
            EngineError::NotFound(_) => Kind::NotFound,
            EngineError::Cancelled => Kind::Cancelled,
        };
        Failure::new(kind, one_line(&e))
    }
}

impl From<AppError> for Failure {
    fn from(e: AppError) -> Self {
        let kind = match &e {
            AppError::Config(_)
            | AppError::Tokenizer(_)
            | AppError::Llm { .. }
            | AppError::Embedder { .. }
            | AppError::Reranker { .. } => Kind::Config,
            AppError::Engine(inner) => return Failure::new(Failure::from_engine_kind(inner), one_line(&e)),
            _ => Kind::Storage,
        };
        Failure::new(kind, one_line(&e))
    }
}

/// A use case's error, as the CLI prints it (the error and its causes on one line); the kind picks
/// the exception: bad input, an unreadable or too large document and a refusal by the stored
/// state are `InvalidInputError`, an unknown id `NotFoundError`, the engine's by its table above.
impl From<lightrag_application::AppError> for Failure {
    fn from(e: lightrag_application::AppError) -> Self {
        use lightrag_application::AppError as E;
        let kind = match e {
            E::Engine(inner) => return Failure::from(inner),
            E::Invalid(_) | E::Unreadable { .. } | E::TooLarge(_) | E::Conflict(_) => Kind::Invalid,
            E::NotFound(_) => Kind::NotFound,
            E::Busy { .. } | E::Io { .. } => Kind::Storage,
        };
        Failure::new(kind, one_line(&e))
    }
}

impl Failure {
    fn from_engine_kind(e: &EngineError) -> Kind {
        match e {
            EngineError::Invalid(_) | EngineError::ChunkTooLarge { .. } => Kind::Config,
            EngineError::Llm(_) => Kind::Llm,
            EngineError::Embed(_) => Kind::Embedding,
            _ => Kind::Storage,
        }
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        Python::attach(|py| {
            let class = py
                .import("lightrag_rs.exceptions")
                .and_then(|m| m.getattr(f.kind.class_name()))
                .and_then(|cls| cls.call1((f.message.clone(),)));
            match class {
                Ok(exc) => PyErr::from_value(exc),
                Err(_) => pyo3::exceptions::PyRuntimeError::new_err(f.message),
            }
        })
    }
}

/// A `serde_json` failure while reading the arguments the Python layer sent.
pub(crate) fn bad_json(what: &str, e: serde_json::Error) -> Failure {
    Failure::new(Kind::Invalid, format!("{what}: {e}"))
}
