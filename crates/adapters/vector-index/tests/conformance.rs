//! The shared vector-index conformance suite against every implementation and encoding.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;

use lightrag_ports::conformance::vector_index::{IndexHarness, run_all};
use lightrag_ports::{VectorEncoding, VectorIndex};
use lightrag_vector_index::{ExactIndex, HnswIndex, HnswParams, IndexConfig, TieredIndex};

struct Exact(VectorEncoding, usize);
impl IndexHarness for Exact {
    fn create(&self, dim: usize) -> Box<dyn VectorIndex> {
        let pool = (self.1 > 1).then(|| IndexConfig::pool_of(self.1).expect("pool"));
        Box::new(ExactIndex::new(dim, self.0, pool))
    }
    fn load(&self, path: &Path, _dim: usize) -> Box<dyn VectorIndex> {
        Box::new(ExactIndex::load(path, None).expect("load exact"))
    }
}

struct Hnsw(VectorEncoding);
impl IndexHarness for Hnsw {
    fn create(&self, dim: usize) -> Box<dyn VectorIndex> {
        let pool = Some(IndexConfig::pool_of(2).expect("pool"));
        Box::new(HnswIndex::new(dim, self.0, HnswParams::default(), pool).expect("new hnsw"))
    }
    fn load(&self, path: &Path, dim: usize) -> Box<dyn VectorIndex> {
        Box::new(HnswIndex::load(path, dim, self.0, HnswParams::default(), None).expect("load hnsw"))
    }
}

/// Tiered with a threshold small enough that every check crosses it.
struct Tiered(VectorEncoding);
impl Tiered {
    fn config(&self) -> IndexConfig {
        IndexConfig { encoding: self.0, ann_threshold: 1200, ..IndexConfig::default() }
    }
}
impl IndexHarness for Tiered {
    fn create(&self, dim: usize) -> Box<dyn VectorIndex> {
        Box::new(TieredIndex::new(dim, self.config()).expect("new tiered"))
    }
    fn load(&self, path: &Path, dim: usize) -> Box<dyn VectorIndex> {
        Box::new(TieredIndex::load(path, dim, self.config()).expect("load tiered"))
    }
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

#[test]
fn exact_f32_passes_the_vector_index_suite() {
    run_all(&Exact(VectorEncoding::F32, 1), scratch().path());
}

#[test]
fn exact_f32_on_two_threads_passes_the_vector_index_suite() {
    run_all(&Exact(VectorEncoding::F32, 2), scratch().path());
}

#[test]
fn exact_f16_passes_the_vector_index_suite() {
    run_all(&Exact(VectorEncoding::F16, 1), scratch().path());
}

#[test]
fn exact_int8_passes_the_vector_index_suite() {
    run_all(&Exact(VectorEncoding::I8, 1), scratch().path());
}

#[test]
fn hnsw_f32_passes_the_vector_index_suite() {
    run_all(&Hnsw(VectorEncoding::F32), scratch().path());
}

#[test]
fn hnsw_f16_passes_the_vector_index_suite() {
    run_all(&Hnsw(VectorEncoding::F16), scratch().path());
}

#[test]
fn hnsw_int8_passes_the_vector_index_suite() {
    run_all(&Hnsw(VectorEncoding::I8), scratch().path());
}

#[test]
fn tiered_passes_the_vector_index_suite() {
    run_all(&Tiered(VectorEncoding::F32), scratch().path());
}

#[test]
fn tiered_int8_passes_the_vector_index_suite() {
    run_all(&Tiered(VectorEncoding::I8), scratch().path());
}
