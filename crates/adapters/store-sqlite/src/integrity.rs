//! SQLite's own integrity checks, for `lightrag check`.

use lightrag_ports::StoreError;
use rusqlite::Connection;

use crate::codec::db_err;

/// What `PRAGMA integrity_check` and `PRAGMA foreign_key_check` report, one line per problem
/// (empty when the file is sound).
pub(crate) fn check(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut problems = Vec::new();
    let mut stmt = conn.prepare("PRAGMA integrity_check").map_err(db_err)?;
    let lines = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(db_err)?;
    for line in lines {
        let line = line.map_err(db_err)?;
        if line != "ok" {
            problems.push(format!("integrity_check: {line}"));
        }
    }
    // (table, rowid, referenced table, foreign key index) per row that breaks a foreign key
    let mut stmt = conn.prepare("PRAGMA foreign_key_check").map_err(db_err)?;
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<i64>>(1)?, r.get::<_, String>(2)?)))
        .map_err(db_err)?;
    for row in rows {
        let (table, rowid, parent) = row.map_err(db_err)?;
        let rowid = rowid.map(|r| r.to_string()).unwrap_or_else(|| "?".into());
        problems.push(format!("foreign_key_check: row {rowid} of {table} refers to a missing row of {parent}"));
    }
    Ok(problems)
}
