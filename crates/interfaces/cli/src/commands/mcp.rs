//! `lightrag mcp`: the knowledge base to an MCP client over stdio ([`lightrag_mcp`]).

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use lightrag_config::Settings;
use lightrag_mcp::{LocalFiles, LocalHost};

use crate::cli::McpArgs;

pub async fn run(settings: &Settings, args: McpArgs) -> anyhow::Result<()> {
    // `insert_file` reads only under MCP_FILES_ROOT (default: the current directory), files of at
    // most MAX_UPLOAD_SIZE bytes
    let root = match &settings.mcp.files_root {
        Some(root) => root.clone(),
        None => std::env::current_dir().context("the current directory (the default MCP_FILES_ROOT) is unreadable")?,
    };
    let files = LocalFiles::new(&root, settings.server.max_upload_size)?;
    tracing::info!(root = %files.root().display(), "insert_file reads files under MCP_FILES_ROOT");
    let engine = super::open(settings).await?;
    let host = Arc::new(LocalHost::new(engine, files, lightrag_application::DocumentReader::new(settings)));
    let served = lightrag_mcp::serve_stdio(host.clone()).await;
    if !host.shutdown(Duration::from_secs(args.shutdown_grace)).await {
        tracing::warn!("indexing did not stop in time; the next run resumes the unfinished documents");
    }
    Ok(served?)
}
