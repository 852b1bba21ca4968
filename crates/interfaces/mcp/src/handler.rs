//! The MCP server handler: the SDK's [`ServerHandler`] over a [`Host`], the same on every
//! transport. Protocol errors (an unknown tool or resource) are JSON-RPC errors; a tool that
//! fails answers `isError: true` with what to do next.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::resources::{self, ResourceError};
use crate::tools::{self, ToolFailure};
use crate::{Host, KnowledgeBase};

/// What the server tells a client about itself at `initialize`.
const INSTRUCTIONS: &str = "A LightRAG knowledge base: documents indexed into a knowledge graph of entities and \
relations. Use `query` to ask questions (mode auto picks the retrieval), `search_entities`, `get_entity`, \
`get_relation` and `graph_neighbourhood` to explore the graph with the source text behind it, and \
`insert_text` / `insert_file` to add documents (indexed in the background: follow them with `track_status`). \
Documents are also resources: lightrag://documents/{id}.";

/// The MCP handler over a [`Host`].
#[derive(Clone)]
pub struct McpHandler {
    host: Arc<dyn Host>,
}

impl McpHandler {
    /// A handler over `host`.
    pub fn new(host: Arc<dyn Host>) -> Self {
        McpHandler { host }
    }

    async fn knowledge_base(&self, context: &RequestContext<RoleServer>) -> Result<Arc<dyn KnowledgeBase>, String> {
        let http = context.extensions.get::<http::request::Parts>();
        self.host.open(http).await.map_err(|e| e.to_string())
    }
}

/// `call`, stopped after `limit` with a failure that says what to do.
async fn bounded<F>(call: F, limit: Option<Duration>) -> Result<tools::ToolOutput, ToolFailure>
where
    F: Future<Output = Result<tools::ToolOutput, ToolFailure>>,
{
    let Some(limit) = limit else { return call.await };
    match tokio::time::timeout(limit, call).await {
        Ok(outcome) => outcome,
        Err(_) => Err(ToolFailure(format!(
            "the tool call took longer than {} s (TIMEOUT) and was stopped; narrow it (a smaller top_k, a \
             filter with fewer patterns) or ask the operator to raise TIMEOUT",
            limit.as_secs()
        ))),
    }
}

fn failed(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

fn resource_error(e: ResourceError) -> ErrorData {
    match e {
        ResourceError::NotFound(message) => ErrorData::resource_not_found(message, None),
        ResourceError::Failed(message) => ErrorData::internal_error(message, None),
    }
}

impl ServerHandler for McpHandler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_resources().build();
        InitializeResult::new(capabilities)
            .with_server_info(
                Implementation::new("lightrag", env!("CARGO_PKG_VERSION")).with_title("LightRAG knowledge base"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::definitions(self.host.local_files().is_some())))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        if !tools::is_tool(name) {
            return Err(ErrorData::invalid_params(format!("unknown tool '{name}'; tools/list names the tools"), None));
        }
        let kb = match self.knowledge_base(&context).await {
            Ok(kb) => kb,
            Err(message) => return Ok(failed(message).into()),
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        let call = tools::call(kb.as_ref(), self.host.local_files(), name, args);
        // the call's work (a filtered query's matching, a search) stops when its future is
        // dropped: at the host's deadline, or when the client cancels the request
        let outcome = tokio::select! {
            outcome = bounded(call, self.host.call_timeout()) => outcome,
            () = context.ct.cancelled() => Err(ToolFailure("the tool call was cancelled by the client".into())),
        };
        let result = match outcome {
            Ok(output) => {
                let mut result = CallToolResult::structured(output.structured);
                result.content = vec![ContentBlock::text(output.text)];
                result
            }
            Err(ToolFailure(message)) => {
                tracing::debug!(tool = name, %message, "MCP tool call failed");
                failed(message)
            }
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let kb = self.knowledge_base(&context).await.map_err(|m| ErrorData::internal_error(m, None))?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let (items, next) = resources::list(kb.as_ref(), cursor).await.map_err(|e| match e {
            ResourceError::Failed(m) if m.starts_with("invalid cursor") => ErrorData::invalid_params(m, None),
            other => resource_error(other),
        })?;
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(resources::templates()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let kb = self.knowledge_base(&context).await.map_err(|m| ErrorData::internal_error(m, None))?;
        let contents = resources::read(kb.as_ref(), &request.uri).await.map_err(resource_error)?;
        Ok(ReadResourceResult::new(contents).into())
    }
}
