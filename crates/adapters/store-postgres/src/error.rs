//! Driver errors as store errors that say what to do next, and which failures are worth retrying.

use lightrag_ports::StoreError;

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
    match (&e, code.as_deref()) {
        (_, Some("40P01" | "40001")) => StoreError::Conflict(format!("{TRANSIENT}: {e} (retry)")),
        (_, Some("22021" | "22P05")) => StoreError::Invalid(format!(
            "PostgreSQL cannot store this text ({e}); it holds a NUL character or an invalid escape — remove it \
             from the input"
        )),
        (_, Some("28P01" | "28000")) => StoreError::Backend(format!(
            "PostgreSQL refused the login: {e}; check POSTGRES_USER / POSTGRES_PASSWORD (or the user and password \
             in DATABASE_URL)"
        )),
        (_, Some("3D000")) => StoreError::Backend(format!(
            "{e}; create the database (CREATE DATABASE …) or point POSTGRES_DATABASE / DATABASE_URL at an existing one"
        )),
        (_, Some("42P01" | "42883")) => StoreError::Corrupt(format!(
            "{e}; the lightrag-rs tables are missing or older than this build — run `lightrag migrate`"
        )),
        // disk_full: the PostgreSQL server's disk, not ours; the documents resume like on a full local disk
        (_, Some("53100")) => StoreError::Full(format!("PostgreSQL: {e}")),
        (_, Some("53300")) => StoreError::Backend(format!(
            "{e}; the server has no free connection — lower POSTGRES_MAX_CONNECTIONS or raise max_connections \
             on the server"
        )),
        (sqlx::Error::PoolTimedOut, _) => StoreError::Backend(
            "no PostgreSQL connection could be opened or became free in time: is the server running and \
             reachable (set DATABASE_URL or POSTGRES_HOST / POSTGRES_PORT)? If it is, every pooled connection \
             is busy: raise POSTGRES_MAX_CONNECTIONS"
                .to_string(),
        ),
        (sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::PoolClosed, _) => StoreError::Backend(format!(
            "cannot reach PostgreSQL: {e}; is the server running and reachable? (set DATABASE_URL or \
             POSTGRES_HOST / POSTGRES_PORT)"
        )),
        (sqlx::Error::Configuration(_), _) => {
            StoreError::Invalid(format!("bad PostgreSQL connection settings: {e} (check DATABASE_URL / POSTGRES_*)"))
        }
        (sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) | sqlx::Error::ColumnNotFound(_), _) => {
            StoreError::Corrupt(format!("unreadable row: {e}; the table was changed outside lightrag-rs"))
        }
        _ => StoreError::Backend(e.to_string()),
    }
}

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
