//! Running an import: one change set per document (text, status, chunks, extraction records,
//! cache entries, the graph records it contributed to in their LightRAG state, vectors, links),
//! then the graph records no document links to, then the remaining cache entries.
//!
//! Every write is an upsert of LightRAG's final state, and documents already in the knowledge base
//! from an earlier run are skipped, so a run stopped at any point (Ctrl-C, a kill) is continued by
//! running it again, and nothing is written twice.

use std::collections::BTreeMap;
use std::path::PathBuf;

use lightrag_engine::indexing::pipeline::check_file_source;
use lightrag_engine::{Engine, EngineError};
use lightrag_ports::{
    ChangeSet, ChunkListEdit, DocFilter, DocLinks, DocStatus, Entity, GraphKey, RelKey, Relation, StoreError,
};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::convert::{DocKind, GraphRecords, IMPORTED_FROM, PURGE_PENDING};
use crate::error::ImportError;
use crate::prepare::{Prepared, PreparedDoc, prepare};
use crate::report::ImportReport;
use crate::vectors::{self, Wanted};
use crate::{load, source};

/// What to import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// The LightRAG working directory (or a workspace folder of it).
    pub dir: PathBuf,
    /// The LightRAG workspace to read (`None`: see [`source::locate`]).
    pub from_workspace: Option<String>,
    /// The workspace of the target knowledge base (used to pick the LightRAG workspace of the
    /// same name).
    pub target_workspace: String,
    /// When not empty, the folders the import may read from: the LightRAG workspace folder (its
    /// name joined and every link followed) and each file in it must lie below one of them (the
    /// server's `IMPORT_ALLOWED_DIRS`; see [`source::confine`]).
    pub allowed_dirs: Vec<PathBuf>,
}

/// The workspace folder `options` names, confined to [`ImportOptions::allowed_dirs`].
pub fn resolve(options: &ImportOptions) -> Result<source::SourceDir, ImportError> {
    // one spelling of the folder, so a run continued from elsewhere (or by the server) is the same import
    let dir = std::fs::canonicalize(&options.dir).unwrap_or_else(|_| options.dir.clone());
    let found = source::locate(&dir, options.from_workspace.as_deref(), &options.target_workspace)?;
    source::confine(found, &options.allowed_dirs)
}

/// Progress of an import.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ImportEvent {
    /// The files were read.
    Loaded {
        /// Documents found.
        documents: usize,
        /// Entities in the graph.
        entities: usize,
        /// Relations in the graph.
        relations: usize,
        /// LLM cache entries.
        cache_entries: usize,
    },
    /// The vectors were checked.
    Vectors {
        /// Whether LightRAG's vectors are kept.
        reuse: bool,
        /// Why.
        reason: String,
    },
    /// A document was written (or skipped as already present).
    Document {
        /// Position, from 1.
        index: usize,
        /// Documents in all.
        total: usize,
        /// Its id.
        doc_id: String,
        /// Its file.
        file_path: String,
        /// Whether it was already there.
        skipped: bool,
    },
    /// Graph records no document links to were written.
    Graph {
        /// Written so far.
        done: usize,
        /// In all.
        total: usize,
    },
    /// Cache entries were written.
    Cache {
        /// Written so far.
        done: usize,
        /// In all.
        total: usize,
    },
}

/// Receives [`ImportEvent`]s.
pub trait ImportProgress: Send + Sync {
    /// Called for each event.
    fn event(&self, event: &ImportEvent);
}

/// Ignores events.
pub struct NoImportProgress;

impl ImportProgress for NoImportProgress {
    fn event(&self, _event: &ImportEvent) {}
}

/// Graph records per change set after the documents.
const GRAPH_BATCH: usize = 200;
/// Cache entries per change set.
const CACHE_BATCH: usize = 1000;
/// Attempts of a change set that meets concurrent writers.
const ATTEMPTS: usize = 5;

async fn prepare_from(engine: &Engine, options: &ImportOptions) -> Result<Prepared, ImportError> {
    let found = resolve(options)?;
    let engine = engine.clone();
    tokio::task::spawn_blocking(move || {
        let data = load::load(&found);
        prepare(&engine, data)
    })
    .await
    .map_err(|e| ImportError::Io { path: options.dir.clone(), reason: format!("the reading task failed: {e}") })
}

/// The target's documents that this import wrote earlier (with whether an interrupted one still
/// waits for its purge), or the error when the target holds documents from elsewhere.
async fn present_documents(
    engine: &Engine,
    prepared: &Prepared,
) -> Result<Result<BTreeMap<String, bool>, ImportError>, ImportError> {
    let (rows, _) = engine.list_documents(&DocFilter::default()).await?;
    let mut mine = BTreeMap::new();
    let mut foreign = Vec::new();
    for row in rows {
        let from_here =
            row.metadata.get(IMPORTED_FROM).and_then(|v| v.as_str()) == Some(prepared.source_label.as_str());
        if from_here {
            let purge = row.status == DocStatus::Processed
                && row.metadata.get(PURGE_PENDING).and_then(|v| v.as_bool()).unwrap_or(false);
            mine.insert(row.id, purge);
        } else {
            foreign.push(row.id);
        }
    }
    if let Some(example) = foreign.first() {
        return Ok(Err(ImportError::TargetNotEmpty {
            source_dir: prepared.source.path.clone(),
            count: foreign.len(),
            example: example.clone(),
        }));
    }
    Ok(Ok(mine))
}

/// Every document's file path within the name limit every insert path shares
/// ([`check_file_source`]), checked before anything is written.
fn check_names(prepared: &Prepared) -> Result<(), ImportError> {
    for doc in &prepared.docs {
        let field = format!("the file_path of document {}", doc.plan.id());
        check_file_source(&field, &doc.plan.status.file_path)?;
    }
    Ok(())
}

/// Reads the LightRAG folder and reports what an import would do, writing nothing. Re-embeds a
/// few stored texts to decide about the vectors.
pub async fn check(engine: &Engine, options: &ImportOptions) -> Result<ImportReport, ImportError> {
    let prepared = prepare_from(engine, options).await?;
    let mut report = ImportReport::new(&prepared, true);
    match present_documents(engine, &prepared).await? {
        Ok(present) => report.documents.already_present = present.len(),
        Err(blocked) => report.blocked = Some(blocked.to_string()),
    }
    if let Err(bad_name) = check_names(&prepared) {
        report.blocked.get_or_insert_with(|| bad_name.to_string());
    }
    report.vectors = Some(vectors::check(engine, &prepared.stored).await?);
    Ok(report)
}

/// Imports the LightRAG folder into `engine`'s knowledge base. Stops between documents when
/// `cancel` fires (the report says so; running again continues).
pub async fn import(
    engine: &Engine,
    options: &ImportOptions,
    progress: &dyn ImportProgress,
    cancel: &CancellationToken,
) -> Result<ImportReport, ImportError> {
    let prepared = prepare_from(engine, options).await?;
    if prepared.docs.is_empty() && prepared.graph.entities.is_empty() {
        return Err(ImportError::NothingToImport {
            dir: prepared.source.path.clone(),
            reason: "no document and no graph were found (see `--check` for what each file holds)".into(),
        });
    }
    check_names(&prepared)?;
    let mut report = ImportReport::new(&prepared, false);
    progress.event(&ImportEvent::Loaded {
        documents: prepared.docs.len(),
        entities: prepared.graph.entities.len(),
        relations: prepared.graph.relations.len(),
        cache_entries: prepared.cache_counts.values().map(|c| c.total).sum(),
    });
    let present = present_documents(engine, &prepared).await??;
    let check = vectors::check(engine, &prepared.stored).await?;
    let reuse = check.reuse;
    progress.event(&ImportEvent::Vectors { reuse, reason: check.reason.clone() });
    report.vectors = Some(check);

    let total = prepared.docs.len();
    for (i, doc) in prepared.docs.iter().enumerate() {
        if cancel.is_cancelled() {
            report.cancelled = true;
            return Ok(report);
        }
        let skipped = present.contains_key(doc.plan.id());
        if skipped {
            report.documents.already_present += 1;
        } else {
            report.vectors_embedded += write_document(engine, &prepared, doc, reuse).await?;
            report.documents.imported += 1;
        }
        if (!skipped && doc.plan.kind == DocKind::Interrupted) || present.get(doc.plan.id()) == Some(&true) {
            purge(engine, doc).await?;
        }
        progress.event(&ImportEvent::Document {
            index: i + 1,
            total,
            doc_id: doc.plan.id().to_string(),
            file_path: doc.plan.status.file_path.clone(),
            skipped,
        });
    }
    if cancel.is_cancelled() {
        report.cancelled = true;
        return Ok(report);
    }
    report.vectors_embedded += write_unlinked_graph(engine, &prepared, reuse, progress, cancel).await?;
    if cancel.is_cancelled() {
        report.cancelled = true;
        return Ok(report);
    }
    let cache_total = prepared.cache_rest.len();
    for (n, batch) in prepared.cache_rest.chunks(CACHE_BATCH).enumerate() {
        engine.commit_changes(ChangeSet { cache: batch.to_vec(), ..Default::default() }).await?;
        progress
            .event(&ImportEvent::Cache { done: (n * CACHE_BATCH + batch.len()).min(cache_total), total: cache_total });
    }
    report.complete = true;
    Ok(report)
}

/// Removes an interrupted document's partial graph contributions — a deletion, which rebuilds
/// what it shared from the other chunks' records — and stores it again as `pending`, to be
/// indexed in full here (its cached extraction answers are in the cache).
async fn purge(engine: &Engine, doc: &PreparedDoc) -> Result<(), ImportError> {
    engine.delete_document(doc.plan.id()).await?;
    let mut status = doc.plan.status.clone();
    status.metadata.remove(PURGE_PENDING);
    status.chunks_count = None;
    status.chunks_list.clear();
    if doc.plan.document.is_some() {
        status.status = DocStatus::Pending;
    } else {
        status.status = DocStatus::Failed;
        status.error_msg =
            Some("LightRAG has no text of this document (kv_store_full_docs.json); insert it again".into());
    }
    let changes = ChangeSet {
        documents: doc.plan.document.iter().cloned().collect(),
        doc_status: vec![status],
        ..Default::default()
    };
    engine.commit_changes(changes).await?;
    Ok(())
}

/// Entities and relations of a change set, with the versions they were read at, leaving out the
/// ones the store already holds exactly (written by an earlier document or run).
struct GraphWrite {
    entities: Vec<Entity>,
    relations: Vec<Relation>,
    expect_entities: Vec<(String, Option<u64>)>,
    expect_relations: Vec<(RelKey, Option<u64>)>,
    /// The chunk lists of the records written.
    chunk_lists: Vec<(GraphKey, ChunkListEdit)>,
}

fn same_entity(a: &Entity, b: &Entity) -> bool {
    Entity { version: 0, ..a.clone() } == Entity { version: 0, ..b.clone() }
}

fn same_relation(a: &Relation, b: &Relation) -> bool {
    Relation { version: 0, ..a.clone() } == Relation { version: 0, ..b.clone() }
}

async fn graph_write(
    engine: &Engine,
    graph: &GraphRecords,
    entities: Vec<&Entity>,
    relations: Vec<&Relation>,
) -> Result<GraphWrite, ImportError> {
    let names: Vec<String> = entities.iter().map(|e| e.name.clone()).collect();
    let keys: Vec<RelKey> = relations.iter().map(|r| r.key.clone()).collect();
    let stored_entities = engine.entities(&names).await?;
    let stored_relations = engine.relations(&keys).await?;
    let mut out = GraphWrite {
        entities: Vec::new(),
        relations: Vec::new(),
        expect_entities: Vec::new(),
        expect_relations: Vec::new(),
        chunk_lists: Vec::new(),
    };
    for (e, stored) in entities.into_iter().zip(stored_entities) {
        if stored.as_ref().is_some_and(|s| same_entity(s, e)) {
            continue;
        }
        out.expect_entities.push((e.name.clone(), stored.map(|s| s.version)));
        out.entities.push(e.clone());
        let list = graph.entity_chunks.get(&e.name).cloned().unwrap_or_default();
        out.chunk_lists.push((GraphKey::Entity(e.name.clone()), ChunkListEdit::Replace(list)));
    }
    for (r, stored) in relations.into_iter().zip(stored_relations) {
        if stored.as_ref().is_some_and(|s| same_relation(s, r)) {
            continue;
        }
        out.expect_relations.push((r.key.clone(), stored.map(|s| s.version)));
        out.relations.push(r.clone());
        let list = graph.relation_chunks.get(&r.key).cloned().unwrap_or_default();
        out.chunk_lists.push((GraphKey::Relation(r.key.clone()), ChunkListEdit::Replace(list)));
    }
    Ok(out)
}

/// Writes one document; returns how many vectors were embedded.
async fn write_document(
    engine: &Engine,
    prepared: &Prepared,
    doc: &PreparedDoc,
    reuse: bool,
) -> Result<usize, ImportError> {
    // an interrupted document is written whole first, then purged (see [`purge`])
    let indexed = matches!(doc.plan.kind, DocKind::Indexed | DocKind::Interrupted);
    let stored = &prepared.stored;
    let mut embedded_total = 0;
    for attempt in 1..=ATTEMPTS {
        let (entities, relations): (Vec<&Entity>, Vec<&Relation>) = if indexed {
            (
                doc.plan.entities.iter().filter_map(|n| prepared.graph.entities.get(n)).collect(),
                doc.plan.relations.iter().filter_map(|k| prepared.graph.relations.get(k)).collect(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let graph = graph_write(engine, &prepared.graph, entities, relations).await?;
        let mut wanted: Vec<Wanted> = Vec::new();
        if indexed {
            wanted.extend(doc.plan.chunks.iter().map(|(c, _)| vectors::for_chunk(stored, reuse, &c.id, &c.content)));
        }
        wanted.extend(graph.entities.iter().map(|e| vectors::for_entity(stored, reuse, e)));
        wanted.extend(graph.relations.iter().map(|r| vectors::for_relation(stored, reuse, r)));
        let (vector_records, embedded) = vectors::resolve(engine, wanted).await?;
        embedded_total += embedded;
        let changes = ChangeSet {
            expect_entities: graph.expect_entities,
            expect_relations: graph.expect_relations,
            documents: doc.plan.document.iter().cloned().collect(),
            doc_status: vec![doc.plan.status.clone()],
            chunks: doc.plan.chunks.iter().map(|(c, _)| c.clone()).collect(),
            extractions: doc.extractions.clone(),
            entities: graph.entities,
            relations: graph.relations,
            chunk_lists: graph.chunk_lists,
            vectors: vector_records,
            doc_links: if indexed {
                vec![DocLinks {
                    doc_id: doc.plan.id().to_string(),
                    entities: doc.plan.entities.clone(),
                    relations: doc.plan.relations.clone(),
                }]
            } else {
                Vec::new()
            },
            cache: doc.cache.clone(),
            ..Default::default()
        };
        match engine.commit_changes(changes).await {
            Ok(()) => return Ok(embedded_total),
            Err(EngineError::Store(StoreError::Conflict(what))) if attempt < ATTEMPTS => {
                tracing::info!("importing {}: concurrent update of {what}; writing again", doc.plan.id());
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(embedded_total)
}

/// Writes the entities and relations no document links to (created by hand in LightRAG, or left
/// by a document whose links were lost), in batches; returns how many vectors were embedded.
async fn write_unlinked_graph(
    engine: &Engine,
    prepared: &Prepared,
    reuse: bool,
    progress: &dyn ImportProgress,
    cancel: &CancellationToken,
) -> Result<usize, ImportError> {
    let entities: Vec<&Entity> =
        prepared.graph.entities.values().filter(|e| !prepared.linked_entities.contains(&e.name)).collect();
    let relations: Vec<&Relation> =
        prepared.graph.relations.values().filter(|r| !prepared.linked_relations.contains(&r.key)).collect();
    let total = entities.len() + relations.len();
    if total == 0 {
        return Ok(0);
    }
    let mut embedded_total = 0;
    let mut done = 0;
    let mut batches: Vec<(Vec<&Entity>, Vec<&Relation>)> =
        entities.chunks(GRAPH_BATCH).map(|b| (b.to_vec(), Vec::new())).collect();
    batches.extend(relations.chunks(GRAPH_BATCH).map(|b| (Vec::new(), b.to_vec())));
    for (batch_entities, batch_relations) in batches {
        if cancel.is_cancelled() {
            return Ok(embedded_total);
        }
        let size = batch_entities.len() + batch_relations.len();
        for attempt in 1..=ATTEMPTS {
            let graph = graph_write(engine, &prepared.graph, batch_entities.clone(), batch_relations.clone()).await?;
            let mut wanted: Vec<Wanted> =
                graph.entities.iter().map(|e| vectors::for_entity(&prepared.stored, reuse, e)).collect();
            wanted.extend(graph.relations.iter().map(|r| vectors::for_relation(&prepared.stored, reuse, r)));
            let (vector_records, embedded) = vectors::resolve(engine, wanted).await?;
            embedded_total += embedded;
            let changes = ChangeSet {
                expect_entities: graph.expect_entities,
                expect_relations: graph.expect_relations,
                entities: graph.entities,
                relations: graph.relations,
                chunk_lists: graph.chunk_lists,
                vectors: vector_records,
                ..Default::default()
            };
            match engine.commit_changes(changes).await {
                Ok(()) => break,
                Err(EngineError::Store(StoreError::Conflict(_))) if attempt < ATTEMPTS => {}
                Err(e) => return Err(e.into()),
            }
        }
        done += size;
        progress.event(&ImportEvent::Graph { done, total });
    }
    Ok(embedded_total)
}
