//! LightRAG's request bodies of the graph edit routes (`entity_data`, `relation_data`,
//! `updated_data`), with its wire conventions — `<SEP>`-joined chunk ids and file paths — and their
//! conversion to the engine's types, which take lists.

use lightrag_engine::maintenance::graph_edit::{EntityInput, EntityUpdate, RelationInput, RelationUpdate};
use lightrag_ports::GRAPH_FIELD_SEP;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The parts of a `<SEP>`-joined field.
fn split(value: Option<String>) -> Option<Vec<String>> {
    value.map(|v| v.split(GRAPH_FIELD_SEP).map(str::to_string).collect())
}

/// `entity_data` of `/graph/entity/create`.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default)]
pub struct EntityData {
    /// Description (required, non-empty).
    pub description: String,
    /// Type (empty = `UNKNOWN`).
    pub entity_type: Option<String>,
    /// Chunk ids joined with `<SEP>` (default `manual_creation`).
    pub source_id: Option<String>,
    /// File paths joined with `<SEP>` (default `manual_creation`).
    pub file_path: Option<String>,
}

impl From<EntityData> for EntityInput {
    fn from(d: EntityData) -> Self {
        EntityInput {
            entity_type: d.entity_type.unwrap_or_default(),
            description: d.description,
            source_ids: split(d.source_id),
            file_paths: split(d.file_path),
        }
    }
}

/// `relation_data` of `/graph/relation/create`.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default)]
pub struct RelationData {
    /// Description (required, non-empty).
    pub description: String,
    /// Comma-separated keywords.
    pub keywords: Option<String>,
    /// Weight (default 1.0).
    pub weight: Option<f64>,
    /// Chunk ids joined with `<SEP>` (default none).
    pub source_id: Option<String>,
    /// File paths joined with `<SEP>` (default `manual_creation`).
    pub file_path: Option<String>,
}

impl From<RelationData> for RelationInput {
    fn from(d: RelationData) -> Self {
        RelationInput {
            description: d.description,
            keywords: d.keywords.unwrap_or_default(),
            weight: d.weight,
            source_ids: split(d.source_id),
            file_paths: split(d.file_path),
        }
    }
}

/// `updated_data` of `/graph/entity/edit`: only the fields given change; unknown fields are refused.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct EntityChanges {
    /// New name (a rename; needs `allow_rename`).
    pub entity_name: Option<String>,
    /// New type.
    pub entity_type: Option<String>,
    /// New description (not empty).
    pub description: Option<String>,
    /// New chunk ids joined with `<SEP>`.
    pub source_id: Option<String>,
    /// New file paths joined with `<SEP>`.
    pub file_path: Option<String>,
}

impl From<EntityChanges> for EntityUpdate {
    fn from(c: EntityChanges) -> Self {
        EntityUpdate {
            entity_name: c.entity_name,
            entity_type: c.entity_type,
            description: c.description,
            source_ids: split(c.source_id),
            file_paths: split(c.file_path),
        }
    }
}

/// `updated_data` of `/graph/relation/edit`: only the fields given change; unknown fields are refused.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RelationChanges {
    /// New description (not empty).
    pub description: Option<String>,
    /// New comma-separated keywords.
    pub keywords: Option<String>,
    /// New weight.
    pub weight: Option<f64>,
    /// New chunk ids joined with `<SEP>`.
    pub source_id: Option<String>,
    /// New file paths joined with `<SEP>`.
    pub file_path: Option<String>,
}

impl From<RelationChanges> for RelationUpdate {
    fn from(c: RelationChanges) -> Self {
        RelationUpdate {
            description: c.description,
            keywords: c.keywords,
            weight: c.weight,
            source_ids: split(c.source_id),
            file_paths: split(c.file_path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sep_joined_fields_become_lists() {
        let c: EntityChanges =
            serde_json::from_str(r#"{"source_id":"chunk-1<SEP>chunk-2","file_path":"a.txt"}"#).unwrap_or_default();
        let u = EntityUpdate::from(c);
        assert_eq!(u.source_ids, Some(vec!["chunk-1".to_string(), "chunk-2".to_string()]));
        assert_eq!(u.file_paths, Some(vec!["a.txt".to_string()]));
        assert_eq!(u.description, None);
    }

    #[test]
    fn unknown_update_fields_are_refused() {
        assert!(serde_json::from_str::<EntityChanges>(r#"{"colour":"red"}"#).is_err());
        assert!(serde_json::from_str::<RelationChanges>(r#"{"colour":"red"}"#).is_err());
    }
}
