//! `graph_chunk_entity_relation.graphml`: the NetworkX graph LightRAG writes with
//! `nx.write_graphml`. Attribute keys (`d0`, `d1`, …) are numbered in write order, so values are
//! mapped to attribute names through the `<key>` declarations, never by id.

use std::collections::HashMap;

use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

/// One node or edge: its attributes by name (as text).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attributes(pub HashMap<String, String>);

impl Attributes {
    /// An attribute's text (`""` when absent).
    pub fn text(&self, name: &str) -> &str {
        self.0.get(name).map(String::as_str).unwrap_or_default()
    }

    /// A numeric attribute.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.0.get(name).and_then(|v| v.trim().parse::<f64>().ok()).filter(|v| v.is_finite())
    }
}

/// A node: its id (the entity name) and attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// `id` attribute = entity name.
    pub id: String,
    /// `<data>` values by attribute name.
    pub attributes: Attributes,
}

/// An edge (undirected in LightRAG; `source`/`target` are in no particular order).
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// `source` attribute.
    pub source: String,
    /// `target` attribute.
    pub target: String,
    /// `<data>` values by attribute name.
    pub attributes: Attributes,
}

/// The parsed graph.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Graph {
    /// Nodes in file order.
    pub nodes: Vec<Node>,
    /// Edges in file order.
    pub edges: Vec<Edge>,
}

/// What is being read.
enum Open {
    None,
    Node(Node),
    Edge(Edge),
}

/// Parses GraphML text.
pub fn parse(xml: &str) -> Result<Graph, String> {
    let mut reader = Reader::from_str(xml);
    // key id → attribute name
    let mut keys: HashMap<String, String> = HashMap::new();
    let mut graph = Graph::default();
    let mut open = Open::None;
    let mut data_key: Option<String> = None;
    let mut text = String::new();
    loop {
        let event =
            reader.read_event().map_err(|e| format!("malformed GraphML at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Start(e) | Event::Empty(e) if matches!(local(&e), "key") => {
                if let (Some(id), Some(name)) = (attr(&e, "id")?, attr(&e, "attr.name")?) {
                    keys.insert(id, name);
                }
            }
            Event::Start(e) => match local(&e) {
                "node" => open = Open::Node(Node { id: require(&e, "id")?, attributes: Attributes::default() }),
                "edge" => {
                    open = Open::Edge(Edge {
                        source: require(&e, "source")?,
                        target: require(&e, "target")?,
                        attributes: Attributes::default(),
                    })
                }
                "data" => {
                    data_key = attr(&e, "key")?;
                    text.clear();
                }
                _ => {}
            },
            Event::Empty(e) => match local(&e) {
                "node" => graph.nodes.push(Node { id: require(&e, "id")?, attributes: Attributes::default() }),
                "edge" => graph.edges.push(Edge {
                    source: require(&e, "source")?,
                    target: require(&e, "target")?,
                    attributes: Attributes::default(),
                }),
                // `<data key="d13" />`: an empty string value
                "data" => {
                    if let Some(key) = attr(&e, "key")? {
                        set(&mut open, &keys, &key, String::new());
                    }
                }
                _ => {}
            },
            Event::Text(t) if data_key.is_some() => text.push_str(&t.xml10_content()),
            Event::CData(t) if data_key.is_some() => text.push_str(&t.xml10_content()),
            Event::GeneralRef(r) if data_key.is_some() => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    text.push(c);
                } else {
                    let name = r.xml10_content();
                    let resolved = resolve_xml_entity(&name).ok_or_else(|| format!("unknown XML entity &{name};"))?;
                    text.push_str(resolved);
                }
            }
            Event::End(e) => match e.local_name().as_ref() {
                "data" => {
                    if let Some(key) = data_key.take() {
                        set(&mut open, &keys, &key, std::mem::take(&mut text));
                    }
                }
                "node" => {
                    if let Open::Node(n) = std::mem::replace(&mut open, Open::None) {
                        graph.nodes.push(n);
                    }
                }
                "edge" => {
                    if let Open::Edge(edge) = std::mem::replace(&mut open, Open::None) {
                        graph.edges.push(edge);
                    }
                }
                _ => {}
            },
            Event::Eof => return Ok(graph),
            _ => {}
        }
    }
}

fn set(open: &mut Open, keys: &HashMap<String, String>, key: &str, value: String) {
    let name = keys.get(key).cloned().unwrap_or_else(|| key.to_string());
    match open {
        Open::Node(n) => {
            n.attributes.0.insert(name, value);
        }
        Open::Edge(e) => {
            e.attributes.0.insert(name, value);
        }
        Open::None => {}
    }
}

fn local<'a>(e: &'a BytesStart<'_>) -> &'a str {
    e.local_name().into_inner()
}

fn attr(e: &BytesStart<'_>, name: &str) -> Result<Option<String>, String> {
    for a in e.attributes().with_checks(false) {
        let a = a.map_err(|err| format!("malformed attribute in GraphML: {err}"))?;
        if a.key.as_ref() == name {
            let value = a
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|err| format!("malformed attribute '{name}' in GraphML: {err}"))?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

fn require(e: &BytesStart<'_>, name: &str) -> Result<String, String> {
    attr(e, name)?.ok_or_else(|| format!("a <{}> element has no '{name}' attribute", local(e)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_by_name_and_entities_are_resolved() {
        let xml = r#"<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d1" for="node" attr.name="description" attr.type="string" />
  <key id="d0" for="node" attr.name="entity_type" attr.type="string" />
  <key id="d7" for="edge" attr.name="weight" attr.type="double" />
  <key id="d8" for="edge" attr.name="truncate" attr.type="string" />
  <graph edgedefault="undirected">
    <node id="A &amp; B">
      <data key="d0">person</data>
      <data key="d1">one&lt;SEP&gt;two &#233;</data>
    </node>
    <node id="C" />
    <edge source="C" target="A &amp; B">
      <data key="d7">2.0</data>
      <data key="d8" />
    </edge>
  </graph>
</graphml>"#;
        let g = parse(xml).unwrap();
        assert_eq!(g.nodes.len(), 2);
        assert_eq!(g.nodes[0].id, "A & B");
        assert_eq!(g.nodes[0].attributes.text("entity_type"), "person");
        assert_eq!(g.nodes[0].attributes.text("description"), "one<SEP>two é");
        assert_eq!(g.nodes[1].id, "C");
        assert_eq!(g.edges[0].source, "C");
        assert_eq!(g.edges[0].target, "A & B");
        assert_eq!(g.edges[0].attributes.number("weight"), Some(2.0));
        assert_eq!(g.edges[0].attributes.0.get("truncate").map(String::as_str), Some(""));
    }

    #[test]
    fn broken_xml_is_an_error_not_a_panic() {
        let _ = parse("<graphml><node></graphml>");
        let _ = parse("<graphml><node id='x'><data key='d0'>unclosed");
        assert!(parse("<graphml><node id='x'><data key='d0'>&bogus;</data></node></graphml>").is_err());
    }
}
