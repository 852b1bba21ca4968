//! LightRAG's JSON key-value files (`JsonKVStorage`, `JsonDocStatusStorage`): one JSON object
//! `{key: record}` per file. Read leniently: a record that does not have the expected shape is
//! reported by key and skipped, the others are kept; a missing file reads as empty.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::Path;

use serde::Deserialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::{Map, Value};

/// A record that parsed, or one that did not (its content is skipped).
#[derive(Deserialize)]
#[serde(untagged)]
enum Lenient<T> {
    Good(T),
    Bad(IgnoredAny),
}

/// What became of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileState {
    /// The file does not exist.
    Missing,
    /// Read; `records` records, `bad` of which were skipped.
    Read {
        /// Records in the file.
        records: usize,
    },
    /// The file exists but is not readable JSON of the expected shape.
    Unreadable(String),
}

/// One KV file: its good records by key, the keys of records that were skipped, and its state.
#[derive(Debug)]
pub struct KvFile<T> {
    /// Records that parsed, by key.
    pub records: BTreeMap<String, T>,
    /// Keys of records without the expected fields.
    pub bad: Vec<String>,
    /// Whether the file was there and readable.
    pub state: FileState,
}

impl<T> Default for KvFile<T> {
    fn default() -> Self {
        Self { records: BTreeMap::new(), bad: Vec::new(), state: FileState::Missing }
    }
}

/// Reads `dir/name` as `{key: T}`.
pub fn read_kv<T: DeserializeOwned>(dir: &Path, name: &str) -> KvFile<T> {
    let parsed: Result<BTreeMap<String, Lenient<T>>, FileState> = read_json(dir, name);
    match parsed {
        Ok(map) => {
            let total = map.len();
            let mut file =
                KvFile { records: BTreeMap::new(), bad: Vec::new(), state: FileState::Read { records: total } };
            for (key, value) in map {
                match value {
                    Lenient::Good(v) => {
                        file.records.insert(key, v);
                    }
                    Lenient::Bad(_) => file.bad.push(key),
                }
            }
            file
        }
        Err(state) => KvFile { state, ..KvFile::default() },
    }
}

/// Reads a whole JSON file into `T`; `Err` carries the file's state (missing or unreadable).
pub(crate) fn read_json<T: DeserializeOwned>(dir: &Path, name: &str) -> Result<T, FileState> {
    let path = dir.join(name);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(FileState::Missing),
        Err(e) => return Err(FileState::Unreadable(format!("cannot open it: {e}"))),
    };
    serde_json::from_reader(BufReader::new(file)).map_err(|e| {
        FileState::Unreadable(format!(
            "not valid JSON of the expected shape ({e}); it may have been cut short when LightRAG was stopped"
        ))
    })
}

/// A timestamp as LightRAG writes it: Unix seconds (integer or float) or an ISO-8601 string.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Stamp {
    /// Unix seconds.
    Seconds(f64),
    /// ISO-8601, with or without an offset (UTC assumed without).
    Iso(String),
}

impl Stamp {
    /// Unix milliseconds, when the value is readable.
    pub fn millis(&self) -> Option<i64> {
        match self {
            Stamp::Seconds(s) if s.is_finite() => Some((s * 1000.0).round() as i64),
            Stamp::Seconds(_) => None,
            Stamp::Iso(s) => {
                let s = s.trim();
                chrono::DateTime::parse_from_rfc3339(s).map(|d| d.timestamp_millis()).ok().or_else(|| {
                    chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
                        .ok()
                        .map(|d| d.and_utc().timestamp_millis())
                })
            }
        }
    }
}

/// `kv_store_full_docs.json`: a document's text as LightRAG chunked it.
#[derive(Debug, Clone, Deserialize)]
pub struct FullDoc {
    /// The text.
    pub content: String,
    /// Canonical file name.
    #[serde(default)]
    pub file_path: Option<String>,
    /// MD5 of the content.
    #[serde(default)]
    pub content_hash: Option<String>,
    /// `{chunk_token_size, fixed_token: {split_by_character, split_by_character_only, …}}`.
    #[serde(default)]
    pub chunk_options: Option<Value>,
    /// Unix seconds.
    #[serde(default)]
    pub create_time: Option<Stamp>,
}

/// `kv_store_doc_status.json`: a document's status row.
#[derive(Debug, Clone, Deserialize)]
pub struct DocStatusRow {
    /// `pending`, `parsing`, `analyzing`, `processing`, `preprocessed`, `processed`, `failed`.
    pub status: String,
    /// First characters of the content.
    #[serde(default)]
    pub content_summary: Option<String>,
    /// Characters of content.
    #[serde(default)]
    pub content_length: Option<u64>,
    /// Creation time.
    #[serde(default)]
    pub created_at: Option<Stamp>,
    /// Last update.
    #[serde(default)]
    pub updated_at: Option<Stamp>,
    /// Canonical file name.
    #[serde(default)]
    pub file_path: Option<String>,
    /// Track id of the insert.
    #[serde(default)]
    pub track_id: Option<String>,
    /// MD5 of the content.
    #[serde(default)]
    pub content_hash: Option<String>,
    /// Free-form metadata.
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
    /// Number of chunks.
    #[serde(default)]
    pub chunks_count: Option<u64>,
    /// Chunk ids in order.
    #[serde(default)]
    pub chunks_list: Option<Vec<String>>,
    /// Error of a failed document.
    #[serde(default)]
    pub error_msg: Option<String>,
}

/// `kv_store_text_chunks.json`: one chunk.
#[derive(Debug, Clone, Deserialize)]
pub struct TextChunk {
    /// Token-window length.
    #[serde(default)]
    pub tokens: Option<u64>,
    /// The text.
    pub content: String,
    /// Position in the document.
    #[serde(default)]
    pub chunk_order_index: Option<u64>,
    /// The document.
    #[serde(default)]
    pub full_doc_id: Option<String>,
    /// The document's file name.
    #[serde(default)]
    pub file_path: Option<String>,
    /// Keys of this chunk's extraction cache entries, in call order.
    #[serde(default)]
    pub llm_cache_list: Option<Vec<String>>,
}

/// `kv_store_full_entities.json`: what one document contributed.
#[derive(Debug, Clone, Deserialize)]
pub struct DocEntities {
    /// Entity names.
    pub entity_names: Vec<String>,
}

/// `kv_store_full_relations.json`: what one document contributed.
#[derive(Debug, Clone, Deserialize)]
pub struct DocRelations {
    /// Endpoint pairs.
    pub relation_pairs: Vec<Vec<String>>,
}

/// `kv_store_entity_chunks.json` / `kv_store_relation_chunks.json`: every chunk of a record.
#[derive(Debug, Clone, Deserialize)]
pub struct ChunkIds {
    /// Chunk ids in merge order (not cut to the source-id limit).
    pub chunk_ids: Vec<String>,
}

/// One entry of `kv_store_llm_response_cache.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct CacheRow {
    /// The model's answer.
    #[serde(rename = "return")]
    pub answer: String,
    /// `extract`, `summary`, `keywords`, `query`, …
    #[serde(default)]
    pub cache_type: Option<String>,
    /// The chunk of an extraction.
    #[serde(default)]
    pub chunk_id: Option<String>,
    /// The prompt (extraction, summary) or the question (keywords, query).
    #[serde(default)]
    pub original_prompt: Option<String>,
    /// The query parameters of keyword and query entries.
    #[serde(default)]
    pub queryparam: Option<Value>,
    /// Unix seconds.
    #[serde(default)]
    pub create_time: Option<Stamp>,
}

/// A top-level value of the cache file: an entry (LightRAG ≥ 1.4: flat `{mode}:{type}:{hash}`
/// keys), or a map of entries under a mode (older releases: `{mode: {hash: entry}}`).
#[derive(Deserialize)]
#[serde(untagged)]
enum CacheValue {
    Row(CacheRow),
    Nested(BTreeMap<String, Lenient<CacheRow>>),
    Bad(IgnoredAny),
}

/// Reads the LLM cache, flattening the older nested layout into `{mode}:{type}:{hash}` keys.
pub fn read_cache(dir: &Path) -> KvFile<CacheRow> {
    let parsed: Result<BTreeMap<String, CacheValue>, FileState> = read_json(dir, super::LLM_CACHE);
    let map = match parsed {
        Ok(map) => map,
        Err(state) => return KvFile { state, ..KvFile::default() },
    };
    let mut file = KvFile { records: BTreeMap::new(), bad: Vec::new(), state: FileState::Read { records: 0 } };
    let mut total = 0;
    for (key, value) in map {
        match value {
            CacheValue::Row(row) => {
                total += 1;
                file.records.insert(key, row);
            }
            CacheValue::Nested(rows) => {
                for (hash, row) in rows {
                    total += 1;
                    match row {
                        Lenient::Good(row) => {
                            let cache_type = row.cache_type.clone().unwrap_or_else(|| "extract".to_string());
                            file.records.insert(format!("{key}:{cache_type}:{hash}"), row);
                        }
                        Lenient::Bad(_) => file.bad.push(format!("{key}/{hash}")),
                    }
                }
            }
            CacheValue::Bad(_) => {
                total += 1;
                file.bad.push(key);
            }
        }
    }
    file.state = FileState::Read { records: total };
    file
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn bad_records_are_skipped_and_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("kv_store_full_entities.json"),
            r#"{"doc-1": {"entity_names": ["A", "B"], "count": 2}, "doc-2": {"count": 1}}"#,
        )
        .unwrap();
        let file: KvFile<DocEntities> = read_kv(dir.path(), "kv_store_full_entities.json");
        assert_eq!(file.records.len(), 1);
        assert_eq!(file.records["doc-1"].entity_names, ["A", "B"]);
        assert_eq!(file.bad, ["doc-2"]);
        assert_eq!(file.state, FileState::Read { records: 2 });
        let missing: KvFile<DocEntities> = read_kv(dir.path(), "nope.json");
        assert_eq!(missing.state, FileState::Missing);
        std::fs::write(dir.path().join("cut.json"), r#"{"doc-1": {"entity_na"#).unwrap();
        let cut: KvFile<DocEntities> = read_kv(dir.path(), "cut.json");
        assert!(matches!(cut.state, FileState::Unreadable(ref why) if why.contains("cut short")), "{:?}", cut.state);
    }

    #[test]
    fn the_older_nested_cache_layout_is_flattened() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(crate::source::LLM_CACHE),
            r#"{"default": {"abc": {"return": "x", "cache_type": "extract", "chunk_id": "c1"}},
                "mix:keywords:9": {"return": "{}", "cache_type": "keywords", "original_prompt": "q"},
                "junk": 5}"#,
        )
        .unwrap();
        let cache = read_cache(dir.path());
        let keys: Vec<&String> = cache.records.keys().collect();
        assert_eq!(keys, ["default:extract:abc", "mix:keywords:9"]);
        assert_eq!(cache.bad, ["junk"]);
    }

    #[test]
    fn stamps_read_seconds_and_iso() {
        assert_eq!(Stamp::Seconds(1.5).millis(), Some(1500));
        assert_eq!(Stamp::Iso("2026-12-01T15:14:49.774574+00:00".into()).millis(), Some(1_796_138_089_774));
        assert_eq!(Stamp::Iso("2026-12-01T15:14:49".into()).millis(), Some(1_796_138_089_000));
        assert_eq!(Stamp::Iso("yesterday".into()).millis(), None);
    }
}
