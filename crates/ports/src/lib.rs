//! # lightrag-ports
//!
//! The stable contract between the lightrag-rs engine and the outside world. The engine depends on
//! this crate only; adapters (SQLite, HTTP providers, local models) implement its traits. Nothing
//! in here talks to a database, a network or a model.
//!
//! * [`access`] — the [`AccessStore`] trait: principals (accounts, API keys), their roles per
//!   workspace and the audit log.
//! * [`records`] — the domain records that cross the store boundary (documents, chunks, graph
//!   entities and relations, per-chunk extraction results, vectors, cache entries).
//! * [`store`] — the storage port, split by concern: [`DocumentReads`], [`GraphReads`],
//!   [`TextSearch`], [`VectorReads`] (together [`RetrievalStore`], all a query reads),
//!   [`Catalog`] (admin listings and counts), [`DocumentQueue`], [`MergeLocks`],
//!   [`CacheAndLedger`], [`Commits`] (a [`ChangeSet`] applied atomically) and [`Reembedding`];
//!   [`Store`] is all of them, what a backend implements and the wiring holds.
//! * [`vector_flaw`] — vectors no cosine search can use (NaN, infinite, zero), refused at every
//!   entry.
//! * [`vector_index`] — the [`VectorIndex`] trait: nearest-neighbour search over integer ids, with
//!   snapshots and catch-up from a [`VectorFeed`].
//! * [`backend`] — decisions every store backend makes alike (status rows of `enqueue`, the
//!   embedding-identity check, chunk-count bookkeeping of a commit).
//! * [`quota`] — a knowledge base's quotas (documents, stored bytes, LLM tokens per day).
//! * [`ranking`] — the order of relations in query expansion; [`paging`] — walking the paged
//!   listings of a store.
//! * [`llm`], [`embed`], [`rerank`], [`tokenizer`] — providers.
//! * [`error_chain`] — an error and its causes on one line ([`ErrorChain`]), for logs.
//! * `conformance` (feature `testing`) — the suites every `Store`, [`VectorIndex`] and provider
//!   implementation must pass, one `#[test]` per check (`store_conformance!`,
//!   `vector_index_conformance!`).

pub mod access;
pub mod backend;
pub mod embed;
pub mod error_chain;
pub mod ids;
pub mod llm;
pub mod paging;
pub mod quota;
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
#[cfg(test)]
mod conformance_lists;

pub use access::{
    AccessError, AccessStore, AuditEntry, AuditFilter, Grant, PrincipalKind, PrincipalRecord, Role as AccessRole,
};
pub use embed::{EmbedError, Embedder, EmbeddingIdentity, TextKind};
pub use error_chain::ErrorChain;
pub use llm::{ChatMessage, ChatRequest, ChatResponse, Llm, LlmError, Role, TextStream, TokenUsage};
pub use quota::{EnqueueLimits, Footprint, QuotaExceeded, QuotaKind};
pub use records::*;
pub use reembed::{PendingVector, ReembedProgress, StagedVector, SwitchOutcome};
pub use rerank::{RerankError, RerankHit, Reranker, clean_hits};
pub use store::{
    Admission, CUSTOM_METADATA_KEY, CacheAndLedger, Catalog, Cause, ChangeSet, ClaimRequest, Commits, DocFilter,
    DocSort, DocumentQueue, DocumentReads, EnqueueOutcome, GraphReads, MergeLocks, NewDocument, PreviousVersion,
    Reembedding, Refusal, RetrievalStore, Store, StoreError, TextSearch, VectorKeyInfo, VectorReads,
};
pub use tokenizer::Tokenizer;
pub use vector_flaw::{VectorFlaw, is_usable, vector_flaw};

/// The store's traits in one import, for calling store methods on a concrete backend type
/// (`use lightrag_ports::prelude::*;`); through `dyn Store` or `dyn RetrievalStore` they need no
/// import.
pub mod prelude {
    pub use crate::store::{
        CacheAndLedger, Catalog, Commits, DocumentQueue, DocumentReads, GraphReads, MergeLocks, Reembedding,
        RetrievalStore, Store, TextSearch, VectorReads,
    };
}
pub use vector_index::{
    CatchUpReport, FeedDelta, IndexHit, SearchParams, VectorEncoding, VectorFeed, VectorId, VectorIndex,
    VectorIndexError, Watermark, catch_up, cosine,
};

/// Separator LightRAG uses between values of multi-valued graph fields (`source_id`, `file_path`,
/// and the fragments of a stored description).
pub const GRAPH_FIELD_SEP: &str = "<SEP>";
