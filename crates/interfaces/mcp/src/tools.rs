//! The tools: their definitions (name, description, input schema) and what a call does.
//!
//! [`definitions`] lists them for `tools/list`; [`call`] reads a call's arguments into the
//! tool's type in [`crate::args`], checks their bounds and runs it against a
//! [`KnowledgeBase`]. A failure is a [`ToolFailure`] whose message tells the model what to do
//! next; the handler returns it as a result with `isError: true`.

use std::sync::Arc;

use lightrag_engine::EngineError;
use lightrag_engine::input_text::{sanitize_text, strip_control_characters};
use lightrag_engine::pipeline::{InsertDoc, check_file_source};
use lightrag_engine::query::{Answer, DataSection, FilterError, QueryFilter, QueryMode, QueryParam, parse_time};
use lightrag_engine::subgraph::SubgraphStart;
use lightrag_ports::{ChunkingOptions, DocFilter, DocSort, DocStatus, EnqueueOutcome};
use rmcp::model::{JsonObject, Tool};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::args::*;
use crate::views::{doc_view, status_counts};
use crate::{HostError, KnowledgeBase, LocalFiles};

/// A tool call that did not succeed; the message says what to do next.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ToolFailure(pub String);

impl From<EngineError> for ToolFailure {
    fn from(e: EngineError) -> Self {
        ToolFailure(e.to_string())
    }
}

impl From<HostError> for ToolFailure {
    fn from(e: HostError) -> Self {
        ToolFailure(e.to_string())
    }
}

/// What a successful call returns: text for the model, and the same as a JSON object
/// (`structuredContent`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text content.
    pub text: String,
    /// The structured content (an object).
    pub structured: Value,
}

impl ToolOutput {
    fn json(value: Value) -> Self {
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        ToolOutput { text, structured: value }
    }
}

/// The tools' names.
pub const NAMES: [&str; 12] = [
    "query",
    "insert_text",
    "insert_file",
    "list_documents",
    "document_status",
    "track_status",
    "delete_documents",
    "search_entities",
    "get_entity",
    "get_relation",
    "graph_neighbourhood",
    "graph_stats",
];

/// Whether `name` is one of the tools.
pub fn is_tool(name: &str) -> bool {
    NAMES.contains(&name)
}

/// The input schema of `T`: JSON Schema 2020-12 with every sub-schema inline (some clients do
/// not follow `$ref`).
fn schema<T: JsonSchema>() -> Arc<JsonObject> {
    let generator = SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true).into_generator();
    let root = generator.into_root_schema_for::<T>();
    let mut object = match serde_json::to_value(root) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    };
    object.remove("$schema");
    object.remove("title");
    Arc::new(object)
}

fn tool<T: JsonSchema>(name: &'static str, description: &'static str) -> Tool {
    Tool::new(name, description, schema::<T>())
}

/// The tools as `tools/list` shows them. `insert_file` takes a path where the server reads local
/// files (stdio), the file's content otherwise (HTTP).
pub fn definitions(reads_local_files: bool) -> Vec<Tool> {
    let insert_file = if reads_local_files {
        tool::<InsertPathArgs>(
            "insert_file",
            "Index a file from this machine (PDF, DOCX, PPTX, XLSX, HTML, text…) in the background. \
             Returns a track id for track_status.",
        )
    } else {
        tool::<InsertContentArgs>(
            "insert_file",
            "Index a file's text under its file name, in the background. Returns a track id for track_status.",
        )
    };
    vec![
        tool::<QueryArgs>(
            "query",
            "Ask the knowledge base a question. Modes: auto (picks one), local (entities), global (relations), \
             hybrid, naive (text chunks only), mix (graph and chunks), bypass (no retrieval), ppr (multi-hop \
             passages). Returns the answer with its references, or with context_only the retrieved context.",
        ),
        tool::<InsertTextArgs>(
            "insert_text",
            "Index a text in the background. Returns a track id for track_status; the text is searchable once \
             its document is processed.",
        ),
        insert_file,
        tool::<ListDocumentsArgs>(
            "list_documents",
            "List the documents (newest change first) with their status, a page at a time, and the number of \
             documents per status.",
        ),
        tool::<DocumentStatusArgs>(
            "document_status",
            "The status of one document: pending, processing, processed or failed (with the error).",
        ),
        tool::<TrackStatusArgs>(
            "track_status",
            "The documents of one insert (by the track id it returned) and how many are in each status.",
        ),
        tool::<DeleteDocumentsArgs>(
            "delete_documents",
            "Delete documents by id, with their chunks and what only they contributed to the graph; they \
             are deleted together, so what they share is rebuilt once. Ids of no document are listed under \
             not_found, documents being processed under busy (not deleted).",
        ),
        tool::<SearchEntitiesArgs>(
            "search_entities",
            "Find entity names in the knowledge graph containing some text (case-insensitive), best matches \
             first.",
        ),
        tool::<EntityArgs>(
            "get_entity",
            "An entity (type, description) with its source chunks: their text, documents, and what extraction \
             found there.",
        ),
        tool::<RelationArgs>(
            "get_relation",
            "The relation between two entities (either order) with its source chunks: their text, documents, \
             and what extraction found there.",
        ),
        tool::<NeighbourhoodArgs>(
            "graph_neighbourhood",
            "The entities around one entity (up to depth hops, the most connected first) and the relations \
             among them.",
        ),
        tool::<NoArgs>("graph_stats", "How many documents, entities and relations the knowledge base has."),
    ]
}

/// `graph_stats` takes no arguments.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolFailure> {
    serde_json::from_value(args).map_err(|e| {
        ToolFailure(format!("invalid arguments for {tool}: {e}; see the tool's inputSchema in tools/list"))
    })
}

/// `value` (or `default`) when within `min..=max`.
fn bounded(name: &str, value: Option<usize>, default: usize, min: usize, max: usize) -> Result<usize, ToolFailure> {
    let value = value.unwrap_or(default);
    if !(min..=max).contains(&value) {
        return Err(ToolFailure(format!("{name} must be between {min} and {max} (got {value})")));
    }
    Ok(value)
}

fn not_blank<'a>(name: &str, value: &'a str) -> Result<&'a str, ToolFailure> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(ToolFailure(format!("{name} must not be empty")));
    }
    Ok(trimmed)
}

/// Runs the tool `name` with `args` (a JSON object) against `kb`; `insert_file` reads from
/// `files` when given (stdio), else takes the file's content.
pub async fn call(
    kb: &dyn KnowledgeBase,
    files: Option<&LocalFiles>,
    name: &str,
    args: Value,
) -> Result<ToolOutput, ToolFailure> {
    match (name, files) {
        ("insert_file", Some(files)) => return insert_path(kb, files, parse(name, args)?).await,
        ("insert_file", None) => return insert_content(kb, parse(name, args)?).await,
        _ => {}
    }
    match name {
        "query" => query(kb, parse(name, args)?).await,
        "insert_text" => insert_text(kb, parse(name, args)?).await,
        "list_documents" => list_documents(kb, parse(name, args)?).await,
        "document_status" => document_status(kb, parse(name, args)?).await,
        "track_status" => track_status(kb, parse(name, args)?).await,
        "delete_documents" => delete_documents(kb, parse(name, args)?).await,
        "search_entities" => search_entities(kb, parse(name, args)?).await,
        "get_entity" => entity(kb, parse(name, args)?).await,
        "get_relation" => relation(kb, parse(name, args)?).await,
        "graph_neighbourhood" => neighbourhood(kb, parse(name, args)?).await,
        "graph_stats" => {
            let NoArgs {} = parse(name, args)?;
            graph_stats(kb).await
        }
        other => Err(ToolFailure(format!("unknown tool '{other}'; tools/list names the tools"))),
    }
}

fn engine_mode(mode: Mode) -> QueryMode {
    match mode {
        Mode::Auto => QueryMode::Auto,
        Mode::Local => QueryMode::Local,
        Mode::Global => QueryMode::Global,
        Mode::Hybrid => QueryMode::Hybrid,
        Mode::Naive => QueryMode::Naive,
        Mode::Mix => QueryMode::Mix,
        Mode::Bypass => QueryMode::Bypass,
        Mode::Ppr => QueryMode::Ppr,
    }
}

/// `query`'s `filter` as the engine takes it (times read, globs checked).
fn query_filter(args: FilterArgs) -> Result<QueryFilter, ToolFailure> {
    let time = |field: &str, value: Option<String>| {
        value.map(|v| parse_time(&v).map_err(|e| ToolFailure(format!("filter.{field}: {e}")))).transpose()
    };
    let filter = QueryFilter {
        doc_ids: args.doc_ids,
        file_paths: args.file_paths,
        metadata: args.metadata,
        created_after: time("created_after", args.created_after)?,
        created_before: time("created_before", args.created_before)?,
        updated_after: time("updated_after", args.updated_after)?,
        updated_before: time("updated_before", args.updated_before)?,
    };
    filter.validate().map_err(|e| match e {
        FilterError::Glob { .. } => ToolFailure(format!("filter.file_paths: {e}")),
        other => ToolFailure(other.to_string()),
    })?;
    Ok(filter)
}

async fn query(kb: &dyn KnowledgeBase, args: QueryArgs) -> Result<ToolOutput, ToolFailure> {
    let question = not_blank("query", &args.query)?;
    let engine = kb.engine();
    let mode = args.mode.map(engine_mode).unwrap_or(engine.config().query.default_mode);
    let include_references = args.include_references.unwrap_or(true);
    let clean = |list: &[String]| -> Vec<String> {
        list.iter().map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect()
    };
    let param = QueryParam {
        mode,
        only_need_context: args.context_only,
        top_k: args.top_k.map(|v| bounded("top_k", Some(v), 0, 1, 1000)).transpose()?,
        chunk_top_k: args.chunk_top_k.map(|v| bounded("chunk_top_k", Some(v), 0, 1, 1000)).transpose()?,
        max_total_tokens: args
            .max_total_tokens
            .map(|v| bounded("max_total_tokens", Some(v), 0, 1, usize::MAX))
            .transpose()?,
        response_type: args.response_type.clone().unwrap_or_else(|| QueryParam::default().response_type),
        user_prompt: args.user_prompt.clone(),
        hl_keywords: clean(&args.hl_keywords),
        ll_keywords: clean(&args.ll_keywords),
        include_references,
        stream: false,
        filter: args.filter.clone().map(query_filter).transpose()?,
        ..QueryParam::default()
    };
    let result = engine.query(question, &param).await?;
    let references = match &result.data.data {
        DataSection::Retrieved(d) if include_references => serde_json::to_value(&d.references).unwrap_or_default(),
        _ => json!([]),
    };
    let response = match result.answer {
        Answer::Stream(_) => return Err(ToolFailure("the answer came as a stream; ask again".into())),
        other => other.text().unwrap_or_default().to_string(),
    };
    engine.flush_usage().await?;
    let mut text = response.clone();
    if let Some(list) = references.as_array().filter(|l| !l.is_empty())
        && !args.context_only
        && !response.contains("### References")
    {
        text.push_str("\n\nReferences:");
        for r in list {
            let id = r["reference_id"].as_str().unwrap_or("?");
            let file = r["file_path"].as_str().unwrap_or("?");
            text.push_str(&format!("\n[{id}] {file}"));
        }
    }
    let structured = json!({
        "response": response,
        "mode": mode.as_str(),
        "context_only": args.context_only,
        "references": references,
        "metadata": result.data.metadata,
    });
    Ok(ToolOutput { text, structured })
}

async fn enqueued(kb: &dyn KnowledgeBase, docs: Vec<InsertDoc>) -> Result<ToolOutput, ToolFailure> {
    let report = kb.insert(docs).await?;
    // refused by the store as it enqueued (a stored name with the same content, an earlier version
    // not indexed yet): the tool fails with the reason, as the REST routes answer 409
    let refused: Vec<String> = report.outcomes.iter().filter_map(EnqueueOutcome::refusal_message).collect();
    if !refused.is_empty() {
        return Err(ToolFailure(refused.join("; ")));
    }
    let documents: Vec<Value> = report
        .outcomes
        .iter()
        .map(|outcome| match outcome {
            EnqueueOutcome::Enqueued { doc_id } => json!({"doc_id": doc_id, "outcome": "enqueued"}),
            EnqueueOutcome::Resumed { doc_id, .. } => json!({"doc_id": doc_id, "outcome": "resumed"}),
            EnqueueOutcome::Replaced { doc_id, .. } => json!({
                "doc_id": doc_id,
                "outcome": "replaced",
                "message": "a new version of an indexed file: it replaces the old one once processed \
                            (unchanged chunks are reused)",
            }),
            EnqueueOutcome::Duplicate { original_id, original_status, .. } => json!({
                "doc_id": original_id,
                "outcome": "duplicate",
                "message": format!(
                    "already stored as {original_id} ({}); nothing new is indexed",
                    original_status.as_str()
                ),
            }),
            refused @ EnqueueOutcome::Refused { doc_id, .. } => json!({
                "doc_id": doc_id,
                "outcome": "refused",
                "message": refused.refusal_message(),
            }),
        })
        .collect();
    Ok(ToolOutput::json(json!({
        "track_id": report.track_id,
        "documents": documents,
        "message": "Indexing runs in the background; track_status with this track id tells when it is done.",
    })))
}

async fn insert_text(kb: &dyn KnowledgeBase, args: InsertTextArgs) -> Result<ToolOutput, ToolFailure> {
    not_blank("text", &args.text)?;
    let file_source = args.file_name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
    if let Some(name) = &file_source {
        check_file_source("file_name", name).map_err(|e| ToolFailure(e.to_string()))?;
    }
    // sanitised as LightRAG's insert of a text (and our `/documents/text`) does
    let doc = InsertDoc {
        content: sanitize_text(&args.text),
        file_source,
        id: None,
        chunking: ChunkingOptions::default(),
        metadata: args.metadata,
    };
    enqueued(kb, vec![doc]).await
}

async fn insert_path(
    kb: &dyn KnowledgeBase,
    files: &LocalFiles,
    args: InsertPathArgs,
) -> Result<ToolOutput, ToolFailure> {
    let file = files.read(not_blank("path", &args.path)?).await.map_err(|e| ToolFailure(e.0))?;
    let (name, bytes) = (file.name, file.bytes);
    let base = name.rsplit('/').next().unwrap_or_default();
    let text = if lightrag_doc_text::is_supported(base) {
        lightrag_doc_text::extract_text(base, &bytes)
    } else {
        lightrag_doc_text::extract_plain_text(&bytes).or_else(|_| lightrag_doc_text::extract_text(base, &bytes))
    }
    .map_err(|e| ToolFailure(format!("'{name}': {e}")))?;
    let content = strip_control_characters(&text);
    if content.trim().is_empty() {
        return Err(ToolFailure(format!("'{name}' has no text to index")));
    }
    let doc = InsertDoc {
        content,
        file_source: Some(name),
        id: None,
        chunking: ChunkingOptions::default(),
        metadata: args.metadata,
    };
    enqueued(kb, vec![doc]).await
}

async fn insert_content(kb: &dyn KnowledgeBase, args: InsertContentArgs) -> Result<ToolOutput, ToolFailure> {
    let name = not_blank("file_name", &args.file_name)?.to_string();
    check_file_source("file_name", &name).map_err(|e| ToolFailure(e.to_string()))?;
    let content = strip_control_characters(&args.content);
    not_blank("content", &content)?;
    let doc = InsertDoc {
        content,
        file_source: Some(name),
        id: None,
        chunking: ChunkingOptions::default(),
        metadata: args.metadata,
    };
    enqueued(kb, vec![doc]).await
}

fn doc_status(status: Status) -> DocStatus {
    match status {
        Status::Pending => DocStatus::Pending,
        Status::Processing => DocStatus::Processing,
        Status::Processed => DocStatus::Processed,
        Status::Failed => DocStatus::Failed,
    }
}

async fn list_documents(kb: &dyn KnowledgeBase, args: ListDocumentsArgs) -> Result<ToolOutput, ToolFailure> {
    let page = bounded("page", args.page, 1, 1, usize::MAX / 1000)?;
    let page_size = bounded("page_size", args.page_size, 50, 1, 200)?;
    let engine = kb.engine();
    let filter = DocFilter {
        statuses: args.status.map(doc_status).into_iter().collect(),
        sort: DocSort::UpdatedDesc,
        offset: (page - 1) * page_size,
        limit: Some(page_size),
        ..DocFilter::default()
    };
    let (rows, total) = engine.list_documents(&filter).await?;
    let counts = engine.status_counts().await?;
    Ok(ToolOutput::json(json!({
        "documents": rows.iter().map(doc_view).collect::<Vec<_>>(),
        "total": total,
        "page": page,
        "page_size": page_size,
        "total_pages": total.div_ceil(page_size),
        "status_counts": status_counts(counts.iter().map(|(s, n)| (*s, *n))),
    })))
}

async fn document_status(kb: &dyn KnowledgeBase, args: DocumentStatusArgs) -> Result<ToolOutput, ToolFailure> {
    let id = not_blank("doc_id", &args.doc_id)?;
    match kb.engine().document_status(id).await? {
        Some(row) => Ok(ToolOutput::json(doc_view(&row))),
        None => Err(ToolFailure(format!("no document has the id '{id}'; list_documents shows the ids"))),
    }
}

async fn track_status(kb: &dyn KnowledgeBase, args: TrackStatusArgs) -> Result<ToolOutput, ToolFailure> {
    let track = not_blank("track_id", &args.track_id)?;
    let filter = DocFilter { track_id: Some(track.to_string()), sort: DocSort::CreatedAsc, ..DocFilter::default() };
    let (rows, total) = kb.engine().list_documents(&filter).await?;
    let summary = status_counts(DocStatus::ALL.into_iter().map(|s| (s, rows.iter().filter(|r| r.status == s).count())));
    let done = rows.iter().all(|r| matches!(r.status, DocStatus::Processed | DocStatus::Failed));
    Ok(ToolOutput::json(json!({
        "track_id": track,
        "documents": rows.iter().map(doc_view).collect::<Vec<_>>(),
        "total": total,
        "status_summary": summary,
        "finished": total > 0 && done,
    })))
}

async fn delete_documents(kb: &dyn KnowledgeBase, args: DeleteDocumentsArgs) -> Result<ToolOutput, ToolFailure> {
    if args.doc_ids.is_empty() {
        return Err(ToolFailure("doc_ids must name at least one document".into()));
    }
    let mut ids: Vec<String> = Vec::with_capacity(args.doc_ids.len());
    for id in &args.doc_ids {
        let id = not_blank("each of doc_ids", id)?.to_string();
        if ids.contains(&id) {
            return Err(ToolFailure(format!("doc_ids contains '{id}' twice")));
        }
        ids.push(id);
    }
    let report = kb.delete(&ids, args.delete_llm_cache).await?;
    Ok(ToolOutput::json(serde_json::to_value(report).unwrap_or_default()))
}

async fn search_entities(kb: &dyn KnowledgeBase, args: SearchEntitiesArgs) -> Result<ToolOutput, ToolFailure> {
    let text = not_blank("query", &args.query)?;
    let limit = bounded("limit", args.limit, 20, 1, 100)?;
    let names = kb.engine().search_labels(text, limit).await?;
    Ok(ToolOutput::json(json!({ "entities": names })))
}

fn missing(e: EngineError, hint: &str) -> ToolFailure {
    match e {
        EngineError::NotFound(message) => ToolFailure(format!("{message}; {hint}")),
        other => other.into(),
    }
}

async fn entity(kb: &dyn KnowledgeBase, args: EntityArgs) -> Result<ToolOutput, ToolFailure> {
    let name = not_blank("name", &args.name)?;
    let limit = bounded("chunk_limit", args.chunk_limit, 20, 1, 500)?;
    let sources = kb
        .engine()
        .entity_sources(name, limit)
        .await
        .map_err(|e| missing(e, "search_entities finds the exact names"))?;
    Ok(ToolOutput::json(serde_json::to_value(sources).unwrap_or_default()))
}

async fn relation(kb: &dyn KnowledgeBase, args: RelationArgs) -> Result<ToolOutput, ToolFailure> {
    let source = not_blank("source", &args.source)?;
    let target = not_blank("target", &args.target)?;
    let limit = bounded("chunk_limit", args.chunk_limit, 20, 1, 500)?;
    let sources = kb
        .engine()
        .relation_sources(source, target, limit)
        .await
        .map_err(|e| missing(e, "graph_neighbourhood shows an entity's relations"))?;
    Ok(ToolOutput::json(serde_json::to_value(sources).unwrap_or_default()))
}

async fn neighbourhood(kb: &dyn KnowledgeBase, args: NeighbourhoodArgs) -> Result<ToolOutput, ToolFailure> {
    let name = not_blank("entity", &args.entity)?;
    let depth = bounded("depth", args.depth, 2, 1, 5)?;
    let max_nodes = bounded("max_nodes", args.max_nodes, 50, 1, 1000)?;
    let graph = kb.engine().subgraph(&SubgraphStart::Entity(name.to_string()), depth, max_nodes).await?;
    if graph.nodes.is_empty() {
        return Err(ToolFailure(format!("Entity '{name}' does not exist; search_entities finds the exact names")));
    }
    Ok(ToolOutput::json(json!({
        "nodes": graph.nodes,
        "edges": graph.edges,
        "truncated": graph.truncated,
    })))
}

async fn graph_stats(kb: &dyn KnowledgeBase) -> Result<ToolOutput, ToolFailure> {
    let engine = kb.engine();
    let counts = engine.graph_counts().await?;
    let docs = engine.status_counts().await?;
    Ok(ToolOutput::json(json!({
        "entities": counts.nodes,
        "relations": counts.edges,
        "documents": status_counts(docs.iter().map(|(s, n)| (*s, *n))),
    })))
}
