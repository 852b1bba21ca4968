//! Property tests of the record parser on structured input: documents of well-formed and
//! near-well-formed LightRAG records (missing and extra fields, wrong and corrupted delimiters,
//! quoted, empty and unicode names, huge descriptions, glued records, a truncated last record),
//! each line generated with the outcome the parser must give it. Well-formed records must come
//! back exactly; malformed ones must be dropped and counted; nothing may panic.
//!
//! Case counts: a few hundred per property by default (a few seconds in a debug build);
//! `PROPTEST_CASES=20000 cargo test -p lightrag-engine --lib parse_props` for a long run.

use lightrag_ports::{ExtractedEntity, ExtractedRelation};
use proptest::prelude::*;
use proptest::test_runner::Config;

use super::parse::{ParsedExtraction, RecordLimits, parse_extraction};
use crate::prompts::TUPLE_DELIMITER as D;

const LIMITS: RecordLimits = RecordLimits { max_records: 100_000, max_entities: 100_000 };

/// `PROPTEST_CASES` when set (the long mode), else `default`.
pub(crate) fn cases(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    Config { cases, failure_persistence: None, ..Config::default() }
}

/// Words names are made of: scripts, marks and punctuation the clean-up must keep as they are.
const NAME_WORDS: &[&str] = &[
    "Ahab",
    "Pequod",
    "Zürich",
    "東京",
    "Łódź",
    "Ñandú",
    "Ὀδυσσεύς",
    "Москва",
    "القاهرة",
    "O'Brien",
    "Jean-Luc",
    "Æsir",
    "🐋",
    "Café",
    "naïve",
    "R2D2",
    "3M",
    "Δ-9",
    "São",
    "Paulo",
    "İzmir",
    "ﬁne",
    "x̃",
    "Smith",
    "Co.",
];

/// Words descriptions are made of (no `<`, `&`, quotes or control characters: those are cleaned).
const DESC_WORDS: &[&str] = &[
    "whale",
    "ship",
    "captain",
    "the",
    "of",
    "naïve",
    "日本語",
    "мир",
    "🐳",
    "a.b",
    "(note)",
    "x|y",
    "#tag",
    "50%",
    "→",
    "ß",
    "commands",
    "with",
    "2023",
    "—",
    ">",
    "#",
    "|",
];

const TYPES: &[(&str, &str)] = &[
    ("Person", "person"),
    ("organization", "organization"),
    ("Geo Location", "geolocation"),
    ("EVENT", "event"),
    ("Concept, Idea", "concept"),
    ("naturalObject", "naturalobject"),
    ("Ort", "ort"),
];

/// Corrupted tuple delimiters the parser repairs (LightRAG's list).
const REPAIRABLE: &[&str] = &["<|##|>", "<|>", "<||>", "<#>", "<#|>", "<|#>", "<|\\#|>", "<X|#|Y>", "<|#||#|>"];

/// Delimiters it cannot read: the line is prose to it.
const UNREADABLE: &[&str] = &["<|@|>", " | ", "\t", "<|$|>"];

fn reserved(word: &str) -> bool {
    matches!(word.trim().to_lowercase().as_str(), "entity" | "relation" | "relationship")
}

fn random_word() -> impl Strategy<Value = String> {
    "[A-Za-z][a-z]{0,7}".prop_filter("a record keyword", |w| !reserved(w))
}

fn name() -> impl Strategy<Value = String> {
    let word = prop_oneof![3 => proptest::sample::select(NAME_WORDS).prop_map(str::to_string), 1 => random_word()];
    proptest::collection::vec(word, 1..4).prop_map(|w| w.join(" "))
}

fn description() -> impl Strategy<Value = String> {
    let word = prop_oneof![3 => proptest::sample::select(DESC_WORDS).prop_map(str::to_string), 1 => random_word()];
    let short = proptest::collection::vec(word, 1..20).prop_map(|w| w.join(" "));
    // a huge description now and then (LLMs ramble): must come through whole
    prop_oneof![9 => short.clone(), 1 => short.prop_map(|d| vec![d; 2_000].join(" "))]
        .prop_filter("a record keyword", |d| !reserved(d))
}

fn keywords() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        prop_oneof![
            random_word(),
            proptest::sample::select(&["日本", "économie", "trade route"][..]).prop_map(str::to_string)
        ],
        1..4,
    )
}

/// One well-formed record: its fields as written and the record the parser must return.
#[derive(Debug, Clone)]
enum Record {
    Entity { fields: Vec<String>, want: ExtractedEntity },
    Relation { fields: Vec<String>, want: ExtractedRelation },
}

impl Record {
    fn fields(&self) -> &[String] {
        match self {
            Record::Entity { fields, .. } | Record::Relation { fields, .. } => fields,
        }
    }
    fn has_weight(&self) -> bool {
        matches!(self, Record::Relation { fields, .. } if fields.len() == 6)
    }
}

fn entity() -> impl Strategy<Value = Record> {
    (
        proptest::sample::select(&["entity", "Entity", "ENTITY"][..]),
        name(),
        proptest::sample::select(TYPES),
        description(),
    )
        .prop_map(|(kind, name, (ty, ty_clean), desc)| Record::Entity {
            fields: vec![kind.into(), name.clone(), ty.into(), desc.clone()],
            want: ExtractedEntity { name, entity_type: ty_clean.into(), description: desc, written_as: None },
        })
}

fn relation() -> impl Strategy<Value = Record> {
    let kind = proptest::sample::select(&["relation", "relationship", "Relation"][..]);
    (kind, name(), name(), keywords(), description(), proptest::option::of(1u32..100))
        .prop_filter("a relation between two entities", |(_, a, b, ..)| a != b)
        .prop_map(|(kind, src, tgt, kw, desc, weight)| {
            let mut fields = vec![kind.to_string(), src.clone(), tgt.clone(), kw.join(", "), desc.clone()];
            let weight = weight.map(|w| f64::from(w) / 4.0);
            if let Some(w) = weight {
                fields.push(w.to_string());
            }
            let want = ExtractedRelation {
                src,
                tgt,
                keywords: kw.join(","),
                description: desc,
                weight: weight.unwrap_or(1.0),
                src_written_as: None,
                tgt_written_as: None,
            };
            Record::Relation { fields, want }
        })
}

fn record() -> impl Strategy<Value = Record> {
    prop_oneof![entity(), relation()]
}

/// What one generated line must give.
#[derive(Debug, Clone, Default)]
struct Want {
    entities: Vec<ExtractedEntity>,
    relations: Vec<ExtractedRelation>,
    dropped: usize,
    repaired: usize,
}

impl Want {
    fn record(r: &Record) -> Want {
        match r {
            Record::Entity { want, .. } => Want { entities: vec![want.clone()], ..Want::default() },
            Record::Relation { want, .. } => Want { relations: vec![want.clone()], ..Want::default() },
        }
    }
    fn dropped() -> Want {
        Want { dropped: 1, ..Want::default() }
    }
}

fn join(fields: &[String], delimiter: &str) -> String {
    fields.join(delimiter)
}

/// A line of output and what it must give.
#[derive(Debug, Clone)]
struct Line {
    text: String,
    want: Want,
}

/// Well-formed lines: the record as the prompt asks for it, or with the harmless variations
/// LLMs add (padding, a bullet, a trailing delimiter, quoted names).
fn good_line() -> impl Strategy<Value = Line> {
    (record(), 0..5u8, proptest::sample::select(&[('"', '"'), ('\'', '\''), ('“', '”'), ('《', '》')][..])).prop_map(
        |(r, style, (open, close))| {
            let mut fields = r.fields().to_vec();
            let text = match style {
                0 => join(&fields, D),
                1 => join(&fields, &format!("  {D} ")),
                2 => format!("- {}", join(&fields, D)),
                3 => format!("{}{D}", join(&fields, D)),
                _ => {
                    fields[1] = format!("{open}{}{close}", fields[1]);
                    join(&fields, D)
                }
            };
            Line { text, want: Want::record(&r) }
        },
    )
}

/// Near-well-formed lines with the outcome the parser owes each.
fn bad_line() -> impl Strategy<Value = Line> {
    let repairable = proptest::sample::select(REPAIRABLE);
    let unreadable = proptest::sample::select(UNREADABLE);
    (record(), 0..10u8, repairable, unreadable, proptest::sample::select(&["", " ", "\u{3000}"][..])).prop_map(
        |(r, kind, repairable, unreadable, blank)| {
            let is_entity = matches!(r, Record::Entity { .. });
            // weights make field counts ambiguous; the malformed shapes below are built without
            let mut fields = r.fields().to_vec();
            if r.has_weight() {
                fields.pop();
            }
            match kind {
                // a missing field (the description)
                0 => Line { text: join(&fields[..fields.len() - 1], D), want: Want::dropped() },
                // extra fields: too many for either kind of record
                1 => {
                    let extra = if is_entity { 3 } else { 2 };
                    fields.extend((0..extra).map(|i| format!("extra{i}")));
                    Line { text: join(&fields, D), want: Want::dropped() }
                }
                // a corrupted delimiter LightRAG repairs: read as written, counted as repaired
                2 => Line { text: join(r.fields(), repairable), want: Want { repaired: 1, ..Want::record(&r) } },
                // a delimiter nobody can read: prose
                3 => Line { text: join(&fields, unreadable), want: Want::dropped() },
                // an empty or blank name
                4 => {
                    fields[1] = blank.to_string();
                    Line { text: join(&fields, D), want: Want::dropped() }
                }
                // an empty description
                5 => {
                    let last = fields.len() - 1;
                    fields[last] = blank.to_string();
                    Line { text: join(&fields, D), want: Want::dropped() }
                }
                // a relation from an entity to itself; an entity whose type is not a type
                6 => {
                    if is_entity {
                        fields[2] = "per(son)".into();
                    } else {
                        fields[2] = fields[1].clone();
                    }
                    Line { text: join(&fields, D), want: Want::dropped() }
                }
                // prose around the records
                7 => Line { text: "Here are the entities I found:".into(), want: Want::dropped() },
                // an empty field inside the record: an entity without a type is dropped, a
                // relation without keywords is kept (the fields after it must not shift)
                8 => {
                    let mut fields = r.fields().to_vec();
                    match r {
                        Record::Entity { .. } => {
                            fields[2] = String::new();
                            Line { text: join(&fields, D), want: Want::dropped() }
                        }
                        Record::Relation { mut want, .. } => {
                            fields[3] = String::new();
                            want.keywords = String::new();
                            Line { text: join(&fields, D), want: Want { relations: vec![want], ..Want::default() } }
                        }
                    }
                }
                // code fences and blank lines are not records and not counted
                _ => {
                    Line { text: if blank.is_empty() { "```text".into() } else { blank.into() }, want: Want::default() }
                }
            }
        },
    )
}

fn any_line() -> impl Strategy<Value = Line> {
    prop_oneof![3 => good_line(), 2 => bad_line()]
}

/// How the answer ends.
fn ending() -> impl Strategy<Value = (String, bool)> {
    proptest::sample::select(
        &[("", false), ("\n<|COMPLETE|>", true), ("<|COMPLETE|>", true), ("\n<| complete |>\n", true)][..],
    )
    .prop_map(|(s, c)| (s.to_string(), c))
}

fn render(lines: &[Line], newline: &str, end: &str) -> String {
    let mut out = lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join(newline);
    out.push_str(end);
    out
}

fn expected(lines: &[Line]) -> Want {
    let mut all = Want::default();
    for l in lines {
        all.entities.extend(l.want.entities.iter().cloned());
        all.relations.extend(l.want.relations.iter().cloned());
        all.dropped += l.want.dropped;
        all.repaired += l.want.repaired;
    }
    all
}

fn check(parsed: &ParsedExtraction, want: &Want) -> Result<(), TestCaseError> {
    prop_assert_eq!(&parsed.entities, &want.entities);
    prop_assert_eq!(&parsed.relations, &want.relations);
    prop_assert_eq!(parsed.stats.dropped, want.dropped, "dropped");
    prop_assert_eq!(parsed.stats.repaired, want.repaired, "repaired");
    prop_assert_eq!(parsed.stats.capped, 0);
    Ok(())
}

proptest! {
    #![proptest_config(cases(256))]

    /// Every well-formed record comes back exactly, in order, with nothing dropped or repaired.
    #[test]
    fn well_formed_records_round_trip_exactly(
        lines in proptest::collection::vec(good_line(), 0..12),
        newline in proptest::sample::select(&["\n", "\r\n", "\n\n"][..]),
        (end, complete) in ending(),
    ) {
        let parsed = parse_extraction(&render(&lines, newline, &end), LIMITS);
        check(&parsed, &expected(&lines))?;
        prop_assert_eq!(parsed.stats.complete, complete);
    }

    /// Malformed lines among good ones are dropped and counted; the good ones are untouched.
    #[test]
    fn malformed_records_are_dropped_and_counted(
        lines in proptest::collection::vec(any_line(), 1..16),
        (end, complete) in ending(),
    ) {
        let parsed = parse_extraction(&render(&lines, "\n", &end), LIMITS);
        check(&parsed, &expected(&lines))?;
        prop_assert_eq!(parsed.stats.complete, complete);
    }

    /// Records glued on one line with the tuple delimiter between them are all read.
    #[test]
    fn records_glued_on_one_line_are_all_read(records in proptest::collection::vec(record(), 2..6)) {
        let text = records.iter().map(|r| join(r.fields(), D)).collect::<Vec<_>>().join(D);
        let parsed = parse_extraction(&text, LIMITS);
        let lines: Vec<Line> = records.iter().map(|r| Line { text: String::new(), want: Want::record(r) }).collect();
        let mut want = expected(&lines);
        want.repaired = 1;
        check(&parsed, &want)?;
    }

    /// An answer cut anywhere (the model ran out of tokens) keeps every record before the cut;
    /// the cut one is either dropped or read with a shortened last field, never anything else.
    #[test]
    fn a_truncated_last_record_leaves_the_others_intact(
        lines in proptest::collection::vec(good_line(), 1..8),
        cut in any::<proptest::sample::Index>(),
    ) {
        let (last, before) = lines.split_last().unwrap_or_else(|| unreachable!("at least one line"));
        let chars: Vec<char> = last.text.chars().collect();
        let kept: String = chars[..cut.index(chars.len() + 1)].iter().collect();
        let mut text = render(before, "\n", "");
        if !before.is_empty() {
            text.push('\n');
        }
        text.push_str(&kept);
        let parsed = parse_extraction(&text, LIMITS);
        let want = expected(before);
        prop_assert!(!parsed.stats.complete);
        prop_assert_eq!(&parsed.entities[..want.entities.len().min(parsed.entities.len())], &want.entities[..]);
        prop_assert_eq!(&parsed.relations[..want.relations.len().min(parsed.relations.len())], &want.relations[..]);
        let results = parsed.entities.len() + parsed.relations.len() + parsed.stats.dropped;
        let before_cut = want.entities.len() + want.relations.len();
        prop_assert!(results >= before_cut, "records before the cut were lost: {parsed:?}");
        let extra = results - before_cut;
        prop_assert!(extra <= 1, "one cut line gave {extra} results: {parsed:?}");
        if let (Some(got), Some(full)) = (parsed.entities.get(want.entities.len()), last.want.entities.first()) {
            prop_assert_eq!(&got.name, &full.name);
            prop_assert!(full.description.starts_with(&got.description), "{got:?} from {full:?}");
        }
        if let (Some(got), Some(full)) = (parsed.relations.get(want.relations.len()), last.want.relations.first()) {
            prop_assert_eq!((&got.src, &got.tgt), (&full.src, &full.tgt));
        }
    }
}

/// Every answer that once broke the parser (`tests/crashers/extraction/`) is read again: no
/// panic, and no record keeps a piece of a tuple delimiter or an empty name.
#[test]
fn past_crashers_are_read_cleanly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crashers/extraction");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let output = String::from_utf8_lossy(&bytes);
        let parsed = parse_extraction(&output, LIMITS);
        let names =
            parsed.entities.iter().map(|e| &e.name).chain(parsed.relations.iter().flat_map(|r| [&r.src, &r.tgt]));
        for name in names {
            assert!(!name.is_empty() && !name.contains("<|"), "{}: name {name:?}", path.display());
        }
        let descriptions =
            parsed.entities.iter().map(|e| &e.description).chain(parsed.relations.iter().map(|r| &r.description));
        for d in descriptions {
            assert!(!d.is_empty() && !d.contains("<|") && !d.ends_with('<'), "{}: description {d:?}", path.display());
        }
        assert_records_were_found(&parsed, &path);
        replayed += 1;
    }
    assert!(replayed >= 3, "the crasher corpus in {} is missing", dir.display());
}

fn assert_records_were_found(parsed: &ParsedExtraction, path: &std::path::Path) {
    assert!(
        !parsed.entities.is_empty() || !parsed.relations.is_empty(),
        "{}: nothing read: {parsed:?}",
        path.display()
    );
}

/// The extraction answers of the LightRAG 1.5.7 fixture (real LLM output) parse without a
/// dropped row, and damaged copies of them (cut, a byte flipped or inserted) never panic.
#[test]
fn real_answers_parse_cleanly_and_damaged_ones_never_panic() {
    let cache: serde_json::Value = serde_json::from_str(include_str!(
        "../../../../tools/lightrag-import/tests/fixtures/lightrag-1.5.7/basic/kv_store_llm_response_cache.json"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let answers: Vec<&str> = cache
        .as_object()
        .into_iter()
        .flat_map(|o| o.values())
        .filter(|e| e["cache_type"] == "extract")
        .filter_map(|e| e["return"].as_str())
        .filter(|a| a.contains(D))
        .collect();
    assert!(answers.len() >= 4, "the fixture lost its extraction answers");
    for answer in &answers {
        let parsed = parse_extraction(answer, LIMITS);
        assert_eq!(parsed.stats.dropped, 0, "{answer}");
        assert!(parsed.entities.len() + parsed.relations.len() == answer.lines().filter(|l| l.contains(D)).count());
    }
    let mut runner = proptest::test_runner::TestRunner::new(cases(64));
    let damage = (any::<proptest::sample::Index>(), any::<proptest::sample::Index>(), any::<u8>(), 0..3u8);
    runner
        .run(&damage, |(which, at, byte, how)| {
            let mut bytes = answers[which.index(answers.len())].as_bytes().to_vec();
            let i = at.index(bytes.len());
            match how {
                0 => bytes.truncate(i),
                1 => bytes[i] ^= byte | 1,
                _ => bytes.insert(i, byte),
            }
            let parsed = parse_extraction(&String::from_utf8_lossy(&bytes), LIMITS);
            prop_assert!(parsed.entities.iter().all(|e| !e.name.is_empty() && !e.description.is_empty()));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}
