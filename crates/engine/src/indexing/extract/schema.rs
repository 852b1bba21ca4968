//! Typed extraction: an optional schema of entity types and relation types that LLM extraction
//! is held to (`EXTRACTION_SCHEMA` file, or `RELATION_TYPES` with `ENTITY_TYPES`).
//!
//! Without a schema nothing here runs and extraction is LightRAG's. With one, after a chunk's
//! answer is parsed (and merged with its gleaning pass):
//!
//! * every entity type is mapped onto a type of the schema by [`map_entity_type`] (exact, then
//!   singular/plural, then a word of a type's description, then a close spelling), or onto
//!   [`OTHER_TYPE`] when nothing fits;
//! * a relation carries its type as one of its keywords (the record layout has no type field; the
//!   prompt asks for the type as the first keyword). A relation with no keyword naming a schema
//!   relation type is dropped; so is one whose endpoints' types are not allowed for its type
//!   (relations are undirected: either orientation may satisfy `from`/`to`). The type is moved to
//!   the front of the keywords, spelled as in the schema.
//!
//! What was changed is counted in a [`SchemaReport`], summed per document and kept in the
//! document's status metadata under [`REPORT_KEY`].

use std::collections::HashMap;

use lightrag_ports::{ExtractedEntity, ExtractedRelation};
use serde::{Deserialize, Serialize};

/// The type given to entities whose type fits none of the schema's.
pub const OTHER_TYPE: &str = "other";

/// The key of the per-document [`SchemaReport`] in a document's status metadata.
pub const REPORT_KEY: &str = "extraction_schema";

/// A schema for extraction.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractionSchema {
    /// The allowed entity types (`[[entity_type]]` in the schema file).
    #[serde(default, rename = "entity_type")]
    pub entity_types: Vec<EntityTypeSpec>,
    /// The allowed relation types (`[[relation_type]]`); none: relations are not checked.
    #[serde(default, rename = "relation_type")]
    pub relation_types: Vec<RelationTypeSpec>,
}

/// One entity type of a schema.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityTypeSpec {
    /// Its name, as shown to the model (`Person`).
    pub name: String,
    /// What it covers; shown to the model, and its words are synonyms when mapping types.
    #[serde(default)]
    pub description: String,
}

/// One relation type of a schema.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelationTypeSpec {
    /// Its name, as shown to the model (`works_for`).
    pub name: String,
    /// What it means; shown to the model.
    #[serde(default)]
    pub description: String,
    /// Entity types allowed at one end; empty: any type.
    #[serde(default)]
    pub from: Vec<String>,
    /// Entity types allowed at the other end; empty: any type.
    #[serde(default)]
    pub to: Vec<String>,
}

/// What applying the schema changed, for one chunk or summed over a document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaReport {
    /// Entities whose type was not a schema type and was mapped onto one by similarity.
    pub types_remapped: usize,
    /// Entities typed [`OTHER_TYPE`] (no schema type fitted, or the model said so).
    pub typed_other: usize,
    /// Relations dropped, by reason.
    pub relations_dropped: RelationsDropped,
}

/// Relations dropped by the schema, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationsDropped {
    /// No keyword names a relation type of the schema.
    pub unknown_type: usize,
    /// The endpoints' types are not allowed for the relation's type.
    pub endpoint_types: usize,
}

impl SchemaReport {
    /// Adds another report's counts to this one.
    pub fn add(&mut self, other: &SchemaReport) {
        self.types_remapped += other.types_remapped;
        self.typed_other += other.typed_other;
        self.relations_dropped.unknown_type += other.relations_dropped.unknown_type;
        self.relations_dropped.endpoint_types += other.relations_dropped.endpoint_types;
    }

    /// Relations dropped for any reason.
    pub fn relations_dropped_total(&self) -> usize {
        self.relations_dropped.unknown_type + self.relations_dropped.endpoint_types
    }
}

impl std::fmt::Display for SchemaReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} types remapped, {} typed other, {} relations dropped ({} unknown type, {} endpoint types)",
            self.types_remapped,
            self.typed_other,
            self.relations_dropped_total(),
            self.relations_dropped.unknown_type,
            self.relations_dropped.endpoint_types
        )
    }
}

impl ExtractionSchema {
    /// A schema of names only: `ENTITY_TYPES` with `RELATION_TYPES` (any endpoints).
    pub fn from_names(entity_types: &[String], relation_types: &[String]) -> Self {
        ExtractionSchema {
            entity_types: entity_types
                .iter()
                .map(|n| EntityTypeSpec { name: n.clone(), ..Default::default() })
                .collect(),
            relation_types: relation_types
                .iter()
                .map(|n| RelationTypeSpec { name: n.clone(), ..Default::default() })
                .collect(),
        }
    }

    /// The entity type names, in order.
    pub fn entity_type_names(&self) -> Vec<String> {
        self.entity_types.iter().map(|t| t.name.clone()).collect()
    }

    /// Checks that the schema is usable; the error says what to fix.
    pub fn validate(&self) -> Result<(), String> {
        if self.entity_types.is_empty() {
            return Err("it lists no entity types; add at least one [[entity_type]] with a name".into());
        }
        let mut seen = HashMap::new();
        for t in &self.entity_types {
            let key = normalize(&t.name);
            if key.is_empty() {
                return Err(format!("entity type {:?} has no letters or digits in its name", t.name));
            }
            if let Some(first) = seen.insert(key, &t.name) {
                return Err(format!("entity types {first:?} and {:?} are the same name; keep one", t.name));
            }
        }
        let mut relations = HashMap::new();
        for r in &self.relation_types {
            let key = normalize(&r.name);
            if key.is_empty() {
                return Err(format!("relation type {:?} has no letters or digits in its name", r.name));
            }
            if let Some(first) = relations.insert(key, &r.name) {
                return Err(format!("relation types {first:?} and {:?} are the same name; keep one", r.name));
            }
            for end in r.from.iter().chain(&r.to) {
                if !seen.contains_key(&normalize(end)) {
                    return Err(format!(
                        "relation type {:?} allows the entity type {end:?}, which is not one of the \
                         [[entity_type]] entries; declare it or fix the spelling",
                        r.name
                    ));
                }
            }
        }
        Ok(())
    }

    /// Maps the entities' types and drops the relations the schema does not allow, in place.
    pub fn apply(&self, entities: &mut [ExtractedEntity], relations: &mut Vec<ExtractedRelation>) -> SchemaReport {
        let mut report = SchemaReport::default();
        for entity in entities.iter_mut() {
            let mapped = map_entity_type(self, &entity.entity_type);
            match mapped {
                TypeMatch::Exact(t) => entity.entity_type = t,
                TypeMatch::Similar(t) => {
                    report.types_remapped += 1;
                    entity.entity_type = t;
                }
                TypeMatch::Other => entity.entity_type = OTHER_TYPE.to_string(),
            }
            if entity.entity_type == OTHER_TYPE {
                report.typed_other += 1;
            }
        }
        if self.relation_types.is_empty() {
            return report;
        }
        let types: HashMap<&str, &str> = entities.iter().map(|e| (e.name.as_str(), e.entity_type.as_str())).collect();
        relations.retain_mut(|relation| match self.relation_type_of(relation) {
            None => {
                report.relations_dropped.unknown_type += 1;
                false
            }
            Some((index, spec)) => {
                if !endpoints_allowed(spec, types.get(relation.src.as_str()), types.get(relation.tgt.as_str())) {
                    report.relations_dropped.endpoint_types += 1;
                    return false;
                }
                relation.keywords = with_type_first(&relation.keywords, index, &spec.name);
                true
            }
        });
        report
    }

    /// The relation type named by one of the relation's keywords (the first that names one), with
    /// that keyword's position.
    fn relation_type_of(&self, relation: &ExtractedRelation) -> Option<(usize, &RelationTypeSpec)> {
        relation.keywords.split(',').enumerate().find_map(|(i, keyword)| {
            let key = normalize(keyword);
            self.relation_types.iter().find(|r| normalize(&r.name) == key).map(|r| (i, r))
        })
    }
}

/// How an extracted entity type was matched to the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeMatch {
    /// The same name (ignoring case, spaces and punctuation): the schema type, in stored form.
    Exact(String),
    /// A similar name: the schema type, in stored form.
    Similar(String),
    /// Nothing fits.
    Other,
}

/// Maps an extracted type onto a schema type. Names are compared *normalized* (lower case,
/// letters and digits only), and the first rule that gives exactly one schema type decides:
///
/// 1. the same normalized name (`Person`, `person`, `PERSON`);
/// 2. the same name in the singular (`People` is not caught, `Persons` → `Person`,
///    `Organizations` → `Organization`, `Cities` → `City`);
/// 3. the name, or its singular, is a word of exactly one type's description (`company` →
///    `Organization` when its description says "a company, agency or institution");
/// 4. a close spelling: at most 2 edits (Levenshtein) and at most a quarter of the longer name,
///    with a single closest type (`Organisation` → `Organization`);
/// 5. otherwise [`OTHER_TYPE`] (also what `Other` itself becomes when the schema has no such type).
///
/// A type matched by rules 2–4 counts as *remapped*. Types are stored as the parser stores them:
/// lower case without spaces (`NaturalObject` → `naturalobject`).
pub fn map_entity_type(schema: &ExtractionSchema, raw: &str) -> TypeMatch {
    let key = normalize(raw);
    if key.is_empty() {
        return TypeMatch::Other;
    }
    let names: Vec<(String, &EntityTypeSpec)> = schema.entity_types.iter().map(|t| (normalize(&t.name), t)).collect();
    if let Some((_, t)) = names.iter().find(|(n, _)| *n == key) {
        return TypeMatch::Exact(stored_form(&t.name));
    }
    if key == OTHER_TYPE {
        // the model's own "none fits" is not a word to look up in descriptions ("… or other …")
        return TypeMatch::Other;
    }
    let single = singular(&key);
    let unique = |found: Vec<&&EntityTypeSpec>| match found.as_slice() {
        [one] => Some(TypeMatch::Similar(stored_form(&one.name))),
        _ => None,
    };
    let plural_match: Vec<_> = names.iter().filter(|(n, _)| singular(n) == single).map(|(_, t)| t).collect();
    if let Some(m) = unique(plural_match) {
        return m;
    }
    let described: Vec<_> = names
        .iter()
        .filter(|(_, t)| t.description.split(|c: char| !c.is_alphanumeric()).any(|w| singular(&normalize(w)) == single))
        .map(|(_, t)| t)
        .collect();
    if let Some(m) = unique(described) {
        return m;
    }
    let distances: Vec<(usize, &&EntityTypeSpec)> = names
        .iter()
        .map(|(n, t)| (strsim::levenshtein(n, &key), t))
        .filter(|(d, t)| {
            let longer = normalize(&t.name).chars().count().max(key.chars().count());
            *d <= 2 && *d * 4 <= longer
        })
        .collect();
    if let Some(best) = distances.iter().map(|(d, _)| *d).min() {
        let closest: Vec<_> = distances.iter().filter(|(d, _)| *d == best).map(|(_, t)| *t).collect();
        if let Some(m) = unique(closest) {
            return m;
        }
    }
    TypeMatch::Other
}

/// Whether a relation of type `spec` may join entities of these types (either orientation; an
/// endpoint whose type is unknown passes only an unrestricted side).
pub fn endpoints_allowed(spec: &RelationTypeSpec, src: Option<&&str>, tgt: Option<&&str>) -> bool {
    let fits = |allowed: &[String], t: Option<&&str>| {
        allowed.is_empty() || t.is_some_and(|t| allowed.iter().any(|a| stored_form(a) == **t))
    };
    (fits(&spec.from, src) && fits(&spec.to, tgt)) || (fits(&spec.from, tgt) && fits(&spec.to, src))
}

/// Lower case, letters and digits only.
fn normalize(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// How the parser stores a type: lower case, no white space.
fn stored_form(name: &str) -> String {
    name.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase()
}

/// A normalized English word in the singular, by its ending (`cities` → `city`, `classes` →
/// `class`, `persons` → `person`); words of three letters or less and `…ss` are kept.
fn singular(word: &str) -> String {
    if word.chars().count() <= 3 || word.ends_with("ss") {
        return word.to_string();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for ending in ["sses", "xes", "ches", "shes"] {
        if word.ends_with(ending) {
            return word[..word.len() - 2].to_string();
        }
    }
    word.strip_suffix('s').unwrap_or(word).to_string()
}

/// The keywords with the one at `index` replaced by `name` and moved to the front.
fn with_type_first(keywords: &str, index: usize, name: &str) -> String {
    let rest = keywords.split(',').enumerate().filter(|(i, k)| *i != index && !k.trim().is_empty()).map(|(_, k)| k);
    std::iter::once(name).chain(rest).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
