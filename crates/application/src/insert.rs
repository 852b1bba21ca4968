//! Admit and enqueue documents — the one insert path of every front end.
//!
//! Whether a stored name refuses a document (a duplicate, the same content, an earlier version
//! not indexed yet) is decided once, atomically, by the store as it enqueues
//! ([`Admission`], [`EnqueueOutcome::Refused`]); this module builds the documents
//! ([`typed_document`], [`file_document`]: text sanitised, name and metadata within their
//! limits), enqueues them ([`insert`]) and turns the store's outcomes into one report
//! ([`InsertReport`]) whose refusals every front end answers the same way
//! ([`InsertReport::refusing`]: REST 409, an MCP tool error; the CLI prints them and goes on with
//! the other files). [`refuse_early`] is the one fast path: it answers a refusal the store would
//! give, with the store's words, before a body is received or a file is read.
//!
//! The front ends admit documents as follows:
//!
//! | front end | admission |
//! |---|---|
//! | `/documents/text`, `/documents/texts` | [`Admission::NewName`] (LightRAG: a stored name is refused) |
//! | `/documents/upload`, MCP `insert_text` / `insert_file` (stdio and HTTP), `lightrag insert` | [`Admission::NewVersion`] |
//! | input-folder scan | [`Admission::Record`] (LightRAG's pipeline: duplicates recorded) |
//!
//! `lightrag insert` and `lightrag mcp` also resume: a document an interrupted run left `pending`
//! or `processing` with the same content is finished rather than refused ([`InsertOptions::resume`]).

use lightrag_engine::Engine;
use lightrag_engine::indexing::input_text::sanitize_text;
use lightrag_engine::indexing::pipeline::{InsertDoc, MAX_METADATA_BYTES, check_file_source, document_id};
use lightrag_engine::time::track_id;
use lightrag_ports::{Admission, ChunkingOptions, DocStatus, DocStatusRecord, EnqueueOutcome, Refusal};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{AppError, Result};

/// A document's metadata object, checked against [`MAX_METADATA_BYTES`] (`field` names it in the
/// message).
pub fn check_metadata(field: &str, metadata: &Map<String, Value>) -> Result<()> {
    let size = serde_json::to_string(metadata).map(|s| s.len()).unwrap_or(0);
    if size > MAX_METADATA_BYTES {
        return Err(AppError::TooLarge(format!(
            "{field} is {size} bytes as JSON, over the limit of {MAX_METADATA_BYTES}; keep only short keys and values"
        )));
    }
    Ok(())
}

/// The document name at `field` (its message names the field's first part: `file_sources`, not
/// `file_sources.2`) within the limit every insert path shares ([`check_file_source`]).
pub fn check_name(field: &[&str], source: &str) -> Result<()> {
    let shown = field.first().copied().unwrap_or("file_source");
    check_file_source(shown, source).map_err(|e| AppError::invalid(field, e.to_string()))
}

/// A document whose text is given as such (`/documents/text`, MCP `insert_text`, `lightrag insert
/// -`): not blank, sanitised as LightRAG's insert of a text is (so chunks match), its name and
/// metadata within their limits. `field` is where the text was given.
pub fn typed_document(
    field: &[&str],
    text: &str,
    file_source: Option<String>,
    metadata: Map<String, Value>,
    chunking: ChunkingOptions,
) -> Result<InsertDoc> {
    if text.trim().is_empty() {
        return Err(AppError::invalid(field, "String should have at least 1 character"));
    }
    document(sanitize_text(text), file_source, metadata, chunking)
}

/// A document whose text was read from a file ([`crate::read`]) and is stored under `name`.
pub fn file_document(
    text: String,
    name: String,
    metadata: Map<String, Value>,
    chunking: ChunkingOptions,
) -> Result<InsertDoc> {
    document(text, Some(name), metadata, chunking)
}

fn document(
    content: String,
    file_source: Option<String>,
    metadata: Map<String, Value>,
    chunking: ChunkingOptions,
) -> Result<InsertDoc> {
    if let Some(source) = &file_source {
        check_name(&["file_source"], source)?;
    }
    check_metadata("metadata", &metadata)?;
    Ok(InsertDoc { content, file_source, id: None, chunking, metadata })
}

/// How [`insert`] enqueues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsertOptions {
    /// How a stored name is treated.
    pub admission: Admission,
    /// A document left `pending` or `processing` with the same content by an interrupted run is
    /// reported [`EnqueueOutcome::Resumed`] (the next processing run finishes it) instead of being
    /// refused or recorded.
    pub resume: bool,
    /// The track id (default: a new one starting with `track_prefix`).
    pub track_id: Option<String>,
    /// The prefix of a new track id (`insert`, `upload`).
    pub track_prefix: &'static str,
}

impl InsertOptions {
    /// `admission`, under a new `insert_…` track id, without resuming.
    pub fn new(admission: Admission) -> Self {
        InsertOptions { admission, resume: false, track_id: None, track_prefix: "insert" }
    }
}

/// What happened to one document, as every front end shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// Stored, to be indexed.
    Enqueued,
    /// Left unfinished by an interrupted run; the next run finishes it.
    Resumed,
    /// A new version of an indexed document: it replaces it once processed.
    Replaced,
    /// Its content is stored under another document: recorded as a `failed` duplicate.
    Duplicate,
    /// Not admitted; nothing was written.
    Refused,
}

/// One document of an [`InsertReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DocumentOutcome {
    /// The document's id (for a duplicate, the stored document's).
    pub doc_id: String,
    /// What happened.
    pub outcome: OutcomeKind,
    /// What it means for the client, when there is more to say than the kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl DocumentOutcome {
    fn of(outcome: &EnqueueOutcome) -> Self {
        let (doc_id, kind, message) = match outcome {
            EnqueueOutcome::Enqueued { doc_id } => (doc_id.clone(), OutcomeKind::Enqueued, None),
            EnqueueOutcome::Resumed { doc_id, status } => (
                doc_id.clone(),
                OutcomeKind::Resumed,
                Some(format!("left {} by an interrupted run; the next processing run finishes it", status.as_str())),
            ),
            EnqueueOutcome::Replaced { doc_id, .. } => (
                doc_id.clone(),
                OutcomeKind::Replaced,
                Some(
                    "a new version of an indexed document: it replaces the old one once processed (unchanged chunks \
                     are reused)"
                        .to_string(),
                ),
            ),
            EnqueueOutcome::Duplicate { original_id, original_status, .. } => (
                original_id.clone(),
                OutcomeKind::Duplicate,
                Some(format!("already stored as {original_id} ({}); nothing new is indexed", original_status.as_str())),
            ),
            refused @ EnqueueOutcome::Refused { doc_id, .. } => {
                (doc_id.clone(), OutcomeKind::Refused, refused.refusal_message())
            }
        };
        DocumentOutcome { doc_id, outcome: kind, message }
    }
}

/// What an insert did: the track id and one outcome per document, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InsertReport {
    /// The track id of the documents enqueued.
    pub track_id: String,
    /// One per document.
    pub documents: Vec<DocumentOutcome>,
}

impl InsertReport {
    /// How many documents had `kind`.
    pub fn count(&self, kind: OutcomeKind) -> usize {
        self.documents.iter().filter(|d| d.outcome == kind).count()
    }

    /// How many documents were written (every outcome but a refusal and a resumption).
    pub fn written(&self) -> usize {
        self.documents.len() - self.count(OutcomeKind::Refused) - self.count(OutcomeKind::Resumed)
    }

    /// The report, or [`AppError::Conflict`] with the store's reasons when it refused a document
    /// (saying under which track id the other documents, if any, were enqueued).
    pub fn refusing(self) -> Result<Self> {
        let refused: Vec<&str> = self
            .documents
            .iter()
            .filter(|d| d.outcome == OutcomeKind::Refused)
            .filter_map(|d| d.message.as_deref())
            .collect();
        if refused.is_empty() {
            return Ok(self);
        }
        let mut message = refused.join("; ");
        let admitted = self.documents.len() - refused.len();
        if admitted > 0 {
            message.push_str(&format!(
                " (the request's {admitted} other document(s) were enqueued under track id {})",
                self.track_id
            ));
        }
        Err(AppError::Conflict(message))
    }
}

/// Enqueues `docs` as `options` say. The store decides each document's admission in the
/// transaction that writes it; the report says what happened to each.
pub async fn insert(engine: &Engine, docs: Vec<InsertDoc>, options: InsertOptions) -> Result<InsertReport> {
    let track = options.track_id.filter(|t| !t.trim().is_empty()).unwrap_or_else(|| track_id(options.track_prefix));
    let report = if options.resume {
        engine.enqueue_resuming_with(docs, Some(track), options.admission).await?
    } else {
        engine.enqueue_with(docs, Some(track), options.admission).await?
    };
    Ok(InsertReport { track_id: report.track_id, documents: report.outcomes.iter().map(DocumentOutcome::of).collect() })
}

/// The fast path: the refusal the store would answer for a document named `name` under
/// `admission`, from its stored status alone, before the document's text is at hand (an upload's
/// body, a file); `Ok` with the stored status row (if any) when the store has to decide.
pub async fn refuse_early(engine: &Engine, name: &str, admission: Admission) -> Result<Option<DocStatusRecord>> {
    let probe = InsertDoc { file_source: Some(name.to_string()), ..InsertDoc::default() };
    let Some(stored) = engine.document_status(&document_id(&probe)).await? else {
        return Ok(None);
    };
    let reason = match admission {
        Admission::NewName => Some(Refusal::NameTaken),
        Admission::NewVersion if matches!(stored.status, DocStatus::Pending | DocStatus::Processing) => {
            Some(Refusal::Busy)
        }
        _ => None,
    };
    if let Some(reason) = reason {
        let refused = EnqueueOutcome::Refused {
            doc_id: stored.id.clone(),
            file_path: stored.file_path.clone(),
            status: stored.status,
            reason,
        };
        return Err(AppError::Conflict(refused.refusal_message().unwrap_or_default()));
    }
    Ok(Some(stored))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn typed_text_is_checked_and_sanitised() {
        let e = typed_document(&["texts", "1"], "  \n", None, Map::new(), ChunkingOptions::default()).unwrap_err();
        assert_eq!(e.to_string(), "texts.1: String should have at least 1 character");
        let doc = typed_document(&["text"], "  a &amp; b\u{1} ", Some("n.txt".into()), Map::new(), Default::default())
            .unwrap();
        assert_eq!(doc.content, "a & b");
        let long = typed_document(&["text"], "x", Some("a".repeat(300)), Map::new(), Default::default()).unwrap_err();
        assert!(long.to_string().starts_with("file_source 'aaa"), "{long}");
        let mut big = Map::new();
        big.insert("k".into(), Value::String("v".repeat(MAX_METADATA_BYTES)));
        assert!(matches!(typed_document(&["text"], "x", None, big, Default::default()), Err(AppError::TooLarge(_))));
    }

    #[test]
    fn a_refusal_is_a_conflict_naming_the_track_of_the_others() {
        let report = InsertReport {
            track_id: "insert_1".into(),
            documents: vec![
                DocumentOutcome { doc_id: "a".into(), outcome: OutcomeKind::Enqueued, message: None },
                DocumentOutcome { doc_id: "b".into(), outcome: OutcomeKind::Refused, message: Some("taken".into()) },
            ],
        };
        assert_eq!(report.written(), 1);
        let e = report.refusing().unwrap_err().to_string();
        assert_eq!(e, "taken (the request's 1 other document(s) were enqueued under track id insert_1)");
    }
}
