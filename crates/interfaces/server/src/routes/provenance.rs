//! Provenance routes (ours, beyond LightRAG): where a graph element comes from — its source
//! chunks with their text, their documents, and what extraction found in each chunk.
//!
//! * `GET /graph/entity/sources?name=&limit=`
//! * `GET /graph/relation/sources?source_entity=&target_entity=&limit=` (either direction)
//!
//! The answers are assembled by the engine ([`lightrag_engine::retrieval::provenance`]); `limit` (1 to 500,
//! default 100) bounds the chunks returned with their text. A missing element is a 404.

use axum::extract::Query;
use axum::routing::get;
use axum::{Json, Router};

use super::graph::{Params, int_param, required};
use crate::errors::ApiError;
use crate::schemas::provenance::{EntitySourcesResponse, RelationSourcesResponse};
use crate::schemas::{ErrorResponse, ValidationErrorResponse};
use crate::state::AppState;
use crate::workspace::Ws;

/// Default of `limit`.
pub const DEFAULT_LIMIT: usize = 100;

/// Largest `limit`.
pub const MAX_LIMIT: usize = 500;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/graph/entity/sources", get(entity_sources))
        .route("/graph/relation/sources", get(relation_sources))
}

/// Where an entity comes from
///
/// The entity's source chunks (`source_id`) with their text, grouped by document (in the order
/// the documents contributed) then by position; their documents; and for each chunk what
/// extraction found for this entity there. Chunks deleted since are skipped.
#[utoipa::path(get, path = "/graph/entity/sources", tag = "graph",
    params(
        ("name" = String, Query, description = "Entity name (exact)"),
        ("limit" = Option<usize>, Query, description = "Most chunks returned with their text (1 to 500, default 100)",
            minimum = 1, maximum = 500),
    ),
    responses(
        (status = 200, description = "The entity and its sources", body = EntitySourcesResponse),
        (status = 404, description = "No such entity", body = ErrorResponse),
        (status = 422, description = "Missing name or bad limit", body = ValidationErrorResponse),
    ))]
async fn entity_sources(Ws(ws): Ws, Query(params): Params) -> Result<Json<EntitySourcesResponse>, ApiError> {
    let name = required(&params, "name")?;
    let limit = int_param(&params, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)?;
    Ok(Json(ws.engine.entity_sources(name, limit).await?.into()))
}

/// Where a relation comes from
///
/// As `/graph/entity/sources`, for the relation between two entities (either direction:
/// relations are undirected, and the answer names the ends in sorted order).
#[utoipa::path(get, path = "/graph/relation/sources", tag = "graph",
    params(
        ("source_entity" = String, Query, description = "One end"),
        ("target_entity" = String, Query, description = "The other end"),
        ("limit" = Option<usize>, Query, description = "Most chunks returned with their text (1 to 500, default 100)",
            minimum = 1, maximum = 500),
    ),
    responses(
        (status = 200, description = "The relation and its sources", body = RelationSourcesResponse),
        (status = 404, description = "No such relation", body = ErrorResponse),
        (status = 422, description = "Missing entity names or bad limit", body = ValidationErrorResponse),
    ))]
async fn relation_sources(Ws(ws): Ws, Query(params): Params) -> Result<Json<RelationSourcesResponse>, ApiError> {
    let source = required(&params, "source_entity")?;
    let target = required(&params, "target_entity")?;
    let limit = int_param(&params, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)?;
    Ok(Json(ws.engine.relation_sources(source, target, limit).await?.into()))
}
