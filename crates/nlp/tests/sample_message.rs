//! A short message in the style of a nineteenth-century annual address, written for this test.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may fail loudly

use lightrag_nlp::{NlpOptions, extract};

const MESSAGE: &str = "\
Fellow-Citizens of the Senate and House of Representatives:

In meeting you again I am happy to report that our relations with foreign powers remain friendly. \
The treaty concluded with Great Britain at Ghent has been faithfully observed, and the commissioners \
appointed under it have marked the boundary from the St. Lawrence to the Lake of the Woods. Our \
minister at Paris reports that France has paid the second installment of the indemnity.

The Secretary of the Treasury will lay before you a statement of the public revenue. The receipts \
into the Treasury during the year ending on the 30th of September exceeded twenty millions of \
dollars, and the public debt has been reduced by more than six millions. The Bank of the United \
States has continued to act as the fiscal agent of the Government.

General Jackson, commanding in the South, has reported that the hostile Seminoles have retired \
beyond the Suwannee River. However, the posts in Florida must be strengthened. I recommend that \
Congress provide for two additional regiments, and that the Department of War be authorized to \
complete the fortifications at Pensacola and New Orleans.

On July 4, 1826, the nation lost both John Adams and Thomas Jefferson. Their names, with that of \
Washington, will be revered while the Union endures. The public debt, which the Revolution left \
to us, will be extinguished before 1835 if Congress persists in its present course.";

fn typed(name: &str) -> Option<String> {
    let out = extract(MESSAGE, &NlpOptions::default());
    out.entities.iter().find(|e| e.name == name).map(|e| e.entity_type.clone())
}

#[test]
fn expected_entities_and_types() {
    let expected = [
        ("Senate", "organization"),
        ("House of Representatives", "organization"),
        ("Great Britain", "location"),
        ("Ghent", "location"),
        ("St. Lawrence", "location"),
        ("Paris", "location"),
        ("France", "location"),
        ("Secretary of the Treasury", "person"),
        ("Treasury", "organization"),
        ("Bank of the United States", "organization"),
        ("General Jackson", "person"),
        ("Suwannee River", "location"),
        ("Florida", "location"),
        ("Congress", "organization"),
        ("Department of War", "organization"),
        ("Pensacola", "location"),
        ("New Orleans", "location"),
        ("July 4, 1826", "date"),
        ("John Adams", "person"),
        ("Thomas Jefferson", "person"),
        ("Union", "organization"),
        ("Revolution", "event"),
        ("1835", "date"),
        ("public debt", "concept"),
    ];
    for (name, ty) in expected {
        assert_eq!(typed(name).as_deref(), Some(ty), "{name}");
    }
}

#[test]
fn no_sentence_starts_pronouns_or_salutations() {
    let out = extract(MESSAGE, &NlpOptions::default());
    for bad in ["Fellow-Citizens", "In", "Our", "The", "However", "I", "Their", "On", "Government", "Fellow"] {
        assert!(out.entities.iter().all(|e| e.name != bad), "{bad} must not be an entity");
    }
}

#[test]
fn relations_link_entities_of_one_sentence() {
    let out = extract(MESSAGE, &NlpOptions::default());
    let has = |a: &str, b: &str| out.relations.iter().any(|r| (r.src == a && r.tgt == b) || (r.src == b && r.tgt == a));
    assert!(has("John Adams", "Thomas Jefferson"));
    assert!(has("Great Britain", "Ghent"));
    assert!(has("Pensacola", "New Orleans"));
    assert!(!has("John Adams", "Ghent"), "different sentences");
    let r = out.relations.iter().find(|r| r.src == "John Adams" && r.tgt == "Thomas Jefferson").expect("relation");
    assert!(r.description.starts_with("On July 4, 1826, the nation lost both John Adams"));
}
