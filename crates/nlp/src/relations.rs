//! Relations from co-occurrence of two entities in one sentence.

use std::collections::HashMap;

use lightrag_ports::records::ExtractedRelation;

use crate::NlpOptions;
use crate::doc::{Doc, Mention};
use crate::extract::{Found, describe};
use crate::lexicon::{IRREGULAR_VERBS, NOT_VERBS, PREPOSITIONS, contains, is_non_name_cap, is_stop};
use crate::tokens::Kind;

/// Most keywords per relation.
const MAX_KEYWORDS: usize = 3;

struct Pair {
    count: usize,
    sentences: Vec<usize>,
    /// The two mentions of the first shared sentence.
    first_mentions: (usize, usize),
}

/// Builds undirected relations between the `found` entities that share a sentence.
///
/// Weight is `1 + ln(sentences shared)`; keywords are the verb or preposition linking the two
/// mentions, then content words between them (else of the sentence); the description is the
/// shared sentences.
pub fn build(doc: &Doc<'_>, found: &[Found], mentions: &[Mention], opts: &NlpOptions) -> Vec<ExtractedRelation> {
    if opts.max_relations == 0 || found.len() < 2 {
        return Vec::new();
    }
    let mut in_mention = vec![false; doc.tokens.len()];
    // Per sentence: (entity, its first mention there).
    let mut by_sentence: Vec<Vec<(usize, usize)>> = vec![Vec::new(); doc.sentences.len()];
    for (e, f) in found.iter().enumerate() {
        for &m in &f.mentions {
            let Some(mention) = mentions.get(m) else {
                continue;
            };
            for flag in in_mention.iter_mut().take(mention.last).skip(mention.first) {
                *flag = true;
            }
            if let Some(list) = by_sentence.get_mut(mention.sentence)
                && !list.iter().any(|(x, _)| *x == e)
            {
                list.push((e, m));
            }
        }
    }
    let mut pairs: HashMap<(usize, usize), Pair> = HashMap::new();
    for (s, list) in by_sentence.iter().enumerate() {
        for (x, &(a, ma)) in list.iter().enumerate() {
            for &(b, mb) in &list[x + 1..] {
                let key = if a < b { (a, b) } else { (b, a) };
                let pair = pairs.entry(key).or_insert_with(|| Pair {
                    count: 0,
                    sentences: Vec::new(),
                    first_mentions: (ma, mb),
                });
                pair.count += 1;
                pair.sentences.push(s);
            }
        }
    }
    let mut ranked: Vec<((usize, usize), Pair)> = pairs.into_iter().collect();
    ranked.sort_by_key(|(k, p)| (std::cmp::Reverse(p.count), p.sentences.first().copied(), *k));
    ranked.truncate(opts.max_relations);
    ranked.sort_by_key(|(k, p)| (p.sentences.first().copied(), *k));
    ranked
        .into_iter()
        .map(|((a, b), p)| ExtractedRelation {
            src: found[a].name.clone(),
            tgt: found[b].name.clone(),
            keywords: keywords(doc, &mentions[p.first_mentions.0], &mentions[p.first_mentions.1], &in_mention)
                .join(", "),
            description: describe(doc, p.sentences.into_iter(), opts),
            weight: 1.0 + (p.count as f64).ln(),
            src_written_as: None,
            tgt_written_as: None,
        })
        .collect()
}

/// What links the two mentions, then content words between them (else of the whole sentence),
/// three at most: "directed by, italian, comedy".
fn keywords(doc: &Doc<'_>, a: &Mention, b: &Mention, in_mention: &[bool]) -> Vec<String> {
    let (lo, hi) = if a.first < b.first { (a.last, b.first) } else { (b.last, a.first) };
    let sentence = doc.sentences.get(a.sentence).map(|s| s.first..s.last);
    let mut out: Vec<String> = link(doc, lo..hi, sentence.clone(), in_mention).into_iter().collect();
    let link_words: Vec<String> = out.iter().flat_map(|l| l.split(' ').map(str::to_string)).collect();
    let mut words = content_words(doc, lo..hi, in_mention);
    if words.is_empty()
        && out.is_empty()
        && let Some(sentence) = sentence
    {
        words = content_words(doc, sentence, in_mention);
    }
    for w in words {
        if out.len() >= MAX_KEYWORDS {
            break;
        }
        if !link_words.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The verb or preposition that links two mentions: the last verb between them with the
/// preposition right after it ("directed by", "born in", "married"), else the last preposition
/// between them ("of"), else the first verb after both in the sentence ("… and Mexico agreed").
fn link(
    doc: &Doc<'_>,
    between: std::ops::Range<usize>,
    sentence: Option<std::ops::Range<usize>>,
    in_mention: &[bool],
) -> Option<String> {
    let free_word = |i: usize| {
        doc.tokens.get(i).is_some_and(|t| t.kind == Kind::Word) && !in_mention.get(i).copied().unwrap_or(true)
    };
    let verb_at = |i: usize| free_word(i) && is_link_verb(doc.lower(i));
    let with_preposition = |i: usize| {
        let verb = doc.lower(i);
        // free_word(i + 1) holds only for a word token that exists
        if free_word(i + 1) && contains(PREPOSITIONS, doc.lower(i + 1)) {
            format!("{verb} {}", doc.lower(i + 1))
        } else {
            verb.to_string()
        }
    };
    if let Some(i) = between.clone().rev().find(|&i| verb_at(i)) {
        return Some(with_preposition(i));
    }
    if let Some(i) = between.clone().rev().find(|&i| free_word(i) && contains(PREPOSITIONS, doc.lower(i))) {
        return Some(doc.lower(i).to_string());
    }
    // Past the later mention, up to the next one: "The Senate and Mexico agreed".
    let sentence = sentence?;
    let mut i = between.end.max(sentence.start);
    while i < sentence.end && in_mention.get(i).copied().unwrap_or(false) {
        i += 1;
    }
    (i..sentence.end).take_while(|&j| in_mention.get(j).is_some_and(|m| !m)).find(|&j| verb_at(j)).map(with_preposition)
}

/// Whether a lower-cased word reads as a verb that relates two things: a regular past form
/// ("directed", "married") or an irregular one ("born", "wrote").
fn is_link_verb(w: &str) -> bool {
    let regular = w.len() >= 5 && w.ends_with("ed") && !contains(NOT_VERBS, w);
    (regular || contains(IRREGULAR_VERBS, w)) && !is_stop(w)
}

fn content_words(doc: &Doc<'_>, range: std::ops::Range<usize>, in_mention: &[bool]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in range {
        if out.len() >= MAX_KEYWORDS {
            break;
        }
        let Some(t) = doc.tokens.get(i) else { break };
        if t.kind != Kind::Word || in_mention.get(i).copied().unwrap_or(true) {
            continue;
        }
        let w = doc.lower(i);
        let w = w.strip_suffix("'s").unwrap_or(w);
        if w.len() >= 3 && !doc.stop[i] && !is_non_name_cap(w) && w.chars().count() >= 3 && !out.iter().any(|o| o == w)
        {
            out.push(w.to_string());
        }
    }
    out
}
