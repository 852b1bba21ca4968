//! Groups mentions into entities, ranks and caps them, and writes extractive descriptions.

use std::collections::HashMap;

use lightrag_ports::records::ExtractedEntity;

use crate::doc::{Doc, Mention, Mode};
use crate::lexicon::lower;
use crate::types::{CONCEPT, vote};
use crate::{Extraction, NlpOptions, concepts, phrases, relations};

/// One entity of a text with the mentions that name it.
#[derive(Debug, Clone)]
pub struct Found {
    /// Display name.
    pub name: String,
    /// Voted type.
    pub entity_type: &'static str,
    /// Indices into the mention list, in text order.
    pub mentions: Vec<usize>,
}

impl Found {
    fn first_token(&self, mentions: &[Mention]) -> usize {
        self.mentions.first().and_then(|&m| mentions.get(m)).map_or(usize::MAX, |m| m.first)
    }
}

/// Runs the whole extraction over `text`.
pub fn extract(text: &str, opts: &NlpOptions) -> Extraction {
    let doc = Doc::new(text, Mode::Document);
    let mut mentions = phrases::find(&doc);
    let proper_count = mentions.len();
    if opts.max_concepts > 0 {
        mentions.extend(concepts::find(&doc, opts.min_concept_count));
    }
    let found = select(group(&mentions), &mentions, proper_count, opts);
    let entities = found
        .iter()
        .map(|f| ExtractedEntity {
            name: f.name.clone(),
            entity_type: f.entity_type.to_string(),
            description: describe(&doc, f.mentions.iter().filter_map(|&m| mentions.get(m)).map(|m| m.sentence), opts),
            written_as: None,
        })
        .collect();
    let relations = relations::build(&doc, &found, &mentions, opts);
    Extraction { entities, relations }
}

/// Groups mentions by case-insensitive name; the display name is the most frequent spelling.
pub fn group(mentions: &[Mention]) -> Vec<Found> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, m) in mentions.iter().enumerate() {
        let key = lower(&m.name);
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups
        .into_iter()
        .map(|ids| {
            let mut spellings: Vec<(&str, usize)> = Vec::new();
            for &i in &ids {
                let name = mentions[i].name.as_str();
                match spellings.iter_mut().find(|(s, _)| *s == name) {
                    Some(entry) => entry.1 += 1,
                    None => spellings.push((name, 1)),
                }
            }
            // Most frequent; the earliest wins a tie because max_by_key keeps the last maximum.
            let name = spellings.iter().rev().max_by_key(|(_, n)| *n).map_or("", |(s, _)| *s).to_string();
            let types: Vec<&'static str> = ids.iter().map(|&i| mentions[i].entity_type).collect();
            Found { name, entity_type: vote(&types), mentions: ids }
        })
        .collect()
}

/// Keeps the most mentioned names (then concepts in the room left), in text order.
fn select(found: Vec<Found>, mentions: &[Mention], proper_count: usize, opts: &NlpOptions) -> Vec<Found> {
    let (mut proper, mut concept): (Vec<Found>, Vec<Found>) =
        found.into_iter().partition(|f| f.mentions.first().is_some_and(|&m| m < proper_count));
    let rank = |v: &mut Vec<Found>| {
        v.sort_by_key(|f| (std::cmp::Reverse(f.mentions.len()), f.first_token(mentions)));
    };
    rank(&mut proper);
    proper.truncate(opts.max_entities);
    rank(&mut concept);
    concept.retain(|f| f.entity_type == CONCEPT);
    concept.truncate(opts.max_concepts.min(opts.max_entities - proper.len()));
    proper.extend(concept);
    proper.sort_by_key(|f| f.first_token(mentions));
    proper
}

/// Joins the distinct sentences (in order) into a description of at most `max_description_chars`.
pub fn describe(doc: &Doc<'_>, sentences: impl Iterator<Item = usize>, opts: &NlpOptions) -> String {
    let mut out = String::new();
    let mut last = None;
    for s in sentences {
        if last == Some(s) {
            continue;
        }
        last = Some(s);
        let text = doc.sentence_text(s);
        if out.is_empty() {
            out = clip(text, opts.max_description_chars);
        } else if out.chars().count() + 1 + text.chars().count() <= opts.max_description_chars {
            out.push(' ');
            out.push_str(text);
        } else {
            break;
        }
    }
    out
}

/// Cuts `s` to at most `max` characters, at a word boundary when one is near.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    match cut.rfind(' ') {
        Some(p) if p >= cut.len() / 2 => cut[..p].trim_end().to_string(),
        _ => cut,
    }
}
