//! Reciprocal-rank fusion (RRF) of ranked lists, and the lexical channel it adds to a query.
//!
//! Each channel of a query (chunk vectors, the chunks picked for entities, for relations, the
//! lexical indexes of chunks and of entities) ranks chunks its own way, on scales that cannot be compared. RRF uses only the
//! ranks: a chunk at rank r (from 1) of a list earns 1 / (k + r), and its score is the sum over
//! the lists that have it. A chunk two channels agree on beats one that a single channel ranks
//! first; k (`RRF_K`, 60 as in Cormack et al.) sets how much the first ranks count more.
//!
//! LightRAG merges the same lists round-robin (`chunks::round_robin`), which gives every
//! channel's n-th chunk the same rank whatever the others say; `CHUNK_FUSION=rrf` (or the query's
//! `chunk_fusion`) switches the LightRAG modes to RRF, and the `auto` mode always uses it.

use std::hash::Hash;

use lightrag_ports::{RetrievalStore, TextHit};

use super::chunks::{HashMap, HashMapExt};
use crate::error::Result;

/// Fuses ranked lists by reciprocal rank with constant `k`: best fused score first; equal scores
/// keep the order of a round-robin pass over the lists (the first list's first item, the second
/// list's first item, …). Each key appears once, as the item of its first occurrence in that pass.
pub fn reciprocal_rank_fusion<T, K, F>(lists: Vec<Vec<T>>, k: f64, key: F) -> Vec<T>
where
    K: Hash + Eq,
    F: Fn(&T) -> K,
{
    weighted_rank_fusion(lists.into_iter().map(|l| (l, 1.0)).collect(), k, key)
}

/// [`reciprocal_rank_fusion`] with a weight per list: an item at rank r of a list of weight w
/// earns w / (k + r).
pub fn weighted_rank_fusion<T, K, F>(lists: Vec<(Vec<T>, f64)>, k: f64, key: F) -> Vec<T>
where
    K: Hash + Eq,
    F: Fn(&T) -> K,
{
    let longest = lists.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    let mut iters: Vec<_> = lists.into_iter().map(|(l, w)| (l.into_iter(), w)).collect();
    // key → (index in `items`, fused score)
    let mut scores: HashMap<K, (usize, f64)> = HashMap::new();
    let mut items: Vec<(T, f64)> = Vec::new();
    for rank in 1..=longest {
        for (list, weight) in iters.iter_mut() {
            let Some(item) = list.next() else { continue };
            let earned = *weight / (k + rank as f64);
            match scores.get_mut(&key(&item)) {
                Some((_, score)) => *score += earned,
                None => {
                    scores.insert(key(&item), (items.len(), earned));
                    items.push((item, 0.0));
                }
            }
        }
    }
    for (index, score) in scores.into_values() {
        if let Some(slot) = items.get_mut(index) {
            slot.1 = score;
        }
    }
    let mut ordered: Vec<(usize, (T, f64))> = items.into_iter().enumerate().collect();
    // stable on the first-appearance index for equal scores
    ordered.sort_by(|a, b| b.1.1.total_cmp(&a.1.1).then(a.0.cmp(&b.0)));
    ordered.into_iter().map(|(_, (item, _))| item).collect()
}

/// The words of a question that pick out passages in the lexical index: those of the names it
/// mentions (capitalised words after the first, and numbers), without stop words, each once.
/// "director" or "born" would find every biography; "Wallace" finds the passages about him.
pub fn name_words(query: &str) -> Vec<String> {
    content_words(&written_names(query))
}

/// Every word of a question that is not a stop word, as the lexical index cuts them (lower-cased,
/// sorted, each once): what plain lexical search (BM25) of the question asks for.
pub fn question_words(query: &str) -> Vec<String> {
    content_words(&[query.to_string()])
}

/// The words of `texts` as the lexical index cuts them (lower-cased, sorted, each once), without
/// stop words.
fn content_words(texts: &[String]) -> Vec<String> {
    lightrag_ports::text_search_words(texts).into_iter().filter(|w| !lightrag_nlp::is_stop_word(w)).collect()
}

/// The names a question gives, as written: runs of words after the first that start with a
/// capital letter or a digit ("Back In The U.S.A", "1947"), each holding a word that is not a
/// stop word. A comma between capitalised words stays inside the name ("John Ernest, Duke of
/// Saxe-Eisenach"); a question mark, semicolon, colon or exclamation mark ends it.
pub fn written_names(question: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut run = String::new();
    let mut has_name_word = false;
    let mut flush = |run: &mut String, has_name_word: &mut bool| {
        let name = run.trim_end_matches(',').trim();
        if *has_name_word && !name.is_empty() {
            names.push(name.to_string());
        }
        run.clear();
        *has_name_word = false;
    };
    for (i, raw) in question.split_whitespace().enumerate() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let word = word.strip_suffix("'s").unwrap_or(word);
        let starts_name = word.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
        if i > 0 && starts_name {
            if !run.is_empty() {
                run.push(' ');
            }
            run.push_str(word);
            has_name_word |= !lightrag_nlp::is_stop_word(&word.to_lowercase());
            if raw.ends_with(',') {
                run.push(',');
            }
        } else {
            flush(&mut run, &mut has_name_word);
        }
        if raw.ends_with(['?', ';', ':', '!']) || (raw.ends_with(',') && !starts_name) {
            flush(&mut run, &mut has_name_word);
        }
    }
    flush(&mut run, &mut has_name_word);
    names
}

/// The lexical channel of a LightRAG-mode query under RRF: the chunks the lexical index (BM25)
/// ranks best for the question's name words and the low-level keywords, at most `top_k`.
pub(crate) async fn lexical_chunks(
    store: &dyn RetrievalStore,
    query: &str,
    low_level: &[String],
    top_k: usize,
) -> Result<Vec<String>> {
    let terms = lexical_terms(query, low_level);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    Ok(store.search_chunk_text(&terms, top_k).await?.into_iter().map(|h| h.key).collect())
}

/// What the lexical channels search for: the question's name words and the low-level keywords.
fn lexical_terms(query: &str, low_level: &[String]) -> Vec<String> {
    let mut terms = name_words(query);
    terms.extend(low_level.iter().cloned());
    terms
}

/// Chunks an entity can hold before its passages say nothing particular about it: the entity
/// lexical channel reads at most this many of each entity's chunks.
const CHUNKS_PER_TEXT_ENTITY: usize = 5;

/// The entity lexical channel of a LightRAG-mode query under RRF: the entities the entity
/// lexical index (BM25 over names and descriptions) ranks best for the question's name words and
/// the low-level keywords — names the embedder misses — and their first chunks, taken in turns
/// (the best entity's first chunk, the second's first, …), at most `top_k`.
pub(crate) async fn entity_text_chunks(
    store: &dyn RetrievalStore,
    query: &str,
    low_level: &[String],
    top_k: usize,
) -> Result<Vec<String>> {
    let terms = lexical_terms(query, low_level);
    if terms.is_empty() || top_k == 0 {
        return Ok(Vec::new());
    }
    let hits = store.search_entity_text(&terms, top_k).await?;
    let range = lightrag_ports::ListRange { from_end: false, offset: 0, limit: CHUNKS_PER_TEXT_ENTITY };
    let owners: Vec<lightrag_ports::GraphKey> =
        hits.into_iter().map(|h| lightrag_ports::GraphKey::Entity(h.key)).collect();
    let lists = store.chunk_lists(&owners, range).await?;
    let mut chunks = super::chunks::round_robin(lists, Clone::clone);
    chunks.truncate(top_k);
    Ok(chunks)
}

/// Passages that contain a name the question gives, whole: for each of its [`written_names`],
/// the lexical index's best `top_k` hits for the name's words, kept only when the passage holds
/// every word of the name that is not a stop word ("Palo Alto 2013 Film" does not find every
/// passage about a film). Names in `skip` (lower-cased) are not searched. Best first within a
/// name, names in question order, each passage once.
pub(crate) async fn name_passages(
    store: &dyn RetrievalStore,
    query: &str,
    top_k: usize,
    skip: &std::collections::HashSet<String>,
) -> Result<Vec<TextHit>> {
    let mut found: Vec<TextHit> = Vec::new();
    let names: Vec<String> = written_names(query).into_iter().filter(|n| !skip.contains(&n.to_lowercase())).collect();
    let searches = names.iter().map(|name| async move {
        let whole = passages_with(store, name, top_k).await?;
        // "Alice, Bob": when no passage holds the whole list, each part on its own
        if whole.is_empty() && name.contains(',') {
            let mut parts = Vec::new();
            for part in name.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                parts.extend(passages_with(store, part, top_k).await?);
            }
            return Ok::<_, crate::error::EngineError>(parts);
        }
        Ok(whole)
    });
    for hits in futures::future::try_join_all(searches).await? {
        for hit in hits {
            if !found.iter().any(|f| f.key == hit.key) {
                found.push(hit);
            }
        }
    }
    Ok(found)
}

/// The lexical index's best `top_k` hits for `name` that hold each of its words that is not a
/// stop word.
async fn passages_with(store: &dyn RetrievalStore, name: &str, top_k: usize) -> Result<Vec<TextHit>> {
    let name = [name.to_string()];
    let needed = content_words(&name);
    if needed.is_empty() {
        return Ok(Vec::new());
    }
    let hits = store.search_chunk_text(&name, top_k).await?;
    let ids: Vec<String> = hits.iter().map(|h| h.key.clone()).collect();
    let chunks = store.get_chunks(&ids).await?;
    Ok(hits
        .into_iter()
        .zip(chunks)
        .filter(|(_, chunk)| chunk.as_ref().is_some_and(|c| holds_all(&c.content, &needed)))
        .map(|(hit, _)| hit)
        .collect())
}

/// Whether `text` has each of `words` (lower-case) as a whole word, cut as the lexical index cuts.
fn holds_all(text: &str, words: &[String]) -> bool {
    let found: std::collections::HashSet<String> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    words.iter().all(|w| found.contains(w))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn fused_scores_add_up_over_the_lists_hand_computed() {
        // k = 1: a = 1/2 (list 1, rank 1) + 1/4 (list 2, rank 3) = 0.75
        //        b = 1/3 + 1/2 = 0.8333   c = 1/4 = 0.25   d = 1/3 = 0.3333
        let fused = reciprocal_rank_fusion(vec![vec!["a", "b", "c"], vec!["b", "d", "a"]], 1.0, |s| *s);
        assert_eq!(fused, vec!["b", "a", "d", "c"]);
    }

    #[test]
    fn agreement_beats_a_single_first_rank() {
        // "x" is first in one list only; "y" is second in all three
        let lists = vec![vec!["x", "y"], vec!["z", "y"], vec!["w", "y"]];
        let fused = reciprocal_rank_fusion(lists, 60.0, |s| *s);
        assert_eq!(fused[0], "y");
        // the rest tie at 1/61 and keep round-robin order
        assert_eq!(&fused[1..], &["x", "z", "w"]);
    }

    #[test]
    fn a_large_k_tends_to_counting_the_lists() {
        // with k huge, ranks barely matter: the chunk in two lists wins even from rank 3
        let lists = vec![vec!["a", "b", "c"], vec!["d", "e", "c"]];
        assert_eq!(reciprocal_rank_fusion(lists.clone(), 1.0e6, |s| *s)[0], "c");
        // with k = 0 the first ranks dominate: a = d = 1 > c = 2/3
        let fused = reciprocal_rank_fusion(lists, 0.0, |s| *s);
        assert_eq!(&fused[..2], &["a", "d"]);
    }

    #[test]
    fn empty_and_duplicate_inputs() {
        let empty: Vec<&str> = reciprocal_rank_fusion(Vec::<Vec<&str>>::new(), 60.0, |s| *s);
        assert!(empty.is_empty());
        let fused = reciprocal_rank_fusion(vec![vec![], vec!["a"], vec![]], 60.0, |s| *s);
        assert_eq!(fused, vec!["a"]);
        // one list: its order is kept, a repeated key counts at each rank but appears once
        let fused = reciprocal_rank_fusion(vec![vec!["a", "b", "a"]], 60.0, |s| *s);
        assert_eq!(fused, vec!["a", "b"]);
    }

    #[test]
    fn weights_scale_each_lists_share_hand_computed() {
        // k = 1, weights 2 and 1: a = 2/2 = 1, b = 2/3 + 1/2 = 1.1667, c = 1/3
        let fused = weighted_rank_fusion(vec![(vec!["a", "b"], 2.0), (vec!["b", "c"], 1.0)], 1.0, |s| *s);
        assert_eq!(fused, vec!["b", "a", "c"]);
        // the weights swapped: a = 1/2, b = 1/3 + 2/2 = 1.3333, c = 2/3
        let fused = weighted_rank_fusion(vec![(vec!["a", "b"], 1.0), (vec!["b", "c"], 2.0)], 1.0, |s| *s);
        assert_eq!(fused, vec!["b", "c", "a"]);
        // equal weights of 1 are plain reciprocal-rank fusion
        let lists = vec![vec!["x", "y", "z"], vec!["z", "w"]];
        assert_eq!(
            weighted_rank_fusion(lists.iter().map(|l| (l.clone(), 1.0)).collect(), 60.0, |s| *s),
            reciprocal_rank_fusion(lists, 60.0, |s| *s)
        );
    }

    #[test]
    fn a_passage_every_channel_ranks_high_is_never_pushed_out() {
        // the walk, vectors and lexical search each rank a different passage first and agree on
        // "gold" at rank 3: with the default k it comes first, ahead of every single first rank
        let lists = vec![
            (vec!["w1", "w2", "gold", "w4"], 1.0),
            (vec!["v1", "v2", "gold", "v4"], 1.0),
            (vec!["l1", "l2", "gold", "l4"], 1.0),
        ];
        assert_eq!(weighted_rank_fusion(lists, 60.0, |s| *s)[0], "gold");
    }

    #[test]
    fn question_words_are_every_word_less_stop_words() {
        assert_eq!(
            question_words("Who directed the film Sinbad the Sailor released in 1947?"),
            vec!["1947", "directed", "film", "released", "sailor", "sinbad"]
        );
        assert!(question_words("Who was he?").is_empty());
    }

    #[test]
    fn written_names_are_runs_of_capitalised_words() {
        assert_eq!(
            written_names("Which film came out first, The Pocket-Knife or A Romance Of Seville (1929)?"),
            vec!["The Pocket-Knife", "A Romance Of Seville 1929"]
        );
        assert_eq!(written_names("What nationality is Lamprocles's father?"), vec!["Lamprocles"]);
        assert!(written_names("Where was the treaty signed?").is_empty());
        assert_eq!(written_names("Who wrote Moby Dick? And when?"), vec!["Moby Dick"]);
        assert_eq!(
            written_names("Who is the father-in-law of John Ernest, Duke Of Saxe-Eisenach?"),
            vec!["John Ernest, Duke Of Saxe-Eisenach"]
        );
        assert_eq!(
            written_names(
                "Which film has the director who died later, Love, Honor And Oh-Baby! or I Cover The Underworld?"
            ),
            vec!["Love, Honor And Oh-Baby", "I Cover The Underworld"]
        );
        assert_eq!(written_names("Did Alice, Bob, and Carol meet?"), vec!["Alice, Bob", "Carol"]);
    }

    #[test]
    fn name_words_keep_names_and_numbers_only() {
        assert_eq!(
            name_words("Who directed the film Sinbad the Sailor released in 1947?"),
            vec!["1947", "sailor", "sinbad"]
        );
        // the first word is capitalised by grammar, not because it is a name
        assert!(name_words("Where was he born?").is_empty());
    }
}
