//! Query routes (§1.5): `POST /query` (JSON answer), `POST /query/stream` (NDJSON) and
//! `POST /query/data` (retrieval only; validation errors are 400 with its own body).
//!
//! Ours: with `include_trace: true` each adds the query's trace (scores and origins of the
//! records, usage, timings; `docs/api-extensions.md`) — a `trace` key, or a last NDJSON line.
//! Without it the responses are exactly LightRAG's.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use futures::StreamExt;
use lightrag_application::query;
use lightrag_engine::retrieval::query::{
    Answer, Metadata, QueryData, QueryFilter, QueryMode, QueryParam, QueryTrace, Reference, TraceFinisher,
};
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::errors::{ApiError, ApiJson, detail_item};
use crate::routes::query_data_body::{DataBody, QueryDataBody};
use crate::schemas::{
    ChatTurn, ErrorResponse, QueryDataError, QueryDataResponse, QueryFilterSchema, QueryModeName, QueryResponse,
    QueryStreamLine, ValidationErrorResponse,
};
use crate::state::AppState;
use crate::workspace::Ws;

/// Answer text when the LLM returned nothing.
pub const EMPTY_ANSWER: &str = "No relevant context found for the query.";

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/query", post(query))
        .route("/query/stream", post(query_stream))
        .route("/query/data", post(query_data))
}

/// LightRAG's `QueryRequest` (unknown fields are ignored).
#[derive(Debug, Deserialize, ToSchema)]
pub struct QueryRequest {
    /// The question (at least 3 characters; trimmed).
    #[schema(min_length = 3, example = "Who works at Acme Corporation?")]
    query: String,
    /// Retrieval mode (default `DEFAULT_QUERY_MODE`, `auto`; LightRAG's default is `mix`).
    #[schema(value_type = Option<QueryModeName>)]
    mode: Option<String>,
    /// Return the retrieved context instead of an answer.
    only_need_context: Option<bool>,
    /// Return the answer prompt instead of an answer.
    only_need_prompt: Option<bool>,
    /// Answer format, e.g. `Multiple Paragraphs`, `Bullet Points`.
    #[schema(min_length = 1)]
    response_type: Option<String>,
    /// Entities/relations to retrieve (default `TOP_K`).
    #[schema(minimum = 1)]
    top_k: Option<i64>,
    /// Chunks to keep (default `CHUNK_TOP_K`).
    #[schema(minimum = 1)]
    chunk_top_k: Option<i64>,
    /// Token budget of the entities section.
    #[schema(minimum = 1)]
    max_entity_tokens: Option<i64>,
    /// Token budget of the relations section.
    #[schema(minimum = 1)]
    max_relation_tokens: Option<i64>,
    /// Token budget of the whole prompt.
    #[schema(minimum = 1)]
    max_total_tokens: Option<i64>,
    /// High-level keywords (given keywords skip the LLM keyword extraction).
    #[serde(default)]
    hl_keywords: Vec<String>,
    /// Low-level keywords.
    #[serde(default)]
    ll_keywords: Vec<String>,
    /// Earlier turns, sent to the LLM with the answer prompt.
    #[schema(value_type = Option<Vec<ChatTurn>>)]
    conversation_history: Option<Vec<Value>>,
    /// Extra instructions for the answer.
    user_prompt: Option<String>,
    /// Rerank the chunks with the configured service (default `RERANK_BY_DEFAULT`).
    enable_rerank: Option<bool>,
    /// Include the sources (default true).
    include_references: Option<bool>,
    /// Add each source's chunk texts (default false).
    include_chunk_content: Option<bool>,
    /// `/query/stream` only: stream the answer (default true).
    stream: Option<bool>,
    /// Ours: how the chunk lists are merged, `round_robin` (LightRAG's) or `rrf` (reciprocal-rank
    /// fusion with the lexical channel); default `CHUNK_FUSION`.
    #[schema(value_type = Option<String>, example = "rrf")]
    chunk_fusion: Option<String>,
    /// Ours: add the query trace — scores and origins of the retrieved records, usage and
    /// timings (default false; without it the response is exactly LightRAG's).
    include_trace: Option<bool>,
    /// Ours: restrict retrieval to some documents (by id, file path glob, metadata, time).
    #[schema(value_type = Option<QueryFilterSchema>)]
    filter: Option<Value>,
    /// LightRAG's documented but never implemented doc-id filter: here the same as
    /// `filter.doc_ids`.
    ids: Option<Vec<String>>,
}

/// A validated query, with what the route does with its result.
struct Validated {
    query: String,
    param: QueryParam,
    include_references: bool,
    include_chunk_content: bool,
    include_trace: bool,
}

/// The request's `filter` as the engine takes it, with LightRAG's `ids` added to its document
/// ids; a filter that does not parse is a problem under `filter`. The use case checks it
/// ([`QueryFilter::validate`]: its caps and globs).
fn query_filter(filter: Option<Value>, ids: Option<Vec<String>>, problems: &mut Vec<Value>) -> Option<QueryFilter> {
    let mut out = match filter.filter(|v| !v.is_null()).map(serde_json::from_value::<QueryFilter>) {
        None => None,
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => {
            problems.push(detail_item(&["filter"], format!("Value error, {e}")));
            return None;
        }
    };
    if let Some(ids) = ids.filter(|ids| !ids.is_empty()) {
        out.get_or_insert_with(QueryFilter::default).doc_ids.extend(ids);
    }
    out
}

impl QueryRequest {
    /// Checks the request with the query use case's limits ([`lightrag_application::query`]);
    /// `default_mode` is the mode of a request that names none (`DEFAULT_QUERY_MODE`). Every
    /// problem is one 422 `detail` item.
    fn validate(self, default_mode: QueryMode) -> Result<Validated, ApiError> {
        let mut problems = Vec::new();
        let filter = query_filter(self.filter, self.ids, &mut problems);
        let include_references = self.include_references.unwrap_or(true);
        let request = query::QueryRequest {
            query: self.query,
            mode: self.mode,
            only_need_context: self.only_need_context.unwrap_or(false),
            only_need_prompt: self.only_need_prompt.unwrap_or(false),
            response_type: self.response_type,
            top_k: self.top_k,
            chunk_top_k: self.chunk_top_k,
            max_entity_tokens: self.max_entity_tokens,
            max_relation_tokens: self.max_relation_tokens,
            max_total_tokens: self.max_total_tokens,
            hl_keywords: self.hl_keywords,
            ll_keywords: self.ll_keywords,
            conversation_history: self.conversation_history.unwrap_or_default(),
            user_prompt: self.user_prompt,
            enable_rerank: self.enable_rerank,
            include_references: Some(include_references),
            chunk_fusion: self.chunk_fusion,
            use_llm_keywords: None,
            filter,
            stream: self.stream.unwrap_or(true),
        };
        let valid = match request.validate(default_mode) {
            Ok(valid) => valid,
            Err(e) => match ApiError::from(e) {
                ApiError::Validation(more) => {
                    problems.extend(more);
                    return Err(ApiError::Validation(problems));
                }
                other => return Err(other),
            },
        };
        if !problems.is_empty() {
            return Err(ApiError::Validation(problems));
        }
        Ok(Validated {
            query: valid.query,
            param: valid.param,
            include_references,
            include_chunk_content: self.include_chunk_content.unwrap_or(false),
            include_trace: self.include_trace.unwrap_or(false),
        })
    }
}

/// The reference list of a result, with each file's chunk texts when asked.
fn references(data: &QueryData, with_content: bool) -> Vec<Value> {
    let chunks = data.retrieved().map(|d| d.chunks.as_slice()).unwrap_or(&[]);
    data.references()
        .iter()
        .map(|Reference { reference_id, file_path }| {
            // LightRAG's ReferenceItem: `content` is null unless chunk content was asked for
            // and the source has chunks among the retrieved ones
            let mut r = json!({"reference_id": reference_id, "file_path": file_path, "content": null});
            if with_content {
                let content: Vec<&str> =
                    chunks.iter().filter(|c| &c.reference_id == reference_id).map(|c| c.content.as_str()).collect();
                if !content.is_empty() {
                    r["content"] = json!(content);
                }
            }
            r
        })
        .collect()
}

/// The trace as JSON (null in the unlikely case it cannot be serialised).
fn trace_value(trace: &QueryTrace) -> Value {
    serde_json::to_value(trace).unwrap_or_else(|e| {
        tracing::warn!(error = %e, "the query trace could not be serialised");
        Value::Null
    })
}

/// The trace of `/query` and `/query/stream`, with the retrieved records themselves (`data`: the
/// entities, relationships, chunks and references of `/query/data`) and the keywords used, so a
/// client can explain the answer without a second retrieval.
fn trace_with_records(trace: Value, data: &QueryData) -> Value {
    let mut trace = trace;
    if let Value::Object(map) = &mut trace {
        map.insert("data".into(), serde_json::to_value(DataBody::from(&data.data)).unwrap_or(Value::Null));
        let keywords = match &data.metadata {
            Metadata::Retrieval(m) => serde_json::to_value(&m.keywords).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        map.insert("keywords".into(), keywords);
    }
    trace
}

/// The text of a complete answer and whether the answering LLM wrote it (LightRAG's
/// `llm_generated`: false for the context or prompt, the no-context reply and the fallback).
fn answer_text(answer: &Answer) -> (String, bool) {
    match answer.text() {
        Some(t) if !t.trim().is_empty() => (t.to_string(), matches!(answer, Answer::Text(_))),
        _ => (EMPTY_ANSWER.to_string(), false),
    }
}

/// Seconds since `start`, rounded to milliseconds (LightRAG's `response_time`).
fn seconds_since(start: std::time::Instant) -> f64 {
    (start.elapsed().as_secs_f64() * 1000.0).round() / 1000.0
}

/// LightRAG answers 200 with its fallback sentence when the query fails inside (the LLM, the
/// embedder, the store): `aquery_llm` turns every exception into an empty answer.
fn fallback_body(e: &lightrag_engine::EngineError, include_references: bool) -> Value {
    tracing::warn!(error = %lightrag_ports::ErrorChain(e), "the query failed; answering with LightRAG's fallback sentence");
    let refs = include_references.then(Vec::<Value>::new);
    json!({ "response": EMPTY_ANSWER, "references": refs, "llm_generated": false })
}

/// Answer a question
///
/// Retrieves from the knowledge graph and the chunks, then asks the LLM. When anything fails
/// inside (LLM, embedder, store) the answer is LightRAG's fallback sentence (still 200, with
/// `llm_generated: false`). `response_time` is the server-side time in seconds.
#[utoipa::path(post, path = "/query", tag = "query", request_body = QueryRequest, responses(
    (status = 200, description = "The answer and its sources", body = QueryResponse),
    (status = 422, description = "Invalid request", body = ValidationErrorResponse),
))]
async fn query(Ws(ws): Ws, ApiJson(req): ApiJson<QueryRequest>) -> Result<Json<Value>, ApiError> {
    let mut v = req.validate(ws.engine.config().query.default_mode)?;
    v.param.stream = false;
    let start = std::time::Instant::now();
    let result = match ws.engine.query(&v.query, &v.param).await {
        Ok(result) => result,
        // a store unavailable for now: 503 with Retry-After, so that the client asks again
        Err(e) if e.retry_after().is_some() => return Err(e.into()),
        Err(e) => {
            let mut body = fallback_body(&e, v.include_references);
            body["response_time"] = json!(seconds_since(start));
            return Ok(Json(body));
        }
    };
    let refs = v.include_references.then(|| references(&result.data, v.include_chunk_content));
    let (text, llm_generated) = answer_text(&result.answer);
    let mut body = json!({
        "response": text,
        "references": refs,
        "response_time": seconds_since(start),
        "llm_generated": llm_generated,
    });
    if v.include_trace {
        body["trace"] = trace_with_records(trace_value(&result.trace), &result.data);
    }
    Ok(Json(body))
}

fn ndjson_line(value: &Value) -> String {
    format!("{value}\n")
}

/// Answer a question, streamed
///
/// NDJSON: a `{"references": [...]}` line first (when asked), then `{"response": "<delta>"}`
/// lines; a failure mid-stream ends with `{"error": "..."}`. With `stream: false` (or an answer
/// that is not streamed: context, prompt, no-context reply), one line with both and
/// `llm_generated`. A failure before the answer starts is LightRAG's fallback line. With `include_trace` (ours), one more line last: `{"trace": {...}}`, sent once the
/// answer has ended.
#[utoipa::path(post, path = "/query/stream", tag = "query", request_body = QueryRequest, responses(
    (status = 200, description = "NDJSON lines", content_type = "application/x-ndjson", body = QueryStreamLine),
    (status = 422, description = "Invalid request", body = ValidationErrorResponse),
))]
async fn query_stream(Ws(ws): Ws, ApiJson(req): ApiJson<QueryRequest>) -> Result<Response, ApiError> {
    let v = req.validate(ws.engine.config().query.default_mode)?;
    let body = match ws.engine.query(&v.query, &v.param).await {
        Ok(result) => stream_body(result, &v),
        // before the stream starts, a store unavailable for now is a 503 with Retry-After
        Err(e) if e.retry_after().is_some() => return Err(e.into()),
        // as /query: a failure before the stream starts is LightRAG's fallback line
        Err(e) => {
            let mut line = fallback_body(&e, v.include_references);
            if !v.include_references {
                line.as_object_mut().map(|m| m.remove("references"));
            }
            Body::from(ndjson_line(&line))
        }
    };
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

/// The NDJSON body of a successful query: references first, then the answer (deltas, or one
/// line), then the trace when asked.
fn stream_body(result: lightrag_engine::retrieval::query::QueryResult, v: &Validated) -> Body {
    let refs = v.include_references.then(|| references(&result.data, v.include_chunk_content));
    let trace = v.include_trace.then_some((result.trace, result.finisher, result.data));
    match result.answer {
        Answer::Stream(stream) => {
            let head = refs.map(|r| Ok::<_, std::convert::Infallible>(ndjson_line(&json!({ "references": r }))));
            let deltas = stream
                .scan(false, |failed, item| {
                    let line = match item {
                        _ if *failed => None,
                        Ok(delta) if delta.is_empty() => Some(String::new()),
                        Ok(delta) => Some(ndjson_line(&json!({ "response": delta }))),
                        Err(e) => {
                            *failed = true;
                            tracing::warn!(error = %e, "answer stream failed");
                            Some(ndjson_line(&json!({ "error": e.to_string() })))
                        }
                    };
                    futures::future::ready(line)
                })
                .filter(|line| futures::future::ready(!line.is_empty()))
                .map(Ok);
            // polled only after the answer stream has ended, when its usage is counted
            let tail =
                futures::stream::iter(trace).map(|(trace, finisher, data)| Ok(trace_line(trace, &finisher, &data)));
            Body::from_stream(futures::stream::iter(head).chain(deltas).chain(tail))
        }
        answer => {
            let (text, llm_generated) = answer_text(&answer);
            let mut line = json!({ "response": text, "llm_generated": llm_generated });
            if let Some(r) = refs {
                line["references"] = json!(r);
            }
            let mut body = ndjson_line(&line);
            if let Some((trace, finisher, data)) = trace {
                body.push_str(&trace_line(trace, &finisher, &data));
            }
            Body::from(body)
        }
    }
}

/// The `{"trace": {...}}` line, completed with what the answer stream added.
fn trace_line(trace: QueryTrace, finisher: &TraceFinisher, data: &QueryData) -> String {
    ndjson_line(&json!({ "trace": trace_with_records(trace_value(&finisher.finish(trace)), data) }))
}

/// `/query/data`'s validation error body (HTTP 400).
fn data_validation_error(e: &ApiError) -> Response {
    let body = json!({
        "status": "failure",
        "message": format!("Validation error: {}", e.flat_message()),
        "data": {},
        "metadata": {},
    });
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}

/// Retrieve without answering
///
/// The entities, relations, chunks and references a query would use, without the answer call.
#[utoipa::path(post, path = "/query/data", tag = "query", request_body = QueryRequest, responses(
    (status = 200, description = "The retrieved data", body = QueryDataResponse),
    (status = 400, description = "Invalid request", body = QueryDataError),
    (status = 404, description = "Not found", body = ErrorResponse),
))]
async fn query_data(Ws(ws): Ws, req: Result<ApiJson<QueryRequest>, ApiError>) -> Response {
    let validated = req.and_then(|ApiJson(r)| r.validate(ws.engine.config().query.default_mode));
    let v = match validated {
        Ok(v) => v,
        Err(e @ ApiError::Validation(_)) => return data_validation_error(&e),
        Err(e) => return e.into_response(),
    };
    if v.include_trace {
        return match ws.engine.query_data_traced(&v.query, &v.param).await {
            Ok(traced) => traced_data(&traced.data, &traced.trace).into_response(),
            Err(e) => ApiError::from(e).into_response(),
        };
    }
    match ws.engine.query_data(&v.query, &v.param).await {
        Ok(data) => Json(QueryDataBody::from(&data)).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// `/query/data`'s body with a top-level `trace` key.
fn traced_data(data: &QueryData, trace: &QueryTrace) -> Result<Json<Value>, ApiError> {
    let mut body = serde_json::to_value(QueryDataBody::from(data)).map_err(|e| ApiError::Internal(e.to_string()))?;
    body["trace"] = trace_value(trace);
    Ok(Json(body))
}
