//! Graph edits ([`GraphEdits`]) — create, edit, merge and delete entities and relations: the REST graph routes
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

pub use lightrag_engine::maintenance::graph_edit::{
    EditOutcome, EntityInput, EntityUpdate, GraphDeletion, MergeOutcome, RelationInput, RelationUpdate,
};
use lightrag_engine::{Engine, EngineError};
use lightrag_ports::{Entity, Relation};

use crate::error::{AppError, Result};

/// The message of an edit refused while the pipeline runs.
pub const BUSY_MESSAGE: &str =
    "The pipeline is busy; graph edits are refused while documents are processed. Retry later";

/// The graph edits of one knowledge base, for one request: each method is one edit, with the
/// module's rules.
#[derive(Clone, Copy)]
pub struct GraphEdits<'a> {
    engine: &'a Engine,
    pipeline_busy: bool,
}

impl<'a> GraphEdits<'a> {
    /// The edits of `engine`; `pipeline_busy` says whether the front end's pipeline runs a job
    /// now (every edit is then refused).
    pub fn new(engine: &'a Engine, pipeline_busy: bool) -> Self {
        GraphEdits { engine, pipeline_busy }
    }

    /// A new entity.
    pub async fn create_entity(self, name: &str, data: EntityInput) -> Result<Entity> {
        self.admit()?;
        found(self.engine.create_entity(name, data).await)
    }

    /// Changes to an entity; `allow_rename` lets `changes.entity_name` rename it, `allow_merge`
    /// merges it into an existing entity of that name.
    pub async fn edit_entity(
        self,
        name: &str,
        changes: EntityUpdate,
        allow_rename: bool,
        allow_merge: bool,
    ) -> Result<EditOutcome> {
        self.admit()?;
        found(self.engine.edit_entity(name, changes, allow_rename, allow_merge).await)
    }

    /// A new relation between two existing entities.
    pub async fn create_relation(self, source: &str, target: &str, data: RelationInput) -> Result<Relation> {
        self.admit()?;
        found(self.engine.create_relation(source, target, data).await)
    }

    /// Changes to a relation.
    pub async fn edit_relation(self, source: &str, target: &str, changes: RelationUpdate) -> Result<Relation> {
        self.admit()?;
        found(self.engine.edit_relation(source, target, changes).await)
    }

    /// `sources` (at least one) merged into `target`, created when missing; `target_data`
    /// overrides fields of the result.
    pub async fn merge_entities(
        self,
        sources: &[String],
        target: &str,
        target_data: Option<EntityUpdate>,
    ) -> Result<MergeOutcome> {
        if sources.is_empty() {
            return Err(AppError::invalid(&["entities_to_change"], "List should have at least 1 item"));
        }
        self.admit()?;
        found(self.engine.merge_entities(sources, target, target_data).await)
    }

    /// An entity and its relations deleted.
    pub async fn delete_entity(self, name: &str) -> Result<GraphDeletion> {
        self.admit()?;
        found(self.engine.delete_entity(name).await)
    }

    /// A relation deleted.
    pub async fn delete_relation(self, source: &str, target: &str) -> Result<GraphDeletion> {
        self.admit()?;
        found(self.engine.delete_relation(source, target).await)
    }

    fn admit(self) -> Result<()> {
        if self.pipeline_busy { Err(AppError::Conflict(BUSY_MESSAGE.into())) } else { Ok(()) }
    }
}

/// The engine's answer, a missing name as [`AppError::NotFound`].
fn found<T>(done: std::result::Result<T, EngineError>) -> Result<T> {
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
        let busy = GraphEdits::new(&engine, true).create_entity("Ahab", described("a captain")).await.unwrap_err();
        assert!(matches!(busy, AppError::Conflict(ref m) if m == BUSY_MESSAGE), "{busy:?}");
        assert!(engine.get_entity("Ahab").await.unwrap().is_none(), "a refused edit changed the graph");
        let edits = GraphEdits::new(&engine, false);
        let created = edits.create_entity("Ahab", described("a captain")).await.unwrap();
        assert_eq!(created.name, "Ahab");
        let missing = edits.delete_entity("Starbuck").await.unwrap_err();
        assert!(matches!(missing, AppError::NotFound(_)), "{missing:?}");
        let edit = edits.edit_relation("Ahab", "Starbuck", RelationUpdate::default()).await.unwrap_err();
        assert!(matches!(edit, AppError::NotFound(_)), "{edit:?}");
        // the list is checked before the busy pipeline (a malformed request is told so first)
        let e = GraphEdits::new(&engine, true).merge_entities(&[], "Ahab", None).await.unwrap_err();
        assert_eq!(e.problems()[0].path(), "entities_to_change", "{e:?}");
    }
}
