//! Entity typing by rules: gazetteers, head words, titles and context cues.

use crate::gazetteer::{
    COUNTRIES, EVENT_HEADS, FIRST_NAMES, LOCATION_HEADS, LOCATION_PREFIXES, ORG_HEADS, PLACES, US_STATES,
};
use crate::lexicon::{CONNECTORS, DEMONYMS, TITLES, contains};

/// `person`.
pub const PERSON: &str = "person";
/// `organization`.
pub const ORGANIZATION: &str = "organization";
/// `location`.
pub const LOCATION: &str = "location";
/// `event`.
pub const EVENT: &str = "event";
/// `date`.
pub const DATE: &str = "date";
/// `concept` (common-noun phrases).
pub const CONCEPT: &str = "concept";
/// `other`.
pub const OTHER: &str = "other";

/// Whether a lower-cased phrase (words joined by single spaces) is a known place.
pub fn is_known_place(lower_phrase: &str) -> bool {
    contains(COUNTRIES, lower_phrase) || contains(US_STATES, lower_phrase) || contains(PLACES, lower_phrase)
}

/// Whether a lower-cased single word is evidence of a name on its own (gazetteer or head word).
pub fn is_known_name_word(lower: &str) -> bool {
    is_known_place(lower) || contains(FIRST_NAMES, lower) || contains(ORG_HEADS, lower)
}

/// Whether a lower-cased word is a nationality adjective or plural ("Mexican", "Japanese",
/// "Alaskan"): listed, or a place name's stem plus a demonym ending.
pub fn is_demonym(lower: &str) -> bool {
    if contains(DEMONYMS, lower) {
        return true;
    }
    if is_known_place(lower) {
        return false;
    }
    let singular = lower.strip_suffix('s').unwrap_or(lower);
    ["ian", "an", "ese", "ish", "ine", "n", "i"]
        .iter()
        .any(|suffix| singular.strip_suffix(suffix).is_some_and(|stem| stem.len() >= 4 && has_place_with_prefix(stem)))
}

fn has_place_with_prefix(stem: &str) -> bool {
    [COUNTRIES, US_STATES, PLACES].iter().any(|list| {
        let at = list.partition_point(|p| *p < stem);
        list.get(at).is_some_and(|p| p.starts_with(stem))
    })
}

/// Whether a lower-cased word (without a trailing dot) is a title.
pub fn is_title(lower: &str) -> bool {
    contains(TITLES, lower.trim_end_matches('.'))
}

/// Types one mention of a capitalised phrase.
///
/// `words` are the phrase's lower-cased words (connectors included, dots dropped), `phrase` the
/// lower-cased name as written, `place_cue` whether a locative preposition precedes it.
pub fn classify(words: &[String], phrase: &str, place_cue: bool) -> &'static str {
    let Some(first) = words.first() else {
        return OTHER;
    };
    // Ignore a trailing numeral ("World War II", "Apollo 11") when looking for the head.
    let core = match words.split_last() {
        Some((l, rest)) if !rest.is_empty() && is_numeral(l) => rest,
        _ => words,
    };
    let last = core.last().map_or("", String::as_str);
    if is_known_place(phrase) {
        return LOCATION;
    }
    // The head of "X of Y" is X; otherwise the last word.
    let head = core
        .iter()
        .position(|w| contains(CONNECTORS, w) && w != "the")
        .and_then(|p| p.checked_sub(1))
        .map_or(last, |p| core[p].as_str());
    if contains(EVENT_HEADS, head) {
        return EVENT;
    }
    if contains(ORG_HEADS, head) {
        return ORGANIZATION;
    }
    if contains(LOCATION_HEADS, head) && words.len() > 1 {
        return LOCATION;
    }
    if is_title(first) || matches!(last, "jr" | "sr") {
        return PERSON;
    }
    if words.len() > 1 && contains(LOCATION_PREFIXES, first) {
        return LOCATION;
    }
    if contains(FIRST_NAMES, first) {
        return PERSON;
    }
    if words.len() == 1 && contains(LOCATION_HEADS, head) {
        return LOCATION;
    }
    if words.len() > 1 && is_known_place(last) {
        // "Western Europe", "Southern California".
        return LOCATION;
    }
    if place_cue && !matches!(phrase, "god" | "almighty" | "providence" | "creator" | "lord") {
        return LOCATION;
    }
    if words.len() > 1 && words.iter().any(|w| w.chars().count() == 1) {
        // Contains an initial: "J. Edgar Hoover".
        return PERSON;
    }
    OTHER
}

/// Roman numerals up to 39 and plain numbers.
fn is_numeral(w: &str) -> bool {
    !w.is_empty()
        && (w.bytes().all(|b| b.is_ascii_digit()) || w.len() <= 6 && w.bytes().all(|b| matches!(b, b'i' | b'v' | b'x')))
}

/// Picks the type of an entity from the types of its mentions: the most frequent specific type,
/// ties broken by a fixed preference order; `other` only when nothing else was seen.
pub fn vote(types: &[&'static str]) -> &'static str {
    const ORDER: [&str; 6] = [DATE, EVENT, PERSON, ORGANIZATION, LOCATION, CONCEPT];
    let mut best = OTHER;
    let mut best_count = 0;
    for candidate in ORDER {
        let n = types.iter().filter(|t| **t == candidate).count();
        if n > best_count {
            best = candidate;
            best_count = n;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(phrase: &str, cue: bool) -> &'static str {
        let lowered = phrase.to_lowercase();
        let words: Vec<String> = lowered.split_whitespace().map(|w| w.trim_end_matches('.').to_string()).collect();
        classify(&words, &lowered, cue)
    }

    #[test]
    fn rules() {
        assert_eq!(typed("Department of the Treasury", false), ORGANIZATION);
        assert_eq!(typed("House of Representatives", false), ORGANIZATION);
        assert_eq!(typed("Bank of the United States", false), ORGANIZATION);
        assert_eq!(typed("United States of America", false), LOCATION);
        assert_eq!(typed("Great Britain", false), LOCATION);
        assert_eq!(typed("Mississippi River", false), LOCATION);
        assert_eq!(typed("Gulf of Mexico", false), LOCATION);
        assert_eq!(typed("President Lincoln", false), PERSON);
        assert_eq!(typed("Mr. Smith", false), PERSON);
        assert_eq!(typed("Secretary of State", false), PERSON);
        assert_eq!(typed("General Land Office", false), ORGANIZATION);
        assert_eq!(typed("George Washington", false), PERSON);
        assert_eq!(typed("War of 1812", false), EVENT);
        assert_eq!(typed("Civil War", false), EVENT);
        assert_eq!(typed("Treaty of Ghent", false), EVENT);
        assert_eq!(typed("Fort Sumter", false), LOCATION);
        assert_eq!(typed("World War II", false), EVENT);
        assert_eq!(typed("Western Europe", false), LOCATION);
        assert_eq!(typed("St. Lawrence", false), LOCATION);
        assert_eq!(typed("Shelbyville", true), LOCATION);
        assert_eq!(typed("Shelbyville", false), OTHER);
        assert_eq!(typed("God", true), OTHER, "in God we trust");
    }

    #[test]
    fn demonyms() {
        for w in ["mexican", "japanese", "alaskan", "brazilians", "argentine", "korean", "indians", "cuban"] {
            assert!(is_demonym(w), "{w}");
        }
        for w in ["lincoln", "washington", "truman", "sudan", "johnson", "houston", "jordan"] {
            assert!(!is_demonym(w), "{w}");
        }
    }

    #[test]
    fn voting_prefers_specific_types() {
        assert_eq!(vote(&[OTHER, OTHER, LOCATION]), LOCATION);
        assert_eq!(vote(&[PERSON, LOCATION, PERSON]), PERSON);
        assert_eq!(vote(&[OTHER]), OTHER);
        assert_eq!(vote(&[]), OTHER);
    }
}
