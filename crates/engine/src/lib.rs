//! # lightrag-engine
//!
//! The LightRAG method on top of the ports of `lightrag-ports`: this crate knows the [`Store`],
//! [`Llm`], [`Embedder`] and [`Tokenizer`] traits and never a concrete adapter.
//!
//! * Indexing — [`Engine::enqueue`] then [`Engine::process`]: content-hash dedup → chunking
//!   ([`chunking`]) → extraction per chunk ([`extract`], LLM with gleaning, or rules) → merge into the
//!   graph ([`merge`]) → vectors → one atomic [`ChangeSet`] per document ([`pipeline`]).
//! * Retrieval — [`Engine::query`]: keywords → vector search → one-hop expansion → chunk picking →
//!   token budgets → context → answer ([`query`]).
//! * Replacement — a known file enqueued with new content replaces its indexed version in one
//!   commit, extracting only the chunks whose text changed ([`pipeline`]'s `replace`).
//! * Deletion — [`Engine::delete_documents`] removes documents in one pass and rebuilds the
//!   entities and relations they shared once, from the stored extraction records of the remaining
//!   chunks ([`delete`]); [`Engine::delete_document`] is the deletion of one.
//! * Provenance — [`Engine::entity_sources`] and [`Engine::relation_sources`]: the chunks,
//!   documents and extraction statements behind a graph element ([`provenance`]).
//!
//! Every provider call goes through [`gateway`]: concurrency limit per provider with priority
//! classes ([`limiter`]: queries before merges before extraction), timeout, retry with backoff,
//! response cache in the store, usage ledger (and a query's own [`UsageScope`]).
//!
//! [`Store`]: lightrag_ports::Store
//! [`Llm`]: lightrag_ports::Llm
//! [`Embedder`]: lightrag_ports::Embedder
//! [`Tokenizer`]: lightrag_ports::Tokenizer
//! [`ChangeSet`]: lightrag_ports::ChangeSet

pub mod cache_keys;
mod catalog;
pub mod check;
pub mod chunking;
pub mod config;
mod deferred_writes;
pub mod delete;
mod engine;
pub(crate) mod error;
pub mod estimate;
pub mod extract;
pub mod gateway;
pub mod graph;
pub mod graph_edit;
pub mod input_text;
pub mod limiter;
pub mod merge;
mod order;
pub mod pipeline;
pub mod prompts;
pub mod provenance;
pub(crate) mod provider_stats;
pub mod query;
pub mod reembed;
pub mod resolve;
pub mod subgraph;
pub mod text;
pub mod time;
pub(crate) mod usage_scope;

pub use catalog::{LABEL_CANDIDATES, label_score};
pub use config::EngineConfig;
pub use engine::{Engine, EngineParts};
pub use error::EngineError;
pub use usage_scope::UsageScope;
