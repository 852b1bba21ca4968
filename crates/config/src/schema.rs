//! Typed extraction settings: `EXTRACTION_SCHEMA` (a TOML schema file) or `RELATION_TYPES` (names
//! only, with `ENTITY_TYPES`). Neither set: no schema, LightRAG's extraction.
//!
//! The schema file:
//!
//! ```toml
//! [[entity_type]]
//! name = "Person"
//! description = "A human being, real or fictional."
//!
//! [[relation_type]]
//! name = "works_for"
//! description = "The person is employed by the organization."
//! from = ["Person"]
//! to = ["Organization"]
//! ```

use std::path::PathBuf;

use lightrag_engine::config::ExtractionMethod;
use lightrag_engine::indexing::extract::schema::ExtractionSchema;

use crate::error::ConfigError;
use crate::parse::{LIST_EXPECTED, Reader, parse_list};

type Result<T> = std::result::Result<T, ConfigError>;

/// The schema the settings ask for, if any. `entity_types` is `ENTITY_TYPES` (used with
/// `RELATION_TYPES`; a schema file has its own).
pub(crate) fn extraction_schema(
    r: Reader<'_>,
    method: ExtractionMethod,
    entity_types: &[String],
) -> Result<Option<ExtractionSchema>> {
    let relation_types = r.opt_with("RELATION_TYPES", LIST_EXPECTED, parse_list)?;
    let file = r.opt_string("EXTRACTION_SCHEMA").map(PathBuf::from);
    let schema = match (file, relation_types) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(ConfigError::Conflict(format!(
                "{} and {} both give relation types; put them in the schema file and unset RELATION_TYPES",
                r.describe("EXTRACTION_SCHEMA", &""),
                r.describe("RELATION_TYPES", &""),
            )));
        }
        (None, Some(relations)) => {
            let schema = ExtractionSchema::from_names(entity_types, &relations);
            schema.validate().map_err(|e| r.invalid("RELATION_TYPES", format!("a list of distinct names ({e})")))?;
            schema
        }
        (Some(path), None) => {
            let text = std::fs::read_to_string(&path).map_err(|e| ConfigError::Read {
                what: "extraction schema file (EXTRACTION_SCHEMA, --extraction-schema)",
                path: path.clone(),
                reason: e.to_string(),
            })?;
            let schema: ExtractionSchema = toml::from_str(&text).map_err(|e| {
                // the message without the multi-line excerpt, and where it is
                let line =
                    e.span().and_then(|span| text.get(..span.start)).map(|before| before.matches('\n').count() + 1);
                let place = line.map(|l| format!("line {l}: ")).unwrap_or_default();
                r.invalid(
                    "EXTRACTION_SCHEMA",
                    format!(
                        "a TOML file of [[entity_type]] (name, description) and [[relation_type]] (name, \
                         description, from, to) tables; {place}{}",
                        e.message().trim()
                    ),
                )
            })?;
            schema.validate().map_err(|e| r.invalid("EXTRACTION_SCHEMA", format!("a usable schema, but {e}")))?;
            schema
        }
    };
    if method == ExtractionMethod::Nlp {
        return Err(ConfigError::Conflict(format!(
            "an extraction schema ({}) applies to LLM extraction, but {}; set LLM_BINDING and LLM_MODEL, \
             or unset the schema",
            if r.is_set("EXTRACTION_SCHEMA") { "EXTRACTION_SCHEMA" } else { "RELATION_TYPES" },
            r.describe("EXTRACTION", &"nlp"),
        )));
    }
    Ok(Some(schema))
}
