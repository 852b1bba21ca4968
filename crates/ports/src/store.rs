//! The storage port: one backend holds every namespace and commits atomically.
//!
//! Contract (checked by the `conformance` suite):
//! * **Atomic commits.** [`StoreWrite::apply`] writes a whole [`ChangeSet`] or nothing. A crash at any
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
//!   Lists are read in parts ([`StoreRead::chunk_list`]) and by chunk ([`StoreRead::chunk_owners`]), so
//!   nothing has to load the whole list of a much-cited entity.
//! * **Listings are paged**: entity names, entities and relations come `limit` at a time after a
//!   key ([`StoreRead::entity_names`], [`StoreRead::entities_page`], [`StoreRead::relations_page`]); documents
//!   by offset and limit ([`StoreRead::list_docs`]). [`paging`](crate::paging) walks every page.

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::embed::EmbeddingIdentity;
use crate::records::*;
use crate::reembed::{PendingVector, ReembedProgress, StagedVector, SwitchOutcome};

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

/// How [`StoreWrite::enqueue`] admits a document whose id (its canonical file name) is stored
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

/// Why [`StoreWrite::enqueue`] refused a document ([`EnqueueOutcome::Refused`]).
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
/// text and status row as they were when the replacement was enqueued. [`StoreWrite::enqueue`]
/// keeps it ([`StoreRead::previous_version`]) when a new version replaces an indexed one; the
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
    /// [`crate::Store::enqueue`]'s callers that ask for resuming produce it, never the store.
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

/// Everything one commit writes. Applied atomically by [`StoreWrite::apply`].
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
    /// Full texts to write (whole-row upsert, no duplicate check: [`StoreWrite::enqueue`] is the way
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

/// The storage backend: its three parts together. Every backend implements [`StoreRead`],
/// [`StoreWrite`] and [`StoreVectors`]; this trait is implemented for any type that does, and is
/// what the engine holds (`Arc<dyn Store>`). See the module docs for the contract.
pub trait Store: StoreRead + StoreWrite + StoreVectors {}

impl<T: StoreRead + StoreWrite + StoreVectors + ?Sized> Store for T {}

/// The read part of the store: documents, chunks, extraction records, the graph, chunk lists,
/// listings, the LLM cache and the usage ledger. Reads see every commit that returned before they
/// started.
#[async_trait]
pub trait StoreRead: Send + Sync {
    /// A document's full text.
    async fn get_document(&self, id: &str) -> Result<Option<Document>, StoreError>;
    /// A document's status row.
    async fn get_doc_status(&self, id: &str) -> Result<Option<DocStatusRecord>, StoreError>;
    /// The indexed version a replacement of `id` waiting to be processed replaces (see
    /// [`PreviousVersion`]); `None` when no replacement of an indexed version is pending.
    async fn previous_version(&self, id: &str) -> Result<Option<PreviousVersion>, StoreError>;
    /// Status rows matching `filter`, and the total number matching it before paging.
    async fn list_docs(&self, filter: &DocFilter) -> Result<(Vec<DocStatusRecord>, usize), StoreError>;
    /// Number of documents per status.
    async fn status_counts(&self) -> Result<BTreeMap<DocStatus, usize>, StoreError>;
    /// Chunks by id, in the order asked (`None` for unknown ids).
    async fn get_chunks(&self, ids: &[String]) -> Result<Vec<Option<Chunk>>, StoreError>;
    /// Extraction records of the given chunks (unknown ids are skipped), ordered by `created_at`
    /// then chunk id.
    async fn get_extractions(&self, chunk_ids: &[String]) -> Result<Vec<ChunkExtraction>, StoreError>;
    /// Entities and relations a document contributed to.
    async fn get_doc_links(&self, doc_id: &str) -> Result<Option<DocLinks>, StoreError>;
    /// Entities by name, in the order asked.
    async fn get_entities(&self, names: &[String]) -> Result<Vec<Option<Entity>>, StoreError>;
    /// Relations by key, in the order asked.
    async fn get_relations(&self, keys: &[RelKey]) -> Result<Vec<Option<Relation>>, StoreError>;
    /// Number of relations touching each entity, in the order asked (0 for unknown names).
    async fn node_degrees(&self, names: &[String]) -> Result<Vec<usize>, StoreError>;
    /// Every relation touching any of the given entities (each once).
    async fn relations_of(&self, names: &[String]) -> Result<Vec<Relation>, StoreError>;
    /// The keys of every relation touching any of `names` (each once, sorted). The default reads
    /// the relations; a backend should answer from its indexes.
    async fn relation_keys_of(&self, names: &[String]) -> Result<Vec<RelKey>, StoreError> {
        let mut keys: Vec<RelKey> = self.relations_of(names).await?.into_iter().map(|r| r.key).collect();
        keys.sort();
        keys.dedup();
        Ok(keys)
    }
    /// The relations whose two ends are both among `names` (each once, sorted by key). The
    /// default reads every relation touching `names`; a backend should read only those kept.
    async fn relations_among(&self, names: &[String]) -> Result<Vec<Relation>, StoreError> {
        let set: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        let mut out: Vec<Relation> = self
            .relations_of(names)
            .await?
            .into_iter()
            .filter(|r| set.contains(r.key.src.as_str()) && set.contains(r.key.tgt.as_str()))
            .collect();
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out.dedup_by(|a, b| a.key == b.key);
        Ok(out)
    }
    /// The first `limit` relations touching `names` in the order of [`crate::ranking`] (edge
    /// degree, then weight, both descending), and how many relations touch them in all. The
    /// default reads every touching relation and ranks in memory; a backend should rank in the
    /// database so that only the returned relations are loaded.
    async fn ranked_relations_of(&self, names: &[String], limit: usize) -> Result<RankedRelations, StoreError> {
        let mut unique: Vec<String> = Vec::with_capacity(names.len());
        for n in names {
            if !unique.contains(n) {
                unique.push(n.clone());
            }
        }
        let relations = self.relations_of(&unique).await?;
        let total = relations.len();
        let mut ends: Vec<String> = relations.iter().flat_map(|r| [r.key.src.clone(), r.key.tgt.clone()]).collect();
        ends.sort();
        ends.dedup();
        let degrees = self.node_degrees(&ends).await?;
        let degree_of: std::collections::HashMap<String, usize> = ends.into_iter().zip(degrees).collect();
        Ok(RankedRelations { relations: crate::ranking::rank_relations(&unique, relations, &degree_of, limit), total })
    }
    /// Up to `top_k` chunks containing any word of `terms` (whole words, case-insensitive; a term
    /// is cut into its letter-and-digit runs), most relevant first: rare words and several words
    /// in one chunk count for more (BM25, or the backend's equivalent). No query syntax reaches
    /// the full-text engine. Empty for no words.
    async fn search_chunk_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError>;
    /// Up to `top_k` entities (the hit's key is the name) whose name or description contains any
    /// word of `terms` (the same words as [`StoreRead::search_chunk_text`]: whole words,
    /// case-insensitive, letter-and-digit runs), most relevant first: a word in the name counts
    /// for much more than one in the description (BM25 with the name weighted 10 to 1, or the
    /// backend's equivalent), rare words and several words count for more; ties by name. No query
    /// syntax reaches the full-text engine. Empty for no words or `top_k` 0.
    async fn search_entity_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError>;
    /// Up to `limit` entity names that contain `text` case-insensitively (at least for ASCII
    /// letters; `text` is matched literally, no wildcards), the label search's candidates:
    /// names that start with `text` first, then shorter names first, ties by name. Served from
    /// an index of the names where the backend has one, never by loading every name into the
    /// caller. Empty for an empty `text` or `limit` 0.
    async fn entity_names_containing(&self, text: &str, limit: usize) -> Result<Vec<String>, StoreError>;
    /// Up to `limit` chunk rows whose ids sort (bytewise) after `after`, as `(chunk id, doc id)`,
    /// sorted by chunk id. Walks every chunk, with or without a document (`lightrag check`).
    async fn chunk_keys_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<(String, String)>, StoreError>;
    /// The backend's own integrity check (SQLite's `integrity_check` and `foreign_key_check`,
    /// PostgreSQL's invalid indexes and stored dimensions that disagree with the vectors): one
    /// line per problem found, empty when the store is sound.
    async fn check_integrity(&self) -> Result<Vec<String>, StoreError>;
    /// Node and edge counts.
    async fn graph_counts(&self) -> Result<GraphCounts, StoreError>;
    /// Up to `limit` entity names with the highest degree, with their degree (ties by name).
    async fn top_entities(&self, limit: usize) -> Result<Vec<(String, usize)>, StoreError>;
    /// Up to `limit` entity names after `after` (all from the first when `None`), sorted.
    async fn entity_names(&self, after: Option<&str>, limit: usize) -> Result<Vec<String>, StoreError>;
    /// Up to `limit` entities whose names sort after `after`, sorted by name.
    async fn entities_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<Entity>, StoreError>;
    /// Up to `limit` relations whose keys sort after `after`, sorted by key.
    async fn relations_page(&self, after: Option<&RelKey>, limit: usize) -> Result<Vec<Relation>, StoreError>;
    /// A part of the chunk list of an entity or relation, in list order (empty when it has none).
    async fn chunk_list(&self, owner: &GraphKey, range: ListRange) -> Result<Vec<String>, StoreError>;
    /// `(chunk id, owner)` for every entity and relation whose chunk list holds one of
    /// `chunk_ids`, sorted by chunk id then owner.
    async fn chunk_owners(&self, chunk_ids: &[String]) -> Result<Vec<(String, GraphKey)>, StoreError>;
    /// A cached response.
    async fn cache_get(&self, key: &str) -> Result<Option<CacheEntry>, StoreError>;
    /// Up to `limit` LLM cache entries with keys after `after` (from the first when `None`), by key
    /// (bytewise order).
    async fn cache_page(&self, after: Option<&str>, limit: usize) -> Result<Vec<CacheEntry>, StoreError>;
    /// The embedding model and dimension recorded by [`StoreWrite::check_embedding_identity`]
    /// (`None` before the first check).
    async fn embedding_identity(&self) -> Result<Option<EmbeddingIdentity>, StoreError>;
    /// The usage ledger.
    async fn usage(&self) -> Result<Usage, StoreError>;
    /// How many pipeline cancellations were requested on this knowledge base so far (0 when
    /// never). A run that saw the count rise since it started stops: this is how a cancel reaches
    /// workers in other processes (no clock is compared).
    async fn cancel_generation(&self) -> Result<u64, StoreError>;
}

/// The write part of the store: the embedding identity, enqueueing and claiming documents, the
/// LLM cache, and atomic commits of a [`ChangeSet`].
#[async_trait]
pub trait StoreWrite: Send + Sync {
    /// Records `identity` on first use; afterwards fails with
    /// [`StoreError::EmbeddingMismatch`] if it differs from the stored one.
    async fn check_embedding_identity(&self, identity: &EmbeddingIdentity) -> Result<(), StoreError>;
    /// Stores new documents as `pending` in one transaction, recording duplicates (same id or same
    /// content hash as a stored document) as `failed` `dup-…` rows instead — except a new version
    /// of a known file: same id, a known file path, other content than the stored document and
    /// than every other document, and the stored one not `processing` (see
    /// [`NewDocument::replacement_row`]). Its text and status row are replaced (id, `created_at`
    /// and indexed chunks kept) and the outcome is [`EnqueueOutcome::Replaced`]; when it replaces
    /// an indexed version, that version's text and status row are kept as its
    /// [`PreviousVersion`] (an earlier one kept already stays). Each document's
    /// [`Admission`] may refuse it instead ([`EnqueueOutcome::Refused`], nothing written). The
    /// decision is taken inside the transaction ([`NewDocument::admit`]), so concurrent enqueues
    /// of one name or one content are decided one after the other.
    async fn enqueue(&self, docs: Vec<NewDocument>) -> Result<Vec<EnqueueOutcome>, StoreError>;
    /// Atomically moves claimable documents to `processing` under `owner`'s lease and returns them
    /// oldest first. Claimable: `pending`; `processing` with an expired lease or a dead owner;
    /// `failed` when `include_failed` (never duplicates).
    async fn claim(&self, request: &ClaimRequest) -> Result<Vec<DocStatusRecord>, StoreError>;
    /// Extends the lease on documents `owner` still holds; returns the ids it no longer holds.
    async fn renew_leases(&self, owner: &str, ids: &[String], lease_until: i64) -> Result<Vec<String>, StoreError>;
    /// Takes `owner`'s merge locks on `keys` until `until` (ms since the epoch), all or none:
    /// `true` when every key is now `owner`'s (it was free, its lock had expired at `now`, or
    /// `owner` held it already), `false` with nothing taken when another owner holds one. A
    /// pipeline holds the locks of the entity names a document merges while it builds and
    /// commits that document, so processes merging the same entity take turns instead of
    /// undoing each other's work; a lock of a process that died expires at `until`.
    async fn lock_keys(&self, owner: &str, keys: &[String], now: i64, until: i64) -> Result<bool, StoreError>;
    /// Releases `owner`'s merge locks on `keys` (keys it does not hold are left alone).
    async fn unlock_keys(&self, owner: &str, keys: &[String]) -> Result<(), StoreError>;
    /// Extends `owner`'s merge locks on `keys` to `until`; returns how many of them it holds.
    async fn renew_key_locks(&self, owner: &str, keys: &[String], until: i64) -> Result<usize, StoreError>;
    /// Releases every merge lock held by one of `owners` (processes known to be gone, whose locks
    /// would otherwise stand until they expire); returns how many were released.
    async fn release_locks_of(&self, owners: &[String]) -> Result<usize, StoreError>;
    /// Stores a response (replacing any entry with the same key). Durable on return.
    async fn cache_put(&self, entry: CacheEntry) -> Result<(), StoreError>;
    /// Deletes cache entries of the given types (all entries when `types` is empty); returns how many.
    async fn cache_clear(&self, types: &[String]) -> Result<usize, StoreError>;
    /// Deletes the cache entries with the given keys (unknown keys are ignored); returns how many.
    async fn cache_delete(&self, keys: &[String]) -> Result<usize, StoreError>;
    /// Applies a change set atomically (see the module docs).
    async fn apply(&self, changes: ChangeSet) -> Result<(), StoreError>;
    /// Removes every document, chunk, graph record, vector and link (not the LLM cache, not the
    /// usage ledger, not the embedding identity).
    async fn clear_all(&self) -> Result<(), StoreError>;
    /// Requests the cancellation of every pipeline run in progress on this knowledge base, in any
    /// process: raises [`StoreRead::cancel_generation`] by one and returns the new count.
    async fn request_cancel(&self) -> Result<u64, StoreError>;

    /// Starts or resumes re-embedding every vector for `target` (see [`crate::reembed`]): records
    /// the target; staged vectors of another target are discarded, those of the same target kept
    /// (a killed run resumes). Searches keep reading the live vectors. Returns how far it is.
    async fn reembed_begin(&self, target: &EmbeddingIdentity) -> Result<ReembedProgress, StoreError> {
        let _ = target;
        Err(crate::reembed::unsupported())
    }
    /// Up to `limit` live vectors of `kind` with keys after `after`, sorted by key, that have no
    /// staged vector of their current text. Fails when no re-embedding was begun.
    async fn reembed_pending(
        &self,
        kind: VectorKind,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<PendingVector>, StoreError> {
        let _ = (kind, after, limit);
        Err(crate::reembed::unsupported())
    }
    /// Stages new vectors of `kind` in one commit (replacing staged vectors of the same keys).
    /// Fails with [`StoreError::WrongDimension`] (writing nothing) when a vector does not have the
    /// target's dimension, and when no re-embedding was begun.
    async fn reembed_stage(&self, kind: VectorKind, rows: Vec<StagedVector>) -> Result<(), StoreError> {
        let _ = (kind, rows);
        Err(crate::reembed::unsupported())
    }
    /// In one commit: when every live vector has a staged vector of its current text, makes the
    /// staged vectors live, records the target as the embedding identity and ends the
    /// re-embedding; otherwise changes nothing and says how many are missing.
    async fn reembed_switch(&self) -> Result<SwitchOutcome, StoreError> {
        Err(crate::reembed::unsupported())
    }
}

/// One stored vector as [`StoreVectors::vector_keys_page`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorKeyInfo {
    /// The record's key.
    pub key: String,
    /// The dimension of its stored vector.
    pub dim: usize,
    /// Why no search can use it, when none can.
    pub flaw: Option<crate::VectorFlaw>,
}

impl VectorKeyInfo {
    /// A key with its vector, as a listing reports it.
    pub fn of(key: String, vector: &[f32]) -> VectorKeyInfo {
        VectorKeyInfo { key, dim: vector.len(), flaw: crate::vector_flaw(vector) }
    }
}

/// The vector part of the store: nearest-neighbour search over the three vector sets (chunks,
/// entities, relations). Vectors are written by [`StoreWrite::apply`] (which refuses a
/// [flawed](crate::vector_flaw) one); a backend serves search from a
/// [`VectorIndex`](crate::VectorIndex) or from its database's own index, and never serves a
/// flawed vector stored before (search, [`StoreVectors::get_vectors`] and
/// [`StoreVectors::similarities`] treat it as absent).
#[async_trait]
pub trait StoreVectors: Send + Sync {
    /// The `top_k` most similar records of `kind` with cosine similarity ≥ `min_score`, best first.
    async fn search_vectors(
        &self,
        kind: VectorKind,
        query: &[f32],
        top_k: usize,
        min_score: f32,
    ) -> Result<Vec<VectorHit>, StoreError>;
    /// Stored vectors by key, in the order asked (`None` for keys without a usable vector).
    async fn get_vectors(&self, kind: VectorKind, keys: &[String]) -> Result<Vec<Option<Vec<f32>>>, StoreError>;
    /// The cosine similarity of each stored vector of `keys` to `query`, in the order asked
    /// (`None` for keys without a usable vector, and for every key when `query` is unusable). A backend should score where the vectors are rather
    /// than ship them (a graph query scores thousands of candidate chunks).
    async fn similarities(
        &self,
        kind: VectorKind,
        keys: &[String],
        query: &[f32],
    ) -> Result<Vec<Option<f32>>, StoreError> {
        let vectors = self.get_vectors(kind, keys).await?;
        Ok(vectors
            .into_iter()
            .map(|v| v.map(|v| crate::vector_index::cosine(query, &v)).filter(|s| s.is_finite()))
            .collect())
    }
    /// Up to `limit` keys of the set `kind` that sort (bytewise) after `after`, sorted, each with
    /// the dimension of its stored vector and its [flaw](crate::VectorFlaw) (NaN, infinite or
    /// zero: a vector stored before writes refused them). Walks a whole set, whatever records
    /// exist (`lightrag check`).
    async fn vector_keys_page(
        &self,
        kind: VectorKind,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<VectorKeyInfo>, StoreError>;
    /// Number of vectors per set.
    async fn vector_counts(&self) -> Result<BTreeMap<VectorKind, usize>, StoreError>;
}
