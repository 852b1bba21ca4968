//! Merging extracted records into the graph (LightRAG §5.5).
//!
//! Entities merge by exact name, relations by their sorted endpoint pair. Descriptions keep every
//! distinct fragment (joined with `<SEP>`) until they pile up, then a map-reduce summary replaces
//! them (an LLM call, or an extractive cut when extraction is rule-based). Relation weights add up,
//! keywords are unioned and sorted. Provenance (chunk ids, file paths) is shown cut to the
//! configured limits with the KEEP or FIFO method ([`sources`]); the uncut chunk list is the
//! store's, extended by appending the new chunks.
//!
//! The same folding code serves incremental merges (existing state + one document's records) and
//! rebuilds after deletion (no existing state + the records of the shown remaining chunks).

mod fragment_tokens;
mod grouping;
pub mod sources;
mod summary;

use std::collections::{HashMap, HashSet};

use lightrag_ports::{
    ChunkListEdit, Entity, ExtractedEntity, ExtractedRelation, GRAPH_FIELD_SEP, GraphKey, RelKey, Relation, TextKind,
    VectorKind, VectorRecord,
};

use crate::config::MergeConfig;
use crate::engine::Inner;
use crate::error::Result;
use crate::prompts::SummaryKind;
use crate::providers::gateway::EmbedCall;
use crate::time::now_ms;

pub(crate) use fragment_tokens::FragmentTokens;
pub(crate) use grouping::{
    EndpointRecord, Grouped, SourcedExtraction, endpoint_contributions, endpoint_records, group,
};
pub use sources::Provenance;
use sources::{Limits, Stored};
pub use summary::claim_key as summary_claim_key;
pub(crate) use summary::{MadeSummary, SummaryClaims, SummaryPolicy, relation_summary_name, summary_request};
use summary::{rebased, summarize};

/// Type given to an entity that only appears as a relation endpoint.
pub const UNKNOWN_TYPE: &str = "UNKNOWN";

/// One chunk's statement about an entity.
#[derive(Debug, Clone)]
pub struct EntityContribution<'a> {
    /// The chunk.
    pub chunk_id: &'a str,
    /// The chunk's file path.
    pub file_path: &'a str,
    /// The record.
    pub record: &'a ExtractedEntity,
}

/// One chunk's statement about a relation.
#[derive(Debug, Clone)]
pub struct RelationContribution<'a> {
    /// The chunk.
    pub chunk_id: &'a str,
    /// The chunk's file path.
    pub file_path: &'a str,
    /// The record.
    pub record: &'a ExtractedRelation,
}

/// An entity whose description still needs summarising.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityDraft {
    /// Name.
    pub name: String,
    /// Chosen type.
    pub entity_type: String,
    /// Description fragments in order.
    pub fragments: Vec<String>,
    /// Provenance.
    pub provenance: Provenance,
    /// Whether the record changes at all (if not, only its chunk list grows).
    pub record_changed: bool,
    /// Whether the description changed (if not, the stored one is kept and not re-embedded).
    pub description_changed: bool,
    /// The stored description when unchanged.
    pub stored_description: Option<String>,
    /// The text the stored vector was made from (`None` for a new entity).
    pub previous_vector_text: Option<String>,
}

/// A relation whose description still needs summarising.
#[derive(Debug, Clone, PartialEq)]
pub struct RelationDraft {
    /// Key.
    pub key: RelKey,
    /// Summed weight.
    pub weight: f64,
    /// Sorted, comma-joined keywords.
    pub keywords: String,
    /// Description fragments in order.
    pub fragments: Vec<String>,
    /// Provenance.
    pub provenance: Provenance,
    /// Whether the record changes at all (if not, only its chunk list grows).
    pub record_changed: bool,
    /// Whether the description, or the keywords, changed (what the vector is made of).
    pub description_changed: bool,
    /// The stored description when unchanged.
    pub stored_description: Option<String>,
    /// The text the stored vector was made from (`None` for a new relation).
    pub previous_vector_text: Option<String>,
}

fn split_fragments(description: &str) -> Vec<String> {
    description.split(GRAPH_FIELD_SEP).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

fn push_unique(list: &mut Vec<String>, seen: &mut HashSet<String>, value: &str) {
    if !value.is_empty() && seen.insert(value.to_string()) {
        list.push(value.to_string());
    }
}

/// The stored description's fragments followed by the new, distinct descriptions; also returns
/// how many fragments were already stored.
fn merged_fragments<'a>(stored: Option<&str>, new: impl Iterator<Item = &'a str>) -> (Vec<String>, usize) {
    let mut seen = HashSet::new();
    let mut fragments = Vec::new();
    for f in stored.map(split_fragments).unwrap_or_default() {
        push_unique(&mut fragments, &mut seen, &f);
    }
    let before = fragments.len();
    for d in new {
        push_unique(&mut fragments, &mut seen, d.trim());
    }
    (fragments, before)
}

pub(crate) fn entity_limits(cfg: &MergeConfig) -> Limits {
    Limits {
        max_source_ids: cfg.max_source_ids_per_entity,
        method: cfg.source_ids_limit_method,
        max_file_paths: cfg.max_file_paths,
    }
}

pub(crate) fn relation_limits(cfg: &MergeConfig) -> Limits {
    Limits {
        max_source_ids: cfg.max_source_ids_per_relation,
        method: cfg.source_ids_limit_method,
        max_file_paths: cfg.max_file_paths,
    }
}

/// Folds contributions into an entity (incremental when `existing` is given, from scratch otherwise).
pub fn fold_entity(
    cfg: &MergeConfig,
    name: &str,
    existing: Option<&Entity>,
    contributions: &[EntityContribution<'_>],
) -> EntityDraft {
    let pairs: Vec<(&str, &str)> = contributions.iter().map(|c| (c.chunk_id, c.file_path)).collect();
    let stored =
        existing.map(|e| Stored { source_ids: &e.source_ids, file_paths: &e.file_paths, chunk_count: e.chunk_count });
    let (provenance, surviving) = sources::merged(stored, &pairs, entity_limits(cfg));
    let kept: Vec<&EntityContribution<'_>> = contributions.iter().filter(|c| surviving.contains(c.chunk_id)).collect();
    if let Some(existing) = existing.filter(|_| kept.is_empty()) {
        // nothing new is shown (KEEP with the limit reached): the record stays as it is, the
        // new chunks only join its list (LightRAG leaves the node unchanged)
        return EntityDraft {
            name: name.to_string(),
            entity_type: existing.entity_type.clone(),
            fragments: split_fragments(&existing.description),
            provenance: Provenance {
                source_ids: existing.source_ids.clone(),
                file_paths: existing.file_paths.clone(),
                truncate: existing.truncate.clone(),
                ..provenance
            },
            record_changed: false,
            description_changed: false,
            stored_description: Some(existing.description.clone()),
            previous_vector_text: Some(entity_vector_content(name, &existing.description)),
        };
    }
    entity_draft(name, existing, &kept, provenance)
}

/// Rebuilds an entity after a deletion from the contributions of its shown chunks (`window`, in
/// list order) out of `total` chunks left; `contributions` must be in window order.
pub fn rebuild_entity(
    cfg: &MergeConfig,
    name: &str,
    window: &[String],
    total: usize,
    contributions: &[EntityContribution<'_>],
) -> EntityDraft {
    let pairs: Vec<(&str, &str)> = contributions.iter().map(|c| (c.chunk_id, c.file_path)).collect();
    let provenance = sources::rebuilt(window, total, &pairs, entity_limits(cfg));
    let kept: Vec<&EntityContribution<'_>> = contributions.iter().collect();
    entity_draft(name, None, &kept, provenance)
}

fn entity_draft(
    name: &str,
    existing: Option<&Entity>,
    kept: &[&EntityContribution<'_>],
    provenance: Provenance,
) -> EntityDraft {
    // type: the most frequent among the existing type and the new records (ties: first seen)
    let mut counts: Vec<(String, usize)> = Vec::new();
    let existing_type = existing.map(|e| e.entity_type.as_str()).filter(|t| *t != UNKNOWN_TYPE);
    for t in existing_type.into_iter().chain(kept.iter().map(|c| c.record.entity_type.as_str())) {
        match counts.iter_mut().find(|(name, _)| name == t) {
            Some(slot) => slot.1 += 1,
            None => counts.push((t.to_string(), 1)),
        }
    }
    let mut entity_type = UNKNOWN_TYPE.to_string();
    let mut best = 0;
    for (t, n) in counts {
        if n > best {
            best = n;
            entity_type = t;
        }
    }
    let (fragments, before) =
        merged_fragments(existing.map(|e| e.description.as_str()), kept.iter().map(|c| c.record.description.as_str()));
    EntityDraft {
        name: name.to_string(),
        entity_type,
        record_changed: true,
        description_changed: existing.is_none() || fragments.len() != before,
        stored_description: existing.filter(|_| fragments.len() == before).map(|e| e.description.clone()),
        previous_vector_text: existing.map(|e| entity_vector_content(name, &e.description)),
        fragments,
        provenance,
    }
}

/// Folds contributions into a relation.
pub fn fold_relation(
    cfg: &MergeConfig,
    key: &RelKey,
    existing: Option<&Relation>,
    contributions: &[RelationContribution<'_>],
) -> RelationDraft {
    let pairs: Vec<(&str, &str)> = contributions.iter().map(|c| (c.chunk_id, c.file_path)).collect();
    let stored =
        existing.map(|r| Stored { source_ids: &r.source_ids, file_paths: &r.file_paths, chunk_count: r.chunk_count });
    let (provenance, surviving) = sources::merged(stored, &pairs, relation_limits(cfg));
    let kept: Vec<&RelationContribution<'_>> =
        contributions.iter().filter(|c| surviving.contains(c.chunk_id)).collect();
    if let Some(existing) = existing.filter(|_| kept.is_empty()) {
        return RelationDraft {
            key: key.clone(),
            weight: existing.weight,
            keywords: existing.keywords.clone(),
            fragments: split_fragments(&existing.description),
            provenance: Provenance {
                source_ids: existing.source_ids.clone(),
                file_paths: existing.file_paths.clone(),
                truncate: existing.truncate.clone(),
                ..provenance
            },
            record_changed: false,
            description_changed: false,
            stored_description: Some(existing.description.clone()),
            previous_vector_text: Some(relation_vector_content(key, &existing.keywords, &existing.description)),
        };
    }
    relation_draft(key, existing, &kept, provenance)
}

/// Rebuilds a relation after a deletion (see [`rebuild_entity`]).
pub fn rebuild_relation(
    cfg: &MergeConfig,
    key: &RelKey,
    window: &[String],
    total: usize,
    contributions: &[RelationContribution<'_>],
) -> RelationDraft {
    let pairs: Vec<(&str, &str)> = contributions.iter().map(|c| (c.chunk_id, c.file_path)).collect();
    let provenance = sources::rebuilt(window, total, &pairs, relation_limits(cfg));
    let kept: Vec<&RelationContribution<'_>> = contributions.iter().collect();
    relation_draft(key, None, &kept, provenance)
}

fn relation_draft(
    key: &RelKey,
    existing: Option<&Relation>,
    kept: &[&RelationContribution<'_>],
    provenance: Provenance,
) -> RelationDraft {
    let weight = existing.map(|r| r.weight).unwrap_or(0.0) + kept.iter().map(|c| c.record.weight).sum::<f64>();
    let mut keywords: Vec<String> = existing
        .map(|r| r.keywords.as_str())
        .into_iter()
        .chain(kept.iter().map(|c| c.record.keywords.as_str()))
        .flat_map(|k| k.split(','))
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect();
    keywords.sort();
    keywords.dedup();
    let keywords = keywords.join(",");
    let (fragments, before) =
        merged_fragments(existing.map(|r| r.description.as_str()), kept.iter().map(|c| c.record.description.as_str()));
    // the vector text is keywords + endpoints + description: unchanged when both are, so a merge
    // that only adds weight and provenance neither re-summarises nor re-embeds
    let unchanged = existing.filter(|r| fragments.len() == before && r.keywords == keywords);
    RelationDraft {
        key: key.clone(),
        weight,
        keywords,
        fragments,
        provenance,
        record_changed: true,
        description_changed: unchanged.is_none(),
        stored_description: unchanged.map(|r| r.description.clone()),
        previous_vector_text: existing.map(|r| relation_vector_content(key, &r.keywords, &r.description)),
    }
}

/// The text embedded for an entity.
pub fn entity_vector_content(name: &str, description: &str) -> String {
    format!("{name}\n{description}")
}

/// The text embedded for a relation.
pub fn relation_vector_content(key: &RelKey, keywords: &str, description: &str) -> String {
    format!("{keywords}\t{}\n{}\n{description}", key.src, key.tgt)
}

/// Finished records, ready to commit, the vectors to (re)write and the chunks to add to lists.
#[derive(Debug, Default)]
pub(crate) struct Finished {
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
    pub vectors: Vec<VectorRecord>,
    pub chunk_lists: Vec<(GraphKey, ChunkListEdit)>,
    /// The summaries this build made or took from the cache (for a rebuild to rebase on).
    pub summaries: Vec<MadeSummary>,
}

/// What a merge may call the models for, and what an earlier build of it left (see
/// `pipeline::commit` and [`summary`]).
#[derive(Default)]
pub(crate) struct MergeMode<'a> {
    /// What a summary missing from the LLM cache may do.
    pub summaries: SummaryPolicy<'a>,
    /// Vectors computed before for the same set, key and text: reused, not embedded again.
    pub known_vectors: &'a [VectorRecord],
    /// Summaries an earlier build of the same merge made: kept when their fragments still are.
    pub earlier_summaries: &'a [MadeSummary],
}

/// Summarises drafts (concurrently), builds records and embeds what changed.
pub(crate) async fn finish(
    inner: &Inner,
    entities: Vec<EntityDraft>,
    relations: Vec<RelationDraft>,
    mode: &MergeMode<'_>,
) -> Result<Finished> {
    let policy = mode.summaries;
    let earlier: HashMap<&GraphKey, &MadeSummary> = mode.earlier_summaries.iter().map(|m| (&m.key, m)).collect();
    let earlier = &earlier;
    let now = now_ms();
    let mut out = Finished::default();
    for d in &entities {
        if !d.provenance.appended.is_empty() {
            let edit = ChunkListEdit::Append(d.provenance.appended.clone());
            out.chunk_lists.push((GraphKey::Entity(d.name.clone()), edit));
        }
    }
    for d in &relations {
        if !d.provenance.appended.is_empty() {
            let edit = ChunkListEdit::Append(d.provenance.appended.clone());
            out.chunk_lists.push((GraphKey::Relation(d.key.clone()), edit));
        }
    }
    let entities = entities.into_iter().filter(|d| d.record_changed);
    let relations = relations.into_iter().filter(|d| d.record_changed);
    let describe = |kind: SummaryKind, key: GraphKey, name: String, fragments: Vec<String>| async move {
        let fragments = rebased(earlier, &key, fragments);
        let (text, summarised) = summarize(inner, kind, &name, fragments.clone(), policy).await?;
        let made = summarised.then(|| MadeSummary { key, fragments, text: text.clone() });
        Ok::<_, crate::error::EngineError>((text, made))
    };
    let entity_jobs = entities.map(|d| async move {
        let (description, made) = match (&d.stored_description, d.description_changed) {
            (Some(stored), false) => (stored.clone(), None),
            _ => {
                let key = GraphKey::Entity(d.name.clone());
                describe(SummaryKind::Entity, key, d.name.clone(), d.fragments.clone()).await?
            }
        };
        Ok::<_, crate::error::EngineError>((d, description, made))
    });
    let relation_jobs = relations.map(|d| async move {
        let (description, made) = match (&d.stored_description, d.description_changed) {
            (Some(stored), false) => (stored.clone(), None),
            _ => {
                let key = GraphKey::Relation(d.key.clone());
                describe(SummaryKind::Relation, key, relation_summary_name(&d.key), d.fragments.clone()).await?
            }
        };
        Ok::<_, crate::error::EngineError>((d, description, made))
    });
    let (entity_results, relation_results) = futures::future::try_join(
        futures::future::try_join_all(entity_jobs),
        futures::future::try_join_all(relation_jobs),
    )
    .await?;

    let mut to_embed: Vec<(VectorKind, String, String)> = Vec::new();
    // (kind, key, new text) whose stored vector stands for the new text: the embedder sees the
    // same input (e.g. a long description grew past the model's token limit)
    let mut reusable: Vec<(VectorKind, String, String)> = Vec::new();
    let mut changed = |kind: VectorKind, key: String, text: String, previous: Option<&String>| {
        if previous.is_some_and(|p| inner.gateway.same_embedding_input(TextKind::Description, p, &text)) {
            reusable.push((kind, key, text));
        } else {
            to_embed.push((kind, key, text));
        }
    };
    for (d, description, made) in entity_results {
        out.summaries.extend(made);
        if d.description_changed {
            let text = entity_vector_content(&d.name, &description);
            changed(VectorKind::Entity, d.name.clone(), text, d.previous_vector_text.as_ref());
        }
        out.entities.push(Entity {
            name: d.name,
            entity_type: d.entity_type,
            description,
            source_ids: d.provenance.source_ids,
            chunk_count: d.provenance.chunk_count,
            file_paths: d.provenance.file_paths,
            created_at: now,
            truncate: d.provenance.truncate,
            version: 0,
        });
    }
    for (d, description, made) in relation_results {
        out.summaries.extend(made);
        if d.description_changed {
            let text = relation_vector_content(&d.key, &d.keywords, &description);
            changed(VectorKind::Relation, VectorRecord::relation_key(&d.key), text, d.previous_vector_text.as_ref());
        }
        out.relations.push(Relation {
            key: d.key,
            weight: d.weight,
            keywords: d.keywords,
            description,
            source_ids: d.provenance.source_ids,
            chunk_count: d.provenance.chunk_count,
            file_paths: d.provenance.file_paths,
            created_at: now,
            truncate: d.provenance.truncate,
            version: 0,
        });
    }
    for kind in [VectorKind::Entity, VectorKind::Relation] {
        let (mine, rest): (Vec<_>, Vec<_>) = reusable.drain(..).partition(|(k, _, _)| *k == kind);
        reusable = rest;
        let keys: Vec<String> = mine.iter().map(|(_, key, _)| key.clone()).collect();
        let stored = if keys.is_empty() { Vec::new() } else { inner.store.get_vectors(kind, &keys).await? };
        for ((kind, key, content), vector) in mine.into_iter().zip(stored) {
            match vector {
                Some(vector) => out.vectors.push(VectorRecord { kind, key, content, vector }),
                None => to_embed.push((kind, key, content)),
            }
        }
    }
    let known: HashMap<(VectorKind, &str), &VectorRecord> =
        mode.known_vectors.iter().map(|v| ((v.kind, v.key.as_str()), v)).collect();
    to_embed.retain(|(kind, key, content)| match known.get(&(*kind, key.as_str())) {
        Some(v) if v.content == *content => {
            out.vectors.push((*v).clone());
            false
        }
        _ => true,
    });
    let texts: Vec<String> = to_embed.iter().map(|(_, _, c)| c.clone()).collect();
    // only entity and relation texts reach this point: descriptions
    let vectors = inner
        .gateway
        .embed(EmbedCall::new(&texts, TextKind::Description, crate::providers::limiter::Priority::Merge))
        .await?;
    for ((kind, key, content), vector) in to_embed.into_iter().zip(vectors) {
        out.vectors.push(VectorRecord { kind, key, content, vector });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SourceIdsLimitMethod;

    fn rec(name: &str, t: &str, d: &str) -> ExtractedEntity {
        ExtractedEntity { name: name.into(), entity_type: t.into(), description: d.into(), written_as: None }
    }

    fn entity(name: &str, chunks: &[&str], desc: &str) -> Entity {
        Entity {
            name: name.into(),
            entity_type: "person".into(),
            description: desc.into(),
            source_ids: chunks.iter().map(|s| s.to_string()).collect(),
            chunk_count: chunks.len(),
            file_paths: vec!["a.txt".into()],
            created_at: 0,
            truncate: String::new(),
            version: 3,
        }
    }

    #[test]
    fn new_entity_collects_unique_fragments_and_majority_type() {
        let cfg = MergeConfig::default();
        let (r1, r2, r3) = (rec("A", "person", "one"), rec("A", "place", "two"), rec("A", "person", "one"));
        let contributions = vec![
            EntityContribution { chunk_id: "c1", file_path: "f1", record: &r1 },
            EntityContribution { chunk_id: "c2", file_path: "f2", record: &r2 },
            EntityContribution { chunk_id: "c3", file_path: "f1", record: &r3 },
        ];
        let d = fold_entity(&cfg, "A", None, &contributions);
        assert_eq!(d.entity_type, "person");
        assert_eq!(d.fragments, vec!["one", "two"]);
        assert_eq!(d.provenance.appended, vec!["c1", "c2", "c3"]);
        assert_eq!(d.provenance.file_paths, vec!["f1", "f2"]);
        assert!(d.description_changed);
    }

    #[test]
    fn incremental_merge_appends_to_existing() {
        let cfg = MergeConfig::default();
        let existing = entity("A", &["c1"], "old<SEP>older");
        let r = rec("A", "person", "new");
        let d = fold_entity(
            &cfg,
            "A",
            Some(&existing),
            &[EntityContribution { chunk_id: "c9", file_path: "b.txt", record: &r }],
        );
        assert_eq!(d.fragments, vec!["old", "older", "new"]);
        assert_eq!(d.provenance.source_ids, vec!["c1", "c9"]);
        assert_eq!((d.provenance.appended.as_slice(), d.provenance.chunk_count), (&["c9".to_string()][..], 2));
        assert_eq!(d.provenance.file_paths, vec!["a.txt", "b.txt"]);
    }

    #[test]
    fn keep_limit_discards_new_records_beyond_the_limit() {
        let cfg = MergeConfig { max_source_ids_per_entity: 2, ..MergeConfig::default() };
        let existing = entity("A", &["c1", "c2"], "old");
        let r = rec("A", "person", "new");
        let d = fold_entity(
            &cfg,
            "A",
            Some(&existing),
            &[EntityContribution { chunk_id: "c3", file_path: "b.txt", record: &r }],
        );
        assert!(!d.description_changed);
        assert!(!d.record_changed, "the record stays as it is");
        assert_eq!(d.provenance.source_ids, vec!["c1", "c2"]);
        assert_eq!(d.provenance.appended, vec!["c3"], "the full list still records the chunk");
    }

    #[test]
    fn fifo_limit_keeps_the_newest() {
        let cfg = MergeConfig {
            max_source_ids_per_entity: 2,
            source_ids_limit_method: SourceIdsLimitMethod::Fifo,
            ..MergeConfig::default()
        };
        let existing = entity("A", &["c1", "c2"], "old");
        let r = rec("A", "person", "new");
        let d = fold_entity(
            &cfg,
            "A",
            Some(&existing),
            &[EntityContribution { chunk_id: "c3", file_path: "b.txt", record: &r }],
        );
        assert_eq!(d.provenance.source_ids, vec!["c2", "c3"]);
        assert_eq!(d.provenance.truncate, "FIFO 2/3");
        assert_eq!(d.fragments, vec!["old", "new"]);
    }

    #[test]
    fn file_paths_are_capped_with_a_placeholder() {
        let cfg = MergeConfig { max_file_paths: 2, ..MergeConfig::default() };
        let records: Vec<ExtractedEntity> = (0..4).map(|i| rec("A", "person", &format!("d{i}"))).collect();
        let names: Vec<(String, String)> = (0..4).map(|i| (format!("c{i}"), format!("f{i}"))).collect();
        let contributions: Vec<_> = records
            .iter()
            .zip(&names)
            .map(|(r, (c, f))| EntityContribution { chunk_id: c, file_path: f, record: r })
            .collect();
        let d = fold_entity(&cfg, "A", None, &contributions);
        assert_eq!(d.provenance.file_paths, vec!["f0", "f1", "...truncated...(KEEP Old)"]);
    }

    #[test]
    fn relation_weights_add_and_keywords_union_sorted() {
        let cfg = MergeConfig::default();
        let key = RelKey::new("A", "B");
        let existing = Relation {
            key: key.clone(),
            weight: 2.0,
            keywords: "war,peace".into(),
            description: "old".into(),
            source_ids: vec!["c1".into()],
            chunk_count: 1,
            file_paths: vec!["a".into()],
            created_at: 0,
            truncate: String::new(),
            version: 1,
        };
        let r = ExtractedRelation {
            src: "B".into(),
            tgt: "A".into(),
            keywords: "alliance, war".into(),
            description: "new".into(),
            weight: 1.5,
            src_written_as: None,
            tgt_written_as: None,
        };
        let d = fold_relation(
            &cfg,
            &key,
            Some(&existing),
            &[RelationContribution { chunk_id: "c2", file_path: "b", record: &r }],
        );
        assert_eq!(d.weight, 3.5);
        assert_eq!(d.keywords, "alliance,peace,war");
        assert_eq!(d.fragments, vec!["old", "new"]);
    }
}
