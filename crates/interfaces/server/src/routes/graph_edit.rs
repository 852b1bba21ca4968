//! Graph mutation routes (§1.6): create, edit, merge and delete entities and relations, on the
//! engine's graph editing API. Refused with 409 while the workspace's pipeline is busy.

use axum::routing::{delete, post};
use axum::{Json, Router};
use lightrag_engine::graph_edit::{EntityInput, EntityUpdate, RelationInput, RelationUpdate};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::errors::{ApiError, ApiJson};
use crate::routes::graph::{entity_props, relation_props};
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

fn refuse_busy(ws: &Workspace) -> Result<(), ApiError> {
    if ws.pipeline.lock().busy {
        return Err(ApiError::Conflict(
            "The pipeline is busy; graph edits are refused while documents are processed. Retry later".into(),
        ));
    }
    Ok(())
}

#[derive(Debug, Deserialize)]
struct EditEntityRequest {
    entity_name: String,
    updated_data: EntityUpdate,
    #[serde(default)]
    allow_rename: bool,
    #[serde(default)]
    allow_merge: bool,
}

async fn edit_entity(Ws(ws): Ws, ApiJson(req): ApiJson<EditEntityRequest>) -> Result<Json<Value>, ApiError> {
    refuse_busy(&ws)?;
    let outcome = ws.engine.edit_entity(&req.entity_name, req.updated_data, req.allow_rename, req.allow_merge).await?;
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

#[derive(Debug, Deserialize)]
struct EditRelationRequest {
    source_id: String,
    target_id: String,
    updated_data: RelationUpdate,
}

async fn edit_relation(Ws(ws): Ws, ApiJson(req): ApiJson<EditRelationRequest>) -> Result<Json<Value>, ApiError> {
    refuse_busy(&ws)?;
    let relation = ws.engine.edit_relation(&req.source_id, &req.target_id, req.updated_data).await?;
    Ok(Json(json!({
        "status": "success",
        "message": "Relation updated successfully",
        "data": relation_props(&relation),
    })))
}

#[derive(Debug, Deserialize)]
struct CreateEntityRequest {
    entity_name: String,
    entity_data: EntityInput,
}

async fn create_entity(Ws(ws): Ws, ApiJson(req): ApiJson<CreateEntityRequest>) -> Result<Json<Value>, ApiError> {
    refuse_busy(&ws)?;
    let entity = ws.engine.create_entity(&req.entity_name, req.entity_data).await?;
    Ok(Json(json!({
        "status": "success",
        "message": format!("Entity '{}' created successfully", entity.name),
        "data": entity_props(&entity),
    })))
}

#[derive(Debug, Deserialize)]
struct CreateRelationRequest {
    source_entity: String,
    target_entity: String,
    relation_data: RelationInput,
}

async fn create_relation(Ws(ws): Ws, ApiJson(req): ApiJson<CreateRelationRequest>) -> Result<Json<Value>, ApiError> {
    refuse_busy(&ws)?;
    let relation = ws.engine.create_relation(&req.source_entity, &req.target_entity, req.relation_data).await?;
    Ok(Json(json!({
        "status": "success",
        "message": format!(
            "Relation created successfully between '{}' and '{}'",
            req.source_entity, req.target_entity
        ),
        "data": relation_props(&relation),
    })))
}

#[derive(Debug, Deserialize)]
struct MergeRequest {
    entities_to_change: Vec<String>,
    entity_to_change_into: String,
}

async fn merge_entities(Ws(ws): Ws, ApiJson(req): ApiJson<MergeRequest>) -> Result<Json<Value>, ApiError> {
    if req.entities_to_change.is_empty() {
        return Err(ApiError::invalid(&["entities_to_change"], "List should have at least 1 item"));
    }
    refuse_busy(&ws)?;
    let outcome = ws.engine.merge_entities(&req.entities_to_change, &req.entity_to_change_into, None).await?;
    Ok(Json(json!({
        "status": "success",
        "message": format!(
            "Successfully merged {} entities into '{}'",
            outcome.deleted_entities.len(),
            outcome.merged_entity.name
        ),
        "data": {
            "merged_entity": entity_props(&outcome.merged_entity),
            "deleted_entities": outcome.deleted_entities,
            "relationships_transferred": outcome.relationships_transferred,
            "relations_merged": outcome.relations_merged,
            "self_loops_dropped": outcome.self_loops_dropped,
            "target_created": outcome.target_created,
        },
    })))
}

fn deletion_result(message: String) -> Json<Value> {
    Json(json!({"status": "success", "doc_id": "", "message": message, "status_code": 200, "file_path": ""}))
}

#[derive(Debug, Deserialize)]
struct DeleteEntityRequest {
    entity_name: String,
}

async fn delete_entity(Ws(ws): Ws, ApiJson(req): ApiJson<DeleteEntityRequest>) -> Result<Json<Value>, ApiError> {
    refuse_busy(&ws)?;
    let removed = ws.engine.delete_entity(&req.entity_name).await?;
    Ok(deletion_result(format!(
        "Entity '{}' and its {} relationship(s) have been deleted",
        req.entity_name,
        removed.deleted_relations.len()
    )))
}

#[derive(Debug, Deserialize)]
struct DeleteRelationRequest {
    source_entity: String,
    target_entity: String,
}

async fn delete_relation(Ws(ws): Ws, ApiJson(req): ApiJson<DeleteRelationRequest>) -> Result<Json<Value>, ApiError> {
    refuse_busy(&ws)?;
    ws.engine.delete_relation(&req.source_entity, &req.target_entity).await?;
    Ok(deletion_result(format!("Relation from '{}' to '{}' has been deleted", req.source_entity, req.target_entity)))
}
