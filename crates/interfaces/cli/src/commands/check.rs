//! `lightrag check [--repair] [--json]`: the engine's consistency check, printed, and its repair.

use lightrag_config::Settings;
use lightrag_engine::maintenance::check::{CheckReport, Finding, RepairSummary};
use serde_json::json;

use crate::cli::CheckArgs;

pub async fn run(settings: &Settings, args: CheckArgs) -> anyhow::Result<()> {
    let engine = super::open(settings).await?;
    let first = engine.check().await?;
    let (last, repair) = if args.repair && !first.is_clean() {
        let summary = engine.repair(&first).await?;
        engine.flush_usage().await?;
        (engine.check().await?, Some(summary))
    } else {
        (first.clone(), None)
    };
    if args.json {
        let out = json!({
            "clean": last.is_clean(),
            "checked": last.checked,
            "findings": last.findings,
            "repair": repair.as_ref().map(|summary| json!({ "found": first.findings, "summary": summary })),
        });
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&first, repair.as_ref(), &last)?;
    }
    if last.is_clean() {
        return Ok(());
    }
    let problems: usize = last.findings.iter().map(|f| f.count).sum();
    if args.repair || !last.findings.iter().any(|f| f.repairable) {
        anyhow::bail!("{problems} problem(s) remain that --repair cannot fix (see above for what to do)");
    }
    anyhow::bail!("{problems} problem(s) found; run `lightrag check --repair` to fix what can be fixed")
}

fn print_findings(findings: &[Finding]) -> anyhow::Result<()> {
    for f in findings {
        let kind = serde_json::to_value(f.kind)?;
        outln!("{}: {} — {}", kind.as_str().unwrap_or_default(), f.count, f.kind.describe());
        let more = f.count.saturating_sub(f.ids.len());
        let ids = f.ids.join(", ");
        outln!("  {ids}{}", if more > 0 { format!(" … and {more} more") } else { String::new() });
        outln!("  repair: {}", f.repair);
    }
    Ok(())
}

fn print_text(first: &CheckReport, repair: Option<&RepairSummary>, last: &CheckReport) -> anyhow::Result<()> {
    let c = &last.checked;
    outln!(
        "checked {} documents, {} chunks, {} entities, {} relations, {} vectors",
        c.documents,
        c.chunks,
        c.entities,
        c.relations,
        c.vectors.values().sum::<usize>()
    );
    if let Some(summary) = repair {
        outln!("found:");
        print_findings(&first.findings)?;
        outln!(
            "repaired: {} vectors embedded, {} vectors deleted, {} chunks restored, {} chunks deleted, {} documents set back to pending, {} previous versions given back",
            summary.vectors_embedded,
            summary.vectors_deleted,
            summary.chunks_restored,
            summary.chunks_deleted,
            summary.documents_reset,
            summary.documents_restored
        );
        for line in &summary.not_repaired {
            outln!("  not repaired: {line}");
        }
        if last.is_clean() {
            outln!("after the repair: no problems");
        } else {
            outln!("after the repair:");
            print_findings(&last.findings)?;
        }
    } else if last.is_clean() {
        outln!("no problems");
    } else {
        print_findings(&last.findings)?;
    }
    Ok(())
}
