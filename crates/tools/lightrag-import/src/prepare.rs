//! Everything an import writes, computed from the LightRAG files before anything is written:
//! documents with their chunks and recovered extraction records, the graph, the vectors on hand,
//! and the cache entries (re-keyed where our requests would ask for the same work).

use std::collections::{BTreeMap, HashSet};

use lightrag_engine::Engine;
use lightrag_ports::{CacheEntry, ChunkExtraction, RelKey};

use crate::cache::{self, CacheCounts};
use crate::convert::{self, DocKind, DocPlan, GraphRecords};
use crate::extraction;
use crate::load::LightragData;
use crate::source::kv::FileState;
use crate::source::{self, SourceDir};
use crate::vectors::{self, StoredVectors};

/// A document ready to import.
#[derive(Debug, Clone)]
pub struct PreparedDoc {
    /// Text, status, chunks and links.
    pub plan: DocPlan,
    /// Recovered extraction records of its chunks (indexed documents).
    pub extractions: Vec<ChunkExtraction>,
    /// Cache entries of its chunks' extractions.
    pub cache: Vec<CacheEntry>,
    /// Its chunks whose extraction is not in the cache.
    pub unrecoverable: Vec<String>,
}

/// The whole import, computed.
#[derive(Debug)]
pub struct Prepared {
    /// Where it comes from.
    pub source: SourceDir,
    /// The LightRAG folder as recorded in the documents' metadata.
    pub source_label: String,
    /// Each LightRAG file and what became of it.
    pub files: Vec<(&'static str, FileState)>,
    /// Records skipped for not having the expected fields: `(file, key)`.
    pub bad_records: Vec<(&'static str, String)>,
    /// Files of storages this importer does not read.
    pub foreign_files: Vec<(String, &'static str)>,
    /// Documents, oldest first.
    pub docs: Vec<PreparedDoc>,
    /// The graph.
    pub graph: GraphRecords,
    /// Entities some document links to.
    pub linked_entities: HashSet<String>,
    /// Relations some document links to.
    pub linked_relations: HashSet<RelKey>,
    /// LightRAG's vectors by our keys.
    pub stored: StoredVectors,
    /// Cache entries not tied to an imported chunk.
    pub cache_rest: Vec<CacheEntry>,
    /// Cache entries per type: reused or kept.
    pub cache_counts: CacheCounts,
    /// Whether a chat model is configured (without one, no answer can be keyed for reuse).
    pub llm_configured: bool,
}

/// Computes the import from the files read into `data`.
pub fn prepare(engine: &Engine, data: LightragData) -> Prepared {
    let graph = convert::graph_records(&data);
    let plans = convert::documents(&data, engine, &graph);
    let by_chunk = extraction::extract_entries_by_chunk(&data.cache.records);
    let mut consumed: HashSet<String> = HashSet::new();
    let mut counts = CacheCounts::new();
    let mut docs = Vec::with_capacity(plans.len());
    for plan in plans {
        let mut prepared = PreparedDoc { plan, extractions: Vec::new(), cache: Vec::new(), unrecoverable: Vec::new() };
        for (chunk, listed) in &prepared.plan.chunks {
            let recovered = extraction::recover(engine, chunk, listed, &data.cache.records, &by_chunk);
            let slot = counts.entry("extract".to_string()).or_default();
            slot.total += recovered.consumed.len();
            slot.reused += recovered.rekeyed;
            slot.kept += recovered.kept;
            consumed.extend(recovered.consumed);
            prepared.cache.extend(recovered.cache);
            let kind = prepared.plan.kind;
            match recovered.extraction {
                Some(x) if matches!(kind, DocKind::Indexed | DocKind::Interrupted) => prepared.extractions.push(x),
                Some(_) => {}
                // an interrupted document is deleted again at once: its gaps do not matter
                None if kind == DocKind::Indexed => prepared.unrecoverable.push(chunk.id.clone()),
                None => {}
            }
        }
        // an indexed (or interrupted) document keeps its chunks; a pending one is chunked again here
        if !matches!(prepared.plan.kind, DocKind::Indexed | DocKind::Interrupted) {
            prepared.plan.chunks.clear();
        }
        docs.push(prepared);
    }
    let (cache_rest, rest_counts) = cache::remainder(engine, &data.cache.records, &consumed);
    for (kind, c) in rest_counts {
        let slot = counts.entry(kind).or_default();
        slot.total += c.total;
        slot.reused += c.reused;
        slot.kept += c.kept;
    }
    let linked_entities = docs.iter().flat_map(|d| d.plan.entities.iter().cloned()).collect();
    let linked_relations = docs.iter().flat_map(|d| d.plan.relations.iter().cloned()).collect();
    Prepared {
        source_label: data.source.path.display().to_string(),
        files: data.file_states(),
        bad_records: data.bad_records(),
        foreign_files: source::foreign_files(&data.source.path),
        stored: vectors::stored_vectors(&data),
        source: data.source,
        docs,
        graph,
        linked_entities,
        linked_relations,
        cache_rest,
        cache_counts: counts,
        llm_configured: engine.has_llm(),
    }
}

impl Prepared {
    /// Documents per kind.
    pub fn kinds(&self) -> BTreeMap<DocKind, usize> {
        let mut out = BTreeMap::new();
        for d in &self.docs {
            *out.entry(d.plan.kind).or_insert(0) += 1;
        }
        out
    }
}
