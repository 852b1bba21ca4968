//! LightRAG's wire form of the retrieval data (`/query/data`, and the `data` of a query trace):
//! the engine's [`QueryData`] with the chunk ids and file paths of every entity and relation
//! joined with `<SEP>` into `source_id` and `file_path`, as LightRAG's clients read them.

use lightrag_engine::retrieval::query::{
    ChunkData, DataSection, EntityData, Metadata, QueryData, QueryStatus, Reference, RelationData,
};
use lightrag_ports::GRAPH_FIELD_SEP;
use serde::Serialize;

/// `/query/data`'s body.
#[derive(Debug, Serialize)]
pub struct QueryDataBody<'a> {
    status: QueryStatus,
    message: &'a str,
    data: DataBody<'a>,
    metadata: &'a Metadata,
}

impl<'a> From<&'a QueryData> for QueryDataBody<'a> {
    fn from(d: &'a QueryData) -> Self {
        Self { status: d.status, message: &d.message, data: DataBody::from(&d.data), metadata: &d.metadata }
    }
}

/// The `data` object: the records, or `{}`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum DataBody<'a> {
    /// Entities, relationships, chunks and references.
    Retrieved {
        /// Entities.
        entities: Vec<EntityBody<'a>>,
        /// Relations.
        relationships: Vec<RelationBody<'a>>,
        /// Chunks.
        chunks: &'a [ChunkData],
        /// The reference list.
        references: &'a [Reference],
    },
    /// `{}`.
    Empty {},
}

impl<'a> From<&'a DataSection> for DataBody<'a> {
    fn from(section: &'a DataSection) -> Self {
        match section {
            DataSection::Retrieved(r) => DataBody::Retrieved {
                entities: r.entities.iter().map(EntityBody::from).collect(),
                relationships: r.relationships.iter().map(RelationBody::from).collect(),
                chunks: &r.chunks,
                references: &r.references,
            },
            DataSection::Empty(_) => DataBody::Empty {},
        }
    }
}

/// An entity of `data.entities`.
#[derive(Debug, Serialize)]
pub struct EntityBody<'a> {
    entity_name: &'a str,
    entity_type: &'a str,
    description: &'a str,
    source_id: String,
    file_path: String,
    created_at: i64,
}

impl<'a> From<&'a EntityData> for EntityBody<'a> {
    fn from(e: &'a EntityData) -> Self {
        Self {
            entity_name: &e.entity_name,
            entity_type: &e.entity_type,
            description: &e.description,
            source_id: e.source_ids.join(GRAPH_FIELD_SEP),
            file_path: e.file_paths.join(GRAPH_FIELD_SEP),
            created_at: e.created_at,
        }
    }
}

/// A relation of `data.relationships`.
#[derive(Debug, Serialize)]
pub struct RelationBody<'a> {
    src_id: &'a str,
    tgt_id: &'a str,
    description: &'a str,
    keywords: &'a str,
    weight: f64,
    source_id: String,
    file_path: String,
    created_at: i64,
}

impl<'a> From<&'a RelationData> for RelationBody<'a> {
    fn from(r: &'a RelationData) -> Self {
        Self {
            src_id: &r.src_id,
            tgt_id: &r.tgt_id,
            description: &r.description,
            keywords: &r.keywords,
            weight: r.weight,
            source_id: r.source_ids.join(GRAPH_FIELD_SEP),
            file_path: r.file_paths.join(GRAPH_FIELD_SEP),
            created_at: r.created_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use lightrag_engine::retrieval::query::{Empty, RetrievedData};
    use serde_json::json;

    use super::*;

    #[test]
    fn lists_are_joined_with_sep_and_everything_else_is_as_the_engine_has_it() {
        let data = QueryData {
            status: QueryStatus::Success,
            message: "ok".into(),
            data: DataSection::Retrieved(RetrievedData {
                entities: vec![EntityData {
                    entity_name: "Ahab".into(),
                    entity_type: "person".into(),
                    description: "captain".into(),
                    source_ids: vec!["c1".into(), "c2".into()],
                    file_paths: vec!["moby.md".into()],
                    created_at: 7,
                }],
                relationships: vec![RelationData {
                    src_id: "Ahab".into(),
                    tgt_id: "Pequod".into(),
                    description: "commands".into(),
                    keywords: "command".into(),
                    weight: 2.0,
                    source_ids: vec!["c1".into()],
                    file_paths: vec!["a.md".into(), "b.md".into()],
                    created_at: 8,
                }],
                chunks: vec![],
                references: vec![],
            }),
            metadata: Metadata::Empty(Empty {}),
        };
        let body = serde_json::to_value(QueryDataBody::from(&data)).unwrap();
        assert_eq!(
            body["data"]["entities"][0],
            json!({"entity_name": "Ahab", "entity_type": "person", "description": "captain",
                   "source_id": "c1<SEP>c2", "file_path": "moby.md", "created_at": 7})
        );
        assert_eq!(
            body["data"]["relationships"][0],
            json!({"src_id": "Ahab", "tgt_id": "Pequod", "description": "commands", "keywords": "command",
                   "weight": 2.0, "source_id": "c1", "file_path": "a.md<SEP>b.md", "created_at": 8})
        );
        assert_eq!(body["status"], "success");
        assert_eq!(body["message"], "ok");
        assert_eq!(body["metadata"], json!({}));
        // everything but the two joined fields serialises as the engine's own type does
        let mut engine = serde_json::to_value(&data).unwrap();
        for (list, key) in [("entities", 0), ("relationships", 0)] {
            let item = &mut engine["data"][list][key];
            let obj = item.as_object_mut().unwrap();
            obj.remove("source_ids");
            obj.remove("file_paths");
            obj.insert("source_id".into(), body["data"][list][key]["source_id"].clone());
            obj.insert("file_path".into(), body["data"][list][key]["file_path"].clone());
        }
        assert_eq!(engine, body);
    }

    #[test]
    fn empty_data_is_an_empty_object() {
        let data = QueryData::bypass("bypass");
        let body = serde_json::to_value(QueryDataBody::from(&data)).unwrap();
        assert_eq!(body["data"], json!({}));
        assert_eq!(serde_json::to_value(&data).unwrap(), body);
    }
}
