//! The use cases the Python API runs, on the engine's current public API — the one place of this
//! crate that calls the engine for them.
//!
//! **This module moves onto the application layer of issue 28** (one home per use case under
//! every front end: admission, insert, estimate, query validation, query, delete many, graph
//! edits, export). Until that layer exists it calls what the CLI calls — `enqueue_resuming` then
//! `process` for an insert, `delete_document` per document, the graph edit methods — and takes
//! LightRAG's wire forms from the server's body types (`graph_edit_body`, `query_data_body`,
//! `graph::entity_props`, `documents::doc_json`), so it holds no copy of admission, validation or
//! deletion rules. The rest of the crate only converts between Python and these functions.

use std::sync::Arc;

use lightrag_engine::Engine;
use lightrag_engine::graph::ExportFormat;
use lightrag_engine::graph_edit::EntityUpdate;
use lightrag_engine::input_text::sanitize_text;
use lightrag_engine::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use lightrag_engine::query::{QueryParam, QueryResult};
use lightrag_ports::{ChunkingOptions, DocFilter, EnqueueOutcome};
use lightrag_server::routes::graph::{entity_props, relation_props};
use lightrag_server::routes::graph_edit_body::{EntityChanges, EntityData, RelationChanges, RelationData};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::errors::{Failure, Kind, bad_json};

/// One document of an insert, as the Python layer sends it.
#[derive(Debug, Deserialize)]
pub(crate) struct DocIn {
    content: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    file_path: Option<String>,
    #[serde(default)]
    metadata: serde_json::Map<String, Value>,
}

/// `insert`'s arguments: the documents, LightRAG's chunking switches and the track id.
#[derive(Debug, Deserialize)]
pub(crate) struct InsertIn {
    docs: Vec<DocIn>,
    #[serde(default)]
    split_by_character: Option<String>,
    #[serde(default)]
    split_by_character_only: bool,
    #[serde(default)]
    track_id: Option<String>,
}

impl InsertIn {
    pub(crate) fn parse(json: &str) -> Result<InsertIn, Failure> {
        serde_json::from_str(json).map_err(|e| bad_json("insert", e))
    }

    fn docs(self) -> (Vec<InsertDoc>, Option<String>) {
        let chunking = ChunkingOptions {
            split_by_character: self.split_by_character,
            split_by_character_only: self.split_by_character_only,
            ..ChunkingOptions::default()
        };
        let docs = self
            .docs
            .into_iter()
            .map(|d| InsertDoc {
                // text handed in directly is sanitised as LightRAG's `ainsert` does
                content: sanitize_text(&d.content),
                file_source: d.file_path,
                id: d.id,
                chunking: chunking.clone(),
                metadata: d.metadata,
            })
            .collect();
        (docs, self.track_id)
    }
}

/// Enqueues the documents and indexes everything pending (and what failed before, as LightRAG's
/// pipeline retries it), one run at a time per `LightRAG` object (`runs`).
///
/// The run is a task of its own: if the caller stops waiting (a cancelled `ainsert`, Ctrl-C in
/// `insert`), the run is cancelled — documents being extracted go back to `pending`, committed
/// ones stay — and the next insert, which waits for the cancelled run to wind down, resumes them.
pub(crate) async fn insert(engine: Engine, runs: Arc<Mutex<()>>, input: InsertIn) -> Result<Value, Failure> {
    let cancel = CancellationToken::new();
    let stop_on_drop = cancel.clone().drop_guard();
    let run = tokio::spawn(async move {
        let _one_run = runs.lock_owned().await;
        let (docs, track) = input.docs();
        // a document of an interrupted run (same id and content) is resumed, not a duplicate
        let report = engine.enqueue_resuming(docs, track).await?;
        let options = ProcessOptions { include_failed: true, ..ProcessOptions::default() };
        let processed = engine.process(&options, Arc::new(NoProgress), &cancel).await?;
        Ok::<_, Failure>((report, processed))
    });
    let outcome = run.await.map_err(|e| Failure::new(Kind::Storage, format!("the indexing task stopped: {e}")));
    stop_on_drop.disarm();
    let (report, processed) = outcome??;
    if processed.cancelled {
        return Err(Failure::new(Kind::Cancelled, "cancelled; insert again (or call process) to resume"));
    }
    let duplicates: Vec<Value> = report
        .outcomes
        .iter()
        .filter_map(|o| match o {
            EnqueueOutcome::Duplicate { original_id, original_status, .. } => {
                Some(json!({"original_id": original_id, "original_status": original_status.as_str()}))
            }
            _ => None,
        })
        .collect();
    if !processed.failed.is_empty() {
        let list: Vec<String> = processed.failed.iter().map(|(id, e)| format!("{id}: {e}")).collect();
        return Err(Failure::new(
            Kind::DocumentsFailed,
            format!(
                "{} document(s) failed ({}); fix the cause and insert again to retry",
                processed.failed.len(),
                list.join("; ")
            ),
        ));
    }
    Ok(json!({
        "track_id": report.track_id,
        "processed": processed.processed,
        "duplicates": duplicates,
        "chunks": processed.chunks,
    }))
}

/// `enqueue`'s result (LightRAG's `apipeline_enqueue_documents`): stored, not indexed.
pub(crate) async fn enqueue(engine: &Engine, input: InsertIn) -> Result<Value, Failure> {
    let (docs, track) = input.docs();
    let report = engine.enqueue_resuming(docs, track).await?;
    Ok(json!({"track_id": report.track_id}))
}

/// Indexes what is pending (LightRAG's `apipeline_process_enqueue_documents`).
pub(crate) async fn process(engine: Engine, runs: Arc<Mutex<()>>) -> Result<Value, Failure> {
    insert(
        engine,
        runs,
        InsertIn { docs: Vec::new(), split_by_character: None, split_by_character_only: false, track_id: None },
    )
    .await
}

/// What an insert would cost (ours: `lightrag insert --dry-run`).
pub(crate) async fn estimate(engine: &Engine, input: InsertIn) -> Result<Value, Failure> {
    let (docs, _) = input.docs();
    let estimate = engine.estimate(docs).await?;
    serde_json::to_value(estimate).map_err(|e| bad_json("estimate", e))
}

/// A query's parameters, as the Python layer sends them (`QueryParam`'s fields; `mode` may be
/// any of ours; `filter` is the query filter of docs/api-extensions.md).
pub(crate) fn query_param(json: &str) -> Result<QueryParam, Failure> {
    serde_json::from_str(json).map_err(|e| bad_json("QueryParam", e))
}

/// Answers a question (the answer may be a stream).
pub(crate) async fn query(engine: &Engine, question: &str, param: &QueryParam) -> Result<QueryResult, Failure> {
    Ok(engine.query(question, param).await?)
}

/// Retrieval only, in LightRAG's `aquery_data` shape.
pub(crate) async fn query_data(engine: &Engine, question: &str, param: &QueryParam) -> Result<Value, Failure> {
    let data = engine.query_data(question, param).await?;
    let body = lightrag_server::routes::query_data_body::QueryDataBody::from(&data);
    serde_json::to_value(body).map_err(|e| bad_json("query data", e))
}

/// The retrieval data of a query's result in LightRAG's shape (`data` of `aquery_llm`).
pub(crate) fn data_json(result: &QueryResult) -> Value {
    let body = lightrag_server::routes::query_data_body::QueryDataBody::from(&result.data);
    serde_json::to_value(body).unwrap_or(Value::Null)
}

/// Deletes documents one at a time (issue 28 brings the one-pass deletion of many).
pub(crate) async fn delete_documents(engine: &Engine, ids: &[String]) -> Result<Value, Failure> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let report = engine.delete_document(id).await?;
        out.push(serde_json::to_value(report).map_err(|e| bad_json("deletion", e))?);
    }
    Ok(Value::Array(out))
}

/// Deletes an entity and its relations.
pub(crate) async fn delete_entity(engine: &Engine, name: &str) -> Result<Value, Failure> {
    let deletion = engine.delete_entity(name).await?;
    serde_json::to_value(deletion).map_err(|e| bad_json("deletion", e))
}

/// Deletes the relation between two entities.
pub(crate) async fn delete_relation(engine: &Engine, a: &str, b: &str) -> Result<Value, Failure> {
    let deletion = engine.delete_relation(a, b).await?;
    serde_json::to_value(deletion).map_err(|e| bad_json("deletion", e))
}

/// Creates an entity from LightRAG's `entity_data`.
pub(crate) async fn create_entity(engine: &Engine, name: &str, data: &str) -> Result<Value, Failure> {
    let data: EntityData = serde_json::from_str(data).map_err(|e| bad_json("entity_data", e))?;
    Ok(entity_props(&engine.create_entity(name, data.into()).await?))
}

/// Edits an entity with LightRAG's `updated_data`.
pub(crate) async fn edit_entity(
    engine: &Engine,
    name: &str,
    changes: &str,
    allow_rename: bool,
    allow_merge: bool,
) -> Result<Value, Failure> {
    let changes: EntityChanges = serde_json::from_str(changes).map_err(|e| bad_json("updated_data", e))?;
    let outcome = engine.edit_entity(name, changes.into(), allow_rename, allow_merge).await?;
    let mut data = entity_props(&outcome.entity);
    data["operation_summary"] = serde_json::to_value(outcome.operation_summary).unwrap_or(Value::Null);
    Ok(data)
}

/// Creates a relation from LightRAG's `relation_data`.
pub(crate) async fn create_relation(engine: &Engine, src: &str, tgt: &str, data: &str) -> Result<Value, Failure> {
    let data: RelationData = serde_json::from_str(data).map_err(|e| bad_json("relation_data", e))?;
    Ok(relation_props(&engine.create_relation(src, tgt, data.into()).await?))
}

/// Edits a relation with LightRAG's `updated_data`.
pub(crate) async fn edit_relation(engine: &Engine, src: &str, tgt: &str, changes: &str) -> Result<Value, Failure> {
    let changes: RelationChanges = serde_json::from_str(changes).map_err(|e| bad_json("updated_data", e))?;
    Ok(relation_props(&engine.edit_relation(src, tgt, changes.into()).await?))
}

/// Merges entities into one (LightRAG's `amerge_entities`; `target_data` overrides fields).
pub(crate) async fn merge_entities(
    engine: &Engine,
    sources: &[String],
    target: &str,
    target_data: Option<&str>,
) -> Result<Value, Failure> {
    let update: Option<EntityUpdate> = match target_data {
        None => None,
        Some(json) => {
            let changes: EntityChanges = serde_json::from_str(json).map_err(|e| bad_json("target_entity_data", e))?;
            Some(changes.into())
        }
    };
    let outcome = engine.merge_entities(sources, target, update).await?;
    let mut data = entity_props(&outcome.merged_entity);
    data["deleted_entities"] = json!(outcome.deleted_entities);
    data["relationships_transferred"] = json!(outcome.relationships_transferred);
    Ok(data)
}

/// Writes the graph to `path` as `json`, `graphml` or `csv`.
pub(crate) async fn export(engine: &Engine, path: &str, format: &str) -> Result<(), Failure> {
    let format = format.parse::<ExportFormat>().map_err(|e| Failure::new(Kind::Invalid, e.to_string()))?;
    let engine = engine.clone();
    // the export writes through a `dyn Write`, which an awaitable's task cannot hold: it runs on
    // a blocking thread of its own
    let out = on_blocking_thread(move |rt| {
        let mut out = Vec::new();
        rt.block_on(engine.export_graph(format, &mut out))?;
        Ok(out)
    })
    .await?;
    tokio::fs::write(path, out).await.map_err(|e| {
        Failure::new(Kind::Storage, format!("cannot write {path}: {e} (check the folder and its permissions)"))
    })
}

/// The status records of these documents in LightRAG's shape, by id (missing ids are left out).
pub(crate) async fn docs_by_ids(engine: &Engine, ids: &[String]) -> Result<Value, Failure> {
    let mut out = serde_json::Map::new();
    for id in ids {
        if let Some(record) = engine.document_status(id).await? {
            out.insert(id.clone(), lightrag_server::routes::documents::doc_json(&record));
        }
    }
    Ok(Value::Object(out))
}

/// The status records of one track id, by document id.
pub(crate) async fn docs_by_track_id(engine: &Engine, track_id: &str) -> Result<Value, Failure> {
    let filter = DocFilter { track_id: Some(track_id.to_string()), ..DocFilter::default() };
    let (records, _) = engine.list_documents(&filter).await?;
    let out = records.iter().map(|r| (r.id.clone(), lightrag_server::routes::documents::doc_json(r))).collect();
    Ok(Value::Object(out))
}

/// Empties the LLM response cache; the number of entries removed.
pub(crate) async fn clear_cache(engine: &Engine) -> Result<usize, Failure> {
    Ok(engine.clear_llm_cache().await?)
}

/// The consistency report (ours: `lightrag check`), repaired first when asked.
pub(crate) async fn check(engine: &Engine, repair: bool) -> Result<Value, Failure> {
    let mut report = engine.check().await?;
    if repair {
        engine.repair(&report).await?;
        report = engine.check().await?;
    }
    serde_json::to_value(report).map_err(|e| bad_json("check", e))
}

/// Entity resolution (ours: `lightrag graph resolve`): proposed groups, merged when `apply`.
pub(crate) async fn resolve_entities(engine: &Engine, apply: bool, confirm: bool) -> Result<Value, Failure> {
    let options = lightrag_engine::resolve::ResolveOptions { apply, confirm, ..Default::default() };
    let engine = engine.clone();
    // the engine's resolution future is not `Send`: it runs on a blocking thread of its own
    let report = on_blocking_thread(move |rt| Ok(rt.block_on(engine.resolve_entities(options))?)).await?;
    serde_json::to_value(report).map_err(|e| bad_json("resolve", e))
}

/// Runs `job` on a blocking thread with the runtime's handle, for engine futures that cannot move
/// between threads.
async fn on_blocking_thread<T, J>(job: J) -> Result<T, Failure>
where
    T: Send + 'static,
    J: FnOnce(&tokio::runtime::Handle) -> Result<T, Failure> + Send + 'static,
{
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || job(&handle))
        .await
        .map_err(|e| Failure::new(Kind::Storage, format!("the task stopped: {e}")))?
}
