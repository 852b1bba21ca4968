//! The deletion benchmark (`--delete-hub`): after indexing, the most connected entity (the hub)
//! is looked up and two documents whose text names it are deleted one after the other — the
//! oldest (under `SOURCE_IDS_LIMIT_METHOD=KEEP` its chunks are among the hub's shown source ids)
//! and the newest (its chunks are not) — timing each and counting the store records it read and
//! wrote.

use std::collections::HashMap;
use std::time::Instant;

use anyhow::{Context, Result};
use lightrag_engine::Engine;
use lightrag_ports::{DocFilter, DocSort, DocStatus};
use lightrag_scripted_llm::ScriptedServer;
use serde::Serialize;

/// One timed deletion.
#[derive(Debug, Clone, Serialize)]
pub struct DeleteRow {
    /// `oldest` or `newest` document.
    pub which: String,
    /// Its file path.
    pub file_path: String,
    /// Chunks it had.
    pub chunks: usize,
    /// The hub entity and its degree before the deletion.
    pub hub: String,
    /// Relations of the hub before the deletion.
    pub hub_degree: usize,
    /// Whether the document contributed to the hub (the hub was rebuilt, kept or deleted).
    pub shared_hub: bool,
    /// Wall time of `delete_document`, ms.
    pub ms: f64,
    /// Store records read (rows, and entries of stored provenance lists).
    pub records_read: usize,
    /// Store records written or removed.
    pub records_written: usize,
    /// Entities and relations rebuilt.
    pub rebuilt: usize,
    /// Entities and relations deleted.
    pub deleted: usize,
    /// Summary chat calls and embedded texts the deletion caused.
    pub summary_calls: u64,
    /// Texts embedded.
    pub embed_texts: u64,
}

/// Deletes the oldest and the newest processed document whose text (`texts`, by file name)
/// names the hub, and measures each.
pub async fn delete_hub_documents(
    engine: &Engine,
    server: &ScriptedServer,
    texts: &HashMap<String, String>,
) -> Result<Vec<DeleteRow>> {
    let mut rows = Vec::new();
    for (which, sort) in [("oldest", DocSort::CreatedAsc), ("newest", DocSort::CreatedDesc)] {
        let (hub, hub_degree) = engine.top_entities(1).await?.into_iter().next().unwrap_or_default();
        let filter = DocFilter { statuses: vec![DocStatus::Processed], sort, ..Default::default() };
        let (docs, _) = engine.list_documents(&filter).await.context("cannot list documents")?;
        let names_hub = |file: &str| texts.get(file).is_some_and(|t| t.contains(hub.as_str()));
        let Some(doc) = docs.into_iter().find(|d| names_hub(&d.file_path)) else { break };
        let before = server.stats();
        let started = Instant::now();
        let report =
            engine.delete_document(&doc.id).await.with_context(|| format!("deleting {} failed", doc.file_path))?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let after = server.stats();
        let shared_hub = report.entities_rebuilt.contains(&hub)
            || report.entities_deleted.contains(&hub)
            || report.entities_kept.contains(&hub);
        eprintln!(
            "deleted the {which} document {} in {ms:.1} ms ({} records read, {} written)",
            doc.file_path, report.records_read, report.records_written
        );
        rows.push(DeleteRow {
            which: which.to_string(),
            file_path: doc.file_path,
            chunks: report.chunks_deleted,
            hub,
            hub_degree,
            shared_hub,
            ms,
            records_read: report.records_read,
            records_written: report.records_written,
            rebuilt: report.entities_rebuilt.len() + report.relations_rebuilt.len(),
            deleted: report.entities_deleted.len() + report.relations_deleted.len(),
            summary_calls: after.summary - before.summary,
            embed_texts: after.embed_texts - before.embed_texts,
        });
    }
    Ok(rows)
}
