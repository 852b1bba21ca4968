//! # lightrag-mcp
//!
//! A [Model Context Protocol](https://modelcontextprotocol.io) server over a lightrag-rs
//! knowledge base, built on the official Rust SDK ([`rmcp`]). The same handler is served on two
//! transports:
//!
//! * stdio — `lightrag mcp` ([`serve_stdio`]): one JSON-RPC message per line on stdin/stdout, the
//!   way desktop MCP clients start a local server;
//! * streamable HTTP — `POST /mcp` of `lightrag serve` ([`http_service`]), behind the server's
//!   authentication, with the `LIGHTRAG-WORKSPACE` header choosing the knowledge base; its
//!   sessions and event streams are capped per client and in all ([`Sessions`]).
//!
//! What a client can do:
//!
//! * tools ([`tools`]): `query` (every retrieval mode, an answer or the retrieved context, with
//!   references), `insert_text`, `insert_file`, `list_documents`, `document_status`,
//!   `track_status`, `delete_documents`, `search_entities`, `get_entity` and `get_relation` (with
//!   their source chunks), `graph_neighbourhood`;
//! * resources ([`resources`]): the documents, listed and read as `lightrag://documents/{id}`
//!   (the text, then the status row as JSON).
//!
//! A tool's failure — bad arguments, an unknown document, an engine error — is a tool result with
//! `isError: true` and a message saying what to do, so the model can correct itself; an unknown
//! tool or resource is a JSON-RPC error (`-32602`, `-32002`).
//!
//! Where the tools run is the [`Host`]'s business: the CLI opens one knowledge base and indexes in
//! a background task ([`LocalHost`]); the server hands out the request's workspace and its
//! pipeline.

pub mod args;
pub mod files;
mod handler;
pub mod local;
pub mod resources;
pub mod sessions;
pub mod tools;
mod transport;
mod views;

use std::sync::Arc;

use lightrag_application::delete::{BatchDeletionReport, DeleteOptions};
use lightrag_application::insert::{InsertOptions, InsertReport};
use lightrag_application::{AppError, DocumentReader};
use lightrag_engine::Engine;
use lightrag_engine::indexing::pipeline::InsertDoc;

pub use files::LocalFiles;
pub use handler::McpHandler;
pub use local::LocalHost;
pub use sessions::{ClientKey, Refusal, SessionLimits, SessionStats, SessionTicket, Sessions, StreamPermit};
pub use transport::{http_service, serve_stdio};

/// The knowledge base one request works on. The use cases are the application layer's
/// ([`lightrag_application`]); a host only says where they run: which engine, how documents are
/// read, what surrounds an insert or a deletion (the server's pipeline jobs, the local indexing
/// task).
#[async_trait::async_trait]
pub trait KnowledgeBase: Send + Sync {
    /// Its engine.
    fn engine(&self) -> &Engine;

    /// How its documents are read to text (`PDF_DECRYPT_PASSWORD`, `MAX_UPLOAD_SIZE`).
    fn reader(&self) -> &DocumentReader;

    /// Inserts `docs` ([`lightrag_application::insert::insert`] with `options`) and has them
    /// indexed in the background; the report's track id follows them.
    async fn insert(&self, docs: Vec<InsertDoc>, options: InsertOptions) -> Result<InsertReport, HostError>;

    /// Deletes the documents `ids` in one pass ([`lightrag_application::delete::delete_many`]).
    async fn delete(&self, ids: &[String], options: DeleteOptions) -> Result<BatchDeletionReport, HostError>;
}

/// Where the tools run: gives each request its knowledge base.
#[async_trait::async_trait]
pub trait Host: Send + Sync + 'static {
    /// The knowledge base of a request. Over HTTP, `http` holds the request's head (its headers
    /// choose the workspace); on stdio it is `None`.
    async fn open(&self, http: Option<&http::request::Parts>) -> Result<Arc<dyn KnowledgeBase>, HostError>;

    /// The files `insert_file` may read on this machine (stdio: the client runs beside the
    /// server); `None` where it takes the file's content instead (HTTP).
    fn local_files(&self) -> Option<&LocalFiles>;

    /// How long one tool call may run before it is stopped (the server's `TIMEOUT`: over HTTP
    /// the SDK answers the request head at once and runs the tool in the session's task, so the
    /// server's request deadline never sees it); `None` for no bound.
    fn call_timeout(&self) -> Option<std::time::Duration> {
        None
    }
}

/// Why a host could not serve a request; the message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The knowledge base cannot be opened or used.
    #[error("{0}")]
    Unavailable(String),
    /// The request conflicts with the state of the knowledge base (a name exists, a job runs).
    #[error("{0}")]
    Conflict(String),
    /// A use case's error.
    #[error(transparent)]
    App(#[from] AppError),
    /// An engine error.
    #[error(transparent)]
    Engine(#[from] lightrag_engine::EngineError),
}
