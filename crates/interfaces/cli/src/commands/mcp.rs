//! `lightrag mcp`: the knowledge base to an MCP client over stdio ([`lightrag_mcp`]).

use std::sync::Arc;
use std::time::Duration;

use lightrag_app::Settings;
use lightrag_mcp::LocalHost;

use crate::cli::McpArgs;

pub async fn run(settings: &Settings, args: McpArgs) -> anyhow::Result<()> {
    let engine = super::open(settings).await?;
    let host = Arc::new(LocalHost::new(engine));
    let served = lightrag_mcp::serve_stdio(host.clone()).await;
    if !host.shutdown(Duration::from_secs(args.shutdown_grace)).await {
        tracing::warn!("indexing did not stop in time; the next run resumes the unfinished documents");
    }
    Ok(served?)
}
