//! The lexical indexes of chunks ([`TextSearch::search_chunk_text`](crate::TextSearch::search_chunk_text))
//! and of entities ([`TextSearch::search_entity_text`](crate::TextSearch::search_entity_text)).

use crate::conformance::fixtures::{apply_ok, chunk, entity, names};
use crate::{ChangeSet, Chunk, ChunkListEdit, Entity, GraphKey, Store};

fn text_chunk(doc: &str, order: u32, content: &str) -> Chunk {
    Chunk { content: content.to_string(), ..chunk(doc, order) }
}

async fn search(store: &dyn Store, terms: &[&str], top_k: usize) -> Vec<String> {
    let terms: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
    store.search_chunk_text(&terms, top_k).await.expect("search_chunk_text").into_iter().map(|h| h.key).collect()
}

/// Whole words, case-insensitive, any word of the terms; rarer words and more matching words
/// rank higher; the index follows rewrites and deletions of chunks inside their change sets; query
/// syntax in terms is never interpreted.
pub async fn check_chunk_text_search(store: &dyn Store) {
    let chunks = vec![
        text_chunk("doc-a", 0, "Fortunella is a comedy film directed by Eduardo De Filippo."),
        text_chunk("doc-a", 1, "The film was shot in Rome. Another film, another director."),
        text_chunk("doc-b", 0, "Eduardo De Filippo was born in Naples and wrote plays."),
        text_chunk("doc-b", 1, "Nothing to see here: a chunk about the weather."),
    ];
    let [a0, a1, b0, b1] = [0, 1, 2, 3].map(|i| chunks[i].id.clone());
    store.apply(ChangeSet { chunks, ..Default::default() }).await.expect("apply chunks");

    assert_eq!(search(store, &["FORTUNELLA"], 10).await, vec![a0.clone()], "case-insensitive whole word");
    assert!(search(store, &["fortun"], 10).await.is_empty(), "whole words only, no prefixes");
    let both = search(store, &["filippo", "naples"], 10).await;
    assert_eq!(both.first(), Some(&b0), "the chunk with both terms first: {both:?}");
    assert_eq!(both.len(), 2, "any of the terms: {both:?}");
    // "film" is in two chunks, "fortunella" in one: the rare word decides
    let ranked = search(store, &["film", "fortunella"], 10).await;
    assert_eq!(ranked.first(), Some(&a0), "{ranked:?}");
    assert_eq!(search(store, &["film"], 1).await.len(), 1, "top_k");
    assert!(search(store, &[], 10).await.is_empty(), "no terms, no hits");
    // a term is cut into its words, any of which may match; query syntax is never syntax
    assert!(search(store, &["\"", "*", "NEAR("], 10).await.is_empty(), "punctuation alone finds nothing");
    let mut words = search(store, &["weather\" NOT (film*"], 10).await;
    words.sort();
    let mut expected = vec![a0.clone(), a1.clone(), b1.clone()];
    expected.sort();
    assert_eq!(words, expected, "the words weather, not, film");

    // a rewritten chunk is found by its new text only; a deleted document's chunks not at all
    store
        .apply(ChangeSet { chunks: vec![text_chunk("doc-a", 0, "Now about gardening.")], ..Default::default() })
        .await
        .expect("rewrite");
    assert!(search(store, &["fortunella"], 10).await.is_empty(), "the old text left the index");
    assert_eq!(search(store, &["gardening"], 10).await, vec![a0], "the new text is indexed");
    store
        .apply(ChangeSet { delete_documents: vec!["doc-b".into()], ..Default::default() })
        .await
        .expect("delete doc-b");
    assert!(search(store, &["naples", "weather"], 10).await.is_empty(), "deleted chunks left the index");
    assert_eq!(search(store, &["film"], 10).await, vec![a1], "the rest is still searchable");
}

/// Many chunks match a search (a common word in most of them): the first `top_k` hits are the
/// best-ranked ones, a shorter search is the start of a longer one (the fused walk asks only for
/// the hits it fuses), and chunks that rank alike come by chunk id even where the cut falls
/// among them and they were written in the opposite order.
pub async fn check_chunk_text_search_among_many_matches(store: &dyn Store) {
    let common: Vec<Chunk> = (0..40).map(|i| text_chunk("doc-many", i, &format!("The harbour, note {i}."))).collect();
    let mut common_ids: Vec<String> = common.iter().map(|c| c.id.clone()).collect();
    common_ids.sort();
    store.apply(ChangeSet { chunks: common, ..Default::default() }).await.expect("apply common chunks");
    // six chunks of one text, written one by one from the largest id down
    let alike: Vec<Chunk> = (0..6).map(|i| text_chunk("doc-tie", i, "A lighthouse by the harbour.")).collect();
    let mut alike_ids: Vec<String> = alike.iter().map(|c| c.id.clone()).collect();
    alike_ids.sort();
    for c in alike.into_iter().rev() {
        store.apply(ChangeSet { chunks: vec![c], ..Default::default() }).await.expect("apply a chunk alike");
    }
    let best = text_chunk("doc-best", 0, "Lighthouse, lighthouse: the harbour lighthouse.");
    let best_id = best.id.clone();
    store.apply(ChangeSet { chunks: vec![best], ..Default::default() }).await.expect("apply the best chunk");

    let all = search(store, &["lighthouse", "harbour"], 100).await;
    assert_eq!(all.len(), 47, "every chunk with either word: {all:?}");
    assert_eq!(all[0], best_id, "the chunk with the most of the words first: {all:?}");
    assert_eq!(all[1..7], alike_ids[..], "chunks that rank alike by chunk id: {all:?}");
    assert_eq!(all[7..], common_ids[..], "the common word's chunks after, by chunk id: {all:?}");
    for top_k in 1..=all.len() {
        let first = search(store, &["lighthouse", "harbour"], top_k).await;
        assert_eq!(first, all[..top_k], "top_k {top_k}: the best-ranked chunks, ties by chunk id");
    }
}

fn described(name: &str, description: &str) -> Entity {
    Entity { description: description.to_string(), ..entity(name, &[]) }
}

async fn search_entities(store: &dyn Store, terms: &[&str], top_k: usize) -> Vec<String> {
    let terms: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
    store.search_entity_text(&terms, top_k).await.expect("search_entity_text").into_iter().map(|h| h.key).collect()
}

/// The hits of `terms`, sorted (for checks of which entities match, not of their order).
async fn matching_entities(store: &dyn Store, terms: &[&str]) -> Vec<String> {
    let mut hits = search_entities(store, terms, 100).await;
    hits.sort();
    hits
}

/// Entity names and descriptions are searched by whole words, case-insensitive, any word of the
/// terms; a word in the name outranks the same word in a description, and rarer words and more
/// matching words rank higher; query syntax in terms is never interpreted.
pub async fn check_entity_text_search(store: &dyn Store) {
    let entities = vec![
        described("Naples", "The largest city of southern Italy."),
        described("Eduardo De Filippo", "An actor born in Naples who lived in Naples and directed a film."),
        described("Fortunella", "A comedy film of 1958."),
        described("Rome", "The capital, where the film was shot. Another film, another director."),
        described("Weather", "Nothing to see here."),
    ];
    apply_ok(store, ChangeSet { entities, ..Default::default() }, "entities").await;

    let naples = search_entities(store, &["NAPLES"], 10).await;
    assert_eq!(naples, names(&["Naples", "Eduardo De Filippo"]), "case-insensitive; the name hit first");
    assert!(search_entities(store, &["napl", "fortun"], 10).await.is_empty(), "whole words only, no prefixes");
    assert_eq!(search_entities(store, &["filippo"], 10).await, names(&["Eduardo De Filippo"]), "a word of a name");
    // "film" is in three descriptions (twice in one), "comedy" in one: the rare word decides
    let ranked = search_entities(store, &["film", "comedy"], 10).await;
    assert_eq!(ranked.first().map(String::as_str), Some("Fortunella"), "{ranked:?}");
    assert_eq!(ranked.len(), 3, "{ranked:?}");
    assert_eq!(matching_entities(store, &["italy", "weather"]).await, names(&["Naples", "Weather"]), "any term");
    assert_eq!(search_entities(store, &["film"], 2).await.len(), 2, "top_k");
    assert!(search_entities(store, &["film"], 0).await.is_empty(), "top_k 0");
    assert!(search_entities(store, &[], 10).await.is_empty(), "no terms, no hits");
    check_entity_query_syntax(store).await;
    check_entity_text_follows_writes(store).await;
}

/// A term is cut into its words, any of which may match; nothing in it is query syntax.
async fn check_entity_query_syntax(store: &dyn Store) {
    assert!(search_entities(store, &["\"", "*", "NEAR(", "^", ":"], 10).await.is_empty(), "punctuation alone");
    assert_eq!(
        matching_entities(store, &["italy\" NOT (comedy*"]).await,
        names(&["Fortunella", "Naples"]),
        "the words italy, not, comedy"
    );
    assert_eq!(
        matching_entities(store, &["description:capital", "NEAR(weather"]).await,
        names(&["Rome", "Weather"]),
        "no column filter, no NEAR group: the words description, capital, near, weather"
    );
}

/// The index follows rewrites, renames, chunk-list edits and deletions of entities inside their
/// change sets, and agrees with the stored entities after a document deletion and `clear_all`.
async fn check_entity_text_follows_writes(store: &dyn Store) {
    let rewrite = described("Fortunella", "Now a story about gardening.");
    apply_ok(store, ChangeSet { entities: vec![rewrite], ..Default::default() }, "rewrite").await;
    assert!(search_entities(store, &["comedy", "1958"], 10).await.is_empty(), "the old description left the index");
    assert_eq!(search_entities(store, &["gardening"], 10).await, names(&["Fortunella"]), "the new one is indexed");
    assert_eq!(search_entities(store, &["fortunella"], 10).await, names(&["Fortunella"]), "the name still is");

    // a rename is a deletion and a creation in one change set (deletions run first)
    let renamed = ChangeSet {
        delete_entities: names(&["Weather", "Rome"]),
        entities: vec![described("Climate", "Nothing to see here."), described("Rome", "The eternal city.")],
        ..Default::default()
    };
    apply_ok(store, renamed, "rename and recreate").await;
    assert!(search_entities(store, &["weather", "capital"], 10).await.is_empty(), "deleted texts left the index");
    assert_eq!(search_entities(store, &["nothing"], 10).await, names(&["Climate"]), "the renamed entity, once");
    assert_eq!(search_entities(store, &["rome", "eternal"], 10).await, names(&["Rome"]), "the recreated one, once");

    apply_ok(store, ChangeSet { delete_entities: names(&["Naples"]), ..Default::default() }, "delete").await;
    assert_eq!(search_entities(store, &["naples"], 10).await, names(&["Eduardo De Filippo"]), "deleted entity gone");

    check_entity_text_after_document_deletion(store).await;
    store.clear_all().await.expect("clear_all");
    assert!(search_entities(store, &["film", "gardening", "rome", "nothing"], 10).await.is_empty(), "cleared");
}

/// Chunk-list edits leave the index as it was; deleting the only document of an entity leaves the
/// index in agreement with the stored entities (whether or not the backend drops the entity).
async fn check_entity_text_after_document_deletion(store: &dyn Store) {
    let c = chunk("doc-e", 0);
    let owner = GraphKey::Entity("Vesuvius".into());
    let changes = ChangeSet {
        chunks: vec![c.clone()],
        entities: vec![described("Vesuvius", "A volcano above the bay.")],
        chunk_lists: vec![(owner.clone(), ChunkListEdit::Append(vec![c.id.clone()]))],
        ..Default::default()
    };
    apply_ok(store, changes, "entity with a document").await;
    let edit =
        ChangeSet { chunk_lists: vec![(owner, ChunkListEdit::Append(vec!["other".into()]))], ..Default::default() };
    apply_ok(store, edit, "chunk-list edit").await;
    assert_eq!(search_entities(store, &["volcano"], 10).await, names(&["Vesuvius"]), "list edits keep one entry");
    apply_ok(store, ChangeSet { delete_documents: vec!["doc-e".into()], ..Default::default() }, "delete doc").await;
    let stored = store.get_entities(&names(&["Vesuvius"])).await.expect("get")[0].is_some();
    let found = search_entities(store, &["volcano", "vesuvius"], 10).await;
    assert_eq!(found, if stored { names(&["Vesuvius"]) } else { Vec::new() }, "index and rows agree");
}

async fn containing(store: &dyn Store, text: &str, limit: usize) -> Vec<String> {
    store.entity_names_containing(text, limit).await.expect("entity_names_containing")
}

/// Label search candidates: names containing the text anywhere, case-insensitively and
/// literally; names starting with it first, then shorter first, ties by name; the index follows
/// renames and deletions.
pub async fn check_entity_name_search(store: &dyn Store) {
    let all =
        ["Alice", "Alice Smith", "Malice Aforethought", "Dr Alice", "Bob", "ALICE COOPER", "50% Off_Sale", "O\"Brien"];
    let entities = all.iter().map(|n| entity(n, &[])).collect();
    apply_ok(store, ChangeSet { entities, ..Default::default() }, "entities").await;

    assert_eq!(
        containing(store, "alice", 10).await,
        names(&["Alice", "Alice Smith", "ALICE COOPER", "Dr Alice", "Malice Aforethought"]),
        "starting with the text first, then shorter, ties by name"
    );
    assert_eq!(
        containing(store, "LIC", 2).await,
        names(&["Alice", "Dr Alice"]),
        "limit; shorter first when none starts with it"
    );
    assert_eq!(containing(store, "ce s", 10).await, names(&["Alice Smith"]), "across words");
    assert_eq!(containing(store, "al", 10).await.len(), 6, "short texts too (Off_Sale has one)");
    assert_eq!(containing(store, "b", 10).await, names(&["Bob", "O\"Brien"]), "one letter");
    assert!(containing(store, "", 10).await.is_empty(), "empty text");
    assert!(containing(store, "alice", 0).await.is_empty(), "limit 0");
    assert!(containing(store, "zzz", 10).await.is_empty(), "no match");
    // literal text: no wildcard or query syntax
    assert_eq!(containing(store, "0% o", 10).await, names(&["50% Off_Sale"]), "% is a character");
    assert!(containing(store, "a%e", 10).await.is_empty(), "% is not a wildcard");
    assert!(containing(store, "o_f", 10).await.is_empty(), "_ is not a wildcard");
    assert_eq!(containing(store, "o\"b", 10).await, names(&["O\"Brien"]), "quotes are characters");
    assert!(containing(store, "\"alice\" OR bob", 10).await.is_empty(), "no query syntax");

    let renamed = ChangeSet {
        delete_entities: names(&["Alice Smith", "Bob"]),
        entities: vec![entity("Alicia Smith", &[])],
        ..Default::default()
    };
    apply_ok(store, renamed, "rename").await;
    assert!(
        !containing(store, "alice", 10).await.contains(&"Alice Smith".to_string()),
        "a deleted name left the index"
    );
    assert_eq!(containing(store, "smith", 10).await, names(&["Alicia Smith"]), "the new name is indexed");
    assert!(containing(store, "bob", 10).await.is_empty());
}
