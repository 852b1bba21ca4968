//! The storage port: one backend holds every namespace and commits atomically. Its methods are
//! grouped by concern into ten traits (see [`Store`] for the table): the four reads a query makes
//! ([`reads`], together [`RetrievalStore`]), the admin reads ([`catalog`]), the document queue and
//! merge locks ([`queue`]), and commits, the LLM cache with the usage ledger, and re-embedding
//! ([`commits`]).
//!
//! Contract (checked by the `conformance` suite):
//! * **Atomic commits.** [`Commits::apply`] writes a whole [`ChangeSet`] or nothing. A crash at any
//!   moment leaves the store as it was after the last successful `apply`.
//! * **Optimistic concurrency.** Each entity and relation carries a `version` assigned by the store
//!   (1 on first write, +1 on each write). A change set lists the versions it expects for the keys
//!   it read (`None` = must not exist); if any differs, `apply` fails with
//!   [`StoreError::Conflict`] and writes nothing. Callers re-read and retry.
//! * **Undirected edges.** Relations are keyed by [`RelKey`] (sorted pair); lookups by either order
//!   find the same edge.
//! * **Visibility.** Everything `apply` wrote is visible to every read that starts after it returns,
//!   including vector search.
//! * **Vectors** are L2-normalised on write; search returns cosine similarity, best first, and
//!   drops hits below `min_score`.
//! * **Chunk lists.** Every entity and relation has an uncut, ordered list of the chunks that
//!   contributed to it (LightRAG's `entity_chunks` / `relation_chunks`), changed only by
//!   [`ChangeSet::chunk_lists`] edits and by deletions: deleting an entity or relation drops its
//!   list; deleting a document removes its chunks from every list. The record's `chunk_count` is
//!   the list's length, kept by the store. A commit that edits a list counts as a write of its
//!   record: the version goes up by one (once per commit, also when the record itself is written).
//!   Lists are read in parts ([`GraphReads::chunk_list`]) and by chunk ([`GraphReads::chunk_owners`]),
//!   so nothing has to load the whole list of a much-cited entity.
//! * **Listings are paged**: entity names, entities and relations come `limit` at a time after a
//!   key ([`Catalog::entity_names`], [`Catalog::entities_page`], [`Catalog::relations_page`]);
//!   documents by offset and limit ([`DocumentReads::list_docs`]). [`paging`](crate::paging) walks
//!   every page.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::records::*;

pub mod catalog;
pub mod commits;
pub mod queue;
pub mod reads;

pub use catalog::{Catalog, VectorKeyInfo};
pub use commits::{CacheAndLedger, Commits, Reembedding};
pub use queue::{DocumentQueue, MergeLocks};
pub use reads::{DocumentReads, GraphReads, TextSearch, VectorReads};

/// The underlying cause of a [`StoreError`] (the driver's error), kept as its `source()`.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Errors from a store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer changed a record this change set was computed from. Re-read and retry.
    #[error("concurrent update of {0}; the change was not applied (retry)")]
    Conflict(String),
    /// The store was built with another embedding model or dimension.
    #[error(
        "this store was built with embedding model '{stored_model}' (dim {stored_dim}) but \
         '{configured_model}' (dim {configured_dim}) is configured; run `lightrag reembed` to embed the \
         stored texts again with the configured model (no LLM call; or set REEMBED_ON_MODEL_CHANGE=true \
         to do it at start-up), or set EMBEDDING_MODEL/EMBEDDING_DIM back"
    )]
    EmbeddingMismatch {
        /// Model the store was built with.
        stored_model: String,
        /// Its dimension.
        stored_dim: usize,
        /// Model now configured.
        configured_model: String,
        /// Its dimension.
        configured_dim: usize,
    },
    /// A vector of the wrong length was written or searched.
    #[error("vector has dimension {got}, the store holds dimension {expected}")]
    WrongDimension {
        /// Stored dimension.
        expected: usize,
        /// Offered dimension.
        got: usize,
    },
    /// The store's files or schema are unreadable.
    #[error("store is corrupt or from an incompatible version: {0}")]
    Corrupt(String),
    /// Input the store cannot accept.
    #[error("invalid store request: {0}")]
    Invalid(String),
    /// The backend failed (I/O, database error). Build it with [`StoreError::backend`] or
    /// [`StoreError::backend_caused`].
    #[error("storage backend error: {message}")]
    Backend {
        /// What failed and what to do.
        message: String,
        /// The driver's error, when there is one.
        source: Option<Cause>,
    },
    /// The backend is there but cannot serve this call now: no pooled connection became free in
    /// time, the connection was lost, another process holds the database's write lock beyond the
    /// busy timeout. Nothing of the call was written; the same call is expected to succeed after
    /// `retry_after` (servers answer 503 with `Retry-After`). Build it with
    /// [`StoreError::unavailable`].
    #[error("the store is unavailable for now: {message}; try again in {} s", retry_after.as_secs().max(1))]
    Unavailable {
        /// What is busy or lost and what to do when it lasts.
        message: String,
        /// How long to wait before trying again.
        retry_after: Duration,
        /// The driver's error, when there is one.
        source: Option<Cause>,
    },
    /// The disk holding the store (or the database's size limit) is full: the write was refused
    /// whole and nothing of it was kept. Not the document's fault: it stays pending and resumes.
    #[error(
        "the disk or database is full ({0}); nothing of the refused write was kept: free some disk space, \
         then run again (`lightrag process` or the server's next start resumes the documents not indexed yet)"
    )]
    Full(String),
    /// The request would take the knowledge base over one of its quotas; nothing of it was
    /// written (servers answer 507 or 429).
    #[error(transparent)]
    OverQuota(#[from] crate::quota::QuotaExceeded),
}

impl StoreError {
    /// A backend failure described by `message` alone.
    pub fn backend(message: impl Into<String>) -> StoreError {
        StoreError::Backend { message: message.into(), source: None }
    }

    /// A backend failure caused by `source` (a driver's error), which stays reachable through
    /// `source()`.
    pub fn backend_caused(message: impl Into<String>, source: impl Into<Cause>) -> StoreError {
        StoreError::Backend { message: message.into(), source: Some(source.into()) }
    }

    /// A transient failure ([`StoreError::Unavailable`]) caused by `source`.
    pub fn unavailable(message: impl Into<String>, retry_after: Duration, source: Option<Cause>) -> StoreError {
        StoreError::Unavailable { message: message.into(), retry_after, source }
    }

    /// How long to wait before the same call can succeed, when the failure is transient
    /// ([`StoreError::Unavailable`]); `None` for every other error.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            StoreError::Unavailable { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }

    /// A backend or transient failure with `context` (e.g. where the store is) put before its
    /// message, keeping its kind and cause; other errors unchanged.
    pub fn in_context(self, context: &str) -> StoreError {
        match self {
            StoreError::Backend { message, source } => {
                StoreError::Backend { message: format!("{context}: {message}"), source }
            }
            StoreError::Unavailable { message, retry_after, source } => {
                StoreError::Unavailable { message: format!("{context}: {message}"), retry_after, source }
            }
            other => other,
        }
    }
}

/// A document to enqueue.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDocument {
    /// The document (id, content, file path, hash, chunking).
    pub document: Document,
    /// Track id of this enqueue call.
    pub track_id: String,
    /// The caller's metadata object (empty = none), stored on the status row under
    /// [`CUSTOM_METADATA_KEY`] so it never meets the engine's own keys.
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// What to do when its id (its file name) is stored already.
    pub admission: Admission,
}

/// How [`DocumentQueue::enqueue`] admits a document whose id (its canonical file name) is stored
/// already. The store decides inside the enqueue's transaction, so concurrent enqueues of one
/// name are decided one after the other: the first is admitted and the others see it. In every
/// admission a new id whose content another document has is recorded as a `failed` `dup-` row
/// ([`EnqueueOutcome::Duplicate`], as LightRAG does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Admission {
    /// LightRAG's pipeline (`lightrag insert`, a folder scan): a new version of a known file
    /// replaces it unless it is being processed ([`EnqueueOutcome::Replaced`]); anything else
    /// stored under the id is recorded as a `failed` `dup-` row.
    #[default]
    Record,
    /// A new name only (`/documents/text`): a stored id is [`Refusal::NameTaken`], and nothing is
    /// written.
    NewName,
    /// A new name, or a new version of a document that is done (`processed` or `failed`) whose
    /// content no other document has (uploads, the MCP insert tools). Anything else under a stored
    /// id is refused and nothing is written: the same content ([`Refusal::SameContent`]), an
    /// earlier version still `pending` or `processing` ([`Refusal::Busy`]: its track id must keep
    /// showing it), another document's content ([`Refusal::ContentElsewhere`]).
    NewVersion,
}

/// Why [`DocumentQueue::enqueue`] refused a document ([`EnqueueOutcome::Refused`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// A document with this name is stored ([`Admission::NewName`]).
    NameTaken,
    /// The document is stored with this very content.
    SameContent,
    /// An earlier version is waiting to be indexed or being indexed: send the new one once it is
    /// done.
    Busy,
    /// Another document has this content.
    ContentElsewhere,
}

/// The indexed version of a document that a replacement waiting to be processed replaces: its
/// text and status row as they were when the replacement was enqueued. [`DocumentQueue::enqueue`]
/// keeps it ([`DocumentReads::previous_version`]) when a new version replaces an indexed one; the
/// pipeline puts it back when the replacement fails or is cancelled, and drops it when the
/// replacement commits ([`ChangeSet::drop_previous_versions`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PreviousVersion {
    /// Its full text.
    pub document: Document,
    /// Its status row.
    pub status: DocStatusRecord,
}

/// The key of the status row's `metadata` under which a document's caller-given metadata is
/// stored (`metadata.custom` in the documents API).
pub const CUSTOM_METADATA_KEY: &str = "custom";

/// What happened to one enqueued document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum EnqueueOutcome {
    /// Stored as `pending`.
    Enqueued {
        /// Document id.
        doc_id: String,
    },
    /// A document with the same id (same file name) or the same content hash exists; a `failed`
    /// record with id `dup_id` was written and nothing will be indexed.
    Duplicate {
        /// Id of the duplicate record (`dup-…`).
        dup_id: String,
        /// Id of the document already stored.
        original_id: String,
        /// Status of the original.
        original_status: DocStatus,
    },
    /// A document with the same id (same canonical file name) exists with other content: the new
    /// text is stored and the document is `pending` again with a replacement marked in its
    /// metadata ([`crate::backend::REPLACING_KEY`]). Its indexed version stays live (chunks,
    /// graph) until the processing commit that switches to the new version.
    Replaced {
        /// Document id (kept).
        doc_id: String,
        /// Status the document had before.
        previous_status: DocStatus,
    },
    /// Already stored with the same content and not processed yet (a run that was interrupted):
    /// nothing new is written, and the next processing run finishes it. Only
    /// [`DocumentQueue::enqueue`]'s callers that ask for resuming produce it, never the store.
    Resumed {
        /// Document id.
        doc_id: String,
        /// Its status (`pending` or `processing`).
        status: DocStatus,
    },
    /// Not admitted ([`Admission::NewName`], [`Admission::NewVersion`]): nothing was written.
    Refused {
        /// Id of the stored document in the way (the same id, or the one with this content).
        doc_id: String,
        /// Its file path.
        file_path: String,
        /// Its status.
        status: DocStatus,
        /// Why.
        reason: Refusal,
    },
}

impl EnqueueOutcome {
    /// For [`EnqueueOutcome::Refused`]: why, and what to do next (what every front end answers,
    /// REST with a 409); `None` for the other outcomes.
    pub fn refusal_message(&self) -> Option<String> {
        let EnqueueOutcome::Refused { doc_id, file_path, status, reason } = self else {
            return None;
        };
        Some(match reason {
            Refusal::NameTaken => format!(
                "Document storage already contains '{file_path}' (Status: {status}); delete it first or use another \
                 file name"
            ),
            Refusal::SameContent => format!(
                "Document storage already contains '{file_path}' with the same content (Status: {status}); nothing \
                 to update"
            ),
            Refusal::Busy if *status == DocStatus::Processing => format!(
                "Document '{file_path}' is being processed right now; send the new version again once it is done"
            ),
            Refusal::Busy => format!(
                "An earlier version of '{file_path}' is waiting to be indexed; send the new version again once it is \
                 processed (the earlier upload's track id tells when)"
            ),
            Refusal::ContentElsewhere => format!(
                "Document storage already contains this content as {doc_id} ('{file_path}', Status: {status}); \
                 nothing new to index"
            ),
        })
    }
}

/// Sort order for document listings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocSort {
    /// Newest update first (default).
    #[default]
    UpdatedDesc,
    /// Oldest update first.
    UpdatedAsc,
    /// Newest first.
    CreatedDesc,
    /// Oldest first (processing order).
    CreatedAsc,
    /// By id ascending.
    IdAsc,
    /// By id descending.
    IdDesc,
    /// By file path ascending.
    FilePathAsc,
    /// By file path descending.
    FilePathDesc,
}

/// A filter for document listings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocFilter {
    /// Only these statuses (empty = all).
    pub statuses: Vec<DocStatus>,
    /// Only this track id.
    pub track_id: Option<String>,
    /// Order.
    pub sort: DocSort,
    /// Rows to skip.
    pub offset: usize,
    /// Maximum rows (`None` = all).
    pub limit: Option<usize>,
}

/// A request to take documents for processing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRequest {
    /// The claiming worker.
    pub owner: String,
    /// Unix ms until which the claim holds unless renewed.
    pub lease_until: i64,
    /// Current time (Unix ms); `processing` documents whose lease ended before it are reclaimed.
    pub now: i64,
    /// Also reclaim `processing` documents held by these owners (known to be dead).
    pub dead_owners: Vec<String>,
    /// Also take `failed` documents (except recorded duplicates).
    pub include_failed: bool,
    /// Only these ids (empty = any).
    pub only_ids: Vec<String>,
    /// At most this many.
    pub limit: usize,
}

/// Everything one commit writes. Applied atomically by [`Commits::apply`].
///
/// Deletions run before upserts, so a change set may delete and re-create a key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeSet {
    /// Entity versions the change was computed from (`None` = absent).
    pub expect_entities: Vec<(String, Option<u64>)>,
    /// Relation versions the change was computed from (`None` = absent).
    pub expect_relations: Vec<(RelKey, Option<u64>)>,
    /// `(doc id, owner)`: documents that must still be `processing` under this owner's lease
    /// (otherwise another worker took them over and the change is a [`StoreError::Conflict`]).
    pub expect_doc_owners: Vec<(String, String)>,
    /// Status rows to write (whole-row upsert).
    pub doc_status: Vec<DocStatusRecord>,
    /// Full texts to write (whole-row upsert, no duplicate check: [`DocumentQueue::enqueue`] is the way
    /// in for new documents; this is for documents brought over whole, e.g. by an import).
    pub documents: Vec<Document>,
    /// Documents to remove entirely: full text, status row, chunks, chunk vectors, extraction
    /// records and doc links.
    pub delete_documents: Vec<String>,
    /// Chunks to remove without their document (which is gone already): the chunk row, its
    /// vector, its extraction record and its entries in every chunk list. Unknown ids are
    /// ignored. (`lightrag check --repair` drops chunks whose document is gone with it.)
    pub delete_chunks: Vec<String>,
    /// Vectors to remove without touching any record, as `(set, key)` (relation keys in either
    /// order). Unknown keys are ignored. (`lightrag check --repair` drops vectors whose record is
    /// gone with it.)
    pub delete_vectors: Vec<(VectorKind, String)>,
    /// Chunks to write.
    pub chunks: Vec<Chunk>,
    /// Extraction records to write (keyed by chunk id).
    pub extractions: Vec<ChunkExtraction>,
    /// Entities to write (versions and chunk counts are assigned by the store).
    pub entities: Vec<Entity>,
    /// Entities to delete (with their vectors).
    pub delete_entities: Vec<String>,
    /// Relations to write.
    pub relations: Vec<Relation>,
    /// Relations to delete (with their vectors).
    pub delete_relations: Vec<RelKey>,
    /// Vectors to write.
    pub vectors: Vec<VectorRecord>,
    /// Doc links to write.
    pub doc_links: Vec<DocLinks>,
    /// Documents whose kept [`PreviousVersion`] is dropped (their replacement committed, or the
    /// previous version was written back). Deleting a document drops its previous version too.
    pub drop_previous_versions: Vec<String>,
    /// Chunk-list edits, applied in order after the entities and relations are written.
    pub chunk_lists: Vec<(GraphKey, ChunkListEdit)>,
    /// LLM cache entries to write (replacing entries with the same key), in the same transaction
    /// as the rest (e.g. the cached answers a document's extraction records came from).
    pub cache: Vec<CacheEntry>,
    /// Usage to add to the ledger.
    pub usage: Usage,
}

impl ChangeSet {
    /// True when the change set writes nothing.
    pub fn is_empty(&self) -> bool {
        self.doc_status.is_empty()
            && self.documents.is_empty()
            && self.delete_documents.is_empty()
            && self.delete_chunks.is_empty()
            && self.delete_vectors.is_empty()
            && self.chunks.is_empty()
            && self.extractions.is_empty()
            && self.entities.is_empty()
            && self.delete_entities.is_empty()
            && self.relations.is_empty()
            && self.delete_relations.is_empty()
            && self.vectors.is_empty()
            && self.doc_links.is_empty()
            && self.drop_previous_versions.is_empty()
            && self.chunk_lists.is_empty()
            && self.cache.is_empty()
            && self.usage.is_empty()
    }
}

/// The storage backend: every part together. Each backend implements the ten traits below; this
/// trait is implemented for any type that does, and is what the wiring and the engine hold
/// (`Arc<dyn Store>`). Code that needs one concern takes that trait (retrieval takes
/// [`RetrievalStore`]). See the module docs for the contract.
///
/// | trait | concern |
/// |---|---|
/// | [`DocumentReads`] | full texts, status rows, chunks, extraction records, doc links |
/// | [`GraphReads`] | entities, relations, chunk lists, ranked neighbourhoods |
/// | [`TextSearch`] | the lexical indexes (chunks, entities, entity names) |
/// | [`VectorReads`] | nearest-neighbour search and stored vectors |
/// | [`Catalog`] | paged listings, counts, the integrity check (admin reads) |
/// | [`DocumentQueue`] | enqueue (admission), claims and leases, cancellation |
/// | [`MergeLocks`] | locks on entity names while a document merges |
/// | [`CacheAndLedger`] | the LLM response cache and the usage ledger |
/// | [`Commits`] | atomic commits of a [`ChangeSet`], clearing, the embedding identity |
/// | [`Reembedding`] | re-embedding every vector with another model |
pub trait Store:
    RetrievalStore + Catalog + DocumentQueue + MergeLocks + CacheAndLedger + Commits + Reembedding
{
}

impl<T> Store for T where
    T: RetrievalStore + Catalog + DocumentQueue + MergeLocks + CacheAndLedger + Commits + Reembedding + ?Sized
{
}

/// What a query reads: documents, the graph, the lexical indexes and the vectors — reads only.
/// Retrieval takes this bound, so a filtered view of the store (the engine's `ScopedStore`)
/// implements these four traits and nothing else; implemented for any type that does.
pub trait RetrievalStore: DocumentReads + GraphReads + TextSearch + VectorReads {}

impl<T: DocumentReads + GraphReads + TextSearch + VectorReads + ?Sized> RetrievalStore for T {}
