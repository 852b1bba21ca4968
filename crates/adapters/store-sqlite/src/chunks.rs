//! Chunks, per-chunk extraction records and doc links.

use std::collections::HashMap;

use lightrag_ports::{
    Chunk, ChunkExtraction, DocLinks, ExtractedEntity, ExtractedRelation, RelKey, StoreError, TextHit,
};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::codec::{db_err, from_json, in_order, json_col, query_in, to_json, unsigned};

/// The JSON body of an extraction row.
#[derive(Serialize, Deserialize)]
struct ExtractionBody {
    entities: Vec<ExtractedEntity>,
    relations: Vec<ExtractedRelation>,
    cache_keys: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    folded_relations: Vec<ExtractedRelation>,
}

/// Writes (replaces) a chunk. An upsert, not `INSERT OR REPLACE`: a replaced row would leave its
/// old text in the full-text index (the replace's delete fires no trigger).
pub(crate) fn put_chunk(conn: &Connection, c: &Chunk) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO chunks (id, doc_id, ord, tokens, content, file_path) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
         ON CONFLICT(id) DO UPDATE SET doc_id = excluded.doc_id, ord = excluded.ord, tokens = excluded.tokens, \
         content = excluded.content, file_path = excluded.file_path",
    )
    .and_then(|mut s| s.execute(params![c.id, c.doc_id, c.order, c.tokens, c.content, c.file_path]))
    .map_err(db_err)?;
    Ok(())
}

/// The FTS5 query matching any word of `terms`: their letter-and-digit runs, each quoted as an
/// FTS5 string (so nothing in them is query syntax), joined by `OR`; `None` for no words.
pub(crate) fn fts_any_word(terms: &[String]) -> Option<String> {
    let words = lightrag_ports::text_search_words(terms);
    let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// Up to `top_k` chunks matching any word of `terms`, by BM25 (FTS5's `bm25()`, negated so
/// that higher is better), ties by chunk id. The terms are cut into their letter-and-digit runs,
/// each quoted as an FTS5 string, so nothing in them is query syntax.
///
/// Ranked inside the full-text index first: a question of common words matches most chunks,
/// and joining every match to `chunks` before the cut cost as much as the ranking itself. The
/// index's rows come best first; only the first `top_k` (and any that tie with the last of them,
/// so that the tie still goes to the smaller chunk id) are looked up in `chunks`.
pub(crate) fn search_chunk_text(conn: &Connection, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError> {
    let Some(query) = fts_any_word(terms).filter(|_| top_k > 0) else {
        return Ok(Vec::new());
    };
    let mut ranked = conn
        .prepare_cached(
            "SELECT rowid, bm25(chunks_fts) AS score FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY score",
        )
        .map_err(db_err)?;
    let mut id_of = conn.prepare_cached("SELECT id FROM chunks WHERE rowid = ?1").map_err(db_err)?;
    let mut rows = ranked.query([query]).map_err(db_err)?;
    // (bm25, chunk id): bm25 is lower for better matches
    let mut hits: Vec<(f64, String)> = Vec::with_capacity(top_k);
    while let Some(row) = rows.next().map_err(db_err)? {
        let score: f64 = row.get(1).map_err(db_err)?;
        if hits.len() >= top_k && hits.last().is_some_and(|(last, _)| score > *last) {
            break;
        }
        let rowid: i64 = row.get(0).map_err(db_err)?;
        // an index row without its chunk (never left by the triggers) is skipped, as a join would
        if let Some(id) = id_of.query_row([rowid], |r| r.get::<_, String>(0)).optional().map_err(db_err)? {
            hits.push((score, id));
        }
    }
    // compared as SQLite compares numbers (-0.0 = 0.0); bm25 is never NaN
    hits.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal).then_with(|| a.1.cmp(&b.1)));
    hits.truncate(top_k);
    Ok(hits.into_iter().map(|(score, key)| TextHit { key, score: -(score as f32) }).collect())
}

/// Chunks by id in the order asked.
pub(crate) fn get_chunks(conn: &Connection, ids: &[String]) -> Result<Vec<Option<Chunk>>, StoreError> {
    let rows = query_in(
        conn,
        "SELECT id, doc_id, ord, tokens, content, file_path FROM chunks WHERE id IN ({in})",
        &[],
        ids,
        |r| {
            Ok(Chunk {
                id: r.get(0)?,
                doc_id: r.get(1)?,
                order: unsigned(r.get(2)?, "chunk order")? as u32,
                tokens: unsigned(r.get(3)?, "chunk tokens")? as u32,
                content: r.get(4)?,
                file_path: r.get(5)?,
            })
        },
    )?;
    let by_id: HashMap<String, Chunk> = rows.into_iter().map(|c| (c.id.clone(), c)).collect();
    Ok(in_order(ids, by_id))
}

/// Ids of a document's chunks.
pub(crate) fn chunk_ids_of(conn: &Connection, doc_id: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM chunks WHERE doc_id = ?1").map_err(db_err)?;
    let rows = stmt.query_map([doc_id], |r| r.get(0)).map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(db_err)
}

/// Up to `limit` `(chunk id, doc id)` after the chunk id `after`, by chunk id (bytewise).
pub(crate) fn chunk_keys_page(
    conn: &Connection,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<(String, String)>, StoreError> {
    let mut stmt = conn
        .prepare_cached("SELECT id, doc_id FROM chunks WHERE ?1 IS NULL OR id > ?1 ORDER BY id LIMIT ?2")
        .map_err(db_err)?;
    let rows = stmt
        .query_map(rusqlite::params![after, crate::codec::to_i64(limit as u64)], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(db_err)?;
    rows.collect::<Result<_, _>>().map_err(db_err)
}

/// Writes (replaces) an extraction record.
pub(crate) fn put_extraction(conn: &Connection, x: &ChunkExtraction) -> Result<(), StoreError> {
    let body = ExtractionBody {
        entities: x.entities.clone(),
        relations: x.relations.clone(),
        cache_keys: x.cache_keys.clone(),
        folded_relations: x.folded_relations.clone(),
    };
    let body = to_json(&body)?;
    conn.prepare_cached(
        "INSERT OR REPLACE INTO extractions (chunk_id, doc_id, body, created_at) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![x.chunk_id, x.doc_id, body, x.created_at]))
    .map_err(db_err)?;
    Ok(())
}

/// Extraction records of the given chunks, by `created_at` then chunk id.
pub(crate) fn get_extractions(conn: &Connection, chunk_ids: &[String]) -> Result<Vec<ChunkExtraction>, StoreError> {
    let mut out = query_in(
        conn,
        "SELECT chunk_id, doc_id, body, created_at FROM extractions WHERE chunk_id IN ({in})",
        &[],
        chunk_ids,
        |r| {
            let body: String = r.get(2)?;
            let body: ExtractionBody = json_col(&body, "extraction body")?;
            Ok(ChunkExtraction {
                chunk_id: r.get(0)?,
                doc_id: r.get(1)?,
                entities: body.entities,
                relations: body.relations,
                cache_keys: body.cache_keys,
                created_at: r.get(3)?,
                folded_relations: body.folded_relations,
            })
        },
    )?;
    out.sort_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
    out.dedup_by(|a, b| a.chunk_id == b.chunk_id);
    Ok(out)
}

/// Writes (replaces) a document's links.
pub(crate) fn put_links(conn: &Connection, l: &DocLinks) -> Result<(), StoreError> {
    let (entities, relations) = (to_json(&l.entities)?, to_json(&l.relations)?);
    conn.prepare_cached("INSERT OR REPLACE INTO doc_links (doc_id, entities, relations) VALUES (?1, ?2, ?3)")
        .and_then(|mut s| s.execute(params![l.doc_id, entities, relations]))
        .map_err(db_err)?;
    Ok(())
}

/// A document's links.
pub(crate) fn get_links(conn: &Connection, doc_id: &str) -> Result<Option<DocLinks>, StoreError> {
    let row: Option<(String, String)> = conn
        .prepare_cached("SELECT entities, relations FROM doc_links WHERE doc_id = ?1")
        .and_then(|mut s| s.query_row([doc_id], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .map_err(db_err)?;
    match row {
        None => Ok(None),
        Some((entities, relations)) => {
            let relations: Vec<RelKey> = from_json(&relations, "doc link relations")?;
            Ok(Some(DocLinks {
                doc_id: doc_id.to_string(),
                entities: from_json(&entities, "doc link entities")?,
                relations,
            }))
        }
    }
}
