//! The owners' routes (JSON; the route table makes them owner-only): API keys, managed accounts,
//! grants, owners and the audit log, through the same use cases as `lightrag admin …`
//! ([`lightrag_application::access::admin`]).
//!
//! * `GET /admin/keys`, `POST /admin/keys {name, workspace, role, expires_days?}` (the key is in
//!   the answer, once), `DELETE /admin/keys?name=` (revoke);
//! * `GET /admin/accounts`, `POST /admin/accounts {name, password}`, `DELETE /admin/accounts?name=`;
//! * `GET /admin/grants?workspace=`, `POST /admin/grants {name, workspace, role}`,
//!   `DELETE /admin/grants?name=&workspace=`;
//! * `POST /admin/owners {name, owner}`;
//! * `GET /admin/audit?workspace=&principal=&since=&limit=`.

use axum::extract::{Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use lightrag_application::access::admin::{self, AdminError};
use lightrag_ports::access::{AuditFilter, PrincipalKind};
use serde::Deserialize;
use serde_json::{Value, json};

use super::audit::now_ms;
use crate::errors::ApiError;
use crate::json_body::ApiJson;
use crate::schemas::ErrorResponse;
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/admin/keys", get(list_keys).post(create_key).delete(revoke_key))
        .route("/admin/accounts", get(list_accounts).post(add_account).delete(remove_account))
        .route("/admin/grants", get(list_grants).post(set_grant).delete(remove_grant))
        .route("/admin/owners", post(set_owner))
        .route("/admin/audit", get(audit))
}

impl From<AdminError> for ApiError {
    fn from(e: AdminError) -> Self {
        match e {
            AdminError::Invalid(m) => ApiError::BadRequest(m),
            AdminError::NotFound(m) => ApiError::NotFound(m),
            AdminError::Store(lightrag_ports::AccessError::Exists(n)) => {
                ApiError::Conflict(format!("a principal named '{n}' exists already"))
            }
            AdminError::Store(lightrag_ports::AccessError::NotFound(n)) => {
                ApiError::NotFound(format!("no principal named '{n}'"))
            }
            AdminError::Store(e) => ApiError::Unavailable(e.to_string(), 5),
        }
    }
}

fn now() -> i64 {
    now_ms() / 1000
}

fn logins(state: &AppState) -> Vec<String> {
    state.settings().server.auth_accounts.iter().map(|a| a.username.clone()).collect()
}

/// `?name=`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct NameQuery {
    /// The principal's name.
    name: String,
}

/// A new key.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct CreateKeyRequest {
    /// Unique among keys and accounts.
    name: String,
    /// The workspace it may use.
    workspace: String,
    /// `reader`, `editor` or `admin`.
    role: String,
    /// Days until it stops working (default: never).
    expires_days: Option<u64>,
}

/// A new managed account.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct AddAccountRequest {
    /// Unique among keys and accounts.
    name: String,
    /// Its password (bcrypt-hashed at rest).
    password: String,
}

/// A role in a workspace.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct GrantRequest {
    /// A key, a managed account or an `AUTH_ACCOUNTS` login.
    name: String,
    /// The workspace.
    workspace: String,
    /// `reader`, `editor` or `admin`.
    role: String,
}

/// `?name=&workspace=`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UngrantQuery {
    /// The principal.
    name: String,
    /// The workspace.
    workspace: String,
}

/// The owner flag of a principal.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct OwnerRequest {
    /// The principal.
    name: String,
    /// Whether it is an owner.
    owner: bool,
}

/// `?workspace=`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct WorkspaceQuery {
    /// Only this workspace.
    workspace: Option<String>,
}

/// Which audit entries.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct AuditQuery {
    /// Only this workspace.
    workspace: Option<String>,
    /// Only this principal (`key:NAME`, `account:NAME`, `login:NAME`, `master`, `cli`).
    principal: Option<String>,
    /// Only entries at or after this time (Unix milliseconds).
    since: Option<i64>,
    /// At most this many (default 100, at most 10000).
    limit: Option<usize>,
}

/// List API keys
///
/// Every key with its roles, expiry and whether it is revoked; never a key or its hash. Owners only.
#[utoipa::path(get, path = "/admin/keys", tag = "access", responses(
    (status = 200, description = "`{\"keys\": [{kind, name, created, expires, owner, revoked, grants}]}`", body = Object),
    (status = 403, description = "Not an owner", body = ErrorResponse),
))]
pub(crate) async fn list_keys(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    let keys = admin::list(store.as_ref(), Some(PrincipalKind::Key)).await?;
    Ok(Json(json!({ "keys": keys })))
}

/// Create an API key
///
/// Makes a key with a role in one workspace; the answer holds the key (`lrk_…`), shown this once.
/// Owners only.
#[utoipa::path(post, path = "/admin/keys", tag = "access", request_body = CreateKeyRequest, responses(
    (status = 200, description = "`{\"name\", \"key\", \"expires\"}`", body = Object),
    (status = 400, description = "Bad name, workspace or role", body = ErrorResponse),
    (status = 409, description = "The name is taken", body = ErrorResponse),
))]
pub(crate) async fn create_key(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<CreateKeyRequest>,
) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    let role = admin::parse_role(&req.role)?;
    let made = admin::create_key(store.as_ref(), &req.name, &req.workspace, role, req.expires_days, now()).await?;
    Ok(Json(json!(made)))
}

/// Revoke an API key
///
/// Its next request fails. Owners only.
#[utoipa::path(delete, path = "/admin/keys", tag = "access", params(NameQuery), responses(
    (status = 200, description = "`{\"status\": \"revoked\", \"name\"}`", body = Object),
    (status = 404, description = "No such key", body = ErrorResponse),
))]
pub(crate) async fn revoke_key(
    State(state): State<AppState>,
    Query(q): Query<NameQuery>,
) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    admin::revoke_key(store.as_ref(), &q.name).await?;
    Ok(Json(json!({ "status": "revoked", "name": q.name })))
}

/// List accounts
///
/// Managed accounts and `AUTH_ACCOUNTS` logins that have grants; never a password hash. Owners only.
#[utoipa::path(get, path = "/admin/accounts", tag = "access", responses(
    (status = 200, description = "`{\"accounts\": [{kind, name, created, owner, managed, grants}]}`", body = Object),
))]
pub(crate) async fn list_accounts(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    let accounts = admin::list(store.as_ref(), Some(PrincipalKind::Account)).await?;
    Ok(Json(json!({ "accounts": accounts })))
}

/// Add a managed account
///
/// It logs in through `/login` like an `AUTH_ACCOUNTS` account and gets only its grants. Owners only.
#[utoipa::path(post, path = "/admin/accounts", tag = "access", request_body = AddAccountRequest, responses(
    (status = 200, description = "`{\"status\": \"added\", \"name\"}`", body = Object),
    (status = 409, description = "The name is taken", body = ErrorResponse),
))]
pub(crate) async fn add_account(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<AddAccountRequest>,
) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    admin::add_account(store.as_ref(), &req.name, &req.password, now()).await?;
    Ok(Json(json!({ "status": "added", "name": req.name })))
}

/// Remove a managed account
///
/// With its grants; its login tokens stop working at their next request. Owners only.
#[utoipa::path(delete, path = "/admin/accounts", tag = "access", params(NameQuery), responses(
    (status = 200, description = "`{\"status\": \"removed\", \"name\"}`", body = Object),
    (status = 404, description = "No such account", body = ErrorResponse),
))]
pub(crate) async fn remove_account(
    State(state): State<AppState>,
    Query(q): Query<NameQuery>,
) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    admin::remove_account(store.as_ref(), &q.name).await?;
    Ok(Json(json!({ "status": "removed", "name": q.name })))
}

/// List grants
///
/// Who has which role, in one workspace or all. Owners only.
#[utoipa::path(get, path = "/admin/grants", tag = "access", params(WorkspaceQuery), responses(
    (status = 200, description = "`{\"grants\": [{principal, workspace, role}]}`", body = Object),
))]
pub(crate) async fn list_grants(
    State(state): State<AppState>,
    Query(q): Query<WorkspaceQuery>,
) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    let grants = admin::grants(store.as_ref(), q.workspace.as_deref()).await?;
    Ok(Json(json!({ "grants": grants })))
}

/// Give a role
///
/// Gives a key, a managed account or an `AUTH_ACCOUNTS` login a role in a workspace (replacing
/// its role there). Owners only.
#[utoipa::path(post, path = "/admin/grants", tag = "access", request_body = GrantRequest, responses(
    (status = 200, description = "`{\"status\": \"granted\"}`", body = Object),
    (status = 404, description = "No such principal", body = ErrorResponse),
))]
pub(crate) async fn set_grant(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<GrantRequest>,
) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    let role = admin::parse_role(&req.role)?;
    admin::grant(store.as_ref(), &req.name, &req.workspace, role, &logins(&state), now()).await?;
    Ok(Json(json!({ "status": "granted", "name": req.name, "workspace": req.workspace, "role": role })))
}

/// Take a role away
///
/// Owners only.
#[utoipa::path(delete, path = "/admin/grants", tag = "access", params(UngrantQuery), responses(
    (status = 200, description = "`{\"status\": \"ungranted\"}`", body = Object),
    (status = 404, description = "No such role", body = ErrorResponse),
))]
pub(crate) async fn remove_grant(
    State(state): State<AppState>,
    Query(q): Query<UngrantQuery>,
) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    admin::ungrant(store.as_ref(), &q.name, &q.workspace).await?;
    Ok(Json(json!({ "status": "ungranted", "name": q.name, "workspace": q.workspace })))
}

/// Set the owner flag
///
/// Owners have every right on every workspace and manage principals. Owners only.
#[utoipa::path(post, path = "/admin/owners", tag = "access", request_body = OwnerRequest, responses(
    (status = 200, description = "`{\"status\": \"updated\"}`", body = Object),
    (status = 404, description = "No such principal", body = ErrorResponse),
))]
pub(crate) async fn set_owner(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<OwnerRequest>,
) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    admin::set_owner(store.as_ref(), &req.name, req.owner, &logins(&state), now()).await?;
    Ok(Json(json!({ "status": "updated", "name": req.name, "owner": req.owner })))
}

/// Read the audit log
///
/// Newest first: time (Unix ms), principal, workspace, action, outcome (status code), client.
/// Owners only.
#[utoipa::path(get, path = "/admin/audit", tag = "access", params(AuditQuery), responses(
    (status = 200, description = "`{\"entries\": [{time, principal, workspace, action, outcome, client}]}`", body = Object),
))]
pub(crate) async fn audit(State(state): State<AppState>, Query(q): Query<AuditQuery>) -> Result<Json<Value>, ApiError> {
    let store = state.access_store().await?;
    let filter =
        AuditFilter { workspace: q.workspace, principal: q.principal, since: q.since, limit: q.limit.unwrap_or(100) };
    let entries = admin::audit(store.as_ref(), filter).await?;
    Ok(Json(json!({ "entries": entries })))
}
