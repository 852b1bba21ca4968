//! Token budgets at their boundaries: with a budget of exactly the size of the first k items,
//! one token less and one token more, exactly the items that fit are kept (§6.3) — entities by
//! `max_entity_tokens`, relations by `max_relation_tokens`, chunks by what `max_total_tokens`
//! leaves for them.

use lightrag_ports::Tokenizer;

use super::*;
use crate::retrieval::query::context::{entity_line, relation_line};
use crate::retrieval::query::retrieve::finish_chunks;

fn tokenizer() -> TiktokenTokenizer {
    TiktokenTokenizer::o200k().unwrap()
}

/// Budgets at `exact - 1`, `exact` and `exact + 1` tokens for the first `k` items of `sizes`,
/// with the number of items each must keep.
fn boundaries(sizes: &[usize]) -> Vec<(usize, usize)> {
    let mut cases = Vec::new();
    for k in 1..=sizes.len() {
        let exact: usize = sizes[..k].iter().sum();
        cases.push((exact - 1, k - 1));
        cases.push((exact, k));
        // one more token is not enough for the next item (every line is longer than a token)
        cases.push((exact + 1, k));
    }
    cases
}

/// Everything the query finds with no budget in the way.
async fn unbudgeted(f: &Fixture, param: &QueryParam) -> (Vec<(String, String, String)>, Vec<(String, String, String)>) {
    let param = QueryParam {
        max_entity_tokens: Some(1_000_000),
        max_relation_tokens: Some(1_000_000),
        max_total_tokens: Some(10_000_000),
        ..param.clone()
    };
    let data = f.engine.query_data("Who sails with Ahab?", &param).await.unwrap();
    let d = data.retrieved().unwrap();
    let entities = d.entities.iter().map(|e| (e.entity_name.clone(), e.entity_type.clone(), e.description.clone()));
    let relations = d.relationships.iter().map(|r| (r.src_id.clone(), r.tgt_id.clone(), r.description.clone()));
    (entities.collect(), relations.collect())
}

fn param() -> QueryParam {
    QueryParam {
        mode: QueryMode::Hybrid,
        hl_keywords: vec!["command voyage hunt".into()],
        max_total_tokens: Some(10_000_000),
        ..low(&["Ahab Pequod Ishmael Moby Dick"])
    }
}

#[tokio::test]
async fn entities_are_kept_exactly_while_their_lines_fit_max_entity_tokens() {
    let f = fixture(corpus(), None, EngineConfig::default()).await;
    let (all, _) = unbudgeted(&f, &param()).await;
    assert!(all.len() >= 3, "the corpus must give several entities: {all:?}");
    let tok = tokenizer();
    let sizes: Vec<usize> = all.iter().map(|(n, t, d)| tok.count(&entity_line(n, t, d))).collect();
    for (budget, kept) in boundaries(&sizes) {
        let p = QueryParam { max_entity_tokens: Some(budget), max_relation_tokens: Some(1_000_000), ..param() };
        let data = f.engine.query_data("Who sails with Ahab?", &p).await.unwrap();
        let names: Vec<&str> = data.retrieved().unwrap().entities.iter().map(|e| e.entity_name.as_str()).collect();
        let want: Vec<&str> = all[..kept].iter().map(|(n, ..)| n.as_str()).collect();
        assert_eq!(names, want, "max_entity_tokens = {budget} (lines of {sizes:?} tokens)");
    }
}

#[tokio::test]
async fn relations_are_kept_exactly_while_their_lines_fit_max_relation_tokens() {
    let f = fixture(corpus(), None, EngineConfig::default()).await;
    let (_, all) = unbudgeted(&f, &param()).await;
    assert!(all.len() >= 2, "the corpus must give several relations: {all:?}");
    let tok = tokenizer();
    let sizes: Vec<usize> = all.iter().map(|(s, t, d)| tok.count(&relation_line(s, t, d))).collect();
    for (budget, kept) in boundaries(&sizes) {
        let p = QueryParam { max_relation_tokens: Some(budget), max_entity_tokens: Some(1_000_000), ..param() };
        let data = f.engine.query_data("Who sails with Ahab?", &p).await.unwrap();
        let got: Vec<(String, String)> =
            data.retrieved().unwrap().relationships.iter().map(|r| (r.src_id.clone(), r.tgt_id.clone())).collect();
        let want: Vec<(String, String)> = all[..kept].iter().map(|(s, t, _)| (s.clone(), t.clone())).collect();
        assert_eq!(got, want, "max_relation_tokens = {budget} (lines of {sizes:?} tokens)");
    }
}

#[test]
fn chunks_are_kept_exactly_while_they_fit_the_tokens_left_for_them() {
    let tok = tokenizer();
    let chunks: Vec<Chunk> = (0..4)
        .map(|i| {
            let mut c = chunk(&format!("c{i}"), &format!("file{i}.md"), &"whale ".repeat(i + 1));
            c.tokens = (i as u32 + 1) * 7;
            c
        })
        .collect();
    // a chunk costs its stored token count plus its JSON wrapper
    let sizes: Vec<usize> = chunks
        .iter()
        .map(|c| {
            let wrapper = crate::retrieval::query::context::json_line(&[
                ("content", ""),
                ("file_path", &c.file_path),
                ("chunk_id", &c.id),
            ]);
            c.tokens as usize + tok.count(&wrapper)
        })
        .collect();
    for (budget, kept) in boundaries(&sizes) {
        let mut parts = crate::retrieval::query::context::ContextParts::default();
        let (data, references) = finish_chunks(&tok, chunks.clone(), 100, budget, &mut parts);
        let ids: Vec<&str> = data.iter().map(|c| c.chunk_id.as_str()).collect();
        let want: Vec<String> = (0..kept).map(|i| format!("c{i}")).collect();
        assert_eq!(ids, want, "{budget} tokens for chunks of {sizes:?} tokens");
        assert_eq!(parts.chunks.len(), kept);
        assert_eq!(references.len(), kept, "one reference per kept file");
    }
}
