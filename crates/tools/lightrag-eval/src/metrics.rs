//! Retrieval and answer metrics of one question, and their summary over a question set.
//!
//! A question's context is ranked by *passage*: the distinct passages of the context's chunks, in
//! the order the chunks appear (the order the model reads them). With `k` the number of first
//! passages looked at:
//!
//! * **all-gold@k** — 1 when every gold passage is among the first `k`, else 0 (the measure the
//!   published 2WikiMultiHopQA comparison uses, with k = 8);
//! * **recall@k** — the share of the gold passages among the first `k`;
//! * both also over the whole context (`k` = ∞);
//! * **MRR** — the mean over questions of 1 / the rank of the first gold passage (0 when none is
//!   retrieved).
//!
//! Answers, when the question file has them, are compared after SQuAD's normalisation (lower
//! case, punctuation and the articles a/an/the removed, whitespace collapsed): **exact match**,
//! and **F1** over the answer's words.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

/// The cut-offs reported besides the whole context.
pub const CUTOFFS: [usize; 3] = [2, 5, 8];

/// The retrieval scores of one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalScore {
    /// all-gold@k for each of [`CUTOFFS`].
    pub all_gold_at: Vec<bool>,
    /// recall@k for each of [`CUTOFFS`].
    pub recall_at: Vec<f64>,
    /// Every gold passage somewhere in the context.
    pub all_gold_in_context: bool,
    /// Share of the gold passages somewhere in the context.
    pub recall_in_context: f64,
    /// 1 / rank of the first gold passage (0 when none).
    pub reciprocal_rank: f64,
}

/// Scores a ranked list of passages against the gold ones (both as passage sources).
pub fn score_retrieval(ranked: &[String], gold: &[String]) -> RetrievalScore {
    let gold: HashSet<&str> = gold.iter().map(String::as_str).collect();
    let position: HashMap<&str, usize> = ranked.iter().enumerate().rev().map(|(i, p)| (p.as_str(), i + 1)).collect();
    let found_within = |k: usize| gold.iter().filter(|g| position.get(*g).is_some_and(|&r| r <= k)).count();
    let share = |n: usize| if gold.is_empty() { 0.0 } else { n as f64 / gold.len() as f64 };
    let first = gold.iter().filter_map(|g| position.get(g)).min();
    RetrievalScore {
        all_gold_at: CUTOFFS.iter().map(|&k| found_within(k) == gold.len()).collect(),
        recall_at: CUTOFFS.iter().map(|&k| share(found_within(k))).collect(),
        all_gold_in_context: found_within(usize::MAX) == gold.len(),
        recall_in_context: share(found_within(usize::MAX)),
        reciprocal_rank: first.map(|&r| 1.0 / r as f64).unwrap_or(0.0),
    }
}

/// SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces.
pub fn normalize_answer(text: &str) -> String {
    let lowered: String =
        text.to_lowercase().chars().map(|c| if c.is_alphanumeric() || c.is_whitespace() { c } else { ' ' }).collect();
    lowered.split_whitespace().filter(|w| !matches!(*w, "a" | "an" | "the")).collect::<Vec<_>>().join(" ")
}

/// Whether the normalised answers are equal.
pub fn exact_match(predicted: &str, expected: &str) -> bool {
    normalize_answer(predicted) == normalize_answer(expected)
}

/// Word-overlap F1 of the normalised answers.
pub fn f1(predicted: &str, expected: &str) -> f64 {
    let p = normalize_answer(predicted);
    let e = normalize_answer(expected);
    let (p, e): (Vec<&str>, Vec<&str>) = (p.split_whitespace().collect(), e.split_whitespace().collect());
    if p.is_empty() || e.is_empty() {
        return if p == e { 1.0 } else { 0.0 };
    }
    let mut left: HashMap<&str, usize> = HashMap::new();
    for w in &e {
        *left.entry(w).or_default() += 1;
    }
    let mut common = 0usize;
    for w in &p {
        if let Some(n) = left.get_mut(w).filter(|n| **n > 0) {
            *n -= 1;
            common += 1;
        }
    }
    if common == 0 {
        return 0.0;
    }
    let precision = common as f64 / p.len() as f64;
    let recall = common as f64 / e.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

/// The `q`-quantile (0..=1) of `values` by the nearest-rank method (0 for none).
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The mean of `values` (0 for none).
pub fn mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = values.into_iter().fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(list: &[&str]) -> Vec<String> {
        list.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn retrieval_scores_by_hand() {
        // gold B and F; B is 2nd, F 6th
        let ranked = s(&["A", "B", "C", "D", "E", "F", "G"]);
        let score = score_retrieval(&ranked, &s(&["F", "B"]));
        assert_eq!(score.all_gold_at, vec![false, false, true]);
        assert_eq!(score.recall_at, vec![0.5, 0.5, 1.0]);
        assert!(score.all_gold_in_context);
        assert_eq!(score.recall_in_context, 1.0);
        assert_eq!(score.reciprocal_rank, 0.5);

        let none = score_retrieval(&ranked, &s(&["Z"]));
        assert_eq!((none.reciprocal_rank, none.recall_in_context), (0.0, 0.0));
        assert!(!none.all_gold_in_context);
        let beyond = score_retrieval(&s(&["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"]), &s(&["A", "J"]));
        assert_eq!(beyond.all_gold_at, vec![false, false, false]);
        assert!(beyond.all_gold_in_context, "10th is in the context, not in the first 8");
        assert_eq!(beyond.reciprocal_rank, 1.0);
    }

    #[test]
    fn answers_compare_after_squad_normalisation() {
        assert!(exact_match("The Eiffel Tower!", "eiffel tower"));
        assert!(!exact_match("Paris, France", "Paris"));
        assert_eq!(f1("Paris, France", "Paris"), 2.0 * 0.5 * 1.0 / 1.5);
        assert_eq!(f1("London", "Paris"), 0.0);
        assert_eq!(f1("", ""), 1.0);
    }

    #[test]
    fn nearest_rank_quantiles() {
        let v = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 3.0);
        assert_eq!(quantile(&v, 0.95), 5.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
        assert_eq!(mean([1.0, 2.0, 6.0]), 3.0);
    }
}
