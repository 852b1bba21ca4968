//! Graph edits — create, edit, merge and delete entities and relations: the REST graph routes
//! (`/graph/entity/edit` …) and the Python package (`acreate_entity`, `aedit_entity`,
//! `amerge_entities`, `adelete_by_entity` …, also `insert_custom_kg`) — one use case each, one
//! set of rules:
//!
//! * an edit is refused while the knowledge base's pipeline runs a job ([`AppError::Conflict`]):
//!   indexing merges into the same entities, and an edit between its read and its commit would
//!   be lost or resurrect what the edit removed. Each front end knows its own pipeline (the
//!   server's workspace status, the Python package's running insert) and says whether it is busy;
//! * a merge names at least one entity to merge away (an [`AppError::Invalid`] on
//!   `entities_to_change` otherwise, LightRAG's field name);
//! * a missing entity or relation is [`AppError::NotFound`] for every edit (REST answers 400 for
//!   the edit, create and merge routes as LightRAG does, 404 for the delete routes: that is the
//!   route's wire mapping, not a different outcome); a refused change (empty description, a
//!   rename onto an existing entity without `allow_merge`, a bad weight) is the engine's
//!   `Invalid`, kept as it is.
//!
//! Names are checked by the engine (trimmed, non-empty, within the name-length limit).

use lightrag_engine::maintenance::graph_edit::{EditOutcome, GraphDeletion, MergeOutcome};
pub use lightrag_engine::maintenance::graph_edit::{EntityInput, EntityUpdate, RelationInput, RelationUpdate};
use lightrag_engine::{Engine, EngineError};
use lightrag_ports::{Entity, Relation};

use crate::error::{AppError, Result};

/// The message of an edit refused while the pipeline runs.
pub const BUSY_MESSAGE: &str =
    "The pipeline is busy; graph edits are refused while documents are processed. Retry later";

/// One graph edit.
#[derive(Debug, Clone)]
pub enum GraphEdit {
    /// A new entity.
    CreateEntity {
        /// Its name.
        name: String,
        /// Its properties.
        data: EntityInput,
    },
    /// Changes to an entity; `allow_rename` lets `changes.entity_name` rename it, `allow_merge`
    /// merges it into an existing entity of that name.
    EditEntity {
        /// The entity.
        name: String,
        /// The changes.
        changes: EntityUpdate,
        /// Whether a rename is allowed.
        allow_rename: bool,
        /// Whether a rename onto an existing entity merges into it.
        allow_merge: bool,
    },
    /// A new relation between two existing entities.
    CreateRelation {
        /// One end.
        source: String,
        /// The other end.
        target: String,
        /// Its properties.
        data: RelationInput,
    },
    /// Changes to a relation.
    EditRelation {
        /// One end.
        source: String,
        /// The other end.
        target: String,
        /// The changes.
        changes: RelationUpdate,
    },
    /// `sources` merged into `target` (created when missing); `target_data` overrides fields.
    MergeEntities {
        /// The entities merged away.
        sources: Vec<String>,
        /// The entity they become.
        target: String,
        /// Fields of the result set by hand.
        target_data: Option<EntityUpdate>,
    },
    /// An entity and its relations deleted.
    DeleteEntity {
        /// The entity.
        name: String,
    },
    /// A relation deleted.
    DeleteRelation {
        /// One end.
        source: String,
        /// The other end.
        target: String,
    },
}

/// What an edit did.
#[derive(Debug, Clone)]
pub enum GraphEdited {
    /// The entity created.
    Entity(Entity),
    /// An entity edit: the entity after it and what happened (renamed, merged).
    EntityEdited(EditOutcome),
    /// The relation created or edited.
    Relation(Relation),
    /// A merge's outcome.
    Merged(MergeOutcome),
    /// What a deletion removed.
    Deleted(GraphDeletion),
}

/// Applies `edit`, unless `pipeline_busy` (see the module's rules).
pub async fn apply(engine: &Engine, edit: GraphEdit, pipeline_busy: bool) -> Result<GraphEdited> {
    if let GraphEdit::MergeEntities { sources, .. } = &edit
        && sources.is_empty()
    {
        return Err(AppError::invalid(&["entities_to_change"], "List should have at least 1 item"));
    }
    if pipeline_busy {
        return Err(AppError::Conflict(BUSY_MESSAGE.into()));
    }
    let done = match edit {
        GraphEdit::CreateEntity { name, data } => engine.create_entity(&name, data).await.map(GraphEdited::Entity),
        GraphEdit::EditEntity { name, changes, allow_rename, allow_merge } => {
            engine.edit_entity(&name, changes, allow_rename, allow_merge).await.map(GraphEdited::EntityEdited)
        }
        GraphEdit::CreateRelation { source, target, data } => {
            engine.create_relation(&source, &target, data).await.map(GraphEdited::Relation)
        }
        GraphEdit::EditRelation { source, target, changes } => {
            engine.edit_relation(&source, &target, changes).await.map(GraphEdited::Relation)
        }
        GraphEdit::MergeEntities { sources, target, target_data } => {
            engine.merge_entities(&sources, &target, target_data).await.map(GraphEdited::Merged)
        }
        GraphEdit::DeleteEntity { name } => engine.delete_entity(&name).await.map(GraphEdited::Deleted),
        GraphEdit::DeleteRelation { source, target } => {
            engine.delete_relation(&source, &target).await.map(GraphEdited::Deleted)
        }
    };
    done.map_err(|e| match e {
        EngineError::NotFound(message) => AppError::NotFound(message),
        other => AppError::Engine(other),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::testing::engine;

    fn described(text: &str) -> EntityInput {
        EntityInput { description: text.into(), ..EntityInput::default() }
    }

    #[tokio::test]
    async fn edits_are_refused_while_the_pipeline_is_busy_and_missing_names_are_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine(dir.path()).await;
        let create = GraphEdit::CreateEntity { name: "Ahab".into(), data: described("a captain") };
        let busy = apply(&engine, create.clone(), true).await.unwrap_err();
        assert!(matches!(busy, AppError::Conflict(ref m) if m == BUSY_MESSAGE), "{busy:?}");
        assert!(engine.get_entity("Ahab").await.unwrap().is_none(), "a refused edit changed the graph");
        let GraphEdited::Entity(created) = apply(&engine, create, false).await.unwrap() else { panic!() };
        assert_eq!(created.name, "Ahab");
        let missing = apply(&engine, GraphEdit::DeleteEntity { name: "Starbuck".into() }, false).await.unwrap_err();
        assert!(matches!(missing, AppError::NotFound(_)), "{missing:?}");
        let edit = GraphEdit::EditRelation {
            source: "Ahab".into(),
            target: "Starbuck".into(),
            changes: RelationUpdate::default(),
        };
        assert!(matches!(apply(&engine, edit, false).await.unwrap_err(), AppError::NotFound(_)));
        let merge = GraphEdit::MergeEntities { sources: vec![], target: "Ahab".into(), target_data: None };
        let e = apply(&engine, merge, false).await.unwrap_err();
        assert_eq!(e.problems()[0].path(), "entities_to_change", "{e:?}");
    }
}
