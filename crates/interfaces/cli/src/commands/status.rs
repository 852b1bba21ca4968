//! `lightrag status`

use lightrag_config::Settings;
use lightrag_engine::indexing::estimate::{DOC_ESTIMATE_KEY, DOC_USAGE_KEY, ExtractionFigures};
use lightrag_engine::indexing::extract::schema::{REPORT_KEY, SchemaReport};
use lightrag_engine::time::iso;
use lightrag_ports::{DocFilter, DocSort, DocStatusRecord};
use serde_json::json;

use crate::cli::StatusArgs;

pub async fn run(settings: &Settings, args: StatusArgs) -> anyhow::Result<()> {
    let engine = super::open(settings).await?;
    let filter = DocFilter { track_id: args.track_id.clone(), sort: DocSort::CreatedAsc, ..Default::default() };
    let (docs, _) = engine.list_documents(&filter).await?;
    let mut counts = serde_json::Map::new();
    let mut all = 0;
    for status in lightrag_ports::DocStatus::ALL {
        let n = docs.iter().filter(|d| d.status == status).count();
        all += n;
        counts.insert(status.as_str().to_string(), json!(n));
    }
    counts.insert("all".into(), json!(all));
    let usage = engine.total_usage().await?;
    let extraction = estimate_beside_actual(&docs);
    let quotas = engine.quota_status().await?;
    if args.json {
        let rows: Vec<_> = docs.iter().map(doc_json).collect();
        let mut out = json!({ "documents": rows, "status_counts": counts, "usage": usage });
        if let Some(quotas) = &quotas {
            out["quotas"] = json!(quotas);
        }
        if let Some((estimated, actual)) = &extraction {
            out["extraction"] = json!({ "estimated": estimated, "actual": actual });
        }
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    if let Some(quotas) = &quotas {
        let parts: Vec<String> =
            quotas.entries().iter().map(|(kind, u)| format!("{} {} of {}", kind.as_str(), u.used, u.limit)).collect();
        outln!("quotas: {}", parts.join(", "));
    }
    if docs.is_empty() {
        outln!("no documents{}", args.track_id.map(|t| format!(" with track id {t}")).unwrap_or_default());
        return Ok(());
    }
    outln!("{:<38} {:<10} {:>6}  {:<30} {}", "ID", "STATUS", "CHUNKS", "FILE", "TRACK ID");
    for d in &docs {
        outln!(
            "{:<38} {:<10} {:>6}  {:<30} {}",
            d.id,
            d.status.as_str(),
            d.chunks_count.map(|c| c.to_string()).unwrap_or_else(|| "-".into()),
            truncate(&d.file_path, 30),
            d.track_id
        );
        if let Some(error) = &d.error_msg {
            outln!("  error: {error}");
        }
        let schema = d.metadata.get(REPORT_KEY).and_then(|v| serde_json::from_value::<SchemaReport>(v.clone()).ok());
        if let Some(report) = schema {
            outln!("  schema: {report}");
        }
    }
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    outln!("{}", summary.join(", "));
    if !usage.is_empty() {
        let per_role: Vec<String> = usage
            .iter()
            .map(|(role, c)| {
                format!(
                    "{} {} calls ({} cached, {} tokens in, {} out)",
                    role.as_str(),
                    c.calls,
                    c.cache_hits,
                    c.tokens_in,
                    c.tokens_out
                )
            })
            .collect();
        outln!("usage: {}", per_role.join("; "));
    }
    if let Some((e, a)) = extraction {
        outln!(
            "extraction of these documents: estimated {} calls, {} tokens in, {} out; actual {} calls ({} cached), \
             {} tokens in, {} out",
            e.llm_calls,
            e.tokens_in,
            e.tokens_out,
            a.llm_calls,
            a.cache_hits,
            a.tokens_in,
            a.tokens_out
        );
    }
    Ok(())
}

/// The extraction estimate and actual usage summed over the documents that record both (those
/// indexed with an LLM by this version), or `None` when none does.
fn estimate_beside_actual(docs: &[DocStatusRecord]) -> Option<(ExtractionFigures, ExtractionFigures)> {
    let read = |d: &DocStatusRecord, key: &str| {
        d.metadata.get(key).and_then(|v| serde_json::from_value::<ExtractionFigures>(v.clone()).ok())
    };
    let mut sums: Option<(ExtractionFigures, ExtractionFigures)> = None;
    for d in docs {
        if let (Some(e), Some(a)) = (read(d, DOC_ESTIMATE_KEY), read(d, DOC_USAGE_KEY)) {
            let (se, sa) = sums.get_or_insert_with(Default::default);
            se.add(&e);
            sa.add(&a);
        }
    }
    sums
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}…", s.chars().take(n - 1).collect::<String>()) }
}

/// A status row in LightRAG's `DocStatusResponse` shape.
pub fn doc_json(d: &DocStatusRecord) -> serde_json::Value {
    json!({
        "id": d.id,
        "content_summary": d.content_summary,
        "content_length": d.content_length,
        "status": d.status.as_str(),
        "created_at": iso(d.created_at),
        "updated_at": iso(d.updated_at),
        "track_id": d.track_id,
        "chunks_count": d.chunks_count,
        "error_msg": d.error_msg,
        "metadata": d.metadata,
        "file_path": d.file_path,
    })
}
