//! Manual graph editing (LightRAG §5.7): read, create, edit, rename, merge and delete entities and
//! relations, for the REST graph routes (§1.6) and the library.
//!
//! Every mutation takes the engine's writer slot, reads what it changes, computes the result,
//! embeds the new contents and writes **one** [`ChangeSet`] that names the versions it read, so a
//! concurrent writer in another process turns into a conflict (retried a few times) instead of a
//! lost update. Renames and merges also rewrite what later document deletions rely on: the
//! per-chunk extraction records and the document links (see [`crate::maintenance::delete`]), so deleting a
//! document after a merge rebuilds the merged entity under its new name.
//!
//! Errors: [`EngineError::Invalid`] for bad input (HTTP 400), [`EngineError::NotFound`] for a
//! missing entity or relation (HTTP 404).

mod rewire;
mod unmerge;

use std::future::Future;

use lightrag_ports::{
    ChangeSet, ChunkListEdit, Entity, GraphKey, RelKey, Relation, StoreError, TextKind, VectorKind, VectorRecord,
};
use serde::{Deserialize, Serialize};

use crate::engine::Engine;
use crate::error::{EngineError, Result};
use crate::indexing::merge::{UNKNOWN_TYPE, entity_vector_content, relation_vector_content};
use crate::providers::gateway::EmbedCall;
use crate::time::now_ms;

pub use rewire::MergeOutcome;
pub use unmerge::{EntityAlias, UnmergeOutcome};

/// Source id and file path given to entities and relations created by hand when none is given.
pub const MANUAL_SOURCE: &str = "manual_creation";

/// How many times a mutation is recomputed when another writer changed what it read.
const CONFLICT_ATTEMPTS: usize = 5;

/// A new entity.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntityInput {
    /// Type (empty = `UNKNOWN`).
    pub entity_type: String,
    /// Description (required, non-empty).
    pub description: String,
    /// Chunk ids (default `manual_creation`).
    pub source_ids: Option<Vec<String>>,
    /// File paths (default `manual_creation`).
    pub file_paths: Option<Vec<String>>,
}

/// A new relation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RelationInput {
    /// Description (required, non-empty).
    pub description: String,
    /// Comma-separated keywords.
    pub keywords: String,
    /// Weight (default 1.0; finite and not negative).
    pub weight: Option<f64>,
    /// Chunk ids (default none).
    pub source_ids: Option<Vec<String>>,
    /// File paths (default `manual_creation`).
    pub file_paths: Option<Vec<String>>,
}

/// Changes to an entity; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntityUpdate {
    /// New name (a rename).
    pub entity_name: Option<String>,
    /// New type.
    pub entity_type: Option<String>,
    /// New description (may not be empty).
    pub description: Option<String>,
    /// New chunk ids.
    pub source_ids: Option<Vec<String>>,
    /// New file paths.
    pub file_paths: Option<Vec<String>>,
}

/// Changes to a relation; absent fields stay.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RelationUpdate {
    /// New description (may not be empty).
    pub description: Option<String>,
    /// New comma-separated keywords.
    pub keywords: Option<String>,
    /// New weight (finite, not negative).
    pub weight: Option<f64>,
    /// New chunk ids.
    pub source_ids: Option<Vec<String>>,
    /// New file paths.
    pub file_paths: Option<Vec<String>>,
}

/// Whether a merge was attempted and how it went (LightRAG's `merge_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MergeStatus {
    /// The entity was merged into the target.
    Success,
    /// The merge failed.
    Failed,
    /// No merge was needed.
    NotAttempted,
}

/// Overall result of an edit (LightRAG's `operation_status`). Edits here are atomic, so a failed
/// edit is an error and `partial_success` is never produced; the value exists for the wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OperationStatus {
    /// Everything asked for was done.
    Success,
    /// Field updates were applied but the merge failed.
    PartialSuccess,
    /// Nothing was applied.
    Failure,
}

/// LightRAG's `operation_summary` of an entity edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationSummary {
    /// Whether the entity was merged into an existing one.
    pub merged: bool,
    /// Merge status.
    pub merge_status: MergeStatus,
    /// Merge error text, if a merge failed.
    pub merge_error: Option<String>,
    /// Overall status.
    pub operation_status: OperationStatus,
    /// The entity merged into, when merged.
    pub target_entity: Option<String>,
    /// The entity's name after the operation.
    pub final_entity: String,
    /// Whether the name changed.
    pub renamed: bool,
}

/// Result of [`Engine::edit_entity`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditOutcome {
    /// The entity after the edit (the merge target when merged).
    pub entity: Entity,
    /// What happened.
    pub operation_summary: OperationSummary,
}

/// What a graph deletion removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GraphDeletion {
    /// Entities removed.
    pub deleted_entities: Vec<String>,
    /// Relations removed.
    pub deleted_relations: Vec<RelKey>,
}

/// The distinct, trimmed, non-empty entries of a list, in order.
pub(crate) fn distinct(values: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in values.iter().map(|v| v.trim()).filter(|p| !p.is_empty()) {
        if !out.iter().any(|p| p == part) {
            out.push(part.to_string());
        }
    }
    out
}

fn check_name(name: &str, what: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(EngineError::Invalid(format!("{what} name cannot be empty")));
    }
    if name.contains('\u{1f}') {
        return Err(EngineError::Invalid(format!("{what} name '{name}' contains a control character (U+001F)")));
    }
    Ok(name.to_string())
}

fn check_description(description: &str, what: &str, operation: &str) -> Result<String> {
    let d = description.trim();
    if d.is_empty() {
        return Err(EngineError::Invalid(format!(
            "{what} description cannot be empty for {operation} operation; send a non-empty description"
        )));
    }
    Ok(d.to_string())
}

fn check_weight(weight: f64) -> Result<f64> {
    if !weight.is_finite() || weight < 0.0 {
        return Err(EngineError::Invalid(format!("relation weight must be a finite number ≥ 0, got {weight}")));
    }
    Ok(weight)
}

/// The chunk-list edits that follow a change of the shown source ids from `old` to `new`: ids
/// dropped from the shown list leave the full list, new ones join it at the end (LightRAG's
/// incremental chunk tracking).
fn chunk_list_edits(old: &[String], new: &[String]) -> Vec<ChunkListEdit> {
    let dropped: Vec<String> = old.iter().filter(|c| !new.contains(c)).cloned().collect();
    let mut edits = Vec::new();
    if !dropped.is_empty() {
        edits.push(ChunkListEdit::Remove(dropped));
    }
    if !new.is_empty() {
        edits.push(ChunkListEdit::Append(new.to_vec()));
    }
    edits
}

/// Applies a chunk-list edit to a list held in memory, as the store applies it.
pub(crate) fn edit_list(list: &mut Vec<String>, edit: &ChunkListEdit) {
    match edit {
        ChunkListEdit::Append(ids) => {
            for id in ids {
                if !list.contains(id) {
                    list.push(id.clone());
                }
            }
        }
        ChunkListEdit::Remove(ids) => list.retain(|c| !ids.contains(c)),
        ChunkListEdit::Replace(ids) => {
            list.clear();
            edit_list(list, &ChunkListEdit::Append(ids.clone()));
        }
    }
}

/// Applies the non-name fields of `update` to `entity` (validated); returns the edits its chunk
/// list needs.
fn apply_entity_update(entity: &mut Entity, update: &EntityUpdate) -> Result<Vec<ChunkListEdit>> {
    if let Some(d) = &update.description {
        entity.description = check_description(d, "entity", "edit")?;
    }
    if let Some(t) = &update.entity_type {
        let t = t.trim();
        entity.entity_type = if t.is_empty() { UNKNOWN_TYPE.to_string() } else { t.to_string() };
    }
    let mut edits = Vec::new();
    if let Some(s) = &update.source_ids {
        let new = distinct(s);
        edits = chunk_list_edits(&entity.source_ids, &new);
        entity.source_ids = new;
        entity.truncate.clear();
    }
    if let Some(f) = &update.file_paths {
        entity.file_paths = distinct(f);
    }
    Ok(edits)
}

fn is_conflict(e: &EngineError) -> bool {
    matches!(e, EngineError::Store(StoreError::Conflict(_)))
}

impl Engine {
    /// Runs `attempt` again when the store reports a concurrent update, up to a few times.
    async fn retry_conflicts<T, F, Fut>(&self, attempt: F) -> Result<T>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let mut tries = 0;
        loop {
            tries += 1;
            match attempt().await {
                Err(e) if is_conflict(&e) && tries < CONFLICT_ATTEMPTS => {
                    tracing::debug!("graph edit conflicted with another writer, retrying: {e}");
                }
                other => return other,
            }
        }
    }

    /// Commits a change set with the usage accrued by this handle; on failure the usage is kept.
    pub(crate) async fn commit_edit(&self, mut changes: ChangeSet) -> Result<()> {
        changes.usage = self.inner.gateway.take_unflushed();
        let usage = changes.usage.clone();
        if let Err(e) = self.inner.store.apply(changes).await {
            self.inner.gateway.restore_unflushed(usage);
            return Err(e.into());
        }
        Ok(())
    }

    /// Embeds `(kind, key, content)` triples into vector records.
    pub(crate) async fn embed_records(&self, items: Vec<(VectorKind, String, String)>) -> Result<Vec<VectorRecord>> {
        let texts: Vec<(TextKind, String)> = items.iter().map(|(k, _, c)| (TextKind::of(*k), c.clone())).collect();
        let vectors =
            self.inner.gateway.embed(EmbedCall::mixed(&texts, crate::providers::limiter::Priority::Query)).await?;
        Ok(items
            .into_iter()
            .zip(vectors)
            .map(|((kind, key, content), vector)| VectorRecord { kind, key, content, vector })
            .collect())
    }

    /// An entity by name.
    pub async fn get_entity(&self, name: &str) -> Result<Option<Entity>> {
        Ok(self.inner.store.get_entities(&[name.to_string()]).await?.into_iter().next().flatten())
    }

    /// The relation between `a` and `b` (either order).
    pub async fn get_relation(&self, a: &str, b: &str) -> Result<Option<Relation>> {
        Ok(self.inner.store.get_relations(&[RelKey::new(a, b)]).await?.into_iter().next().flatten())
    }

    /// Whether an entity with this exact name exists.
    pub async fn entity_exists(&self, name: &str) -> Result<bool> {
        Ok(self.get_entity(name).await?.is_some())
    }

    async fn require_entity(&self, name: &str) -> Result<Entity> {
        self.get_entity(name).await?.ok_or_else(|| EngineError::NotFound(format!("entity '{name}' does not exist")))
    }

    /// Creates an entity. Fails if one with that name exists or the description is empty.
    pub async fn create_entity(&self, name: &str, input: EntityInput) -> Result<Entity> {
        let name = check_name(name, "entity")?;
        let description = check_description(&input.description, "entity", "create")?;
        let _writer = self.inner.merge_lock.lock().await;
        self.retry_conflicts(|| async {
            if self.get_entity(&name).await?.is_some() {
                return Err(EngineError::Invalid(format!("entity '{name}' already exists")));
            }
            let entity_type = match input.entity_type.trim() {
                "" => UNKNOWN_TYPE.to_string(),
                t => t.to_string(),
            };
            let sources = input.source_ids.as_deref().map_or_else(|| vec![MANUAL_SOURCE.to_string()], distinct);
            let entity = Entity {
                name: name.clone(),
                entity_type,
                description: description.clone(),
                source_ids: sources.clone(),
                chunk_count: sources.len(),
                file_paths: input.file_paths.as_deref().map_or_else(|| vec![MANUAL_SOURCE.to_string()], distinct),
                created_at: now_ms(),
                truncate: String::new(),
                version: 0,
            };
            let vectors = self
                .embed_records(vec![(VectorKind::Entity, name.clone(), entity_vector_content(&name, &description))])
                .await?;
            self.commit_edit(ChangeSet {
                expect_entities: vec![(name.clone(), None)],
                entities: vec![entity],
                vectors,
                chunk_lists: vec![(GraphKey::Entity(name.clone()), ChunkListEdit::Replace(sources))],
                ..Default::default()
            })
            .await?;
            self.require_entity(&name).await
        })
        .await
    }

    /// Creates the (undirected) relation between two existing entities. Fails if it exists.
    pub async fn create_relation(&self, src: &str, tgt: &str, input: RelationInput) -> Result<Relation> {
        let (src, tgt) = (check_name(src, "source entity")?, check_name(tgt, "target entity")?);
        if src == tgt {
            return Err(EngineError::Invalid(format!(
                "cannot create a self-loop relation on '{src}': source and target must be different entities"
            )));
        }
        let description = check_description(&input.description, "relation", "create")?;
        let weight = check_weight(input.weight.unwrap_or(1.0))?;
        let key = RelKey::new(src.clone(), tgt.clone());
        let _writer = self.inner.merge_lock.lock().await;
        self.retry_conflicts(|| async {
            let ends = self.inner.store.get_entities(&[src.clone(), tgt.clone()]).await?;
            let mut expect_entities = Vec::new();
            for (name, found) in [&src, &tgt].into_iter().zip(&ends) {
                let found =
                    found.as_ref().ok_or_else(|| EngineError::Invalid(format!("entity '{name}' does not exist")))?;
                expect_entities.push((name.clone(), Some(found.version)));
            }
            if self.get_relation(&src, &tgt).await?.is_some() {
                return Err(EngineError::Invalid(format!("relation between '{src}' and '{tgt}' already exists")));
            }
            let keywords = rewire::normalise_keywords([input.keywords.as_str()]);
            let sources = input.source_ids.as_deref().map(distinct).unwrap_or_default();
            let relation = Relation {
                key: key.clone(),
                weight,
                keywords: keywords.clone(),
                description: description.clone(),
                source_ids: sources.clone(),
                chunk_count: sources.len(),
                file_paths: input.file_paths.as_deref().map_or_else(|| vec![MANUAL_SOURCE.to_string()], distinct),
                created_at: now_ms(),
                truncate: String::new(),
                version: 0,
            };
            let vectors = self
                .embed_records(vec![(
                    VectorKind::Relation,
                    VectorRecord::relation_key(&key),
                    relation_vector_content(&key, &keywords, &description),
                )])
                .await?;
            self.commit_edit(ChangeSet {
                expect_entities,
                expect_relations: vec![(key.clone(), None)],
                relations: vec![relation],
                vectors,
                chunk_lists: vec![(GraphKey::Relation(key.clone()), ChunkListEdit::Replace(sources))],
                ..Default::default()
            })
            .await?;
            self.get_relation(&src, &tgt)
                .await?
                .ok_or_else(|| EngineError::NotFound(format!("relation {key} vanished")))
        })
        .await
    }

    /// Edits an entity: updates fields and re-embeds it. A new `entity_name` renames it (needs
    /// `allow_rename`), moving its relations, vector and provenance; renaming onto an existing
    /// entity fails unless `allow_merge`, in which case the entity is merged into that one.
    pub async fn edit_entity(
        &self,
        name: &str,
        update: EntityUpdate,
        allow_rename: bool,
        allow_merge: bool,
    ) -> Result<EditOutcome> {
        let name = check_name(name, "entity")?;
        if let Some(d) = &update.description {
            check_description(d, "entity", "edit")?;
        }
        let new_name = match update.entity_name.as_deref() {
            Some(n) => check_name(n, "new entity")?,
            None => name.clone(),
        };
        let renaming = new_name != name;
        if renaming && !allow_rename {
            return Err(EngineError::Invalid(format!(
                "renaming '{name}' to '{new_name}' is not allowed; set allow_rename to true to rename"
            )));
        }
        let _writer = self.inner.merge_lock.lock().await;
        self.retry_conflicts(|| async {
            let mut entity = self.require_entity(&name).await?;
            let read_version = entity.version;
            let edits = apply_entity_update(&mut entity, &update)?;
            let mut summary = OperationSummary {
                merged: false,
                merge_status: MergeStatus::NotAttempted,
                merge_error: None,
                operation_status: OperationStatus::Success,
                target_entity: None,
                final_entity: new_name.clone(),
                renamed: renaming,
            };
            if !renaming {
                let vectors = self
                    .embed_records(vec![(
                        VectorKind::Entity,
                        name.clone(),
                        entity_vector_content(&name, &entity.description),
                    )])
                    .await?;
                let owner = GraphKey::Entity(name.clone());
                self.commit_edit(ChangeSet {
                    expect_entities: vec![(name.clone(), Some(read_version))],
                    entities: vec![entity],
                    vectors,
                    chunk_lists: edits.into_iter().map(|e| (owner.clone(), e)).collect(),
                    ..Default::default()
                })
                .await?;
                return Ok(EditOutcome { entity: self.require_entity(&name).await?, operation_summary: summary });
            }
            match self.get_entity(&new_name).await? {
                Some(_) if !allow_merge => Err(EngineError::Invalid(format!(
                    "entity name '{new_name}' already exists, cannot rename '{name}' to it; \
                     set allow_merge to true to merge into it"
                ))),
                Some(existing) => {
                    let outcome = self.merge_locked(vec![entity], existing, None, edits).await?;
                    summary.merged = true;
                    summary.merge_status = MergeStatus::Success;
                    summary.target_entity = Some(new_name.clone());
                    Ok(EditOutcome { entity: outcome.merged_entity, operation_summary: summary })
                }
                None => {
                    let mut target = entity.clone();
                    target.name = new_name.clone();
                    target.created_at = now_ms();
                    let (changes, _) = self.rewire(&[entity], None, target, &edits, &[]).await?;
                    self.commit_edit(changes).await?;
                    Ok(EditOutcome { entity: self.require_entity(&new_name).await?, operation_summary: summary })
                }
            }
        })
        .await
    }

    /// Edits a relation's fields and re-embeds it.
    pub async fn edit_relation(&self, src: &str, tgt: &str, update: RelationUpdate) -> Result<Relation> {
        let description =
            update.description.as_deref().map(|d| check_description(d, "relation", "edit")).transpose()?;
        let weight = update.weight.map(check_weight).transpose()?;
        let _writer = self.inner.merge_lock.lock().await;
        self.retry_conflicts(|| async {
            let mut relation = self
                .get_relation(src, tgt)
                .await?
                .ok_or_else(|| EngineError::NotFound(format!("relation between '{src}' and '{tgt}' does not exist")))?;
            let read_version = relation.version;
            if let Some(d) = &description {
                relation.description = d.clone();
            }
            if let Some(k) = &update.keywords {
                relation.keywords = rewire::normalise_keywords([k.as_str()]);
            }
            if let Some(w) = weight {
                relation.weight = w;
            }
            let mut edits = Vec::new();
            if let Some(s) = &update.source_ids {
                let new = distinct(s);
                edits = chunk_list_edits(&relation.source_ids, &new);
                relation.source_ids = new;
                relation.truncate.clear();
            }
            if let Some(f) = &update.file_paths {
                relation.file_paths = distinct(f);
            }
            let key = relation.key.clone();
            let vectors = self
                .embed_records(vec![(
                    VectorKind::Relation,
                    VectorRecord::relation_key(&key),
                    relation_vector_content(&key, &relation.keywords, &relation.description),
                )])
                .await?;
            let owner = GraphKey::Relation(key.clone());
            self.commit_edit(ChangeSet {
                expect_relations: vec![(key.clone(), Some(read_version))],
                relations: vec![relation],
                vectors,
                chunk_lists: edits.into_iter().map(|e| (owner.clone(), e)).collect(),
                ..Default::default()
            })
            .await?;
            self.get_relation(src, tgt).await?.ok_or_else(|| EngineError::NotFound(format!("relation {key} vanished")))
        })
        .await
    }

    /// Merges `sources` into `target`: the target is created when missing; descriptions are
    /// concatenated, provenance unioned, relations re-pointed (duplicates merged, self-loops
    /// dropped), vectors rewritten and the sources deleted. `target_data` overrides merged fields.
    pub async fn merge_entities(
        &self,
        sources: &[String],
        target: &str,
        target_data: Option<EntityUpdate>,
    ) -> Result<MergeOutcome> {
        let target = check_name(target, "target entity")?;
        let mut names: Vec<String> = Vec::new();
        for s in sources {
            let s = check_name(s, "source entity")?;
            if !names.contains(&s) {
                names.push(s);
            }
        }
        if names.is_empty() {
            return Err(EngineError::Invalid("at least one source entity is required for a merge".into()));
        }
        if let Some(data) = &target_data {
            if data.entity_name.is_some() {
                return Err(EngineError::Invalid(
                    "target_entity_data cannot rename the target; use the target name instead".into(),
                ));
            }
            if let Some(d) = &data.description {
                check_description(d, "entity", "merge")?;
            }
        }
        let _writer = self.inner.merge_lock.lock().await;
        self.retry_conflicts(|| async {
            let found = self.inner.store.get_entities(&names).await?;
            let mut source_entities = Vec::new();
            let mut existing_target = None;
            for (name, entity) in names.iter().zip(found) {
                let entity =
                    entity.ok_or_else(|| EngineError::NotFound(format!("source entity '{name}' does not exist")))?;
                if *name == target {
                    existing_target = Some(entity);
                } else {
                    source_entities.push(entity);
                }
            }
            if existing_target.is_none() {
                existing_target = self.get_entity(&target).await?;
            }
            if source_entities.is_empty() {
                return Err(EngineError::Invalid(format!("nothing to merge: every source is the target '{target}'")));
            }
            match existing_target {
                Some(existing) => self.merge_locked(source_entities, existing, target_data.as_ref(), Vec::new()).await,
                None => {
                    // merging into a new name: the target starts from the sources alone
                    let mut merged = rewire::merge_entity_records(&target, &source_entities, None);
                    let edits = match &target_data {
                        Some(data) => apply_entity_update(&mut merged, data)?,
                        None => Vec::new(),
                    };
                    let (changes, mut outcome) = self.rewire(&source_entities, None, merged, &[], &edits).await?;
                    self.commit_edit(changes).await?;
                    outcome.merged_entity = self.require_entity(&target).await?;
                    Ok(outcome)
                }
            }
        })
        .await
    }

    /// Merges `sources` (as read, with their versions; `source_edits` pending on their chunk
    /// lists) into the existing `target`. The caller holds the writer slot.
    async fn merge_locked(
        &self,
        sources: Vec<Entity>,
        target: Entity,
        target_data: Option<&EntityUpdate>,
        source_edits: Vec<ChunkListEdit>,
    ) -> Result<MergeOutcome> {
        let mut merged = rewire::merge_entity_records(&target.name, &sources, Some(&target));
        let edits = match target_data {
            Some(data) => apply_entity_update(&mut merged, data)?,
            None => Vec::new(),
        };
        let name = target.name.clone();
        let (changes, mut outcome) = self.rewire(&sources, Some(&target), merged, &source_edits, &edits).await?;
        self.commit_edit(changes).await?;
        outcome.merged_entity = self.require_entity(&name).await?;
        Ok(outcome)
    }

    /// Deletes an entity, every relation touching it, and their vectors.
    pub async fn delete_entity(&self, name: &str) -> Result<GraphDeletion> {
        let _writer = self.inner.merge_lock.lock().await;
        self.retry_conflicts(|| async {
            let entity = self.require_entity(name).await?;
            let relations = self.inner.store.relations_of(&[name.to_string()]).await?;
            let deleted_relations: Vec<RelKey> = relations.iter().map(|r| r.key.clone()).collect();
            self.commit_edit(ChangeSet {
                expect_entities: vec![(name.to_string(), Some(entity.version))],
                expect_relations: relations.iter().map(|r| (r.key.clone(), Some(r.version))).collect(),
                delete_entities: vec![name.to_string()],
                delete_relations: deleted_relations.clone(),
                ..Default::default()
            })
            .await?;
            Ok(GraphDeletion { deleted_entities: vec![name.to_string()], deleted_relations })
        })
        .await
    }

    /// Deletes the relation between `a` and `b` (either order) and its vector.
    pub async fn delete_relation(&self, a: &str, b: &str) -> Result<GraphDeletion> {
        let _writer = self.inner.merge_lock.lock().await;
        self.retry_conflicts(|| async {
            let relation = self
                .get_relation(a, b)
                .await?
                .ok_or_else(|| EngineError::NotFound(format!("relation between '{a}' and '{b}' does not exist")))?;
            self.commit_edit(ChangeSet {
                expect_relations: vec![(relation.key.clone(), Some(relation.version))],
                delete_relations: vec![relation.key.clone()],
                ..Default::default()
            })
            .await?;
            Ok(GraphDeletion { deleted_entities: Vec::new(), deleted_relations: vec![relation.key] })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_trims_and_dedups() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(distinct(&list(&[" a ", "b", "", "a"])), vec!["a", "b"]);
        assert!(distinct(&[]).is_empty());
    }

    #[test]
    fn chunk_tracking_follows_source_id_edits() {
        let mut full = vec!["c1".to_string(), "c2".into(), "c3".into()];
        let old = vec!["c1".to_string(), "c2".into()];
        let new = vec!["c2".to_string(), "c9".into()];
        for edit in chunk_list_edits(&old, &new) {
            edit_list(&mut full, &edit);
        }
        assert_eq!(full, vec!["c2", "c3", "c9"]);
    }

    #[test]
    fn update_rejects_empty_description_and_unknown_fields() {
        let mut e = Entity {
            name: "A".into(),
            entity_type: "person".into(),
            description: "d".into(),
            source_ids: vec![],
            chunk_count: 0,
            file_paths: vec![],
            created_at: 0,
            truncate: String::new(),
            version: 1,
        };
        let bad = EntityUpdate { description: Some("  ".into()), ..Default::default() };
        assert!(matches!(apply_entity_update(&mut e, &bad), Err(EngineError::Invalid(_))));
        let ok = EntityUpdate { entity_type: Some(String::new()), ..Default::default() };
        assert!(apply_entity_update(&mut e, &ok).is_ok());
        assert_eq!(e.entity_type, UNKNOWN_TYPE);
    }
}
