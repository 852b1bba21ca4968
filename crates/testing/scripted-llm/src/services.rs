//! Embedding and rerank services: Jina AI (`/jina/v1/embeddings` with `embedding_type: base64`
//! and a required `dimensions`, `/jina/v1/rerank`), Voyage AI (`/voyage/v1/embeddings`,
//! `output_dimension`), Cohere (`/cohere/v2/rerank`) and Aliyun DashScope
//! (`/dashscope/api/v1/services/rerank/text-rerank/text-rerank`, request and answer wrapped in
//! `input` / `parameters` / `output`). Shapes follow each service's API reference: embeddings
//! answer `{"data": [{"index", "embedding"}], "usage"}`, rerank answers
//! `{"results": [{"index", "relevance_score"}]}`.
//!
//! References: Jina embeddings (`task`, `dimensions`, `embedding_type` of `float`, `base64`,
//! …; <https://api.jina.ai/v1/embeddings>) and rerank (<https://api.jina.ai/v1/rerank>); Voyage AI
//! embeddings (`input`, `model`, `input_type`, `truncation`, `output_dimension`); Cohere Rerank v2
//! (`model`, `query`, `documents`, `top_n` → `results[].index/relevance_score`); Alibaba Cloud
//! Model Studio text rerank, <https://help.aliyun.com/en/model-studio/dashscopererank> (`input.query`,
//! `input.documents`, `parameters.top_n`, `parameters.return_documents` → `output.results`).

use std::collections::HashSet;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine as _;
use serde_json::{Value, json};

use crate::faults::{FaultAction, RouteKind};
use crate::generate::embed_text;
use crate::routes::{Dialect, Incoming, admit, apply_fault, raw, refuse};
use crate::server::Shared;
use crate::text::word_count;

type AppState = State<Arc<Shared>>;

pub(crate) fn router() -> Router<Arc<Shared>> {
    Router::new()
        .route("/jina/v1/embeddings", post(jina_embed))
        .route("/voyage/v1/embeddings", post(voyage_embed))
        .route("/jina/v1/rerank", post(jina_rerank))
        .route("/cohere/v2/rerank", post(cohere_rerank))
        .route("/dashscope/api/v1/services/rerank/text-rerank/text-rerank", post(dashscope_rerank))
}

fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3).map(str::to_lowercase).collect()
}

/// The scripted relevance of `document` to `query`: the share of the query's distinct words
/// (three characters or more, any case) that the document contains, in `[0, 1]`.
pub fn rerank_score(query: &str, document: &str) -> f64 {
    let q = words(query);
    if q.is_empty() {
        return 0.0;
    }
    let d = words(document);
    q.iter().filter(|w| d.contains(*w)).count() as f64 / q.len() as f64
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Service {
    Jina,
    Voyage,
}

fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    match v? {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => items.iter().map(|i| i.as_str().map(str::to_string)).collect(),
        _ => None,
    }
}

async fn service_embed(shared: Arc<Shared>, service: Service, req: Incoming) -> Response {
    let body = match admit(&shared, Dialect::Service, &req) {
        Ok(body) => body,
        Err(refusal) => return *refusal,
    };
    let Some(inputs) = strings(body.get("input")).filter(|i| !i.is_empty()) else {
        shared.record_only(req.record(&body, None));
        return refuse(
            &shared,
            Dialect::Service,
            StatusCode::BAD_REQUEST,
            "`input` must be a string or a list of strings",
        );
    };
    let dim_field = if service == Service::Jina { "dimensions" } else { "output_dimension" };
    let dim = body.get(dim_field).and_then(Value::as_u64).map(|d| d as usize);
    if service == Service::Jina && (dim.is_none() || body.get("task").and_then(Value::as_str).is_none()) {
        shared.record_only(req.record(&body, None));
        return refuse(&shared, Dialect::Service, StatusCode::BAD_REQUEST, "`task` and `dimensions` are required");
    }
    let dim = dim.unwrap_or(shared.config.dim);
    let fault = shared.begin(req.record(&body, None), RouteKind::Embed, Some(inputs.len() as u64), false);
    let fault = match apply_fault(&shared, Dialect::Service, fault).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let tokens: u64 = inputs.iter().map(|t| word_count(t)).sum();
    shared.finish(200, Some((tokens, 0)));
    if fault == Some(FaultAction::InvalidJson) {
        return raw(StatusCode::OK, "application/json", Body::from("{\"data\": [{\"embedding\": "));
    }
    let base64 = body.get("embedding_type").and_then(Value::as_str) == Some("base64");
    let mut data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let v = embed_text(t, dim);
            let embedding = if base64 {
                let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                json!(base64::engine::general_purpose::STANDARD.encode(bytes))
            } else {
                json!(v)
            };
            json!({ "object": "embedding", "index": i, "embedding": embedding })
        })
        .collect();
    if shared.config.reverse_embedding_order {
        data.reverse();
    }
    let model = body.get("model").cloned().unwrap_or(json!("scripted"));
    let usage = if service == Service::Jina {
        json!({ "total_tokens": tokens, "prompt_tokens": tokens })
    } else {
        json!({ "total_tokens": tokens })
    };
    Json(json!({ "object": "list", "data": data, "model": model, "usage": usage })).into_response()
}

async fn jina_embed(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    service_embed(s, Service::Jina, Incoming { method: m, uri: u, headers: h, body: b }).await
}
async fn voyage_embed(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    service_embed(s, Service::Voyage, Incoming { method: m, uri: u, headers: h, body: b }).await
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RerankApi {
    Standard,
    DashScope,
}

async fn rerank(shared: Arc<Shared>, api: RerankApi, req: Incoming) -> Response {
    let body = match admit(&shared, Dialect::Service, &req) {
        Ok(body) => body,
        Err(refusal) => return *refusal,
    };
    let (query, documents, top_n) = match api {
        RerankApi::Standard => (
            body.get("query").and_then(Value::as_str),
            strings(body.get("documents")),
            body.get("top_n").and_then(Value::as_u64),
        ),
        RerankApi::DashScope => (
            body.pointer("/input/query").and_then(Value::as_str),
            strings(body.pointer("/input/documents")),
            body.pointer("/parameters/top_n").and_then(Value::as_u64),
        ),
    };
    let (Some(query), Some(documents)) = (query.map(str::to_string), documents) else {
        shared.record_only(req.record(&body, None));
        return refuse(&shared, Dialect::Service, StatusCode::BAD_REQUEST, "`query` and `documents` are required");
    };
    let fault = shared.begin(req.record(&body, None), RouteKind::Rerank, None, false);
    let fault = match apply_fault(&shared, Dialect::Service, fault).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let tokens = word_count(&query) * documents.len() as u64 + documents.iter().map(|d| word_count(d)).sum::<u64>();
    shared.finish(200, Some((tokens, 0)));
    if fault == Some(FaultAction::InvalidJson) {
        return raw(StatusCode::OK, "application/json", Body::from("{\"results\": [{\"index\": "));
    }
    let mut scored: Vec<(usize, f64)> =
        documents.iter().enumerate().map(|(i, d)| (i, rerank_score(&query, d))).collect();
    // best first; equal scores keep the request's order
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    if let Some(n) = top_n {
        scored.truncate(n as usize);
    }
    let results: Vec<Value> = scored.iter().map(|(i, s)| json!({ "index": i, "relevance_score": s })).collect();
    match api {
        RerankApi::Standard => Json(json!({
            "id": "scripted-rerank",
            "results": results,
            "meta": { "billed_units": { "search_units": 1 } },
            "usage": { "total_tokens": tokens }
        }))
        .into_response(),
        RerankApi::DashScope => Json(json!({
            "output": { "results": results },
            "usage": { "total_tokens": tokens },
            "request_id": "scripted-rerank"
        }))
        .into_response(),
    }
}

async fn jina_rerank(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    rerank(s, RerankApi::Standard, Incoming { method: m, uri: u, headers: h, body: b }).await
}
async fn cohere_rerank(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    rerank(s, RerankApi::Standard, Incoming { method: m, uri: u, headers: h, body: b }).await
}
async fn dashscope_rerank(State(s): AppState, m: Method, u: Uri, h: HeaderMap, b: Bytes) -> Response {
    rerank(s, RerankApi::DashScope, Incoming { method: m, uri: u, headers: h, body: b }).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_the_share_of_query_words_found() {
        assert_eq!(rerank_score("Who founded Acme?", "Acme was founded by Ada."), 2.0 / 3.0);
        assert_eq!(rerank_score("Who founded Acme?", "nothing here"), 0.0);
        assert_eq!(rerank_score("a b", "a b"), 0.0, "short words do not count");
    }
}
