//! Indexing: documents in, graph and vectors out.
//!
//! [`Engine::enqueue`](crate::Engine::enqueue) then [`Engine::process`](crate::Engine::process):
//! content-hash dedup and admission → chunking ([`chunking`]) → extraction per chunk
//! ([`extract`], LLM with gleaning, or rules) → merge into the graph ([`merge`]) → vectors → one
//! atomic `ChangeSet` per document ([`pipeline`]; a known file with new content replaces its
//! indexed version there). [`estimate`] prices an insert without calling a model;
//! [`input_text`] and [`text`] clean and hash the text; [`quotas`] keeps a knowledge base within
//! its quotas.

pub mod chunking;
pub(crate) mod deferred_writes;
pub mod estimate;
pub mod extract;
pub mod input_text;
pub mod merge;
pub(crate) mod order;
pub mod pipeline;
pub mod quotas;
pub mod text;
