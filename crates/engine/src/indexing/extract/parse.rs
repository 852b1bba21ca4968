//! The hardened parser for LightRAG-format extraction output.
//!
//! LLM output is untrusted input. The parser repairs what it can (corrupted delimiters, records
//! glued on one line, an `entity` row that is really a relation, stray quotes and HTML), drops
//! what it cannot, never invents a record, and counts both.

use std::sync::LazyLock;

use lightrag_ports::{ExtractedEntity, ExtractedRelation};
use regex::Regex;

use crate::indexing::text::clean_field;
use crate::prompts::{COMPLETION_DELIMITER, TUPLE_DELIMITER};

/// Maximum length of an entity name, in characters.
pub const MAX_NAME_CHARS: usize = 256;

/// Caps applied to one response.
#[derive(Debug, Clone, Copy)]
pub struct RecordLimits {
    /// Maximum rows (entities + relations).
    pub max_records: usize,
    /// Maximum entity rows.
    pub max_entities: usize,
}

/// What parsing found and fixed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseStats {
    /// Whether the completion marker was present.
    pub complete: bool,
    /// Rows that needed a repair to be read.
    pub repaired: usize,
    /// Rows that could not be used.
    pub dropped: usize,
    /// Rows cut by the record caps.
    pub capped: usize,
}

/// The records of one response.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedExtraction {
    /// Entity records, in order.
    pub entities: Vec<ExtractedEntity>,
    /// Relation records, in order.
    pub relations: Vec<ExtractedRelation>,
    /// Counters.
    pub stats: ParseStats,
}

static CORRUPT_DELIMITERS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // <|##|>, <|\#|>, <#>, <#|>, <|#>, <||#>, <|#||> … : a '#' core with any pipes and spaces
        r"<\s*\|*\s*\\?#+\s*\|*\s*>",
        // <|#||#|> (LightRAG's "doubled" corruption); two whole delimiters in a row are an empty
        // field, not a corruption: collapsing them shifted the fields after it
        r"<\|#\|\|#\|>",
        // <|> and <||>
        r"<\s*\|{1,2}\s*>",
        // a stray character outside the pipes: <X|#|Y>
        r"<[^|<>#\s]\|#\|[^|<>#\s]?>",
        // missing closing bracket or a colon instead: <|#| or <|#:
        r"<\|#(?:\||:)(?:[^>]|$)",
    ]
    .iter()
    .filter_map(|p| Regex::new(p).ok())
    .collect()
});

static COMPLETE_MARKER: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(?i)<\|\s*complete\s*\|>").ok());

static GLUED_RECORD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)<\|#\|>\s*(entity|relationship|relation)\s*<\|#\|>").ok());

/// Replaces corrupted variants of the tuple delimiter with the real one.
pub fn repair_delimiters(line: &str) -> String {
    let mut out = line.to_string();
    for re in CORRUPT_DELIMITERS.iter() {
        if re.is_match(&out) {
            out = re
                .replace_all(&out, |caps: &regex::Captures<'_>| {
                    let m = caps.get(0).map(|m| m.as_str()).unwrap_or_default();
                    // keep the character swallowed by the "missing >" pattern
                    let swallowed = m.strip_prefix("<|#|").filter(|rest| !rest.is_empty() && !m.ends_with('>'));
                    match swallowed.or_else(|| m.strip_prefix("<|#:")) {
                        Some(rest) => format!("{TUPLE_DELIMITER}{rest}"),
                        None => TUPLE_DELIMITER.to_string(),
                    }
                })
                .into_owned();
        }
    }
    out
}

/// The answer without the start of a tuple delimiter it was cut in (`<`, `<|`, `<|#`, `<|#|`
/// at its very end): an answer cut by the model's output limit must not leave it in the last
/// field.
fn without_cut_delimiter(output: &str) -> &str {
    let end = output.trim_end();
    (1..TUPLE_DELIMITER.len()).rev().find_map(|n| end.strip_suffix(&TUPLE_DELIMITER[..n])).unwrap_or(output)
}

/// Splits a response into record lines (newlines, completion markers, glued records).
fn record_lines(output: &str) -> (Vec<String>, bool, usize) {
    let complete = COMPLETE_MARKER.as_ref().is_some_and(|re| re.is_match(output));
    let output = if complete { output } else { without_cut_delimiter(output) };
    let without_marker = match COMPLETE_MARKER.as_ref() {
        Some(re) => re.replace_all(output, "\n").into_owned(),
        None => output.replace(COMPLETION_DELIMITER, "\n"),
    };
    let mut lines = Vec::new();
    let mut repaired = 0;
    for raw in without_marker.lines() {
        let fixed = repair_delimiters(raw);
        if fixed != raw {
            repaired += 1;
        }
        match GLUED_RECORD.as_ref() {
            Some(re) if re.is_match(&fixed) => {
                repaired += 1;
                let split = re.replace_all(&fixed, "\n$1<|#|>");
                lines.extend(split.lines().map(str::to_string));
            }
            _ => lines.push(fixed),
        }
    }
    (lines, complete, repaired)
}

fn valid_name(name: &str) -> bool {
    if name.is_empty() || name.contains(TUPLE_DELIMITER) {
        return false;
    }
    if name.chars().all(|c| c.is_ascii_digit()) && name.chars().count() < 3 {
        return false;
    }
    if name.chars().all(|c| c.is_ascii_digit() || c == '.') && name.contains('.') && name.chars().count() < 6 {
        return false;
    }
    true
}

pub(crate) fn clean_name(raw: &str) -> Option<String> {
    let name: String = clean_field(raw).chars().take(MAX_NAME_CHARS).collect();
    let name = name.trim().to_string();
    valid_name(&name).then_some(name)
}

pub(crate) fn clean_type(raw: &str) -> Option<String> {
    let t = clean_field(raw);
    let t = t.split(',').next().unwrap_or_default().trim();
    if t.is_empty() || t.chars().any(|c| "'()<>|/\\".contains(c)) {
        return None;
    }
    Some(t.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase())
}

/// Parses one extraction response.
pub fn parse_extraction(output: &str, limits: RecordLimits) -> ParsedExtraction {
    let (lines, complete, repaired) = record_lines(output);
    let mut parsed =
        ParsedExtraction { stats: ParseStats { complete, repaired, ..ParseStats::default() }, ..Default::default() };
    for line in lines {
        let line = line.trim();
        if line.is_empty() || line.starts_with("```") {
            continue;
        }
        let line = line.trim_start_matches(['-', '*', '•', ' ']).trim();
        let line = line.strip_suffix(TUPLE_DELIMITER).unwrap_or(line);
        let fields: Vec<&str> = line.split(TUPLE_DELIMITER).map(str::trim).collect();
        if fields.len() < 2 {
            // prose, headings, stray text: not a record
            if !line.is_empty() {
                parsed.stats.dropped += 1;
            }
            continue;
        }
        let kind = clean_field(fields[0]).to_lowercase();
        let is_relation = kind.contains("relation") || (kind.contains("entity") && fields.len() >= 5);
        if is_relation && (fields.len() == 5 || fields.len() == 6) {
            if kind.contains("entity") {
                parsed.stats.repaired += 1;
            }
            match relation_from(&fields) {
                Some(rel) => parsed.relations.push(rel),
                None => parsed.stats.dropped += 1,
            }
        } else if kind.contains("entity") && fields.len() == 4 {
            match entity_from(&fields) {
                Some(ent) => parsed.entities.push(ent),
                None => parsed.stats.dropped += 1,
            }
        } else {
            parsed.stats.dropped += 1;
        }
    }
    apply_limits(&mut parsed, limits);
    parsed
}

fn entity_from(fields: &[&str]) -> Option<ExtractedEntity> {
    let name = clean_name(fields[1])?;
    let entity_type = clean_type(fields[2])?;
    let description = clean_field(fields[3]);
    if description.is_empty() {
        return None;
    }
    Some(ExtractedEntity { name, entity_type, description, written_as: None })
}

fn relation_from(fields: &[&str]) -> Option<ExtractedRelation> {
    let src = clean_name(fields[1])?;
    let tgt = clean_name(fields[2])?;
    if src == tgt {
        return None;
    }
    let keywords = clean_field(&fields[3].replace('，', ","));
    let keywords = keywords.split(',').map(str::trim).filter(|k| !k.is_empty()).collect::<Vec<_>>().join(",");
    let description = clean_field(fields[4]);
    if description.is_empty() {
        return None;
    }
    let weight = fields
        .get(5)
        .and_then(|w| clean_field(w).parse::<f64>().ok())
        .filter(|w| w.is_finite() && *w > 0.0)
        .unwrap_or(1.0);
    Some(ExtractedRelation { src, tgt, keywords, description, weight, src_written_as: None, tgt_written_as: None })
}

pub(crate) fn apply_limits(parsed: &mut ParsedExtraction, limits: RecordLimits) {
    let max_entities = limits.max_entities.min(limits.max_records);
    if parsed.entities.len() > max_entities {
        parsed.stats.capped += parsed.entities.len() - max_entities;
        parsed.entities.truncate(max_entities);
    }
    let room = limits.max_records.saturating_sub(parsed.entities.len());
    if parsed.relations.len() > room {
        parsed.stats.capped += parsed.relations.len() - room;
        parsed.relations.truncate(room);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: RecordLimits = RecordLimits { max_records: 100, max_entities: 40 };

    #[test]
    fn parses_well_formed_output() {
        let out = "entity<|#|>Captain Ahab<|#|>Person<|#|>Captain of the Pequod.\n\
                   entity<|#|>Pequod<|#|>Artifact<|#|>A whaling ship.\n\
                   relation<|#|>Captain Ahab<|#|>Pequod<|#|>command，ship<|#|>Ahab commands the Pequod.\n\
                   <|COMPLETE|>";
        let p = parse_extraction(out, LIMITS);
        assert!(p.stats.complete);
        assert_eq!(p.entities.len(), 2);
        assert_eq!(p.entities[0].entity_type, "person");
        assert_eq!(p.relations.len(), 1);
        assert_eq!(p.relations[0].keywords, "command,ship");
        assert_eq!(p.relations[0].weight, 1.0);
        assert_eq!(p.stats.dropped, 0);
    }

    #[test]
    fn repairs_corrupted_delimiters() {
        for bad in ["<|##|>", "<|>", "<||>", "<#>", "<#|>", "<|#>", "<|\\#|>", "<X|#|Y>"] {
            let out = format!("entity{bad}Ishmael{bad}Person{bad}The narrator.");
            let p = parse_extraction(&out, LIMITS);
            assert_eq!(p.entities.len(), 1, "delimiter {bad}: {p:?}");
            assert_eq!(p.entities[0].name, "Ishmael");
        }
        let p = parse_extraction("entity<|#|Ishmael<|#|>Person<|#|>The narrator.", LIMITS);
        assert_eq!(p.entities.len(), 1, "{p:?}");
        assert_eq!(p.entities[0].name, "Ishmael");
    }

    #[test]
    fn splits_records_glued_on_one_line() {
        let out = "entity<|#|>A<|#|>person<|#|>First.<|#|>entity<|#|>B<|#|>person<|#|>Second.<|#|>relation<|#|>A<|#|>B<|#|>knows<|#|>A knows B.";
        let p = parse_extraction(out, LIMITS);
        assert_eq!(p.entities.len(), 2, "{p:?}");
        assert_eq!(p.relations.len(), 1);
    }

    #[test]
    fn five_field_entity_row_becomes_a_relation() {
        let p = parse_extraction("entity<|#|>A<|#|>B<|#|>kw<|#|>A meets B.", LIMITS);
        assert_eq!(p.relations.len(), 1);
        assert!(p.entities.is_empty());
    }

    #[test]
    fn drops_bad_rows() {
        let out = "entity<|#|>A<|#|>per(son)<|#|>bad type\n\
                   entity<|#|>B<|#|>person<|#|>\n\
                   relation<|#|>C<|#|>C<|#|>self<|#|>loop\n\
                   entity<|#|>12<|#|>number<|#|>too short a number\n\
                   entity<|#|>1.2<|#|>number<|#|>dotted number\n\
                   Here is some prose.\n\
                   entity<|#|>D<|#|>Organization, Company<|#|>Fine.";
        let p = parse_extraction(out, LIMITS);
        assert_eq!(p.entities.len(), 1, "{p:?}");
        assert_eq!(p.entities[0].entity_type, "organization");
        assert!(p.relations.is_empty());
        assert!(!p.stats.complete);
        assert_eq!(p.stats.dropped, 6);
    }

    #[test]
    fn numeric_sixth_field_is_the_weight() {
        let p = parse_extraction("relation<|#|>A<|#|>B<|#|>kw<|#|>desc<|#|>2.5", LIMITS);
        assert_eq!(p.relations[0].weight, 2.5);
    }

    #[test]
    fn caps_records() {
        let mut out = String::new();
        for i in 0..10 {
            out.push_str(&format!("entity<|#|>E{i}x<|#|>t<|#|>d\n"));
        }
        for i in 0..10 {
            out.push_str(&format!("relation<|#|>E{i}x<|#|>E{}x<|#|>k<|#|>d\n", i + 1));
        }
        let p = parse_extraction(&out, RecordLimits { max_records: 12, max_entities: 5 });
        assert_eq!(p.entities.len(), 5);
        assert_eq!(p.relations.len(), 7);
        assert_eq!(p.stats.capped, 8);
    }

    #[test]
    fn strips_quotes_and_html() {
        let p = parse_extraction("entity<|#|>\"Moby Dick\"<|#|>creature<|#|>A &amp; B<br>C", LIMITS);
        assert_eq!(p.entities[0].name, "Moby Dick");
        assert_eq!(p.entities[0].description, "A & B C");
    }

    /// Regression (found by `parse_props`): two delimiters in a row were collapsed into one, so
    /// a relation with empty keywords and a weight became a relation whose description was the
    /// weight, and one with an empty source linked the target to the keywords.
    #[test]
    fn an_empty_field_does_not_shift_the_fields_after_it() {
        let out = "relation<|#|>Ahab<|#|>Pequod<|#|><|#|>Ahab commands the Pequod.<|#|>2.5\n\
                   relation<|#|><|#|>Pequod<|#|>command<|#|>No source.<|#|>2.0";
        let p = parse_extraction(out, LIMITS);
        assert_eq!(p.relations.len(), 1, "{p:?}");
        let r = &p.relations[0];
        assert_eq!((r.src.as_str(), r.tgt.as_str(), r.keywords.as_str()), ("Ahab", "Pequod", ""));
        assert_eq!((r.description.as_str(), r.weight), ("Ahab commands the Pequod.", 2.5));
        assert_eq!((p.stats.dropped, p.stats.repaired), (1, 0));
        // LightRAG's own "doubled" corruption is still repaired
        let p = parse_extraction("entity<|#|>Ishmael<|#||#|>Person<|#|>The narrator.", LIMITS);
        assert_eq!(p.entities.len(), 1, "{p:?}");
        assert_eq!(p.entities[0].entity_type, "person");
    }

    /// Regression (found by `parse_props`): an answer cut by the output limit inside a tuple
    /// delimiter left `<`, `<|` or `<|#` at the end of the last record's description.
    #[test]
    fn an_answer_cut_inside_a_delimiter_does_not_leave_it_in_the_last_field() {
        for cut in ["<", "<|", "<|#", "<|#|"] {
            let p = parse_extraction(&format!("entity<|#|>Pequod<|#|>Artifact<|#|>A whaling ship{cut}"), LIMITS);
            assert_eq!(p.entities.len(), 1, "{cut}: {p:?}");
            assert_eq!(p.entities[0].description, "A whaling ship", "{cut}");
        }
        // a complete answer is not cut: its text stays as written
        let p = parse_extraction("entity<|#|>A<|#|>t<|#|>x <\n<|COMPLETE|>", LIMITS);
        assert_eq!(p.entities[0].description, "x <");
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_never_invents(s in "\\PC{0,300}") {
            let p = parse_extraction(&s, LIMITS);
            for e in &p.entities {
                // every name is made of characters present in the input (after clean-up folding)
                let words: Vec<&str> = e.name.split_whitespace().collect();
                for w in words {
                    let w_ascii: String = w.chars().filter(|c| c.is_alphanumeric()).collect();
                    if !w_ascii.is_empty() {
                        let input_folded = clean_field(&s);
                        proptest::prop_assert!(input_folded.contains(&w_ascii) || s.contains(&w_ascii), "invented {w}");
                    }
                }
            }
        }

        #[test]
        fn records_built_from_arbitrary_fields_round_trip(name in "[A-Za-z][A-Za-z ]{2,20}[A-Za-z]", desc in "[A-Za-z .,]{1,60}[a-z]") {
            let out = format!("entity<|#|>{name}<|#|>person<|#|>{desc}\n<|COMPLETE|>");
            let p = parse_extraction(&out, LIMITS);
            let expected = name.split_whitespace().collect::<Vec<_>>().join(" ");
            proptest::prop_assert_eq!(p.entities.len(), 1);
            proptest::prop_assert_eq!(&p.entities[0].name, &expected);
        }
    }
}
