//! Renames and merges: folding entities into a target, re-pointing their relations (duplicates
//! merged, self-loops dropped), and keeping the records that document deletion relies on — the
//! per-chunk extraction records and the document links — consistent with the new names. Renamed
//! records keep the name the text used (`written_as`) and relations between two merged names are
//! folded away, not deleted, so [`Engine::unmerge_entity`] can undo the merge.

use std::collections::{BTreeMap, HashMap, HashSet};

use lightrag_ports::{
    ChangeSet, ChunkListEdit, DocLinks, Entity, GRAPH_FIELD_SEP, GraphKey, RelKey, Relation, VectorKind, VectorRecord,
    paging,
};
use serde::Serialize;

use crate::engine::Engine;
use crate::error::Result;
use crate::indexing::merge::{UNKNOWN_TYPE, entity_vector_content, relation_vector_content};
use crate::indexing::order::dedup_in_order;
use crate::time::now_ms;

/// Result of [`Engine::merge_entities`] (LightRAG's merge response `data`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergeOutcome {
    /// The target entity after the merge.
    pub merged_entity: Entity,
    /// Source entities removed.
    pub deleted_entities: Vec<String>,
    /// Relations of the sources re-pointed to the target (self-loops not counted).
    pub relationships_transferred: usize,
    /// Relations that collided after re-pointing and were merged into one.
    pub relations_merged: usize,
    /// Relations dropped because both ends became the target.
    pub self_loops_dropped: usize,
    /// Whether the target did not exist before.
    pub target_created: bool,
}

/// Order-preserving union of string lists, skipping empties and file-path placeholders.
pub(crate) fn union<'a>(lists: impl IntoIterator<Item = &'a Vec<String>>) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for item in lists.into_iter().flatten() {
        if !item.is_empty() && !item.starts_with("...truncated...") && seen.insert(item.as_str()) {
            out.push(item.clone());
        }
    }
    out
}

/// Distinct description fragments of several descriptions, joined with `<SEP>`.
fn concat_descriptions<'a>(descriptions: impl IntoIterator<Item = &'a str>) -> String {
    let mut seen = HashSet::new();
    let mut out: Vec<&str> = Vec::new();
    for fragment in descriptions.into_iter().flat_map(|d| d.split(GRAPH_FIELD_SEP)).map(str::trim) {
        if !fragment.is_empty() && seen.insert(fragment) {
            out.push(fragment);
        }
    }
    out.join(GRAPH_FIELD_SEP)
}

/// Comma-split, trimmed, de-duplicated and sorted keywords, joined with `,`.
pub(crate) fn normalise_keywords<'a>(lists: impl IntoIterator<Item = &'a str>) -> String {
    let mut keywords: Vec<String> = lists
        .into_iter()
        .flat_map(|k| k.split([',', '，']))
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect();
    keywords.sort();
    keywords.dedup();
    keywords.join(",")
}

/// The merged record of `sources` (in order) and an existing `target` (last): descriptions
/// concatenated, first known type kept, shown provenance unioned (the chunk lists are unioned
/// by [`Engine::rewire`]).
pub(crate) fn merge_entity_records(target_name: &str, sources: &[Entity], target: Option<&Entity>) -> Entity {
    let all: Vec<&Entity> = sources.iter().chain(target).collect();
    let entity_type = all
        .iter()
        .map(|e| e.entity_type.trim())
        .find(|t| !t.is_empty() && *t != UNKNOWN_TYPE)
        .unwrap_or(UNKNOWN_TYPE)
        .to_string();
    Entity {
        name: target_name.to_string(),
        entity_type,
        description: concat_descriptions(all.iter().map(|e| e.description.as_str())),
        source_ids: union(all.iter().map(|e| &e.source_ids)),
        chunk_count: 0,
        file_paths: union(all.iter().map(|e| &e.file_paths)),
        created_at: now_ms(),
        truncate: String::new(),
        version: target.map(|t| t.version).unwrap_or(0),
    }
}

/// One relation under `key` from every relation that lands there: descriptions concatenated,
/// keywords unioned, the highest weight, provenance unioned.
fn merge_relation_records(key: &RelKey, members: &[&Relation]) -> Relation {
    Relation {
        key: key.clone(),
        weight: members.iter().map(|r| r.weight).fold(0.0, f64::max),
        keywords: normalise_keywords(members.iter().map(|r| r.keywords.as_str())),
        description: concat_descriptions(members.iter().map(|r| r.description.as_str())),
        source_ids: union(members.iter().map(|r| &r.source_ids)),
        chunk_count: 0,
        file_paths: union(members.iter().map(|r| &r.file_paths)),
        created_at: now_ms(),
        truncate: members.iter().map(|r| r.truncate.as_str()).find(|t| !t.is_empty()).unwrap_or("").to_string(),
        version: 0,
    }
}

/// The document a chunk id belongs to (`{doc_id}-chunk-NNN`).
fn doc_of_chunk(chunk_id: &str) -> Option<&str> {
    chunk_id.rsplit_once("-chunk-").map(|(doc, _)| doc).filter(|d| !d.is_empty())
}

impl Engine {
    /// Computes the change set that folds `sources` (as read, with their versions) into `target`
    /// (the final record; `target_existing` is its stored state when it exists): the target
    /// written and re-embedded, the sources deleted, every relation of a source re-pointed and
    /// re-embedded, chunk lists unioned (the sources' lists, each after `source_edits`, then the
    /// target's; `target_edits` after that), extraction records and document links renamed.
    pub(super) async fn rewire(
        &self,
        sources: &[Entity],
        target_existing: Option<&Entity>,
        mut target: Entity,
        source_edits: &[ChunkListEdit],
        target_edits: &[ChunkListEdit],
    ) -> Result<(ChangeSet, MergeOutcome)> {
        let store = &self.inner.store;
        let tname = target.name.clone();
        let renamed: HashSet<&str> = sources.iter().map(|e| e.name.as_str()).filter(|n| *n != tname).collect();
        let map = |n: &str| if renamed.contains(n) { tname.clone() } else { n.to_string() };

        let mut names: Vec<String> = sources.iter().map(|e| e.name.clone()).collect();
        names.push(tname.clone());
        let relations = store.relations_of(&names).await?;

        let mut changes = ChangeSet::default();
        let mut outcome = MergeOutcome {
            merged_entity: target.clone(),
            deleted_entities: renamed.iter().map(|s| s.to_string()).collect(),
            relationships_transferred: 0,
            relations_merged: 0,
            self_loops_dropped: 0,
            target_created: target_existing.is_none(),
        };
        outcome.deleted_entities.sort();

        // group every relation under its key after re-pointing
        let mut groups: BTreeMap<RelKey, Vec<&Relation>> = BTreeMap::new();
        let mut moved: BTreeMap<RelKey, bool> = BTreeMap::new();
        let mut key_map: HashMap<RelKey, Option<RelKey>> = HashMap::new();
        let read: HashSet<&RelKey> = relations.iter().map(|r| &r.key).collect();
        for r in &relations {
            changes.expect_relations.push((r.key.clone(), Some(r.version)));
            let touches = renamed.contains(r.key.src.as_str()) || renamed.contains(r.key.tgt.as_str());
            if !touches {
                groups.entry(r.key.clone()).or_default().push(r);
                moved.entry(r.key.clone()).or_insert(false);
                continue;
            }
            changes.delete_relations.push(r.key.clone());
            let (a, b) = (map(&r.key.src), map(&r.key.tgt));
            if a == b {
                outcome.self_loops_dropped += 1;
                key_map.insert(r.key.clone(), None);
                continue;
            }
            let key = RelKey::new(a, b);
            key_map.insert(r.key.clone(), Some(key.clone()));
            outcome.relationships_transferred += 1;
            groups.entry(key.clone()).or_default().push(r);
            moved.insert(key, true);
        }

        let mut to_embed: Vec<(VectorKind, String, String)> = Vec::new();
        let mut touched_chunks: Vec<String> = Vec::new();
        for (key, members) in &groups {
            if !moved.get(key).copied().unwrap_or(false) {
                continue;
            }
            if members.len() > 1 {
                outcome.relations_merged += 1;
            }
            if !read.contains(key) {
                changes.expect_relations.push((key.clone(), None));
            }
            let merged = merge_relation_records(key, members);
            to_embed.push((
                VectorKind::Relation,
                VectorRecord::relation_key(key),
                relation_vector_content(key, &merged.keywords, &merged.description),
            ));
            let mut lists = Vec::with_capacity(members.len());
            for r in members {
                lists.push(paging::whole_chunk_list(store.as_ref(), &GraphKey::Relation(r.key.clone())).await?);
            }
            let list = union(lists.iter());
            touched_chunks.extend(list.iter().cloned());
            changes.chunk_lists.push((GraphKey::Relation(key.clone()), ChunkListEdit::Replace(list)));
            changes.relations.push(merged);
        }
        // self-loops' chunks still need their extraction records renamed
        for r in relations.iter().filter(|r| key_map.get(&r.key).is_some_and(|k| k.is_none())) {
            touched_chunks.extend(paging::whole_chunk_list(store.as_ref(), &GraphKey::Relation(r.key.clone())).await?);
        }

        // entities, and the target's chunk list
        let mut lists = Vec::new();
        for s in sources.iter().filter(|s| renamed.contains(s.name.as_str())) {
            changes.expect_entities.push((s.name.clone(), Some(s.version)));
            changes.delete_entities.push(s.name.clone());
            let mut list = paging::whole_chunk_list(store.as_ref(), &GraphKey::Entity(s.name.clone())).await?;
            for edit in source_edits {
                super::edit_list(&mut list, edit);
            }
            touched_chunks.extend(list.iter().cloned());
            lists.push(list);
        }
        if let Some(t) = target_existing {
            lists.push(paging::whole_chunk_list(store.as_ref(), &GraphKey::Entity(t.name.clone())).await?);
        }
        let mut target_list = union(lists.iter());
        for edit in target_edits {
            super::edit_list(&mut target_list, edit);
        }
        changes.chunk_lists.push((GraphKey::Entity(tname.clone()), ChunkListEdit::Replace(target_list)));
        changes.expect_entities.push((tname.clone(), target_existing.map(|t| t.version)));
        to_embed.push((VectorKind::Entity, tname.clone(), entity_vector_content(&tname, &target.description)));
        target.version = 0;
        changes.entities.push(target);
        changes.vectors = self.embed_records(to_embed).await?;

        // extraction records: rename the sources so rebuilds after a document deletion find them
        let touched_chunks = dedup_in_order(touched_chunks);
        let extractions = store.get_extractions(&touched_chunks).await?;
        let mut docs: Vec<String> = extractions.iter().map(|x| x.doc_id.clone()).collect();
        // each renamed record keeps the name the text used, and a relation between two merged
        // names is folded away rather than dropped: both make the merge reversible
        let rename = |name: &mut String, written: &mut Option<String>| {
            let mapped = map(name);
            if mapped != *name {
                written.get_or_insert_with(|| name.clone());
                *name = mapped;
                if written.as_deref() == Some(name.as_str()) {
                    *written = None;
                }
            }
        };
        for x in extractions {
            let mut y = x.clone();
            for e in &mut y.entities {
                rename(&mut e.name, &mut e.written_as);
            }
            let mut kept = Vec::with_capacity(y.relations.len());
            for mut r in std::mem::take(&mut y.relations) {
                rename(&mut r.src, &mut r.src_written_as);
                rename(&mut r.tgt, &mut r.tgt_written_as);
                if r.src == r.tgt {
                    y.folded_relations.push(r);
                } else {
                    kept.push(r);
                }
            }
            y.relations = kept;
            for r in &mut y.folded_relations {
                rename(&mut r.src, &mut r.src_written_as);
                rename(&mut r.tgt, &mut r.tgt_written_as);
            }
            if y != x {
                changes.extractions.push(y);
            }
        }

        // document links: name the target instead of the sources, re-keyed relations
        docs.extend(touched_chunks.iter().filter_map(|c| doc_of_chunk(c)).map(str::to_string));
        for doc_id in dedup_in_order(docs) {
            let Some(links) = store.get_doc_links(&doc_id).await? else { continue };
            let entities = dedup_in_order(links.entities.iter().map(|n| map(n)));
            let relations = dedup_in_order(links.relations.iter().filter_map(|k| match key_map.get(k) {
                Some(new) => new.clone(),
                None => Some(k.clone()),
            }));
            let updated = DocLinks { doc_id: links.doc_id.clone(), entities, relations };
            if updated != links {
                changes.doc_links.push(updated);
            }
        }
        Ok((changes, outcome))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: &str, b: &str, w: f64, kw: &str, d: &str, chunks: &[&str]) -> Relation {
        Relation {
            key: RelKey::new(a, b),
            weight: w,
            keywords: kw.into(),
            description: d.into(),
            source_ids: chunks.iter().map(|s| s.to_string()).collect(),
            chunk_count: chunks.len(),
            file_paths: vec!["f".into()],
            created_at: 0,
            truncate: String::new(),
            version: 1,
        }
    }

    #[test]
    fn duplicate_relations_merge_with_max_weight_and_unions() {
        let (a, b) = (
            rel("A", "X", 2.0, "war,peace", "one", &["c1"]),
            rel("B", "X", 5.0, "alliance, war", "two<SEP>one", &["c2", "c1"]),
        );
        let m = merge_relation_records(&RelKey::new("B", "X"), &[&a, &b]);
        assert_eq!(m.weight, 5.0);
        assert_eq!(m.keywords, "alliance,peace,war");
        assert_eq!(m.description, "one<SEP>two");
        assert_eq!(m.source_ids, vec!["c1", "c2"]);
        assert_eq!(m.file_paths, vec!["f"]);
    }

    #[test]
    fn chunk_ids_name_their_document() {
        assert_eq!(doc_of_chunk("doc-abc-chunk-003"), Some("doc-abc"));
        assert_eq!(doc_of_chunk("my-chunk-doc-chunk-010"), Some("my-chunk-doc"));
        assert_eq!(doc_of_chunk("manual_creation"), None);
    }
}
