//! [`McpSettings`]: the bounds of the MCP server (all ours; LightRAG has no MCP server). The
//! stdio server (`lightrag mcp`) reads files only under [`McpSettings::files_root`]; the
//! streamable-HTTP server (`/mcp` of `lightrag serve`) caps its sessions and event streams, per
//! client and in all, so that no client can hold the server's memory or lock others out.

use std::path::PathBuf;

use crate::error::ConfigError;
use crate::parse::Reader;

type Result<T> = std::result::Result<T, ConfigError>;

/// The MCP settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpSettings {
    /// `MCP_FILES_ROOT` (the current directory): the folder `insert_file` of `lightrag mcp` may
    /// read below; `None` = the process's current directory.
    pub files_root: Option<PathBuf>,
    /// `MCP_MAX_SESSIONS` (1000): MCP sessions open at once on the server (each costs ~64 KiB);
    /// at the cap a new session evicts the one idle the longest, or is refused with 503.
    pub max_sessions: usize,
    /// `MCP_MAX_SESSIONS_PER_CLIENT` (64): sessions of one client (a logged-in account, else one
    /// address); at the cap the client's own session idle the longest is evicted, or the new one
    /// refused with 429.
    pub max_sessions_per_client: usize,
    /// `MCP_MAX_STREAMS` (128): `GET /mcp` event streams open at once; one more is refused with
    /// 503. They do not count against `MAX_CONCURRENT_REQUESTS`.
    pub max_streams: usize,
    /// `MCP_MAX_STREAMS_PER_CLIENT` (16): event streams of one client; one more is refused with 429.
    pub max_streams_per_client: usize,
    /// `MCP_STREAM_IDLE_TIMEOUT` (300 s): an event stream that has carried no message for this
    /// long is closed (clients reconnect when they need one).
    pub stream_idle_timeout_secs: u64,
}

pub(crate) fn mcp_settings(r: Reader<'_>) -> Result<McpSettings> {
    let files_root = r.opt_with("MCP_FILES_ROOT", "a folder", |s| {
        let s = s.trim();
        (!s.is_empty()).then(|| PathBuf::from(s))
    })?;
    let max_sessions = r.positive("MCP_MAX_SESSIONS", 1000usize)?;
    let max_streams = r.positive("MCP_MAX_STREAMS", 128usize)?;
    let max_sessions_per_client = per_client(r, "MCP_MAX_SESSIONS_PER_CLIENT", 64, "MCP_MAX_SESSIONS", max_sessions)?;
    let max_streams_per_client = per_client(r, "MCP_MAX_STREAMS_PER_CLIENT", 16, "MCP_MAX_STREAMS", max_streams)?;
    Ok(McpSettings {
        files_root,
        max_sessions,
        max_sessions_per_client,
        max_streams,
        max_streams_per_client,
        stream_idle_timeout_secs: r.positive("MCP_STREAM_IDLE_TIMEOUT", 300u64)?,
    })
}

/// A per-client cap `key` (`default`) under the cap in all `total_key` (`total`): its default is
/// lowered to `total`; a value set above it is refused.
fn per_client(r: Reader<'_>, key: &str, default: usize, total_key: &str, total: usize) -> Result<usize> {
    let value = r.positive(key, default)?;
    if value <= total {
        return Ok(value);
    }
    if !r.is_set(key) {
        return Ok(total);
    }
    Err(ConfigError::Conflict(format!(
        "{} is more than {}: one client may not have more than all clients together; lower {key} or raise \
         {total_key}",
        r.describe(key, &value),
        r.describe(total_key, &total),
    )))
}
