//! What PostgreSQL can tell about this store's soundness, for `lightrag check`: the database
//! keeps its own pages consistent, so what is left to look at is indexes left invalid (an index
//! build that failed halfway) and rows whose recorded dimension disagrees with their vector.

use lightrag_ports::StoreError;
use sqlx::PgConnection;

use crate::error::db_err;

/// One line per problem found (empty when none).
pub(crate) async fn check(conn: &mut PgConnection, ws: &str) -> Result<Vec<String>, StoreError> {
    let mut problems = Vec::new();
    let invalid: Vec<String> = sqlx::query_scalar(
        "SELECT c.relname::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
         WHERE NOT (i.indisvalid AND i.indisready) AND c.relname LIKE 'lrs\\_%' ORDER BY 1",
    )
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    for index in invalid {
        problems.push(format!("index {index} is invalid (a build failed halfway): REINDEX INDEX {index}"));
    }
    let (count, sample): (i64, Option<String>) = sqlx::query_as(
        "SELECT count(*), min(kind || ' ' || key) FROM lrs_vectors \
         WHERE workspace = $1 AND dim <> vector_dims(embedding)",
    )
    .bind(ws)
    .fetch_one(&mut *conn)
    .await
    .map_err(db_err)?;
    if count > 0 {
        problems.push(format!(
            "{count} vector row(s) record another dimension than their vector holds (first: {})",
            sample.unwrap_or_default()
        ));
    }
    Ok(problems)
}
