//! Deterministic answers for each prompt kind, and the hashed bag-of-words embeddings.

use crate::extract::{extraction_json_output, extraction_output, glean_json_output, glean_output};
use crate::recognise::Recognised;
use crate::text::{collapse_whitespace, first_sentence, is_stopword, name_runs, plain_words, tokens, truncate_chars};

const SUMMARY_MAX_CHARS: usize = 600;
const ANSWER_EXCERPT_CHARS: usize = 200;

/// The answer text for a recognised prompt. `glean_extra` makes gleaning add one entity.
pub fn respond(recognised: &Recognised, glean_extra: bool) -> String {
    match recognised {
        Recognised::Extract { text } => extraction_output(text),
        Recognised::Glean { .. } => glean_output(glean_extra),
        Recognised::ExtractJson { text } => extraction_json_output(text),
        Recognised::GleanJson { .. } => glean_json_output(glean_extra),
        Recognised::Summary { name, descriptions } => summary_output(name, descriptions),
        Recognised::Keywords { query } => keywords_output(query),
        Recognised::Judge { context, answer } => judge_output(context, answer),
        Recognised::Decompose { question } => decompose_output(question),
        Recognised::Answer { system, query } => answer_output(system, query),
    }
}

/// `<name>: ` followed by the first sentence of each description, cut to ~600 characters.
pub fn summary_output(name: &str, descriptions: &[String]) -> String {
    let firsts: Vec<String> = descriptions.iter().map(|d| first_sentence(d)).filter(|s| !s.is_empty()).collect();
    let body = if firsts.is_empty() { "(no description)".to_string() } else { firsts.join(" ") };
    truncate_chars(&format!("{name}: {body}"), SUMMARY_MAX_CHARS)
}

/// `{"faithfulness": S}`: S is the share of the answer's distinct non-stop words (lower case)
/// that occur in the context, to two decimals (1 for an answer without such words).
pub fn judge_output(context: &str, answer: &str) -> String {
    let in_context: std::collections::HashSet<String> =
        tokens(context).into_iter().map(|t| t.word.to_lowercase()).collect();
    let mut words: Vec<String> =
        tokens(answer).into_iter().map(|t| t.word.to_lowercase()).filter(|t| !is_stopword(t)).collect();
    words.sort();
    words.dedup();
    let share = if words.is_empty() {
        1.0
    } else {
        words.iter().filter(|w| in_context.contains(*w)).count() as f64 / words.len() as f64
    };
    format!("{{\"faithfulness\": {:.2}}}", share)
}

/// `{"sub_questions": [...]}`: one `Who or what is <name>?` per distinct capitalised name of the
/// question, or an empty list when it has fewer than two.
pub fn decompose_output(question: &str) -> String {
    let mut names: Vec<String> = Vec::new();
    for run in name_runs(question) {
        if !names.contains(&run.name) {
            names.push(run.name);
        }
    }
    let subs: Vec<String> =
        if names.len() < 2 { Vec::new() } else { names.iter().map(|n| format!("Who or what is {n}?")).collect() };
    serde_json::json!({ "sub_questions": subs }).to_string()
}

/// `{"high_level_keywords": [...], "low_level_keywords": [...]}`: low = the capitalised names
/// of the question, high = its other non-stop words.
pub fn keywords_output(query: &str) -> String {
    let mut low: Vec<String> = Vec::new();
    for run in name_runs(query) {
        if !low.contains(&run.name) {
            low.push(run.name);
        }
    }
    let high = plain_words(query);
    serde_json::json!({ "high_level_keywords": high, "low_level_keywords": low }).to_string()
}

/// `Answer based on N context lines. ` + an excerpt of the document-chunk section of the
/// system prompt (or of the system prompt, or of the question when there is none), then a
/// `### References` section copied from a `Reference Document List`, when there is one.
pub fn answer_output(system: &str, query: &str) -> String {
    let context_lines = system.lines().filter(|l| !l.trim().is_empty()).count();
    let source = match system.find("Document Chunks") {
        Some(at) => {
            let section = &system[at..];
            let after_header = section.split_once('\n').map(|(_, rest)| rest).unwrap_or("");
            let end = after_header.find("Reference Document List").unwrap_or(after_header.len());
            &after_header[..end]
        }
        None if !system.trim().is_empty() => system,
        None => query,
    };
    let excerpt = truncate_chars(&collapse_whitespace(source), ANSWER_EXCERPT_CHARS);
    let mut out = format!("Answer based on {context_lines} context lines. {excerpt}");
    let references = reference_lines(system);
    if !references.is_empty() {
        out.push_str("\n\n### References\n\n");
        let items: Vec<String> = references.iter().map(|r| format!("- {r}")).collect();
        out.push_str(&items.join("\n"));
    }
    out
}

/// The `[n] file` lines after `Reference Document List`.
fn reference_lines(system: &str) -> Vec<String> {
    let Some(at) = system.find("Reference Document List") else {
        return Vec::new();
    };
    system[at..]
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| {
            l.strip_prefix('[')
                .and_then(|rest| rest.split_once(']'))
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_string)
        .collect()
}

/// FNV-1a, 64 bit: a fixed hash so vectors are the same in every process.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// A deterministic unit vector of `dim` floats: a hashed bag of the lowercase content words of
/// `text` (weight 1) and their character trigrams (weight 0.25). All weights are positive, so
/// texts sharing a word always have a positive cosine; equal texts give equal vectors. Empty
/// text gives the first unit vector. `dim` 0 gives an empty vector.
pub fn embed_text(text: &str, dim: usize) -> Vec<f32> {
    let mut v = vec![0f32; dim];
    if dim == 0 {
        return v;
    }
    let words: Vec<String> = tokens(text).into_iter().map(|t| t.word.to_lowercase()).collect();
    let content: Vec<&String> = words.iter().filter(|w| !is_stopword(w)).collect();
    let chosen: Vec<&String> = if content.is_empty() { words.iter().collect() } else { content };
    for word in chosen {
        v[(fnv1a(word.as_bytes()) % dim as u64) as usize] += 1.0;
        let padded: Vec<char> = format!("^{word}$").chars().collect();
        for tri in padded.windows(3) {
            let tri: String = tri.iter().collect();
            v[(fnv1a(tri.as_bytes()) % dim as u64) as usize] += 0.25;
        }
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 {
        v[0] = 1.0;
    } else {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn decomposition_asks_about_each_name_or_nothing() {
        assert_eq!(
            decompose_output("Did Ada Lovelace work with Charles Babbage?"),
            r#"{"sub_questions":["Who or what is Ada Lovelace?","Who or what is Charles Babbage?"]}"#
        );
        assert_eq!(decompose_output("Where was Ada Lovelace born?"), r#"{"sub_questions":[]}"#);
    }

    #[test]
    fn the_judge_scores_the_share_of_answer_words_found_in_the_context() {
        assert_eq!(judge_output("Ann met Bob in Paris.", "Ann met Bob."), r#"{"faithfulness": 1.00}"#);
        assert_eq!(judge_output("Ann met Bob in Paris.", "Ann met Carl"), r#"{"faithfulness": 0.67}"#);
        assert_eq!(judge_output("anything", "the"), r#"{"faithfulness": 1.00}"#);
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn summary_joins_first_sentences_and_caps_length() {
        let got = summary_output("Alice", &["Alice cooks. She bakes.".into(), "Alice runs far.".into()]);
        assert_eq!(got, "Alice: Alice cooks. Alice runs far.");
        let long = vec!["word ".repeat(300)];
        assert!(summary_output("X", &long).chars().count() <= SUMMARY_MAX_CHARS);
        assert_eq!(summary_output("X", &[]), "X: (no description)");
    }

    #[test]
    fn keywords_split_names_from_other_words() {
        let out: serde_json::Value =
            serde_json::from_str(&keywords_output("How did Alice Smith change Acme Corp pricing strategy?")).unwrap();
        assert_eq!(out["low_level_keywords"], serde_json::json!(["Alice Smith", "Acme Corp"]));
        assert_eq!(out["high_level_keywords"], serde_json::json!(["change", "pricing", "strategy"]));
    }

    #[test]
    fn answer_quotes_the_chunk_section_and_keeps_references() {
        let system = "Rules.\n\nDocument Chunks (with ids):\n\n```json\n{\"reference_id\": \"1\", \"content\": \"Alice founded Acme.\"}\n```\n\nReference Document List (ids):\n\n```\n[1] report.pdf\n[2] notes.md\n```\n";
        let got = answer_output(system, "Who founded Acme?");
        assert!(got.starts_with("Answer based on 10 context lines. ```json {\"reference_id\": \"1\", \"content\": \"Alice founded Acme.\"} ```"), "{got}");
        assert!(got.ends_with("### References\n\n- [1] report.pdf\n- [2] notes.md"), "{got}");
    }

    #[test]
    fn answer_without_system_quotes_the_question() {
        assert_eq!(answer_output("", "hello there"), "Answer based on 0 context lines. hello there");
    }

    #[test]
    fn embeddings_are_deterministic_unit_vectors_that_preserve_similarity() {
        let a = embed_text("Alice founded Acme Corp in Paris.", 64);
        let b = embed_text("Alice founded Acme Corp in Paris.", 64);
        let c = embed_text("Acme Corp hired many engineers.", 64);
        assert_eq!(a, b);
        assert_eq!(a.len(), 64);
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-5);
        assert!(cosine(&a, &c) > 0.0);
        let empty = embed_text("", 8);
        assert_eq!(empty[0], 1.0);
        let related = cosine(&embed_text("graph retrieval engine", 256), &embed_text("graph retrieval", 256));
        let unrelated = cosine(&embed_text("graph retrieval engine", 256), &embed_text("banana smoothie", 256));
        assert!(related > unrelated, "{related} vs {unrelated}");
    }
}
