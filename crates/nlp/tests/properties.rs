//! Property tests: no panics on any input, and records only reflect text that is present.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may fail loudly

use lightrag_nlp::{Extraction, NlpOptions, extract, query_keywords};
use proptest::prelude::*;

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks the invariants every extraction must hold.
fn check(text: &str, out: &Extraction, opts: &NlpOptions) -> Result<(), TestCaseError> {
    let flat = collapse(text).replace('’', "'");
    prop_assert!(out.entities.len() <= opts.max_entities);
    prop_assert!(out.relations.len() <= opts.max_relations);
    let mut seen = std::collections::HashSet::new();
    for e in &out.entities {
        prop_assert!(!e.name.is_empty());
        prop_assert!(flat.contains(&e.name.replace('’', "'")), "entity {:?} not in text", e.name);
        prop_assert!(seen.insert(e.name.to_lowercase()), "duplicate entity {:?}", e.name);
        prop_assert!(!e.entity_type.is_empty() && e.entity_type == e.entity_type.to_lowercase());
        prop_assert!(!e.entity_type.contains(' '));
        prop_assert!(e.description.chars().count() <= opts.max_description_chars);
    }
    for r in &out.relations {
        prop_assert!(r.src != r.tgt, "self relation {:?}", r.src);
        prop_assert!(out.entities.iter().any(|e| e.name == r.src), "unknown src {:?}", r.src);
        prop_assert!(out.entities.iter().any(|e| e.name == r.tgt), "unknown tgt {:?}", r.tgt);
        prop_assert!(r.weight.is_finite() && r.weight >= 1.0);
        prop_assert!(r.description.chars().count() <= opts.max_description_chars);
        prop_assert!(r.keywords.split(", ").filter(|k| !k.is_empty()).count() <= 3);
    }
    Ok(())
}

/// Text built from words that exercise the rules: names, titles, connectors, dates, punctuation.
fn wordy_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "the",
        "of",
        "and",
        "for",
        "de",
        "Mr.",
        "Mrs",
        "General",
        "President",
        "Secretary",
        "John",
        "Q.",
        "Adams",
        "Washington's",
        "United",
        "States",
        "America",
        "France",
        "Spain",
        "Great",
        "Britain",
        "Congress",
        "Senate",
        "House",
        "Representatives",
        "Department",
        "Treasury",
        "War",
        "1812",
        "1861",
        "July",
        "4,",
        "December",
        "7",
        "However,",
        "Our",
        "We",
        "In",
        "Fellow-Citizens",
        "\"",
        "'",
        "“",
        "”",
        "(",
        ")",
        ".",
        ",",
        ";",
        ":",
        "!",
        "?",
        "\n",
        "\n\n",
        "public",
        "debt",
        "grew",
        "U.S.",
        "NATO",
        "ALL",
        "CAPS",
        "HEADER",
        "—",
        "-",
        "Zürich",
        "東京",
        "St.",
        "Louis",
        "Jr.",
        "’s",
        "...",
        "#",
        "1.",
        "$",
        "1900",
        "May",
        "River",
        "Ocean",
        "Treaty",
        "Ghent",
    ]);
    prop::collection::vec(pieces, 0..120).prop_map(|v| v.join(" "))
}

proptest! {
    // 256 cases by default; set PROPTEST_CASES to run more.

    #[test]
    fn arbitrary_strings_never_panic(text in "\\PC{0,400}") {
        let opts = NlpOptions::default();
        let out = extract(&text, &opts);
        check(&text, &out, &opts)?;
        let _ = query_keywords(&text);
    }

    #[test]
    fn arbitrary_bytes_as_text_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let opts = NlpOptions::default();
        check(&text, &extract(&text, &opts), &opts)?;
        let _ = query_keywords(&text);
    }

    #[test]
    fn rule_heavy_text_keeps_invariants(text in wordy_text(), max_e in 0usize..8, max_r in 0usize..8, max_d in 0usize..80) {
        let opts = NlpOptions { max_entities: max_e, max_relations: max_r, max_description_chars: max_d, ..NlpOptions::default() };
        check(&text, &extract(&text, &opts), &opts)?;
        let defaults = NlpOptions::default();
        check(&text, &extract(&text, &defaults), &defaults)?;
    }

    #[test]
    fn query_keywords_are_clean(text in wordy_text()) {
        let k = query_keywords(&text);
        let flat = collapse(&text).replace('’', "'").to_lowercase();
        for w in &k.high_level {
            prop_assert!(!w.is_empty() && *w == w.to_lowercase(), "{:?}", w);
            prop_assert!(flat.contains(w.as_str()), "{:?}", w);
        }
        for w in &k.low_level {
            prop_assert!(!w.is_empty());
        }
        let mut dedup = k.high_level.clone();
        dedup.sort();
        dedup.dedup();
        prop_assert_eq!(dedup.len(), k.high_level.len());
    }
}

#[test]
fn huge_and_degenerate_inputs() {
    let opts = NlpOptions::default();
    for text in [
        String::new(),
        " \n\t ".to_string(),
        "....!!!???".repeat(1000),
        "\"".repeat(5000),
        "A".repeat(100_000),
        "Spain ".repeat(20_000),
        "Spain, France, Italy, Greece, Egypt. ".repeat(2000),
        "x".repeat(3) + &"\u{301}".repeat(1000),
        "Administration-the United-States-of-America's -- 'quoted' “Paris”".repeat(100),
    ] {
        let out = extract(&text, &opts);
        check(&text, &out, &opts).expect("invariants");
    }
}
