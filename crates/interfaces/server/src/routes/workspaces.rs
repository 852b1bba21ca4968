//! `GET /workspaces` (ours, beyond LightRAG: the web UI's workspace picker): the default
//! workspace, the request's, and every workspace there is — the default, each folder of
//! `WORKING_DIR` holding a store (`WORKING_DIR/<name>/lightrag.db`, see
//! [`lightrag_config::Settings::store_path`]) or, on PostgreSQL, each workspace of the database, and
//! each workspace open in this server.

use std::collections::BTreeSet;
use std::path::Path;

use axum::Extension;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use lightrag_config::STORE_FILE;

use crate::access::Caller;
use crate::errors::ApiError;
use crate::schemas::ErrorResponse;
use crate::schemas::workspaces::WorkspacesResponse;
use crate::state::AppState;
use crate::workspace::{WsName, is_workspace_name};

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/workspaces", get(workspaces))
}

/// List workspaces
///
/// The server's default workspace (`WORKSPACE`), the one this request uses
/// (`LIGHTRAG-WORKSPACE`), and every workspace: the default, those with a store in the working
/// directory (on PostgreSQL: in the database) and those open in this server. Sorted, without duplicates or reserved `__` names.
/// A caller held to its grants (an API key, a managed account, a login with `ACCESS_CONTROL=roles`)
/// gets only the workspaces it has a role in.
#[utoipa::path(get, path = "/workspaces", tag = "system", responses(
    (status = 200, description = "Default, current and known workspaces", body = WorkspacesResponse),
    (status = 400, description = "Malformed or reserved LIGHTRAG-WORKSPACE header", body = ErrorResponse),
))]
async fn workspaces(
    State(state): State<AppState>,
    WsName(current): WsName,
    caller: Option<Extension<Caller>>,
) -> Result<Json<WorkspacesResponse>, ApiError> {
    let default = state.settings().workspace.clone();
    let stored = match &state.settings().postgres {
        Some(pg) => lightrag_config::postgres_workspaces(pg, state.providers(), &default)
            .await
            .map_err(|e| ApiError::Internal(format!("cannot list the workspaces of the database: {e}")))?,
        None => {
            let working_dir = state.settings().working_dir.clone();
            tokio::task::spawn_blocking(move || stores_in(&working_dir))
                .await
                .map_err(|e| ApiError::Internal(format!("listing workspaces failed: {e}")))?
                .map_err(|e| ApiError::Internal(format!("cannot list the working directory: {e}")))?
        }
    };
    let open = state.open_workspace_names().await;
    let mut workspaces = merge(&default, stored, open);
    // a caller held to its grants sees only the workspaces it has a role in (existing or not)
    match caller.as_ref().map(|Extension(c)| c.rights.workspaces()) {
        Some(None) => {}
        Some(Some(granted)) => workspaces = granted,
        None => workspaces.clear(),
    }
    Ok(Json(WorkspacesResponse { workspaces, default, current }))
}

/// The sorted union of `default`, `on_disk` and `open`, keeping only names a request could
/// select (the default, or [`is_workspace_name`]).
pub fn merge(default: &str, on_disk: Vec<String>, open: Vec<String>) -> Vec<String> {
    let names: BTreeSet<String> = std::iter::once(default.to_string())
        .chain(on_disk)
        .chain(open)
        .filter(|n| n == default || is_workspace_name(n))
        .filter(|n| !n.starts_with("__"))
        .collect();
    names.into_iter().collect()
}

/// Names of the folders of `working_dir` that hold a store file. A missing working directory
/// has none; unreadable entries are skipped.
pub fn stores_in(working_dir: &Path) -> std::io::Result<Vec<String>> {
    let entries = match std::fs::read_dir(working_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().join(STORE_FILE).is_file())
        .filter_map(|entry| entry.file_name().to_str().map(str::to_string))
        .filter(|name| is_workspace_name(name))
        .collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_are_merged_sorted_and_filtered() {
        let got = merge("", vec!["b".into(), "__x".into(), "a-b".into()], vec!["a".into(), "b".into()]);
        assert_eq!(got, ["", "a", "b"]);
        assert_eq!(merge("team", vec![], vec!["".into()]), ["team"]);
    }

    #[test]
    fn folders_with_a_store_are_found() {
        let dir = tempfile::tempdir().unwrap();
        for (name, store) in [("kept", true), ("empty", false), ("__reserved", true), ("bad-name", true)] {
            std::fs::create_dir(dir.path().join(name)).unwrap();
            if store {
                std::fs::write(dir.path().join(name).join(STORE_FILE), b"").unwrap();
            }
        }
        std::fs::write(dir.path().join(STORE_FILE), b"").unwrap();
        assert_eq!(stores_in(dir.path()).unwrap(), ["kept"]);
        assert!(stores_in(&dir.path().join("missing")).unwrap().is_empty());
    }
}
