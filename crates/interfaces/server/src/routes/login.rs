//! LightRAG's login flow (§1.2), never behind authentication:
//!
//! * `GET /auth-status`: whether logins are configured; without accounts it hands out a guest
//!   token;
//! * `POST /login`: an OAuth2 password form (`username`, `password`, optional `grant_type`,
//!   `scope`, `client_id`, `client_secret`), URL-encoded or multipart as the web UI sends it.
//!   With accounts: a user token or 401 "Incorrect credentials"; without: a guest token for any
//!   credentials.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Multipart, Request, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use serde_json::{Value, json};

use crate::API_VERSION;
use crate::auth::throttle::Subject;
use crate::auth::{GUEST_USER, Role, unix_now};
use crate::errors::ApiError;
use crate::limits::BodyLimit;
use crate::routes::health::titles;
use crate::state::AppState;

/// The message of guest-mode answers.
pub const GUEST_MESSAGE: &str = "Authentication is disabled. Using guest access.";

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new().route("/auth-status", get(auth_status)).route("/login", post(login))
}

/// The client's address, when the server was started with connection info (`lightrag serve`;
/// not in tests that call the router directly).
pub struct ClientAddr(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddr(parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip())))
    }
}

/// The OAuth2 password form. `scope`, `client_id` and `client_secret` are accepted and unused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginForm {
    /// `username`.
    pub username: String,
    /// `password`.
    pub password: String,
}

/// The OAuth2 password form as documented in OpenAPI.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub(crate) struct LoginFormDoc {
    /// Account name (`AUTH_ACCOUNTS`).
    username: String,
    /// Its password.
    password: String,
    /// OAuth2 `grant_type` (ignored).
    grant_type: Option<String>,
}

fn missing(field: &str) -> Value {
    json!({"type": "missing", "loc": ["body", field], "msg": "Field required", "input": Value::Null})
}

impl LoginForm {
    /// Checks the fields like FastAPI's `OAuth2PasswordRequestForm`: `username` and `password`
    /// required, `grant_type` (if given) must be `password`.
    pub fn from_fields(mut fields: HashMap<String, String>) -> Result<Self, ApiError> {
        let mut errors = Vec::new();
        if let Some(grant) = fields.get("grant_type").filter(|g| g.as_str() != "password") {
            errors.push(json!({
                "type": "string_pattern_mismatch",
                "loc": ["body", "grant_type"],
                "msg": "String should match pattern '^password$'",
                "input": grant,
                "ctx": {"pattern": "^password$"},
            }));
        }
        let username = fields.remove("username");
        let password = fields.remove("password");
        if username.is_none() {
            errors.push(missing("username"));
        }
        if password.is_none() {
            errors.push(missing("password"));
        }
        match (username, password) {
            (Some(username), Some(password)) if errors.is_empty() => Ok(Self { username, password }),
            _ => Err(ApiError::Validation(errors)),
        }
    }
}

impl<S: Send + Sync> FromRequest<S> for LoginForm {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        let limit = req.extensions().get::<BodyLimit>().copied();
        // a body over the route's limit is a 413 naming the setting, anything else a 422
        let bad = |status: StatusCode, text: String| match limit {
            Some(limit) if status == StatusCode::PAYLOAD_TOO_LARGE => limit.refusal(),
            _ => ApiError::invalid(&[], text),
        };
        let fields = if content_type.starts_with("multipart/form-data") {
            let mut multipart =
                Multipart::from_request(req, state).await.map_err(|e| bad(e.status(), e.body_text()))?;
            let mut fields = HashMap::new();
            while let Some(field) = multipart.next_field().await.map_err(|e| bad(e.status(), e.body_text()))? {
                let Some(name) = field.name().map(str::to_string) else { continue };
                let value = field.text().await.map_err(|e| bad(e.status(), e.body_text()))?;
                fields.entry(name).or_insert(value);
            }
            fields
        } else if content_type.starts_with("application/x-www-form-urlencoded") {
            let Form(fields) = Form::<HashMap<String, String>>::from_request(req, state)
                .await
                .map_err(|e| bad(e.status(), e.body_text()))?;
            fields
        } else {
            // Like FastAPI: another body type reads as an empty form.
            HashMap::new()
        };
        Self::from_fields(fields)
    }
}

fn token_failure(e: jsonwebtoken::errors::Error) -> ApiError {
    ApiError::Internal(format!("could not sign a token: {e}"))
}

/// Tells whether logins are configured; hands out a guest token when they are not.
#[utoipa::path(get, path = "/auth-status", tag = "system", responses(
    (status = 200, description = "Whether logins are configured; a guest token when they are not", body = Object),
))]
pub(crate) async fn auth_status(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let auth = state.auth();
    let (title, description) = titles(&state);
    if auth.accounts_configured() || auth.mode() == lightrag_config::AccessControl::Roles {
        return Ok(Json(json!({
            "auth_configured": true,
            "auth_mode": "enabled",
            "core_version": API_VERSION,
            "api_version": API_VERSION,
            "webui_title": title,
            "webui_description": description,
        })));
    }
    let mut body = guest_login(&state)?;
    body["auth_configured"] = json!(false);
    Ok(Json(body))
}

/// The guest-mode answer of `/login` (and of `/auth-status`, which adds `auth_configured`).
fn guest_login(state: &AppState) -> Result<Value, ApiError> {
    let (title, description) = titles(state);
    let token = state.auth().tokens().issue(GUEST_USER, Role::Guest, unix_now()).map_err(token_failure)?;
    Ok(json!({
        "access_token": token,
        "token_type": "bearer",
        "auth_mode": "disabled",
        "message": GUEST_MESSAGE,
        "core_version": API_VERSION,
        "api_version": API_VERSION,
        "webui_title": title,
        "webui_description": description,
    }))
}

/// Logs in with an OAuth2 password form and returns a bearer token.
#[utoipa::path(post, path = "/login", tag = "system",
    request_body(content = LoginFormDoc, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "A bearer token (a guest token when no accounts are configured)", body = Object),
        (status = 401, description = "Incorrect credentials", body = crate::schemas::ErrorResponse),
        (status = 422, description = "username or password missing", body = crate::schemas::ValidationErrorResponse),
        (status = 429, description = "Too many failed logins for this user or client; see Retry-After", body = crate::schemas::ErrorResponse),
    ))]
pub(crate) async fn login(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    form: LoginForm,
) -> Result<Json<Value>, ApiError> {
    if !state.auth().accounts_configured() && state.auth().mode() == lightrag_config::AccessControl::Off {
        // guest mode; managed accounts of the access store may still log in
        let store = state.access_store().await?;
        if store.principals().await.map_or(true, |p| !p.iter().any(|p| p.password_hash.is_some())) {
            return guest_login(&state).map(Json);
        }
    }
    let (title, description) = titles(&state);
    let auth = state.auth();
    let subjects: Vec<Subject> =
        std::iter::once(Subject::User(form.username.clone())).chain(client.map(Subject::Client)).collect();
    if let Some(wait) = auth.throttle().wait(&subjects, Instant::now()) {
        let secs = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
        return Err(ApiError::TooManyRequests(format!("too many failed logins; try again in {secs} s"), secs));
    }
    // A bcrypt check takes up to a few hundred milliseconds: keep it off the async threads, and
    // bound how many run at once so a flood of logins cannot take every core.
    let _slot = auth.login_slot().await;
    let checker = state.clone();
    let LoginForm { username, password } = form;
    let (username, password, valid) = tokio::task::spawn_blocking(move || {
        let valid = checker.auth().accounts().verify(&username, &password);
        (username, password, valid)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("the password check failed: {e}")))?;
    // not an AUTH_ACCOUNTS login: perhaps a managed account of the access store
    let managed = !valid && {
        let store = state.access_store().await?;
        lightrag_application::access::admin::verify_account(store.as_ref(), &username, &password)
            .await
            .map_err(|e| ApiError::Unavailable(format!("the access store failed: {e}"), 5))?
    };
    if !valid && !managed {
        auth.throttle().failed(&subjects, Instant::now());
        let entry = lightrag_ports::AuditEntry {
            time: crate::access::audit::now_ms(),
            principal: format!("user:{username}"),
            workspace: String::new(),
            action: "login".into(),
            outcome: 401,
            client: client.map(|c| c.to_string()).unwrap_or_default(),
        };
        crate::access::audit::append(&state, entry).await;
        return Err(ApiError::Unauthorized("Incorrect credentials".into()));
    }
    auth.throttle().succeeded(&subjects);
    let token = if managed {
        auth.tokens().issue_managed(&username, unix_now())
    } else {
        auth.tokens().issue(&username, Role::User, unix_now())
    }
    .map_err(token_failure)?;
    Ok(Json(json!({
        "access_token": token,
        "token_type": "bearer",
        "auth_mode": "enabled",
        "core_version": API_VERSION,
        "api_version": API_VERSION,
        "webui_title": title,
        "webui_description": description,
    })))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn the_password_form_is_checked_like_fastapi() {
        let form = LoginForm::from_fields(fields(&[("username", "a"), ("password", "b"), ("scope", "x")])).unwrap();
        assert_eq!(form, LoginForm { username: "a".into(), password: "b".into() });
        assert!(
            LoginForm::from_fields(fields(&[("username", "a"), ("password", "b"), ("grant_type", "password")])).is_ok()
        );
        let Err(ApiError::Validation(items)) = LoginForm::from_fields(fields(&[("password", "b")])) else {
            panic!("expected a validation error")
        };
        assert_eq!(items[0]["loc"], json!(["body", "username"]));
        let Err(ApiError::Validation(items)) =
            LoginForm::from_fields(fields(&[("username", "a"), ("password", "b"), ("grant_type", "code")]))
        else {
            panic!("expected a validation error")
        };
        assert_eq!(items[0]["loc"], json!(["body", "grant_type"]));
        let Err(ApiError::Validation(items)) = LoginForm::from_fields(HashMap::new()) else {
            panic!("expected a validation error")
        };
        assert_eq!(items.len(), 2);
    }
}
