//! LLM-free, rule-based entity and relation extraction and query keywords for lightrag-rs
//! (`EXTRACTION=nlp`, in the spirit of GraphRAG's "fast" NLP indexing).
//!
//! Everything here is pure, deterministic and synchronous: no model, no network, no global state.
//!
//! * [`extract`] finds entities in a chunk of text — proper-noun phrases (with connectors such
//!   as "of the", titles, initials and possessives), dates and years, and recurring common-noun
//!   phrases — types them by rules and small embedded gazetteers (`person`, `organization`,
//!   `location`, `event`, `date`, `concept`, `other`), and links entities that share a sentence.
//!   Descriptions are the sentences themselves; nothing is invented.
//! * [`query_keywords`] splits a question into low-level keywords (names, noun phrases) and
//!   high-level keywords (the remaining content words).
//!
//! ```
//! let out = lightrag_nlp::extract(
//!     "The Senate ratified the treaty with France and Spain.",
//!     &lightrag_nlp::NlpOptions::default(),
//! );
//! let names: Vec<&str> = out.entities.iter().map(|e| e.name.as_str()).collect();
//! assert_eq!(names, ["Senate", "France", "Spain"]);
//! assert_eq!(out.relations.len(), 3);
//! ```

use lightrag_ports::records::{ExtractedEntity, ExtractedRelation};

mod concepts;
mod dates;
mod doc;
mod extract;
mod gazetteer;
mod keywords;
mod lexicon;
mod phrases;
mod relations;
mod sentences;
mod tokens;
mod types;
mod variants;
mod wordset;

pub use keywords::query_keywords;
pub use lexicon::is_stop as is_stop_word;
pub use variants::name_variants;

/// Limits for one extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NlpOptions {
    /// Most entities kept per text (the most mentioned win; concepts only fill spare room).
    pub max_entities: usize,
    /// Most relations kept per text (the most co-occurring win).
    pub max_relations: usize,
    /// Longest entity or relation description, in characters.
    pub max_description_chars: usize,
    /// Most common-noun concept phrases kept per text (0 turns them off).
    pub max_concepts: usize,
    /// How often a concept phrase must occur in the text to count.
    pub min_concept_count: usize,
}

impl Default for NlpOptions {
    fn default() -> Self {
        NlpOptions {
            max_entities: 40,
            max_relations: 60,
            max_description_chars: 600,
            max_concepts: 8,
            min_concept_count: 2,
        }
    }
}

/// What [`extract`] found in one text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extraction {
    /// Entities, in order of first mention.
    pub entities: Vec<ExtractedEntity>,
    /// Undirected relations between returned entities, in order of first co-occurrence.
    pub relations: Vec<ExtractedRelation>,
}

/// Keywords of a query, as the keyword-extraction step of retrieval uses them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryKeywords {
    /// Themes: content words outside names, lower case, de-duplicated, in order (the names,
    /// lower-cased, when there are none).
    pub high_level: Vec<String>,
    /// Specifics: names, dates and multi-word noun phrases, de-duplicated, in order (the
    /// high-level words when there are none).
    pub low_level: Vec<String>,
}

/// Extracts entities and relations from `text` by rules. Never panics; returns nothing for text
/// without names.
pub fn extract(text: &str, opts: &NlpOptions) -> Extraction {
    extract::extract(text, opts)
}
