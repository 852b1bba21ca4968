//! Answer of `GET /workspaces` (ours, beyond LightRAG: the web UI's workspace picker).

use serde::Serialize;
use utoipa::ToSchema;

/// `GET /workspaces`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct WorkspacesResponse {
    /// The server's `WORKSPACE` (`""` when unset): what a request without the header uses.
    #[schema(example = "")]
    pub default: String,
    /// The workspace of this request (its `LIGHTRAG-WORKSPACE` header, else the default).
    #[schema(example = "team_a")]
    pub current: String,
    /// Every workspace there is: the default, those with a store in the working directory and
    /// those open in this server; sorted, no duplicates, never a reserved `__` name.
    #[schema(example = json!(["", "team_a", "team_b"]))]
    pub workspaces: Vec<String>,
}
