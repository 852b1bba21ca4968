//! Query keywords without an LLM: names and noun phrases (low level), content words (high level).

use crate::doc::{Doc, Mode};
use crate::lexicon::{COMMON_VERBS, QUERY_VERBS, contains, is_stop, lower};
use crate::phrases;
use crate::tokens::Kind;
use crate::QueryKeywords;

/// Longest lower-case noun phrase kept as one low-level keyword, in words.
const MAX_RUN: usize = 4;

/// Splits a query into low-level keywords (proper names and dates, then runs of two or more
/// content words) and high-level keywords (content words outside names). When no low-level
/// keyword is found, the high-level words are used for both, so entity search has input.
pub fn query_keywords(query: &str) -> QueryKeywords {
    let doc = Doc::new(query, Mode::Query);
    let mut low: Vec<String> = Vec::new();
    let mut high: Vec<String> = Vec::new();
    let mut in_name = vec![false; doc.tokens.len()];
    for m in phrases::find(&doc) {
        for flag in in_name.iter_mut().take(m.last).skip(m.first) {
            *flag = true;
        }
        push_unique(&mut low, m.name);
    }
    let mut run: Vec<String> = Vec::new();
    for (i, t) in doc.tokens.iter().enumerate() {
        let word = (t.kind == Kind::Word && !in_name[i]).then(|| doc.lower(i).to_string());
        let content = word.filter(|w| {
            w.chars().count() >= 3 && !is_stop(w) && !contains(QUERY_VERBS, w) && !contains(COMMON_VERBS, w)
        });
        let breaks_run = content.is_none() || t.newlines_before > 0 || run.len() >= MAX_RUN;
        if breaks_run {
            flush(&mut run, &mut low);
        }
        if let Some(w) = content {
            run.push(w.clone());
            push_unique(&mut high, w);
        }
    }
    flush(&mut run, &mut low);
    if low.is_empty() {
        low = high.clone();
    }
    QueryKeywords { high_level: high, low_level: low }
}

fn flush(run: &mut Vec<String>, low: &mut Vec<String>) {
    if run.len() >= 2 {
        push_unique(low, run.join(" "));
    }
    run.clear();
}

fn push_unique(list: &mut Vec<String>, item: String) {
    let key = lower(&item);
    if !list.iter().any(|x| lower(x) == key) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_phrases_and_themes() {
        let k = query_keywords("What did President Lincoln say about the national debt and slavery in 1861?");
        assert_eq!(k.low_level, vec!["President Lincoln", "1861", "national debt"]);
        assert_eq!(k.high_level, vec!["national", "debt", "slavery"]);
    }

    #[test]
    fn first_word_may_be_a_name() {
        let k = query_keywords("Lincoln said what about Kansas?");
        assert_eq!(k.low_level, vec!["Lincoln", "Kansas"]);
        assert!(k.high_level.is_empty());
        let k = query_keywords("Explain tariffs");
        assert_eq!(k.low_level, vec!["tariffs"]);
        assert_eq!(k.high_level, vec!["tariffs"]);
    }

    #[test]
    fn empty_query() {
        let k = query_keywords("  ?! ");
        assert!(k.low_level.is_empty() && k.high_level.is_empty());
    }
}
