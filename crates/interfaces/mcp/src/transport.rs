//! The two transports of the handler, both the SDK's:
//!
//! * [`serve_stdio`]: newline-delimited JSON-RPC on stdin/stdout until the client closes stdin;
//! * [`http_service`]: streamable HTTP as a tower service, mounted by the server at `/mcp`. A
//!   client `POST`s JSON-RPC messages; `initialize` opens a session whose id comes back in the
//!   `Mcp-Session-Id` header and goes with every later request (with `MCP-Protocol-Version`);
//!   replies come as a `text/event-stream`; `GET` opens an event stream for server messages;
//!   `DELETE` ends the session. Sessions and event streams are bounded by [`Sessions`]. Host and
//!   Origin checks are left to the server in front (its authentication and CORS settings).

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::{Host, McpHandler, Sessions};

/// Why the stdio server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The client did not complete the `initialize` handshake.
    #[error("the MCP client did not initialize the session: {0}")]
    Initialize(String),
    /// The server task failed.
    #[error("the MCP server stopped: {0}")]
    Stopped(String),
}

/// Serves `host` on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(host: Arc<dyn Host>) -> Result<(), TransportError> {
    let running = McpHandler::new(host)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| TransportError::Initialize(e.to_string()))?;
    let reason = running.waiting().await.map_err(|e| TransportError::Stopped(e.to_string()))?;
    tracing::info!(?reason, "MCP stdio session ended");
    Ok(())
}

/// The streamable-HTTP service over `host`, with the bounded `sessions` (the server in front
/// admits new sessions and event streams through them); `shutdown` ends every session and open
/// stream (the server cancels it when it stops).
pub fn http_service(
    host: Arc<dyn Host>,
    sessions: Sessions,
    shutdown: CancellationToken,
) -> StreamableHttpService<McpHandler, Sessions> {
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_legacy_session_mode(true)
        .with_cancellation_token(shutdown);
    StreamableHttpService::new(move || Ok(McpHandler::new(host.clone())), Arc::new(sessions), config)
}
