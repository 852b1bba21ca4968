//! Graph statistics and export (JSON, GraphML, CSV).

use std::collections::BTreeMap;
use std::io::Write;

use lightrag_ports::{DocStatus, Entity, GRAPH_FIELD_SEP, Relation, StoreError, VectorKind, paging};
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
        paging::for_each_entity_page(store.as_ref(), |page| {
            for e in page {
                *entity_types.entry(e.entity_type).or_insert(0) += 1;
            }
            Ok(())
        })
        .await?;
        Ok(GraphStats {
            nodes: counts.nodes,
            edges: counts.edges,
            top_entities,
            entity_types,
            documents: store.status_counts().await?,
            vectors: store.vector_counts().await?,
        })
    }

    /// Writes the whole graph in `format`, reading it from the store a page at a time (the
    /// export never holds the whole graph in memory).
    pub async fn export_graph(&self, format: ExportFormat, out: &mut dyn Write) -> Result<()> {
        let store = self.inner.store.as_ref();
        // a write error is kept here and reported after the page walk stops
        let mut failed: Option<std::io::Error> = None;
        let stop = |e: std::io::Error, failed: &mut Option<std::io::Error>| {
            *failed = Some(e);
            StoreError::Invalid("the export's output failed".into())
        };
        let mut first = true;
        let header = match format {
            ExportFormat::Json => "{\n  \"nodes\": [".to_string(),
            ExportFormat::GraphMl => graphml_header(),
            ExportFormat::Csv => {
                "type,name_or_source,entity_type_or_target,description,keywords,weight,source_id,file_path\n"
                    .to_string()
            }
        };
        let walk = async {
            out.write_all(header.as_bytes()).map_err(|e| stop(e, &mut failed))?;
            paging::for_each_entity_page(store, |page| {
                for e in &page {
                    let text = node_text(format, e, first);
                    first = false;
                    out.write_all(text.as_bytes()).map_err(|e| stop(e, &mut failed))?;
                }
                Ok(())
            })
            .await?;
            if format == ExportFormat::Json {
                out.write_all(b"\n  ],\n  \"edges\": [").map_err(|e| stop(e, &mut failed))?;
            }
            first = true;
            paging::for_each_relation_page(store, |page| {
                for r in &page {
                    let text = edge_text(format, r, first);
                    first = false;
                    out.write_all(text.as_bytes()).map_err(|e| stop(e, &mut failed))?;
                }
                Ok(())
            })
            .await?;
            let footer = match format {
                ExportFormat::Json => "\n  ]\n}\n",
                ExportFormat::GraphMl => "  </graph>\n</graphml>\n",
                ExportFormat::Csv => "",
            };
            out.write_all(footer.as_bytes()).map_err(|e| stop(e, &mut failed))
        };
        let result = walk.await;
        if let Some(e) = failed {
            return Err(EngineError::Invalid(format!("cannot write the export: {e}")));
        }
        Ok(result?)
    }
}

fn graphml_header() -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.push_str("<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n");
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
        s.push_str(&format!("  <key id=\"{id}\" for=\"{target}\" attr.name=\"{name}\" attr.type=\"{ty}\"/>\n"));
    }
    s.push_str("  <graph edgedefault=\"undirected\">\n");
    s
}

/// One node in `format` (`first`: the first of its list, for JSON commas).
fn node_text(format: ExportFormat, e: &Entity, first: bool) -> String {
    match format {
        ExportFormat::Json => {
            let node = serde_json::json!({
                "id": e.name, "entity_type": e.entity_type, "description": e.description,
                "source_id": e.source_ids.join(GRAPH_FIELD_SEP), "file_path": e.file_paths.join(GRAPH_FIELD_SEP),
                "created_at": e.created_at / 1000,
            });
            format!("{}\n    {node}", if first { "" } else { "," })
        }
        ExportFormat::GraphMl => format!(
            "    <node id=\"{}\"><data key=\"d0\">{}</data><data key=\"d1\">{}</data><data key=\"d2\">{}</data><data key=\"d3\">{}</data></node>\n",
            xml(&e.name),
            xml(&e.entity_type),
            xml(&e.description),
            xml(&e.source_ids.join(GRAPH_FIELD_SEP)),
            xml(&e.file_paths.join(GRAPH_FIELD_SEP))
        ),
        ExportFormat::Csv => {
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
            format!("{}\n", csv_row(&row))
        }
    }
}

/// One edge in `format`.
fn edge_text(format: ExportFormat, r: &Relation, first: bool) -> String {
    match format {
        ExportFormat::Json => {
            let edge = serde_json::json!({
                "source": r.key.src, "target": r.key.tgt, "weight": r.weight, "keywords": r.keywords,
                "description": r.description, "source_id": r.source_ids.join(GRAPH_FIELD_SEP),
                "file_path": r.file_paths.join(GRAPH_FIELD_SEP), "created_at": r.created_at / 1000,
            });
            format!("{}\n    {edge}", if first { "" } else { "," })
        }
        ExportFormat::GraphMl => format!(
            "    <edge source=\"{}\" target=\"{}\"><data key=\"d4\">{}</data><data key=\"d5\">{}</data><data key=\"d6\">{}</data><data key=\"d7\">{}</data></edge>\n",
            xml(&r.key.src),
            xml(&r.key.tgt),
            r.weight,
            xml(&r.description),
            xml(&r.keywords),
            xml(&r.source_ids.join(GRAPH_FIELD_SEP))
        ),
        ExportFormat::Csv => {
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
            format!("{}\n", csv_row(&row))
        }
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
