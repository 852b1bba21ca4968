//! The Python API's use cases: the application layer's where it owns them, this module's where
//! it does not yet.
//!
//! **On the application layer** (`lightrag_application`, the layer every front end shares, so
//! the Python package holds no copy of admission, validation or deletion): an insert builds its
//! documents with [`insert::typed_document`] and enqueues them with [`insert::insert`] (LightRAG's
//! admission, [`Admission::Record`]: a duplicate is recorded; a document an interrupted run left
//! is resumed), then indexes what is pending; an estimate is [`estimate::estimate`]; a query is
//! checked by [`QueryRequest::validate`] (the CLI's limits and messages) and run by
//! [`query::run`]; documents are deleted in one pass by [`delete::delete_many`] (ids checked by
//! [`delete::check_ids`]); the documents of a track id and a document's status are
//! [`documents::track`] and [`documents::status`]; the graph edits (`delete_entity`,
//! `delete_relation`, `create_entity`, `edit_entity`, `create_relation`, `edit_relation`,
//! `merge_entities`, also used by `insert_custom_kg`) are [`GraphEdits`] — refused while this
//! knowledge base's insert runs, as the server refuses them while its pipeline runs — and the
//! export is [`export::to_file`]. Their [`lightrag_application::AppError`]s become the package's
//! exceptions in `errors.rs`. LightRAG's wire forms come from the server's body types
//! (`graph_edit_body`, `graph::entity_props`), so no rule is copied.
//!
//! **Here, on the engine directly**, because they have no other front end: `clear_cache`,
//! `check` and `resolve_entities`. The rest of the crate only converts between Python and these
//! functions.

use std::sync::Arc;

use lightrag_application::delete::{self, BatchDeletionReport, DeleteOptions, NoDeletionProgress};
use lightrag_application::graph::{EntityUpdate, GraphDeletion, GraphEdits};
use lightrag_application::insert::{self, InsertOptions, OutcomeKind};
use lightrag_application::query::{self, QueryRequest};
use lightrag_application::{documents, estimate, export};
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::{InsertDoc, NoProgress, ProcessOptions};
use lightrag_engine::retrieval::query::{QueryFilter, QueryMode, QueryResult};
use lightrag_ports::{Admission, ChunkingOptions};
use lightrag_server::routes::documents::doc_json;
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

    /// The documents, built by the application layer ([`insert::typed_document`]: not blank,
    /// sanitised as LightRAG's `ainsert` does, name and metadata within their limits); a problem
    /// names the document (`input.2: …`).
    fn docs(self) -> Result<(Vec<InsertDoc>, Option<String>), Failure> {
        let chunking = ChunkingOptions {
            split_by_character: self.split_by_character,
            split_by_character_only: self.split_by_character_only,
            ..ChunkingOptions::default()
        };
        let mut docs = Vec::with_capacity(self.docs.len());
        for (i, d) in self.docs.into_iter().enumerate() {
            let index = i.to_string();
            let mut doc =
                insert::typed_document(&["input", &index], &d.content, d.file_path, d.metadata, chunking.clone())?;
            doc.id = d.id;
            docs.push(doc);
        }
        Ok((docs, self.track_id))
    }
}

/// Enqueues documents through the application layer: LightRAG's admission (a duplicate is
/// recorded as such), resuming what an interrupted run left; a refusal is an error.
async fn admit(engine: &Engine, input: InsertIn) -> Result<insert::InsertReport, Failure> {
    let (docs, track) = input.docs()?;
    let options = InsertOptions { resume: true, track_id: track, ..InsertOptions::new(Admission::Record) };
    Ok(insert::insert(engine, docs, options).await?.refusing()?)
}

/// Enqueues the documents and indexes everything pending (and what failed before, as LightRAG's
/// pipeline retries it), one run at a time per `LightRAG` object (`runs`).
///
/// The run is a task of its own: if the caller stops waiting (a cancelled `ainsert`, Ctrl-C in
/// `insert`), the run is cancelled — documents being extracted go back to `pending`, committed
/// ones stay — and the next insert, which waits for the cancelled run to wind down, resumes them.
/// `input` `None` only indexes (`process`).
pub(crate) async fn insert(engine: Engine, runs: Arc<Mutex<()>>, input: Option<InsertIn>) -> Result<Value, Failure> {
    let cancel = CancellationToken::new();
    let stop_on_drop = cancel.clone().drop_guard();
    let run = tokio::spawn(async move {
        let _one_run = runs.lock_owned().await;
        let report = match input {
            Some(input) => Some(admit(&engine, input).await?),
            None => None,
        };
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
        .iter()
        .flat_map(|r| &r.documents)
        .filter(|d| d.outcome == OutcomeKind::Duplicate)
        .map(|d| json!({"original_id": d.doc_id, "message": d.message}))
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
        "track_id": report.map(|r| r.track_id),
        "processed": processed.processed,
        "duplicates": duplicates,
        "chunks": processed.chunks,
    }))
}

/// `enqueue`'s result (LightRAG's `apipeline_enqueue_documents`): stored, not indexed.
pub(crate) async fn enqueue(engine: &Engine, input: InsertIn) -> Result<Value, Failure> {
    let report = admit(engine, input).await?;
    Ok(json!({"track_id": report.track_id}))
}

/// Indexes what is pending (LightRAG's `apipeline_process_enqueue_documents`).
pub(crate) async fn process(engine: Engine, runs: Arc<Mutex<()>>) -> Result<Value, Failure> {
    insert(engine, runs, None).await
}

/// What an insert would cost (ours: `lightrag insert --dry-run`).
pub(crate) async fn estimate(engine: &Engine, input: InsertIn) -> Result<Value, Failure> {
    let (docs, _) = input.docs()?;
    let estimate = estimate::estimate(engine, docs).await?;
    serde_json::to_value(estimate).map_err(|e| bad_json("estimate", e))
}

/// A query's parameters as the Python layer sends them (`QueryParam`'s fields; `mode` may be any
/// of ours; `filter` is the query filter of docs/api-extensions.md), unchecked.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct QueryIn {
    mode: Option<String>,
    only_need_context: bool,
    only_need_prompt: bool,
    response_type: Option<String>,
    top_k: Option<i64>,
    chunk_top_k: Option<i64>,
    max_entity_tokens: Option<i64>,
    max_relation_tokens: Option<i64>,
    max_total_tokens: Option<i64>,
    hl_keywords: Vec<String>,
    ll_keywords: Vec<String>,
    conversation_history: Vec<Value>,
    user_prompt: Option<String>,
    enable_rerank: Option<bool>,
    include_references: Option<bool>,
    chunk_fusion: Option<String>,
    use_llm_keywords: Option<bool>,
    filter: Option<QueryFilter>,
    stream: bool,
}

/// `question` with its parameters (`param`: JSON), checked by the application layer — the CLI's
/// limits and messages; `default_mode` is `DEFAULT_QUERY_MODE`.
pub(crate) fn valid_query(
    question: String,
    param: &str,
    default_mode: QueryMode,
) -> Result<query::ValidQuery, Failure> {
    let p: QueryIn = serde_json::from_str(param).map_err(|e| bad_json("QueryParam", e))?;
    let request = QueryRequest {
        query: question,
        mode: p.mode,
        only_need_context: p.only_need_context,
        only_need_prompt: p.only_need_prompt,
        response_type: p.response_type,
        top_k: p.top_k,
        chunk_top_k: p.chunk_top_k,
        max_entity_tokens: p.max_entity_tokens,
        max_relation_tokens: p.max_relation_tokens,
        max_total_tokens: p.max_total_tokens,
        hl_keywords: p.hl_keywords,
        ll_keywords: p.ll_keywords,
        conversation_history: p.conversation_history,
        user_prompt: p.user_prompt,
        enable_rerank: p.enable_rerank,
        include_references: p.include_references,
        chunk_fusion: p.chunk_fusion,
        use_llm_keywords: p.use_llm_keywords,
        filter: p.filter,
        stream: p.stream,
    };
    Ok(request.validate(default_mode)?)
}

/// Answers a checked question (the answer may be a stream).
pub(crate) async fn query(engine: &Engine, valid: &query::ValidQuery) -> Result<QueryResult, Failure> {
    Ok(query::run(engine, valid).await?)
}

/// Retrieval only, in LightRAG's `aquery_data` shape.
pub(crate) async fn query_data(engine: &Engine, valid: &query::ValidQuery) -> Result<Value, Failure> {
    let data = engine.query_data(&valid.query, &valid.param).await?;
    let body = lightrag_server::routes::query_data_body::QueryDataBody::from(&data);
    serde_json::to_value(body).map_err(|e| bad_json("query data", e))
}

/// The retrieval data of a query's result in LightRAG's shape (`data` of `aquery_llm`).
pub(crate) fn data_json(result: &QueryResult) -> Value {
    let body = lightrag_server::routes::query_data_body::QueryDataBody::from(&result.data);
    serde_json::to_value(body).unwrap_or(Value::Null)
}

/// Deletes documents in one pass (what they share is rebuilt once): the application layer's
/// report — `deleted`, `not_found`, `busy`, `cancelled` — as JSON.
pub(crate) async fn delete_documents(
    engine: &Engine,
    ids: Vec<String>,
    delete_llm_cache: bool,
) -> Result<Value, Failure> {
    let ids = delete::check_ids("doc_ids", ids)?;
    let report: BatchDeletionReport = delete::delete_many(
        engine,
        &ids,
        DeleteOptions { delete_llm_cache },
        &NoDeletionProgress,
        &CancellationToken::new(),
    )
    .await?;
    engine.flush_usage().await?;
    serde_json::to_value(report).map_err(|e| bad_json("deletion", e))
}

/// The graph edits of this knowledge base (the application's rules: refused while this
/// knowledge base's insert runs, `runs` held).
fn edits<'a>(engine: &'a Engine, runs: &Mutex<()>) -> GraphEdits<'a> {
    GraphEdits::new(engine, runs.try_lock().is_err())
}

fn deletion(deletion: GraphDeletion) -> Result<Value, Failure> {
    serde_json::to_value(deletion).map_err(|e| bad_json("deletion", e))
}

/// Deletes an entity and its relations.
pub(crate) async fn delete_entity(engine: &Engine, runs: &Mutex<()>, name: String) -> Result<Value, Failure> {
    deletion(edits(engine, runs).delete_entity(&name).await?)
}

/// Deletes the relation between two entities.
pub(crate) async fn delete_relation(engine: &Engine, runs: &Mutex<()>, a: String, b: String) -> Result<Value, Failure> {
    deletion(edits(engine, runs).delete_relation(&a, &b).await?)
}

/// Creates an entity from LightRAG's `entity_data`.
pub(crate) async fn create_entity(
    engine: &Engine,
    runs: &Mutex<()>,
    name: String,
    data: &str,
) -> Result<Value, Failure> {
    let data: EntityData = serde_json::from_str(data).map_err(|e| bad_json("entity_data", e))?;
    Ok(entity_props(&edits(engine, runs).create_entity(&name, data.into()).await?))
}

/// Edits an entity with LightRAG's `updated_data`.
pub(crate) async fn edit_entity(
    engine: &Engine,
    runs: &Mutex<()>,
    name: String,
    changes: &str,
    allow_rename: bool,
    allow_merge: bool,
) -> Result<Value, Failure> {
    let changes: EntityChanges = serde_json::from_str(changes).map_err(|e| bad_json("updated_data", e))?;
    let outcome = edits(engine, runs).edit_entity(&name, changes.into(), allow_rename, allow_merge).await?;
    let mut data = entity_props(&outcome.entity);
    data["operation_summary"] = serde_json::to_value(outcome.operation_summary).unwrap_or(Value::Null);
    Ok(data)
}

/// Creates a relation from LightRAG's `relation_data`.
pub(crate) async fn create_relation(
    engine: &Engine,
    runs: &Mutex<()>,
    source: String,
    target: String,
    data: &str,
) -> Result<Value, Failure> {
    let data: RelationData = serde_json::from_str(data).map_err(|e| bad_json("relation_data", e))?;
    Ok(relation_props(&edits(engine, runs).create_relation(&source, &target, data.into()).await?))
}

/// Edits a relation with LightRAG's `updated_data`.
pub(crate) async fn edit_relation(
    engine: &Engine,
    runs: &Mutex<()>,
    source: String,
    target: String,
    changes: &str,
) -> Result<Value, Failure> {
    let changes: RelationChanges = serde_json::from_str(changes).map_err(|e| bad_json("updated_data", e))?;
    Ok(relation_props(&edits(engine, runs).edit_relation(&source, &target, changes.into()).await?))
}

/// Merges entities into one (LightRAG's `amerge_entities`; `target_data` overrides fields).
pub(crate) async fn merge_entities(
    engine: &Engine,
    runs: &Mutex<()>,
    sources: Vec<String>,
    target: String,
    target_data: Option<&str>,
) -> Result<Value, Failure> {
    let target_data: Option<EntityUpdate> = match target_data {
        None => None,
        Some(json) => {
            let changes: EntityChanges = serde_json::from_str(json).map_err(|e| bad_json("target_entity_data", e))?;
            Some(changes.into())
        }
    };
    let outcome = edits(engine, runs).merge_entities(&sources, &target, target_data).await?;
    let mut data = entity_props(&outcome.merged_entity);
    data["deleted_entities"] = json!(outcome.deleted_entities);
    data["relationships_transferred"] = json!(outcome.relationships_transferred);
    Ok(data)
}

/// Writes the graph to `path` as `json`, `graphml` or `csv` (replaced only once complete).
pub(crate) async fn export(engine: &Engine, path: &str, format: &str) -> Result<(), Failure> {
    let format = export::parse_format("file_format", format)?;
    Ok(export::to_file(engine, format, std::path::Path::new(path)).await?)
}

/// The status records of these documents in LightRAG's shape, by id (missing ids are left out).
pub(crate) async fn docs_by_ids(engine: &Engine, ids: &[String]) -> Result<Value, Failure> {
    let mut out = serde_json::Map::new();
    for id in ids {
        match documents::status(engine, id).await {
            Ok(record) => {
                out.insert(id.clone(), doc_json(&record));
            }
            Err(lightrag_application::AppError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(Value::Object(out))
}

/// The status records of one track id, by document id.
pub(crate) async fn docs_by_track_id(engine: &Engine, track_id: &str) -> Result<Value, Failure> {
    let track = documents::track(engine, track_id).await?;
    let out = track.documents.iter().map(|r| (r.id.clone(), doc_json(r))).collect();
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
    let options = lightrag_engine::maintenance::resolve::ResolveOptions { apply, confirm, ..Default::default() };
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
