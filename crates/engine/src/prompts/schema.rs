//! The parts of the extraction prompts that change with an extraction schema (typed extraction).
//! Without a schema each function returns the text of LightRAG-compatible extraction unchanged.

use crate::indexing::extract::schema::{ExtractionSchema, RelationTypeSpec};

use super::{COMPLETION_DELIMITER, TUPLE_DELIMITER};

/// The rule for a relation's keywords (one line of the instructions).
pub(super) fn keywords_rule(schema: Option<&ExtractionSchema>) -> &'static str {
    match schema {
        Some(s) if !s.relation_types.is_empty() => {
            "- keywords: first the relation type, one of the relation types below written exactly \
as listed, then a few comma-separated words naming the nature of the link; the two entities' \
types must be ones the relation type allows; if no relation type fits, leave the relation out;\n"
        }
        _ => "- keywords: a few comma-separated words naming the nature of the link;\n",
    }
}

/// The `---Entity Types---` section (and `---Relation Types---` with a schema that has them),
/// ending with one newline.
pub(super) fn types_block(entity_types: &[String], schema: Option<&ExtractionSchema>) -> String {
    let Some(schema) = schema else {
        return format!("---Entity Types---\n{}\n", entity_types.join(", "));
    };
    let mut out = String::from("---Entity Types---\n");
    for t in &schema.entity_types {
        out.push_str(&item(&t.name, None, &t.description));
    }
    if !schema.relation_types.is_empty() {
        out.push_str("\n---Relation Types---\n");
        for r in &schema.relation_types {
            out.push_str(&item(&r.name, endpoints(r).as_deref(), &r.description));
        }
    }
    out
}

fn item(name: &str, between: Option<&str>, description: &str) -> String {
    let between = between.map(|b| format!(" ({b})")).unwrap_or_default();
    let description = description.trim();
    if description.is_empty() { format!("- {name}{between}\n") } else { format!("- {name}{between}: {description}\n") }
}

/// `between Person and Organization`, or `None` when both ends take any type.
fn endpoints(r: &RelationTypeSpec) -> Option<String> {
    if r.from.is_empty() && r.to.is_empty() {
        return None;
    }
    let side = |types: &[String]| if types.is_empty() { "any type".to_string() } else { types.join(" or ") };
    Some(format!("between {} and {}", side(&r.from), side(&r.to)))
}

/// The entity types and relation type the schema's example uses: the first relation type with
/// its first allowed ends, else the first entity types.
fn example_types(schema: &ExtractionSchema) -> (String, String, Option<String>) {
    let first = schema.entity_types.first().map(|t| t.name.clone()).unwrap_or_else(|| "Other".into());
    let second = schema.entity_types.get(1).map(|t| t.name.clone()).unwrap_or_else(|| first.clone());
    match schema.relation_types.first() {
        Some(r) => {
            (r.from.first().cloned().unwrap_or(first), r.to.first().cloned().unwrap_or(second), Some(r.name.clone()))
        }
        None => (first, second, None),
    }
}

/// The record-layout example lines (each ending with a newline, the completion marker included).
pub(super) fn record_example(schema: Option<&ExtractionSchema>) -> String {
    let d = TUPLE_DELIMITER;
    let c = COMPLETION_DELIMITER;
    let Some(schema) = schema else {
        return format!(
            "entity{d}Ada Lovelace{d}Person{d}Ada Lovelace wrote the first published program for the \
Analytical Engine.\n\
entity{d}Analytical Engine{d}Artifact{d}The Analytical Engine is a mechanical general-purpose \
computer designed by Charles Babbage.\n\
relation{d}Ada Lovelace{d}Analytical Engine{d}programming, notes{d}Ada Lovelace wrote notes and \
a program for the Analytical Engine.\n\
{c}\n"
        );
    };
    let (a, b, relation) = example_types(schema);
    let keywords = relation.map(|r| format!("{r}, keyword, keyword")).unwrap_or_else(|| "keyword, keyword".into());
    format!(
        "entity{d}Name One{d}{a}{d}What the passage says Name One is and does.\n\
entity{d}Name Two{d}{b}{d}What the passage says Name Two is and does.\n\
relation{d}Name One{d}Name Two{d}{keywords}{d}How the passage links Name One and Name Two.\n\
{c}\n"
    )
}

/// The JSON-layout example object (ending with a newline).
pub(super) fn json_example(schema: Option<&ExtractionSchema>) -> String {
    let Some(schema) = schema else {
        return "{\n\
  \"entities\": [\n\
    {\"name\": \"Ada Lovelace\", \"type\": \"Person\", \"description\": \"Ada Lovelace wrote the \
first published program for the Analytical Engine.\"},\n\
    {\"name\": \"Analytical Engine\", \"type\": \"Artifact\", \"description\": \"The Analytical \
Engine is a mechanical general-purpose computer designed by Charles Babbage.\"}\n\
  ],\n\
  \"relationships\": [\n\
    {\"source\": \"Ada Lovelace\", \"target\": \"Analytical Engine\", \"keywords\": \"programming, \
notes\", \"description\": \"Ada Lovelace wrote notes and a program for the Analytical Engine.\"}\n\
  ]\n\
}\n"
        .to_string();
    };
    let (a, b, relation) = example_types(schema);
    let keywords = relation.map(|r| format!("{r}, keyword, keyword")).unwrap_or_else(|| "keyword, keyword".into());
    let q = |v: &str| serde_json::Value::from(v).to_string();
    let entity = |name: &str, t: &str| {
        let about = format!("What the passage says {name} is and does.");
        format!("{{\"name\": {}, \"type\": {}, \"description\": {}}}", q(name), q(t), q(&about))
    };
    let relationship = format!(
        "{{\"source\": \"Name One\", \"target\": \"Name Two\", \"keywords\": {}, \"description\": \
\"How the passage links Name One and Name Two.\"}}",
        q(&keywords)
    );
    format!(
        "{{\n\"entities\": [\n{},\n{}\n],\n\"relationships\": [\n{}\n]\n}}\n",
        entity("Name One", &a),
        entity("Name Two", &b),
        relationship
    )
}
