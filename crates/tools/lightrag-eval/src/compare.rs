//! Two evaluations side by side: per mode, the change of each summary figure and the questions
//! won (every gold passage in the first 8 now, not before) and lost.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

use crate::error::EvalError;
use crate::run::EvalReport;

/// The cut-off wins and losses are counted at.
pub const DECIDING_CUTOFF: usize = 8;

/// One mode's comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeComparison {
    /// The mode.
    pub mode: String,
    /// all-gold@8 now and in the baseline.
    pub all_gold: (f64, f64),
    /// MRR now and in the baseline.
    pub mrr: (f64, f64),
    /// Questions with every gold passage in the first 8 now but not in the baseline.
    pub wins: Vec<String>,
    /// Questions with every gold passage in the first 8 in the baseline but not now.
    pub losses: Vec<String>,
}

/// Reads a results file written by `lightrag eval`.
pub fn read_report(path: &Path) -> Result<EvalReport, EvalError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| EvalError::Read { path: path.to_path_buf(), reason: e.to_string() })?;
    serde_json::from_str(&text).map_err(|e| EvalError::Baseline { path: path.to_path_buf(), reason: e.to_string() })
}

/// Compares the modes present in both reports (questions matched by their text).
pub fn compare(current: &EvalReport, baseline: &EvalReport) -> Vec<ModeComparison> {
    let at = |r: &EvalReport| r.cutoffs.iter().position(|&k| k == DECIDING_CUTOFF);
    let (Some(now_i), Some(base_i)) = (at(current), at(baseline)) else { return Vec::new() };
    let mut out = Vec::new();
    for mode in &current.modes {
        let Some(base) = baseline.modes.iter().find(|b| b.mode == mode.mode) else { continue };
        let before: HashMap<&str, bool> =
            base.questions.iter().map(|q| (q.question.as_str(), flag(&q.score.all_gold_at, base_i))).collect();
        let (mut wins, mut losses) = (Vec::new(), Vec::new());
        for q in &mode.questions {
            match (before.get(q.question.as_str()), flag(&q.score.all_gold_at, now_i)) {
                (Some(false), true) => wins.push(q.question.clone()),
                (Some(true), false) => losses.push(q.question.clone()),
                _ => {}
            }
        }
        out.push(ModeComparison {
            mode: mode.mode.clone(),
            all_gold: (share(&mode.summary.all_gold_at, now_i), share(&base.summary.all_gold_at, base_i)),
            mrr: (mode.summary.mrr, base.summary.mrr),
            wins,
            losses,
        });
    }
    out
}

/// The flag at `i` (a results file edited by hand may have fewer; they count as not found).
fn flag(flags: &[bool], i: usize) -> bool {
    flags.get(i).copied().unwrap_or(false)
}

/// The share at `i` (0 when missing).
fn share(shares: &[f64], i: usize) -> f64 {
    shares.get(i).copied().unwrap_or(0.0)
}

/// The comparison as Markdown: a table, then the questions won and lost per mode.
pub fn markdown(comparisons: &[ModeComparison]) -> String {
    let mut out = String::new();
    let _ =
        writeln!(out, "| mode | all gold @{DECIDING_CUTOFF} (baseline → now) | MRR (baseline → now) | won | lost |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    for c in comparisons {
        let _ = writeln!(
            out,
            "| {} | {:.2} → {:.2} | {:.2} → {:.2} | {} | {} |",
            c.mode,
            c.all_gold.1,
            c.all_gold.0,
            c.mrr.1,
            c.mrr.0,
            c.wins.len(),
            c.losses.len()
        );
    }
    for c in comparisons.iter().filter(|c| !c.wins.is_empty() || !c.losses.is_empty()) {
        let _ = writeln!(out, "\n{}:", c.mode);
        for q in &c.wins {
            let _ = writeln!(out, "* won: {q}");
        }
        for q in &c.losses {
            let _ = writeln!(out, "* lost: {q}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{CUTOFFS, score_retrieval};
    use crate::run::{ModeResult, ModeSummary, QuestionResult};

    fn report(found: &[(&str, bool)]) -> EvalReport {
        let questions: Vec<QuestionResult> = found
            .iter()
            .map(|(q, hit)| {
                let passages = if *hit { vec!["G".to_string()] } else { vec!["X".to_string()] };
                QuestionResult {
                    question: q.to_string(),
                    gold: vec!["G".into()],
                    score: score_retrieval(&passages, &["G".to_string()]),
                    passages,
                    context_tokens: 1,
                    latency_ms: 1.0,
                    answer: None,
                    expected_answer: None,
                    exact_match: None,
                    f1: None,
                    faithfulness: None,
                }
            })
            .collect();
        let summary = ModeSummary::of(&questions);
        EvalReport {
            format: 1,
            cutoffs: CUTOFFS.to_vec(),
            modes: vec![ModeResult { mode: "ppr".into(), summary, questions }],
        }
    }

    #[test]
    fn wins_and_losses_are_counted_per_question() {
        let before = report(&[("a", true), ("b", false), ("c", false)]);
        let now = report(&[("a", false), ("b", true), ("c", true)]);
        let c = compare(&now, &before);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].wins, vec!["b", "c"]);
        assert_eq!(c[0].losses, vec!["a"]);
        assert!((c[0].all_gold.0 - 2.0 / 3.0).abs() < 1e-9 && (c[0].all_gold.1 - 1.0 / 3.0).abs() < 1e-9);
        assert!(markdown(&c).contains("* won: b"));
    }

    #[test]
    fn a_hand_edited_baseline_with_short_lists_does_not_panic() {
        let mut before = report(&[("a", true)]);
        before.modes[0].questions[0].score.all_gold_at.clear();
        before.modes[0].summary.all_gold_at.clear();
        let c = compare(&report(&[("a", true)]), &before);
        assert_eq!(c[0].wins, vec!["a"], "a missing flag counts as not found");
    }
}
