//! Workspaces: the `LIGHTRAG-WORKSPACE` header selects one on every route (no header: the
//! `WORKSPACE` setting). Each is opened lazily — its own store, input folder and pipeline — over
//! the shared providers, and its pipeline is kicked once so pending or interrupted documents are
//! processed.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use lightrag_config::Settings;
use lightrag_engine::Engine;

use crate::auth::AnonymousAccess;
use crate::errors::ApiError;
use crate::pipeline::{PipelineState, Runner};
use crate::state::AppState;

/// The header naming the workspace.
pub const WORKSPACE_HEADER: &str = "LIGHTRAG-WORKSPACE";

/// A workspace's place in the server's map: filled once it is open.
pub type WorkspaceSlot = Arc<tokio::sync::OnceCell<Arc<Workspace>>>;

/// One open workspace.
pub struct Workspace {
    /// Sanitised name (`""` = the root of `WORKING_DIR`).
    pub name: String,
    /// Its engine.
    pub engine: Engine,
    /// Its pipeline status and worker.
    pub pipeline: Arc<PipelineState>,
    /// Its input folder: `INPUT_DIR[/name]`.
    pub input_dir: PathBuf,
    /// Its settings (the server's, with `workspace` set).
    pub settings: Settings,
    /// Reads uploads and scanned files to text (its extraction slots are the server's).
    pub reader: lightrag_application::DocumentReader,
    /// The server-wide bound on uploads being received at once.
    pub uploads: Arc<tokio::sync::Semaphore>,
    runner: Runner,
}

impl Workspace {
    /// The workspace `name` over `engine` (its settings have `workspace` set): input folder
    /// `INPUT_DIR[/name]`, a fresh pipeline, the server's bounds on extractions and uploads.
    pub(crate) fn new(name: &str, engine: Engine, settings: Settings, state: &AppState) -> Workspace {
        let input_dir =
            if name.is_empty() { settings.server.input_dir.clone() } else { settings.server.input_dir.join(name) };
        let runner = Runner {
            engine: engine.clone(),
            tracker: state.inner.tracker.clone(),
            shutdown: state.inner.shutdown.clone(),
        };
        Workspace {
            name: name.to_string(),
            engine,
            pipeline: Arc::new(PipelineState::default()),
            input_dir,
            settings,
            reader: state.inner.reader.clone(),
            uploads: state.inner.uploads.clone(),
            runner,
        }
    }

    /// Starts the indexing worker, or asks the running one to go round again.
    pub fn kick(&self, include_failed: bool) {
        self.pipeline.request_run(&self.runner, include_failed);
    }

    /// The runner (engine, task tracker, shutdown token) of this workspace.
    pub fn runner(&self) -> &Runner {
        &self.runner
    }
}

/// Keeps `[A-Za-z0-9_]` only.
pub fn sanitize_workspace(raw: &str) -> String {
    raw.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

impl AppState {
    /// The workspace called `name` (already sanitised), opened on first use. Concurrent first
    /// requests wait for one open; requests to other workspaces do not wait at all.
    pub async fn workspace(&self, name: &str) -> Result<Arc<Workspace>, ApiError> {
        let slot = {
            let mut map = self.inner.workspaces.lock().await;
            match map.get(name) {
                Some(slot) => slot.clone(),
                None => {
                    let cap = self.inner.settings.server.max_workspaces;
                    if map.len() >= cap && name != self.inner.settings.workspace {
                        return Err(ApiError::BadRequest(format!(
                            "cannot open workspace '{name}': this server already has {cap} workspaces open \
                             (MAX_WORKSPACES); use an existing workspace or raise MAX_WORKSPACES"
                        )));
                    }
                    let slot = WorkspaceSlot::default();
                    map.insert(name.to_string(), slot.clone());
                    slot
                }
            }
        };
        match slot.get_or_try_init(|| self.open_workspace(name)).await {
            Ok(ws) => Ok(ws.clone()),
            Err(e) => {
                // a failed open does not keep its place (nor count against MAX_WORKSPACES)
                let mut map = self.inner.workspaces.lock().await;
                if map.get(name).is_some_and(|s| s.get().is_none()) {
                    map.remove(name);
                }
                Err(e)
            }
        }
    }

    /// Opens the workspace `name`: its engine, input folder and pipeline (kicked once).
    async fn open_workspace(&self, name: &str) -> Result<Arc<Workspace>, ApiError> {
        let mut settings = self.inner.settings.clone();
        settings.workspace = name.to_string();
        let engine = lightrag_config::open_engine_with(&settings, &self.inner.providers).await.map_err(|e| {
            let context = format!("cannot open workspace '{name}' in {}", settings.data_dir().display());
            ApiError::workspace_not_opened(&context, &e)
        })?;
        let ws = Arc::new(Workspace::new(name, engine, settings, self));
        tracing::info!(workspace = name, "workspace opened");
        ws.pipeline.lock().autoscanned = true;
        ws.kick(false);
        Ok(ws)
    }

    /// The workspace a request asks for (header, else the `WORKSPACE` setting; an empty header
    /// is no header). Header names with characters other than `[A-Za-z0-9_]`, longer than
    /// [`MAX_WORKSPACE_NAME`] or starting with `__` (reserved: the input folder's `__parsed__`
    /// archive lives beside the workspaces' folders) are refused with 400.
    pub fn workspace_name(&self, parts: &Parts) -> Result<String, ApiError> {
        let Some(raw) = parts.headers.get(WORKSPACE_HEADER) else {
            return Ok(self.inner.settings.workspace.clone());
        };
        // LightRAG strips other characters; we refuse them, so that "team-a" and "teama" (or a
        // name in another script, stripped to nothing) are never silently the same workspace
        let name = raw.to_str().map(str::trim).unwrap_or("\u{fffd}");
        if name.is_empty() {
            return Ok(self.inner.settings.workspace.clone());
        }
        if sanitize_workspace(name) != name {
            return Err(ApiError::BadRequest(format!(
                "workspace names may contain only the letters A-Z and a-z, digits and _ (LIGHTRAG-WORKSPACE was '{}')",
                name.escape_default()
            )));
        }
        let name = name.to_string();
        if name.len() > MAX_WORKSPACE_NAME {
            return Err(ApiError::BadRequest(format!(
                "workspace names have at most {MAX_WORKSPACE_NAME} characters (LIGHTRAG-WORKSPACE)"
            )));
        }
        if name.starts_with("__") {
            return Err(ApiError::BadRequest(format!(
                "workspace '{name}' is reserved: names starting with __ are not allowed (LIGHTRAG-WORKSPACE)"
            )));
        }
        Ok(name)
    }

    /// Names of the workspaces open now, sorted.
    pub async fn open_workspace_names(&self) -> Vec<String> {
        let map = self.inner.workspaces.lock().await;
        let mut names: Vec<String> = map.iter().filter(|(_, s)| s.get().is_some()).map(|(n, _)| n.clone()).collect();
        names.sort();
        names
    }

    /// Whether the workspace `name` is open already.
    pub async fn is_open(&self, name: &str) -> bool {
        self.inner.workspaces.lock().await.get(name).is_some_and(|s| s.get().is_some())
    }
}

/// The longest workspace name the header may give.
pub const MAX_WORKSPACE_NAME: usize = 64;

/// Extractor: the request's workspace.
pub struct Ws(pub Arc<Workspace>);

impl FromRequestParts<AppState> for Ws {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let name = state.workspace_name(parts)?;
        // A request admitted only because its path is whitelisted (e.g. /api/* or /health with an
        // API key configured) may use the default workspace; /health may also look at open ones.
        // It never opens (creates) a workspace or reads another knowledge base.
        if parts.extensions.get::<AnonymousAccess>().is_some() && name != state.settings().workspace {
            let health_of_open = parts.uri.path() == "/health" && state.is_open(&name).await;
            if !health_of_open {
                return Err(ApiError::Forbidden(format!(
                    "workspace '{name}' needs credentials (X-API-Key or a bearer token) on this whitelisted path"
                )));
            }
        }
        // a read of a workspace that does not exist must not create it (see `absent`)
        if crate::absent::is_read(parts) && !state.workspace_exists(&name).await? {
            return state.absent_workspace(&name).await.map(Ws);
        }
        state.workspace(&name).await.map(Ws)
    }
}

/// Extractor: the name of the request's workspace ([`AppState::workspace_name`]), without
/// opening it.
pub struct WsName(pub String);

impl FromRequestParts<AppState> for WsName {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        state.workspace_name(parts).map(WsName)
    }
}

/// Whether `name` can be a workspace chosen by the header: `[A-Za-z0-9_]`, at most
/// [`MAX_WORKSPACE_NAME`] characters, not reserved (`__…`). `""` (the working directory itself)
/// is not such a name.
pub fn is_workspace_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_WORKSPACE_NAME && sanitize_workspace(name) == name && !name.starts_with("__")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_names_are_sanitised() {
        assert_eq!(sanitize_workspace("../a b-c_9"), "abc_9");
        assert_eq!(sanitize_workspace("..//"), "");
    }

    #[test]
    fn header_names_exclude_reserved_and_malformed_ones() {
        assert!(is_workspace_name("team_a"));
        assert!(!is_workspace_name(""));
        assert!(!is_workspace_name("__parsed__"));
        assert!(!is_workspace_name("a-b"));
        assert!(!is_workspace_name(&"x".repeat(MAX_WORKSPACE_NAME + 1)));
    }
}
