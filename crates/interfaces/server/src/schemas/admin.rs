//! Request and answers of `POST /admin/import-lightrag` (ours, beyond LightRAG).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// `POST /admin/import-lightrag`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// The LightRAG working directory on the server (absolute, or relative to `WORKING_DIR`); it
    /// must lie below one of `IMPORT_ALLOWED_DIRS` (default: `WORKING_DIR`).
    #[schema(example = "/srv/lightrag/rag_storage")]
    pub path: String,
    /// The LightRAG workspace to read (a sub-folder of `path`, letters, digits and `_`). Default:
    /// `path` itself when it holds LightRAG's files, else the sub-folder named like the target
    /// workspace (the `LIGHTRAG-WORKSPACE` header).
    #[serde(default, alias = "from_workspace")]
    #[schema(example = "team_a")]
    pub workspace: Option<String>,
    /// Only report what would be imported and lost; write nothing (answered at once).
    #[serde(default)]
    pub check: bool,
}

/// `POST /admin/import-lightrag` with `check: false`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ImportStartedResponse {
    /// `import_started`, or `busy` when another job runs in the workspace.
    #[schema(example = "import_started")]
    pub status: String,
    /// What happens next (progress: `GET /documents/pipeline_status`).
    pub message: String,
    /// The LightRAG workspace folder being read.
    #[schema(example = "/srv/lightrag/rag_storage/team_a")]
    pub source: String,
}

/// `POST /admin/import-lightrag` with `check: true`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ImportCheckResponse {
    /// `checked`.
    #[schema(example = "checked")]
    pub status: String,
    /// The dry-run report: `documents`, `chunks`, `entities`, `relations`, `vectors` (the reuse
    /// decision), `cache` (per type: reused or kept), `unrecoverable`, `lost`, `blocked`.
    #[schema(value_type = Object)]
    pub report: Value,
}
