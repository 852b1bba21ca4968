//! The tools: their definitions (name, description, input schema) and what a call does.
//!
//! [`definitions`] lists them for `tools/list`; [`call`] reads a call's arguments into the
//! tool's type in [`crate::args`], checks their bounds and runs it against a
//! [`KnowledgeBase`]. A failure is a [`ToolFailure`] whose message tells the model what to do
//! next; the handler returns it as a result with `isError: true`.

use std::sync::Arc;

use base64::Engine as _;
use lightrag_application::insert::{self, InsertOptions};
use lightrag_application::{AppError, Origin, delete, documents, query as query_use_case};
use lightrag_engine::EngineError;
use lightrag_engine::indexing::pipeline::InsertDoc;
use lightrag_engine::maintenance::delete::DeleteOptions;
use lightrag_engine::retrieval::query::{Answer, DataSection, QueryFilter, QueryMode, parse_time};
use lightrag_engine::retrieval::subgraph::SubgraphStart;
use lightrag_ports::{Admission, DocSort, DocStatus};
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

/// The error with its causes; a store that is unavailable for now says "try again in N s".
impl From<EngineError> for ToolFailure {
    fn from(e: EngineError) -> Self {
        ToolFailure(lightrag_ports::ErrorChain(&e).to_string())
    }
}

impl From<AppError> for ToolFailure {
    fn from(e: AppError) -> Self {
        ToolFailure(e.to_string())
    }
}

impl From<HostError> for ToolFailure {
    fn from(e: HostError) -> Self {
        ToolFailure(lightrag_ports::ErrorChain(&e).to_string())
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

/// `query`'s `filter` as the engine takes it (times read); the query use case checks it.
fn query_filter(args: FilterArgs) -> Result<QueryFilter, ToolFailure> {
    let time = |field: &str, value: Option<String>| {
        value.map(|v| parse_time(&v).map_err(|e| ToolFailure(format!("filter.{field}: {e}")))).transpose()
    };
    Ok(QueryFilter {
        doc_ids: args.doc_ids,
        file_paths: args.file_paths,
        metadata: args.metadata,
        created_after: time("created_after", args.created_after)?,
        created_before: time("created_before", args.created_before)?,
        updated_after: time("updated_after", args.updated_after)?,
        updated_before: time("updated_before", args.updated_before)?,
    })
}

/// A count from the arguments as the query use case takes it (a count past `i64` stays too large).
fn count(value: Option<usize>) -> Option<i64> {
    value.map(|v| i64::try_from(v).unwrap_or(i64::MAX))
}

async fn query(kb: &dyn KnowledgeBase, args: QueryArgs) -> Result<ToolOutput, ToolFailure> {
    let engine = kb.engine();
    let request = query_use_case::QueryRequest {
        query: args.query.clone(),
        mode: args.mode.map(|m| engine_mode(m).as_str().to_string()),
        only_need_context: args.context_only,
        response_type: args.response_type.clone(),
        top_k: count(args.top_k),
        chunk_top_k: count(args.chunk_top_k),
        max_total_tokens: count(args.max_total_tokens),
        hl_keywords: args.hl_keywords.clone(),
        ll_keywords: args.ll_keywords.clone(),
        user_prompt: args.user_prompt.clone(),
        include_references: args.include_references,
        filter: args.filter.clone().map(query_filter).transpose()?,
        stream: false,
        ..query_use_case::QueryRequest::default()
    };
    let valid = request.validate(engine.config().query.default_mode)?;
    let (mode, include_references) = (valid.param.mode, valid.param.include_references);
    let result = query_use_case::run(engine, &valid).await?;
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

/// How the insert tools admit documents, on stdio and over HTTP alike: as an upload to the REST
/// server — a new name, or a new version of a document that is done; the same content, or an
/// earlier version not indexed yet, is refused (a tool error saying why).
fn insert_options() -> InsertOptions {
    InsertOptions::new(Admission::NewVersion)
}

async fn enqueued(kb: &dyn KnowledgeBase, docs: Vec<InsertDoc>) -> Result<ToolOutput, ToolFailure> {
    let report = kb.insert(docs, insert_options()).await?.refusing()?;
    Ok(ToolOutput::json(json!({
        "track_id": report.track_id,
        "documents": report.documents,
        "message": "Indexing runs in the background; track_status with this track id tells when it is done.",
    })))
}

async fn insert_text(kb: &dyn KnowledgeBase, args: InsertTextArgs) -> Result<ToolOutput, ToolFailure> {
    let file_source = args.file_name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
    if let Some(name) = &file_source {
        insert::check_name(&["file_name"], name)?;
    }
    let doc = insert::typed_document(&["text"], &args.text, file_source, args.metadata, Default::default())?;
    enqueued(kb, vec![doc]).await
}

async fn insert_path(
    kb: &dyn KnowledgeBase,
    files: &LocalFiles,
    args: InsertPathArgs,
) -> Result<ToolOutput, ToolFailure> {
    let file = files.read(not_blank("path", &args.path)?).await.map_err(|e| ToolFailure(e.0))?;
    let text = kb.reader().read_bytes(&file.name, file.bytes, Origin::Local).await?;
    let doc = insert::file_document(text, file.name, args.metadata, Default::default())?;
    enqueued(kb, vec![doc]).await
}

async fn insert_content(kb: &dyn KnowledgeBase, args: InsertContentArgs) -> Result<ToolOutput, ToolFailure> {
    let name = not_blank("file_name", &args.file_name)?.to_string();
    insert::check_name(&["file_name"], &name)?;
    let text = match args.encoding {
        Encoding::Text => lightrag_application::read::given_text(&name, &args.content)?,
        Encoding::Base64 => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(args.content.trim()).map_err(|e| {
                ToolFailure(format!("content: not base64 ({e}); send the file's bytes base64-encoded, or its text"))
            })?;
            kb.reader().read_bytes(&name, bytes, Origin::Upload).await?
        }
    };
    let doc = insert::file_document(text, name, args.metadata, Default::default())?;
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
    let statuses = args.status.map(doc_status).into_iter().collect();
    let page = documents::page(
        kb.engine(),
        statuses,
        DocSort::UpdatedDesc,
        args.page.unwrap_or(1),
        args.page_size.unwrap_or(50),
    )
    .await?;
    Ok(ToolOutput::json(json!({
        "documents": page.documents.iter().map(doc_view).collect::<Vec<_>>(),
        "total": page.total,
        "page": page.page,
        "page_size": page.page_size,
        "total_pages": page.total_pages,
        "status_counts": status_counts(page.counts.iter().map(|(s, n)| (*s, *n))),
    })))
}

async fn document_status(kb: &dyn KnowledgeBase, args: DocumentStatusArgs) -> Result<ToolOutput, ToolFailure> {
    match documents::status(kb.engine(), &args.doc_id).await {
        Ok(row) => Ok(ToolOutput::json(doc_view(&row))),
        Err(AppError::NotFound(message)) => Err(ToolFailure(format!("{message} (list_documents shows them)"))),
        Err(e) => Err(e.into()),
    }
}

async fn track_status(kb: &dyn KnowledgeBase, args: TrackStatusArgs) -> Result<ToolOutput, ToolFailure> {
    let track = documents::track(kb.engine(), &args.track_id).await?;
    Ok(ToolOutput::json(json!({
        "track_id": track.track_id,
        "documents": track.documents.iter().map(doc_view).collect::<Vec<_>>(),
        "total": track.total,
        "status_summary": status_counts(track.counts.iter().map(|(s, n)| (*s, *n))),
        "finished": track.finished(),
    })))
}

async fn delete_documents(kb: &dyn KnowledgeBase, args: DeleteDocumentsArgs) -> Result<ToolOutput, ToolFailure> {
    let ids = delete::check_ids("doc_ids", args.doc_ids)?;
    let report = kb.delete(&ids, DeleteOptions { delete_llm_cache: args.delete_llm_cache }).await?;
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use lightrag_ports::StoreError;

    use super::*;

    /// A store unavailable for now is a tool error saying when to try again, with its cause.
    #[test]
    fn an_unavailable_store_is_a_tool_error_saying_when_to_try_again() {
        let cause = std::io::Error::other("pool timed out while waiting for an open connection");
        let e: EngineError =
            StoreError::unavailable("every pooled connection is busy", Duration::from_secs(5), Some(cause.into()))
                .into();
        let ToolFailure(text) = e.into();
        assert!(text.contains("try again in 5 s"), "{text}");
        assert!(text.ends_with("pool timed out while waiting for an open connection"), "{text}");
    }
}
