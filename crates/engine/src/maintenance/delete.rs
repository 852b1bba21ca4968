//! Deleting documents: their chunks, vectors and provenance go; entities and relations supported
//! only by them go; those they shared are rebuilt from the stored extraction records of the
//! chunks that remain — no extraction LLM calls (a summary call only where a description needs
//! one).
//!
//! The cost follows what the documents contributed, not the size of what they shared: the store
//! says which chunk lists hold their chunks ([`lightrag_ports::GraphReads::chunk_owners`]); a
//! record whose shown part did not come from them is kept as it is (the store takes their
//! chunks out of its list); a record that showed them is rebuilt from the part of its remaining
//! list that will be shown (at most `MAX_SOURCE_IDS_PER_*` chunks, see [`plan`]). A much-cited
//! entity ("United States") costs the same as a rare one.
//!
//! Several documents are deleted in one pass ([`Engine::delete_documents`], see [`batch`]): the
//! union of their chunks is removed at once, so an entity they share is rebuilt once, not once
//! per document.

mod batch;
pub(crate) mod plan;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use lightrag_ports::{ChunkExtraction, ChunkListEdit, Entity, GraphKey, RelKey, Relation, paging};
use serde::Serialize;

use tokio_util::sync::CancellationToken;

use crate::engine::{Engine, Inner};
use crate::error::{EngineError, Result};
use crate::indexing::merge::sources::Limits;
use crate::indexing::merge::{self, EntityContribution, MergeMode, RelationContribution, SourcedExtraction};
pub use batch::{BatchDeletionReport, DeletedDocument, DeletionEvent, DeletionProgress, NoDeletionProgress};
use plan::{Fate, Shown};

/// What the deletion of one document did ([`Engine::delete_document`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeletionReport {
    /// The document.
    pub doc_id: String,
    /// Its file path.
    pub file_path: String,
    /// Chunks removed.
    pub chunks_deleted: usize,
    /// Entities removed.
    pub entities_deleted: Vec<String>,
    /// Entities rebuilt from the remaining chunks.
    pub entities_rebuilt: Vec<String>,
    /// Relations removed.
    pub relations_deleted: Vec<RelKey>,
    /// Relations rebuilt.
    pub relations_rebuilt: Vec<RelKey>,
    /// Entities that lost the document's chunks but whose shown record did not depend on them
    /// (only their chunk list and count changed; no rebuild).
    pub entities_kept: Vec<String>,
    /// Relations likewise.
    pub relations_kept: Vec<RelKey>,
    /// LLM cache entries of the document's extractions removed (`delete_llm_cache`).
    pub cache_entries_deleted: usize,
    /// Store records the deletion read (rows; each entry of a chunk list counts one).
    pub records_read: usize,
    /// Store records the deletion wrote or removed (counted the same way).
    pub records_written: usize,
}

/// How a deletion treats what surrounds the document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    /// Also remove the cached LLM responses of the document's extraction (LightRAG's
    /// `delete_llm_cache`), so a re-insert asks the LLM again.
    pub delete_llm_cache: bool,
}

/// Orders contributions by their chunk's place in `chunks` (the order the chunks were merged in),
/// keeping the order within a chunk — as LightRAG's rebuild does — so the rebuilt provenance and
/// description read like the merges that made them, whatever the extraction times were.
fn in_chunk_order<T>(contributions: &mut [T], chunks: &[String], chunk_of: impl Fn(&T) -> &str) {
    let position: HashMap<&str, usize> = chunks.iter().enumerate().map(|(i, c)| (c.as_str(), i)).collect();
    contributions.sort_by_key(|c| position.get(chunk_of(c)).copied().unwrap_or(usize::MAX));
}

/// A record to rebuild and the chunks it is rebuilt from.
pub(crate) struct Rebuild<K> {
    key: K,
    /// The shown part of its list after the deletion.
    window: Vec<String>,
    /// Chunks left in its list.
    total: usize,
    /// The document's chunks in its list.
    lost: Vec<String>,
    /// Its list is replaced by this (an orphan kept as an end of surviving relations).
    pub(crate) replace_list: Option<Vec<String>>,
    /// Its whole remaining list, when the window said nothing about it.
    whole: Option<Vec<String>>,
}

impl<K> Rebuild<K> {
    pub(crate) fn new(key: K, window: Vec<String>, total: usize, lost: &[String]) -> Self {
        Rebuild { key, window, total, lost: lost.to_vec(), replace_list: None, whole: None }
    }
}

impl Engine {
    /// Deletes a document and everything only it supported; rebuilds what it shared.
    pub async fn delete_document(&self, doc_id: &str) -> Result<DeletionReport> {
        self.delete_document_with(doc_id, DeleteOptions::default()).await
    }

    /// [`Engine::delete_document`] with options (e.g. also dropping its extraction cache): a
    /// deletion of one document by [`Engine::delete_documents`], whose outcome for an unknown
    /// document or one being processed is an error here.
    ///
    /// Errors: [`EngineError::NotFound`] when there is no such document,
    /// [`EngineError::Invalid`] when it is being processed right now.
    pub async fn delete_document_with(&self, doc_id: &str, options: DeleteOptions) -> Result<DeletionReport> {
        let ids = [doc_id.to_string()];
        let batch = self.delete_documents(&ids, options, &NoDeletionProgress, &CancellationToken::new()).await?;
        if !batch.not_found.is_empty() {
            return Err(EngineError::NotFound(format!("no document with id {doc_id}")));
        }
        if !batch.busy.is_empty() {
            return Err(EngineError::Invalid(format!(
                "document {doc_id} is being processed right now; cancel or wait, then delete it"
            )));
        }
        Ok(batch.into_single())
    }
}

/// What removing documents' chunks from the graph does, computed but not applied: the stored
/// records read (their versions are what a commit expects), the records rebuilt from the
/// remaining chunks (with their vectors), the chunk lists replaced, and the documents' chunks per
/// list. The entities and relations removed are in the report. Deleting documents applies it
/// with the documents' rows; replacing a document ([`crate::indexing::pipeline`]) folds the new version's
/// records on top of it.
pub(crate) struct Removal {
    /// Entities read (and expected at their versions).
    pub(crate) entities: Vec<Entity>,
    /// Relations read.
    pub(crate) relations: Vec<Relation>,
    /// Relations outside the document's lists that go with a removed entity.
    pub(crate) extra_relations: Vec<Relation>,
    /// Rebuilt records and their new vectors.
    pub(crate) finished: merge::Finished,
    /// Chunk lists replaced.
    pub(crate) lists: Vec<(GraphKey, ChunkListEdit)>,
    /// Per entity or relation, the documents' chunks its list holds.
    pub(crate) lost: BTreeMap<GraphKey, Vec<String>>,
}

impl Removal {
    /// Every entity name the removal read or writes: the entities read and the ends of the
    /// relations read (a relation's key is covered by its two ends), sorted, without repeats —
    /// the store merge locks a commit of it takes.
    pub(crate) fn lock_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .entities
            .iter()
            .map(|e| e.name.clone())
            .chain(
                self.relations.iter().chain(&self.extra_relations).flat_map(|r| [r.key.src.clone(), r.key.tgt.clone()]),
            )
            .chain(self.lost.keys().flat_map(|owner| match owner {
                GraphKey::Entity(name) => vec![name.clone()],
                GraphKey::Relation(key) => vec![key.src.clone(), key.tgt.clone()],
            }))
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// Plans the removal of the chunks `chunks` of the documents `doc_ids` from the graph (see
/// [`Removal`]); summaries of rebuilt descriptions are made here, as `mode` allows (LLM calls
/// only where a description needs one).
pub(crate) async fn removal(
    inner: &Inner,
    doc_ids: &[String],
    chunks: &[String],
    mode: &MergeMode<'_>,
    report: &mut DeletionReport,
) -> Result<Removal> {
    let store = inner.store.as_ref();
    // which lists hold the documents' chunks, and which records their links name
    let owners = store.chunk_owners(chunks).await?;
    report.records_read += owners.len();
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut keys: BTreeSet<RelKey> = BTreeSet::new();
    for doc_id in doc_ids {
        let links = store.get_doc_links(doc_id).await?.unwrap_or_default();
        report.records_read += 1 + links.entities.len() + links.relations.len();
        names.extend(links.entities);
        keys.extend(links.relations.iter().map(|k| RelKey::new(&*k.src, &*k.tgt)));
    }
    let mut lost: BTreeMap<GraphKey, Vec<String>> = BTreeMap::new();
    for (chunk, owner) in owners {
        lost.entry(owner).or_default().push(chunk);
    }
    for owner in lost.keys() {
        match owner {
            GraphKey::Entity(n) => names.insert(n.clone()),
            GraphKey::Relation(k) => keys.insert(k.clone()),
        };
    }
    let names: Vec<String> = names.into_iter().collect();
    let keys: Vec<RelKey> = keys.into_iter().collect();
    let entities: Vec<Entity> = store.get_entities(&names).await?.into_iter().flatten().collect();
    let relations: Vec<Relation> = store.get_relations(&keys).await?.into_iter().flatten().collect();
    report.records_read += entities.len() + relations.len();

    let cfg = &inner.config.merge;
    let entity_limits = crate::indexing::merge::entity_limits(cfg);
    let relation_limits = crate::indexing::merge::relation_limits(cfg);
    let no_chunks: Vec<String> = Vec::new();

    // relations first: a relation that survives keeps its ends
    let mut relation_plans: Vec<Rebuild<RelKey>> = Vec::new();
    for r in &relations {
        let owner = GraphKey::Relation(r.key.clone());
        let lost_here = lost.get(&owner).unwrap_or(&no_chunks);
        let shown = Shown { source_ids: &r.source_ids, chunk_count: r.chunk_count };
        match plan::decide(store, &owner, shown, lost_here, relation_limits, &mut report.records_read).await? {
            None => {}
            Some(Fate::Gone) => report.relations_deleted.push(r.key.clone()),
            Some(Fate::Kept) => report.relations_kept.push(r.key.clone()),
            Some(Fate::Rebuild { window, total }) => {
                relation_plans.push(Rebuild::new(r.key.clone(), window, total, lost_here))
            }
        }
    }
    let deleted_relations: HashSet<RelKey> = report.relations_deleted.iter().cloned().collect();
    let mut entity_plans: Vec<Rebuild<String>> = Vec::new();
    let mut orphans: Vec<String> = Vec::new();
    for e in &entities {
        let owner = GraphKey::Entity(e.name.clone());
        let lost_here = lost.get(&owner).unwrap_or(&no_chunks);
        let shown = Shown { source_ids: &e.source_ids, chunk_count: e.chunk_count };
        match plan::decide(store, &owner, shown, lost_here, entity_limits, &mut report.records_read).await? {
            None => {}
            Some(Fate::Gone) => orphans.push(e.name.clone()),
            Some(Fate::Kept) => report.entities_kept.push(e.name.clone()),
            Some(Fate::Rebuild { window, total }) => {
                entity_plans.push(Rebuild::new(e.name.clone(), window, total, lost_here))
            }
        }
    }
    // an entity left without chunks but still an end of a surviving relation is kept,
    // rebuilt from the shown chunks of those relations
    if !orphans.is_empty() {
        let touching = store.relations_of(&orphans).await?;
        report.records_read += touching.len();
        let rebuilt_windows: HashMap<&RelKey, &Vec<String>> =
            relation_plans.iter().map(|p| (&p.key, &p.window)).collect();
        let orphan_set: HashSet<&String> = orphans.iter().collect();
        let mut kept: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in touching.iter().filter(|r| !deleted_relations.contains(&r.key)) {
            let chunks = match rebuilt_windows.get(&r.key) {
                Some(w) => (*w).clone(),
                None => {
                    let owner = GraphKey::Relation(r.key.clone());
                    let lost_here = lost.get(&owner).unwrap_or(&no_chunks);
                    plan::window(store, &owner, lost_here, relation_limits, &mut report.records_read).await?
                }
            };
            for end in [&r.key.src, &r.key.tgt] {
                if orphan_set.contains(end) {
                    kept.entry(end.clone()).or_default().extend(chunks.iter().cloned());
                }
            }
        }
        for name in orphans {
            match kept.remove(&name) {
                Some(chunks) => {
                    let list = crate::indexing::order::dedup_in_order(chunks);
                    let window = plan::shown_part(list.clone(), entity_limits);
                    let total = list.len();
                    let mut plan = Rebuild::new(name, window, total, &[]);
                    plan.replace_list = Some(list);
                    entity_plans.push(plan);
                }
                None => report.entities_deleted.push(name),
            }
        }
    }

    let limits = (entity_limits, relation_limits);
    let rebuilt = rebuild(inner, entity_plans, relation_plans, limits, &HashMap::new(), report).await?;
    let RebuiltRecords { entity_drafts, relation_drafts, lists } = rebuilt;
    let mut relation_drafts = relation_drafts;
    // relations touching deleted entities cannot stay
    let gone: HashSet<&String> = report.entities_deleted.iter().collect();
    relation_drafts.retain(|d| {
        let keep = !gone.contains(&d.key.src) && !gone.contains(&d.key.tgt);
        if !keep {
            report.relations_deleted.push(d.key.clone());
            report.relations_rebuilt.retain(|k| k != &d.key);
        }
        keep
    });
    // relations outside this document's lists that touch a deleted entity (possible after
    // hand edits) cannot stay either: no dangling edges
    let mut extra_relations = Vec::new();
    if !report.entities_deleted.is_empty() {
        let known: HashSet<RelKey> =
            report.relations_deleted.iter().chain(relation_drafts.iter().map(|d| &d.key)).cloned().collect();
        let touching = store.relations_of(&report.entities_deleted).await?;
        report.records_read += touching.len();
        for r in touching {
            if !known.contains(&r.key) {
                report.relations_deleted.push(r.key.clone());
                report.relations_kept.retain(|k| k != &r.key);
                extra_relations.push(r);
            }
        }
    }
    let mut finished = merge::finish(inner, entity_drafts, relation_drafts, mode).await?;
    // a rebuilt relation keeps its creation time (LightRAG's rebuild does; entities get a new one)
    let created: HashMap<&RelKey, i64> = relations.iter().map(|r| (&r.key, r.created_at)).collect();
    for r in &mut finished.relations {
        if let Some(at) = created.get(&r.key) {
            r.created_at = *at;
        }
    }

    Ok(Removal { entities, relations, extra_relations, finished, lists, lost })
}

/// Drafts of the rebuilt records, and the chunk lists to replace.
pub(crate) struct RebuiltRecords {
    pub(crate) entity_drafts: Vec<merge::EntityDraft>,
    pub(crate) relation_drafts: Vec<merge::RelationDraft>,
    pub(crate) lists: Vec<(GraphKey, ChunkListEdit)>,
}

/// Contributions of `chunks` (in list order) to the entity `name`: per chunk, what the chunk
/// said about the entity, or else what its relations implied (an end named only in a relation).
fn entity_contributions<'a>(
    grouped: &merge::Grouped<'a>,
    endpoints: &'a HashMap<String, Vec<merge::EndpointRecord>>,
    name: &str,
    chunks: &[String],
) -> Vec<EntityContribution<'a>> {
    let named = grouped.entities.get(name).map(Vec::as_slice).unwrap_or(&[]);
    let implied = endpoints.get(name).map(|l| merge::endpoint_contributions(l)).unwrap_or_default();
    let mut out: Vec<EntityContribution<'a>> = Vec::new();
    for chunk in chunks {
        let own: Vec<&EntityContribution<'a>> = named.iter().filter(|c| c.chunk_id == chunk).collect();
        if own.is_empty() {
            out.extend(implied.iter().filter(|c| c.chunk_id == chunk).cloned());
        } else {
            out.extend(own.into_iter().cloned());
        }
    }
    out
}

fn relation_contributions<'a>(
    grouped: &merge::Grouped<'a>,
    key: &RelKey,
    chunks: &[String],
) -> Vec<RelationContribution<'a>> {
    let listed: HashSet<&str> = chunks.iter().map(String::as_str).collect();
    let mut out: Vec<RelationContribution<'a>> = grouped
        .relations
        .get(key)
        .map(|list| list.iter().filter(|c| listed.contains(c.chunk_id)).cloned().collect())
        .unwrap_or_default();
    in_chunk_order(&mut out, chunks, |c| c.chunk_id);
    out
}

/// The chunks a plan is folded from, the shown part of them, their number, and the list that
/// replaces the stored one: normally its window; after a widened read (no contribution in the
/// window), the chunks of the whole list that contribute — LightRAG's rebuild, which lists only
/// contributing chunks.
fn settle<T>(
    window: &[String],
    total: usize,
    whole: Option<&Vec<String>>,
    contributions: Vec<T>,
    chunk_of: impl Fn(&T) -> &str,
    limits: Limits,
) -> (Vec<T>, Vec<String>, usize, Option<Vec<String>>) {
    match whole {
        None => (contributions, window.to_vec(), total, None),
        Some(list) => {
            let contributing: HashSet<&str> = contributions.iter().map(&chunk_of).collect();
            let listed: Vec<String> = list.iter().filter(|c| contributing.contains(c.as_str())).cloned().collect();
            let shown = plan::shown_part(listed.clone(), limits);
            let in_window: HashSet<&str> = shown.iter().map(String::as_str).collect();
            let kept: Vec<T> = contributions.into_iter().filter(|c| in_window.contains(chunk_of(c))).collect();
            let total = listed.len();
            (kept, shown, total, Some(listed))
        }
    }
}

/// Folds every planned record again from the extraction records of its shown chunks (`overlay`
/// stands in for the stored record of its chunks: records about to be rewritten). A plan
/// whose shown chunks say nothing about it (possible after hand edits) is read whole once.
pub(crate) async fn rebuild(
    inner: &Inner,
    mut entity_plans: Vec<Rebuild<String>>,
    mut relation_plans: Vec<Rebuild<RelKey>>,
    limits: (Limits, Limits),
    overlay: &HashMap<String, ChunkExtraction>,
    report: &mut DeletionReport,
) -> Result<RebuiltRecords> {
    let store = inner.store.as_ref();
    let cfg = &inner.config.merge;
    let (entity_limits, relation_limits) = limits;
    entity_plans.sort_by(|a, b| a.key.cmp(&b.key));
    relation_plans.sort_by(|a, b| a.key.cmp(&b.key));
    for round in 0..2 {
        let mut needed: Vec<String> = entity_plans
            .iter()
            .map(|p| p.whole.as_ref().unwrap_or(&p.window))
            .chain(relation_plans.iter().map(|p| p.whole.as_ref().unwrap_or(&p.window)))
            .flatten()
            .cloned()
            .collect();
        needed.sort();
        needed.dedup();
        let mut extractions = store.get_extractions(&needed).await?;
        for x in &mut extractions {
            if let Some(y) = overlay.get(&x.chunk_id) {
                *x = y.clone();
            }
        }
        let chunks = store.get_chunks(&needed).await?;
        report.records_read += extractions.len() + chunks.len();
        let paths: HashMap<String, String> = chunks.into_iter().flatten().map(|c| (c.id, c.file_path)).collect();
        let sourced: Vec<SourcedExtraction<'_>> = extractions
            .iter()
            .map(|e| SourcedExtraction {
                file_path: paths.get(&e.chunk_id).map(String::as_str).unwrap_or_default(),
                extraction: e,
            })
            .collect();
        let grouped = merge::group(&sourced);
        let endpoints = merge::endpoint_records(&sourced, false);

        // plans whose shown chunks said nothing: read their whole list and fold again
        let mut widen: Vec<GraphKey> = Vec::new();
        if round == 0 {
            for p in entity_plans.iter().filter(|p| p.whole.is_none() && p.total > p.window.len()) {
                if entity_contributions(&grouped, &endpoints, &p.key, &p.window).is_empty() {
                    widen.push(GraphKey::Entity(p.key.clone()));
                }
            }
            for p in relation_plans.iter().filter(|p| p.whole.is_none() && p.total > p.window.len()) {
                if relation_contributions(&grouped, &p.key, &p.window).is_empty() {
                    widen.push(GraphKey::Relation(p.key.clone()));
                }
            }
        }
        if !widen.is_empty() {
            for owner in widen {
                let list = paging::whole_chunk_list(store, &owner).await?;
                report.records_read += list.len();
                match &owner {
                    GraphKey::Entity(name) => {
                        if let Some(p) = entity_plans.iter_mut().find(|p| &p.key == name) {
                            p.whole = Some(list.into_iter().filter(|c| !p.lost.contains(c)).collect());
                        }
                    }
                    GraphKey::Relation(key) => {
                        if let Some(p) = relation_plans.iter_mut().find(|p| &p.key == key) {
                            p.whole = Some(list.into_iter().filter(|c| !p.lost.contains(c)).collect());
                        }
                    }
                }
            }
            continue;
        }

        let mut out = RebuiltRecords { entity_drafts: Vec::new(), relation_drafts: Vec::new(), lists: Vec::new() };
        for p in &entity_plans {
            let chunks = p.whole.as_ref().unwrap_or(&p.window);
            let found = entity_contributions(&grouped, &endpoints, &p.key, chunks);
            let (mut contributions, window, total, listed) =
                settle(&p.window, p.total, p.whole.as_ref(), found, |c| c.chunk_id, entity_limits);
            if contributions.is_empty() {
                report.entities_deleted.push(p.key.clone());
                continue;
            }
            in_chunk_order(&mut contributions, &window, |c| c.chunk_id);
            if let Some(list) = listed.or_else(|| p.replace_list.clone()) {
                out.lists.push((GraphKey::Entity(p.key.clone()), ChunkListEdit::Replace(list)));
            }
            report.entities_rebuilt.push(p.key.clone());
            out.entity_drafts.push(merge::rebuild_entity(cfg, &p.key, &window, total, &contributions));
        }
        for p in &relation_plans {
            let chunks = p.whole.as_ref().unwrap_or(&p.window);
            let found = relation_contributions(&grouped, &p.key, chunks);
            let (contributions, window, total, listed) =
                settle(&p.window, p.total, p.whole.as_ref(), found, |c| c.chunk_id, relation_limits);
            if contributions.is_empty() {
                report.relations_deleted.push(p.key.clone());
                continue;
            }
            if let Some(list) = listed {
                out.lists.push((GraphKey::Relation(p.key.clone()), ChunkListEdit::Replace(list)));
            }
            report.relations_rebuilt.push(p.key.clone());
            out.relation_drafts.push(merge::rebuild_relation(cfg, &p.key, &window, total, &contributions));
        }
        return Ok(out);
    }
    Ok(RebuiltRecords { entity_drafts: Vec::new(), relation_drafts: Vec::new(), lists: Vec::new() })
}
