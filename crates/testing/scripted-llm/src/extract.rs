//! Deterministic, text-derived extraction output in LightRAG's record format.
//!
//! Entities are the distinct capitalised name runs of the text (see [`crate::text::name_runs`]);
//! relations join consecutive entities of the same sentence.

use crate::text::{name_runs, plain_words, sentences, truncate_chars};

/// Field separator of an extraction record.
pub const TUPLE_DELIMITER: &str = "<|#|>";
/// Last line of a complete extraction.
pub const COMPLETION_DELIMITER: &str = "<|COMPLETE|>";

const MAX_ENTITIES: usize = 20;
const MAX_RELATIONS: usize = 20;
const MAX_SENTENCE_CHARS: usize = 200;
const ORGANIZATION_SUFFIXES: &[&str] = &[
    "inc",
    "corp",
    "corporation",
    "company",
    "university",
    "department",
    "ltd",
    "llc",
    "institute",
    "agency",
    "bank",
    "group",
    "foundation",
    "association",
    "council",
    "ministry",
    "college",
    "school",
    "laboratory",
    "labs",
];
const LOCATION_CUES: &[&str] = &["in", "at", "from", "near"];

/// An extracted entity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entity {
    pub name: String,
    pub kind: &'static str,
    pub sentence: String,
}

/// An extracted relation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Relation {
    pub source: String,
    pub target: String,
    pub keywords: String,
    pub sentence: String,
}

/// Entities and relations of `text`, capped at 20 each.
pub(crate) fn extract(text: &str) -> (Vec<Entity>, Vec<Relation>) {
    let sents = sentences(text);
    let mut entities: Vec<Entity> = Vec::new();
    for sentence in &sents {
        for run in name_runs(sentence) {
            if entities.len() >= MAX_ENTITIES {
                break;
            }
            if entities.iter().any(|e| e.name == run.name) {
                continue;
            }
            let kind = entity_type(&run.name, run.preceded_by.as_deref());
            entities.push(Entity { name: run.name, kind, sentence: sentence.clone() });
        }
    }
    let mut relations: Vec<Relation> = Vec::new();
    for sentence in &sents {
        let mut names: Vec<String> = Vec::new();
        for run in name_runs(sentence) {
            if !names.contains(&run.name) && entities.iter().any(|e| e.name == run.name) {
                names.push(run.name);
            }
        }
        for pair in names.windows(2) {
            if relations.len() >= MAX_RELATIONS {
                break;
            }
            let (a, b) = (&pair[0], &pair[1]);
            let seen =
                relations.iter().any(|r| (&r.source == a && &r.target == b) || (&r.source == b && &r.target == a));
            if seen {
                continue;
            }
            let words = plain_words(sentence);
            let keywords = if words.is_empty() {
                "related".to_string()
            } else {
                words.iter().take(2).cloned().collect::<Vec<_>>().join(",")
            };
            relations.push(Relation { source: a.clone(), target: b.clone(), keywords, sentence: sentence.clone() });
        }
    }
    (entities, relations)
}

fn entity_type(name: &str, preceded_by: Option<&str>) -> &'static str {
    let last = name.rsplit(' ').next().unwrap_or(name).to_lowercase();
    if ORGANIZATION_SUFFIXES.contains(&last.as_str()) {
        "organization"
    } else if preceded_by.is_some_and(|p| LOCATION_CUES.contains(&p)) {
        "location"
    } else if preceded_by == Some("the") {
        "concept"
    } else {
        "person"
    }
}

/// Makes a value safe for one record field: one line, no delimiters.
fn field(value: &str) -> String {
    let flat = value.replace(['\n', '\r'], " ");
    flat.replace(TUPLE_DELIMITER, " ").replace(COMPLETION_DELIMITER, " ")
}

fn quote(sentence: &str) -> String {
    truncate_chars(sentence, MAX_SENTENCE_CHARS)
}

/// The record lines (without the completion line) of `text`.
pub(crate) fn record_lines(text: &str) -> Vec<String> {
    let (entities, relations) = extract(text);
    let mut lines = Vec::with_capacity(entities.len() + relations.len());
    for e in &entities {
        let description = format!("{} is mentioned in the text: \"{}\"", e.name, quote(&e.sentence));
        lines.push(["entity", &field(&e.name), e.kind, &field(&description)].join(TUPLE_DELIMITER));
    }
    for r in &relations {
        let description = format!("{} and {} are mentioned together: \"{}\"", r.source, r.target, quote(&r.sentence));
        lines.push(
            ["relation", &field(&r.source), &field(&r.target), &field(&r.keywords), &field(&description)]
                .join(TUPLE_DELIMITER),
        );
    }
    lines
}

/// A complete extraction answer: entity lines, relation lines, then `<|COMPLETE|>`.
pub fn extraction_output(text: &str) -> String {
    let mut lines = record_lines(text);
    lines.push(COMPLETION_DELIMITER.to_string());
    lines.join("\n")
}

/// The same records as [`extraction_output`], in LightRAG's JSON layout:
/// `{"entities": [{name, type, description}], "relationships": [{source, target, keywords,
/// description}]}` (pretty-printed, as models tend to answer).
pub fn extraction_json_output(text: &str) -> String {
    let (entities, relations) = extract(text);
    let entities: Vec<serde_json::Value> = entities
        .iter()
        .map(|e| {
            let description = format!("{} is mentioned in the text: \"{}\"", e.name, quote(&e.sentence));
            serde_json::json!({ "name": e.name, "type": e.kind, "description": description })
        })
        .collect();
    let relationships: Vec<serde_json::Value> = relations
        .iter()
        .map(|r| {
            let description = format!("{} and {} are mentioned together: \"{}\"", r.source, r.target, quote(&r.sentence));
            serde_json::json!({ "source": r.source, "target": r.target, "keywords": r.keywords, "description": description })
        })
        .collect();
    let object = serde_json::json!({ "entities": entities, "relationships": relationships });
    serde_json::to_string_pretty(&object).unwrap_or_else(|_| object.to_string())
}

/// The JSON gleaning answer: no new records, or the one extra entity when `extra`.
pub fn glean_json_output(extra: bool) -> String {
    let entities = if extra {
        serde_json::json!([{ "name": "Gleaned Entity", "type": "concept",
                             "description": "Gleaned Entity was found by the gleaning pass." }])
    } else {
        serde_json::json!([])
    };
    serde_json::json!({ "entities": entities, "relationships": [] }).to_string()
}

/// The gleaning answer: `<|COMPLETE|>` alone, or one extra entity record first when `extra`.
pub fn glean_output(extra: bool) -> String {
    if extra {
        let record = ["entity", "Gleaned Entity", "concept", "Gleaned Entity was found by the gleaning pass."]
            .join(TUPLE_DELIMITER);
        format!("{record}\n{COMPLETION_DELIMITER}")
    } else {
        COMPLETION_DELIMITER.to_string()
    }
}

/// A damaged extraction answer for parser tests: chatter before the records, records with
/// wrong delimiters (`<|##|>`, `<|>`), a record missing its last field, a stray fence line,
/// and no `<|COMPLETE|>`. Every fourth record stays intact.
pub fn malformed_extraction_output(text: &str) -> String {
    let mut out = vec!["Sure! Here are the entities and relations I found:".to_string(), "```".to_string()];
    let records = record_lines(text);
    for (i, line) in records.iter().enumerate() {
        let damaged = match i % 4 {
            0 => line.replace(TUPLE_DELIMITER, "<|##|>"),
            1 => line.replace(TUPLE_DELIMITER, "<|>"),
            2 => match line.rfind(TUPLE_DELIMITER) {
                Some(cut) => line[..cut].to_string(),
                None => line.clone(),
            },
            _ => line.clone(),
        };
        out.push(damaged);
    }
    if records.is_empty() {
        out.push("entity<|#|>Broken".to_string());
    }
    out.push("```".to_string());
    out.push("I hope this helps.".to_string());
    out.join("\n")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    const TEXT: &str = "Alice Smith joined Acme Corp in 2020. She moved from Paris with Bob. \
                        The team met Alice Smith again in Berlin.";

    #[test]
    fn entities_are_distinct_capitalised_names_with_types() {
        let (entities, _) = extract(TEXT);
        let got: Vec<(&str, &str)> = entities.iter().map(|e| (e.name.as_str(), e.kind)).collect();
        assert_eq!(
            got,
            vec![
                ("Alice Smith", "person"),
                ("Acme Corp", "organization"),
                ("Paris", "location"),
                ("Bob", "person"),
                ("Berlin", "location"),
            ]
        );
        assert_eq!(entities[0].sentence, "Alice Smith joined Acme Corp in 2020.");
    }

    #[test]
    fn relations_link_consecutive_names_of_a_sentence() {
        let (_, relations) = extract(TEXT);
        let got: Vec<(&str, &str, &str)> =
            relations.iter().map(|r| (r.source.as_str(), r.target.as_str(), r.keywords.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("Alice Smith", "Acme Corp", "joined"),
                ("Paris", "Bob", "moved"),
                ("Alice Smith", "Berlin", "team,met"),
            ]
        );
    }

    #[test]
    fn output_is_records_then_complete_and_deterministic() {
        let out = extraction_output(TEXT);
        assert_eq!(out, extraction_output(TEXT));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "entity<|#|>Alice Smith<|#|>person<|#|>Alice Smith is mentioned in the text: \"Alice Smith joined Acme Corp in 2020.\""
        );
        assert!(lines[5].starts_with("relation<|#|>Alice Smith<|#|>Acme Corp<|#|>joined<|#|>"));
        assert_eq!(lines.last(), Some(&"<|COMPLETE|>"));
        for line in &lines[..lines.len() - 1] {
            let fields = line.split(TUPLE_DELIMITER).count();
            assert!(fields == 4 || fields == 5, "{line}");
        }
    }

    #[test]
    fn caps_hold_on_long_texts() {
        let text: String = (0..40).map(|i| format!("Name{i} Person met Other{i} Friend. ")).collect();
        let (entities, relations) = extract(&text);
        assert_eq!(entities.len(), MAX_ENTITIES);
        assert!(relations.len() <= MAX_RELATIONS);
    }

    #[test]
    fn text_without_names_gives_just_complete() {
        assert_eq!(extraction_output("nothing to see here."), COMPLETION_DELIMITER);
    }

    #[test]
    fn glean_output_is_complete_or_one_extra_entity() {
        assert_eq!(glean_output(false), "<|COMPLETE|>");
        let extra = glean_output(true);
        assert!(extra.starts_with("entity<|#|>Gleaned Entity<|#|>concept<|#|>"));
        assert!(extra.ends_with("\n<|COMPLETE|>"));
    }

    #[test]
    fn malformed_output_is_damaged_in_every_advertised_way() {
        let out = malformed_extraction_output(TEXT);
        assert!(out.contains("<|##|>"));
        assert!(out.contains("<|>"));
        assert!(!out.contains(COMPLETION_DELIMITER));
        assert!(out.lines().any(|l| l.starts_with("entity<|#|>") && l.split(TUPLE_DELIMITER).count() == 3));
        assert!(out.lines().any(|l| l.starts_with("relation<|#|>") && l.split(TUPLE_DELIMITER).count() == 5));
    }

    /// Pseudo-random texts (fixed seed) with names, punctuation, unicode, fences and delimiters:
    /// no panic, and every answer is well-formed records ending with `<|COMPLETE|>`.
    #[test]
    fn arbitrary_texts_give_well_formed_records() {
        const PIECES: &[&str] = &[
            "Alice",
            "Acme Corp",
            "the",
            "in",
            "Paris",
            ".",
            ",",
            "!",
            "?",
            "\n",
            " ",
            "é",
            "Ünïcode",
            "```",
            "<|#|>",
            "<|COMPLETE|>",
            "\"",
            "'s",
            "(",
            ")",
            "Dr.",
            "X",
            "42",
            "über",
            "Straße",
            "日本",
            "Inc.",
            "\r\n",
            "-",
            "O'Brien",
            "\t",
        ];
        let mut seed: u64 = 0x5eed;
        for _ in 0..300 {
            let mut text = String::new();
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = (seed >> 33) % 60;
            for _ in 0..len {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                text.push_str(PIECES[((seed >> 33) % PIECES.len() as u64) as usize]);
                text.push(' ');
            }
            let out = extraction_output(&text);
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines.last(), Some(&COMPLETION_DELIMITER), "{text:?}");
            for line in &lines[..lines.len() - 1] {
                let fields: Vec<&str> = line.split(TUPLE_DELIMITER).collect();
                let ok = (fields[0] == "entity" && fields.len() == 4) || (fields[0] == "relation" && fields.len() == 5);
                assert!(ok, "bad record {line:?} from {text:?}");
                assert!(fields.iter().all(|f| !f.trim().is_empty()), "empty field in {line:?}");
            }
            let _ = malformed_extraction_output(&text);
        }
    }
}
