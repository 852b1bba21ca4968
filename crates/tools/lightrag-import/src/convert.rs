//! LightRAG's records as ours: the graph (entities and relations with their provenance) and the
//! documents (text, status row, chunks, what each contributed to the graph).

use std::collections::{BTreeMap, HashSet};

use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::UNKNOWN_SOURCE;
use lightrag_engine::indexing::text::content_hash;
use lightrag_engine::time::now_ms;
use lightrag_ports::{
    Chunk, ChunkingOptions, DocStatus, DocStatusRecord, Document, Entity, GRAPH_FIELD_SEP, RelKey, Relation,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::load::LightragData;
use crate::source::graphml::Attributes;
use crate::source::kv::{DocStatusRow, FullDoc};

/// Metadata key marking a document row written by this importer (value: the LightRAG folder).
pub const IMPORTED_FROM: &str = "imported_from_lightrag";
/// Metadata key with the document's status in LightRAG.
pub const LIGHTRAG_STATUS: &str = "lightrag_status";
/// Metadata key of an interrupted document whose partial graph contributions are still to be
/// removed (see [`DocKind::Interrupted`]).
pub const PURGE_PENDING: &str = "lightrag_import_purge_pending";

/// The graph as our records.
#[derive(Debug, Default)]
pub struct GraphRecords {
    /// Entities by name.
    pub entities: BTreeMap<String, Entity>,
    /// Relations by key.
    pub relations: BTreeMap<RelKey, Relation>,
    /// The uncut chunk list of each entity (LightRAG's `entity_chunks`).
    pub entity_chunks: BTreeMap<String, Vec<String>>,
    /// The uncut chunk list of each relation.
    pub relation_chunks: BTreeMap<RelKey, Vec<String>>,
    /// Entities created for the ends of edges the GraphML file names but does not declare as
    /// nodes, sorted (see [`graph_records`]).
    pub undeclared_nodes: Vec<String>,
}

/// `list` without repeats, in order (a chunk list holds each id once).
fn distinct(list: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    list.into_iter().filter(|c| seen.insert(c.clone())).collect()
}

fn split(value: &str) -> Vec<String> {
    value.split(GRAPH_FIELD_SEP).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

fn seconds_to_ms(a: &Attributes) -> i64 {
    a.number("created_at").map(|s| (s * 1000.0).round() as i64).unwrap_or_else(now_ms)
}

/// Converts the GraphML graph, taking the full chunk lists from `kv_store_entity_chunks.json` /
/// `kv_store_relation_chunks.json` (the graph's `source_id` is the list cut to the limit).
///
/// An edge whose end is not declared as a node keeps its relation, and the end is created as an
/// entity — what LightRAG itself does when it reads such a file (NetworkX adds the missing node,
/// without attributes): type `UNKNOWN`, no description, the provenance of the edges that name it
/// (their chunks, files and earliest time). The names are listed in
/// [`GraphRecords::undeclared_nodes`] (the import report says so); without the entity the
/// relation would dangle, found by `lightrag check` and repairable by nobody.
pub fn graph_records(data: &LightragData) -> GraphRecords {
    let mut out = GraphRecords::default();
    for node in &data.graph.nodes {
        let a = &node.attributes;
        let source_ids = split(a.text("source_id"));
        let chunk_ids = distinct(
            data.entity_chunks.records.get(&node.id).map(|c| c.chunk_ids.clone()).unwrap_or_else(|| source_ids.clone()),
        );
        let entity_type = a.text("entity_type").trim();
        out.entities.insert(
            node.id.clone(),
            Entity {
                name: node.id.clone(),
                entity_type: if entity_type.is_empty() { "UNKNOWN".to_string() } else { entity_type.to_string() },
                description: a.text("description").to_string(),
                source_ids,
                chunk_count: chunk_ids.len(),
                file_paths: split(a.text("file_path")),
                created_at: seconds_to_ms(a),
                truncate: a.text("truncate").to_string(),
                version: 0,
            },
        );
        out.entity_chunks.insert(node.id.clone(), chunk_ids);
    }
    for edge in &data.graph.edges {
        let a = &edge.attributes;
        let key = RelKey::new(edge.source.clone(), edge.target.clone());
        let source_ids = split(a.text("source_id"));
        let tracked = format!("{}{GRAPH_FIELD_SEP}{}", key.src, key.tgt);
        let chunk_ids = distinct(
            data.relation_chunks
                .records
                .get(&tracked)
                .map(|c| c.chunk_ids.clone())
                .unwrap_or_else(|| source_ids.clone()),
        );
        out.relation_chunks.insert(key.clone(), chunk_ids.clone());
        out.relations.insert(
            key.clone(),
            Relation {
                key,
                weight: a.number("weight").unwrap_or(1.0),
                keywords: a.text("keywords").to_string(),
                description: a.text("description").to_string(),
                source_ids,
                chunk_count: chunk_ids.len(),
                file_paths: split(a.text("file_path")),
                created_at: seconds_to_ms(a),
                truncate: a.text("truncate").to_string(),
                version: 0,
            },
        );
    }
    add_undeclared_ends(data, &mut out);
    out
}

/// Creates the entities of edge ends the file does not declare (see [`graph_records`]).
fn add_undeclared_ends(data: &LightragData, out: &mut GraphRecords) {
    let mut created: BTreeMap<String, Entity> = BTreeMap::new();
    for relation in out.relations.values() {
        for end in [&relation.key.src, &relation.key.tgt] {
            if out.entities.contains_key(end) {
                continue;
            }
            let entity = created.entry(end.clone()).or_insert_with(|| Entity {
                name: end.clone(),
                entity_type: "UNKNOWN".to_string(),
                description: String::new(),
                source_ids: Vec::new(),
                chunk_count: 0,
                file_paths: Vec::new(),
                created_at: relation.created_at,
                truncate: String::new(),
                version: 0,
            });
            let fresh = |have: &[String], more: &[String]| -> Vec<String> {
                more.iter().filter(|m| !have.contains(m)).cloned().collect()
            };
            let (ids, files) =
                (fresh(&entity.source_ids, &relation.source_ids), fresh(&entity.file_paths, &relation.file_paths));
            entity.source_ids.extend(ids);
            entity.file_paths.extend(files);
            entity.created_at = entity.created_at.min(relation.created_at);
        }
    }
    for (name, mut entity) in created {
        let from_edges: Vec<String> = out
            .relations
            .keys()
            .filter(|k| k.src == name || k.tgt == name)
            .flat_map(|k| out.relation_chunks.get(k).cloned().unwrap_or_default())
            .collect();
        let chunk_ids =
            distinct(data.entity_chunks.records.get(&name).map(|c| c.chunk_ids.clone()).unwrap_or(from_edges));
        entity.chunk_count = chunk_ids.len();
        out.entity_chunks.insert(name.clone(), chunk_ids);
        out.entities.insert(name.clone(), entity);
        out.undeclared_nodes.push(name);
    }
}

/// What a LightRAG document becomes here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    /// Processed in LightRAG: imported with its chunks, graph contributions and vectors.
    Indexed,
    /// Not finished in LightRAG (pending, parsing, analyzing, processing, preprocessed): imported
    /// as `pending`, to be indexed here.
    Pending,
    /// Not finished in LightRAG, but already part of the graph (LightRAG stopped while merging
    /// it): imported with its chunks, then deleted like any document — which removes its partial
    /// contributions and rebuilds what it shared — and stored again as `pending`, to be indexed
    /// here in full.
    Interrupted,
    /// Failed in LightRAG: imported as `failed` (retried by `lightrag process`).
    Failed,
    /// A duplicate record of LightRAG (`dup-…` or `metadata.is_duplicate`): its status row only.
    Duplicate,
}

/// One document to import.
#[derive(Debug, Clone)]
pub struct DocPlan {
    /// What it becomes.
    pub kind: DocKind,
    /// Its text (`None` when LightRAG has none: duplicates, or a lost `full_docs` entry).
    pub document: Option<Document>,
    /// Its status row.
    pub status: DocStatusRecord,
    /// Its chunks (indexed documents), each with its `llm_cache_list`.
    pub chunks: Vec<(Chunk, Vec<String>)>,
    /// Chunk ids its status lists that `kv_store_text_chunks.json` lacks.
    pub missing_chunks: Vec<String>,
    /// Entities it contributed to (present in the graph).
    pub entities: Vec<String>,
    /// Relations it contributed to (present in the graph).
    pub relations: Vec<RelKey>,
}

impl DocPlan {
    /// The document id.
    pub fn id(&self) -> &str {
        &self.status.id
    }
}

fn kind_of(id: &str, row: &DocStatusRow) -> DocKind {
    let duplicate = id.starts_with("dup-")
        || row.metadata.as_ref().and_then(|m| m.get("is_duplicate")).and_then(Value::as_bool).unwrap_or(false);
    match row.status.to_ascii_lowercase().as_str() {
        _ if duplicate => DocKind::Duplicate,
        "processed" => DocKind::Indexed,
        "failed" => DocKind::Failed,
        _ => DocKind::Pending,
    }
}

/// LightRAG 1.5.7 keeps `{"chunk_token_size": N, "fixed_token": {"split_by_character": …,
/// "split_by_character_only": …, "chunk_overlap_token_size": M}}` with each document, so a
/// re-chunk (reprocess, import resume) cuts it as LightRAG did.
fn chunking_of(doc: &FullDoc) -> ChunkingOptions {
    let options = doc.chunk_options.as_ref();
    let fixed = options.and_then(|o| o.get("fixed_token"));
    let size = |v: Option<&Value>| v.and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok()).filter(|n| *n > 0);
    ChunkingOptions {
        chunk_token_size: size(options.and_then(|o| o.get("chunk_token_size"))),
        chunk_overlap_token_size: size(fixed.and_then(|f| f.get("chunk_overlap_token_size"))),
        split_by_character: fixed.and_then(|f| f.get("split_by_character")).and_then(Value::as_str).map(str::to_string),
        split_by_character_only: fixed
            .and_then(|f| f.get("split_by_character_only"))
            .and_then(Value::as_bool)
            .unwrap_or(false),
    }
}

fn summary_of(content: &str) -> String {
    let trimmed = content.trim();
    let head: String = trimmed.chars().take(250).collect();
    if trimmed.chars().count() > 250 { format!("{head}...") } else { head }
}

/// Builds the documents to import, oldest first. A text without a status row is imported as
/// `pending`; a status row without a text only when it is a duplicate record or failed.
pub fn documents(data: &LightragData, engine: &Engine, graph: &GraphRecords) -> Vec<DocPlan> {
    let source_label = data.source.path.display().to_string();
    let mut ids: Vec<&String> = data.doc_status.records.keys().collect();
    ids.extend(data.full_docs.records.keys().filter(|k| !data.doc_status.records.contains_key(*k)));
    let mut plans = Vec::new();
    for id in ids {
        let row = data.doc_status.records.get(id);
        let full = data.full_docs.records.get(id);
        let kind = row.map(|r| kind_of(id, r)).unwrap_or(DocKind::Pending);
        let now = now_ms();
        let created_at = row
            .and_then(|r| r.created_at.as_ref())
            .and_then(|t| t.millis())
            .or_else(|| full.and_then(|f| f.create_time.as_ref()).and_then(|t| t.millis()))
            .unwrap_or(now);
        let updated_at = row.and_then(|r| r.updated_at.as_ref()).and_then(|t| t.millis()).unwrap_or(created_at);
        let file_path = full
            .and_then(|f| f.file_path.clone())
            .or_else(|| row.and_then(|r| r.file_path.clone()))
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| UNKNOWN_SOURCE.to_string());
        let document = full.map(|f| Document {
            id: id.clone(),
            content: f.content.clone(),
            file_path: file_path.clone(),
            content_hash: content_hash(&f.content),
            chunking: chunking_of(f),
            created_at,
        });
        let content_hash = document
            .as_ref()
            .map(|d| d.content_hash.clone())
            .or_else(|| row.and_then(|r| r.content_hash.clone()))
            .unwrap_or_default();
        let mut metadata = row.and_then(|r| r.metadata.clone()).unwrap_or_default();
        metadata.insert(IMPORTED_FROM.to_string(), json!(source_label));
        metadata.insert(
            LIGHTRAG_STATUS.to_string(),
            json!(row.map(|r| r.status.clone()).unwrap_or_else(|| "missing".to_string())),
        );
        // a pending document's chunks are read only for their cached extraction answers
        let (chunks, mut missing_chunks) = match kind {
            DocKind::Indexed | DocKind::Pending => doc_chunks(data, engine, id, row),
            _ => (Vec::new(), Vec::new()),
        };
        if kind != DocKind::Indexed {
            missing_chunks.clear();
        }
        // an unfinished document whose chunks the graph already names was cut off mid-merge
        let kind = if kind == DocKind::Pending && touches_graph(graph, &chunks) { DocKind::Interrupted } else { kind };
        let with_chunks = matches!(kind, DocKind::Indexed | DocKind::Interrupted);
        let chunk_ids: Vec<String> = chunks.iter().filter(|_| with_chunks).map(|(c, _)| c.id.clone()).collect();
        let (entities, relations) =
            if with_chunks { links(data, graph, id, &chunk_ids) } else { (Vec::new(), Vec::new()) };
        if kind == DocKind::Interrupted {
            metadata.insert(PURGE_PENDING.to_string(), json!(true));
        }
        let status = DocStatusRecord {
            id: id.clone(),
            status: match kind {
                DocKind::Indexed | DocKind::Interrupted => DocStatus::Processed,
                DocKind::Pending => DocStatus::Pending,
                DocKind::Failed | DocKind::Duplicate => DocStatus::Failed,
            },
            file_path,
            track_id: row.and_then(|r| r.track_id.clone()).unwrap_or_default(),
            content_summary: row
                .and_then(|r| r.content_summary.clone())
                .or_else(|| full.map(|f| summary_of(&f.content)))
                .unwrap_or_default(),
            content_length: row
                .and_then(|r| r.content_length)
                .map(|n| n as usize)
                .or_else(|| full.map(|f| f.content.chars().count()))
                .unwrap_or(0),
            content_hash,
            chunks_count: with_chunks.then_some(chunk_ids.len()),
            chunks_list: chunk_ids,
            error_msg: row.and_then(|r| r.error_msg.clone()).filter(|_| !with_chunks),
            metadata,
            created_at,
            updated_at,
            lease_owner: None,
            lease_until: None,
        };
        plans.push(DocPlan { kind, document, status, chunks, missing_chunks, entities, relations });
    }
    plans.sort_by(|a, b| a.status.created_at.cmp(&b.status.created_at).then_with(|| a.id().cmp(b.id())));
    plans
}

/// Whether any graph record names one of `chunks` in its provenance.
fn touches_graph(graph: &GraphRecords, chunks: &[(Chunk, Vec<String>)]) -> bool {
    if chunks.is_empty() {
        return false;
    }
    let ids: HashSet<&str> = chunks.iter().map(|(c, _)| c.id.as_str()).collect();
    graph.entity_chunks.values().any(|list| list.iter().any(|c| ids.contains(c.as_str())))
        || graph.relation_chunks.values().any(|list| list.iter().any(|c| ids.contains(c.as_str())))
}

/// The chunks of an indexed document, in order, with their `llm_cache_list`; and the listed
/// chunk ids that are missing.
fn doc_chunks(
    data: &LightragData,
    engine: &Engine,
    id: &str,
    row: Option<&DocStatusRow>,
) -> (Vec<(Chunk, Vec<String>)>, Vec<String>) {
    let listed: Vec<String> = match row.and_then(|r| r.chunks_list.clone()).filter(|l| !l.is_empty()) {
        Some(list) => list,
        None => {
            let mut found: Vec<(u64, &String)> = data
                .text_chunks
                .records
                .iter()
                .filter(|(_, c)| c.full_doc_id.as_deref() == Some(id))
                .map(|(k, c)| (c.chunk_order_index.unwrap_or(0), k))
                .collect();
            found.sort();
            found.into_iter().map(|(_, k)| k.clone()).collect()
        }
    };
    let mut chunks = Vec::new();
    let mut missing = Vec::new();
    for (position, chunk_id) in listed.iter().enumerate() {
        match data.text_chunks.records.get(chunk_id) {
            Some(c) => chunks.push((
                Chunk {
                    id: chunk_id.clone(),
                    doc_id: id.to_string(),
                    order: c.chunk_order_index.map(|o| o as u32).unwrap_or(position as u32),
                    tokens: c.tokens.map(|t| t as u32).unwrap_or_else(|| engine.count_tokens(&c.content) as u32),
                    content: c.content.clone(),
                    file_path: c.file_path.clone().unwrap_or_else(|| UNKNOWN_SOURCE.to_string()),
                },
                c.llm_cache_list.clone().unwrap_or_default(),
            )),
            None => missing.push(chunk_id.clone()),
        }
    }
    (chunks, missing)
}

/// What a document contributed to the graph: `kv_store_full_entities.json` /
/// `kv_store_full_relations.json`, or (releases without them) every record one of its chunks
/// supports. Only records present in the graph.
fn links(data: &LightragData, graph: &GraphRecords, id: &str, chunk_ids: &[String]) -> (Vec<String>, Vec<RelKey>) {
    let mine: HashSet<&str> = chunk_ids.iter().map(String::as_str).collect();
    let entities: Vec<String> = match data.full_entities.records.get(id) {
        Some(e) => e.entity_names.iter().filter(|n| graph.entities.contains_key(*n)).cloned().collect(),
        None => graph
            .entity_chunks
            .iter()
            .filter(|(_, list)| list.iter().any(|c| mine.contains(c.as_str())))
            .map(|(name, _)| name.clone())
            .collect(),
    };
    let relations: Vec<RelKey> = match data.full_relations.records.get(id) {
        Some(r) => r
            .relation_pairs
            .iter()
            .filter(|p| p.len() == 2)
            .map(|p| RelKey::new(p[0].clone(), p[1].clone()))
            .filter(|k| graph.relations.contains_key(k))
            .collect(),
        None => graph
            .relation_chunks
            .iter()
            .filter(|(_, list)| list.iter().any(|c| mine.contains(c.as_str())))
            .map(|(key, _)| key.clone())
            .collect(),
    };
    (entities, relations)
}
