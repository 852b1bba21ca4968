//! Chunks, per-chunk extraction records and doc links.

use std::collections::HashMap;

use lightrag_ports::{
    Chunk, ChunkExtraction, DocLinks, ExtractedEntity, ExtractedRelation, RelKey, StoreError, TextHit,
};
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, Row};

use crate::error::{db_err, from_json, to_i64, to_json, unsigned};
use crate::graph::in_order;

/// The JSON body of an extraction row.
#[derive(Serialize, Deserialize)]
struct ExtractionBody {
    entities: Vec<ExtractedEntity>,
    relations: Vec<ExtractedRelation>,
    cache_keys: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    folded_relations: Vec<ExtractedRelation>,
}

/// The last of each id (a later write of the same id replaces an earlier one), in first-seen order.
fn last_of_each<T>(items: &[T], id: impl Fn(&T) -> &str) -> Vec<&T> {
    let mut last: HashMap<&str, usize> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        last.insert(id(item), i);
    }
    items.iter().enumerate().filter(|(i, item)| last.get(id(item)) == Some(i)).map(|(_, item)| item).collect()
}

/// Writes (replaces) chunks, in one statement.
pub(crate) async fn put_chunks(conn: &mut PgConnection, ws: &str, chunks: &[Chunk]) -> Result<(), StoreError> {
    if chunks.is_empty() {
        return Ok(());
    }
    let chunks = last_of_each(chunks, |c| &c.id);
    let ids: Vec<&str> = chunks.iter().map(|c| c.id.as_str()).collect();
    let docs: Vec<&str> = chunks.iter().map(|c| c.doc_id.as_str()).collect();
    let ords: Vec<i64> = chunks.iter().map(|c| i64::from(c.order)).collect();
    let tokens: Vec<i64> = chunks.iter().map(|c| i64::from(c.tokens)).collect();
    let contents: Vec<&str> = chunks.iter().map(|c| c.content.as_str()).collect();
    let files: Vec<&str> = chunks.iter().map(|c| c.file_path.as_str()).collect();
    sqlx::query(
        "INSERT INTO lrs_chunks (workspace, id, doc_id, ord, tokens, content, file_path) \
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[]) \
         ON CONFLICT (workspace, id) DO UPDATE SET doc_id = excluded.doc_id, ord = excluded.ord, \
         tokens = excluded.tokens, content = excluded.content, file_path = excluded.file_path",
    )
    .bind(ws)
    .bind(&ids)
    .bind(&docs)
    .bind(&ords)
    .bind(&tokens)
    .bind(&contents)
    .bind(&files)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// Chunks by id in the order asked.
pub(crate) async fn get_chunks(
    conn: &mut PgConnection,
    ws: &str,
    ids: &[String],
) -> Result<Vec<Option<Chunk>>, StoreError> {
    let rows = sqlx::query(
        "SELECT id, doc_id, ord, tokens, content, file_path FROM lrs_chunks WHERE workspace = $1 AND id = ANY($2)",
    )
    .bind(ws)
    .bind(ids)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    let mut by_id: HashMap<String, Chunk> = HashMap::with_capacity(rows.len());
    for r in rows {
        let chunk = Chunk {
            id: r.try_get(0).map_err(db_err)?,
            doc_id: r.try_get(1).map_err(db_err)?,
            order: u32::try_from(unsigned(r.try_get(2).map_err(db_err)?, "chunk order")?)
                .map_err(|_| StoreError::Corrupt("chunk order out of range".to_string()))?,
            tokens: u32::try_from(unsigned(r.try_get(3).map_err(db_err)?, "chunk tokens")?)
                .map_err(|_| StoreError::Corrupt("chunk tokens out of range".to_string()))?,
            content: r.try_get(4).map_err(db_err)?,
            file_path: r.try_get(5).map_err(db_err)?,
        };
        by_id.insert(chunk.id.clone(), chunk);
    }
    Ok(in_order(ids, by_id))
}

/// Ids of the chunks of some documents.
pub(crate) async fn chunk_ids_of(
    conn: &mut PgConnection,
    ws: &str,
    doc_ids: &[String],
) -> Result<Vec<String>, StoreError> {
    sqlx::query_scalar("SELECT id FROM lrs_chunks WHERE workspace = $1 AND doc_id = ANY($2) ORDER BY id")
        .bind(ws)
        .bind(doc_ids)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)
}

/// Writes (replaces) extraction records, in one statement.
pub(crate) async fn put_extractions(
    conn: &mut PgConnection,
    ws: &str,
    records: &[ChunkExtraction],
) -> Result<(), StoreError> {
    if records.is_empty() {
        return Ok(());
    }
    let records = last_of_each(records, |x| &x.chunk_id);
    let mut bodies = Vec::with_capacity(records.len());
    for x in &records {
        let body = ExtractionBody {
            entities: x.entities.clone(),
            relations: x.relations.clone(),
            cache_keys: x.cache_keys.clone(),
            folded_relations: x.folded_relations.clone(),
        };
        bodies.push(to_json(&body)?);
    }
    let ids: Vec<&str> = records.iter().map(|x| x.chunk_id.as_str()).collect();
    let docs: Vec<&str> = records.iter().map(|x| x.doc_id.as_str()).collect();
    let created: Vec<i64> = records.iter().map(|x| x.created_at).collect();
    sqlx::query(
        "INSERT INTO lrs_extractions (workspace, chunk_id, doc_id, body, created_at) \
         SELECT $1, c, d, b::jsonb, t FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) AS u(c, d, b, t) \
         ON CONFLICT (workspace, chunk_id) DO UPDATE SET doc_id = excluded.doc_id, body = excluded.body, \
         created_at = excluded.created_at",
    )
    .bind(ws)
    .bind(&ids)
    .bind(&docs)
    .bind(&bodies)
    .bind(&created)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// Extraction records of the given chunks, by `created_at` then chunk id.
pub(crate) async fn get_extractions(
    conn: &mut PgConnection,
    ws: &str,
    chunk_ids: &[String],
) -> Result<Vec<ChunkExtraction>, StoreError> {
    let rows = sqlx::query(
        "SELECT chunk_id, doc_id, body::text, created_at FROM lrs_extractions \
         WHERE workspace = $1 AND chunk_id = ANY($2) ORDER BY created_at, chunk_id",
    )
    .bind(ws)
    .bind(chunk_ids)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let body: String = r.try_get(2).map_err(db_err)?;
        let body: ExtractionBody = from_json(&body, "extraction body")?;
        out.push(ChunkExtraction {
            chunk_id: r.try_get(0).map_err(db_err)?,
            doc_id: r.try_get(1).map_err(db_err)?,
            entities: body.entities,
            relations: body.relations,
            cache_keys: body.cache_keys,
            created_at: r.try_get(3).map_err(db_err)?,
            folded_relations: body.folded_relations,
        });
    }
    Ok(out)
}

/// Writes (replaces) a document's links.
pub(crate) async fn put_links(conn: &mut PgConnection, ws: &str, l: &DocLinks) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO lrs_doc_links (workspace, doc_id, entities, relations) VALUES ($1, $2, $3, $4::jsonb) \
         ON CONFLICT (workspace, doc_id) DO UPDATE SET entities = excluded.entities, relations = excluded.relations",
    )
    .bind(ws)
    .bind(&l.doc_id)
    .bind(&l.entities)
    .bind(to_json(&l.relations)?)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// A document's links.
pub(crate) async fn get_links(conn: &mut PgConnection, ws: &str, doc_id: &str) -> Result<Option<DocLinks>, StoreError> {
    let row = sqlx::query("SELECT entities, relations::text FROM lrs_doc_links WHERE workspace = $1 AND doc_id = $2")
        .bind(ws)
        .bind(doc_id)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db_err)?;
    let Some(r) = row else { return Ok(None) };
    let relations: String = r.try_get(1).map_err(db_err)?;
    let relations: Vec<RelKey> = from_json(&relations, "doc link relations")?;
    Ok(Some(DocLinks { doc_id: doc_id.to_string(), entities: r.try_get(0).map_err(db_err)?, relations }))
}

/// Deletes everything of some documents except their chunks' list entries and vectors (the
/// caller handles those first).
pub(crate) async fn delete_documents(conn: &mut PgConnection, ws: &str, doc_ids: &[String]) -> Result<(), StoreError> {
    for sql in [
        "DELETE FROM lrs_chunks WHERE workspace = $1 AND doc_id = ANY($2)",
        "DELETE FROM lrs_extractions WHERE workspace = $1 AND doc_id = ANY($2)",
        "DELETE FROM lrs_documents WHERE workspace = $1 AND id = ANY($2)",
        "DELETE FROM lrs_doc_status WHERE workspace = $1 AND id = ANY($2)",
        "DELETE FROM lrs_doc_links WHERE workspace = $1 AND doc_id = ANY($2)",
        "DELETE FROM lrs_previous_versions WHERE workspace = $1 AND id = ANY($2)",
    ] {
        sqlx::query(sql).bind(ws).bind(doc_ids).execute(&mut *conn).await.map_err(db_err)?;
    }
    Ok(())
}

/// Deletes chunk rows and their extraction records by chunk id (their document stays).
pub(crate) async fn delete_chunks(conn: &mut PgConnection, ws: &str, ids: &[String]) -> Result<(), StoreError> {
    if ids.is_empty() {
        return Ok(());
    }
    for sql in [
        "DELETE FROM lrs_chunks WHERE workspace = $1 AND id = ANY($2)",
        "DELETE FROM lrs_extractions WHERE workspace = $1 AND chunk_id = ANY($2)",
    ] {
        sqlx::query(sql).bind(ws).bind(ids).execute(&mut *conn).await.map_err(db_err)?;
    }
    Ok(())
}

/// Up to `limit` `(chunk id, doc id)` after the chunk id `after`, by chunk id (bytewise: the
/// column's collation is "C").
pub(crate) async fn chunk_keys_page(
    conn: &mut PgConnection,
    ws: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<(String, String)>, StoreError> {
    sqlx::query_as(
        "SELECT id, doc_id FROM lrs_chunks WHERE workspace = $1 AND ($2::text IS NULL OR id > $2) \
         ORDER BY id LIMIT $3",
    )
    .bind(ws)
    .bind(after)
    .bind(to_i64(limit as u64))
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)
}

/// The `to_tsquery` text matching any word of `terms`: their letter-and-digit runs, lower-cased,
/// each quoted, joined by `|` (so no query syntax gets through); `None` for no words.
pub(crate) fn tsquery_any_word(terms: &[String]) -> Option<String> {
    let words = lightrag_ports::text_search_words(terms);
    (!words.is_empty()).then(|| words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" | "))
}

/// Up to `top_k` chunks matching any of `terms`, by `ts_rank_cd` over the `simple` text search
/// configuration. The terms are cut into their letter-and-digit runs and lower-cased before they
/// reach `to_tsquery`, so no query syntax gets through.
pub(crate) async fn search_chunk_text(
    conn: &mut PgConnection,
    ws: &str,
    terms: &[String],
    top_k: usize,
) -> Result<Vec<TextHit>, StoreError> {
    let Some(query) = tsquery_any_word(terms).filter(|_| top_k > 0) else {
        return Ok(Vec::new());
    };
    let rows = sqlx::query(
        "SELECT id, ts_rank_cd(tsv, q) AS score FROM lrs_chunks, to_tsquery('simple', $2) AS q \
         WHERE workspace = $1 AND tsv @@ q ORDER BY score DESC, id LIMIT $3",
    )
    .bind(ws)
    .bind(query)
    .bind(top_k as i64)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    rows.iter()
        .map(|r| Ok(TextHit { key: r.try_get("id").map_err(db_err)?, score: r.try_get("score").map_err(db_err)? }))
        .collect()
}
