//! Typed extraction end to end: `lightrag insert --extraction-schema FILE` with the scripted LLM
//! answering off-schema types and relations that break the schema.

use lightrag_scripted_llm::{Fault, PromptKind};

use crate::common::{Kb, node, path_str};

const SCHEMA: &str = r#"
[[entity_type]]
name = "Person"
description = "A human being, real or fictional."

[[entity_type]]
name = "Organization"
description = "A company, agency or institution."

[[entity_type]]
name = "City"
description = "A town or city."

[[relation_type]]
name = "works_for"
description = "The person is employed by the organization."
from = ["Person"]
to = ["Organization"]

[[relation_type]]
name = "located_in"
description = "The organization has its seat in the city."
from = ["Organization"]
to = ["City"]
"#;

const TEXT: &str = "Ada Lovelace works for Acme Corp. Acme Corp is based in London. Rain fell on London.";

/// The model's answer: types outside the schema (a plural, a synonym from a description, one that
/// fits nothing), a relation joining types its relation type does not allow, one with no type.
const ANSWER: &str = "entity<|#|>Ada Lovelace<|#|>Persons<|#|>Ada Lovelace is an engineer.\n\
entity<|#|>Acme Corp<|#|>Company<|#|>Acme Corp is a firm.\n\
entity<|#|>London<|#|>Town<|#|>London is where Acme Corp is based.\n\
entity<|#|>Rain<|#|>Weather<|#|>Rain fell on London.\n\
relation<|#|>Ada Lovelace<|#|>Acme Corp<|#|>employment, works_for<|#|>Ada Lovelace works for Acme Corp.\n\
relation<|#|>Acme Corp<|#|>London<|#|>located_in, seat<|#|>Acme Corp is based in London.\n\
relation<|#|>Ada Lovelace<|#|>London<|#|>works_for<|#|>Ada Lovelace works in London.\n\
relation<|#|>Rain<|#|>London<|#|>falls on<|#|>Rain fell on London.\n\
<|COMPLETE|>";

fn kb_with_scripted_answer() -> Kb {
    let kb = Kb::new();
    kb.server.push_fault(Fault::reply(ANSWER, 1).on_prompt(PromptKind::Extract));
    kb
}

fn edge<'a>(graph: &'a serde_json::Value, a: &str, b: &str) -> Option<&'a serde_json::Value> {
    graph["edges"].as_array().unwrap().iter().find(|e| {
        let pair = [e["source"].as_str().unwrap(), e["target"].as_str().unwrap()];
        pair.contains(&a) && pair.contains(&b)
    })
}

fn entity_type(graph: &serde_json::Value, name: &str) -> String {
    node(graph, name).unwrap_or_else(|| panic!("{name} missing: {graph}"))["entity_type"].as_str().unwrap().to_string()
}

#[test]
fn a_schema_maps_off_schema_types_drops_violating_relations_and_reports_them() {
    let kb = kb_with_scripted_answer();
    let schema = kb.dir.path().join("schema.toml");
    std::fs::write(&schema, SCHEMA).unwrap();
    let docs = kb.write_docs(&[("ada.txt", TEXT)]);
    let out = kb.ok(&["--extraction-schema", path_str(&schema), "insert", path_str(&docs)]);
    let doc = kb.doc_id("ada.txt").expect("the document is stored");
    let expected = "3 types remapped, 1 typed other, 2 relations dropped (1 unknown type, 1 endpoint types)";
    assert!(out.contains(&format!("schema:      {doc}: {expected}")), "insert output:\n{out}");

    // the prompt carried the schema
    let extraction = kb
        .server
        .requests()
        .into_iter()
        .find(|r| r.prompt == Some(PromptKind::Extract))
        .expect("an extraction request was recorded");
    let system = extraction.body["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(system.contains("- Organization: A company, agency or institution.\n"), "{system}");
    assert!(system.contains("- works_for (between Person and Organization): The person is employed"), "{system}");
    assert!(system.contains("- keywords: first the relation type"), "{system}");

    // the graph: types mapped onto the schema, the breaking relations absent
    let graph = kb.graph();
    assert_eq!(entity_type(&graph, "Ada Lovelace"), "person");
    assert_eq!(entity_type(&graph, "Acme Corp"), "organization");
    assert_eq!(entity_type(&graph, "London"), "city");
    assert_eq!(entity_type(&graph, "Rain"), "other");
    let works = edge(&graph, "Ada Lovelace", "Acme Corp").expect("the allowed relation is kept");
    let keywords: Vec<&str> = works["keywords"].as_str().unwrap().split(',').collect();
    assert!(keywords.contains(&"works_for"), "the type is one of the keywords: {works}");
    assert!(edge(&graph, "Acme Corp", "London").is_some());
    assert!(edge(&graph, "Ada Lovelace", "London").is_none(), "works_for cannot join a person and a city");
    assert!(edge(&graph, "Rain", "London").is_none(), "\"falls on\" is no relation type of the schema");

    // the report is kept with the document
    let status = kb.json(&["status", "--json"]);
    let report = &status["documents"][0]["metadata"]["extraction_schema"];
    assert_eq!(
        report,
        &serde_json::json!({"types_remapped": 3, "typed_other": 1,
            "relations_dropped": {"unknown_type": 1, "endpoint_types": 1}}),
        "{status}"
    );
    let text = kb.ok(&["status"]);
    assert!(text.contains(&format!("  schema: {expected}")), "{text}");
}

#[test]
fn without_a_schema_the_answer_is_taken_as_given() {
    let kb = kb_with_scripted_answer();
    let docs = kb.write_docs(&[("ada.txt", TEXT)]);
    let out = kb.ok(&["insert", path_str(&docs)]);
    assert!(!out.contains("schema:"), "{out}");
    let graph = kb.graph();
    assert_eq!(entity_type(&graph, "Ada Lovelace"), "persons");
    assert_eq!(entity_type(&graph, "Rain"), "weather");
    assert!(edge(&graph, "Ada Lovelace", "London").is_some());
    assert!(edge(&graph, "Rain", "London").is_some());
    let status = kb.json(&["status", "--json"]);
    assert!(status["documents"][0]["metadata"].get("extraction_schema").is_none(), "{status}");
    let extraction = kb.server.requests().into_iter().find(|r| r.prompt == Some(PromptKind::Extract)).unwrap();
    let system = extraction.body["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(!system.contains("---Relation Types---") && system.contains("Ada Lovelace"), "{system}");
}
