//! Extraction rules on hand-written sentences.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests may fail loudly

use lightrag_nlp::{Extraction, NlpOptions, extract, query_keywords};

fn run(text: &str) -> Extraction {
    extract(text, &NlpOptions::default())
}

fn names(out: &Extraction) -> Vec<&str> {
    out.entities.iter().map(|e| e.name.as_str()).collect()
}

fn type_of<'a>(out: &'a Extraction, name: &str) -> &'a str {
    out.entities
        .iter()
        .find(|e| e.name == name)
        .map(|e| e.entity_type.as_str())
        .unwrap_or_else(|| panic!("no entity {name} in {:?}", names(out)))
}

fn related(out: &Extraction, a: &str, b: &str) -> bool {
    out.relations.iter().any(|r| (r.src == a && r.tgt == b) || (r.src == b && r.tgt == a))
}

#[test]
fn people_with_titles_initials_and_possessives() {
    let out = run("We honored Mr. Smith and General Grant. John Q. Adams praised Washington's farewell.");
    assert_eq!(names(&out), ["Mr. Smith", "General Grant", "John Q. Adams", "Washington"]);
    assert_eq!(type_of(&out, "Mr. Smith"), "person");
    assert_eq!(type_of(&out, "General Grant"), "person");
    assert_eq!(type_of(&out, "John Q. Adams"), "person");
}

#[test]
fn organisations_with_connectors() {
    let out = run("The report of the Department of the Treasury reached the House of Representatives, \
         and the Bank of the United States objected.");
    assert_eq!(names(&out), ["Department of the Treasury", "House of Representatives", "Bank of the United States"]);
    for name in names(&out) {
        assert_eq!(type_of(&out, name), "organization", "{name}");
    }
}

#[test]
fn dates_years_and_wars() {
    let out = run("On December 7, 1941 the fleet was struck. The Civil War began in 1861, long after the War of 1812.");
    assert_eq!(names(&out), ["December 7, 1941", "Civil War", "1861", "War of 1812"]);
    assert_eq!(type_of(&out, "December 7, 1941"), "date");
    assert_eq!(type_of(&out, "1861"), "date");
    assert_eq!(type_of(&out, "Civil War"), "event");
    assert_eq!(type_of(&out, "War of 1812"), "event");
}

#[test]
fn sentence_starts_pronouns_and_salutations_are_not_entities() {
    let out = run("Fellow-Citizens of the Senate: However grave the times, our hopes are high. Our people \
         work. Gentlemen, In truth We prosper. They said so.");
    assert_eq!(names(&out), ["Senate"]);
}

#[test]
fn a_sentence_start_is_a_name_with_evidence() {
    let out = run("Lincoln spoke first. Then the crowd cheered for Lincoln.");
    assert_eq!(names(&out), ["Lincoln"]);
    let out = run("Kentucky joined the Union.");
    assert_eq!(names(&out), ["Kentucky", "Union"]);
    assert_eq!(type_of(&out, "Kentucky"), "location");
}

#[test]
fn quotes_are_stripped() {
    let out = run("He wrote \"the Congress\" and 'Spain' in “Paris” today.");
    assert_eq!(names(&out), ["Congress", "Spain", "Paris"]);
}

#[test]
fn lists_make_pairwise_relations() {
    let out = run("We signed treaties with France, Spain and Great Britain.");
    assert_eq!(names(&out), ["France", "Spain", "Great Britain"]);
    for name in names(&out) {
        assert_eq!(type_of(&out, name), "location", "{name}");
    }
    assert_eq!(out.relations.len(), 3);
    assert!(related(&out, "France", "Spain"));
    assert!(related(&out, "France", "Great Britain"));
    assert!(related(&out, "Spain", "Great Britain"));
}

#[test]
fn relation_weight_keywords_and_description() {
    let text = "The Senate ratified the treaty with Mexico. The Senate and Mexico agreed again. Nothing else.";
    let out = run(text);
    let r = out.relations.iter().find(|r| r.src == "Senate" && r.tgt == "Mexico").expect("relation");
    assert_eq!(r.keywords, "ratified, treaty");
    assert!((r.weight - (1.0 + 2f64.ln())).abs() < 1e-9, "two shared sentences: {}", r.weight);
    assert_eq!(r.description, "The Senate ratified the treaty with Mexico. The Senate and Mexico agreed again.");
    // Nothing between the names: keywords fall back to the sentence.
    let out = run("Spain, France: allies in war.");
    assert_eq!(out.relations[0].keywords, "allies, war");
}

#[test]
fn descriptions_are_the_mentioning_sentences() {
    let out = run("Congress met in March. Taxes rose. Congress adjourned.");
    let congress = &out.entities[0];
    assert_eq!(congress.description, "Congress met in March. Congress adjourned.");
}

#[test]
fn limits_are_respected() {
    let text = "Spain, France, Italy, Greece, Egypt, Japan, China, Chile, Peru and Brazil met. ".repeat(5);
    let opts = NlpOptions { max_entities: 4, max_relations: 5, max_description_chars: 30, ..NlpOptions::default() };
    let out = extract(&text, &opts);
    assert_eq!(out.entities.len(), 4);
    assert_eq!(out.relations.len(), 5);
    for e in &out.entities {
        assert!(e.description.chars().count() <= 30, "{}", e.description);
        assert!(!e.description.is_empty());
    }
    for r in &out.relations {
        assert!(r.description.chars().count() <= 30);
    }
}

#[test]
fn recurring_common_noun_phrases_are_concepts() {
    let out = run("The public debt grew. Congress must reduce the public debt. Congress agreed.");
    assert_eq!(type_of(&out, "public debt"), "concept");
    assert!(related(&out, "public debt", "Congress"));
    let none = extract(
        "The public debt grew. Congress must reduce the public debt.",
        &NlpOptions { max_concepts: 0, ..NlpOptions::default() },
    );
    assert_eq!(names(&none), ["Congress"]);
}

#[test]
fn shouting_headers_are_skipped() {
    let out = run("ANNUAL MESSAGE TO CONGRESS\n\nThe Senate met in Boston.");
    assert_eq!(names(&out), ["Senate", "Boston"]);
}

#[test]
fn extraction_is_deterministic() {
    let text = "France and Spain met Mr. Smith in Paris on July 4, 1776. Spain left. Congress stayed in Paris.";
    assert_eq!(run(text), run(text));
}

#[test]
fn query_keywords_split_names_and_themes() {
    let k = query_keywords("How did President Lincoln and the Congress handle slavery and the public debt?");
    assert_eq!(k.low_level, ["President Lincoln", "Congress", "public debt"]);
    assert_eq!(k.high_level, ["handle", "slavery", "public", "debt", "president lincoln", "congress"]);
    let k = query_keywords("Lincoln said what?");
    assert_eq!(k.low_level, ["Lincoln"]);
    let k = query_keywords("what happened to tariffs and trade");
    assert_eq!(k.high_level, ["happened", "tariffs", "trade"]);
    assert_eq!(k.low_level, k.high_level, "no names: the content words stand in");
}

fn keywords_of(out: &Extraction, a: &str, b: &str) -> String {
    let r = out.relations.iter().find(|r| (r.src == a && r.tgt == b) || (r.src == b && r.tgt == a));
    r.map(|r| r.keywords.clone()).unwrap_or_else(|| panic!("no relation {a} -- {b} in {:?}", out.relations))
}

#[test]
fn relations_carry_the_verb_or_preposition_that_links_them() {
    let out = run("Fortunella is a comedy film directed by Eduardo De Filippo, who was born in Naples.");
    // the verb with its preposition comes first, then content words between the mentions
    assert_eq!(keywords_of(&out, "Eduardo De Filippo", "Naples"), "born in");
    let out = run("The film Fortunella was directed by Eduardo De Filippo in Rome.");
    assert_eq!(keywords_of(&out, "Fortunella", "Eduardo De Filippo"), "directed by");
    // no verb between: the preposition links them
    assert_eq!(keywords_of(&run("She lived near Naples, in Italy."), "Naples", "Italy"), "in");
    // nothing between: the first verb after both
    assert_eq!(keywords_of(&run("The Senate and Mexico agreed on the border."), "Senate", "Mexico"), "agreed on");
    // words ending in -ed that are not verbs do not count
    assert_eq!(keywords_of(&run("Canada sent sacred relics to Mexico."), "Canada", "Mexico"), "sent, sacred, relics");
}

#[test]
fn upon_and_and_do_not_glue_two_names_together() {
    let out = run("The war declared by the United States upon Mexico ended. Newcastle upon Tyne is a city.");
    assert!(names(&out).contains(&"United States"), "{:?}", names(&out));
    assert!(names(&out).contains(&"Mexico"), "{:?}", names(&out));
    assert!(names(&out).contains(&"Newcastle upon Tyne"), "{:?}", names(&out));
    let out =
        run("Albert III, Duke of Bavaria and Elisabetta Visconti had a son. The Department of Commerce and Labor met.");
    let found = names(&out);
    assert!(found.contains(&"Duke of Bavaria") && found.contains(&"Elisabetta Visconti"), "{found:?}");
    assert!(found.contains(&"Department of Commerce and Labor"), "{found:?}");
}
