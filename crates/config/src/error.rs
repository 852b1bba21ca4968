//! Errors: [`ConfigError`] for configuration, [`AppError`] for building the engine.

use std::path::PathBuf;
use std::time::Duration;

use crate::raw::Source;

/// A configuration problem. Every message names the setting, and where possible the bad value,
/// the source it came from and what is allowed.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A value that does not parse or is out of range.
    #[error("invalid {key}={value:?} ({origin}): expected {expected}")]
    Invalid {
        /// Setting name.
        key: String,
        /// The value as given (`***` for secrets).
        value: String,
        /// Where it came from.
        origin: Source,
        /// What is allowed.
        expected: String,
    },
    /// Two settings that contradict each other.
    #[error("{0}")]
    Conflict(String),
    /// A setting that must be given in this configuration.
    #[error("{key} is not set: {hint}")]
    Missing {
        /// Setting name.
        key: String,
        /// Why it is needed and how to set it.
        hint: String,
    },
    /// `LLM_BINDING=local`.
    #[error(
        "LLM_BINDING=local ({0}) is not available in this build; use openai, ollama, azure_openai, lollms, \
         gemini, bedrock, openai-ollama or none"
    )]
    LocalLlmUnavailable(Source),
    /// A configuration file could not be read.
    #[error("cannot read {what} {}: {reason}", path.display())]
    Read {
        /// What kind of file.
        what: &'static str,
        /// Its path.
        path: PathBuf,
        /// The I/O error.
        reason: String,
    },
    /// A `.env` file has a syntax error.
    #[error("cannot parse .env file {}: {reason} (lines look like NAME=value)", path.display())]
    DotEnv {
        /// Its path.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
    /// A TOML config file has a syntax error or an unsupported value.
    #[error("cannot parse config file {}: {reason}", path.display())]
    Toml {
        /// Its path.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
}

/// Errors building an engine from [`crate::Settings`].
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The configuration is invalid.
    #[error("configuration error: {0}")]
    Config(#[from] ConfigError),
    /// The working directory could not be created.
    #[error("cannot create the working directory {}: {reason} (check WORKING_DIR and its permissions)", path.display())]
    WorkingDir {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        reason: String,
    },
    /// The store could not be opened.
    #[error("cannot open the store {}: {source}", path.display())]
    Store {
        /// The database file.
        path: PathBuf,
        /// What the store said.
        source: lightrag_ports::StoreError,
    },
    /// The access store (principals, grants, audit log) could not be opened.
    #[error("cannot open the access store: {0}")]
    Access(#[from] lightrag_ports::AccessError),
    /// The PostgreSQL store could not be opened.
    #[error("cannot open the PostgreSQL store (workspace '{workspace}'): {source}")]
    Postgres {
        /// The workspace asked for.
        workspace: String,
        /// What the store said.
        source: lightrag_ports::StoreError,
    },
    /// The tokenizer could not be built.
    #[error("cannot build the tokenizer: {0}")]
    Tokenizer(#[from] lightrag_tokenizer::TokenizerError),
    /// The chat model client could not be built.
    #[error("cannot set up the LLM ({binding}): {reason}")]
    Llm {
        /// `LLM_BINDING`.
        binding: String,
        /// What went wrong, and what to do.
        reason: String,
    },
    /// The embedding model could not be built or loaded.
    #[error("cannot set up the embedding model ({binding}): {reason}")]
    Embedder {
        /// `EMBEDDING_BINDING`.
        binding: String,
        /// What went wrong, and what to do.
        reason: String,
    },
    /// The rerank client could not be built.
    #[error("cannot set up the reranker ({binding}): {reason}")]
    Reranker {
        /// `RERANK_BINDING`.
        binding: String,
        /// What went wrong, and what to do.
        reason: String,
    },
    /// The engine refused the parts (for example the store was built with another embedding model).
    #[error(transparent)]
    Engine(#[from] lightrag_engine::EngineError),
}

impl AppError {
    /// How long to wait before opening again can succeed, when the store was only unavailable
    /// for now (a PostgreSQL server restarting or out of connections, a database locked by
    /// another process).
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            AppError::Store { source, .. } | AppError::Postgres { source, .. } => source.retry_after(),
            AppError::Engine(e) => e.retry_after(),
            _ => None,
        }
    }
}

/// How long to wait before trying again, when `error` or one of its causes is a store that was
/// only unavailable for now ([`StoreError::Unavailable`], also inside an [`EngineError`] or an
/// [`AppError`]); `None` when trying again cannot help by itself.
///
/// [`StoreError::Unavailable`]: lightrag_ports::StoreError::Unavailable
/// [`EngineError`]: lightrag_engine::EngineError
pub fn retry_after_of(error: &(dyn std::error::Error + 'static)) -> Option<Duration> {
    let mut next = Some(error);
    while let Some(e) = next {
        let found = if let Some(e) = e.downcast_ref::<AppError>() {
            e.retry_after()
        } else if let Some(e) = e.downcast_ref::<lightrag_engine::EngineError>() {
            e.retry_after()
        } else {
            e.downcast_ref::<lightrag_ports::StoreError>().and_then(|e| e.retry_after())
        };
        if found.is_some() {
            return found;
        }
        next = e.source();
    }
    None
}
