use super::*;
use crate::indexing::extract::entity;

fn schema() -> ExtractionSchema {
    let e = |name: &str, description: &str| EntityTypeSpec { name: name.into(), description: description.into() };
    ExtractionSchema {
        entity_types: vec![
            e("Person", "A human being, real or fictional."),
            e("Organization", "A company, agency, institution or team."),
            e("City", "A town or city."),
            e("Natural Object", ""),
        ],
        relation_types: vec![
            RelationTypeSpec {
                name: "works_for".into(),
                description: "Employment.".into(),
                from: vec!["Person".into()],
                to: vec!["Organization".into()],
            },
            RelationTypeSpec {
                name: "knows".into(),
                from: vec!["Person".into()],
                to: vec!["Person".into()],
                ..Default::default()
            },
            RelationTypeSpec { name: "related to".into(), ..Default::default() },
        ],
    }
}

fn rel(a: &str, b: &str, keywords: &str) -> ExtractedRelation {
    ExtractedRelation {
        src: a.into(),
        tgt: b.into(),
        keywords: keywords.into(),
        description: "d".into(),
        weight: 1.0,
        src_written_as: None,
        tgt_written_as: None,
    }
}

fn similar(t: &str) -> TypeMatch {
    TypeMatch::Similar(t.into())
}

#[test]
fn exact_names_match_whatever_their_case_or_spacing() {
    let s = schema();
    assert_eq!(map_entity_type(&s, "person"), TypeMatch::Exact("person".into()));
    assert_eq!(map_entity_type(&s, "PERSON"), TypeMatch::Exact("person".into()));
    assert_eq!(map_entity_type(&s, "naturalobject"), TypeMatch::Exact("naturalobject".into()));
    assert_eq!(map_entity_type(&s, "natural_object"), TypeMatch::Exact("naturalobject".into()));
}

#[test]
fn plurals_map_to_the_singular_type() {
    let s = schema();
    assert_eq!(map_entity_type(&s, "persons"), similar("person"));
    assert_eq!(map_entity_type(&s, "organizations"), similar("organization"));
    assert_eq!(map_entity_type(&s, "cities"), similar("city"));
}

#[test]
fn a_word_of_one_description_maps_to_that_type() {
    let s = schema();
    assert_eq!(map_entity_type(&s, "company"), similar("organization"));
    assert_eq!(map_entity_type(&s, "agencies"), similar("organization"));
    assert_eq!(map_entity_type(&s, "town"), similar("city"));
    // "human" is in one description only; "or" is in two and so decides nothing
    assert_eq!(map_entity_type(&s, "human"), similar("person"));
    assert_eq!(map_entity_type(&s, "or"), TypeMatch::Other);
    // "other" is the model saying that nothing fits, even when a description has the word
    let mut with_other = s.clone();
    with_other.entity_types[1].description = "A company or other organised group.".into();
    assert_eq!(map_entity_type(&with_other, "other"), TypeMatch::Other);
    with_other.entity_types.push(EntityTypeSpec { name: "Other".into(), description: String::new() });
    assert_eq!(map_entity_type(&with_other, "OTHER"), TypeMatch::Exact("other".into()));
}

#[test]
fn close_spellings_map_within_the_edit_threshold() {
    let s = schema();
    assert_eq!(map_entity_type(&s, "organisation"), similar("organization"));
    assert_eq!(map_entity_type(&s, "persn"), similar("person"));
    // two edits in a four-letter name is too far
    assert_eq!(map_entity_type(&s, "cat"), TypeMatch::Other);
    assert_eq!(map_entity_type(&s, "event"), TypeMatch::Other);
    assert_eq!(map_entity_type(&s, ""), TypeMatch::Other);
}

#[test]
fn applying_the_schema_maps_types_and_counts() {
    let s = schema();
    let mut entities = vec![
        entity("Ada", "person", "x"),
        entity("Acme", "company", "x"),
        entity("Storm", "event", "x"),
        entity("Gadget", "other", "x"),
    ];
    let mut relations = Vec::new();
    let report = s.apply(&mut entities, &mut relations);
    let types: Vec<_> = entities.iter().map(|e| e.entity_type.as_str()).collect();
    assert_eq!(types, ["person", "organization", "other", "other"]);
    assert_eq!(report.types_remapped, 1);
    assert_eq!(report.typed_other, 2);
}

#[test]
fn relations_need_a_schema_type_among_their_keywords() {
    let s = schema();
    let mut entities = vec![entity("Ada", "person", "x"), entity("Acme", "organization", "x")];
    let mut relations = vec![
        rel("Ada", "Acme", "employment,Works For"),
        rel("Ada", "Acme", "owns,property"),
        rel("Acme", "Ada", "RELATED_TO"),
    ];
    let report = s.apply(&mut entities, &mut relations);
    let kept: Vec<_> = relations.iter().map(|r| r.keywords.as_str()).collect();
    assert_eq!(kept, ["works_for,employment", "related to"]);
    assert_eq!(report.relations_dropped, RelationsDropped { unknown_type: 1, endpoint_types: 0 });
}

#[test]
fn relations_whose_endpoint_types_are_not_allowed_are_dropped() {
    let s = schema();
    let mut entities = vec![
        entity("Ada", "person", "x"),
        entity("Bob", "person", "x"),
        entity("Acme", "company", "x"),
        entity("Paris", "city", "x"),
    ];
    let mut relations = vec![
        // either orientation satisfies from/to: relations are undirected
        rel("Acme", "Ada", "works_for"),
        rel("Ada", "Paris", "works_for"),
        rel("Ada", "Bob", "knows"),
        rel("Ada", "Acme", "knows"),
        // an endpoint that is no entity of the chunk has no known type
        rel("Ada", "Zed", "knows"),
        rel("Paris", "Zed", "related_to"),
    ];
    let report = s.apply(&mut entities, &mut relations);
    let kept: Vec<_> = relations.iter().map(|r| (r.src.as_str(), r.tgt.as_str())).collect();
    assert_eq!(kept, [("Acme", "Ada"), ("Ada", "Bob"), ("Paris", "Zed")]);
    assert_eq!(report.relations_dropped, RelationsDropped { unknown_type: 0, endpoint_types: 3 });
}

#[test]
fn a_schema_without_relation_types_keeps_every_relation() {
    let s = ExtractionSchema::from_names(&["Person".into()], &[]);
    let mut entities = vec![entity("Ada", "person", "x")];
    let mut relations = vec![rel("Ada", "Bob", "anything")];
    let report = s.apply(&mut entities, &mut relations);
    assert_eq!(relations.len(), 1);
    assert_eq!(report.relations_dropped_total(), 0);
}

#[test]
fn validation_names_what_to_fix() {
    assert!(schema().validate().is_ok());
    let empty = ExtractionSchema::default().validate().unwrap_err();
    assert!(empty.contains("no entity types"), "{empty}");
    let mut s = schema();
    s.relation_types[0].to = vec!["Company".into()];
    let err = s.validate().unwrap_err();
    assert!(err.contains("\"Company\"") && err.contains("works_for"), "{err}");
    let twice = ExtractionSchema::from_names(&["Person".into(), "person".into()], &[]).validate().unwrap_err();
    assert!(twice.contains("same name"), "{twice}");
}

#[test]
fn reports_add_up() {
    let one = SchemaReport {
        types_remapped: 1,
        typed_other: 2,
        relations_dropped: RelationsDropped { unknown_type: 3, endpoint_types: 4 },
    };
    let mut sum = one;
    sum.add(&one);
    assert_eq!(sum.relations_dropped_total(), 14);
    assert_eq!(
        sum.to_string(),
        "2 types remapped, 4 typed other, 14 relations dropped (6 unknown type, 8 endpoint types)"
    );
}
