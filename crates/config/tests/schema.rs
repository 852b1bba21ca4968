//! Typed extraction settings: `EXTRACTION_SCHEMA` and `RELATION_TYPES`.

use lightrag_config::{ConfigError, Settings};

use super::config::{load_pairs as load, write_file as write};

const LLM: [(&str, &str); 2] = [("HOME", "/h"), ("LLM_BINDING", "ollama")];

const SCHEMA: &str = r#"
[[entity_type]]
name = "Person"
description = "A human being."

[[entity_type]]
name = "Organization"
description = "A company, agency or team."

[[relation_type]]
name = "works_for"
description = "Employment."
from = ["Person"]
to = ["Organization"]
"#;

fn with(extra: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    let mut p = LLM.to_vec();
    p.extend_from_slice(extra);
    load(&p)
}

#[test]
fn without_schema_settings_there_is_no_schema() {
    let s = with(&[("ENTITY_TYPES", "Person, Place")]).unwrap();
    assert_eq!(s.engine.extraction.schema, None);
    assert_eq!(s.engine.extraction.entity_types, ["Person", "Place"]);
}

#[test]
fn a_schema_file_gives_the_types_and_replaces_entity_types() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "schema.toml", SCHEMA);
    let s = with(&[("EXTRACTION_SCHEMA", path.to_str().unwrap()), ("ENTITY_TYPES", "Place")]).unwrap();
    let schema = s.engine.extraction.schema.unwrap();
    assert_eq!(schema.entity_type_names(), ["Person", "Organization"]);
    assert_eq!(schema.entity_types[1].description, "A company, agency or team.");
    assert_eq!(schema.relation_types[0].from, ["Person"]);
    assert_eq!(schema.relation_types[0].to, ["Organization"]);
    assert_eq!(s.engine.extraction.entity_types, ["Person", "Organization"]);
}

#[test]
fn relation_types_with_entity_types_make_a_schema_of_names() {
    let s = with(&[("ENTITY_TYPES", r#"["Person","Place"]"#), ("RELATION_TYPES", r#"["lives_in","knows"]"#)]).unwrap();
    let schema = s.engine.extraction.schema.unwrap();
    assert_eq!(schema.entity_type_names(), ["Person", "Place"]);
    let names: Vec<_> = schema.relation_types.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["lives_in", "knows"]);
    assert!(schema.relation_types.iter().all(|r| r.from.is_empty() && r.to.is_empty()));
}

#[test]
fn bad_schemas_are_refused_with_what_to_fix() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.toml");
    let e = with(&[("EXTRACTION_SCHEMA", missing.to_str().unwrap())]).unwrap_err().to_string();
    assert!(e.contains("extraction schema file") && e.contains("nope.toml"), "{e}");

    let bad = write(dir.path(), "bad.toml", "[[entity_type]]\nnam = \"Person\"\n");
    let e = with(&[("EXTRACTION_SCHEMA", bad.to_str().unwrap())]).unwrap_err().to_string();
    assert!(e.contains("EXTRACTION_SCHEMA") && e.contains("[[entity_type]]"), "{e}");
    assert!(e.contains("line 2: unknown field `nam`") && !e.contains('\n'), "one line naming the place: {e}");

    let undeclared =
        write(dir.path(), "undeclared.toml", &SCHEMA.replace("to = [\"Organization\"]", "to = [\"Company\"]"));
    let e = with(&[("EXTRACTION_SCHEMA", undeclared.to_str().unwrap())]).unwrap_err().to_string();
    assert!(e.contains("\"Company\"") && e.contains("works_for"), "{e}");

    let good = write(dir.path(), "good.toml", SCHEMA);
    let e =
        with(&[("EXTRACTION_SCHEMA", good.to_str().unwrap()), ("RELATION_TYPES", "knows")]).unwrap_err().to_string();
    assert!(e.contains("unset RELATION_TYPES"), "{e}");

    let e = with(&[("EXTRACTION_SCHEMA", good.to_str().unwrap()), ("EXTRACTION", "nlp")]).unwrap_err().to_string();
    assert!(e.contains("applies to LLM extraction"), "{e}");

    let e = with(&[("RELATION_TYPES", "knows, Knows")]).unwrap_err().to_string();
    assert!(e.contains("RELATION_TYPES") && e.contains("same name"), "{e}");
}
