//! Reads of workspaces that do not exist. A request that only reads (`GET`, `HEAD`, and the
//! `POST` routes that answer questions or list documents) naming a workspace that has no store
//! yet is answered from one shared, empty knowledge base instead of opening — and so creating —
//! that workspace: reads never create stores, never count against `MAX_WORKSPACES`, and a
//! client cannot fill the server with empty workspaces by sending GETs with new names. The
//! first write (an insert, an upload, a scan, a graph edit) creates the workspace as before.
//!
//! The empty knowledge base lives in a temporary folder removed when the server stops; nothing
//! is ever indexed into it (its pipeline is never started).

use std::path::PathBuf;
use std::sync::Arc;

use axum::http::Method;
use axum::http::request::Parts;
use lightrag_engine::Engine;

use crate::errors::ApiError;
use crate::state::AppState;
use crate::workspace::Workspace;

/// `POST` routes that only read: questions, document listings and cost estimates.
const POST_READS: [&str; 7] = [
    "/query",
    "/query/stream",
    "/query/data",
    "/documents/paginated",
    "/documents/estimate",
    "/api/chat",
    "/api/generate",
];

/// Whether the request only reads its workspace.
pub fn is_read(parts: &Parts) -> bool {
    let method = &parts.method;
    if *method == Method::GET || *method == Method::HEAD {
        return true;
    }
    *method == Method::POST && POST_READS.contains(&parts.uri.path().trim_end_matches('/'))
}

/// The shared empty knowledge base and the temporary folder that holds it.
pub(crate) struct EmptyBase {
    engine: Engine,
    _dir: tempfile::TempDir,
}

impl AppState {
    /// Whether the workspace `name` exists: open in this server, the default one, or with a store
    /// (a store file in `WORKING_DIR/<name>`, or rows in the PostgreSQL database).
    pub async fn workspace_exists(&self, name: &str) -> Result<bool, ApiError> {
        if name == self.settings().workspace || self.is_open(name).await {
            return Ok(true);
        }
        match &self.settings().postgres {
            Some(pg) => {
                let names = lightrag_config::postgres_workspaces(pg, self.providers(), &self.settings().workspace)
                    .await
                    .map_err(|e| ApiError::workspace_not_opened("cannot list the workspaces of the database", &e))?;
                Ok(names.iter().any(|n| n == name))
            }
            None => {
                let mut settings = self.settings().clone();
                settings.workspace = name.to_string();
                let path = settings.store_path();
                tokio::task::spawn_blocking(move || path.is_file())
                    .await
                    .map_err(|e| ApiError::Internal(format!("checking the workspace's store failed: {e}")))
            }
        }
    }

    /// A read-only view of the workspace `name`, which does not exist: the shared empty knowledge
    /// base under that name (opened on first use).
    pub async fn absent_workspace(&self, name: &str) -> Result<Arc<Workspace>, ApiError> {
        let base = self.inner.empty.get_or_try_init(|| self.open_empty_base()).await?;
        let mut settings = self.settings().clone();
        settings.workspace = name.to_string();
        Ok(Arc::new(Workspace::new(name, base.engine.clone(), settings, self)))
    }

    async fn open_empty_base(&self) -> Result<EmptyBase, ApiError> {
        let dir = tempfile::Builder::new().prefix("lightrag-empty-").tempdir().map_err(|e| {
            ApiError::Internal(format!("cannot create a temporary folder for reads of new workspaces: {e}"))
        })?;
        let mut settings = self.settings().clone();
        settings.postgres = None;
        settings.working_dir = PathBuf::from(dir.path());
        settings.workspace = String::new();
        let engine = lightrag_config::open_engine_with(&settings, self.providers()).await.map_err(|e| {
            ApiError::workspace_not_opened("cannot open the empty knowledge base for reads of new workspaces", &e)
        })?;
        Ok(EmptyBase { engine, _dir: dir })
    }
}
