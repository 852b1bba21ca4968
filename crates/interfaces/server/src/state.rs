//! [`AppState`]: what every request handler shares — the settings, the providers, the open
//! workspaces, the shutdown token and the tracker of background tasks.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use lightrag_config::{Providers, Settings};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::auth::Auth;
use crate::limits::RequestSlots;
use crate::metrics::Metrics;
use crate::workspace::WorkspaceSlot;

/// Shared server state. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub(crate) inner: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) settings: Settings,
    pub(crate) providers: Providers,
    /// Workspaces by name; a slot is filled once its workspace is open (opening happens outside
    /// the map's lock, so one slow open does not hold up requests to other workspaces).
    pub(crate) workspaces: tokio::sync::Mutex<HashMap<String, WorkspaceSlot>>,
    pub(crate) shutdown: CancellationToken,
    pub(crate) tracker: TaskTracker,
    /// Authentication set-up and the per-user renewal times.
    pub(crate) auth: Auth,
    pub(crate) metrics: Metrics,
    /// Reads uploaded and scanned files to text (its slots bound the extractions running at once,
    /// in every workspace).
    pub(crate) reader: lightrag_application::DocumentReader,
    /// Bounds the uploads being received at once ([`MAX_CONCURRENT_UPLOADS`]).
    pub(crate) uploads: Arc<tokio::sync::Semaphore>,
    /// The empty knowledge base answering reads of workspaces that do not exist (see
    /// [`crate::absent`]), opened on first use.
    pub(crate) empty: tokio::sync::OnceCell<crate::absent::EmptyBase>,
    /// The requests in progress at once (`MAX_CONCURRENT_REQUESTS`).
    pub(crate) requests: RequestSlots,
    /// The MCP sessions and event streams of `/mcp`, capped per client and in all (`MCP_MAX_*`).
    pub(crate) mcp: lightrag_mcp::Sessions,
    /// The access store (principals, grants, audit log), opened on first use.
    pub(crate) access: tokio::sync::OnceCell<Arc<dyn lightrag_ports::AccessStore>>,
}

/// Uploads received at once by one server; one more is answered 503 with `Retry-After`.
pub const MAX_CONCURRENT_UPLOADS: usize = 16;

impl AppState {
    /// State over already-built providers (shared by every workspace). Fails on a bad
    /// authentication set-up (`AUTH_ACCOUNTS` without a proper `TOKEN_SECRET`, a malformed
    /// `{bcrypt}` entry).
    pub fn new(settings: Settings, providers: Providers) -> Result<Self, lightrag_config::AppError> {
        let auth = Auth::new(&settings.server)?;
        let requests = RequestSlots::new(settings.server.limits.max_concurrent_requests);
        let mcp = crate::mcp_admission::sessions(&settings.mcp);
        let reader = lightrag_application::DocumentReader::new(&settings);
        Ok(Self {
            inner: Arc::new(Shared {
                settings,
                providers,
                workspaces: tokio::sync::Mutex::new(HashMap::new()),
                shutdown: CancellationToken::new(),
                tracker: TaskTracker::new(),
                reader,
                uploads: Arc::new(tokio::sync::Semaphore::new(MAX_CONCURRENT_UPLOADS)),
                requests,
                auth,
                metrics: Metrics::default(),
                empty: tokio::sync::OnceCell::new(),
                mcp,
                access: tokio::sync::OnceCell::new(),
            }),
        })
    }

    /// Builds the providers named by `settings` (no network calls) and the state over them
    /// (see [`AppState::new`] for the authentication checks).
    pub fn from_settings(settings: Settings) -> Result<Self, lightrag_config::AppError> {
        let providers = Providers::build(&settings)?;
        Self::new(settings, providers)
    }

    /// The authentication set-up.
    pub fn auth(&self) -> &Auth {
        &self.inner.auth
    }

    /// The server's settings.
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// The providers every workspace shares (models, the PostgreSQL pool).
    pub fn providers(&self) -> &Providers {
        &self.inner.providers
    }

    /// Cancels running pipelines (they stop between chunks; unfinished documents resume on the
    /// next start) and waits up to `grace` for background tasks to end. Returns whether they did.
    pub async fn shutdown(&self, grace: Duration) -> bool {
        self.inner.shutdown.cancel();
        self.inner.tracker.close();
        tokio::time::timeout(grace, self.inner.tracker.wait()).await.is_ok()
    }

    /// Opens the default workspace (`WORKSPACE`) now and starts processing what it has pending.
    pub async fn warm_up(&self) -> Result<(), crate::errors::ApiError> {
        let default = self.inner.settings.workspace.clone();
        self.workspace(&default).await.map(|_| ())
    }
}
