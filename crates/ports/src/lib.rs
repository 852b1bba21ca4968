//! # lightrag-ports
//!
//! The stable contract between the lightrag-rs engine and the outside world. The engine depends on
//! this crate only; adapters (SQLite, HTTP providers, local models) implement its traits. Nothing
//! in here talks to a database, a network or a model.
//!
//! * [`records`] — the domain records that cross the store boundary (documents, chunks, graph
//!   entities and relations, per-chunk extraction results, vectors, cache entries).
//! * [`store`] — the [`Store`] trait: one backend holds every namespace and commits a
//!   [`ChangeSet`] atomically.
//! * [`vector_flaw`] — vectors no cosine search can use (NaN, infinite, zero), refused at every
//!   entry.
//! * [`vector_index`] — the [`VectorIndex`] trait: nearest-neighbour search over integer ids, with
//!   snapshots and catch-up from a [`VectorFeed`].
//! * [`backend`] — decisions every store backend makes alike (status rows of `enqueue`, the
//!   embedding-identity check, chunk-count bookkeeping of a commit).
//! * [`ranking`] — the order of relations in query expansion; [`paging`] — walking the paged
//!   listings of a store.
//! * [`llm`], [`embed`], [`rerank`], [`tokenizer`] — providers.
//! * [`error_chain`] — an error and its causes on one line ([`ErrorChain`]), for logs.
//! * `conformance` (feature `testing`) — the suite every `Store` implementation must pass.

pub mod backend;
pub mod embed;
pub mod error_chain;
pub mod ids;
pub mod llm;
pub mod paging;
pub mod ranking;
pub mod records;
pub mod reembed;
pub mod rerank;
pub mod store;
pub mod tokenizer;
pub mod vector_flaw;
pub mod vector_index;

#[cfg(feature = "testing")]
pub mod conformance;

pub use embed::{EmbedError, Embedder, EmbeddingIdentity, TextKind};
pub use error_chain::ErrorChain;
pub use llm::{ChatMessage, ChatRequest, ChatResponse, Llm, LlmError, Role, TextStream, TokenUsage};
pub use records::*;
pub use reembed::{PendingVector, ReembedProgress, StagedVector, SwitchOutcome};
pub use rerank::{RerankError, RerankHit, Reranker, clean_hits};
pub use store::{
    Admission, CUSTOM_METADATA_KEY, Cause, ChangeSet, ClaimRequest, DocFilter, DocSort, EnqueueOutcome, NewDocument,
    PreviousVersion, Refusal, Store, StoreError, StoreRead, StoreVectors, StoreWrite, VectorKeyInfo,
};
pub use tokenizer::Tokenizer;
pub use vector_flaw::{VectorFlaw, is_usable, vector_flaw};

/// The store's traits in one import, for calling store methods on a concrete backend type
/// (`use lightrag_ports::prelude::*;`); through `dyn Store` they need no import.
pub mod prelude {
    pub use crate::store::{Store, StoreRead, StoreVectors, StoreWrite};
}
pub use vector_index::{
    CatchUpReport, FeedDelta, IndexHit, SearchParams, VectorEncoding, VectorFeed, VectorId, VectorIndex,
    VectorIndexError, Watermark, catch_up, cosine,
};

/// Separator LightRAG uses between values of multi-valued graph fields (`source_id`, `file_path`,
/// and the fragments of a stored description).
pub const GRAPH_FIELD_SEP: &str = "<SEP>";
