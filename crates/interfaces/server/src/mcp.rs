//! `/mcp`: the MCP server ([`lightrag_mcp`]) over streamable HTTP, behind the same
//! authentication as every other route (`X-API-Key`, bearer tokens; `/mcp` is not whitelisted
//! unless `WHITELIST_PATHS` says so). Each request works on the workspace its
//! `LIGHTRAG-WORKSPACE` header names (the `WORKSPACE` setting without one); inserted documents go
//! through that workspace's pipeline like `/documents/text`, and deletions run as its exclusive
//! job like `/documents/delete_document`.

use std::sync::Arc;

use axum::Router;
use lightrag_application::DocumentReader;
use lightrag_application::delete::{self, BatchDeletionReport, DeleteOptions};
use lightrag_application::insert::{self, InsertOptions, InsertReport};
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::InsertDoc;
use lightrag_engine::maintenance::delete::DeletionEvent;
use lightrag_mcp::{Host, HostError, KnowledgeBase};

use lightrag_application::access::Action;

use crate::access::Caller;
use crate::auth::AnonymousAccess;
use crate::errors::ApiError;
use crate::routes::documents::admit;
use crate::state::AppState;
use crate::workspace::Workspace;

/// The path of the MCP endpoint.
pub const PATH: &str = "/mcp";

/// The `/mcp` route, behind its admission ([`crate::mcp_admission`]: event streams and sessions
/// capped per client and in all; other requests take a `MAX_CONCURRENT_REQUESTS` slot).
pub fn router(state: &AppState) -> Router<AppState> {
    let host = Arc::new(ServerHost { state: state.clone() });
    let service = lightrag_mcp::http_service(host, state.inner.mcp.clone(), state.inner.shutdown.child_token());
    Router::new()
        .route_service(PATH, service)
        .layer(axum::middleware::from_fn_with_state(state.clone(), crate::mcp_admission::admit))
}

/// The server as an MCP host: the request's workspace.
struct ServerHost {
    state: AppState,
}

/// A workspace that cannot be opened or used.
fn unavailable(e: ApiError) -> HostError {
    HostError::Unavailable(e.flat_message())
}

/// A request the workspace's state refuses.
fn conflict(e: ApiError) -> HostError {
    HostError::Conflict(e.flat_message())
}

#[async_trait::async_trait]
impl Host for ServerHost {
    async fn open(&self, http: Option<&axum::http::request::Parts>) -> Result<Arc<dyn KnowledgeBase>, HostError> {
        let Some(parts) = http else {
            return Err(HostError::Unavailable("the MCP request came without its HTTP request".into()));
        };
        let name = self.state.workspace_name(parts).map_err(unavailable)?;
        // every tool needs at least a read of the workspace; writing tools check again
        let caller =
            parts.extensions.get::<Caller>().cloned().ok_or_else(|| {
                HostError::Unavailable("the MCP request came without its caller (authentication)".into())
            })?;
        caller.check(&name, Action::Read).map_err(unavailable)?;
        let audit = AuditContext {
            state: self.state.clone(),
            caller: caller.clone(),
            workspace: name.clone(),
            client: parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|c| c.0.ip().to_string())
                .unwrap_or_default(),
        };
        // admitted without credentials (WHITELIST_PATHS lists /mcp): the default workspace only
        if parts.extensions.get::<AnonymousAccess>().is_some() && name != self.state.settings().workspace {
            return Err(HostError::Unavailable(format!(
                "workspace '{name}' needs credentials (X-API-Key or a bearer token)"
            )));
        }
        // as on the REST routes, a workspace that does not exist is not created by reading it:
        // reads see the shared empty knowledge base, and only an insert creates the workspace
        if !self.state.workspace_exists(&name).await.map_err(unavailable)? {
            let ws = self.state.absent_workspace(&name).await.map_err(unavailable)?;
            return Ok(Arc::new(ServerKb { ws, create: Some((self.state.clone(), name)), audit }));
        }
        let ws = self.state.workspace(&name).await.map_err(unavailable)?;
        Ok(Arc::new(ServerKb { ws, create: None, audit }))
    }

    fn local_files(&self) -> Option<&lightrag_mcp::LocalFiles> {
        None
    }

    fn call_timeout(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_secs(self.state.settings().server.limits.timeout_secs))
    }
}

/// One workspace of the server.
struct ServerKb {
    /// The workspace, or the read-only view of one that does not exist yet.
    ws: Arc<Workspace>,
    /// For a workspace that does not exist: how to create it when something is inserted.
    create: Option<(AppState, String)>,
    /// Who calls, for the write check and the audit log.
    audit: AuditContext,
}

/// The caller of an MCP request and where its writes are recorded.
struct AuditContext {
    state: AppState,
    caller: Caller,
    workspace: String,
    client: String,
}

impl AuditContext {
    /// Refuses a write tool to a caller without the editor role (recorded in the audit log).
    async fn check_write(&self, tool: &str) -> Result<(), HostError> {
        match self.caller.check(&self.workspace, Action::Write) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.record(tool, e.status().as_u16()).await;
                Err(HostError::Unavailable(e.flat_message()))
            }
        }
    }

    /// Appends the outcome of the write tool `tool` to the audit log.
    async fn record(&self, tool: &str, outcome: u16) {
        let entry = lightrag_ports::AuditEntry {
            time: crate::access::audit::now_ms(),
            principal: self.caller.principal.label(),
            workspace: self.workspace.clone(),
            action: format!("mcp.{tool}"),
            outcome,
            client: self.client.clone(),
        };
        crate::access::audit::append(&self.state, entry).await;
    }
}

/// The status an audit entry gives a tool's outcome.
fn outcome<T>(result: &Result<T, HostError>) -> u16 {
    match result {
        Ok(_) => 200,
        Err(HostError::Conflict(_)) => 409,
        Err(_) => 500,
    }
}

impl ServerKb {
    /// The workspace to write to, created when it did not exist.
    async fn writable(&self) -> Result<Arc<Workspace>, HostError> {
        match &self.create {
            None => Ok(self.ws.clone()),
            Some((state, name)) => state.workspace(name).await.map_err(unavailable),
        }
    }
}

#[async_trait::async_trait]
impl KnowledgeBase for ServerKb {
    fn engine(&self) -> &Engine {
        &self.ws.engine
    }

    fn reader(&self) -> &DocumentReader {
        &self.ws.reader
    }

    async fn insert(&self, docs: Vec<InsertDoc>, options: InsertOptions) -> Result<InsertReport, HostError> {
        self.audit.check_write("insert").await?;
        let result = self.insert_checked(docs, options).await;
        self.audit.record("insert", outcome(&result)).await;
        result
    }

    async fn delete(&self, ids: &[String], options: DeleteOptions) -> Result<BatchDeletionReport, HostError> {
        self.audit.check_write("delete_documents").await?;
        let result = self.delete_checked(ids, options).await;
        self.audit.record("delete_documents", outcome(&result)).await;
        result
    }
}

impl ServerKb {
    async fn insert_checked(&self, docs: Vec<InsertDoc>, options: InsertOptions) -> Result<InsertReport, HostError> {
        let ws = &self.writable().await?;
        let guard = admit(ws).map_err(conflict)?;
        let report = insert::insert(&ws.engine, docs, options).await?;
        drop(guard);
        if report.written() > 0 {
            ws.kick(false);
        }
        Ok(report)
    }

    async fn delete_checked(&self, ids: &[String], options: DeleteOptions) -> Result<BatchDeletionReport, HostError> {
        let ws = &self.ws;
        let name = format!("Deleting {} Documents", ids.len());
        let Ok(job) = ws.pipeline.begin_exclusive(&name, ws.runner()) else {
            return Err(HostError::Conflict(
                "the pipeline is busy (indexing or another job); retry when track_status shows it done".into(),
            ));
        };
        let progress = |event: &DeletionEvent| ws.pipeline.lock().deletion_progress(event);
        match delete::delete_many(&ws.engine, ids, options, &progress, job.token()).await {
            Ok(report) => {
                job.finish(format!("Deletion finished: {} of {} documents deleted", report.deleted.len(), ids.len()));
                Ok(report)
            }
            Err(e) => {
                job.finish(format!("Deletion stopped: {e}"));
                Err(e.into())
            }
        }
    }
}
