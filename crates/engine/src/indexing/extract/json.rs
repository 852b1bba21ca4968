//! The parser for LightRAG's JSON extraction layout (`ENTITY_EXTRACTION_USE_JSON`):
//! `{"entities": [{"name", "type", "description"}], "relationships": [{"source", "target",
//! "keywords", "description"}]}`.
//!
//! The object is found and read with [`super::lenient_json`] (fences, prose, small syntax slips,
//! truncation), LaTeX backslashes that JSON decoding damaged are restored, and every field goes
//! through the same clean-up as the record format. A record missing a required field is dropped
//! and counted; relation weights are 1. When the answer holds no JSON object at all it is read
//! as delimited records instead ([`parse_any_extraction`]), so a model that ignored the JSON
//! instruction still yields its records.

use lightrag_ports::{ExtractedEntity, ExtractedRelation};
use serde_json::{Map, Value};

use super::lenient_json::{Recovery, find_object, repair_latex};
use super::parse::{
    ParseStats, ParsedExtraction, RecordLimits, apply_limits, clean_name, clean_type, parse_extraction,
};
use crate::indexing::text::clean_field;

/// The first non-empty string among `keys` (LightRAG's names first, then the record format's).
fn field(item: &Map<String, Value>, keys: &[&str]) -> String {
    keys.iter()
        .find_map(|k| match item.get(*k) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(repair_latex(s)),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(Value::Array(parts)) => {
                let joined: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
                (!joined.is_empty()).then(|| joined.join(","))
            }
            _ => None,
        })
        .unwrap_or_default()
}

fn entity(item: &Map<String, Value>) -> Option<ExtractedEntity> {
    let name = clean_name(&field(item, &["name", "entity_name", "entity"]))?;
    let entity_type = clean_type(&field(item, &["type", "entity_type"]))?;
    let description = clean_field(&field(item, &["description", "entity_description"]));
    if description.is_empty() {
        return None;
    }
    Some(ExtractedEntity { name, entity_type, description, written_as: None })
}

fn relation(item: &Map<String, Value>) -> Option<ExtractedRelation> {
    let src = clean_name(&field(item, &["source", "source_entity", "src_id"]))?;
    let tgt = clean_name(&field(item, &["target", "target_entity", "tgt_id"]))?;
    if src == tgt {
        return None;
    }
    let keywords = clean_field(&field(item, &["keywords", "relationship_keywords"]).replace('，', ","));
    let keywords = keywords.split(',').map(str::trim).filter(|k| !k.is_empty()).collect::<Vec<_>>().join(",");
    let description = clean_field(&field(item, &["description", "relationship_description"]));
    if description.is_empty() {
        return None;
    }
    Some(ExtractedRelation { src, tgt, keywords, description, weight: 1.0, src_written_as: None, tgt_written_as: None })
}

/// The records of a JSON object (`None` when `output` holds no JSON object).
pub fn parse_json_extraction(output: &str, limits: RecordLimits) -> Option<ParsedExtraction> {
    let (object, recovery) = find_object(output)?;
    let mut parsed = ParsedExtraction {
        stats: ParseStats {
            complete: true,
            repaired: usize::from(recovery == Recovery::Repaired),
            ..ParseStats::default()
        },
        ..ParsedExtraction::default()
    };
    let list = |key: &str| object.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    for item in list("entities") {
        match item.as_object().and_then(entity) {
            Some(e) => parsed.entities.push(e),
            None => parsed.stats.dropped += 1,
        }
    }
    let relations = if object.contains_key("relationships") { list("relationships") } else { list("relations") };
    for item in relations {
        match item.as_object().and_then(relation) {
            Some(r) => parsed.relations.push(r),
            None => parsed.stats.dropped += 1,
        }
    }
    apply_limits(&mut parsed, limits);
    Some(parsed)
}

/// Reads an extraction answer in either layout: JSON when it holds a JSON object, delimited
/// records otherwise (LightRAG does the same when it rebuilds from cached answers).
pub fn parse_any_extraction(output: &str, limits: RecordLimits) -> ParsedExtraction {
    parse_json_extraction(output, limits).unwrap_or_else(|| parse_extraction(output, limits))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIMITS: RecordLimits = RecordLimits { max_records: 100, max_entities: 40 };

    #[test]
    fn reads_the_layout_and_cleans_fields() {
        let out = json!({
            "entities": [
                {"name": "Ada Lovelace", "type": "Person", "description": "Wrote the first program."},
                {"name": "Analytical Engine", "type": "Artifact, Machine", "description": "Babbage's engine."},
                {"name": "", "type": "Person", "description": "nameless"},
                "not an object"
            ],
            "relationships": [
                {"source": "Ada Lovelace", "target": "Analytical Engine", "keywords": "program，notes", "description": "She programmed it."},
                {"source": "Ada Lovelace", "target": "Ada Lovelace", "keywords": "self", "description": "loop"}
            ]
        })
        .to_string();
        let p = parse_json_extraction(&format!("```json\n{out}\n```"), LIMITS).unwrap();
        assert_eq!(p.entities.len(), 2);
        assert_eq!(p.entities[0].entity_type, "person");
        assert_eq!(p.entities[1].entity_type, "artifact");
        assert_eq!(p.relations.len(), 1);
        assert_eq!(p.relations[0].keywords, "program,notes");
        assert_eq!(p.relations[0].weight, 1.0);
        assert_eq!(p.stats.dropped, 3);
        assert_eq!(p.stats.repaired, 0);
    }

    #[test]
    fn truncated_answers_keep_their_complete_records() {
        let out = r#"{"entities": [{"name": "Ada", "type": "person", "description": "A mathematician."},
                                    {"name": "Bob", "type": "person", "descr"#;
        let p = parse_json_extraction(out, LIMITS).unwrap();
        assert_eq!(p.entities.len(), 1);
        assert_eq!(p.stats.repaired, 1);
    }

    #[test]
    fn latex_in_descriptions_survives() {
        let out =
            "{\"entities\": [{\"name\": \"Half\", \"type\": \"data\", \"description\": \"Equals \\frac{1}{2}.\"}]}";
        let p = parse_json_extraction(out, LIMITS).unwrap();
        assert!(p.entities[0].description.contains("\\frac{1}{2}"), "{:?}", p.entities[0].description);
    }

    #[test]
    fn record_answers_fall_back_to_the_record_parser() {
        let p = parse_any_extraction("entity<|#|>Ada<|#|>person<|#|>A mathematician.\n<|COMPLETE|>", LIMITS);
        assert_eq!(p.entities.len(), 1);
        assert!(parse_json_extraction("entity<|#|>Ada<|#|>person<|#|>x", LIMITS).is_none());
    }

    #[test]
    fn caps_apply() {
        let entities: Vec<Value> =
            (0..10).map(|i| json!({"name": format!("Entity{i}"), "type": "t", "description": "d"})).collect();
        let p = parse_json_extraction(
            &json!({"entities": entities}).to_string(),
            RecordLimits { max_records: 100, max_entities: 4 },
        )
        .unwrap();
        assert_eq!(p.entities.len(), 4);
        assert_eq!(p.stats.capped, 6);
    }

    fn name() -> impl proptest::strategy::Strategy<Value = String> {
        "[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8}){0,2}"
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,400}") {
            let _ = parse_any_extraction(&s, LIMITS);
        }

        /// Every record of a valid answer comes back, whatever surrounds the object.
        #[test]
        fn valid_answers_lose_no_record(
            names in proptest::collection::btree_set(name(), 1..12),
            desc in "[A-Za-z][A-Za-z ,.'\"\\\\]{0,60}[a-z]",
            wrap in 0..3usize,
        ) {
            let names: Vec<String> = names.into_iter().collect();
            let entities: Vec<Value> = names.iter().map(|n| json!({"name": n, "type": "person", "description": desc})).collect();
            let relationships: Vec<Value> = names.windows(2)
                .map(|w| json!({"source": w[0], "target": w[1], "keywords": "k", "description": desc}))
                .collect();
            let object = json!({"entities": entities, "relationships": relationships});
            let text = match wrap {
                0 => object.to_string(),
                1 => format!("```json\n{}\n```", serde_json::to_string_pretty(&object).unwrap()),
                _ => format!("Here is the result:\n{object}\nDone."),
            };
            let p = parse_json_extraction(&text, LIMITS).unwrap();
            let got: Vec<&str> = p.entities.iter().map(|e| e.name.as_str()).collect();
            let want: Vec<&str> = names.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert_eq!(p.relations.len(), names.len() - 1);
            proptest::prop_assert_eq!(p.stats.dropped, 0);
        }
    }
}
