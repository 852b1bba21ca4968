//! Driver errors as store errors that say what to do next, and which failures are worth retrying.
//! The driver's error stays the store error's `source()`.

use std::time::Duration;

use lightrag_ports::StoreError;

/// How long a caller should wait after a transient failure (no free pooled connection, a lost
/// connection, a server restarting or out of connections) before trying again.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(5);

/// SQLSTATE of a failed statement, if the server answered with one.
pub(crate) fn sqlstate(e: &sqlx::Error) -> Option<String> {
    match e {
        sqlx::Error::Database(db) => db.code().map(|c| c.into_owned()),
        _ => None,
    }
}

/// How the conflict of a transaction that failed only because of another transaction (deadlock,
/// serialisation failure) begins: running it again is safe and will likely succeed.
const TRANSIENT: &str = "PostgreSQL aborted the transaction because of a concurrent one";

/// Whether `e` is such a failure (see [`TRANSIENT`]).
pub(crate) fn is_transient(e: &StoreError) -> bool {
    matches!(e, StoreError::Conflict(m) if m.starts_with(TRANSIENT))
}

/// Maps a driver error to a store error.
pub(crate) fn db_err(e: sqlx::Error) -> StoreError {
    let code = sqlstate(&e);
    let message = match (&e, code.as_deref()) {
        (_, Some("40P01" | "40001")) => return StoreError::Conflict(format!("{TRANSIENT}: {e} (retry)")),
        (_, Some("22021" | "22P05")) => {
            return StoreError::Invalid(format!(
                "PostgreSQL cannot store this text ({e}); it holds a NUL character or an invalid escape — remove \
                 it from the input"
            ));
        }
        (_, Some("42P01" | "42883")) => {
            return StoreError::Corrupt(format!(
                "{e}; the lightrag-rs tables are missing or older than this build — run `lightrag migrate`"
            ));
        }
        // disk_full: the PostgreSQL server's disk, not ours; the documents resume like on a full local disk
        (_, Some("53100")) => return StoreError::Full(format!("PostgreSQL: {e}")),
        (sqlx::Error::Configuration(_), _) => {
            return StoreError::Invalid(format!(
                "bad PostgreSQL connection settings: {e} (check DATABASE_URL / POSTGRES_*)"
            ));
        }
        (sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) | sqlx::Error::ColumnNotFound(_), _) => {
            return StoreError::Corrupt(format!("unreadable row: {e}; the table was changed outside lightrag-rs"));
        }
        // too_many_connections: the server's own limit, shared with every other client
        (_, Some("53300")) => Transient(format!(
            "{e}; the server has no free connection — when it lasts, lower POSTGRES_MAX_CONNECTIONS (of every \
             process on this database) or raise max_connections on the server"
        )),
        // admin_shutdown, crash_shutdown, cannot_connect_now: a restart or a fail-over under way
        (_, Some("57P01" | "57P02" | "57P03")) => {
            Transient(format!("{e}; the PostgreSQL server is restarting or failing over"))
        }
        (_, Some(code)) if code.starts_with("08") => {
            Transient(format!("{e}; the connection to PostgreSQL was lost or refused"))
        }
        (sqlx::Error::PoolTimedOut, _) => Transient(
            "no PostgreSQL connection could be opened or became free within POSTGRES_ACQUIRE_TIMEOUT: is the \
             server running and reachable (set DATABASE_URL or POSTGRES_HOST / POSTGRES_PORT)? If it is, every \
             pooled connection is busy: when it lasts, raise POSTGRES_MAX_CONNECTIONS"
                .to_string(),
        ),
        (sqlx::Error::Io(_), _) => Transient(format!(
            "cannot reach PostgreSQL: {e}; is the server running and reachable? (set DATABASE_URL or \
             POSTGRES_HOST / POSTGRES_PORT)"
        )),
        (sqlx::Error::Tls(_) | sqlx::Error::PoolClosed, _) => Failed(format!(
            "cannot reach PostgreSQL: {e}; is the server running and reachable? (set DATABASE_URL or \
             POSTGRES_HOST / POSTGRES_PORT)"
        )),
        (_, Some("28P01" | "28000")) => Failed(format!(
            "PostgreSQL refused the login: {e}; check POSTGRES_USER / POSTGRES_PASSWORD (or the user and password \
             in DATABASE_URL)"
        )),
        (_, Some("3D000")) => Failed(format!(
            "{e}; create the database (CREATE DATABASE …) or point POSTGRES_DATABASE / DATABASE_URL at an existing one"
        )),
        _ => Failed(e.to_string()),
    };
    match message {
        Transient(message) => StoreError::unavailable(message, RETRY_AFTER, Some(Box::new(e))),
        Failed(message) => StoreError::backend_caused(message, e),
    }
}

/// A driver failure's message, by whether trying again later can help.
enum Outcome {
    /// The server or the pool cannot serve now ([`StoreError::Unavailable`]).
    Transient(String),
    /// Anything else ([`StoreError::Backend`]).
    Failed(String),
}

use Outcome::{Failed, Transient};

/// Parses a JSON column; a bad value means the row was edited outside lightrag-rs.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("unreadable {what} column: {e}")))
}

/// Serialises a value for a JSON column.
pub(crate) fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Invalid(format!("cannot serialise a record: {e}")))
}

/// A count or size as PostgreSQL's `bigint`.
pub(crate) fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A `bigint` column that must not be negative.
pub(crate) fn unsigned(v: i64, what: &str) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("negative {what} ({v})")))
}
