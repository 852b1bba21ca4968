//! The use cases' errors ([`AppError`]) as HTTP answers — one mechanical table, beside the engine's
//! in [`crate::errors`]: invalid input 422 with a `detail` item per field, a file that cannot be
//! read as text 400, too large 413, a conflict with the stored state 409, not found 404, busy 503
//! with `Retry-After`, an engine error by the engine's table.

use lightrag_application::AppError;

use crate::errors::{ApiError, detail_item};

impl From<AppError> for ApiError {
    fn from(e: AppError) -> Self {
        app_error(e)
    }
}

/// [`AppError`] → [`ApiError`].
pub fn app_error(e: AppError) -> ApiError {
    match e {
        AppError::Invalid(problems) => ApiError::Validation(
            problems
                .iter()
                .map(|p| detail_item(&p.field.iter().map(String::as_str).collect::<Vec<_>>(), p.message.clone()))
                .collect(),
        ),
        e @ AppError::Unreadable { .. } => ApiError::BadRequest(e.to_string()),
        AppError::TooLarge(message) => ApiError::TooLarge(message),
        AppError::Conflict(message) => ApiError::Conflict(message),
        AppError::NotFound(message) => ApiError::NotFound(message),
        AppError::Busy { message, retry_after_secs } => ApiError::Unavailable(message, retry_after_secs),
        AppError::Engine(e) => e.into(),
        e @ AppError::Io { .. } => ApiError::Internal(e.to_string()),
    }
}

/// An [`AppError::Invalid`] answered 400 with its problems in one line (the LightRAG routes that
/// answer a bad field with 400 rather than 422); any other error as [`app_error`].
pub fn bad_request(e: AppError) -> ApiError {
    match e {
        e @ AppError::Invalid(_) => {
            ApiError::BadRequest(e.problems().iter().map(|p| p.message.clone()).collect::<Vec<_>>().join("; "))
        }
        other => app_error(other),
    }
}
