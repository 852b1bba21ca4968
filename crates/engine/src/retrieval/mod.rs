//! Retrieval: questions in, context and answers out, and the graph's read views.
//!
//! [`Engine::query`](crate::Engine::query) ([`query`]): keywords → vector and text search →
//! graph expansion → chunk picking → token budgets → context → answer. [`subgraph`] serves the
//! graph viewer, [`graph`] the graph's labels, statistics and export, [`provenance`] the chunks,
//! documents and statements behind an entity or a relation.

pub mod graph;
pub mod provenance;
pub mod query;
pub mod subgraph;
