//! What a query returns: the retrieval data ([`QueryData`], the content of LightRAG's
//! `/query/data`) and the [`Answer`].
//!
//! These are engine types: chunk ids and file paths of entities and relations are lists. LightRAG's
//! wire form of them (`source_id` and `file_path` joined with `<SEP>`) is made by the server
//! (`lightrag_server::routes::query_data_body`).

use std::fmt;

use lightrag_ports::{Entity, Relation, TextStream};
use serde::{Deserialize, Serialize};

use super::trace::{QueryTrace, TraceFinisher};

/// The result of [`crate::Engine::query`].
#[derive(Debug)]
pub struct QueryResult {
    /// What was retrieved (also what `/query/data` returns).
    pub data: QueryData,
    /// The answer, or what was asked for instead of one.
    pub answer: Answer,
    /// Why this answer: the records' scores and origins, the usage and the timings. Complete,
    /// except for a streamed answer: see `finisher`.
    pub trace: QueryTrace,
    /// Completes `trace` once a streamed answer has ended (its output tokens and duration).
    pub finisher: TraceFinisher,
}

/// The result of [`crate::Engine::query_data_traced`]: retrieval data and its trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TracedData {
    /// What was retrieved (what `/query/data` returns).
    pub data: QueryData,
    /// The records' scores and origins, the usage (no answer part) and the timings.
    pub trace: QueryTrace,
}

/// The answer part of a query result.
pub enum Answer {
    /// A complete answer from the LLM.
    Text(String),
    /// An answer being streamed by the LLM.
    Stream(TextStream),
    /// The retrieved context string (`only_need_context`, or no LLM configured).
    Context(String),
    /// The full prompt (`only_need_prompt`).
    Prompt(String),
    /// Nothing was retrieved: LightRAG's fail response.
    NoContext(String),
}

impl Answer {
    /// The text of a non-streamed answer (`None` for a stream).
    pub fn text(&self) -> Option<&str> {
        match self {
            Answer::Text(s) | Answer::Context(s) | Answer::Prompt(s) | Answer::NoContext(s) => Some(s),
            Answer::Stream(_) => None,
        }
    }
}

impl fmt::Debug for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Text(s) => f.debug_tuple("Text").field(s).finish(),
            Answer::Stream(_) => f.write_str("Stream(..)"),
            Answer::Context(s) => f.debug_tuple("Context").field(s).finish(),
            Answer::Prompt(s) => f.debug_tuple("Prompt").field(s).finish(),
            Answer::NoContext(s) => f.debug_tuple("NoContext").field(s).finish(),
        }
    }
}

/// `success` or `failure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryStatus {
    /// Something was retrieved (or bypass mode).
    Success,
    /// Nothing was retrieved.
    Failure,
}

/// The unified query result of LightRAG (`aquery_data`), without the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryData {
    /// `success` or `failure`.
    pub status: QueryStatus,
    /// A human-readable message.
    pub message: String,
    /// The retrieved records (`{}` in bypass mode and on failure).
    pub data: DataSection,
    /// Mode, keywords and counts (`{}` in bypass mode).
    pub metadata: Metadata,
}

/// The `data` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum DataSection {
    /// Entities, relationships, chunks and references.
    Retrieved(RetrievedData),
    /// `{}`.
    Empty(Empty),
}

/// An empty JSON object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Empty {}

/// The records a query retrieved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RetrievedData {
    /// Entities kept after truncation.
    pub entities: Vec<EntityData>,
    /// Relations kept after truncation.
    pub relationships: Vec<RelationData>,
    /// Chunks kept after truncation.
    pub chunks: Vec<ChunkData>,
    /// The reference list.
    pub references: Vec<Reference>,
}

/// An entity as returned in `data.entities`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityData {
    /// Name.
    pub entity_name: String,
    /// Type.
    pub entity_type: String,
    /// Description.
    pub description: String,
    /// Chunk ids (LightRAG's `source_id`).
    pub source_ids: Vec<String>,
    /// File paths (LightRAG's `file_path`).
    pub file_paths: Vec<String>,
    /// Unix seconds of the last merge.
    pub created_at: i64,
}

impl From<&Entity> for EntityData {
    fn from(e: &Entity) -> Self {
        Self {
            entity_name: e.name.clone(),
            entity_type: e.entity_type.clone(),
            description: e.description.clone(),
            source_ids: e.source_ids.clone(),
            file_paths: e.file_paths.clone(),
            created_at: e.created_at.div_euclid(1000),
        }
    }
}

/// A relation as returned in `data.relationships`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelationData {
    /// One endpoint.
    pub src_id: String,
    /// The other endpoint.
    pub tgt_id: String,
    /// Description.
    pub description: String,
    /// Comma-separated keywords.
    pub keywords: String,
    /// Weight.
    pub weight: f64,
    /// Chunk ids (LightRAG's `source_id`).
    pub source_ids: Vec<String>,
    /// File paths (LightRAG's `file_path`).
    pub file_paths: Vec<String>,
    /// Unix seconds of the last merge.
    pub created_at: i64,
}

impl From<&Relation> for RelationData {
    fn from(r: &Relation) -> Self {
        Self {
            src_id: r.key.src.clone(),
            tgt_id: r.key.tgt.clone(),
            description: r.description.clone(),
            keywords: r.keywords.clone(),
            weight: r.weight,
            source_ids: r.source_ids.clone(),
            file_paths: r.file_paths.clone(),
            created_at: r.created_at.div_euclid(1000),
        }
    }
}

/// A chunk as returned in `data.chunks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkData {
    /// Its file's id in the reference list (`""` when the file is unknown).
    pub reference_id: String,
    /// Text.
    pub content: String,
    /// File path.
    pub file_path: String,
    /// Chunk id.
    pub chunk_id: String,
}

/// One entry of the reference list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// `"1"`, `"2"`, …
    pub reference_id: String,
    /// The file.
    pub file_path: String,
}

/// The `metadata` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Metadata {
    /// After a retrieval.
    Retrieval(RetrievalMetadata),
    /// After a retrieval that found nothing.
    Failure(FailureMetadata),
    /// `{}` (bypass mode).
    Empty(Empty),
}

/// Metadata of a retrieval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalMetadata {
    /// The mode used.
    pub query_mode: String,
    /// The keywords used.
    pub keywords: KeywordsInfo,
    /// Counts along the pipeline.
    pub processing_info: ProcessingInfo,
    /// What the `auto` mode chose and why (absent for the other modes; not a LightRAG field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<super::auto::AutoChoice>,
    /// The query filter applied, when one was given (not a LightRAG field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<FilterInfo>,
}

/// What a query filter let through (not a LightRAG field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilterInfo {
    /// Always true: a filter was applied.
    pub applied: bool,
    /// Processed documents that pass.
    pub documents: usize,
    /// Their chunks.
    pub chunks: usize,
}

/// Keywords as shown in the metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeywordsInfo {
    /// High-level keywords.
    pub high_level: Vec<String>,
    /// Low-level keywords.
    pub low_level: Vec<String>,
}

/// Counts along the pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProcessingInfo {
    /// Knowledge-graph modes.
    Graph {
        /// Entities found before truncation.
        total_entities_found: usize,
        /// Relations found before truncation.
        total_relations_found: usize,
        /// Entities kept.
        entities_after_truncation: usize,
        /// Relations kept.
        relations_after_truncation: usize,
        /// Chunks after the round-robin merge.
        merged_chunks_count: usize,
        /// Chunks kept in the end.
        final_chunks_count: usize,
    },
    /// Naive mode.
    Naive {
        /// Chunks found by vector search.
        total_chunks_found: usize,
        /// Chunks kept in the end.
        final_chunks_count: usize,
    },
}

/// Metadata of a failed retrieval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureMetadata {
    /// Always `no_results`.
    pub failure_reason: String,
    /// The mode used.
    pub mode: String,
    /// The query filter applied, when one was given (not a LightRAG field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<FilterInfo>,
}

impl QueryData {
    /// A failed retrieval (`Query returned no results`).
    pub fn failure(mode: &str, message: &str) -> Self {
        Self {
            status: QueryStatus::Failure,
            message: message.to_string(),
            data: DataSection::Empty(Empty {}),
            metadata: Metadata::Failure(FailureMetadata {
                failure_reason: "no_results".to_string(),
                mode: mode.to_string(),
                filter: None,
            }),
        }
    }

    /// Bypass mode: no retrieval, `data` and `metadata` empty.
    pub fn bypass(message: &str) -> Self {
        Self {
            status: QueryStatus::Success,
            message: message.to_string(),
            data: DataSection::Empty(Empty {}),
            metadata: Metadata::Empty(Empty {}),
        }
    }

    /// The retrieved records, if any.
    pub fn retrieved(&self) -> Option<&RetrievedData> {
        match &self.data {
            DataSection::Retrieved(d) => Some(d),
            DataSection::Empty(_) => None,
        }
    }

    /// What the query's filter let through (`None` without a filter).
    pub fn filter_info(&self) -> Option<FilterInfo> {
        match &self.metadata {
            Metadata::Retrieval(m) => m.filter,
            Metadata::Failure(m) => m.filter,
            Metadata::Empty(_) => None,
        }
    }

    /// The reference list (empty when nothing was retrieved).
    pub fn references(&self) -> &[Reference] {
        self.retrieved().map(|d| d.references.as_slice()).unwrap_or(&[])
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn failure_and_bypass_serialise_like_lightrag() {
        let fail = serde_json::to_value(QueryData::failure("mix", "Query returned no results")).unwrap();
        assert_eq!(
            fail,
            serde_json::json!({
                "status": "failure",
                "message": "Query returned no results",
                "data": {},
                "metadata": {"failure_reason": "no_results", "mode": "mix"}
            })
        );
        let bypass = serde_json::to_value(QueryData::bypass("ok")).unwrap();
        assert_eq!(bypass["data"], serde_json::json!({}));
        assert_eq!(bypass["metadata"], serde_json::json!({}));
    }

    #[test]
    fn success_serialises_and_round_trips() {
        let data = QueryData {
            status: QueryStatus::Success,
            message: "Query processed successfully".into(),
            data: DataSection::Retrieved(RetrievedData {
                entities: vec![],
                relationships: vec![],
                chunks: vec![ChunkData {
                    reference_id: "1".into(),
                    content: "text".into(),
                    file_path: "a.md".into(),
                    chunk_id: "c1".into(),
                }],
                references: vec![Reference { reference_id: "1".into(), file_path: "a.md".into() }],
            }),
            metadata: Metadata::Retrieval(RetrievalMetadata {
                query_mode: "naive".into(),
                keywords: KeywordsInfo::default(),
                processing_info: ProcessingInfo::Naive { total_chunks_found: 3, final_chunks_count: 1 },
                auto: None,
                filter: None,
            }),
        };
        let json = serde_json::to_value(&data).unwrap();
        assert_eq!(json["data"]["chunks"][0]["reference_id"], "1");
        assert_eq!(json["data"]["entities"], serde_json::json!([]));
        assert_eq!(
            json["metadata"],
            serde_json::json!({
                "query_mode": "naive",
                "keywords": {"high_level": [], "low_level": []},
                "processing_info": {"total_chunks_found": 3, "final_chunks_count": 1}
            })
        );
        let back: QueryData = serde_json::from_value(json).unwrap();
        assert_eq!(back, data);
        let fail: QueryData =
            serde_json::from_value(serde_json::to_value(QueryData::failure("local", "x")).unwrap()).unwrap();
        assert_eq!(fail, QueryData::failure("local", "x"));
    }
}
