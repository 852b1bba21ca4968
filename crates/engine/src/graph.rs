//! Graph statistics and export (JSON, GraphML, CSV).

use std::collections::BTreeMap;
use std::io::Write;

use lightrag_ports::{DocStatus, GRAPH_FIELD_SEP, VectorKind};
use serde::Serialize;

use crate::engine::Engine;
use crate::error::{EngineError, Result};

/// Summary numbers of a knowledge base.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphStats {
    /// Entities.
    pub nodes: usize,
    /// Relations.
    pub edges: usize,
    /// Highest-degree entities: name, type, degree.
    pub top_entities: Vec<TopEntity>,
    /// Entity types and how many entities have each.
    pub entity_types: BTreeMap<String, usize>,
    /// Documents per status.
    pub documents: BTreeMap<DocStatus, usize>,
    /// Vectors per set.
    pub vectors: BTreeMap<VectorKind, usize>,
}

/// One entry of [`GraphStats::top_entities`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopEntity {
    /// Name.
    pub name: String,
    /// Type.
    pub entity_type: String,
    /// Number of relations.
    pub degree: usize,
}

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// One JSON document with `nodes` and `edges`.
    Json,
    /// GraphML (undirected), readable by Gephi, yEd, NetworkX.
    GraphMl,
    /// CSV: a `type` column (`node`/`edge`) and the fields of both.
    Csv,
}

impl std::str::FromStr for ExportFormat {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "json" => Ok(ExportFormat::Json),
            "graphml" => Ok(ExportFormat::GraphMl),
            "csv" => Ok(ExportFormat::Csv),
            other => Err(format!("unknown export format '{other}' (expected json, graphml or csv)")),
        }
    }
}

impl Engine {
    /// Counts, top-degree entities, types, document statuses and vector counts.
    pub async fn graph_stats(&self, top: usize) -> Result<GraphStats> {
        let store = &self.inner.store;
        let counts = store.graph_counts().await?;
        let top_list = store.top_entities(top).await?;
        let names: Vec<String> = top_list.iter().map(|(n, _)| n.clone()).collect();
        let entities = store.get_entities(&names).await?;
        let top_entities = top_list
            .into_iter()
            .zip(entities)
            .map(|((name, degree), e)| TopEntity {
                name,
                degree,
                entity_type: e.map(|e| e.entity_type).unwrap_or_default(),
            })
            .collect();
        let mut entity_types = BTreeMap::new();
        for e in store.all_entities().await? {
            *entity_types.entry(e.entity_type).or_insert(0) += 1;
        }
        Ok(GraphStats {
            nodes: counts.nodes,
            edges: counts.edges,
            top_entities,
            entity_types,
            documents: store.status_counts().await?,
            vectors: store.vector_counts().await?,
        })
    }

    /// Writes the whole graph in `format`.
    pub async fn export_graph(&self, format: ExportFormat, out: &mut dyn Write) -> Result<()> {
        let entities = self.inner.store.all_entities().await?;
        let relations = self.inner.store.all_relations().await?;
        let io = |e: std::io::Error| EngineError::Invalid(format!("cannot write the export: {e}"));
        match format {
            ExportFormat::Json => {
                let nodes: Vec<_> = entities
                    .iter()
                    .map(|e| {
                        serde_json::json!({
                            "id": e.name, "entity_type": e.entity_type, "description": e.description,
                            "source_id": e.source_ids.join(GRAPH_FIELD_SEP), "file_path": e.file_paths.join(GRAPH_FIELD_SEP),
                            "created_at": e.created_at / 1000,
                        })
                    })
                    .collect();
                let edges: Vec<_> = relations
                    .iter()
                    .map(|r| {
                        serde_json::json!({
                            "source": r.key.src, "target": r.key.tgt, "weight": r.weight, "keywords": r.keywords,
                            "description": r.description, "source_id": r.source_ids.join(GRAPH_FIELD_SEP),
                            "file_path": r.file_paths.join(GRAPH_FIELD_SEP), "created_at": r.created_at / 1000,
                        })
                    })
                    .collect();
                let doc = serde_json::json!({ "nodes": nodes, "edges": edges });
                serde_json::to_writer_pretty(&mut *out, &doc).map_err(|e| EngineError::Invalid(e.to_string()))?;
                writeln!(out).map_err(io)?;
            }
            ExportFormat::GraphMl => {
                writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#).map_err(io)?;
                writeln!(out, r#"<graphml xmlns="http://graphml.graphdrawing.org/xmlns">"#).map_err(io)?;
                for (id, target, name, ty) in [
                    ("d0", "node", "entity_type", "string"),
                    ("d1", "node", "description", "string"),
                    ("d2", "node", "source_id", "string"),
                    ("d3", "node", "file_path", "string"),
                    ("d4", "edge", "weight", "double"),
                    ("d5", "edge", "description", "string"),
                    ("d6", "edge", "keywords", "string"),
                    ("d7", "edge", "source_id", "string"),
                ] {
                    writeln!(out, r#"  <key id="{id}" for="{target}" attr.name="{name}" attr.type="{ty}"/>"#)
                        .map_err(io)?;
                }
                writeln!(out, r#"  <graph edgedefault="undirected">"#).map_err(io)?;
                for e in &entities {
                    writeln!(
                        out,
                        r#"    <node id="{}"><data key="d0">{}</data><data key="d1">{}</data><data key="d2">{}</data><data key="d3">{}</data></node>"#,
                        xml(&e.name),
                        xml(&e.entity_type),
                        xml(&e.description),
                        xml(&e.source_ids.join(GRAPH_FIELD_SEP)),
                        xml(&e.file_paths.join(GRAPH_FIELD_SEP))
                    )
                    .map_err(io)?;
                }
                for r in &relations {
                    writeln!(
                        out,
                        r#"    <edge source="{}" target="{}"><data key="d4">{}</data><data key="d5">{}</data><data key="d6">{}</data><data key="d7">{}</data></edge>"#,
                        xml(&r.key.src),
                        xml(&r.key.tgt),
                        r.weight,
                        xml(&r.description),
                        xml(&r.keywords),
                        xml(&r.source_ids.join(GRAPH_FIELD_SEP))
                    )
                    .map_err(io)?;
                }
                writeln!(out, "  </graph>\n</graphml>").map_err(io)?;
            }
            ExportFormat::Csv => {
                writeln!(
                    out,
                    "type,name_or_source,entity_type_or_target,description,keywords,weight,source_id,file_path"
                )
                .map_err(io)?;
                for e in &entities {
                    let row = [
                        "node".to_string(),
                        e.name.clone(),
                        e.entity_type.clone(),
                        e.description.clone(),
                        String::new(),
                        String::new(),
                        e.source_ids.join(GRAPH_FIELD_SEP),
                        e.file_paths.join(GRAPH_FIELD_SEP),
                    ];
                    writeln!(out, "{}", csv_row(&row)).map_err(io)?;
                }
                for r in &relations {
                    let row = [
                        "edge".to_string(),
                        r.key.src.clone(),
                        r.key.tgt.clone(),
                        r.description.clone(),
                        r.keywords.clone(),
                        r.weight.to_string(),
                        r.source_ids.join(GRAPH_FIELD_SEP),
                        r.file_paths.join(GRAPH_FIELD_SEP),
                    ];
                    writeln!(out, "{}", csv_row(&row)).map_err(io)?;
                }
            }
        }
        Ok(())
    }
}

fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

fn csv_row(fields: &[String]) -> String {
    fields
        .iter()
        .map(|f| if f.contains([',', '"', '\n', '\r']) { format!("\"{}\"", f.replace('"', "\"\"")) } else { f.clone() })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(xml("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(csv_row(&["a".into(), "b,c".into(), "d\"e".into()]), "a,\"b,c\",\"d\"\"e\"");
    }
}
