//! Query keywords without an LLM: names and noun phrases (low level), content words (high level).

use crate::QueryKeywords;
use crate::doc::{Doc, Mode};
use crate::lexicon::{COMMON_VERBS, QUERY_VERBS, contains, is_stop, lower};
use crate::phrases;
use crate::tokens::Kind;

/// Longest lower-case noun phrase kept as one low-level keyword, in words.
const MAX_RUN: usize = 4;

/// Splits a query into low-level keywords (proper names and dates, then runs of two or more
/// content words) and high-level keywords (content words outside names, then the names, all lower-cased). With
/// no names or phrases the content words stand in for the low level, so both entity and relation
/// search get input.
pub fn query_keywords(query: &str) -> QueryKeywords {
    let doc = Doc::new(query, Mode::Query);
    let mut low: Vec<String> = Vec::new();
    let mut high: Vec<String> = Vec::new();
    let mut in_name = vec![false; doc.tokens.len()];
    let mut names: Vec<String> = Vec::new();
    for m in phrases::find(&doc) {
        for flag in in_name.iter_mut().take(m.last).skip(m.first) {
            *flag = true;
        }
        push_unique(&mut names, m.name);
    }
    low.extend(names.iter().cloned());
    let mut run: Vec<String> = Vec::new();
    // Whether the current run's first word follows a name or an auxiliary, so reads as a verb.
    let mut run_after_verb_slot = false;
    for (i, t) in doc.tokens.iter().enumerate() {
        let word = (t.kind == Kind::Word && !in_name[i]).then(|| doc.lower(i).to_string());
        let content = word.filter(|w| {
            w.chars().count() >= 3 && !is_stop(w) && !contains(QUERY_VERBS, w) && !contains(COMMON_VERBS, w)
        });
        let breaks_run = content.is_none() || t.newlines_before > 0 || run.len() >= MAX_RUN;
        if breaks_run {
            flush(&mut run, &mut low, run_after_verb_slot);
        }
        if let Some(w) = content {
            if run.is_empty() {
                run_after_verb_slot = i > 0 && (in_name[i - 1] || contains(AUXILIARIES, doc.lower(i - 1)));
            }
            run.push(w.clone());
            push_unique(&mut high, w);
        }
    }
    flush(&mut run, &mut low, run_after_verb_slot);
    if low.is_empty() {
        // No names or phrases: the content words stand in, so entity search gets input.
        low = high.clone();
    } else {
        // The names go to the high level too: relation search (global mode) then looks for the
        // relations of what the question names, not for generic words alone ("born", "film").
        for m in &names {
            push_unique(&mut high, lower(m));
        }
    }
    QueryKeywords { high_level: high, low_level: low }
}

/// Words after which a content word is a verb ("did Congress *handle* slavery", "to *cut* taxes").
const AUXILIARIES: &[&str] =
    &["can", "could", "did", "do", "does", "may", "might", "must", "shall", "should", "to", "will", "would"];

/// Keeps a run of two or more content words as a noun phrase, minus a leading verb.
fn flush(run: &mut Vec<String>, low: &mut Vec<String>, starts_with_verb: bool) {
    let skip = usize::from(starts_with_verb);
    // A trailing past participle is a verb too ("the national debt *changed*").
    if run.len() > 2 + skip && run.last().is_some_and(|w| w.ends_with("ed")) {
        run.pop();
    }
    if run.len() >= 2 + skip {
        push_unique(low, run[skip..].join(" "));
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
        assert_eq!(
            k.high_level,
            vec!["national", "debt", "slavery", "president lincoln", "1861"],
            "names follow the themes"
        );
        let k = query_keywords("How has the national debt changed since World War II?");
        assert_eq!(k.low_level, vec!["World War II", "national debt"]);
        let k = query_keywords("Why did Congress raise tariffs?");
        assert_eq!(k.low_level, vec!["Congress"], "a verb after a name does not start a noun phrase");
    }

    #[test]
    fn first_word_may_be_a_name() {
        let k = query_keywords("Lincoln said what about Kansas?");
        assert_eq!(k.low_level, vec!["Lincoln", "Kansas"]);
        assert_eq!(k.high_level, vec!["lincoln", "kansas"], "the names are the themes when there are no others");
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
