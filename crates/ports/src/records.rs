//! Domain records that cross the store boundary.
//!
//! Times are Unix milliseconds (`i64`); interfaces format them as ISO-8601 where LightRAG does.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Lifecycle state of a document (LightRAG's lowercase `DocStatus` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocStatus {
    /// Enqueued, not started.
    Pending,
    /// Being processed (a worker holds a lease).
    Processing,
    /// Fully indexed.
    Processed,
    /// Failed with an error (or recorded as a duplicate).
    Failed,
}

impl DocStatus {
    /// Every status, in lifecycle order.
    pub const ALL: [DocStatus; 4] =
        [DocStatus::Pending, DocStatus::Processing, DocStatus::Processed, DocStatus::Failed];

    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            DocStatus::Pending => "pending",
            DocStatus::Processing => "processing",
            DocStatus::Processed => "processed",
            DocStatus::Failed => "failed",
        }
    }
}

impl fmt::Display for DocStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DocStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "pending" => Ok(DocStatus::Pending),
            "processing" => Ok(DocStatus::Processing),
            "processed" => Ok(DocStatus::Processed),
            "failed" => Ok(DocStatus::Failed),
            other => {
                Err(format!("unknown document status '{other}' (expected pending, processing, processed or failed)"))
            }
        }
    }
}

/// How a document is cut into chunks; stored with the document so a resumed run cuts it the same way.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkingOptions {
    /// Split on this string first (`split_by_character`).
    pub split_by_character: Option<String>,
    /// Only split on the string; a piece over the chunk size fails the document.
    #[serde(default)]
    pub split_by_character_only: bool,
    /// Chunk size in tokens for this document (per-request `chunking`); `None` = `CHUNK_SIZE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_token_size: Option<usize>,
    /// Overlap in tokens for this document; `None` = `CHUNK_OVERLAP_SIZE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_overlap_token_size: Option<usize>,
}

/// A document's full text as enqueued (LightRAG's `full_docs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// `doc-<md5>`.
    pub id: String,
    /// Full text.
    pub content: String,
    /// Canonical file name (basename) or `unknown_source`.
    pub file_path: String,
    /// MD5 of the normalised content, for duplicate detection.
    pub content_hash: String,
    /// Chunking options given at enqueue time.
    pub chunking: ChunkingOptions,
    /// Unix ms.
    pub created_at: i64,
}

/// The status row of a document (LightRAG's `doc_status`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocStatusRecord {
    /// Document id (`doc-…`, or `dup-…` for a recorded duplicate).
    pub id: String,
    /// Current state.
    pub status: DocStatus,
    /// Canonical file name or `unknown_source`.
    pub file_path: String,
    /// Track id of the enqueue call that created it.
    pub track_id: String,
    /// First 100 characters of the content.
    pub content_summary: String,
    /// Content length in characters.
    pub content_length: usize,
    /// MD5 of the normalised content.
    pub content_hash: String,
    /// Number of chunks, once chunked.
    pub chunks_count: Option<usize>,
    /// Chunk ids, once chunked.
    pub chunks_list: Vec<String>,
    /// Error text when failed.
    pub error_msg: Option<String>,
    /// Free-form metadata object (`is_duplicate`, `original_doc_id`, timings…).
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// Unix ms.
    pub created_at: i64,
    /// Unix ms.
    pub updated_at: i64,
    /// Worker holding the processing lease, while processing.
    pub lease_owner: Option<String>,
    /// Unix ms at which the lease expires.
    pub lease_until: Option<i64>,
}

/// One chunk of a document (LightRAG's `text_chunks`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// `{doc_id}-chunk-NNN`.
    pub id: String,
    /// Owning document.
    pub doc_id: String,
    /// Position in the document, from 0.
    pub order: u32,
    /// Token count.
    pub tokens: u32,
    /// Text (stripped).
    pub content: String,
    /// The document's file path.
    pub file_path: String,
}

/// An entity as one chunk's extraction stated it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractedEntity {
    /// Normalised name.
    pub name: String,
    /// Lower-case type without spaces.
    pub entity_type: String,
    /// Description from this chunk.
    pub description: String,
    /// The name the text used, when a merge renamed this record (`name` is then the entity it
    /// was merged into); `None` when `name` is as extracted. What makes a merge reversible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_as: Option<String>,
}

/// A relation as one chunk's extraction stated it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractedRelation {
    /// Source entity name as written (relations are undirected; see [`RelKey`]).
    pub src: String,
    /// Target entity name as written.
    pub tgt: String,
    /// Comma-separated keywords.
    pub keywords: String,
    /// Description from this chunk.
    pub description: String,
    /// Weight (1.0 unless stated).
    pub weight: f64,
    /// `src` as the text wrote it, when a merge renamed that end ([`ExtractedEntity::written_as`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src_written_as: Option<String>,
    /// `tgt` as the text wrote it, when a merge renamed that end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tgt_written_as: Option<String>,
}

/// The parsed extraction result of one chunk: the source of truth for rebuilds after deletion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkExtraction {
    /// The chunk.
    pub chunk_id: String,
    /// The chunk's document.
    pub doc_id: String,
    /// Entities found.
    pub entities: Vec<ExtractedEntity>,
    /// Relations found.
    pub relations: Vec<ExtractedRelation>,
    /// LLM cache keys whose responses produced this result (empty for LLM-free extraction).
    pub cache_keys: Vec<String>,
    /// Unix ms; rebuilds replay extractions in this order.
    pub created_at: i64,
    /// Relations a merge folded into one entity (both ends renamed to it): not part of the graph
    /// and never rebuilt, kept so that undoing the merge brings them back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folded_relations: Vec<ExtractedRelation>,
}

/// The key of an undirected relation: the two entity names in sorted order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RelKey {
    /// The smaller name.
    pub src: String,
    /// The larger name.
    pub tgt: String,
}

impl RelKey {
    /// Builds the key of the undirected pair `{a, b}`.
    pub fn new(a: impl Into<String>, b: impl Into<String>) -> Self {
        let (a, b) = (a.into(), b.into());
        if a <= b { RelKey { src: a, tgt: b } } else { RelKey { src: b, tgt: a } }
    }
}

impl fmt::Display for RelKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -- {}", self.src, self.tgt)
    }
}

/// A node of the knowledge graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entity {
    /// Unique name (`entity_id`).
    pub name: String,
    /// Type (lower-case, or `UNKNOWN` for a node created by a relation endpoint).
    pub entity_type: String,
    /// Description: an LLM summary or fragments joined with `<SEP>`.
    pub description: String,
    /// Chunk ids shown as provenance (`source_id`), cut to `MAX_SOURCE_IDS_PER_ENTITY`.
    pub source_ids: Vec<String>,
    /// How many chunks contributed: the length of the uncut chunk list (LightRAG's
    /// `entity_chunks`), which the store keeps as rows ([`GraphKey`], [`ChunkListEdit`]). Kept by
    /// the store: ignored when the entity is written.
    pub chunk_count: usize,
    /// File paths of the contributing documents, cut to `MAX_FILE_PATHS` (may end with a placeholder).
    pub file_paths: Vec<String>,
    /// Unix ms of the last merge.
    pub created_at: i64,
    /// `""`, or how the source ids were cut (`KEEP Old` / `FIFO n/m`).
    pub truncate: String,
    /// Optimistic-concurrency version, assigned by the store (0 for a record not yet stored).
    pub version: u64,
}

/// An undirected edge of the knowledge graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relation {
    /// Sorted endpoint pair.
    pub key: RelKey,
    /// Summed weight.
    pub weight: f64,
    /// Sorted, comma-joined keywords.
    pub keywords: String,
    /// Description: an LLM summary or fragments joined with `<SEP>`.
    pub description: String,
    /// Chunk ids shown as provenance, cut to `MAX_SOURCE_IDS_PER_RELATION`.
    pub source_ids: Vec<String>,
    /// How many chunks contributed (the length of the uncut chunk list, kept by the store;
    /// ignored when the relation is written).
    pub chunk_count: usize,
    /// File paths, cut to `MAX_FILE_PATHS`.
    pub file_paths: Vec<String>,
    /// Unix ms of the last merge.
    pub created_at: i64,
    /// `""` or how the source ids were cut.
    pub truncate: String,
    /// Optimistic-concurrency version, assigned by the store.
    pub version: u64,
}

/// An entity or a relation: the owner of a chunk list.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum GraphKey {
    /// The entity of this name.
    Entity(String),
    /// The relation of this key (either order).
    Relation(RelKey),
}

/// A change to the uncut, ordered chunk list of an entity or relation (LightRAG's
/// `entity_chunks` / `relation_chunks`). The list holds each chunk id once, in the order the
/// chunks were merged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChunkListEdit {
    /// Adds these chunks after the listed ones, in order; chunks already listed are skipped.
    Append(Vec<String>),
    /// Removes these chunks (ids not listed are ignored); the others keep their order.
    Remove(Vec<String>),
    /// Replaces the whole list (a repeated id is kept once, at its first place).
    Replace(Vec<String>),
}

/// Which part of a chunk list to read: `limit` ids starting `offset` ids from the start, or
/// (`from_end`) ending `offset` ids before the end. The ids come back in list order either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListRange {
    /// Count from the end of the list.
    pub from_end: bool,
    /// Ids skipped (from the start, or from the end).
    pub offset: usize,
    /// At most this many ids.
    pub limit: usize,
}

impl ListRange {
    /// The whole list.
    pub const ALL: ListRange = ListRange { from_end: false, offset: 0, limit: usize::MAX };

    /// The first `n` ids.
    pub fn first(n: usize) -> Self {
        ListRange { from_end: false, offset: 0, limit: n }
    }

    /// The last `n` ids.
    pub fn last(n: usize) -> Self {
        ListRange { from_end: true, offset: 0, limit: n }
    }
}

/// Relations touching some entities, best first (see [`crate::GraphReads::ranked_relations_of`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankedRelations {
    /// The first relations in rank order.
    pub relations: Vec<Relation>,
    /// How many relations touch the entities in all.
    pub total: usize,
}

/// Which vector set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VectorKind {
    /// Entity vectors, keyed by entity name.
    Entity,
    /// Relation vectors, keyed by [`VectorRecord::relation_key`].
    Relation,
    /// Chunk vectors, keyed by chunk id.
    Chunk,
}

impl VectorKind {
    /// All three sets.
    pub const ALL: [VectorKind; 3] = [VectorKind::Entity, VectorKind::Relation, VectorKind::Chunk];
    /// Short name.
    pub fn as_str(self) -> &'static str {
        match self {
            VectorKind::Entity => "entity",
            VectorKind::Relation => "relation",
            VectorKind::Chunk => "chunk",
        }
    }
}

/// One stored vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorRecord {
    /// Which set.
    pub kind: VectorKind,
    /// Lookup key: entity name, chunk id, or `src\u{1f}tgt` for relations.
    pub key: String,
    /// The text that was embedded.
    pub content: String,
    /// The vector (L2-normalised by the store on write).
    pub vector: Vec<f32>,
}

impl VectorRecord {
    /// The key under which a relation's vector is stored.
    pub fn relation_key(key: &RelKey) -> String {
        format!("{}\u{1f}{}", key.src, key.tgt)
    }

    /// Parses a relation vector key back into a [`RelKey`].
    pub fn parse_relation_key(key: &str) -> Option<RelKey> {
        key.split_once('\u{1f}').map(|(a, b)| RelKey::new(a, b))
    }
}

/// A vector search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorHit {
    /// The record's key.
    pub key: String,
    /// Cosine similarity in [-1, 1].
    pub score: f32,
}

/// A lexical (full-text) search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextHit {
    /// The record's key.
    pub key: String,
    /// Relevance, higher is better; comparable only within one search (BM25 on SQLite,
    /// `ts_rank_cd` on PostgreSQL).
    pub score: f32,
}

/// The words a lexical search looks for: the letter-and-digit runs of `terms`, lower-cased,
/// sorted, each once (what [`TextSearch::search_chunk_text`](crate::TextSearch::search_chunk_text)
/// and [`TextSearch::search_entity_text`](crate::TextSearch::search_entity_text) mean by a word, in
/// every backend).
pub fn text_search_words(terms: &[String]) -> Vec<String> {
    let mut words: Vec<String> = terms
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect::<Vec<_>>())
        .filter(|w| !w.is_empty())
        .collect();
    words.sort();
    words.dedup();
    words
}

/// Which entities and relations a document contributed to (LightRAG's `full_entities` /
/// `full_relations`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocLinks {
    /// Document id.
    pub doc_id: String,
    /// Entity names.
    pub entities: Vec<String>,
    /// Relation keys.
    pub relations: Vec<RelKey>,
}

/// A cached LLM response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// `{mode}:{cache_type}:{hash}`.
    pub key: String,
    /// `extract`, `summary`, `keywords` or `query`.
    pub cache_type: String,
    /// The response text.
    pub response: String,
    /// Chunk the call was made for, if any.
    pub chunk_id: Option<String>,
    /// Unix ms.
    pub created_at: i64,
}

/// What an LLM or embedding call was for, in the usage ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageRole {
    /// Entity/relation extraction (incl. gleaning).
    Extract,
    /// Description summaries.
    Summary,
    /// Query keyword extraction.
    Keywords,
    /// Answer generation.
    Answer,
    /// Embeddings.
    Embed,
    /// Reranking of query chunks.
    Rerank,
}

impl UsageRole {
    /// Every role.
    pub const ALL: [UsageRole; 6] = [
        UsageRole::Extract,
        UsageRole::Summary,
        UsageRole::Keywords,
        UsageRole::Answer,
        UsageRole::Embed,
        UsageRole::Rerank,
    ];

    /// Whether calls of this role go to the chat model (not the embedder or the reranker).
    pub fn is_chat(self) -> bool {
        !matches!(self, UsageRole::Embed | UsageRole::Rerank)
    }

    /// Lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageRole::Extract => "extract",
            UsageRole::Summary => "summary",
            UsageRole::Keywords => "keywords",
            UsageRole::Answer => "answer",
            UsageRole::Embed => "embed",
            UsageRole::Rerank => "rerank",
        }
    }
}

/// Usage counters for one role.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageCounters {
    /// Calls that reached the provider.
    pub calls: u64,
    /// Calls answered from the cache.
    pub cache_hits: u64,
    /// Input tokens.
    pub tokens_in: u64,
    /// Output tokens.
    pub tokens_out: u64,
}

impl UsageCounters {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &UsageCounters) {
        self.calls += other.calls;
        self.cache_hits += other.cache_hits;
        self.tokens_in += other.tokens_in;
        self.tokens_out += other.tokens_out;
    }
}

/// Counters per role.
pub type Usage = std::collections::BTreeMap<UsageRole, UsageCounters>;

/// Node and edge counts of the graph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphCounts {
    /// Entities.
    pub nodes: usize,
    /// Relations.
    pub edges: usize,
}
