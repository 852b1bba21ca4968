//! Proper-noun phrases: runs of capitalised words with connectors, titles, initials and
//! possessives, judged against sentence starts; plus dates and years.

use crate::dates::{date_at, standalone_year};
use crate::doc::{Doc, Mention, Mode, strip_possessive};
use crate::gazetteer::FIRST_NAMES;
use crate::lexicon::{CONNECTORS, DAYS, GENERIC_CAPS, MONTHS, QUERY_VERBS, contains, is_non_name_cap, is_stop, lower};
use crate::tokens::Kind;
use crate::types::{DATE, classify, is_demonym, is_known_name_word, is_title};

/// Longest name, in words.
const MAX_NAME_WORDS: usize = 8;

/// Prepositions that mark the following name as a place.
const PLACE_CUES: &[&str] = &["across", "at", "from", "in", "into", "near", "throughout", "toward", "towards"];

/// Finds every proper-noun, date and year mention, in text order.
pub fn find(doc: &Doc<'_>) -> Vec<Mention> {
    let mut out = Vec::new();
    for (si, s) in doc.sentences.iter().enumerate() {
        let shouting = doc.shouting.get(si).copied().unwrap_or(false);
        let mut i = s.first;
        while i < s.last {
            if let Some(end) = date_at(doc, i, s.last) {
                out.push(Mention { name: doc.span_text(i, end), entity_type: DATE, sentence: si, first: i, last: end });
                i = end;
                continue;
            }
            if standalone_year(doc, i, s.last) {
                out.push(Mention {
                    name: doc.text(i).to_string(),
                    entity_type: DATE,
                    sentence: si,
                    first: i,
                    last: i + 1,
                });
                i += 1;
                continue;
            }
            if !shouting && is_name_word(doc, i) {
                let end = extend(doc, i, s.last);
                if let Some(m) = judge(doc, si, i, end) {
                    out.push(m);
                }
                i = end;
                continue;
            }
            i += 1;
        }
    }
    out
}

/// A capitalised word that may be part of a name.
fn is_name_word(doc: &Doc<'_>, i: usize) -> bool {
    let Some(t) = doc.tokens.get(i) else {
        return false;
    };
    if t.kind != Kind::Word || !t.first_char(doc.src).is_some_and(char::is_uppercase) {
        return false;
    }
    !doc.stop[i] && !is_non_name_cap(doc.lower(i))
}

fn has_possessive(doc: &Doc<'_>, i: usize) -> bool {
    let w = doc.text(i);
    w.ends_with("'s") || w.ends_with("’s")
}

/// Extends a phrase that starts at name word `i`; returns one past its last token.
fn extend(doc: &Doc<'_>, i: usize, end: usize) -> usize {
    let mut last = i + 1; // one past the last accepted token
    let mut ofs = 0;
    if has_possessive(doc, i) {
        return last;
    }
    let mut j = last;
    while j < end {
        let t = doc.tokens[j];
        if is_name_word(doc, j) {
            if date_at(doc, j, end).is_some() {
                // "the act of Congress of March 3, 1891": the date is its own mention.
                break;
            }
            last = j + 1;
            j += 1;
            if has_possessive(doc, j - 1) {
                break;
            }
            continue;
        }
        // "Mr. Smith", "John Q. Adams", "St. Louis": a dot glued to a title or an initial.
        if t.is_punct(doc.src, '.') && doc.tokens[j - 1].end == t.start && j + 1 < end && is_name_word(doc, j + 1) {
            let prev = doc.lower(j - 1);
            let initial = prev.chars().count() == 1;
            if initial || is_title(prev) || prev == "st" || prev == "ft" || prev == "mt" {
                j += 1;
                continue;
            }
            break;
        }
        if t.kind == Kind::Word && doc.text(j).chars().all(|c| c.is_lowercase()) && contains(CONNECTORS, doc.text(j)) {
            let conn = doc.text(j);
            let mut k = j + 1;
            if k < end && doc.text(k) == "the" && conn != "the" && conn != "and" {
                k += 1;
            }
            let allowed = match conn {
                // "Secretary of State", but not "Ben Erler of Minneapolis" or "Senator Douglas of
                // Illinois": a person's name ends before "of".
                "of" => ofs < 2 && !names_a_person(doc, i, j),
                "the" => false,
                // "Department of Commerce and Labor", but not "… of State and Senate".
                // … and not "Duke of Bavaria and Elisabetta Visconti": one word after "and".
                "and" => {
                    ofs > 0
                        && k < end
                        && !is_title(doc.lower(k))
                        && !is_known_name_word(doc.lower(k))
                        && !(k + 1 < end && is_name_word(doc, k + 1))
                }
                // "Newcastle upon Tyne", but not "the United States upon Mexico".
                "upon" => j == i + 1,
                "for" => {
                    let head = doc.lower(j - 1);
                    is_title(head) || contains(crate::gazetteer::ORG_HEADS, head)
                }
                _ => true,
            };
            if !allowed || k >= end {
                break;
            }
            if conn == "of" && doc.tokens[k].kind == Kind::Number && standalone_year_like(doc.text(k)) {
                // "War of 1812".
                return k + 1;
            }
            if is_name_word(doc, k) && date_at(doc, k, end).is_none() {
                if conn == "of" {
                    ofs += 1;
                }
                last = k + 1;
                j = k + 1;
                if has_possessive(doc, k) {
                    break;
                }
                continue;
            }
        }
        break;
    }
    last
}

/// Whether the words `i..j` already name a person: a given name first, or a title and a name.
fn names_a_person(doc: &Doc<'_>, i: usize, j: usize) -> bool {
    let first = doc.lower(i);
    let words = (i..j).filter(|&k| doc.tokens[k].kind == Kind::Word).count();
    contains(FIRST_NAMES, first) || (is_title(first) && words >= 2)
}

fn standalone_year_like(text: &str) -> bool {
    text.len() == 4 && text.bytes().all(|b| b.is_ascii_digit())
}

/// Decides whether tokens `first..last` (a candidate phrase) make a mention, trimming a sentence
/// start that is not evidently a name.
fn judge(doc: &Doc<'_>, si: usize, mut first: usize, last: usize) -> Option<Mention> {
    if doc.initial.get(first).copied().unwrap_or(false) && !initial_is_name(doc, first, last) {
        // Drop the first word and anything that cannot start a name.
        first += 1;
        while first < last && !is_name_word(doc, first) {
            first += 1;
        }
        if first >= last {
            return None;
        }
    }
    let mut words: Vec<String> = (first..last)
        .filter(|&k| doc.tokens[k].kind != Kind::Punct)
        .map(|k| strip_possessive(doc.lower(k)).trim_end_matches('.').to_string())
        .collect();
    if words.is_empty() || words.len() > MAX_NAME_WORDS {
        return None;
    }
    let mut name = doc.span_text(first, last);
    for suffix in ["'s", "’s"] {
        if let Some(stripped) = name.strip_suffix(suffix) {
            name = stripped.to_string();
        }
    }
    // A dash written as a hyphen glued the next word on: "Administration-the".
    if let Some((head, tail)) = name.rsplit_once('-')
        && !head.is_empty()
        && tail.chars().all(char::is_lowercase)
        && is_stop(tail)
    {
        name = head.to_string();
        if let Some(last_word) = words.last_mut()
            && let Some((w, _)) = last_word.rsplit_once('-')
        {
            *last_word = w.to_string();
        }
    }
    if name.is_empty() {
        return None;
    }
    if words.len() == 1 && (!single_word_ok(&words[0]) || is_shouted_word(&name)) {
        return None;
    }
    // "South American", "Latin American": an adjective, not a name.
    if words.len() > 1 && words.last().is_some_and(|w| is_demonym(w)) && !words.iter().any(|w| contains(CONNECTORS, w))
    {
        return None;
    }
    let phrase = lower(&name);
    let cue = place_cue(doc, first);
    let entity_type = classify(&words, &phrase, cue);
    Some(Mention { name, entity_type, sentence: si, first, last })
}

/// A one-word name must not be a title (unless a hyphenated office such as
/// "Postmaster-General"), a month, weekday, nationality, generic capitalised noun, letter or
/// roman numeral.
fn single_word_ok(w: &str) -> bool {
    let letters = w.chars().filter(|c| c.is_alphabetic()).count();
    let roman = w.chars().all(|c| matches!(c, 'i' | 'v' | 'x' | 'l' | 'c')) && w.len() <= 4;
    letters > 1
        && !roman
        && (!is_title(w) || w.contains('-'))
        && !contains(MONTHS, w)
        && !contains(DAYS, w)
        && !contains(GENERIC_CAPS, w)
        && !contains(QUERY_VERBS, w)
        && !is_demonym(w)
}

/// A long word in capitals ("EDUCATION") is a shouted heading, not an acronym; a hyphenated
/// word ending in a lower-case part ("American-built", "God-given") is an adjective.
fn is_shouted_word(w: &str) -> bool {
    let letters = w.chars().filter(|c| c.is_alphabetic()).count();
    let shouted = letters > 5 && w.chars().all(|c| !c.is_lowercase());
    let compound = w
        .rsplit(['-', '‑'])
        .next()
        .filter(|tail| tail.len() < w.len())
        .and_then(|tail| tail.chars().next())
        .is_some_and(char::is_lowercase);
    shouted || compound
}

/// Whether a phrase that starts a sentence keeps its first word.
fn initial_is_name(doc: &Doc<'_>, first: usize, last: usize) -> bool {
    let w = strip_possessive(doc.lower(first)).to_string();
    if doc.mode == Mode::Query && first == doc.sentences.first().map_or(0, |s| s.first) {
        return !contains(QUERY_VERBS, &w);
    }
    if doc.mid_caps.contains(&w) || is_known_name_word(&w) || is_title(&w) {
        return true;
    }
    if last - first < 2 {
        return false;
    }
    // A multi-word phrase is a name unless its first word reads as a verb form or adverb
    // ("Believing Congress wise…", "Recently Congress…").
    !(w.ends_with("ing") || w.ends_with("ly") || contains(QUERY_VERBS, &w))
}

/// Whether a locative preposition (optionally followed by `the`) precedes token `first`.
fn place_cue(doc: &Doc<'_>, first: usize) -> bool {
    let mut k = first;
    for _ in 0..2 {
        let Some(prev) = k.checked_sub(1) else {
            return false;
        };
        let w = doc.text(prev);
        if w == "the" {
            k = prev;
            continue;
        }
        return doc.tokens[prev].kind == Kind::Word && contains(PLACE_CUES, w);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> Vec<(String, &'static str)> {
        find(&Doc::new(src, Mode::Document)).into_iter().map(|m| (m.name, m.entity_type)).collect()
    }

    fn just_names(src: &str) -> Vec<String> {
        names(src).into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn multi_word_names_with_connectors() {
        assert_eq!(
            just_names("We met the Secretary of the Treasury and the Bank of the United States today."),
            vec!["Secretary of the Treasury", "Bank of the United States"]
        );
        assert_eq!(just_names("the United States of America"), vec!["United States of America"]);
        assert_eq!(
            just_names("a Department of Commerce and Labor and Spain and France"),
            vec!["Department of Commerce and Labor", "Spain", "France"]
        );
    }

    #[test]
    fn sentence_starts_need_evidence() {
        assert!(just_names("However, peace came. Our people rejoiced.").is_empty());
        assert_eq!(just_names("Kentucky joined. We thank Kentucky."), vec!["Kentucky", "Kentucky"]);
        assert_eq!(just_names("Grant won. Later, Grant rested."), vec!["Grant", "Grant"]);
        assert_eq!(just_names("Believing Congress wise, we waited."), vec!["Congress"]);
        assert_eq!(just_names("Civil War came."), vec!["Civil War"]);
    }

    #[test]
    fn titles_initials_possessives() {
        assert_eq!(
            names("We thank Mr. Smith, General Grant and John Q. Adams for Washington's help."),
            vec![
                ("Mr. Smith".to_string(), "person"),
                ("General Grant".to_string(), "person"),
                ("John Q. Adams".to_string(), "person"),
                ("Washington".to_string(), "other"),
            ]
        );
        assert!(just_names("We asked the President and the Senator.").is_empty());
        assert_eq!(
            just_names("We met Ben Erler of Minneapolis and Senator Douglas of Illinois-the rest."),
            vec!["Ben Erler", "Minneapolis", "Senator Douglas", "Illinois"]
        );
    }

    #[test]
    fn fellow_citizens_salutation() {
        assert_eq!(
            just_names("Fellow-Citizens of the Senate and House of Representatives: In meeting you"),
            vec!["Senate", "House of Representatives"]
        );
    }

    #[test]
    fn dates_and_events() {
        assert_eq!(
            names("On December 7, 1941 we recalled the War of 1812 and events in 1861."),
            vec![
                ("December 7, 1941".to_string(), "date"),
                ("War of 1812".to_string(), "event"),
                ("1861".to_string(), "date"),
            ]
        );
    }

    #[test]
    fn shouting_is_ignored() {
        assert!(just_names("ANNUAL MESSAGE TO THE CONGRESS").is_empty());
        assert_eq!(just_names("The NATO allies met."), vec!["NATO"]);
        assert!(just_names("We discussed EDUCATION and American-built, God-given ships.").is_empty());
        assert_eq!(just_names("We read about the Clayton-Bulwer treaty."), vec!["Clayton-Bulwer"]);
    }
}
