//! Decisions every [`Store`](crate::Store) backend makes the same way, whatever its database:
//! the status rows `enqueue` writes (LightRAG's shape of a pending document and of a recorded
//! duplicate), the embedding-identity check, and the bookkeeping of chunk-list lengths within one
//! commit. Backends do the I/O; these functions decide what to write.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use crate::ids::md5_hex;
use crate::{
    Admission, DocStatus, DocStatusRecord, EmbeddingIdentity, EnqueueOutcome, GraphKey, NewDocument, Refusal,
    StoreError,
};

/// Status-row metadata key of a document whose new version waits to be processed while its
/// indexed version stays live: `{previous_content_hash, previous_track_id, previous_status,
/// requested_at}` (see [`NewDocument::replacement_row`]).
pub const REPLACING_KEY: &str = "replacing";

/// The file path of a document without a source: never replaced, always a duplicate.
const UNKNOWN_SOURCE: &str = "unknown_source";

/// What the store holds that bears on one enqueued document, read inside the enqueue's
/// transaction (before [`NewDocument::admit`] decides).
#[derive(Debug, Clone, Copy, Default)]
pub struct Stored<'a> {
    /// The status row with the document's id.
    pub row: Option<&'a DocStatusRecord>,
    /// Whether a text with the document's id is stored (only looked at without a row).
    pub text: bool,
    /// Another stored document (another id) with this content: its id and its status row.
    pub same_content: Option<(&'a str, Option<&'a DocStatusRecord>)>,
}

/// What [`DocumentQueue::enqueue`](crate::DocumentQueue::enqueue) writes for one document.
#[derive(Debug, Clone, PartialEq)]
pub enum Admit {
    /// A new document: its text and [`NewDocument::pending_row`]; [`EnqueueOutcome::Enqueued`].
    New,
    /// A new version of the stored document: its text (with the stored `created_at`) and `row`.
    /// When `keep_previous`, the stored text and status row are first kept as the document's
    /// [`PreviousVersion`](crate::PreviousVersion) (replacing one kept before).
    Replace {
        /// The status row to write ([`NewDocument::replacement_row`]).
        row: DocStatusRecord,
        /// Keep the stored version: it is indexed and no replacement of it was waiting.
        keep_previous: bool,
        /// [`EnqueueOutcome::Replaced`].
        outcome: EnqueueOutcome,
    },
    /// A duplicate: the `failed` `dup-…` row to write ([`NewDocument::duplicate_row`]).
    Record {
        /// The row.
        row: DocStatusRecord,
        /// [`EnqueueOutcome::Duplicate`].
        outcome: EnqueueOutcome,
    },
    /// Nothing is written ([`EnqueueOutcome::Refused`]).
    Refuse(EnqueueOutcome),
}

/// Whether replacing `existing` starts a replacement of an indexed version (whose text and row
/// are then kept): it has chunks, and no replacement of it is waiting already.
fn starts_replacement(existing: &DocStatusRecord) -> bool {
    !existing.chunks_list.is_empty() && !existing.metadata.contains_key(REPLACING_KEY)
}

impl NewDocument {
    /// Decides what enqueueing this document writes, given what is `stored` (the one place every
    /// backend takes the admission decision, inside its enqueue transaction): see
    /// [`Admission`] and [`DocumentQueue::enqueue`](crate::DocumentQueue::enqueue).
    pub fn admit(&self, stored: Stored<'_>) -> Admit {
        let doc = &self.document;
        let refuse = |doc_id: &str, row: Option<&DocStatusRecord>, reason: Refusal| {
            Admit::Refuse(EnqueueOutcome::Refused {
                doc_id: doc_id.to_string(),
                file_path: row.map(|r| r.file_path.clone()).unwrap_or_else(|| doc.file_path.clone()),
                status: row.map(|r| r.status).unwrap_or(DocStatus::Pending),
                reason,
            })
        };
        let record = |original_id: &str, original: Option<&DocStatusRecord>| {
            let (row, outcome) = self.duplicate_row(original_id.to_string(), original);
            Admit::Record { row, outcome }
        };
        let Some(existing) = stored.row else {
            // a new id: a text without a row (an interrupted import) still takes the name
            if stored.text {
                return match self.admission {
                    Admission::Record => record(&doc.id, None),
                    Admission::NewName | Admission::NewVersion => refuse(&doc.id, None, Refusal::NameTaken),
                };
            }
            return match stored.same_content {
                Some((other, row)) => record(other, row),
                None => Admit::New,
            };
        };
        match self.admission {
            Admission::Record => {}
            Admission::NewName => return refuse(&existing.id, Some(existing), Refusal::NameTaken),
            Admission::NewVersion => {
                if existing.content_hash == doc.content_hash {
                    return refuse(&existing.id, Some(existing), Refusal::SameContent);
                }
                if matches!(existing.status, DocStatus::Pending | DocStatus::Processing) {
                    return refuse(&existing.id, Some(existing), Refusal::Busy);
                }
                if let Some((other, row)) = stored.same_content {
                    return refuse(other, row, Refusal::ContentElsewhere);
                }
            }
        }
        if stored.same_content.is_none()
            && let Some(row) = self.replacement_row(existing)
        {
            let outcome = EnqueueOutcome::Replaced { doc_id: doc.id.clone(), previous_status: existing.status };
            return Admit::Replace { row, keep_previous: starts_replacement(existing), outcome };
        }
        if self.admission == Admission::NewVersion {
            // not a version of a file (no file name): the name is simply taken
            return refuse(&existing.id, Some(existing), Refusal::NameTaken);
        }
        match stored.same_content {
            Some((other, row)) if existing.content_hash != doc.content_hash => record(other, row),
            _ => record(&existing.id, Some(existing)),
        }
    }

    /// The status row that makes this document the new version of `existing` (the stored row with
    /// the same id), or `None` when it is a duplicate instead: without a known file path, with
    /// the same content, of a recorded duplicate, or while `existing` is `processing` (a worker
    /// indexes it; the caller says to try again once it is done). The row is `pending` under
    /// this call's track id with the new content's summary, length and hash; it keeps the id,
    /// `created_at`, metadata (its caller metadata replaced by this version's when it brings
    /// some), and the chunk list of the version still indexed, and — when a
    /// version is indexed — marks the replacement under [`REPLACING_KEY`] (kept from an earlier
    /// replacement still waiting). The caller also checks that no other document has the new
    /// content, and writes the document's text with `existing.created_at`.
    pub fn replacement_row(&self, existing: &DocStatusRecord) -> Option<DocStatusRecord> {
        let doc = &self.document;
        let duplicate_record = existing.metadata.get("is_duplicate").and_then(|v| v.as_bool()).unwrap_or(false);
        if doc.file_path.trim().is_empty()
            || doc.file_path == UNKNOWN_SOURCE
            || existing.id != doc.id
            || duplicate_record
            || existing.content_hash == doc.content_hash
            || existing.status == DocStatus::Processing
        {
            return None;
        }
        let mut fresh = self.pending_row();
        // the new version's own metadata replaces the stored one; a version sent without any
        // (a scan of the changed file) keeps what the document had
        let mut metadata = existing.metadata.clone();
        metadata.extend(std::mem::take(&mut fresh.metadata));
        if starts_replacement(existing) {
            metadata.insert(
                REPLACING_KEY.into(),
                json!({
                    "previous_content_hash": existing.content_hash,
                    "previous_track_id": existing.track_id,
                    "previous_status": existing.status,
                    "requested_at": doc.created_at,
                }),
            );
        } else if let Some(serde_json::Value::Object(marker)) = metadata.get_mut(REPLACING_KEY) {
            marker.insert("requested_at".into(), json!(doc.created_at));
        }
        // the indexed version's chunks stay listed until the replacement commits
        Some(DocStatusRecord {
            metadata,
            created_at: existing.created_at,
            chunks_count: existing.chunks_count,
            chunks_list: existing.chunks_list.clone(),
            ..fresh
        })
    }

    /// The `pending` status row of a newly stored document.
    pub fn pending_row(&self) -> DocStatusRecord {
        let doc = &self.document;
        let mut metadata = serde_json::Map::new();
        if !self.metadata.is_empty() {
            metadata.insert(crate::CUSTOM_METADATA_KEY.into(), serde_json::Value::Object(self.metadata.clone()));
        }
        DocStatusRecord {
            id: doc.id.clone(),
            status: DocStatus::Pending,
            file_path: doc.file_path.clone(),
            track_id: self.track_id.clone(),
            content_summary: doc.content.chars().take(100).collect(),
            content_length: doc.content.chars().count(),
            content_hash: doc.content_hash.clone(),
            chunks_count: None,
            chunks_list: Vec::new(),
            error_msg: None,
            metadata,
            created_at: doc.created_at,
            updated_at: doc.created_at,
            lease_owner: None,
            lease_until: None,
        }
    }

    /// The `failed` `dup-…` row recording that this document duplicates `original_id` (same id,
    /// or same content), whose status row is `original` when it has one, and the outcome to
    /// report.
    pub fn duplicate_row(
        &self,
        original_id: String,
        original: Option<&DocStatusRecord>,
    ) -> (DocStatusRecord, EnqueueOutcome) {
        let doc = &self.document;
        let original_status = original.map(|r| r.status).unwrap_or(DocStatus::Pending);
        let original_track = original.map(|r| r.track_id.clone()).unwrap_or_default();
        let dup_id = format!("dup-{}", md5_hex(&format!("{}{}{}", doc.id, self.track_id, doc.content_hash)));
        let mut metadata = serde_json::Map::new();
        metadata.insert("is_duplicate".into(), json!(true));
        metadata.insert("original_doc_id".into(), json!(original_id));
        metadata.insert("original_track_id".into(), json!(original_track));
        let row = DocStatusRecord {
            id: dup_id.clone(),
            status: DocStatus::Failed,
            file_path: doc.file_path.clone(),
            track_id: self.track_id.clone(),
            content_summary: format!(
                "[DUPLICATE:{}|{}] Original document: {original_id}",
                doc.file_path, doc.content_hash
            ),
            content_length: doc.content.chars().count(),
            content_hash: doc.content_hash.clone(),
            chunks_count: None,
            chunks_list: Vec::new(),
            error_msg: Some(format!(
                "Content already exists: duplicate of document {original_id} (status {original_status})"
            )),
            metadata,
            created_at: doc.created_at,
            updated_at: doc.created_at,
            lease_owner: None,
            lease_until: None,
        };
        (row, EnqueueOutcome::Duplicate { dup_id, original_id, original_status })
    }
}

impl EmbeddingIdentity {
    /// Checks this (configured) identity against what a store recorded: `Ok(true)` when nothing
    /// is recorded yet and this identity should be, `Ok(false)` when it matches, and
    /// [`StoreError::EmbeddingMismatch`] when the model or dimension differ (a dimension recorded
    /// without a model — older stores — is checked alone).
    pub fn check_recorded(&self, model: Option<String>, dim: Option<usize>) -> Result<bool, StoreError> {
        let mismatch = |stored_model: String, stored_dim: usize| StoreError::EmbeddingMismatch {
            stored_model,
            stored_dim,
            configured_model: self.model.clone(),
            configured_dim: self.dim,
        };
        match (model, dim) {
            (Some(model), Some(dim)) if model != self.model || dim != self.dim => Err(mismatch(model, dim)),
            (Some(_), Some(_)) => Ok(false),
            (None, Some(dim)) if dim != self.dim => Err(mismatch("(unrecorded)".to_string(), dim)),
            _ => Ok(true),
        }
    }
}

/// The owner with a relation key in canonical (sorted) order.
pub fn canonical_owner(owner: &GraphKey) -> GraphKey {
    match owner {
        GraphKey::Entity(n) => GraphKey::Entity(n.clone()),
        GraphKey::Relation(k) => GraphKey::Relation(crate::RelKey::new(k.src.clone(), k.tgt.clone())),
    }
}

/// How one owner's chunk-list length changed in this commit.
#[derive(Debug, Clone, Copy, Default)]
struct Change {
    /// The length was set to this (by a replacement) before `delta`.
    base: Option<i64>,
    /// Rows added minus rows removed since.
    delta: i64,
}

/// The new chunk count of one record, for a backend to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountChange {
    /// Whose count.
    pub owner: GraphKey,
    /// The count was reset to this before `delta` (a replaced list); `None` keeps the stored one.
    pub base: Option<i64>,
    /// Added minus removed entries (the result is clamped at 0 by the backend).
    pub delta: i64,
    /// Raise the record's version by one: its list changed but the commit did not write it.
    pub bump_version: bool,
}

/// Chunk-list length changes of one commit, and the records the commit wrote itself.
#[derive(Debug, Default)]
pub struct ListTally {
    changes: BTreeMap<GraphKey, Change>,
    written: BTreeSet<GraphKey>,
}

impl ListTally {
    /// `delta` entries were added (negative: removed) to `owner`'s list.
    pub fn add(&mut self, owner: GraphKey, delta: i64) {
        self.changes.entry(owner).or_default().delta += delta;
    }

    /// `owner`'s list was replaced by one of `len` entries.
    pub fn set(&mut self, owner: GraphKey, len: i64) {
        self.changes.insert(owner, Change { base: Some(len), delta: 0 });
    }

    /// The record was deleted, or inserted with a count taken from its rows: earlier changes
    /// are already accounted for.
    pub fn forget(&mut self, owner: &GraphKey) {
        self.changes.remove(owner);
    }

    /// The commit wrote this record (its version already went up).
    pub fn written(&mut self, owner: GraphKey) {
        self.written.insert(owner);
    }

    /// The counts to write, in key order (the order backends lock and update rows in).
    pub fn into_changes(self) -> Vec<CountChange> {
        let written = self.written;
        self.changes
            .into_iter()
            .map(|(owner, c)| {
                let bump_version = !written.contains(&owner);
                CountChange { owner, base: c.base, delta: c.delta, bump_version }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Document, RelKey};

    fn new_doc() -> NewDocument {
        NewDocument {
            document: Document {
                id: "doc-1".into(),
                content_hash: "h".into(),
                file_path: "a.txt".into(),
                content: "some text".into(),
                chunking: Default::default(),
                created_at: 5,
            },
            track_id: "t".into(),
            metadata: Default::default(),
            admission: Admission::Record,
        }
    }

    #[test]
    fn duplicate_rows_name_the_original_and_its_status() {
        let doc = new_doc();
        let mut original = doc.pending_row();
        original.status = DocStatus::Processed;
        let (row, outcome) = doc.duplicate_row("doc-1".into(), Some(&original));
        assert!(row.id.starts_with("dup-") && row.status == DocStatus::Failed);
        assert_eq!(row.metadata["original_doc_id"], "doc-1");
        assert!(row.error_msg.as_deref().is_some_and(|e| e.contains("status processed")), "{row:?}");
        assert_eq!(
            outcome,
            EnqueueOutcome::Duplicate {
                dup_id: row.id.clone(),
                original_id: "doc-1".into(),
                original_status: DocStatus::Processed
            }
        );
        assert_eq!(doc.pending_row().content_length, 9);
    }

    #[test]
    fn only_a_known_file_with_other_content_not_being_processed_is_a_replacement() {
        let doc = new_doc();
        let mut stored = doc.pending_row();
        stored.content_hash = "old".into();
        stored.track_id = "t0".into();
        stored.status = DocStatus::Processed;
        stored.created_at = 1;
        stored.chunks_list = vec!["doc-1-chunk-000".into()];
        let row = doc.replacement_row(&stored).expect("a new version");
        assert_eq!((row.status, row.created_at, row.updated_at), (DocStatus::Pending, 1, 5));
        assert_eq!((row.content_hash.as_str(), row.track_id.as_str()), ("h", "t"));
        assert_eq!(row.chunks_list, stored.chunks_list, "the indexed version stays listed");
        assert_eq!(row.metadata[REPLACING_KEY]["previous_content_hash"], "old");
        // caller metadata: kept when the new version brings none, replaced when it brings some
        stored.metadata.insert(crate::CUSTOM_METADATA_KEY.into(), json!({"team": "ops"}));
        let kept = doc.replacement_row(&stored).expect("a new version");
        assert_eq!(kept.metadata[crate::CUSTOM_METADATA_KEY], json!({"team": "ops"}));
        let mut tagged = new_doc();
        tagged.metadata.insert("team".into(), json!("sales"));
        let retagged = tagged.replacement_row(&stored).expect("a new version");
        assert_eq!(retagged.metadata[crate::CUSTOM_METADATA_KEY], json!({"team": "sales"}));
        // replaced again before processing: the marker still names the indexed version
        let mut newer = new_doc();
        newer.document.content_hash = "h2".into();
        newer.document.created_at = 9;
        let again = newer.replacement_row(&row).expect("a newer version");
        assert_eq!(again.metadata[REPLACING_KEY]["previous_content_hash"], "old");
        assert_eq!(again.metadata[REPLACING_KEY]["requested_at"], 9);

        let same = DocStatusRecord { content_hash: "h".into(), ..stored.clone() };
        assert!(doc.replacement_row(&same).is_none(), "same content: a duplicate");
        let busy = DocStatusRecord { status: DocStatus::Processing, ..stored.clone() };
        assert!(doc.replacement_row(&busy).is_none(), "being processed: a duplicate");
        let mut unsourced = new_doc();
        unsourced.document.file_path = "unknown_source".into();
        assert!(unsourced.replacement_row(&stored).is_none(), "no file name: a duplicate");
        let mut nothing_indexed = stored.clone();
        nothing_indexed.chunks_list.clear();
        let row = doc.replacement_row(&nothing_indexed).expect("a new version");
        assert!(!row.metadata.contains_key(REPLACING_KEY), "nothing indexed: a plain pending document");
    }

    #[test]
    fn identities_are_recorded_once_then_enforced() {
        let id = EmbeddingIdentity { model: "m".into(), dim: 4 };
        assert!(id.check_recorded(None, None).expect("nothing recorded"));
        assert!(!id.check_recorded(Some("m".into()), Some(4)).expect("same"));
        assert!(id.check_recorded(Some("other".into()), Some(4)).is_err());
        assert!(id.check_recorded(None, Some(8)).is_err(), "a recorded dimension alone is enforced");
        assert!(id.check_recorded(None, Some(4)).expect("dimension only, same"), "then the model is recorded");
    }

    #[test]
    fn a_tally_nets_changes_and_bumps_only_records_the_commit_did_not_write() {
        let mut t = ListTally::default();
        let a = GraphKey::Entity("A".into());
        let r = canonical_owner(&GraphKey::Relation(RelKey { src: "Z".into(), tgt: "B".into() }));
        t.add(a.clone(), 3);
        t.add(a.clone(), -1);
        t.set(r.clone(), 2);
        t.add(r.clone(), 1);
        t.written(r.clone());
        let changes = t.into_changes();
        assert_eq!(changes[0], CountChange { owner: a, base: None, delta: 2, bump_version: true });
        assert_eq!(changes[1], CountChange { owner: r.clone(), base: Some(2), delta: 1, bump_version: false });
        assert_eq!(r, GraphKey::Relation(RelKey::new("B", "Z")), "relation owners in canonical order");
    }
}
