//! [`ServerSettings`]: what the REST server reads (`HOST`, `PORT`, auth, web UI…). Parsed and
//! validated at start-up like everything else, so a bad value fails before anything runs.

use std::path::PathBuf;

use crate::error::ConfigError;
use crate::parse::Reader;
use crate::secret::Secret;

type Result<T> = std::result::Result<T, ConfigError>;

/// Log verbosity (`LOG_LEVEL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    /// `DEBUG`.
    Debug,
    /// `INFO` (default).
    Info,
    /// `WARNING` (or `WARN`).
    Warning,
    /// `ERROR`.
    Error,
    /// `CRITICAL`.
    Critical,
}

impl LogLevel {
    /// The closest `tracing` filter directive (`debug`, `info`, `warn`, `error`).
    pub fn as_filter(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warning => "warn",
            LogLevel::Error | LogLevel::Critical => "error",
        }
    }
}

/// How log lines are written (`LOG_FORMAT`, ours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// `text` (default): `key=value` lines, coloured on a terminal.
    Text,
    /// `json`: one JSON object per line, with the request's span fields (`request_id`, route).
    Json,
}

/// JWT signing algorithm (`JWT_ALGORITHM`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JwtAlgorithm {
    /// HMAC-SHA256 (default).
    Hs256,
    /// HMAC-SHA384.
    Hs384,
    /// HMAC-SHA512.
    Hs512,
}

/// Who is held to the grants of the access store (`ACCESS_CONTROL`, ours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessControl {
    /// `off` (default): `AUTH_ACCOUNTS` logins and guests reach every workspace with every right,
    /// as in LightRAG; API keys and accounts of the access store get only their grants.
    Off,
    /// `roles`: every login gets only its grants, guests are refused.
    Roles,
}

/// One login from `AUTH_ACCOUNTS` (`user:password,user2:password2`).
#[derive(Debug, Clone, PartialEq)]
pub struct AuthAccount {
    /// User name.
    pub username: String,
    /// Password.
    pub password: Secret,
}

/// REST server settings (LightRAG's names and defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSettings {
    /// `HOST` (0.0.0.0).
    pub host: String,
    /// `PORT` (9621).
    pub port: u16,
    /// `INPUT_DIR` (./inputs).
    pub input_dir: PathBuf,
    /// `CORS_ORIGINS` (`*`), comma-separated.
    pub cors_origins: Vec<String>,
    /// `MAX_UPLOAD_SIZE` in bytes (104857600); `None` = no limit (`0`, a negative number or
    /// `None`, as in LightRAG).
    pub max_upload_size: Option<u64>,
    /// `MAX_JSON_BODY_SIZE` in bytes (1048576): the body limit of every route that does not carry
    /// documents (queries, graph edits, logins, the Ollama API…); those that do
    /// (`/documents/upload`, `/documents/text`, `/documents/texts`) have `MAX_UPLOAD_SIZE`. Ours.
    pub max_json_body_size: u64,
    /// Bounds on the work one request or connection may cause (ours, except `TIMEOUT`).
    pub limits: RequestLimits,
    /// `LIGHTRAG_API_PREFIX` (""), normalised to `/prefix` without a trailing slash.
    pub api_prefix: String,
    /// `SSL` (false).
    pub ssl: bool,
    /// `SSL_CERTFILE`.
    pub ssl_certfile: Option<PathBuf>,
    /// `SSL_KEYFILE`.
    pub ssl_keyfile: Option<PathBuf>,
    /// `WEBUI_TITLE`.
    pub webui_title: Option<String>,
    /// `WEBUI_DESCRIPTION`.
    pub webui_description: Option<String>,
    /// `ENABLE_API_DOCS` (true): serve `/docs`, `/redoc` and `/openapi.json`.
    pub enable_api_docs: bool,
    /// `ENABLE_AI_CONTENT_NOTICE` (false): the web UI labels machine-written answers (reported
    /// by `/health`).
    pub enable_ai_content_notice: bool,
    /// `OLLAMA_EMULATING_MODEL_NAME` (lightrag).
    pub ollama_model_name: String,
    /// `OLLAMA_EMULATING_MODEL_TAG` (latest).
    pub ollama_model_tag: String,
    /// `MAX_GRAPH_NODES` (1000).
    pub max_graph_nodes: usize,
    /// `MAX_WORKSPACES` (100): how many workspaces the server opens; a request naming a new one
    /// beyond this is refused (the `LIGHTRAG-WORKSPACE` header cannot fill the disk). Ours, not
    /// LightRAG's.
    pub max_workspaces: usize,
    /// `LOG_LEVEL` (INFO).
    pub log_level: LogLevel,
    /// `LOG_FORMAT` (`text`): `json` writes one JSON object per log line. Ours.
    pub log_format: LogFormat,
    /// `LIGHTRAG_API_KEY`.
    pub api_key: Option<Secret>,
    /// `AUTH_ACCOUNTS`.
    pub auth_accounts: Vec<AuthAccount>,
    /// `TOKEN_SECRET`.
    pub token_secret: Option<Secret>,
    /// `TOKEN_EXPIRE_HOURS` (48).
    pub token_expire_hours: f64,
    /// `GUEST_TOKEN_EXPIRE_HOURS` (24).
    pub guest_token_expire_hours: f64,
    /// `TOKEN_MAX_LIFETIME_HOURS` (168): how long after a login its token may be renewed
    /// (`X-New-Token`); then the user logs in again. Ours, not LightRAG's (its renewal has no end).
    pub token_max_lifetime_hours: f64,
    /// `JWT_ALGORITHM` (HS256).
    pub jwt_algorithm: JwtAlgorithm,
    /// `TOKEN_AUTO_RENEW` (true).
    pub token_auto_renew: bool,
    /// `TOKEN_RENEW_THRESHOLD` (0.5), a fraction of the token lifetime.
    pub token_renew_threshold: f64,
    /// `WHITELIST_PATHS` (/health,/api/*).
    pub whitelist_paths: Vec<String>,
    /// `ACCESS_CONTROL` (`off`): whether `AUTH_ACCOUNTS` logins and guests are held to their
    /// grants (`roles`) or reach every workspace as in LightRAG (`off`). Ours.
    pub access_control: AccessControl,
    /// `AUDIT_RETENTION_DAYS` (90): how long the audit log keeps its entries. Ours.
    pub audit_retention_days: u64,
    /// `IMPORT_ALLOWED_DIRS` (default: `WORKING_DIR`), comma-separated: the folders below which
    /// `POST /admin/import-lightrag` may read a LightRAG working directory.
    pub import_allowed_dirs: Vec<PathBuf>,
}

/// How long a request may take, how many run at once, how many connections stay open and for
/// how long (`TIMEOUT`, `MAX_CONCURRENT_REQUESTS`, `MAX_CONNECTIONS`,
/// `MAX_CONNECTIONS_PER_CLIENT`, `KEEPALIVE_TIMEOUT`, `REQUEST_HEADER_TIMEOUT`,
/// `LINGERING_CLOSE_TIMEOUT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestLimits {
    /// `TIMEOUT` (300 s, LightRAG's gunicorn worker timeout): how long a request may take to
    /// produce its response head; then 504. Uploads are bounded by their own idle timeout.
    pub timeout_secs: u64,
    /// `MAX_CONCURRENT_REQUESTS` (256): requests in progress at once (a streamed answer counts
    /// until its last byte); one more is answered 503 at once. `/health` is not counted.
    pub max_concurrent_requests: usize,
    /// `MAX_CONNECTIONS` (512): open client connections; at the cap a new one closes the
    /// connection idle the longest, or waits (the operating system queues it) while every
    /// connection has a request in progress.
    pub max_connections: usize,
    /// `MAX_CONNECTIONS_PER_CLIENT` (`None`: half of the connections the server allows, 256 by
    /// default): open connections of one client address (an IPv6 client: its /64); at the cap a
    /// new one closes that client's connection idle the longest, or is refused while each of them
    /// has a request in progress. At least the connections the server allows: no per-client cap.
    pub max_connections_per_client: Option<usize>,
    /// `KEEPALIVE_TIMEOUT` (5 s, uvicorn's): a connection with no request in progress for this
    /// long is closed.
    pub keepalive_timeout_secs: u64,
    /// `REQUEST_HEADER_TIMEOUT` (30 s): how long a client may take to send a request's headers
    /// (counted from the connection's opening or the end of the previous response).
    pub header_timeout_secs: u64,
    /// `LINGERING_CLOSE_TIMEOUT` (30 s): after answering a request whose body it did not read
    /// (a 413), how long the server goes on reading and discarding that body before it closes
    /// the connection, so a client that writes its whole body before reading gets the answer.
    pub lingering_close_secs: u64,
}

impl ServerSettings {
    /// `"{OLLAMA_EMULATING_MODEL_NAME}:{OLLAMA_EMULATING_MODEL_TAG}"`.
    pub fn ollama_model(&self) -> String {
        format!("{}:{}", self.ollama_model_name, self.ollama_model_tag)
    }
}

/// Comma-separated list, items trimmed, empty items dropped.
fn comma_list(s: &str) -> Vec<String> {
    s.split(',').map(str::trim).filter(|i| !i.is_empty()).map(str::to_string).collect()
}

/// `TIMEOUT`, `MAX_CONCURRENT_REQUESTS`, the connection bounds and their timeouts.
fn request_limits(r: Reader<'_>) -> Result<RequestLimits> {
    Ok(RequestLimits {
        timeout_secs: r.positive("TIMEOUT", 300u64)?,
        max_concurrent_requests: r.positive("MAX_CONCURRENT_REQUESTS", 256usize)?,
        max_connections: r.positive("MAX_CONNECTIONS", 512usize)?,
        max_connections_per_client: r.opt_with("MAX_CONNECTIONS_PER_CLIENT", "a positive integer", |s| {
            s.parse::<usize>().ok().filter(|n| *n > 0)
        })?,
        keepalive_timeout_secs: r.positive("KEEPALIVE_TIMEOUT", 5u64)?,
        header_timeout_secs: r.positive("REQUEST_HEADER_TIMEOUT", 30u64)?,
        lingering_close_secs: r.positive("LINGERING_CLOSE_TIMEOUT", 30u64)?,
    })
}

pub(crate) fn server_settings(r: Reader<'_>) -> Result<ServerSettings> {
    let ssl = r.boolean("SSL", false)?;
    let ssl_certfile = r.opt_string("SSL_CERTFILE").map(PathBuf::from);
    let ssl_keyfile = r.opt_string("SSL_KEYFILE").map(PathBuf::from);
    if ssl && (ssl_certfile.is_none() || ssl_keyfile.is_none()) {
        let key = if ssl_certfile.is_none() { "SSL_CERTFILE" } else { "SSL_KEYFILE" };
        return Err(ConfigError::Missing {
            key: key.into(),
            hint: format!("{} needs both SSL_CERTFILE and SSL_KEYFILE (PEM files)", r.describe("SSL", &ssl)),
        });
    }
    let api_prefix = r.with("LIGHTRAG_API_PREFIX", String::new(), "a URL path such as /lightrag", |s| {
        let trimmed = s.trim_matches('/');
        let ok = trimmed.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c));
        ok.then(|| if trimmed.is_empty() { String::new() } else { format!("/{trimmed}") })
    })?;
    let auth_accounts = r.with("AUTH_ACCOUNTS", Vec::new(), "a comma-separated list of user:password pairs", |s| {
        comma_list(s)
            .into_iter()
            .map(|pair| {
                let (user, pass) = pair.split_once(':')?;
                let user = user.trim();
                (!user.is_empty() && !pass.is_empty())
                    .then(|| AuthAccount { username: user.to_string(), password: Secret::new(pass) })
            })
            .collect::<Option<Vec<_>>>()
    })?;
    let non_empty_list = |s: &str| Some(comma_list(s)).filter(|v| !v.is_empty());
    Ok(ServerSettings {
        host: r.string("HOST", "0.0.0.0"),
        port: r.positive("PORT", 9621u16)?,
        input_dir: PathBuf::from(r.string("INPUT_DIR", "./inputs")),
        cors_origins: r.with(
            "CORS_ORIGINS",
            vec!["*".to_string()],
            "a comma-separated list of origins, or *",
            non_empty_list,
        )?,
        max_upload_size: r.with("MAX_UPLOAD_SIZE", Some(104_857_600u64), "a number of bytes (0 = no limit)", |s| {
            let s = s.trim();
            if s.eq_ignore_ascii_case("none") {
                return Some(None);
            }
            s.parse::<i64>().ok().map(|n| u64::try_from(n).ok().filter(|&n| n > 0))
        })?,
        max_json_body_size: r.positive("MAX_JSON_BODY_SIZE", 1_048_576u64)?,
        limits: request_limits(r)?,
        api_prefix,
        ssl,
        ssl_certfile,
        ssl_keyfile,
        webui_title: r.opt_string("WEBUI_TITLE"),
        webui_description: r.opt_string("WEBUI_DESCRIPTION"),
        enable_api_docs: r.boolean("ENABLE_API_DOCS", true)?,
        enable_ai_content_notice: r.boolean("ENABLE_AI_CONTENT_NOTICE", false)?,
        ollama_model_name: r.string("OLLAMA_EMULATING_MODEL_NAME", "lightrag"),
        ollama_model_tag: r.string("OLLAMA_EMULATING_MODEL_TAG", "latest"),
        max_graph_nodes: r.positive("MAX_GRAPH_NODES", 1000)?,
        max_workspaces: r.positive("MAX_WORKSPACES", 100)?,
        log_level: r.choice(
            "LOG_LEVEL",
            LogLevel::Info,
            &[
                ("DEBUG", LogLevel::Debug),
                ("INFO", LogLevel::Info),
                ("WARNING", LogLevel::Warning),
                ("WARN", LogLevel::Warning),
                ("ERROR", LogLevel::Error),
                ("CRITICAL", LogLevel::Critical),
            ],
        )?,
        log_format: r.choice("LOG_FORMAT", LogFormat::Text, &[("TEXT", LogFormat::Text), ("JSON", LogFormat::Json)])?,
        api_key: r.secret("LIGHTRAG_API_KEY"),
        auth_accounts,
        token_secret: r.secret("TOKEN_SECRET"),
        token_expire_hours: r.positive_float("TOKEN_EXPIRE_HOURS", 48.0)?,
        guest_token_expire_hours: r.positive_float("GUEST_TOKEN_EXPIRE_HOURS", 24.0)?,
        token_max_lifetime_hours: r.positive_float("TOKEN_MAX_LIFETIME_HOURS", 168.0)?,
        jwt_algorithm: r.choice(
            "JWT_ALGORITHM",
            JwtAlgorithm::Hs256,
            &[("HS256", JwtAlgorithm::Hs256), ("HS384", JwtAlgorithm::Hs384), ("HS512", JwtAlgorithm::Hs512)],
        )?,
        token_auto_renew: r.boolean("TOKEN_AUTO_RENEW", true)?,
        token_renew_threshold: r.float_in("TOKEN_RENEW_THRESHOLD", 0.5, 0.0, 1.0)?,
        whitelist_paths: r.with(
            "WHITELIST_PATHS",
            vec!["/health".to_string(), "/api/*".to_string()],
            "a comma-separated list of paths (a trailing * matches a prefix)",
            non_empty_list,
        )?,
        access_control: r.choice(
            "ACCESS_CONTROL",
            AccessControl::Off,
            &[("OFF", AccessControl::Off), ("ROLES", AccessControl::Roles)],
        )?,
        audit_retention_days: r.positive("AUDIT_RETENTION_DAYS", 90u64)?,
        import_allowed_dirs: r.with(
            "IMPORT_ALLOWED_DIRS",
            vec![PathBuf::from(r.string("WORKING_DIR", "./rag_storage"))],
            "a comma-separated list of folders",
            |s| Some(comma_list(s).into_iter().map(PathBuf::from).collect::<Vec<_>>()).filter(|v| !v.is_empty()),
        )?,
    })
}
