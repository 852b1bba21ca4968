//! Graph mutation routes (§1.6): create, edit, merge and delete entities and relations — wire
//! translators of the application's graph edits ([`GraphEdits`]: refused with 409 while the
//! workspace's pipeline is busy, a merge names at least one entity).

use axum::routing::{delete, post};
use axum::{Json, Router};
use lightrag_application::AppError;
use lightrag_application::graph::GraphEdits;
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::errors::{ApiError, ApiJson};
use crate::routes::graph::{entity_props, relation_props};
use crate::routes::graph_edit_body::{EntityChanges, EntityData, RelationChanges, RelationData};
use crate::schemas::{DeletionResult, ErrorResponse, GraphEditResponse, ValidationErrorResponse};
use crate::state::AppState;
use crate::workspace::{Workspace, Ws};

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/graph/entity/edit", post(edit_entity))
        .route("/graph/relation/edit", post(edit_relation))
        .route("/graph/entity/create", post(create_entity))
        .route("/graph/relation/create", post(create_relation))
        .route("/graph/entities/merge", post(merge_entities))
        .route("/graph/entity/delete", delete(delete_entity))
        .route("/graph/relation/delete", delete(delete_relation))
}

/// The workspace's graph edits (refused while its pipeline is busy).
fn edits(ws: &Workspace) -> GraphEdits<'_> {
    GraphEdits::new(&ws.engine, ws.pipeline.lock().busy)
}

/// The edit, create and merge routes answer 400 for a missing entity or relation, as LightRAG
/// does (its graph helpers raise `ValueError`, which these routes turn into 400); only the
/// delete routes answer 404.
fn value_error(e: AppError) -> ApiError {
    match e {
        AppError::NotFound(message) => ApiError::BadRequest(message),
        other => other.into(),
    }
}

/// `POST /graph/entity/edit`.
#[derive(Debug, Deserialize, ToSchema)]
struct EditEntityRequest {
    /// The entity to change.
    entity_name: String,
    /// The changes.
    updated_data: EntityChanges,
    /// Allow `updated_data.entity_name` to rename it.
    #[serde(default)]
    allow_rename: bool,
    /// Merge into an existing entity when renamed onto it.
    #[serde(default)]
    allow_merge: bool,
}

/// Edit an entity
///
/// Changes its properties; may rename it (`allow_rename`) and merge it into an existing entity
/// of the new name (`allow_merge`).
#[utoipa::path(post, path = "/graph/entity/edit", tag = "graph", request_body = EditEntityRequest, responses(
    (status = 200, description = "Updated (or merged)", body = GraphEditResponse),
    (status = 400, description = "No such entity, or an invalid change (e.g. renamed onto an existing entity \
        without allow_merge)",
        body = ErrorResponse),
    (status = 409, description = "The pipeline is busy", body = ErrorResponse),
    (status = 422, description = "Malformed body", body = ValidationErrorResponse),
))]
async fn edit_entity(Ws(ws): Ws, ApiJson(req): ApiJson<EditEntityRequest>) -> Result<Json<Value>, ApiError> {
    let outcome = edits(&ws)
        .edit_entity(&req.entity_name, req.updated_data.into(), req.allow_rename, req.allow_merge)
        .await
        .map_err(value_error)?;
    let message = match (&outcome.operation_summary.merged, &outcome.operation_summary.target_entity) {
        (true, Some(target)) => format!("Entity merged successfully into '{target}'"),
        _ => "Entity updated successfully".to_string(),
    };
    Ok(Json(json!({
        "status": "success",
        "message": message,
        "data": entity_props(&outcome.entity),
        "operation_summary": outcome.operation_summary,
    })))
}

/// `POST /graph/relation/edit`.
#[derive(Debug, Deserialize, ToSchema)]
struct EditRelationRequest {
    /// One end.
    source_id: String,
    /// The other end.
    target_id: String,
    /// The changes.
    updated_data: RelationChanges,
}

/// Edit a relation
#[utoipa::path(post, path = "/graph/relation/edit", tag = "graph", request_body = EditRelationRequest, responses(
    (status = 200, description = "Updated", body = GraphEditResponse),
    (status = 400, description = "No such relation, or an invalid change", body = ErrorResponse),
    (status = 409, description = "The pipeline is busy", body = ErrorResponse),
    (status = 422, description = "Malformed body", body = ValidationErrorResponse),
))]
async fn edit_relation(Ws(ws): Ws, ApiJson(req): ApiJson<EditRelationRequest>) -> Result<Json<Value>, ApiError> {
    let relation =
        edits(&ws).edit_relation(&req.source_id, &req.target_id, req.updated_data.into()).await.map_err(value_error)?;
    Ok(success("Relation updated successfully".into(), relation_props(&relation)))
}

/// `POST /graph/entity/create`.
#[derive(Debug, Deserialize, ToSchema)]
struct CreateEntityRequest {
    /// Name of the new entity.
    #[schema(min_length = 1)]
    entity_name: String,
    /// Its properties.
    entity_data: EntityData,
}

/// Create an entity
#[utoipa::path(post, path = "/graph/entity/create", tag = "graph", request_body = CreateEntityRequest, responses(
    (status = 200, description = "Created", body = GraphEditResponse),
    (status = 400, description = "Exists already, or no description", body = ErrorResponse),
    (status = 409, description = "The pipeline is busy", body = ErrorResponse),
    (status = 422, description = "Malformed body", body = ValidationErrorResponse),
))]
async fn create_entity(Ws(ws): Ws, ApiJson(req): ApiJson<CreateEntityRequest>) -> Result<Json<Value>, ApiError> {
    let entity = edits(&ws).create_entity(&req.entity_name, req.entity_data.into()).await.map_err(value_error)?;
    Ok(success(format!("Entity '{}' created successfully", entity.name), entity_props(&entity)))
}

/// `POST /graph/relation/create`.
#[derive(Debug, Deserialize, ToSchema)]
struct CreateRelationRequest {
    /// One end (must exist).
    source_entity: String,
    /// The other end (must exist).
    target_entity: String,
    /// Its properties.
    relation_data: RelationData,
}

/// Create a relation
///
/// Relations are undirected: the ends may come back swapped.
#[utoipa::path(post, path = "/graph/relation/create", tag = "graph", request_body = CreateRelationRequest, responses(
    (status = 200, description = "Created", body = GraphEditResponse),
    (status = 400, description = "An end is missing, the relation exists, or no description", body = ErrorResponse),
    (status = 409, description = "The pipeline is busy", body = ErrorResponse),
    (status = 422, description = "Malformed body", body = ValidationErrorResponse),
))]
async fn create_relation(Ws(ws): Ws, ApiJson(req): ApiJson<CreateRelationRequest>) -> Result<Json<Value>, ApiError> {
    let relation = edits(&ws)
        .create_relation(&req.source_entity, &req.target_entity, req.relation_data.into())
        .await
        .map_err(value_error)?;
    let message = format!("Relation created successfully between '{}' and '{}'", req.source_entity, req.target_entity);
    Ok(success(message, relation_props(&relation)))
}

/// `POST /graph/entities/merge`.
#[derive(Debug, Deserialize, ToSchema)]
struct MergeRequest {
    /// Entities merged away (at least one).
    #[schema(min_items = 1)]
    entities_to_change: Vec<String>,
    /// The entity they become (created when missing).
    entity_to_change_into: String,
}

/// Merge entities
///
/// Moves the relations of `entities_to_change` to `entity_to_change_into` and deletes them.
#[utoipa::path(post, path = "/graph/entities/merge", tag = "graph", request_body = MergeRequest, responses(
    (status = 200, description = "Merged", body = GraphEditResponse),
    (status = 400, description = "An entity is missing, or an invalid merge", body = ErrorResponse),
    (status = 409, description = "The pipeline is busy", body = ErrorResponse),
    (status = 422, description = "No entities given", body = ValidationErrorResponse),
))]
async fn merge_entities(Ws(ws): Ws, ApiJson(req): ApiJson<MergeRequest>) -> Result<Json<Value>, ApiError> {
    let outcome = edits(&ws)
        .merge_entities(&req.entities_to_change, &req.entity_to_change_into, None)
        .await
        .map_err(value_error)?;
    let message = format!(
        "Successfully merged {} entities into '{}'",
        outcome.deleted_entities.len(),
        outcome.merged_entity.name
    );
    let data = json!({
        "merged_entity": entity_props(&outcome.merged_entity),
        "deleted_entities": outcome.deleted_entities,
        "relationships_transferred": outcome.relationships_transferred,
        "relations_merged": outcome.relations_merged,
        "self_loops_dropped": outcome.self_loops_dropped,
        "target_created": outcome.target_created,
    });
    Ok(success(message, data))
}

/// LightRAG's `{status: "success", message, data}` answer of the edit routes.
fn success(message: String, data: Value) -> Json<Value> {
    Json(json!({ "status": "success", "message": message, "data": data }))
}

fn deletion_result(message: String) -> Json<Value> {
    Json(json!({"status": "success", "doc_id": "", "message": message, "status_code": 200, "file_path": ""}))
}

/// `DELETE /graph/entity/delete`.
#[derive(Debug, Deserialize, ToSchema)]
struct DeleteEntityRequest {
    /// The entity to delete (with its relations).
    entity_name: String,
}

/// Delete an entity
///
/// Deletes the entity and its relations.
#[utoipa::path(delete, path = "/graph/entity/delete", tag = "graph", request_body = DeleteEntityRequest, responses(
    (status = 200, description = "Deleted", body = DeletionResult),
    (status = 404, description = "No such entity", body = ErrorResponse),
    (status = 409, description = "The pipeline is busy", body = ErrorResponse),
    (status = 422, description = "Malformed body", body = ValidationErrorResponse),
))]
async fn delete_entity(Ws(ws): Ws, ApiJson(req): ApiJson<DeleteEntityRequest>) -> Result<Json<Value>, ApiError> {
    let removed = edits(&ws).delete_entity(&req.entity_name).await?;
    Ok(deletion_result(format!(
        "Entity '{}' and its {} relationship(s) have been deleted",
        req.entity_name,
        removed.deleted_relations.len()
    )))
}

/// `DELETE /graph/relation/delete`.
#[derive(Debug, Deserialize, ToSchema)]
struct DeleteRelationRequest {
    /// One end.
    source_entity: String,
    /// The other end.
    target_entity: String,
}

/// Delete a relation
#[utoipa::path(delete, path = "/graph/relation/delete", tag = "graph", request_body = DeleteRelationRequest, responses(
    (status = 200, description = "Deleted", body = DeletionResult),
    (status = 404, description = "No such relation", body = ErrorResponse),
    (status = 409, description = "The pipeline is busy", body = ErrorResponse),
    (status = 422, description = "Malformed body", body = ValidationErrorResponse),
))]
async fn delete_relation(Ws(ws): Ws, ApiJson(req): ApiJson<DeleteRelationRequest>) -> Result<Json<Value>, ApiError> {
    edits(&ws).delete_relation(&req.source_entity, &req.target_entity).await?;
    Ok(deletion_result(format!("Relation from '{}' to '{}' has been deleted", req.source_entity, req.target_entity)))
}
