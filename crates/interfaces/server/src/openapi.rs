//! Being written (issue 4 phase 2).

use axum::Router;

use crate::state::AppState;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
}
