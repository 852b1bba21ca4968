//! Undoing a merge: the names an entity was merged from are kept in its extraction records
//! (`written_as`), so one of them can be split off again — its records renamed back, and both
//! entities and every relation the split touches rebuilt from the records, the way a document
//! deletion rebuilds what it shared. Nothing is asked of the extraction LLM (a summary call only
//! where a rebuilt description needs one).
//!
//! What a rebuild cannot bring back are hand edits made to the merged entity (a description
//! typed through the API): both entities read what their chunks said, as after a deletion.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use lightrag_ports::{ChangeSet, ChunkExtraction, ChunkListEdit, DocLinks, Entity, GraphKey, RelKey, paging};
use serde::Serialize;

use super::check_name;
use crate::engine::Engine;
use crate::error::{EngineError, Result};
use crate::indexing::merge;
use crate::indexing::order::dedup_in_order;
use crate::maintenance::delete::{DeletionReport, Rebuild, plan::shown_part, rebuild};

/// A name an entity was merged from, as its extraction records remember it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntityAlias {
    /// The name as the text wrote it.
    pub name: String,
    /// Chunks whose records wrote it so.
    pub chunks: usize,
}

/// What [`Engine::unmerge_entity`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnmergeOutcome {
    /// The entity split off again, rebuilt from its records.
    pub restored_entity: Entity,
    /// The entity it had been merged into, rebuilt without it (`None` when nothing was left of it:
    /// it existed only as the merge's new name).
    pub remaining_entity: Option<Entity>,
    /// Extraction records (chunks) renamed back.
    pub chunks_restored: usize,
    /// Relations rebuilt or created by the split.
    pub relations_rebuilt: Vec<RelKey>,
    /// Relations that no chunk supports any more (they moved to the restored name).
    pub relations_deleted: Vec<RelKey>,
}

/// Renames back, in one record, what was written as `alias` and merged into `target`. Relations
/// folded into the target come back when one of their ends was the alias.
fn restore(record: &ChunkExtraction, target: &str, alias: &str) -> ChunkExtraction {
    let mut y = record.clone();
    let back = |name: &mut String, written: &mut Option<String>| {
        if name == target && written.as_deref() == Some(alias) {
            *name = alias.to_string();
            *written = None;
        }
    };
    for e in &mut y.entities {
        back(&mut e.name, &mut e.written_as);
    }
    for r in &mut y.relations {
        back(&mut r.src, &mut r.src_written_as);
        back(&mut r.tgt, &mut r.tgt_written_as);
    }
    let mut folded = Vec::with_capacity(y.folded_relations.len());
    for mut r in std::mem::take(&mut y.folded_relations) {
        back(&mut r.src, &mut r.src_written_as);
        back(&mut r.tgt, &mut r.tgt_written_as);
        if r.src == r.tgt {
            folded.push(r);
        } else {
            y.relations.push(r);
        }
    }
    y.folded_relations = folded;
    y
}

/// Whether a record names the entity `name` (as an entity or as an end of a relation).
fn names_entity(x: &ChunkExtraction, name: &str) -> bool {
    x.entities.iter().any(|e| e.name == name) || x.relations.iter().any(|r| r.src == name || r.tgt == name)
}

/// Whether a record states the relation `key`.
fn states_relation(x: &ChunkExtraction, key: &RelKey) -> bool {
    x.relations.iter().any(|r| RelKey::new(&*r.src, &*r.tgt) == *key)
}

/// The relation keys a record states that touch one of `names`.
fn relation_keys<'a>(x: &'a ChunkExtraction, names: &'a [&str]) -> impl Iterator<Item = RelKey> + 'a {
    x.relations
        .iter()
        .filter(|r| names.contains(&r.src.as_str()) || names.contains(&r.tgt.as_str()))
        .map(|r| RelKey::new(&*r.src, &*r.tgt))
}

/// A chunk list after the split: the chunks whose rewritten record no longer names the owner
/// leave it; rewritten chunks that now name it join it, in `order`.
fn split_list(
    old: &[String],
    order: &[String],
    rewritten: &HashMap<String, ChunkExtraction>,
    names: impl Fn(&ChunkExtraction) -> bool,
) -> Vec<String> {
    let mut out: Vec<String> = old.iter().filter(|c| rewritten.get(c.as_str()).is_none_or(&names)).cloned().collect();
    let present: HashSet<String> = out.iter().cloned().collect();
    out.extend(
        order.iter().filter(|c| !present.contains(*c) && rewritten.get(c.as_str()).is_some_and(&names)).cloned(),
    );
    dedup_in_order(out)
}

impl Engine {
    /// The names `name` was merged from (renamed from), as its extraction records wrote them,
    /// with how many chunks wrote each; empty when it was never merged.
    pub async fn entity_aliases(&self, name: &str) -> Result<Vec<EntityAlias>> {
        let entity = self.require_entity(name).await?;
        let store = self.inner.store.as_ref();
        let list = paging::whole_chunk_list(store, &GraphKey::Entity(entity.name.clone())).await?;
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for x in store.get_extractions(&list).await? {
            let written: BTreeSet<&str> = x
                .entities
                .iter()
                .filter(|e| e.name == entity.name)
                .filter_map(|e| e.written_as.as_deref())
                .chain(x.relations.iter().chain(&x.folded_relations).flat_map(|r| {
                    [(r.src.as_str(), r.src_written_as.as_deref()), (r.tgt.as_str(), r.tgt_written_as.as_deref())]
                        .into_iter()
                        .filter(|(n, _)| *n == entity.name)
                        .filter_map(|(_, w)| w)
                }))
                .collect();
            for w in written {
                *counts.entry(w.to_string()).or_default() += 1;
            }
        }
        Ok(counts.into_iter().map(|(name, chunks)| EntityAlias { name, chunks }).collect())
    }

    /// Splits `alias` off `target` again after a merge (or rename): every extraction record that
    /// wrote `alias` and was renamed to `target` is renamed back, relations folded by the merge
    /// come back, and both entities and the relations involved are rebuilt from the records. When
    /// `alias` exists again (a later document named it), the records join it.
    pub async fn unmerge_entity(&self, target: &str, alias: &str) -> Result<UnmergeOutcome> {
        let target = check_name(target, "merged entity")?;
        let alias = check_name(alias, "alias")?;
        if target == alias {
            return Err(EngineError::Invalid(format!(
                "'{alias}' is the merged entity itself; name one of its aliases"
            )));
        }
        let _writer = self.inner.merge_lock.lock().await;
        self.retry_conflicts(|| self.unmerge_locked(&target, &alias)).await
    }

    async fn unmerge_locked(&self, target: &str, alias: &str) -> Result<UnmergeOutcome> {
        let inner = &self.inner;
        let store = inner.store.as_ref();
        let merged = self.require_entity(target).await?;
        let existing_alias = self.get_entity(alias).await?;

        // the merged entity's chunks, and those of its relations, hold every renamed record
        let target_list = paging::whole_chunk_list(store, &GraphKey::Entity(target.to_string())).await?;
        let relations = store.relations_of(&[target.to_string()]).await?;
        let mut lists: HashMap<GraphKey, Vec<String>> = HashMap::new();
        let mut scan = target_list.clone();
        for r in &relations {
            let list = paging::whole_chunk_list(store, &GraphKey::Relation(r.key.clone())).await?;
            scan.extend(list.iter().cloned());
            lists.insert(GraphKey::Relation(r.key.clone()), list);
        }
        lists.insert(GraphKey::Entity(target.to_string()), target_list);
        let scan = dedup_in_order(scan);
        let before = store.get_extractions(&scan).await?;
        let mut rewritten: HashMap<String, ChunkExtraction> = HashMap::new();
        let mut touched_keys: BTreeSet<RelKey> = BTreeSet::new();
        let ends = [target, alias];
        for x in &before {
            let y = restore(x, target, alias);
            if y != *x {
                touched_keys.extend(relation_keys(x, &ends).chain(relation_keys(&y, &ends)));
                rewritten.insert(x.chunk_id.clone(), y);
            }
        }
        if rewritten.is_empty() {
            return Err(EngineError::NotFound(format!(
                "no extraction record of '{target}' was written as '{alias}'; \
                 `lightrag graph aliases \"{target}\"` lists the names it was merged from"
            )));
        }

        // the lists of everything the split touches, before and after
        if existing_alias.is_some() {
            let list = paging::whole_chunk_list(store, &GraphKey::Entity(alias.to_string())).await?;
            lists.insert(GraphKey::Entity(alias.to_string()), list);
        }
        let keys: Vec<RelKey> = touched_keys.into_iter().collect();
        let stored = store.get_relations(&keys).await?;
        for (key, found) in keys.iter().zip(&stored) {
            let owner = GraphKey::Relation(key.clone());
            if found.is_some() && !lists.contains_key(&owner) {
                lists.insert(owner.clone(), paging::whole_chunk_list(store, &owner).await?);
            }
        }
        let no_list = Vec::new();
        let mut new_lists: Vec<(GraphKey, Vec<String>)> = Vec::new();
        for name in ends {
            let owner = GraphKey::Entity(name.to_string());
            let old = lists.get(&owner).unwrap_or(&no_list);
            new_lists.push((owner, split_list(old, &scan, &rewritten, |x| names_entity(x, name))));
        }
        for key in &keys {
            let owner = GraphKey::Relation(key.clone());
            let old = lists.get(&owner).unwrap_or(&no_list);
            new_lists.push((owner, split_list(old, &scan, &rewritten, |x| states_relation(x, key))));
        }

        // rebuild what keeps chunks, delete what has none left
        let cfg = &inner.config.merge;
        let limits = (merge::entity_limits(cfg), merge::relation_limits(cfg));
        let mut report = DeletionReport::default();
        let mut entity_plans = Vec::new();
        let mut relation_plans = Vec::new();
        for (owner, list) in &new_lists {
            match owner {
                GraphKey::Entity(name) if list.is_empty() => report.entities_deleted.push(name.clone()),
                GraphKey::Relation(key) if list.is_empty() => report.relations_deleted.push(key.clone()),
                GraphKey::Entity(name) => {
                    let mut plan = Rebuild::new(name.clone(), shown_part(list.clone(), limits.0), list.len(), &[]);
                    plan.replace_list = Some(list.clone());
                    entity_plans.push(plan);
                }
                GraphKey::Relation(key) => {
                    relation_plans.push(Rebuild::new(key.clone(), shown_part(list.clone(), limits.1), list.len(), &[]))
                }
            }
        }
        let rebuilt = rebuild(inner, entity_plans, relation_plans, limits, &rewritten, &mut report).await?;
        let gone: HashSet<&String> = report.entities_deleted.iter().collect();
        if gone.contains(&alias.to_string()) {
            return Err(EngineError::Invalid(format!(
                "the records written as '{alias}' say nothing about it; nothing to split off '{target}'"
            )));
        }
        let mut relation_drafts = rebuilt.relation_drafts;
        relation_drafts.retain(|d| {
            let keep = !gone.contains(&d.key.src) && !gone.contains(&d.key.tgt);
            if !keep {
                report.relations_deleted.push(d.key.clone());
            }
            keep
        });
        // the target's other relations go with it when nothing is left of it
        for r in relations.iter().filter(|r| gone.contains(&r.key.src) || gone.contains(&r.key.tgt)) {
            report.relations_deleted.push(r.key.clone());
        }
        report.relations_deleted.sort();
        report.relations_deleted.dedup();
        let deleted: HashSet<&RelKey> = report.relations_deleted.iter().collect();
        let relations_rebuilt: Vec<RelKey> = relation_drafts.iter().map(|d| d.key.clone()).collect();
        let mut finished =
            merge::finish(inner, rebuilt.entity_drafts, relation_drafts, &merge::MergeMode::default()).await?;
        let created: HashMap<&RelKey, i64> = stored.iter().flatten().map(|r| (&r.key, r.created_at)).collect();
        for r in &mut finished.relations {
            if let Some(at) = created.get(&r.key) {
                r.created_at = *at;
            }
        }

        // document links: the documents of the renamed chunks name the alias and its relations
        let mut changes = ChangeSet {
            expect_entities: vec![
                (target.to_string(), Some(merged.version)),
                (alias.to_string(), existing_alias.as_ref().map(|e| e.version)),
            ],
            delete_entities: report.entities_deleted.clone(),
            delete_relations: report.relations_deleted.clone(),
            entities: finished.entities,
            relations: finished.relations,
            vectors: finished.vectors,
            ..Default::default()
        };
        let mut expected: BTreeMap<RelKey, Option<u64>> =
            keys.iter().cloned().zip(stored.iter().map(|r| r.as_ref().map(|r| r.version))).collect();
        for r in relations.iter().filter(|r| deleted.contains(&r.key)) {
            expected.insert(r.key.clone(), Some(r.version));
        }
        changes.expect_relations = expected.into_iter().collect();
        for (owner, list) in new_lists {
            let kept = match &owner {
                GraphKey::Entity(name) => !gone.contains(name),
                GraphKey::Relation(key) => !deleted.contains(key),
            };
            if kept {
                changes.chunk_lists.push((owner, ChunkListEdit::Replace(list)));
            }
        }
        let mut by_doc: BTreeMap<&str, Vec<&ChunkExtraction>> = BTreeMap::new();
        for y in rewritten.values() {
            by_doc.entry(y.doc_id.as_str()).or_default().push(y);
        }
        let alias_only = [alias];
        for (doc_id, records) in by_doc {
            let Some(links) = store.get_doc_links(doc_id).await? else { continue };
            let mut entities: Vec<String> = links.entities.iter().filter(|n| !gone.contains(n)).cloned().collect();
            entities.push(alias.to_string());
            let mut relations: Vec<RelKey> = links.relations.iter().filter(|k| !deleted.contains(k)).cloned().collect();
            relations.extend(records.iter().flat_map(|y| relation_keys(y, &alias_only)));
            let updated = DocLinks {
                doc_id: links.doc_id.clone(),
                entities: dedup_in_order(entities),
                relations: dedup_in_order(relations),
            };
            if updated != links {
                changes.doc_links.push(updated);
            }
        }
        let chunks_restored = rewritten.len();
        changes.extractions = rewritten.into_values().collect();
        changes.extractions.sort_by(|a, b| a.chunk_id.cmp(&b.chunk_id));
        self.commit_edit(changes).await?;
        Ok(UnmergeOutcome {
            restored_entity: self.require_entity(alias).await?,
            remaining_entity: self.get_entity(target).await?,
            chunks_restored,
            relations_rebuilt,
            relations_deleted: report.relations_deleted,
        })
    }
}

#[cfg(test)]
mod tests {
    use lightrag_ports::{ExtractedEntity, ExtractedRelation};

    use super::*;

    fn entity(name: &str, written_as: Option<&str>) -> ExtractedEntity {
        ExtractedEntity {
            name: name.into(),
            entity_type: "person".into(),
            description: format!("{} in the text", written_as.unwrap_or(name)),
            written_as: written_as.map(str::to_string),
        }
    }

    fn relation(src: (&str, Option<&str>), tgt: (&str, Option<&str>)) -> ExtractedRelation {
        ExtractedRelation {
            src: src.0.into(),
            tgt: tgt.0.into(),
            keywords: "k".into(),
            description: "d".into(),
            weight: 1.0,
            src_written_as: src.1.map(str::to_string),
            tgt_written_as: tgt.1.map(str::to_string),
        }
    }

    fn record(entities: Vec<ExtractedEntity>, relations: Vec<ExtractedRelation>) -> ChunkExtraction {
        ChunkExtraction {
            chunk_id: "c".into(),
            doc_id: "d".into(),
            entities,
            relations,
            cache_keys: Vec::new(),
            created_at: 0,
            folded_relations: Vec::new(),
        }
    }

    #[test]
    fn restore_renames_back_only_what_was_written_as_the_alias() {
        let mut x = record(
            vec![
                entity("Lothair II", Some("Lothair Ii")),
                entity("Lothair II", None),
                entity("Lothair II", Some("Lothar")),
            ],
            vec![relation(("Waldrada", None), ("Lothair II", Some("Lothair Ii")))],
        );
        x.folded_relations.push(relation(("Lothair II", Some("Lothair Ii")), ("Lothair II", None)));
        x.folded_relations.push(relation(("Lothair II", Some("Lothar")), ("Lothair II", None)));
        let y = restore(&x, "Lothair II", "Lothair Ii");
        let names: Vec<(&str, Option<&str>)> =
            y.entities.iter().map(|e| (e.name.as_str(), e.written_as.as_deref())).collect();
        assert_eq!(names, vec![("Lothair Ii", None), ("Lothair II", None), ("Lothair II", Some("Lothar"))]);
        assert_eq!(y.relations.len(), 2, "the folded relation between the two names is back");
        assert_eq!((y.relations[0].src.as_str(), y.relations[0].tgt.as_str()), ("Waldrada", "Lothair Ii"));
        assert_eq!((y.relations[1].src.as_str(), y.relations[1].tgt.as_str()), ("Lothair Ii", "Lothair II"));
        assert_eq!(y.folded_relations.len(), 1, "a relation folded from another alias stays folded");
        assert_eq!(restore(&y, "Lothair II", "Lothair Ii"), y, "nothing left to restore");
    }

    #[test]
    fn split_lists_move_rewritten_chunks_in_order() {
        let rewritten: HashMap<String, ChunkExtraction> = [
            ("c1".to_string(), record(vec![entity("A", None)], vec![])),
            ("c3".to_string(), record(vec![entity("A", None), entity("B", None)], vec![])),
        ]
        .into_iter()
        .collect();
        let order: Vec<String> = ["c1", "c2", "c3"].map(String::from).to_vec();
        let old_b: Vec<String> = order.clone();
        assert_eq!(split_list(&old_b, &order, &rewritten, |x| names_entity(x, "B")), vec!["c2", "c3"]);
        assert_eq!(split_list(&[], &order, &rewritten, |x| names_entity(x, "A")), vec!["c1", "c3"]);
    }
}
