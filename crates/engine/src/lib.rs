//! # lightrag-engine
//!
//! The LightRAG method on top of the ports of `lightrag-ports`: this crate knows the [`Store`],
//! [`Llm`], [`Embedder`] and [`Tokenizer`] traits and never a concrete adapter.
//!
//! [`Engine`] is the one handle the front ends (through `lightrag-application`) hold; its methods
//! are grouped by job, and so are the modules that hold their types:
//!
//! * [`indexing`] — [`Engine::enqueue`] then [`Engine::process`]: content-hash dedup → chunking →
//!   extraction per chunk (LLM with gleaning, or rules) → merge into the graph → vectors → one
//!   atomic [`ChangeSet`] per document; a known file enqueued with new content replaces its
//!   indexed version in one commit, extracting only the chunks whose text changed.
//! * [`retrieval`] — [`Engine::query`]: keywords → vector and text search → graph expansion →
//!   chunk picking → token budgets → context → answer; the graph's read views (subgraphs, labels,
//!   statistics, export) and provenance ([`Engine::entity_sources`]).
//! * [`maintenance`] — [`Engine::delete_documents`] (one pass: what the documents shared is
//!   rebuilt once from the remaining extraction records), graph edits, duplicate-entity
//!   resolution, re-embedding, `check` and repair.
//! * [`providers`] — every model call goes through the gateway: concurrency limit per provider
//!   with priority classes (queries before merges before extraction), timeout, retry with
//!   backoff, response cache in the store, usage ledger (and a query's own [`UsageScope`]).
//!
//! At the root: [`Engine`], [`EngineParts`] (what it is built from), [`EngineConfig`],
//! [`EngineError`], [`prompts`] (shared by indexing and retrieval) and [`time`].
//!
//! [`Store`]: lightrag_ports::Store
//! [`Llm`]: lightrag_ports::Llm
//! [`Embedder`]: lightrag_ports::Embedder
//! [`Tokenizer`]: lightrag_ports::Tokenizer
//! [`ChangeSet`]: lightrag_ports::ChangeSet

mod catalog;
pub mod config;
mod engine;
pub(crate) mod error;
pub mod indexing;
pub mod maintenance;
pub mod prompts;
pub mod providers;
pub mod retrieval;
pub mod time;

pub use catalog::{LABEL_CANDIDATES, label_score};
pub use config::EngineConfig;
pub use engine::{Engine, EngineParts};
pub use error::EngineError;
pub use providers::usage_scope::UsageScope;
