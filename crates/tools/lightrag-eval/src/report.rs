//! The evaluation as a Markdown table and as an SVG bar chart.

use std::fmt::Write;

use crate::run::EvalReport;

/// One row per mode: all-gold@k and recall@k for every cut-off and the whole context, MRR,
/// context tokens, latency p50/p95, and answer exact match/F1 and judged faithfulness when answers
/// were asked for.
pub fn markdown(report: &EvalReport) -> String {
    let expected = report.modes.iter().any(|m| m.summary.f1.is_some());
    let judged = report.modes.iter().any(|m| m.summary.faithfulness.is_some() || m.summary.unjudged > 0);
    let mut head = vec!["mode".to_string(), "questions".to_string()];
    head.extend(report.cutoffs.iter().map(|k| format!("all gold @{k}")));
    head.push("all gold in context".into());
    head.extend(report.cutoffs.iter().map(|k| format!("recall @{k}")));
    head.extend(["recall in context", "MRR", "context tokens", "latency p50 / p95"].map(String::from));
    if expected {
        head.extend(["answer EM", "answer F1"].map(String::from));
    }
    if judged {
        head.push("faithfulness (judged)".into());
    }
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let aligns: Vec<&str> = head.iter().enumerate().map(|(i, _)| if i == 0 { "---" } else { "---:" }).collect();
    let _ = writeln!(out, "|{}|", aligns.join("|"));
    for m in &report.modes {
        let s = &m.summary;
        let mut row = vec![m.mode.clone(), s.questions.to_string()];
        row.extend(s.all_gold_at.iter().map(|v| format!("{v:.2}")));
        row.push(format!("{:.2}", s.all_gold_in_context));
        row.extend(s.recall_at.iter().map(|v| format!("{v:.2}")));
        row.push(format!("{:.2}", s.recall_in_context));
        row.push(format!("{:.2}", s.mrr));
        row.push(format!("{:.0}", s.context_tokens));
        row.push(format!("{:.0} / {:.0} ms", s.latency_p50_ms, s.latency_p95_ms));
        let figure = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "–".into());
        if expected {
            row.push(figure(s.exact_match));
            row.push(figure(s.f1));
        }
        if judged {
            let unjudged = if s.unjudged > 0 { format!(" ({} unjudged)", s.unjudged) } else { String::new() };
            row.push(format!("{}{unjudged}", figure(s.faithfulness)));
        }
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out
}

const BAR_COLORS: [&str; 4] = ["#9ecae1", "#6baed6", "#3182bd", "#08519c"];

/// A grouped bar chart: per mode, all-gold@k for every cut-off and over the whole context.
pub fn svg(report: &EvalReport) -> String {
    let series: Vec<String> = report
        .cutoffs
        .iter()
        .map(|k| format!("all gold @{k}"))
        .chain(std::iter::once("all gold in context".to_string()))
        .collect();
    let (left, top, plot_h, bar_w, gap) = (50.0, 40.0, 240.0, 18.0, 30.0);
    let group_w = bar_w * series.len() as f64 + gap;
    let legend_w = 150.0;
    let width = (left + group_w * report.modes.len().max(1) as f64 + 20.0).max(left + legend_w * 4.0);
    let height = top + plot_h + 36.0 + 18.0 * series.len().div_ceil(4) as f64 + 12.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{left}" y="20" font-size="14">Share of questions with every gold passage retrieved</text>"#
    );
    for tick in 0..=4 {
        let v = f64::from(tick) / 4.0;
        let y = top + plot_h * (1.0 - v);
        let _ = writeln!(
            out,
            r##"<line x1="{left}" x2="{:.0}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.0}" y="{:.1}" text-anchor="end">{v:.2}</text>"##,
            width - 20.0,
            left - 6.0,
            y + 4.0
        );
    }
    for (g, m) in report.modes.iter().enumerate() {
        let x0 = left + gap / 2.0 + group_w * g as f64;
        let values = m.summary.all_gold_at.iter().copied().chain(std::iter::once(m.summary.all_gold_in_context));
        for (i, v) in values.enumerate() {
            let h = plot_h * v.clamp(0.0, 1.0);
            let x = x0 + bar_w * i as f64;
            let color = BAR_COLORS[i % BAR_COLORS.len()];
            let _ = writeln!(
                out,
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{color}"><title>{} {}: {v:.2}</title></rect>"#,
                top + plot_h - h,
                bar_w - 2.0,
                escape(&m.mode),
                escape(&series[i]),
            );
        }
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            x0 + bar_w * series.len() as f64 / 2.0,
            top + plot_h + 16.0,
            escape(&m.mode)
        );
    }
    for (i, name) in series.iter().enumerate() {
        let x = left + legend_w * (i % 4) as f64;
        let y = top + plot_h + 46.0 + 18.0 * (i / 4) as f64;
        let color = BAR_COLORS[i % BAR_COLORS.len()];
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{:.0}" width="12" height="12" fill="{color}"/><text x="{:.0}" y="{y:.0}">{}</text>"#,
            y - 10.0,
            x + 16.0,
            escape(name)
        );
    }
    out.push_str("</svg>\n");
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
