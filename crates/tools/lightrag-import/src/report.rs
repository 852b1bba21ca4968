//! What an import would do (`--check`) or did: counts, the vector decision, the cache, and every
//! thing that does not come over.

use std::fmt::Write as _;

use serde::Serialize;

use crate::cache::CacheCounts;
use crate::convert::DocKind;
use crate::prepare::Prepared;
use crate::source::kv::FileState;
use crate::vectors::VectorCheck;

/// One LightRAG file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileReport {
    /// File name.
    pub name: String,
    /// `read`, `missing` or `unreadable`.
    pub state: String,
    /// Records read.
    pub records: usize,
    /// Why it is unreadable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Document counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DocumentCounts {
    /// Documents found.
    pub total: usize,
    /// Processed in LightRAG: imported with chunks, graph and vectors.
    pub indexed: usize,
    /// Unfinished in LightRAG: imported as pending (`lightrag process` indexes them).
    pub pending: usize,
    /// Unfinished in LightRAG after writing part of their graph: that part is removed (as a
    /// deletion would) and they are imported as pending.
    pub interrupted: usize,
    /// Failed in LightRAG: imported as failed (`lightrag process` retries them).
    pub failed: usize,
    /// LightRAG duplicate records: status row only.
    pub duplicate: usize,
    /// Already in the knowledge base from an earlier (interrupted) run: skipped.
    pub already_present: usize,
    /// Written by this run.
    pub imported: usize,
}

/// A document whose extraction records could not be recovered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unrecoverable {
    /// Document id.
    pub doc_id: String,
    /// Its file.
    pub file_path: String,
    /// Chunks without a cached extraction.
    pub chunks: Vec<String>,
}

/// The report of an import or of its dry run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportReport {
    /// The LightRAG folder read.
    pub source: String,
    /// The LightRAG workspace (`""`: the default one).
    pub lightrag_workspace: String,
    /// Whether nothing was written (`--check`).
    pub dry_run: bool,
    /// Whether every document, graph record and cache entry was written.
    pub complete: bool,
    /// Whether the run was cancelled (a second run continues).
    pub cancelled: bool,
    /// Why the import cannot run into this knowledge base, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
    /// The LightRAG files.
    pub files: Vec<FileReport>,
    /// Documents.
    pub documents: DocumentCounts,
    /// Chunks of indexed documents.
    pub chunks: usize,
    /// Entities in the graph.
    pub entities: usize,
    /// Relations in the graph.
    pub relations: usize,
    /// Entities created for edge ends the GraphML file does not declare as nodes.
    pub undeclared_nodes: Vec<String>,
    /// Chunks whose extraction records were recovered from the cache.
    pub extractions_recovered: usize,
    /// Documents whose extraction could not be fully recovered.
    pub unrecoverable: Vec<Unrecoverable>,
    /// The vector decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vectors: Option<VectorCheck>,
    /// Vectors made with the configured embedder by this run.
    pub vectors_embedded: usize,
    /// LLM cache entries per type.
    pub cache: CacheCounts,
    /// What does not come over, one line each.
    pub lost: Vec<String>,
}

/// How many bad-record keys are named per file.
const NAMED_KEYS: usize = 5;

impl ImportReport {
    /// The report of `prepared` before anything is written.
    pub fn new(prepared: &Prepared, dry_run: bool) -> Self {
        let kinds = prepared.kinds();
        let count = |k: DocKind| kinds.get(&k).copied().unwrap_or(0);
        let mut lost = Vec::new();
        let files = prepared
            .files
            .iter()
            .map(|(name, state)| {
                let (label, records, problem) = match state {
                    FileState::Read { records } => ("read", *records, None),
                    FileState::Missing => {
                        lost.push(format!("{name} is missing: {}", missing_consequence(name)));
                        ("missing", 0, None)
                    }
                    FileState::Unreadable(why) => {
                        lost.push(format!("{name} is unreadable ({why}): {}", missing_consequence(name)));
                        ("unreadable", 0, Some(why.clone()))
                    }
                };
                FileReport { name: name.to_string(), state: label.to_string(), records, problem }
            })
            .collect();
        for (name, why) in &prepared.foreign_files {
            lost.push(format!("{name}: {why}"));
        }
        let mut by_file: Vec<(&str, Vec<&str>)> = Vec::new();
        for (file, key) in &prepared.bad_records {
            match by_file.iter_mut().find(|(f, _)| f == file) {
                Some((_, keys)) => keys.push(key),
                None => by_file.push((file, vec![key])),
            }
        }
        for (file, keys) in by_file {
            let named: Vec<&str> = keys.iter().take(NAMED_KEYS).copied().collect();
            let more = keys.len().saturating_sub(NAMED_KEYS);
            lost.push(format!(
                "{file}: {} record(s) without the expected fields are skipped ({}{})",
                keys.len(),
                named.join(", "),
                if more > 0 { format!(", and {more} more") } else { String::new() }
            ));
        }
        let mut unrecoverable = Vec::new();
        for d in &prepared.docs {
            let id = d.plan.id();
            if d.plan.document.is_none() && matches!(d.plan.kind, DocKind::Indexed | DocKind::Pending) {
                lost.push(format!(
                    "document {id} ({}) has no text in kv_store_full_docs.json: it cannot be indexed or re-extracted here",
                    d.plan.status.file_path
                ));
            }
            if !d.plan.missing_chunks.is_empty() {
                lost.push(format!(
                    "document {id}: chunk(s) {} are missing from kv_store_text_chunks.json and are not imported",
                    d.plan.missing_chunks.join(", ")
                ));
            }
            if !d.unrecoverable.is_empty() {
                unrecoverable.push(Unrecoverable {
                    doc_id: id.to_string(),
                    file_path: d.plan.status.file_path.clone(),
                    chunks: d.unrecoverable.clone(),
                });
            }
        }
        let interrupted: Vec<&str> =
            prepared.docs.iter().filter(|d| d.plan.kind == DocKind::Interrupted).map(|d| d.plan.id()).collect();
        if !interrupted.is_empty() {
            lost.push(format!(
                "{} document(s) were stopped by LightRAG while their graph was being written ({}): the part written is \
                 removed as a deletion would (shared entities are rebuilt from the other chunks) and they are imported \
                 as pending, to be indexed in full here",
                interrupted.len(),
                interrupted.join(", ")
            ));
        }
        if !unrecoverable.is_empty() {
            lost.push(format!(
                "{} document(s) have chunks whose extraction is not in the LLM cache (listed under 'unrecoverable'): \
                 they are imported, but deleting another document that shares their entities rebuilds those entities \
                 without their contribution; to re-extract one, delete it (`lightrag delete DOC_ID`) and insert its \
                 file again",
                unrecoverable.len()
            ));
        }
        let undeclared = &prepared.graph.undeclared_nodes;
        if !undeclared.is_empty() {
            let named: Vec<&str> = undeclared.iter().take(NAMED_KEYS).map(String::as_str).collect();
            let more = undeclared.len().saturating_sub(NAMED_KEYS);
            lost.push(format!(
                "{}: {} edge end(s) are not declared as nodes ({}{}): their relations are kept and the ends are \
                 created as entities of type UNKNOWN without a description, from those edges' chunks (as LightRAG \
                 reads such a file)",
                crate::source::GRAPH,
                undeclared.len(),
                named.join(", "),
                if more > 0 { format!(", and {more} more") } else { String::new() }
            ));
        }
        let unusable = &prepared.stored.unusable;
        if unusable.count > 0 {
            let more = unusable.count.saturating_sub(unusable.named.len());
            lost.push(format!(
                "{} stored vector(s) hold NaN, infinite values or only zeros ({}{}): no search can use them, so they \
                 are refused and made again with the configured embedder",
                unusable.count,
                unusable.named.join(", "),
                if more > 0 { format!(", and {more} more") } else { String::new() }
            ));
        }
        if prepared.stored.unreadable > 0 {
            lost.push(format!(
                "{} stored vector(s) could not be read: they are made again with the configured embedder",
                prepared.stored.unreadable
            ));
        }
        let kept: usize = prepared.cache_counts.values().map(|c| c.kept).sum();
        if !prepared.llm_configured && kept > 0 {
            lost.push(format!(
                "no chat model is configured (LLM_BINDING=none): LightRAG's {kept} cached answers are kept under their \
                 own keys and cannot be reused; import with the LLM_BINDING and LLM_MODEL you will index and query with"
            ));
        }
        for (kind, c) in prepared.cache_counts.iter().filter(|_| prepared.llm_configured) {
            if c.kept > 0 {
                let why = match kind.as_str() {
                    "query" => "our answer prompt is our own, so these answers cannot be reused",
                    "extract" => "their chunk is not imported, or the answer is in LightRAG's JSON format",
                    "summary" => "the subject or description list could not be read back from the prompt",
                    _ => "our requests never ask for this",
                };
                lost.push(format!(
                    "{} cached '{kind}' answer(s) are kept under their LightRAG keys for inspection, not reused: {why}",
                    c.kept
                ));
            }
        }
        let docs_with_chunks = prepared.docs.iter().filter(|d| d.plan.kind == DocKind::Indexed);
        ImportReport {
            source: prepared.source.path.display().to_string(),
            lightrag_workspace: prepared.source.workspace.clone(),
            dry_run,
            complete: false,
            cancelled: false,
            blocked: None,
            files,
            documents: DocumentCounts {
                total: prepared.docs.len(),
                indexed: count(DocKind::Indexed),
                pending: count(DocKind::Pending),
                interrupted: count(DocKind::Interrupted),
                failed: count(DocKind::Failed),
                duplicate: count(DocKind::Duplicate),
                already_present: 0,
                imported: 0,
            },
            chunks: docs_with_chunks.clone().map(|d| d.plan.chunks.len()).sum(),
            entities: prepared.graph.entities.len(),
            relations: prepared.graph.relations.len(),
            undeclared_nodes: prepared.graph.undeclared_nodes.clone(),
            extractions_recovered: docs_with_chunks.map(|d| d.extractions.len()).sum(),
            unrecoverable,
            vectors: None,
            vectors_embedded: 0,
            cache: prepared.cache_counts.clone(),
            lost,
        }
    }

    /// A human-readable summary (what the CLI prints).
    pub fn render(&self) -> String {
        let mut out = String::new();
        let ws =
            if self.lightrag_workspace.is_empty() { "default".to_string() } else { self.lightrag_workspace.clone() };
        let _ = writeln!(out, "source:      {} (LightRAG workspace: {ws})", self.source);
        let d = &self.documents;
        let _ = writeln!(
            out,
            "documents:   {} found: {} indexed, {} pending, {} interrupted, {} failed, {} duplicate records",
            d.total, d.indexed, d.pending, d.interrupted, d.failed, d.duplicate
        );
        if self.dry_run {
            let _ =
                writeln!(out, "             {} already in this knowledge base (would be skipped)", d.already_present);
        } else {
            let _ =
                writeln!(out, "             {} imported, {} already present (skipped)", d.imported, d.already_present);
        }
        let _ = writeln!(
            out,
            "graph:       {} chunks, {} entities, {} relations; extraction records recovered for {} chunks",
            self.chunks, self.entities, self.relations, self.extractions_recovered
        );
        if let Some(v) = &self.vectors {
            let _ = writeln!(out, "vectors:     {}", v.reason);
        }
        if self.vectors_embedded > 0 {
            let _ = writeln!(out, "             {} vectors made with the configured embedder", self.vectors_embedded);
        }
        let cache: Vec<String> = self
            .cache
            .iter()
            .map(|(kind, c)| format!("{kind} {} ({} reused, {} kept)", c.total, c.reused, c.kept))
            .collect();
        if !cache.is_empty() {
            let _ = writeln!(out, "LLM cache:   {}", cache.join(", "));
        }
        for u in &self.unrecoverable {
            let _ = writeln!(
                out,
                "unrecoverable extraction: {} ({}): chunks {}",
                u.doc_id,
                u.file_path,
                u.chunks.join(", ")
            );
        }
        if self.lost.is_empty() {
            let _ = writeln!(out, "not imported: nothing");
        } else {
            let _ = writeln!(out, "not imported or not reused:");
            for line in &self.lost {
                let _ = writeln!(out, "  - {line}");
            }
        }
        if let Some(why) = &self.blocked {
            let _ = writeln!(out, "BLOCKED:     {why}");
        }
        if self.cancelled {
            let _ = writeln!(out, "stopped before the end: run the same import again to continue");
        }
        let unfinished = d.pending + d.interrupted + d.failed;
        if !self.dry_run && unfinished > 0 && self.complete {
            let _ = writeln!(
                out,
                "next:        {} document(s) were not finished in LightRAG; `lightrag process` indexes them (cached \
                 LightRAG answers are reused)",
                unfinished
            );
        }
        out
    }
}

fn missing_consequence(name: &str) -> &'static str {
    use crate::source::*;
    match name {
        n if n == FULL_DOCS => "documents have no text (they cannot be re-indexed or re-extracted)",
        n if n == TEXT_CHUNKS => "no chunk is imported (queries find no text; extraction records cannot be recovered)",
        n if n == DOC_STATUS => "documents are imported from their text alone, as pending",
        n if n == FULL_ENTITIES || n == FULL_RELATIONS => {
            "what each document contributed is derived from the graph's provenance instead"
        }
        n if n == ENTITY_CHUNKS || n == RELATION_CHUNKS => {
            "the full chunk lists are taken from the graph's source_id (cut to the source-id limit)"
        }
        n if n == LLM_CACHE => "no extraction record is recovered and no LLM answer is reused",
        n if n == GRAPH => "no entity or relation is imported",
        _ => "those vectors are made with the configured embedder",
    }
}
