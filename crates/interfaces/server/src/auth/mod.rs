//! Authentication, as LightRAG's server does it (§1.2 of the reference):
//!
//! * `X-API-Key: <LIGHTRAG_API_KEY>`;
//! * password login (`AUTH_ACCOUNTS`, `POST /login`) → `Authorization: Bearer <jwt>`, or a guest
//!   token from `GET /auth-status` when no accounts are configured;
//! * `WHITELIST_PATHS` (a trailing `/*` matches a prefix) are open, and so are the login routes,
//!   the API docs and the web UI ([`OPEN_PATHS`]);
//! * tokens near expiry are renewed through the `X-New-Token` response header.
//!
//! [`Auth::decide`] applies LightRAG's decision order: whitelist → bearer token → nothing
//! configured → API key → 401/403. With only an API key configured, a guest token does not
//! stand in for the key (as in LightRAG since its fix of GHSA-f4vv-55c2-5789: guest tokens are
//! handed out to anyone). [`authenticate`] is the middleware around every route.
//!
//! Modules: [`jwt`] issues and checks tokens (signed by [`hmac_jwt`]), [`accounts`] checks
//! passwords, [`renew`] decides on renewals.

pub mod accounts;
pub mod hmac_jwt;
pub mod jwt;
pub mod renew;
pub mod throttle;

use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lightrag_application::access::{self as rules, Action, Principal, Rights};
use lightrag_config::{AccessControl, ConfigError, Secret, ServerSettings};

use crate::access::route_table::{self, Class};
use crate::access::{AuditedAs, Caller};
use crate::errors::ApiError;
use crate::state::AppState;
pub use accounts::Accounts;
pub use jwt::{Claims, Role, TokenError, Tokens, unix_now};
pub use renew::{NEW_TOKEN_HEADER, Renewer};

/// The API key header.
pub const API_KEY_HEADER: &str = "X-API-Key";

/// Routes that are never protected, whatever `WHITELIST_PATHS` says (same pattern syntax):
/// LightRAG's login flow, and the API docs and web UI, which LightRAG serves without its auth
/// dependency (the login page must load before anyone can log in).
pub const OPEN_PATHS: [&str; 11] = [
    "/auth-status",
    "/login",
    "/",
    "/docs/*",
    "/redoc",
    "/redoc/*",
    "/openapi.json",
    "/webui/*",
    "/static/*",
    "/favicon.ico",
    "/ui/customization/*",
];

/// The user name in guest tokens.
pub const GUEST_USER: &str = "guest";

/// LightRAG's built-in `TOKEN_SECRET`: public, so never accepted for signing login tokens.
pub const LIGHTRAG_DEFAULT_TOKEN_SECRET: &str = "lightrag-jwt-default-secret-key!";

/// Checks the login settings: with `AUTH_ACCOUNTS` set, `TOKEN_SECRET` must be set and must not
/// be LightRAG's public default (anyone could forge login tokens with it). Only the server
/// checks this, so other commands run with a half-done login set-up.
pub fn validate_settings(server: &ServerSettings) -> Result<(), ConfigError> {
    if server.auth_accounts.is_empty() {
        return Ok(());
    }
    let how = "set it to a long random string of your own, e.g. the output of `openssl rand -hex 32`";
    match server.token_secret.as_ref().map(|s| s.expose().trim()) {
        None | Some("") => Err(ConfigError::Missing {
            key: "TOKEN_SECRET".into(),
            hint: format!("AUTH_ACCOUNTS is set, so login tokens are signed and need a secret; {how}"),
        }),
        Some(LIGHTRAG_DEFAULT_TOKEN_SECRET) => Err(ConfigError::Conflict(format!(
            "TOKEN_SECRET is LightRAG's public default {LIGHTRAG_DEFAULT_TOKEN_SECRET:?}, with which anyone can \
             forge login tokens, and AUTH_ACCOUNTS is set; {how}"
        ))),
        Some(_) => Ok(()),
    }
}

/// Whether `path` matches one of the whitelist patterns.
pub fn is_whitelisted(path: &str, patterns: &[String]) -> bool {
    patterns.iter().any(|p| path_matches(path, p))
}

/// Whether `path` matches `pattern` (exact, or a prefix when it ends in `/*`).
fn path_matches(path: &str, pattern: &str) -> bool {
    match pattern.strip_suffix("/*") {
        Some(prefix) => path.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('/')),
        None => path == pattern,
    }
}

/// Compares what a client gave with a secret in time that depends only on the client's input:
/// no early exit at the first difference, and no shortcut on a length mismatch (which would
/// tell the secret's length).
pub(crate) fn same_secret(given: &[u8], secret: &[u8]) -> bool {
    if secret.is_empty() {
        return given.is_empty();
    }
    let diff = given.iter().enumerate().fold(0u8, |acc, (i, x)| acc | (x ^ secret[i % secret.len()]));
    diff == 0 && given.len() == secret.len()
}

/// What a request presents.
#[derive(Debug, Clone, Copy, Default)]
pub struct Credentials<'a> {
    /// The request path.
    pub path: &'a str,
    /// The token of an `Authorization: Bearer <token>` header (non-empty).
    pub bearer: Option<&'a str>,
    /// The `X-API-Key` header (non-empty).
    pub api_key: Option<&'a [u8]>,
}

impl<'a> Credentials<'a> {
    /// Reads the path and the two headers of `request`.
    pub fn of<B>(request: &'a axum::http::Request<B>) -> Self {
        let headers = request.headers();
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
            .filter(|t| !t.is_empty());
        let api_key = headers.get(API_KEY_HEADER).map(|v| v.as_bytes()).filter(|k| !k.is_empty());
        Self { path: request.uri().path(), bearer, api_key }
    }
}

/// The server's authentication set-up, built once from the settings.
pub struct Auth {
    api_key: Option<Secret>,
    accounts: Accounts,
    tokens: Tokens,
    whitelist: Vec<String>,
    renewer: Renewer,
    /// Password checks run at once (bcrypt costs ~0.25 s of CPU; /login is open to anyone).
    login_slots: tokio::sync::Semaphore,
    /// Failed logins by user name and client address.
    throttle: throttle::LoginThrottle,
    /// `ACCESS_CONTROL`.
    mode: AccessControl,
}

/// How many password checks may run at the same time; more attempts wait their turn.
pub const CONCURRENT_LOGINS: usize = 2;

impl Auth {
    /// Checks the settings ([`validate_settings`] and the `{bcrypt}` entries) and
    /// sets up the keys. Without `TOKEN_SECRET` (allowed only without accounts), guest tokens
    /// are signed with a random secret of this process.
    pub fn new(server: &ServerSettings) -> Result<Self, ConfigError> {
        validate_settings(server)?;
        let accounts = Accounts::new(&server.auth_accounts)?;
        let secret: Vec<u8> = match server.token_secret.as_ref().filter(|s| !s.expose().is_empty()) {
            Some(s) => s.expose().as_bytes().to_vec(),
            None => rand::random::<[u8; 32]>().to_vec(),
        };
        Ok(Self {
            api_key: server.api_key.clone().filter(|k| !k.expose().is_empty()),
            accounts,
            tokens: Tokens::new(&secret, server)?,
            whitelist: server.whitelist_paths.clone(),
            renewer: Renewer::new(server.token_auto_renew, server.token_renew_threshold),
            login_slots: tokio::sync::Semaphore::new(CONCURRENT_LOGINS),
            throttle: throttle::LoginThrottle::default(),
            mode: server.access_control,
        })
    }

    /// Waits for a password-check slot ([`CONCURRENT_LOGINS`]); hold it during the check.
    pub async fn login_slot(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        self.login_slots.acquire().await.ok()
    }

    /// Whether `AUTH_ACCOUNTS` is set (login mode); otherwise guest mode.
    pub fn accounts_configured(&self) -> bool {
        !self.accounts.is_empty()
    }

    /// Failed-login records ([`throttle`]).
    pub fn throttle(&self) -> &throttle::LoginThrottle {
        &self.throttle
    }

    /// The logins.
    pub fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// The token issuer.
    pub fn tokens(&self) -> &Tokens {
        &self.tokens
    }

    /// The renewal policy.
    pub fn renewer(&self) -> &Renewer {
        &self.renewer
    }

    /// LightRAG's decision for a request at `now` (Unix seconds). `Ok(Some(claims))` when a
    /// bearer token let it through, `Ok(None)` when something else did.
    pub fn decide(&self, c: &Credentials<'_>, now: u64) -> Result<Option<Claims>, ApiError> {
        // 1. open and whitelisted paths
        if self.path_is_open(c.path) {
            return Ok(None);
        }
        // 2. a bearer token must be valid (else 401); a user token is enough when accounts are
        //    configured, a guest token when nothing is; with only an API key, a guest token is
        //    no credential and the key decides (LightRAG's fix for GHSA-f4vv-55c2-5789)
        if let Some(token) = c.bearer {
            let claims = self.tokens.validate(token, now).map_err(|e| ApiError::Unauthorized(e.to_string()))?;
            // a managed account's token: the access store decides, per request (`authenticate`)
            if claims.is_managed() {
                return Ok(Some(claims));
            }
            let guests = self.api_key.is_none() && self.mode == AccessControl::Off;
            match (claims.role(), self.accounts_configured()) {
                (Role::User, true) if self.accounts.contains(&claims.sub) => return Ok(Some(claims)),
                // signed by us, but the account was removed from AUTH_ACCOUNTS since
                (Role::User, true) => {
                    return Err(ApiError::Unauthorized(format!(
                        "the account '{}' no longer exists. Please login again.",
                        claims.sub
                    )));
                }
                (Role::Guest, false) if guests => return Ok(Some(claims)),
                (Role::Guest, false) if self.mode == AccessControl::Off => {}
                _ => return Err(ApiError::Unauthorized("Invalid token. Please login again.".into())),
            }
        }
        // 3. nothing configured (and guests allowed: not with ACCESS_CONTROL=roles)
        if !self.accounts_configured() && self.api_key.is_none() && self.mode == AccessControl::Off {
            return Ok(None);
        }
        // 4. the right API key
        if let (Some(key), Some(given)) = (&self.api_key, c.api_key)
            && same_secret(given, key.expose().as_bytes())
        {
            return Ok(None);
        }
        // 5. refused
        Err(if self.accounts_configured() {
            ApiError::Unauthorized("No credentials provided. Please login.".into())
        } else if c.api_key.is_some() {
            ApiError::Forbidden("Invalid API Key".into())
        } else if self.api_key.is_some() {
            ApiError::Forbidden("API Key required".into())
        } else {
            ApiError::Forbidden("API Key required or login authentication required.".into())
        })
    }
}

/// Marks a request let through only because its path is open or whitelisted while the server
/// requires credentials: it may not open workspaces ([`crate::workspace::Ws`]).
#[derive(Debug, Clone, Copy)]
pub struct AnonymousAccess;

/// The `AUTH_ACCOUNTS` login a request was let through as (by its bearer token); absent for an
/// API key, a guest token or an open path. Per-client limits count by it ([`crate::mcp`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account(pub String);

impl Auth {
    /// Whether credentials are required somewhere (an API key or accounts are configured, or
    /// `ACCESS_CONTROL=roles`).
    pub fn restricted(&self) -> bool {
        self.api_key.is_some() || self.accounts_configured() || self.mode == AccessControl::Roles
    }

    /// `ACCESS_CONTROL`.
    pub fn mode(&self) -> AccessControl {
        self.mode
    }

    /// Whether `c` carries `LIGHTRAG_API_KEY`.
    pub fn is_master(&self, c: &Credentials<'_>) -> bool {
        matches!((&self.api_key, c.api_key), (Some(key), Some(given)) if same_secret(given, key.expose().as_bytes()))
    }

    /// The key of the access store `c` presents (`X-API-Key: lrk_…` or `Authorization: Bearer
    /// lrk_…`), unless it is `LIGHTRAG_API_KEY` itself.
    pub fn store_key<'a>(&self, c: &Credentials<'a>) -> Option<&'a str> {
        if self.is_master(c) {
            return None;
        }
        let header = c.api_key.and_then(|k| std::str::from_utf8(k).ok()).filter(|k| rules::keys::is_store_key(k));
        header.or(c.bearer.filter(|b| rules::keys::is_store_key(b)))
    }

    /// Whether `path` is open without credentials ([`OPEN_PATHS`] or `WHITELIST_PATHS`).
    pub fn path_is_open(&self, path: &str) -> bool {
        OPEN_PATHS.iter().any(|p| path_matches(path, p)) || is_whitelisted(path, &self.whitelist)
    }

    /// Whether `c` passes only thanks to its path: the server is [`Auth::restricted`], the path
    /// is open, and the same credentials would be refused on a protected path. (On a protected
    /// path the credentials were just checked, so nothing is validated twice.)
    pub fn admits_only_by_path(&self, c: &Credentials<'_>, now: u64) -> bool {
        self.restricted() && self.path_is_open(c.path) && self.decide(&Credentials { path: "", ..*c }, now).is_err()
    }
}

/// Server settings from `extra` over a minimal configuration (unit tests).
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn test_settings(extra: &[(&str, &str)]) -> ServerSettings {
    let base = [
        ("LLM_BINDING", "none"),
        ("EMBEDDING_BINDING", "openai"),
        ("EMBEDDING_BINDING_HOST", "http://127.0.0.1:9"),
        ("EMBEDDING_MODEL", "unused"),
        ("EMBEDDING_DIM", "8"),
    ];
    let env = base.iter().chain(extra).map(|(k, v)| (k.to_string(), v.to_string()));
    let raw = lightrag_config::RawConfig::from_sources(env, None, None, std::collections::BTreeMap::new()).unwrap();
    lightrag_config::Settings::from_raw(&raw).unwrap().server
}

/// Middleware: lets a request through or answers 401/403 ([`Auth::decide`]); adds
/// `X-New-Token` to the response when the request's token is due for renewal. Then resolves the
/// [`Caller`] (principal and rights, read from the access store on every request: a revoked key or
/// a removed account fails at once) and applies the route table ([`crate::access::route_table`]):
/// a workspace route needs its action in the request's workspace (404 without a role there, 403
/// with one too low), an owner route an owner; a protected route missing from the table is
/// refused to all but owners.
pub async fn authenticate(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let auth = state.auth();
    let now = unix_now();
    let credentials = Credentials::of(&request);
    let open = auth.path_is_open(credentials.path);
    let mut new_token = None;
    let mut anonymous = false;
    let principal = match auth.store_key(&credentials) {
        Some(key) => match key_principal(&state, key).await {
            Ok(Some(principal)) => principal,
            Ok(None) if open => {
                anonymous = auth.restricted();
                Principal::Guest
            }
            Ok(None) => return ApiError::Unauthorized(INVALID_KEY.into()).into_response(),
            Err(e) => return e.into_response(),
        },
        None => {
            let claims = match auth.decide(&credentials, now) {
                Err(e) => return e.into_response(),
                Ok(Some(claims)) => {
                    new_token = auth.renewer.renew(&auth.tokens, &claims, credentials.path, now, Instant::now());
                    Some(claims)
                }
                // on an open path the credentials were not looked at: who are they?
                Ok(None) if open => auth.decide(&Credentials { path: "", ..credentials }, now).ok().flatten(),
                Ok(None) => None,
            };
            anonymous = auth.admits_only_by_path(&credentials, now);
            match claims {
                Some(c) if c.is_managed() => Principal::Account(c.sub),
                Some(c) if c.role() == Role::User => Principal::Login(c.sub),
                Some(_) => Principal::Guest,
                None if auth.is_master(&credentials) => Principal::Master,
                None => Principal::Guest,
            }
        }
    };
    let rights = match rights_now(&state, &principal, now).await {
        Ok(rights) => rights,
        Err(e) => return e.into_response(),
    };
    if let Rights::Refused(why) = &rights
        && !open
        && !matches!(principal, Principal::Guest)
    {
        return ApiError::Unauthorized(format!("{why}. Please login again or use another key.")).into_response();
    }
    let caller = Caller { principal, rights };
    if let Err(e) = check_route(&state, &request, &caller, open) {
        return with_caller(e.into_response(), &caller);
    }
    if anonymous {
        request.extensions_mut().insert(AnonymousAccess);
    }
    if let Principal::Login(name) | Principal::Account(name) = &caller.principal {
        request.extensions_mut().insert(Account(name.clone()));
    }
    request.extensions_mut().insert(caller.clone());
    let mut response = next.run(request).await;
    if let Some(value) = new_token.and_then(|t| HeaderValue::from_str(&t).ok()) {
        response.headers_mut().insert(NEW_TOKEN_HEADER, value);
    }
    with_caller(response, &caller)
}

/// The answer to a key of the access store that is unknown or does not match.
pub const INVALID_KEY: &str = "Invalid API key: unknown, revoked or expired";

/// The principal of a store key, if it is one.
async fn key_principal(state: &AppState, key: &str) -> Result<Option<Principal>, ApiError> {
    let store = state.access_store().await?;
    rules::key_principal(store.as_ref(), key)
        .await
        .map_err(|e| ApiError::Unavailable(format!("the access store failed: {e}"), 5))
}

/// The rights of `principal`, from the access store when they depend on it.
async fn rights_now(state: &AppState, principal: &Principal, now: u64) -> Result<Rights, ApiError> {
    let mode = state.auth().mode();
    if let Some(rights) = rules::fixed_rights(principal, mode) {
        return Ok(rights);
    }
    let store = state.access_store().await?;
    let now = i64::try_from(now).unwrap_or(i64::MAX);
    rules::rights_of(store.as_ref(), principal, mode, now)
        .await
        .map_err(|e| ApiError::Unavailable(format!("the access store failed: {e}"), 5))
}

/// The route table's verdict on `request` for `caller`.
fn check_route(state: &AppState, request: &Request, caller: &Caller, open: bool) -> Result<(), ApiError> {
    let Some(rule) = route_table::lookup(request.method().as_str(), request.uri().path()) else {
        // no such route (the router answers 404/405), or a route missing from the table
        if open || caller.rights.workspaces().is_none() {
            return Ok(());
        }
        return Err(ApiError::Forbidden("this route has no access rule; only owners may use it".into()));
    };
    let workspace = || {
        let headers = request.headers();
        match headers.get(crate::workspace::WORKSPACE_HEADER).and_then(|v| v.to_str().ok()).map(str::trim) {
            Some(name) if !name.is_empty() => name.to_string(),
            _ => state.settings().workspace.clone(),
        }
    };
    match rule.class {
        Class::Open | Class::Caller | Class::Mcp => Ok(()),
        Class::EveryWorkspace if caller.rights.workspaces().is_none() => Ok(()),
        Class::EveryWorkspace => Err(ApiError::Forbidden(
            "this shows every workspace; it needs rights in all of them (an owner, the server's API key, or a login \
             with ACCESS_CONTROL=off)"
                .into(),
        )),
        Class::Health => {
            let name = workspace();
            if name == state.settings().workspace { Ok(()) } else { caller.check(&name, Action::Read) }
        }
        Class::Do(action) => caller.check(&workspace(), action),
    }
}

/// `response` marked with who made the request (for the audit log).
fn with_caller(mut response: Response, caller: &Caller) -> Response {
    response.extensions_mut().insert(AuditedAs(caller.principal.label()));
    response
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use axum::http::StatusCode;

    use super::*;

    fn auth(extra: &[(&str, &str)]) -> Auth {
        Auth::new(&test_settings(extra)).unwrap()
    }

    fn creds<'a>(path: &'a str, bearer: Option<&'a str>, key: Option<&'a str>) -> Credentials<'a> {
        Credentials { path, bearer, api_key: key.map(str::as_bytes) }
    }

    /// `(status, detail)` of a refusal, `(200, "")` when let through.
    fn outcome(a: &Auth, c: Credentials<'_>) -> (StatusCode, String) {
        match a.decide(&c, unix_now()) {
            Ok(_) => (StatusCode::OK, String::new()),
            Err(e) => (e.status(), e.flat_message()),
        }
    }

    #[test]
    fn whitelist_matches_exact_paths_and_prefixes() {
        let patterns = vec!["/health".to_string(), "/api/*".to_string()];
        assert!(is_whitelisted("/health", &patterns));
        assert!(is_whitelisted("/api/tags", &patterns));
        assert!(is_whitelisted("/api", &patterns));
        assert!(!is_whitelisted("/apix", &patterns));
        assert!(!is_whitelisted("/health/x", &patterns));
        assert!(!is_whitelisted("/query", &patterns));
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"abcabc", b"abc"), "a repetition of the secret is not the secret");
        assert!(!same_secret(b"", b"abc"));
        assert!(same_secret(b"", b""));
    }

    #[test]
    fn api_key_only() {
        let a = auth(&[("LIGHTRAG_API_KEY", "k")]);
        assert_eq!(outcome(&a, creds("/query", None, None)), (StatusCode::FORBIDDEN, "API Key required".into()));
        assert_eq!(outcome(&a, creds("/query", None, Some("x"))), (StatusCode::FORBIDDEN, "Invalid API Key".into()));
        assert_eq!(outcome(&a, creds("/query", None, Some("k"))).0, StatusCode::OK);
        assert_eq!(outcome(&a, creds("/health", None, None)).0, StatusCode::OK);
        for open in [
            "/login",
            "/auth-status",
            "/docs",
            "/docs/oauth2-redirect",
            "/openapi.json",
            "/webui",
            "/webui/",
            "/webui/assets/index-1a2b.js",
            "/",
        ] {
            assert_eq!(outcome(&a, creds(open, None, None)).0, StatusCode::OK, "{open}");
        }
        assert_eq!(outcome(&a, creds("/docsx", None, None)).0, StatusCode::FORBIDDEN);
        assert_eq!(outcome(&a, creds("/webuix", None, None)).0, StatusCode::FORBIDDEN);
        assert_eq!(outcome(&a, creds("/workspaces", None, None)).0, StatusCode::FORBIDDEN);
        // a guest token does not replace the key
        let guest = a.tokens().issue(GUEST_USER, Role::Guest, unix_now()).unwrap();
        assert_eq!(
            outcome(&a, creds("/query", Some(&guest), None)),
            (StatusCode::FORBIDDEN, "API Key required".into())
        );
        assert_eq!(outcome(&a, creds("/query", Some(&guest), Some("x"))).1, "Invalid API Key");
        assert_eq!(outcome(&a, creds("/query", Some(&guest), Some("k"))).0, StatusCode::OK);
        // a bad token is a 401 even next to the right key
        let reply = outcome(&a, creds("/query", Some("garbage"), Some("k")));
        assert_eq!(reply, (StatusCode::UNAUTHORIZED, "Invalid token".into()));
    }

    #[test]
    fn accounts_configured() {
        let a = auth(&[("AUTH_ACCOUNTS", "alice:pw"), ("TOKEN_SECRET", "s"), ("LIGHTRAG_API_KEY", "k")]);
        let unauthorized = |m: &str| (StatusCode::UNAUTHORIZED, m.to_string());
        assert_eq!(outcome(&a, creds("/query", None, None)), unauthorized("No credentials provided. Please login."));
        assert_eq!(
            outcome(&a, creds("/query", None, Some("x"))),
            unauthorized("No credentials provided. Please login.")
        );
        assert_eq!(outcome(&a, creds("/query", None, Some("k"))).0, StatusCode::OK);
        let now = unix_now();
        let user = a.tokens().issue("alice", Role::User, now).unwrap();
        let guest = a.tokens().issue(GUEST_USER, Role::Guest, now).unwrap();
        let claims = a.decide(&creds("/query", Some(&user), None), now).unwrap().unwrap();
        assert_eq!(claims.sub, "alice");
        // regression: a token of an account removed from AUTH_ACCOUNTS kept working
        let removed = a.tokens().issue("mallory", Role::User, now).unwrap();
        assert_eq!(
            outcome(&a, creds("/query", Some(&removed), None)),
            unauthorized("the account 'mallory' no longer exists. Please login again.")
        );
        assert_eq!(
            outcome(&a, creds("/query", Some(&guest), None)),
            unauthorized("Invalid token. Please login again.")
        );
        let expired = a
            .tokens()
            .sign(&Claims {
                sub: "alice".into(),
                exp: now - 10,
                role: "user".into(),
                metadata: Default::default(),
                auth_time: None,
            })
            .unwrap();
        assert_eq!(outcome(&a, creds("/query", Some(&expired), None)), unauthorized("Token expired"));
    }

    #[test]
    fn guest_mode_rejects_user_tokens() {
        let a = auth(&[("TOKEN_SECRET", "s")]);
        assert_eq!(outcome(&a, creds("/query", None, None)).0, StatusCode::OK);
        let guest = a.tokens().issue(GUEST_USER, Role::Guest, unix_now()).unwrap();
        assert_eq!(a.decide(&creds("/query", Some(&guest), None), unix_now()).unwrap().unwrap().sub, "guest");
        let user = a.tokens().issue("alice", Role::User, unix_now()).unwrap();
        let reply = outcome(&a, creds("/query", Some(&user), None));
        assert_eq!(reply, (StatusCode::UNAUTHORIZED, "Invalid token. Please login again.".into()));
    }

    #[test]
    fn settings_are_checked() {
        let build = |extra: &[(&str, &str)]| Auth::new(&test_settings(extra)).err().map(|e| e.to_string());
        let missing = build(&[("AUTH_ACCOUNTS", "a:b")]).unwrap();
        assert!(missing.contains("TOKEN_SECRET"), "{missing}");
        let default = build(&[("AUTH_ACCOUNTS", "a:b"), ("TOKEN_SECRET", "lightrag-jwt-default-secret-key!")]);
        assert!(default.unwrap().contains("TOKEN_SECRET"));
        assert!(build(&[("AUTH_ACCOUNTS", "a:b"), ("TOKEN_SECRET", "mine")]).is_none());
        assert!(build(&[("TOKEN_SECRET", "lightrag-jwt-default-secret-key!")]).is_none());
        assert!(build(&[]).is_none());
    }

    #[test]
    fn bearer_and_key_headers_are_read() {
        let request = axum::http::Request::builder()
            .uri("/query?x=1")
            .header("authorization", "bearer abc ")
            .header("x-api-key", "")
            .body(())
            .unwrap();
        let c = Credentials::of(&request);
        assert_eq!(c.path, "/query");
        assert_eq!(c.bearer, Some("abc"));
        assert_eq!(c.api_key, None);
        let basic = axum::http::Request::builder().header("authorization", "Basic abc").body(()).unwrap();
        assert_eq!(Credentials::of(&basic).bearer, None);
    }
}
