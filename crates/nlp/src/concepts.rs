//! Common-noun concept phrases: pairs of adjacent lower-case content words ("public credit",
//! "national debt") that recur within the text.

use std::collections::HashMap;

use crate::doc::{Doc, Mention};
use crate::lexicon::{is_common_verb, is_generic_noun};
use crate::tokens::Kind;
use crate::types::CONCEPT;

/// Finds concept mentions whose phrase occurs at least `min_count` times.
pub fn find(doc: &Doc<'_>, min_count: usize) -> Vec<Mention> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut counts: HashMap<(&str, &str), usize> = HashMap::new();
    let content: Vec<bool> = (0..doc.tokens.len()).map(|i| is_content(doc, i, doc.text(i))).collect();
    for (si, s) in doc.sentences.iter().enumerate() {
        if doc.shouting.get(si).copied().unwrap_or(false) {
            continue;
        }
        for i in s.first..s.last.saturating_sub(1) {
            let (a, b) = (doc.text(i), doc.text(i + 1));
            let next = doc.tokens[i + 1];
            let head_is_adjective = ADJECTIVE_ENDINGS.iter().any(|e| b.ends_with(e));
            if content[i] && content[i + 1] && !head_is_adjective && next.newlines_before == 0 && next.space_before {
                *counts.entry((a, b)).or_default() += 1;
                found.push((si, i));
            }
        }
    }
    found
        .into_iter()
        .filter(|&(_, i)| counts.get(&(doc.text(i), doc.text(i + 1))).copied().unwrap_or(0) >= min_count.max(1))
        .map(|(si, i)| Mention {
            name: format!("{} {}", doc.text(i), doc.text(i + 1)),
            entity_type: CONCEPT,
            sentence: si,
            first: i,
            last: i + 2,
        })
        .collect()
}

/// Endings of adjectives, which do not head a noun phrase ("great *industrial*").
const ADJECTIVE_ENDINGS: &[&str] = &["ous", "ful", "able", "ible", "less", "ial", "ical", "ive"];

/// A lower-case word of three letters or more that is not a stop-word, a common verb, a vague
/// noun or an adverb.
fn is_content(doc: &Doc<'_>, i: usize, w: &str) -> bool {
    doc.tokens[i].kind == Kind::Word
        && !doc.stop[i]
        && w.chars().count() >= 3
        && w.chars().all(|c| c.is_lowercase() || c == '-')
        && !w.ends_with("ly")
        && !is_common_verb(w)
        && !is_generic_noun(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Mode;

    #[test]
    fn recurring_pairs_only() {
        let doc = Doc::new(
            "The public credit rose. We guard the public credit and the national debt. Last year ended.",
            Mode::Document,
        );
        let names: Vec<String> = find(&doc, 2).into_iter().map(|m| m.name).collect();
        assert_eq!(names, vec!["public credit", "public credit"]);
        let all: Vec<String> = find(&doc, 1).into_iter().map(|m| m.name).collect();
        assert_eq!(all, vec!["public credit", "credit rose", "public credit", "national debt"]);
    }
}
