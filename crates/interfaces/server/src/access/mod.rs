//! Who may do what on this server (issue 30): the [`Caller`] every request runs as (resolved by
//! [`crate::auth::authenticate`] from `LIGHTRAG_API_KEY`, a key of the access store, a login
//! token or nothing), the [`route_table`] saying what each route does, the check applied before
//! any handler runs ([`Caller::check`], with [`lightrag_application::access::authorize`]), the
//! [`audit`] log middleware and the owners' `/admin/…` routes ([`admin_routes`]).

pub mod admin_routes;
pub mod audit;
pub mod route_table;

use std::sync::Arc;

use lightrag_application::access::{Action, Decision, Principal, Rights, authorize};
use lightrag_ports::access::AccessStore;

use crate::errors::ApiError;
use crate::state::AppState;

/// Who a request runs as and what it may do; in the request's extensions (and, for the audit
/// log, in the response's).
#[derive(Debug, Clone)]
pub struct Caller {
    /// The principal.
    pub principal: Principal,
    /// Its rights, read from the access store for this request.
    pub rights: Rights,
}

impl Caller {
    /// Whether the caller may do `action` in `workspace`: 404 without a role there (existing or
    /// not), 403 with a role too low.
    pub fn check(&self, workspace: &str, action: Action) -> Result<(), ApiError> {
        match authorize(&self.rights, workspace, action) {
            Decision::Allowed => Ok(()),
            Decision::NotFound => Err(ApiError::NotFound(format!("workspace '{workspace}' not found"))),
            Decision::Forbidden => Err(ApiError::Forbidden(match action.required_role() {
                Some(role) => format!("this needs the role {role} in workspace '{workspace}'; ask one of its admins"),
                None => "only owners may do this (the /admin routes): the holder of LIGHTRAG_API_KEY or a principal \
                         made owner with `lightrag admin owner NAME on`"
                    .into(),
            })),
        }
    }
}

/// The audit log's name for the caller (`key:ci`, `login:alice`, `master`, …).
#[derive(Debug, Clone)]
pub struct AuditedAs(pub String);

impl AppState {
    /// The access store (`WORKING_DIR/access.sqlite`), opened on first use.
    pub async fn access_store(&self) -> Result<Arc<dyn AccessStore>, ApiError> {
        self.inner
            .access
            .get_or_try_init(|| lightrag_config::open_access_store(&self.inner.settings))
            .await
            .cloned()
            .map_err(|e| ApiError::Unavailable(format!("{e}; check WORKING_DIR and its permissions"), 5))
    }
}
