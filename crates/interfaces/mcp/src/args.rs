//! The tools' arguments. Each type gives its tool's `inputSchema` (derived with [`schemars`]) and
//! is what a call's `arguments` are read into; unknown fields are refused, so a misspelt option
//! is reported rather than ignored.

use schemars::JsonSchema;
use serde::Deserialize;

/// How `query` retrieves.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Reads the question and picks the mode that suits it (the default).
    Auto,
    /// Entities matching the question's low-level keywords, and their relations.
    Local,
    /// Relations matching the high-level keywords, and their entities.
    Global,
    /// Local and global together.
    Hybrid,
    /// Vector search over the text chunks only.
    Naive,
    /// Hybrid plus vector search over chunks.
    Mix,
    /// No retrieval: the question goes to the LLM as it is.
    Bypass,
    /// Passages ranked by personalized PageRank over entities and passages (multi-hop questions).
    Ppr,
}

/// `query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryArgs {
    /// The question.
    pub query: String,
    /// Retrieval mode (default: the server's default mode).
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Return the retrieved context (entities, relations, chunks) instead of an answer.
    #[serde(default)]
    pub context_only: bool,
    /// List the documents the answer draws on (default true).
    #[serde(default)]
    pub include_references: Option<bool>,
    /// Entities / relations taken from vector search.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub top_k: Option<usize>,
    /// Text chunks kept.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub chunk_top_k: Option<usize>,
    /// Token budget of the whole prompt.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1_000_000))]
    pub max_total_tokens: Option<usize>,
    /// Answer format, e.g. "Multiple Paragraphs", "Bullet Points", "Single Paragraph".
    #[serde(default)]
    pub response_type: Option<String>,
    /// Extra instructions for the answer.
    #[serde(default)]
    pub user_prompt: Option<String>,
    /// High-level keywords to use instead of extracting them (with `ll_keywords`).
    #[serde(default)]
    pub hl_keywords: Vec<String>,
    /// Low-level keywords to use instead of extracting them (with `hl_keywords`).
    #[serde(default)]
    pub ll_keywords: Vec<String>,
    /// Only draw on some documents: by id, file name glob, metadata, creation or update time.
    /// Entities and relations count only through chunks of these documents.
    #[serde(default)]
    pub filter: Option<FilterArgs>,
}

/// `query`'s `filter`: all given criteria must hold.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FilterArgs {
    /// Document ids (any of them); at most 1,000.
    #[serde(default)]
    pub doc_ids: Vec<String>,
    /// Glob patterns on the document's file name (any of them), e.g. "*.md"; at most 100.
    #[serde(default)]
    pub file_paths: Vec<String>,
    /// Metadata given on insert: each key must hold this JSON value (or, for a stored array,
    /// contain it).
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// Created after this time (RFC 3339, YYYY-MM-DD, or Unix milliseconds).
    #[serde(default)]
    pub created_after: Option<String>,
    /// Created before this time.
    #[serde(default)]
    pub created_before: Option<String>,
    /// Last updated after this time.
    #[serde(default)]
    pub updated_after: Option<String>,
    /// Last updated before this time.
    #[serde(default)]
    pub updated_before: Option<String>,
}

/// `insert_text`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertTextArgs {
    /// The text to index.
    pub text: String,
    /// A file name for the document: it names it in references and gives its id (inserting the
    /// same name twice is refused). Without one, the id comes from the text.
    #[serde(default)]
    pub file_name: Option<String>,
    /// A JSON object kept with the document and matched by `query`'s `filter.metadata`.
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

/// `insert_file` on stdio: a file on the machine running `lightrag mcp`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertPathArgs {
    /// Path of the file, relative to the folder the server may read (`MCP_FILES_ROOT`, by default
    /// its working directory) or absolute under it. PDF, DOCX, PPTX, XLSX, HTML, … have their text
    /// extracted; other files are read as UTF-8 text.
    pub path: String,
    /// A JSON object kept with the document and matched by `query`'s `filter.metadata`.
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

/// How `insert_file`'s `content` is written.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// The file's text (the default).
    #[default]
    Text,
    /// The file's bytes in base64 (PDF, DOCX, PPTX, XLSX, …: their text is extracted as an
    /// upload's is).
    Base64,
}

/// `insert_file` over HTTP: the file's content.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertContentArgs {
    /// The file's text, or its bytes in base64 with `encoding: "base64"`.
    pub content: String,
    /// The file's name (names the document and gives its id; with base64 content its extension
    /// says how its text is read).
    pub file_name: String,
    /// `text` (default) or `base64`.
    #[serde(default)]
    pub encoding: Encoding,
    /// A JSON object kept with the document and matched by `query`'s `filter.metadata`.
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

/// A document status.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Waiting to be indexed.
    Pending,
    /// Being indexed.
    Processing,
    /// Indexed.
    Processed,
    /// Failed (or a duplicate).
    Failed,
}

/// `list_documents`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDocumentsArgs {
    /// Only documents with this status.
    #[serde(default)]
    pub status: Option<Status>,
    /// Page number, from 1.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub page: Option<usize>,
    /// Documents per page (1 to 200, default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub page_size: Option<usize>,
}

/// `document_status`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocumentStatusArgs {
    /// Document id (`doc-…`).
    pub doc_id: String,
}

/// `track_status`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackStatusArgs {
    /// Track id returned by `insert_text` or `insert_file`.
    pub track_id: String,
}

/// `delete_documents`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteDocumentsArgs {
    /// Ids of the documents to delete.
    #[schemars(length(min = 1))]
    pub doc_ids: Vec<String>,
    /// Also drop the cached LLM extraction answers of these documents.
    #[serde(default)]
    pub delete_llm_cache: bool,
}

/// `search_entities`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchEntitiesArgs {
    /// Part of an entity name (case-insensitive): exact matches first, then prefixes, then
    /// names containing it.
    pub query: String,
    /// Most names returned (1 to 100, default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
}

/// `get_entity`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityArgs {
    /// Exact entity name (see `search_entities`).
    pub name: String,
    /// Most source chunks returned with their text (1 to 500, default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub chunk_limit: Option<usize>,
}

/// `get_relation`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelationArgs {
    /// One end (exact entity name).
    pub source: String,
    /// The other end (relations are undirected).
    pub target: String,
    /// Most source chunks returned with their text (1 to 500, default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub chunk_limit: Option<usize>,
}

/// `graph_neighbourhood`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NeighbourhoodArgs {
    /// Exact entity name to start from.
    pub entity: String,
    /// Hops away from the entity (1 to 5, default 2).
    #[serde(default)]
    #[schemars(range(min = 1, max = 5))]
    pub depth: Option<usize>,
    /// Most entities returned (1 to 1000, default 50); the most connected are taken first at
    /// each hop.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub max_nodes: Option<usize>,
}
