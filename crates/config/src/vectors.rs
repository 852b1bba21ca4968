//! Vector index settings (lightrag-rs's own: LightRAG's nano-vectordb has none of these).

use lightrag_ports::VectorEncoding;

use crate::error::ConfigError;
use crate::parse::Reader;

/// Default `VECTOR_ANN_THRESHOLD`: sets with at least this many vectors use the HNSW graph.
pub const DEFAULT_ANN_THRESHOLD: usize = 50_000;

/// How the store indexes its vector sets in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorIndexSettings {
    /// `VECTOR_ENCODING` (`f32`): `f32`, `f16` or `int8` in memory (the database keeps `f32`).
    pub encoding: VectorEncoding,
    /// `VECTOR_ANN_THRESHOLD` (50000): exact search below, HNSW from this many vectors on
    /// (`0` = always HNSW).
    pub ann_threshold: usize,
    /// `VECTOR_SEARCH_THREADS` (the number of cores): threads of one exact scan or graph insert.
    pub search_threads: usize,
    /// `VECTOR_HNSW_M` (16): links per graph node (new graphs only).
    pub hnsw_m: usize,
    /// `VECTOR_HNSW_EF_CONSTRUCTION` (128): candidate list while inserting (new inserts).
    pub hnsw_ef_construction: usize,
    /// `VECTOR_HNSW_EF_SEARCH` (128): candidate list while searching (raised to `top_k`).
    pub hnsw_ef_search: usize,
}

pub(crate) fn vector_settings(r: Reader<'_>) -> Result<VectorIndexSettings, ConfigError> {
    let encoding = r.choice(
        "VECTOR_ENCODING",
        VectorEncoding::F32,
        &[
            ("f32", VectorEncoding::F32),
            ("float32", VectorEncoding::F32),
            ("f16", VectorEncoding::F16),
            ("float16", VectorEncoding::F16),
            ("int8", VectorEncoding::I8),
            ("i8", VectorEncoding::I8),
        ],
    )?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(VectorIndexSettings {
        encoding,
        ann_threshold: r.non_negative("VECTOR_ANN_THRESHOLD", DEFAULT_ANN_THRESHOLD)?,
        search_threads: r.positive("VECTOR_SEARCH_THREADS", cores)?,
        hnsw_m: r.positive("VECTOR_HNSW_M", 16)?,
        hnsw_ef_construction: r.positive("VECTOR_HNSW_EF_CONSTRUCTION", 128)?,
        hnsw_ef_search: r.positive("VECTOR_HNSW_EF_SEARCH", 128)?,
    })
}
