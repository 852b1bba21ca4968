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
            base.questions.iter().map(|q| (q.question.as_str(), q.score.all_gold_at[base_i])).collect();
        let (mut wins, mut losses) = (Vec::new(), Vec::new());
        for q in &mode.questions {
            match (before.get(q.question.as_str()), q.score.all_gold_at[now_i]) {
                (Some(false), true) => wins.push(q.question.clone()),
                (Some(true), false) => losses.push(q.question.clone()),
                _ => {}
            }
        }
        out.push(ModeComparison {
            mode: mode.mode.clone(),
            all_gold: (mode.summary.all_gold_at[now_i], base.summary.all_gold_at[base_i]),
            mrr: (mode.summary.mrr, base.summary.mrr),
            wins,
            losses,
        });
    }
    out
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
