//! Graph read routes (§1.6): entity labels (all, popular, fuzzy search), `/graphs` (a subgraph
//! around a label, breadth first by depth then degree) and `/graph/entity/exists`.
//!
//! The mutation routes are in [`super::graph_edit`].

use std::collections::HashMap;

use axum::extract::Query;
use axum::routing::get;
use axum::{Json, Router};
use lightrag_engine::retrieval::subgraph::{Subgraph, SubgraphStart};
use lightrag_ports::{Entity, GRAPH_FIELD_SEP, Relation};
use serde_json::{Value, json};

use crate::errors::ApiError;
use crate::schemas::{EntityExistsResponse, KnowledgeGraph, ValidationErrorResponse};
use crate::state::AppState;
use crate::workspace::Ws;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/graph/label/list", get(label_list))
        .route("/graph/label/popular", get(label_popular))
        .route("/graph/label/search", get(label_search))
        .route("/graphs", get(graphs))
        .route("/graph/entity/exists", get(entity_exists))
}

/// Query parameters by name.
pub(crate) type Params = Query<HashMap<String, String>>;

/// A 422 for the query parameter `name`.
pub(crate) fn query_error(name: &str, msg: impl Into<String>) -> ApiError {
    ApiError::Validation(vec![json!({
        "type": "value_error", "loc": ["query", name], "msg": msg.into(), "input": Value::Null,
    })])
}

/// The query parameter `name`, or a 422 when it is missing.
pub(crate) fn required<'a>(params: &'a HashMap<String, String>, name: &str) -> Result<&'a str, ApiError> {
    params.get(name).map(String::as_str).ok_or_else(|| query_error(name, "Field required"))
}

/// An integer parameter in `min..=max` (default when absent).
pub(crate) fn int_param(
    params: &HashMap<String, String>,
    name: &str,
    default: usize,
    min: usize,
    max: usize,
) -> Result<usize, ApiError> {
    let Some(raw) = params.get(name) else { return Ok(default) };
    let value: usize = raw.trim().parse().map_err(|_| query_error(name, "Input should be a valid integer"))?;
    if value < min || value > max {
        return Err(query_error(name, format!("Input should be between {min} and {max}")));
    }
    Ok(value)
}

/// All entity names
#[utoipa::path(get, path = "/graph/label/list", tag = "graph", responses(
    (status = 200, description = "Every entity name, sorted", body = Vec<String>),
))]
async fn label_list(Ws(ws): Ws) -> Result<Json<Vec<String>>, ApiError> {
    Ok(Json(ws.engine.entity_names().await?))
}

/// Most connected entity names
#[utoipa::path(get, path = "/graph/label/popular", tag = "graph",
    params(
        ("limit" = Option<usize>, Query, description = "How many (1 to 1000, default 300)", minimum = 1, maximum = 1000),
    ),
    responses(
        (status = 200, description = "Entity names by degree, highest first", body = Vec<String>),
        (status = 422, description = "Bad limit", body = ValidationErrorResponse),
    ))]
async fn label_popular(Ws(ws): Ws, Query(params): Params) -> Result<Json<Vec<String>>, ApiError> {
    let limit = int_param(&params, "limit", 300, 1, 1000)?;
    let top = ws.engine.top_entities(limit).await?;
    Ok(Json(top.into_iter().map(|(name, _)| name).collect()))
}

/// Search entity names
///
/// Case-insensitive fuzzy match: exact, then prefix, then substring (shorter first, word starts
/// preferred); ties alphabetical.
#[utoipa::path(get, path = "/graph/label/search", tag = "graph",
    params(
        ("q" = String, Query, description = "Text to look for"),
        ("limit" = Option<usize>, Query, description = "How many (1 to 100, default 50)", minimum = 1, maximum = 100),
    ),
    responses(
        (status = 200, description = "Matching entity names, best first", body = Vec<String>),
        (status = 422, description = "Missing q or bad limit", body = ValidationErrorResponse),
    ))]
async fn label_search(Ws(ws): Ws, Query(params): Params) -> Result<Json<Vec<String>>, ApiError> {
    let q = required(&params, "q")?.trim().to_string();
    let limit = int_param(&params, "limit", 50, 1, 100)?;
    Ok(Json(ws.engine.search_labels(&q, limit).await?))
}

/// Whether an entity exists
#[utoipa::path(get, path = "/graph/entity/exists", tag = "graph",
    params(("name" = String, Query, description = "Entity name")),
    responses(
        (status = 200, description = "Whether it exists", body = EntityExistsResponse),
        (status = 422, description = "Missing name", body = ValidationErrorResponse),
    ))]
async fn entity_exists(Ws(ws): Ws, Query(params): Params) -> Result<Json<Value>, ApiError> {
    let name = required(&params, "name")?.to_string();
    let found = ws.engine.entities(&[name]).await?;
    Ok(Json(json!({ "exists": found.first().is_some_and(Option::is_some) })))
}

/// An entity's properties as LightRAG shows them (`created_at` in Unix seconds).
pub fn entity_props(e: &Entity) -> Value {
    json!({
        "entity_id": e.name,
        "entity_name": e.name,
        "entity_type": e.entity_type,
        "description": e.description,
        "source_id": e.source_ids.join(GRAPH_FIELD_SEP),
        "file_path": e.file_paths.join(GRAPH_FIELD_SEP),
        "created_at": e.created_at / 1000,
        "truncate": e.truncate,
    })
}

/// A relation's properties as LightRAG shows them.
pub fn relation_props(r: &Relation) -> Value {
    json!({
        "src_id": r.key.src,
        "tgt_id": r.key.tgt,
        "weight": r.weight,
        "description": r.description,
        "keywords": r.keywords,
        "source_id": r.source_ids.join(GRAPH_FIELD_SEP),
        "file_path": r.file_paths.join(GRAPH_FIELD_SEP),
        "created_at": r.created_at / 1000,
        "truncate": r.truncate,
    })
}

fn node_json(e: &Entity) -> Value {
    let mut props = entity_props(e);
    if let Some(map) = props.as_object_mut() {
        map.remove("entity_name");
    }
    json!({ "id": e.name, "labels": [e.name], "properties": props })
}

fn edge_json(r: &Relation) -> Value {
    let mut props = relation_props(r);
    if let Some(map) = props.as_object_mut() {
        map.remove("src_id");
        map.remove("tgt_id");
    }
    json!({
        "id": format!("{}-{}", r.key.src, r.key.tgt),
        "type": "DIRECTED",
        "source": r.key.src,
        "target": r.key.tgt,
        "properties": props,
    })
}

/// Names reached from `start` breadth first (each level by degree, highest first), at most
/// `max_nodes`; the flag tells whether nodes were left out for the limit.
/// Subgraph around an entity
///
/// Breadth first from `label` (each level by degree), or the most connected nodes for `*`; an
/// unknown label gives an empty graph.
#[utoipa::path(get, path = "/graphs", tag = "graph",
    params(
        ("label" = String, Query, description = "Start entity, or `*` for the whole graph"),
        ("max_depth" = Option<usize>, Query, description = "Hops from the label (default 3)", minimum = 1),
        ("max_nodes" = Option<usize>, Query, description = "Node limit (default 1000, max MAX_GRAPH_NODES)", minimum = 1),
    ),
    responses(
        (status = 200, description = "Nodes and edges", body = KnowledgeGraph),
        (status = 422, description = "Missing label or bad numbers", body = ValidationErrorResponse),
    ))]
async fn graphs(Ws(ws): Ws, Query(params): Params) -> Result<Json<Value>, ApiError> {
    let label = required(&params, "label")?.to_string();
    let max_depth = int_param(&params, "max_depth", 3, 1, usize::MAX)?;
    let cap = ws.settings.server.max_graph_nodes;
    let max_nodes = int_param(&params, "max_nodes", 1000, 1, usize::MAX)?.min(cap);
    let start = if label == "*" { SubgraphStart::Everything } else { SubgraphStart::Entity(label) };
    let Subgraph { nodes, edges, truncated } = ws.engine.subgraph(&start, max_depth, max_nodes).await?;
    let edges: Vec<Value> = edges.iter().map(edge_json).collect();
    Ok(Json(json!({
        "nodes": nodes.iter().map(node_json).collect::<Vec<_>>(),
        "edges": edges,
        "is_truncated": truncated,
    })))
}
