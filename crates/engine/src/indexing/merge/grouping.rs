//! Grouping extraction records by entity name and relation key, in first-appearance order, and
//! the `UNKNOWN` records a relation implies for its ends.

use std::collections::{HashMap, HashSet};

use lightrag_ports::{ExtractedEntity, RelKey};

use super::{EntityContribution, RelationContribution, UNKNOWN_TYPE};

/// A chunk's extraction together with the chunk's file path (borrowed: merges only read them).
pub(crate) struct SourcedExtraction<'a> {
    /// The chunk's file path.
    pub file_path: &'a str,
    /// The records.
    pub extraction: &'a lightrag_ports::ChunkExtraction,
}

/// An owned `UNKNOWN` entity record derived from a relation endpoint.
pub(crate) struct EndpointRecord {
    pub chunk_id: String,
    pub file_path: String,
    pub record: ExtractedEntity,
}

/// Records grouped by entity name and relation key, in first-appearance order.
pub(crate) struct Grouped<'a> {
    pub entity_order: Vec<String>,
    pub entities: HashMap<String, Vec<EntityContribution<'a>>>,
    pub relation_order: Vec<RelKey>,
    pub relations: HashMap<RelKey, Vec<RelationContribution<'a>>>,
}

pub(crate) fn group<'a>(records: &[SourcedExtraction<'a>]) -> Grouped<'a> {
    let mut g = Grouped {
        entity_order: Vec::new(),
        entities: HashMap::new(),
        relation_order: Vec::new(),
        relations: HashMap::new(),
    };
    for s in records {
        let chunk_id = s.extraction.chunk_id.as_str();
        for record in &s.extraction.entities {
            let slot = g.entities.entry(record.name.clone()).or_insert_with(|| {
                g.entity_order.push(record.name.clone());
                Vec::new()
            });
            slot.push(EntityContribution { chunk_id, file_path: s.file_path, record });
        }
        for record in &s.extraction.relations {
            let key = RelKey::new(record.src.clone(), record.tgt.clone());
            let slot = g.relations.entry(key.clone()).or_insert_with(|| {
                g.relation_order.push(key.clone());
                Vec::new()
            });
            slot.push(RelationContribution { chunk_id, file_path: s.file_path, record });
        }
    }
    g
}

/// `UNKNOWN` records for relation endpoints: every endpoint (rebuilds), or with `only_unnamed`
/// just those with no entity record of their own in `records`.
pub(crate) fn endpoint_records(
    records: &[SourcedExtraction<'_>],
    only_unnamed: bool,
) -> HashMap<String, Vec<EndpointRecord>> {
    let named: HashSet<&str> = if only_unnamed {
        records.iter().flat_map(|s| s.extraction.entities.iter().map(|e| e.name.as_str())).collect()
    } else {
        HashSet::new()
    };
    let mut out: HashMap<String, Vec<EndpointRecord>> = HashMap::new();
    for s in records {
        for r in &s.extraction.relations {
            for endpoint in [&r.src, &r.tgt].into_iter().filter(|e| !named.contains(e.as_str())) {
                out.entry(endpoint.clone()).or_default().push(EndpointRecord {
                    chunk_id: s.extraction.chunk_id.clone(),
                    file_path: s.file_path.to_string(),
                    record: ExtractedEntity {
                        name: endpoint.clone(),
                        entity_type: UNKNOWN_TYPE.to_string(),
                        description: r.description.clone(),
                        written_as: None,
                    },
                });
            }
        }
    }
    out
}

/// Contributions borrowed from endpoint records.
pub(crate) fn endpoint_contributions(list: &[EndpointRecord]) -> Vec<EntityContribution<'_>> {
    list.iter()
        .map(|e| EntityContribution { chunk_id: &e.chunk_id, file_path: &e.file_path, record: &e.record })
        .collect()
}
