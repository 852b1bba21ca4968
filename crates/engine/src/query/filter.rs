//! Query-time filters ([`QueryFilter`]): which documents a query may draw on — by id, by file
//! path glob, by the caller's metadata and by created/updated time. All given criteria must hold.
//!
//! A query resolves its filter once ([`resolve`]) into a [`Scope`]: the passing (processed)
//! documents and their chunks. Retrieval then reads the store through
//! [`super::scoped::ScopedStore`], which hides everything without a passing chunk.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use lightrag_ports::{CUSTOM_METADATA_KEY, DocFilter, DocSort, DocStatus, DocStatusRecord, Store};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::error::{EngineError, Result};

/// Status rows read per page while resolving a filter.
const PAGE: usize = 1_000;

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

/// A filter that cannot be used.
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

/// A filter with its globs compiled.
#[derive(Debug, Clone)]
pub struct CompiledFilter<'a> {
    filter: &'a QueryFilter,
    globs: Vec<glob::Pattern>,
}

impl QueryFilter {
    /// Whether nothing is restricted.
    pub fn is_empty(&self) -> bool {
        self == &QueryFilter::default()
    }

    /// Checks the filter and compiles its globs.
    pub fn compile(&self) -> std::result::Result<CompiledFilter<'_>, FilterError> {
        let globs = self
            .file_paths
            .iter()
            .map(|p| {
                glob::Pattern::new(p.trim())
                    .map_err(|e| FilterError::Glob { pattern: p.clone(), reason: e.msg.to_string() })
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(CompiledFilter { filter: self, globs })
    }
}

impl CompiledFilter<'_> {
    /// Whether a document's status row passes (its status is not looked at).
    pub fn matches(&self, record: &DocStatusRecord) -> bool {
        let f = self.filter;
        let ids_ok = f.doc_ids.is_empty() || f.doc_ids.iter().any(|id| id.trim() == record.id);
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
}

/// Resolves a filter against the store: processed documents only. Reads the named documents'
/// status rows when ids are given, else pages through every processed document's row.
pub(crate) async fn resolve(store: &dyn Store, filter: &QueryFilter) -> Result<Scope> {
    let compiled = filter.compile()?;
    let mut scope = Scope::default();
    let mut take = |record: DocStatusRecord| {
        if record.status == DocStatus::Processed && compiled.matches(&record) {
            scope.chunks.extend(record.chunks_list);
            scope.docs.insert(record.id, record.file_path);
        }
    };
    if !filter.doc_ids.is_empty() {
        let mut seen = HashSet::new();
        for id in filter.doc_ids.iter().map(|id| id.trim()).filter(|id| seen.insert(*id)) {
            if let Some(record) = store.get_doc_status(id).await? {
                take(record);
            }
        }
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
        records.into_iter().for_each(&mut take);
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
    }
}
