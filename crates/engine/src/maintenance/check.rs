//! `lightrag check`: is the knowledge base whole? The store's own integrity check, then the
//! agreement of graph, vectors, chunks and documents:
//!
//! * every entity and relation has exactly one vector, and no vector is left without its record;
//! * every chunk of a processed document exists and has a vector, and no chunk or chunk vector is
//!   left without its document or chunk;
//! * every relation's two entities exist;
//! * every vector has the configured dimension, and none holds NaN, infinite values or only zeros
//!   (such a vector ranks first or nowhere in every search; writes refuse them now, but a store
//!   written before, or edited by hand, may hold some);
//! * a processed document's chunk count matches its chunk rows;
//! * no document is stuck in `processing` without a worker (its lease ran out, or its worker was
//!   a process of this host that is gone);
//! * no `failed` document has chunks: they would answer queries for a document that filters, the
//!   listings and its status say is not indexed (what a failed or cancelled replacement left
//!   before it gave the previous version back).
//!
//! [`Engine::check`] reports typed [`Finding`]s (a kind, how many, the first ids, what a repair
//! would do); [`Engine::repair`] ([`repair`]) fixes what needs no LLM.
//!
//! The scan walks every record once, page by page; it keeps the keys of one vector set at a time
//! and the chunk ids per document in memory (tens of bytes per record).

use std::collections::{BTreeMap, HashMap, HashSet};

use lightrag_ports::{
    DocFilter, DocSort, DocStatus, DocStatusRecord, RelKey, Store, VectorFlaw, VectorKind, VectorRecord,
};
use serde::Serialize;

use crate::engine::Engine;
use crate::error::Result;
use crate::time::now_ms;

mod repair;

pub use repair::RepairSummary;

/// Records read per page.
const PAGE: usize = 1000;

/// Ids listed per finding (the count says how many there are).
pub const SAMPLE: usize = 20;

/// What is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// The database's own integrity check failed.
    StoreIntegrity,
    /// An entity without a vector (it cannot be found by vector search).
    EntityWithoutVector,
    /// A relation without a vector.
    RelationWithoutVector,
    /// A chunk without a vector.
    ChunkWithoutVector,
    /// A vector whose entity does not exist.
    OrphanEntityVector,
    /// A vector whose relation does not exist.
    OrphanRelationVector,
    /// A vector whose chunk does not exist.
    OrphanChunkVector,
    /// A vector of another dimension than the configured embedding model's.
    WrongDimension,
    /// A vector holding NaN or infinite values (it would rank first in every search).
    NonFiniteVector,
    /// A vector of only zeros (no search can find it).
    ZeroVector,
    /// A chunk a processed document lists that has no row.
    MissingChunk,
    /// A chunk whose document does not exist.
    OrphanChunk,
    /// A processed document whose chunk count differs from its chunk rows.
    ChunkCountMismatch,
    /// A relation one of whose entities does not exist.
    DanglingRelation,
    /// A document in `processing` that no worker holds.
    StuckProcessing,
    /// A `failed` document whose chunks are stored: queries cite it while filters and its status
    /// say it is not indexed.
    FailedWithChunks,
}

impl FindingKind {
    /// One line on what the finding means.
    pub fn describe(self) -> &'static str {
        match self {
            FindingKind::StoreIntegrity => "the database's own integrity check failed",
            FindingKind::EntityWithoutVector => "entities without a vector",
            FindingKind::RelationWithoutVector => "relations without a vector",
            FindingKind::ChunkWithoutVector => "chunks without a vector",
            FindingKind::OrphanEntityVector => "entity vectors without their entity",
            FindingKind::OrphanRelationVector => "relation vectors without their relation",
            FindingKind::OrphanChunkVector => "chunk vectors without their chunk",
            FindingKind::WrongDimension => "vectors of another dimension than the embedding model's",
            FindingKind::NonFiniteVector => "vectors holding NaN or infinite values",
            FindingKind::ZeroVector => "vectors of only zeros",
            FindingKind::MissingChunk => "chunks of processed documents that are missing",
            FindingKind::OrphanChunk => "chunks without their document",
            FindingKind::ChunkCountMismatch => "processed documents whose chunk count differs from their chunk rows",
            FindingKind::DanglingRelation => "relations whose entity at one end is missing",
            FindingKind::StuckProcessing => "documents stuck in processing with no worker",
            FindingKind::FailedWithChunks => "failed documents whose chunks still answer queries",
        }
    }

    /// What `--repair` does about it.
    pub fn repair(self) -> &'static str {
        match self {
            FindingKind::StoreIntegrity => {
                "none: restore the knowledge base from a backup (`lightrag backup`) or rebuild it"
            }
            FindingKind::EntityWithoutVector | FindingKind::RelationWithoutVector => {
                "embed the description again with the configured embedding model"
            }
            FindingKind::ChunkWithoutVector => "embed the chunk again with the configured embedding model",
            FindingKind::OrphanEntityVector | FindingKind::OrphanRelationVector | FindingKind::OrphanChunkVector => {
                "delete the vector"
            }
            FindingKind::WrongDimension | FindingKind::NonFiniteVector | FindingKind::ZeroVector => {
                "embed the text again with the configured embedding model"
            }
            FindingKind::MissingChunk => {
                "cut the document's text into chunks again and restore the missing ones (and their vectors)"
            }
            FindingKind::OrphanChunk => "delete the chunk with its vector and its place in chunk lists",
            FindingKind::ChunkCountMismatch => {
                "none by itself (restoring missing chunks fixes it when rows are missing); otherwise delete \
                 the document and insert it again"
            }
            FindingKind::DanglingRelation => {
                "none without the LLM: delete the relation (`lightrag graph`, or the server's graph API) or \
                 insert again the documents the entity came from"
            }
            FindingKind::StuckProcessing => "set the document back to pending; `lightrag process` resumes it",
            FindingKind::FailedWithChunks => {
                "give a replaced document its previous version back when one is kept, else set a waiting \
                 replacement back to pending (`lightrag process` finishes it); otherwise none: delete the \
                 document and insert it again"
            }
        }
    }

    /// Whether `--repair` fixes it.
    pub fn repairable(self) -> bool {
        !matches!(self, FindingKind::StoreIntegrity | FindingKind::ChunkCountMismatch | FindingKind::DanglingRelation)
    }
}

/// One kind of problem found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What is wrong.
    pub kind: FindingKind,
    /// How many records it concerns.
    pub count: usize,
    /// The first [`SAMPLE`] of them (ids, names, keys or messages).
    pub ids: Vec<String>,
    /// What `--repair` does about it.
    pub repair: &'static str,
    /// Whether `--repair` fixes it.
    pub repairable: bool,
}

/// What the scan looked at.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Checked {
    /// Document status rows.
    pub documents: usize,
    /// Chunk rows.
    pub chunks: usize,
    /// Entities.
    pub entities: usize,
    /// Relations.
    pub relations: usize,
    /// Vectors per set.
    pub vectors: BTreeMap<VectorKind, usize>,
    /// The documents per status.
    pub status_counts: BTreeMap<DocStatus, usize>,
}

/// The result of [`Engine::check`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    /// What was looked at.
    pub checked: Checked,
    /// The problems, one per kind, in the order of [`FindingKind`].
    pub findings: Vec<Finding>,
    /// What a repair would do, with every id (not only the sample).
    #[serde(skip)]
    pub(crate) work: Work,
}

impl CheckReport {
    /// True when nothing was found.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// True when a finding remains that `--repair` cannot fix.
    pub fn has_unrepairable(&self) -> bool {
        self.findings.iter().any(|f| !f.repairable)
    }
}

/// Every record a repair touches.
#[derive(Debug, Clone, Default)]
pub(crate) struct Work {
    /// Vectors to embed again: entity names, relation vector keys, chunk ids.
    pub(crate) embed: Vec<(VectorKind, String)>,
    /// Vectors to delete.
    pub(crate) drop_vectors: Vec<(VectorKind, String)>,
    /// Chunks to delete.
    pub(crate) drop_chunks: Vec<String>,
    /// Missing chunks per document to cut again: `(chunk id, whether its vector is stored)`.
    pub(crate) restore_chunks: BTreeMap<String, Vec<(String, bool)>>,
    /// Documents to set back to pending.
    pub(crate) reset_documents: Vec<String>,
    /// Failed documents with chunks: to give their previous version back, or to set back to
    /// pending.
    pub(crate) failed_with_chunks: Vec<String>,
}

/// Findings as they are gathered.
#[derive(Default)]
struct Tally {
    found: BTreeMap<FindingKind, (usize, Vec<String>)>,
}

impl Tally {
    fn add(&mut self, kind: FindingKind, id: String) {
        let (count, ids) = self.found.entry(kind).or_default();
        *count += 1;
        if ids.len() < SAMPLE {
            ids.push(id);
        }
    }

    fn into_findings(self) -> Vec<Finding> {
        self.found
            .into_iter()
            .map(|(kind, (count, ids))| Finding {
                kind,
                count,
                ids,
                repair: kind.repair(),
                repairable: kind.repairable(),
            })
            .collect()
    }
}

/// A stored vector's dimension and flaw.
type Shape = (usize, Option<VectorFlaw>);

/// Every key of one vector set with its dimension and flaw.
async fn vector_keys(store: &dyn Store, kind: VectorKind) -> Result<HashMap<String, Shape>> {
    let mut out = HashMap::new();
    let mut after: Option<String> = None;
    loop {
        let page = store.vector_keys_page(kind, after.as_deref(), PAGE).await?;
        let full = page.len() == PAGE;
        after = page.last().map(|v| v.key.clone());
        out.extend(page.into_iter().map(|v| (v.key, (v.dim, v.flaw))));
        if !full {
            return Ok(out);
        }
    }
}

/// Takes `key` out of `vectors`, noting a missing vector, one of the wrong dimension, or a flawed
/// one (each embedded again by a repair).
fn vector_of(
    vectors: &mut HashMap<String, Shape>,
    kind: VectorKind,
    key: &str,
    dim: usize,
    missing: FindingKind,
    tally: &mut Tally,
    work: &mut Work,
) {
    match vectors.remove(key) {
        None => {
            tally.add(missing, key.to_string());
            work.embed.push((kind, key.to_string()));
        }
        Some((d, _)) if d != dim => {
            tally.add(FindingKind::WrongDimension, format!("{} {key} (dim {d})", kind.as_str()));
            work.embed.push((kind, key.to_string()));
        }
        Some((_, Some(flaw))) => {
            let finding = match flaw {
                VectorFlaw::NonFinite => FindingKind::NonFiniteVector,
                VectorFlaw::Zero => FindingKind::ZeroVector,
            };
            tally.add(finding, format!("{} {}", kind.as_str(), show_key(kind, key)));
            work.embed.push((kind, key.to_string()));
        }
        Some((_, None)) => {}
    }
}

/// The vectors left over after their records were looked at: orphans, sorted.
fn orphans(
    vectors: HashMap<String, Shape>,
    kind: VectorKind,
    finding: FindingKind,
    tally: &mut Tally,
    work: &mut Work,
) {
    let mut keys: Vec<String> = vectors.into_keys().collect();
    keys.sort();
    for key in keys {
        tally.add(finding, key.clone());
        work.drop_vectors.push((kind, key));
    }
}

/// How a relation is shown in findings.
fn show_relation(key: &RelKey) -> String {
    format!("{} — {}", key.src, key.tgt)
}

/// How a vector key is shown in findings (a relation's two names, not its stored key).
fn show_key(kind: VectorKind, key: &str) -> String {
    match (kind, VectorRecord::parse_relation_key(key)) {
        (VectorKind::Relation, Some(k)) => show_relation(&k),
        _ => key.to_string(),
    }
}

impl Engine {
    /// Checks the knowledge base (see the module docs); changes nothing.
    pub async fn check(&self) -> Result<CheckReport> {
        let store = self.inner.store.as_ref();
        let dim = self.inner.gateway.embedding_identity().dim;
        let mut tally = Tally::default();
        let mut work = Work::default();
        let mut checked = Checked { vectors: store.vector_counts().await?, ..Default::default() };

        for problem in store.check_integrity().await? {
            tally.add(FindingKind::StoreIntegrity, problem);
        }
        self.check_graph(dim, &mut checked, &mut tally, &mut work).await?;

        // chunks: vectors, and the chunk ids of each document
        let mut vectors = vector_keys(store, VectorKind::Chunk).await?;
        let mut chunks_of: HashMap<String, Vec<String>> = HashMap::new();
        let mut after: Option<String> = None;
        loop {
            let page = store.chunk_keys_page(after.as_deref(), PAGE).await?;
            let full = page.len() == PAGE;
            after = page.last().map(|(id, _)| id.clone());
            for (id, doc_id) in page {
                checked.chunks += 1;
                let kind = VectorKind::Chunk;
                vector_of(&mut vectors, kind, &id, dim, FindingKind::ChunkWithoutVector, &mut tally, &mut work);
                chunks_of.entry(doc_id).or_default().push(id);
            }
            if !full {
                break;
            }
        }

        // documents: their chunks, counts and leases
        let host = self.inner.worker_id.split('/').next().unwrap_or_default().to_string();
        let now = now_ms();
        let mut offset = 0;
        loop {
            let filter = DocFilter { sort: DocSort::IdAsc, offset, limit: Some(PAGE), ..Default::default() };
            let (rows, _) = store.list_docs(&filter).await?;
            offset += rows.len();
            for doc in &rows {
                checked.documents += 1;
                *checked.status_counts.entry(doc.status).or_default() += 1;
                let rows_of_doc = chunks_of.remove(&doc.id).unwrap_or_default();
                if doc.status == DocStatus::Processed {
                    check_processed(doc, &rows_of_doc, &mut vectors, &mut tally, &mut work);
                }
                if doc.status == DocStatus::Processing && is_stuck(doc, now, &host, &self.inner.worker_id) {
                    tally.add(FindingKind::StuckProcessing, doc.id.clone());
                    work.reset_documents.push(doc.id.clone());
                }
                if doc.status == DocStatus::Failed && !rows_of_doc.is_empty() {
                    tally.add(FindingKind::FailedWithChunks, doc.id.clone());
                    work.failed_with_chunks.push(doc.id.clone());
                }
            }
            if rows.len() < PAGE {
                break;
            }
        }
        let mut lone: Vec<String> = chunks_of.into_values().flatten().collect();
        lone.sort();
        for id in lone {
            // its vector goes with it
            vectors.remove(&id);
            tally.add(FindingKind::OrphanChunk, id.clone());
            work.drop_chunks.push(id);
        }
        orphans(vectors, VectorKind::Chunk, FindingKind::OrphanChunkVector, &mut tally, &mut work);
        Ok(CheckReport { checked, findings: tally.into_findings(), work })
    }

    /// Entities and relations against their vectors, and relations against their ends.
    async fn check_graph(&self, dim: usize, checked: &mut Checked, tally: &mut Tally, work: &mut Work) -> Result<()> {
        let store = self.inner.store.as_ref();
        let mut vectors = vector_keys(store, VectorKind::Entity).await?;
        let mut after: Option<String> = None;
        loop {
            let page = store.entities_page(after.as_deref(), PAGE).await?;
            for e in &page {
                checked.entities += 1;
                let missing = FindingKind::EntityWithoutVector;
                vector_of(&mut vectors, VectorKind::Entity, &e.name, dim, missing, tally, work);
            }
            if page.len() < PAGE {
                break;
            }
            after = page.last().map(|e| e.name.clone());
        }
        orphans(vectors, VectorKind::Entity, FindingKind::OrphanEntityVector, tally, work);

        let mut vectors = vector_keys(store, VectorKind::Relation).await?;
        let mut after: Option<RelKey> = None;
        loop {
            let page = store.relations_page(after.as_ref(), PAGE).await?;
            let mut ends: Vec<String> = page.iter().flat_map(|r| [r.key.src.clone(), r.key.tgt.clone()]).collect();
            ends.sort();
            ends.dedup();
            let found = store.get_entities(&ends).await?;
            let missing: HashSet<&str> =
                ends.iter().zip(&found).filter(|(_, e)| e.is_none()).map(|(n, _)| n.as_str()).collect();
            for r in &page {
                checked.relations += 1;
                let key = VectorRecord::relation_key(&r.key);
                let kind = FindingKind::RelationWithoutVector;
                vector_of(&mut vectors, VectorKind::Relation, &key, dim, kind, tally, work);
                if missing.contains(r.key.src.as_str()) || missing.contains(r.key.tgt.as_str()) {
                    tally.add(FindingKind::DanglingRelation, show_relation(&r.key));
                }
            }
            if page.len() < PAGE {
                break;
            }
            after = page.last().map(|r| r.key.clone());
        }
        orphans(vectors, VectorKind::Relation, FindingKind::OrphanRelationVector, tally, work);
        Ok(())
    }
}

/// A processed document's chunks: listed ones that are missing (whose vector, if still stored,
/// is kept for the restored chunk), and the count.
fn check_processed(
    doc: &DocStatusRecord,
    rows: &[String],
    chunk_vectors: &mut HashMap<String, Shape>,
    tally: &mut Tally,
    work: &mut Work,
) {
    let present: HashSet<&str> = rows.iter().map(String::as_str).collect();
    let mut missing = 0;
    for id in doc.chunks_list.iter().filter(|id| !present.contains(id.as_str())) {
        missing += 1;
        tally.add(FindingKind::MissingChunk, id.clone());
        // a sound vector left by the lost row stands for the restored chunk (same id, same text)
        let has_vector = chunk_vectors.remove(id).is_some_and(|(_, flaw)| flaw.is_none());
        work.restore_chunks.entry(doc.id.clone()).or_default().push((id.clone(), has_vector));
    }
    // (missing rows are reported above; their repair also mends the count)
    let expected = doc.chunks_count.unwrap_or(doc.chunks_list.len());
    if missing == 0 && expected != rows.len() {
        tally.add(FindingKind::ChunkCountMismatch, format!("{} ({expected} expected, {} stored)", doc.id, rows.len()));
    }
}

/// Whether a `processing` document has no live worker: its lease ran out (or it has none), or
/// its worker was a process of this host that is gone. A live worker renews its lease, so a
/// document it holds is never stuck.
fn is_stuck(doc: &DocStatusRecord, now: i64, host: &str, me: &str) -> bool {
    match (&doc.lease_owner, doc.lease_until) {
        (Some(owner), Some(until)) => {
            until < now || (owner != me && crate::indexing::pipeline::owner_is_dead(owner, host))
        }
        _ => true,
    }
}
