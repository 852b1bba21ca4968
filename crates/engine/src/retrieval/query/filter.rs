//! Query-time filters ([`QueryFilter`]): which documents a query may draw on — by id, by file
//! path glob, by the caller's metadata and by created/updated time. All given criteria must hold.
//!
//! A query resolves its filter once ([`resolve`]) into a [`Scope`]: the passing (processed)
//! documents and their chunks. Retrieval then reads the store through
//! [`super::scoped::ScopedStore`], which hides everything without a passing chunk.
//!
//! A filter's size is bounded ([`QueryFilter::validate`], called by every front end and again by
//! [`resolve`]): at most [`MAX_FILTER_DOC_IDS`] ids, [`MAX_FILTER_PATTERNS`] globs and
//! [`MAX_FILTER_METADATA_KEYS`] metadata keys, none longer than [`MAX_FILTER_ITEM_BYTES`], no
//! metadata value larger than [`MAX_FILTER_VALUE_BYTES`] as JSON. Matching the status rows is CPU
//! work: it runs on the blocking pool, page by page, and stops at the next row once the query is
//! dropped (the server's `TIMEOUT`, a client gone).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use lightrag_ports::{CUSTOM_METADATA_KEY, DocFilter, DocSort, DocStatus, DocStatusRecord, DocumentReads};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::error::{EngineError, Result};

/// Status rows read per page while resolving a filter.
const PAGE: usize = 1_000;

/// Most document ids one filter may list (`doc_ids`, LightRAG's `ids` included): each is one
/// status-row read.
pub const MAX_FILTER_DOC_IDS: usize = 1_000;
/// Most file path globs one filter may list: every processed document's name is matched against
/// each of them.
pub const MAX_FILTER_PATTERNS: usize = 100;
/// Most metadata keys one filter may list.
pub const MAX_FILTER_METADATA_KEYS: usize = 32;
/// Longest document id, glob or metadata key of a filter, in bytes (names are at most 255).
pub const MAX_FILTER_ITEM_BYTES: usize = 512;
/// Largest metadata value of a filter, as JSON, in bytes.
pub const MAX_FILTER_VALUE_BYTES: usize = 1_024;

/// Restricts a query to some documents. Empty fields do not restrict; given ones must all hold.
///
/// Times are Unix milliseconds; on the wire they may also be RFC 3339 strings
/// (`2024-05-01T12:00:00Z`), a date (`2024-05-01`, midnight UTC) or a date-time without offset
/// (taken as UTC). `*_after` and `*_before` are strict bounds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueryFilter {
    /// Only these document ids (any of them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub doc_ids: Vec<String>,
    /// Only documents whose file path (the canonical name, e.g. `report.pdf`) matches one of
    /// these glob patterns (`*`, `?`, `[abc]`, `**`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub file_paths: Vec<String>,
    /// Only documents whose metadata (given on insert) has every one of these keys with an equal
    /// JSON value; a stored array matches when one of its elements is equal.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// Only documents created after this time.
    #[serde(deserialize_with = "time_bound", skip_serializing_if = "Option::is_none")]
    pub created_after: Option<i64>,
    /// Only documents created before this time.
    #[serde(deserialize_with = "time_bound", skip_serializing_if = "Option::is_none")]
    pub created_before: Option<i64>,
    /// Only documents last updated after this time.
    #[serde(deserialize_with = "time_bound", skip_serializing_if = "Option::is_none")]
    pub updated_after: Option<i64>,
    /// Only documents last updated before this time.
    #[serde(deserialize_with = "time_bound", skip_serializing_if = "Option::is_none")]
    pub updated_before: Option<i64>,
}

/// A filter that cannot be used. The message names the field (`filter.file_paths`, …).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// A file path pattern is not a valid glob.
    #[error("file path pattern '{pattern}' is not a valid glob ({reason}); use *, ?, [abc] or ** wildcards")]
    Glob {
        /// The pattern.
        pattern: String,
        /// What is wrong.
        reason: String,
    },
    /// A time is not readable.
    #[error(
        "'{0}' is not a time; give an RFC 3339 time (2024-05-01T12:00:00Z), a date (2024-05-01) or Unix milliseconds"
    )]
    Time(String),
    /// A list or object holds more entries than allowed.
    #[error(
        "filter.{field} has {count} entries; at most {limit} are allowed — narrow the filter (one glob such as \
         '2024-*.md' covers many files, one metadata key a whole group of documents)"
    )]
    TooMany {
        /// The field (`doc_ids`, `file_paths`, `metadata`).
        field: &'static str,
        /// Entries given.
        count: usize,
        /// The cap.
        limit: usize,
    },
    /// An entry is longer than allowed.
    #[error("an entry of filter.{field} ('{start}…') is {bytes} bytes long; at most {limit} bytes are allowed")]
    TooLong {
        /// The field (`doc_ids`, `file_paths`, `metadata`).
        field: &'static str,
        /// The entry's first characters.
        start: String,
        /// Its length in bytes.
        bytes: usize,
        /// The cap.
        limit: usize,
    },
}

impl FilterError {
    /// The filter field at fault (`file_paths` for a bad glob; `created_after` and the like are
    /// refused as they are read, so a time error names no field here).
    pub fn field(&self) -> Option<&'static str> {
        match self {
            FilterError::Glob { .. } => Some("file_paths"),
            FilterError::Time(_) => None,
            FilterError::TooMany { field, .. } | FilterError::TooLong { field, .. } => Some(field),
        }
    }
}

impl From<FilterError> for EngineError {
    fn from(e: FilterError) -> Self {
        EngineError::Invalid(e.to_string())
    }
}

/// Reads a time: Unix milliseconds, RFC 3339, `YYYY-MM-DD` (midnight UTC) or a date-time
/// without offset (UTC).
pub fn parse_time(text: &str) -> std::result::Result<i64, FilterError> {
    let t = text.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return Ok(ms);
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(dt.timestamp_millis());
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(dt) = NaiveDateTime::parse_from_str(t, format) {
            return Ok(dt.and_utc().timestamp_millis());
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d")
        && let Some(dt) = d.and_hms_opt(0, 0, 0)
    {
        return Ok(dt.and_utc().timestamp_millis());
    }
    Err(FilterError::Time(text.to_string()))
}

/// A time bound on the wire: null, Unix milliseconds, or a time string ([`parse_time`]).
fn time_bound<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<i64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Wire {
        Millis(i64),
        Text(String),
    }
    match Option::<Wire>::deserialize(d)? {
        None => Ok(None),
        Some(Wire::Millis(ms)) => Ok(Some(ms)),
        Some(Wire::Text(t)) => parse_time(&t).map(Some).map_err(serde::de::Error::custom),
    }
}

/// A filter with its globs compiled and its ids in a set: owns what it matches with, so it can go
/// to a blocking thread.
#[derive(Debug, Clone)]
pub struct CompiledFilter {
    filter: QueryFilter,
    ids: HashSet<String>,
    globs: Vec<glob::Pattern>,
}

/// The first characters of an over-long entry, for its error message.
fn start_of(text: &str) -> String {
    text.chars().take(40).collect()
}

/// `Err` when `items` has more than `limit` entries or one longer than `max_bytes`.
fn bounded<'a>(
    field: &'static str,
    items: impl ExactSizeIterator<Item = &'a str>,
    limit: usize,
    max_bytes: usize,
) -> std::result::Result<(), FilterError> {
    if items.len() > limit {
        return Err(FilterError::TooMany { field, count: items.len(), limit });
    }
    for item in items {
        if item.len() > max_bytes {
            return Err(FilterError::TooLong { field, start: start_of(item), bytes: item.len(), limit: max_bytes });
        }
    }
    Ok(())
}

impl QueryFilter {
    /// Whether nothing is restricted.
    pub fn is_empty(&self) -> bool {
        self == &QueryFilter::default()
    }

    /// Checks that the filter can be used: its size is within the caps
    /// ([`MAX_FILTER_DOC_IDS`], [`MAX_FILTER_PATTERNS`], [`MAX_FILTER_METADATA_KEYS`],
    /// [`MAX_FILTER_ITEM_BYTES`], [`MAX_FILTER_VALUE_BYTES`]) and its globs are valid. Every front
    /// end calls this before running a query; [`resolve`] calls it again.
    pub fn validate(&self) -> std::result::Result<(), FilterError> {
        self.compile().map(|_| ())
    }

    /// [`QueryFilter::validate`], keeping the compiled globs.
    pub fn compile(&self) -> std::result::Result<CompiledFilter, FilterError> {
        let item = MAX_FILTER_ITEM_BYTES;
        bounded("doc_ids", self.doc_ids.iter().map(String::as_str), MAX_FILTER_DOC_IDS, item)?;
        bounded("file_paths", self.file_paths.iter().map(String::as_str), MAX_FILTER_PATTERNS, item)?;
        bounded("metadata", self.metadata.keys().map(String::as_str), MAX_FILTER_METADATA_KEYS, item)?;
        for value in self.metadata.values() {
            let json = value.to_string();
            if json.len() > MAX_FILTER_VALUE_BYTES {
                return Err(FilterError::TooLong {
                    field: "metadata",
                    start: start_of(&json),
                    bytes: json.len(),
                    limit: MAX_FILTER_VALUE_BYTES,
                });
            }
        }
        let globs = self
            .file_paths
            .iter()
            .map(|p| {
                glob::Pattern::new(p.trim())
                    .map_err(|e| FilterError::Glob { pattern: p.clone(), reason: e.msg.to_string() })
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let ids = self.doc_ids.iter().map(|id| id.trim().to_string()).collect();
        Ok(CompiledFilter { filter: self.clone(), ids, globs })
    }
}

impl CompiledFilter {
    /// Whether a document's status row passes (its status is not looked at).
    pub fn matches(&self, record: &DocStatusRecord) -> bool {
        let f = &self.filter;
        let ids_ok = self.ids.is_empty() || self.ids.contains(&record.id);
        let path_ok = self.globs.is_empty() || self.globs.iter().any(|g| g.matches(&record.file_path));
        let custom = record.metadata.get(CUSTOM_METADATA_KEY).and_then(Value::as_object);
        let meta_ok = metadata_matches(custom, &f.metadata);
        let after = |bound: Option<i64>, t: i64| bound.is_none_or(|b| t > b);
        let before = |bound: Option<i64>, t: i64| bound.is_none_or(|b| t < b);
        ids_ok
            && path_ok
            && meta_ok
            && after(f.created_after, record.created_at)
            && before(f.created_before, record.created_at)
            && after(f.updated_after, record.updated_at)
            && before(f.updated_before, record.updated_at)
    }
}

/// Every wanted key is stored with an equal value (or, for a stored array, an equal element).
fn metadata_matches(stored: Option<&Map<String, Value>>, wanted: &Map<String, Value>) -> bool {
    wanted.iter().all(|(key, value)| match stored.and_then(|m| m.get(key)) {
        Some(found) if found == value => true,
        Some(Value::Array(items)) => items.contains(value),
        _ => false,
    })
}

/// What a filter lets a query see: the passing processed documents and their chunks.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Passing documents: id → file path.
    pub docs: HashMap<String, String>,
    /// Chunks of the passing documents.
    pub chunks: HashSet<String>,
}

impl Scope {
    /// Whether a chunk belongs to a passing document.
    pub fn has_chunk(&self, id: &str) -> bool {
        self.chunks.contains(id)
    }

    fn take(&mut self, record: DocStatusRecord) {
        self.chunks.extend(record.chunks_list);
        self.docs.insert(record.id, record.file_path);
    }
}

/// Set when the resolving query is dropped (the server's `TIMEOUT` ran out, the client went
/// away): the matching on the blocking pool sees it and stops at the next row.
struct Abandoned(Arc<AtomicBool>);

impl Drop for Abandoned {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The processed rows of `records` that pass, matched on the blocking pool; stops with
/// [`EngineError::Cancelled`] once `abandoned` is set.
async fn passing(
    filter: &Arc<CompiledFilter>,
    records: Vec<DocStatusRecord>,
    abandoned: &Arc<AtomicBool>,
) -> Result<Vec<DocStatusRecord>> {
    if records.is_empty() {
        return Ok(records);
    }
    let (filter, abandoned) = (filter.clone(), abandoned.clone());
    tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        for record in records {
            if abandoned.load(Ordering::Relaxed) {
                return Err(EngineError::Cancelled);
            }
            if record.status == DocStatus::Processed && filter.matches(&record) {
                out.push(record);
            }
        }
        Ok(out)
    })
    .await
    .map_err(|e| EngineError::Invalid(format!("matching the query filter crashed ({e}); please report it")))?
}

/// Resolves a filter against the store: processed documents only. Reads the named documents'
/// status rows when ids are given, else pages through every processed document's row; the rows
/// are matched off the async threads (see the module documentation).
pub(crate) async fn resolve(store: &dyn DocumentReads, filter: &QueryFilter) -> Result<Scope> {
    let compiled = Arc::new(filter.compile()?);
    let abandoned = Abandoned(Arc::new(AtomicBool::new(false)));
    let mut scope = Scope::default();
    if !compiled.ids.is_empty() {
        let mut records = Vec::with_capacity(compiled.ids.len());
        for id in &compiled.ids {
            if let Some(record) = store.get_doc_status(id).await? {
                records.push(record);
            }
        }
        passing(&compiled, records, &abandoned.0).await?.into_iter().for_each(|r| scope.take(r));
        return Ok(scope);
    }
    let mut offset = 0;
    loop {
        let page = DocFilter {
            statuses: vec![DocStatus::Processed],
            track_id: None,
            sort: DocSort::IdAsc,
            offset,
            limit: Some(PAGE),
        };
        let (records, _) = store.list_docs(&page).await?;
        let n = records.len();
        passing(&compiled, records, &abandoned.0).await?.into_iter().for_each(|r| scope.take(r));
        if n < PAGE {
            break;
        }
        offset += n;
    }
    Ok(scope)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(id: &str, path: &str, custom: Value, created: i64) -> DocStatusRecord {
        let mut metadata = Map::new();
        metadata.insert(CUSTOM_METADATA_KEY.into(), custom);
        metadata.insert("process_start_time".into(), json!(1));
        DocStatusRecord {
            id: id.into(),
            status: DocStatus::Processed,
            file_path: path.into(),
            track_id: String::new(),
            content_summary: String::new(),
            content_length: 0,
            content_hash: String::new(),
            chunks_count: None,
            chunks_list: vec![],
            error_msg: None,
            metadata,
            created_at: created,
            updated_at: created + 5,
            lease_owner: None,
            lease_until: None,
        }
    }

    fn filter(v: Value) -> QueryFilter {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn every_given_criterion_must_hold() {
        let r = row("doc-a", "report.md", json!({"team": "ops", "tags": ["x", "y"], "year": 2024}), 1_000);
        let yes = |v: Value| filter(v).compile().unwrap().matches(&r);
        assert!(yes(json!({})));
        assert!(yes(json!({"doc_ids": ["doc-b", "doc-a"]})));
        assert!(!yes(json!({"doc_ids": ["doc-b"]})));
        assert!(yes(json!({"file_paths": ["*.pdf", "rep*.md"]})));
        assert!(!yes(json!({"file_paths": ["*.pdf"]})));
        assert!(yes(json!({"metadata": {"team": "ops", "year": 2024}})));
        assert!(yes(json!({"metadata": {"tags": "y"}})), "an array matches by element");
        assert!(!yes(json!({"metadata": {"team": "ops", "year": "2024"}})), "a string is not a number");
        assert!(!yes(json!({"metadata": {"missing": null}})), "a missing key never matches");
        assert!(yes(json!({"created_after": 999, "created_before": 1_001})));
        assert!(!yes(json!({"created_after": 1_000})), "bounds are strict");
        assert!(yes(json!({"updated_after": 1_004, "updated_before": "1970-01-01T00:00:01.006Z"})));
        assert!(!yes(json!({"doc_ids": ["doc-a"], "file_paths": ["*.pdf"]})), "criteria AND together");
    }

    #[test]
    fn times_read_rfc3339_dates_and_millis() {
        assert_eq!(parse_time("2024-05-01T00:00:00Z").unwrap(), 1_714_521_600_000);
        assert_eq!(parse_time("2024-05-01T02:00:00+02:00").unwrap(), 1_714_521_600_000);
        assert_eq!(parse_time("2024-05-01").unwrap(), 1_714_521_600_000);
        assert_eq!(parse_time("2024-05-01T00:00:00").unwrap(), 1_714_521_600_000);
        assert_eq!(parse_time(" 1714521600000 ").unwrap(), 1_714_521_600_000);
        assert!(matches!(parse_time("yesterday"), Err(FilterError::Time(_))));
        assert!(serde_json::from_value::<QueryFilter>(json!({"created_after": "soon"})).is_err());
        assert!(serde_json::from_value::<QueryFilter>(json!({"doc_id": ["x"]})).is_err(), "unknown fields refused");
    }

    #[test]
    fn a_bad_glob_is_refused_with_the_pattern() {
        let err = filter(json!({"file_paths": ["ok.md", "[oops"]})).compile().unwrap_err();
        assert!(err.to_string().contains("[oops"), "{err}");
        assert_eq!(err.field(), Some("file_paths"));
    }

    /// Regression (issue 26): 20,000 globs were matched against every document on the async
    /// threads. Each list, key and value of a filter is capped; the message names the field and cap.
    #[test]
    fn a_filter_over_its_caps_is_refused_naming_the_field_and_the_cap() {
        let many = |n: usize| (0..n).map(|i| format!("f{i}*.md")).collect::<Vec<_>>();
        let err = filter(json!({"file_paths": many(20_000)})).validate().unwrap_err();
        assert_eq!(err.field(), Some("file_paths"));
        assert!(err.to_string().contains("filter.file_paths has 20000 entries; at most 100"), "{err}");
        assert!(filter(json!({"file_paths": many(MAX_FILTER_PATTERNS)})).validate().is_ok(), "the cap itself passes");

        let ids: Vec<String> = (0..=MAX_FILTER_DOC_IDS).map(|i| format!("doc-{i}")).collect();
        let err = filter(json!({"doc_ids": ids})).validate().unwrap_err();
        assert!(err.to_string().contains("filter.doc_ids") && err.to_string().contains("1000"), "{err}");

        let long = "a".repeat(MAX_FILTER_ITEM_BYTES + 1);
        for (field, f) in [
            ("doc_ids", json!({"doc_ids": [long]})),
            ("file_paths", json!({"file_paths": [long]})),
            ("metadata", json!({"metadata": {long.clone(): 1}})),
            ("metadata", json!({"metadata": {"k": "v".repeat(MAX_FILTER_VALUE_BYTES)}})),
        ] {
            let err = filter(f).validate().unwrap_err();
            assert_eq!(err.field(), Some(field), "{err}");
            assert!(matches!(err, FilterError::TooLong { .. }), "{err}");
            assert!(err.to_string().contains(&format!("filter.{field}")), "{err}");
        }
        let keys: Map<String, Value> = (0..=MAX_FILTER_METADATA_KEYS).map(|i| (format!("k{i}"), json!(i))).collect();
        let err = filter(json!({"metadata": keys})).validate().unwrap_err();
        assert!(matches!(err, FilterError::TooMany { field: "metadata", .. }), "{err}");
    }

    /// The matching of a dropped query stops at the next row instead of running to the end.
    #[tokio::test]
    async fn matching_stops_once_the_query_is_abandoned() {
        let compiled = Arc::new(filter(json!({"file_paths": ["*.md"]})).compile().unwrap());
        let rows = || (0..10).map(|i| row(&format!("doc-{i}"), "a.md", json!({}), 1)).collect::<Vec<_>>();
        let flag = Arc::new(AtomicBool::new(false));
        assert_eq!(passing(&compiled, rows(), &flag).await.unwrap().len(), 10);
        drop(Abandoned(flag.clone()));
        assert!(matches!(passing(&compiled, rows(), &flag).await, Err(EngineError::Cancelled)));
    }
}
