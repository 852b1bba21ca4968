//! The lexical index of chunks ([`StoreRead::search_chunk_text`](crate::StoreRead::search_chunk_text)).

use crate::conformance::fixtures::chunk;
use crate::{ChangeSet, Chunk, Store};

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
