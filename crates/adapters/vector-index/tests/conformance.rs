//! The shared vector-index conformance suite against every implementation and encoding.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;

use lightrag_ports::conformance::vector_index::IndexHarness;
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

// One test per check and implementation (`exact_f32::check_index_recall`, …).
lightrag_ports::vector_index_conformance!(exact_f32, Exact(VectorEncoding::F32, 1));
lightrag_ports::vector_index_conformance!(exact_f32_on_two_threads, Exact(VectorEncoding::F32, 2));
lightrag_ports::vector_index_conformance!(exact_f16, Exact(VectorEncoding::F16, 1));
lightrag_ports::vector_index_conformance!(exact_int8, Exact(VectorEncoding::I8, 1));
lightrag_ports::vector_index_conformance!(hnsw_f32, Hnsw(VectorEncoding::F32));
lightrag_ports::vector_index_conformance!(hnsw_f16, Hnsw(VectorEncoding::F16));
lightrag_ports::vector_index_conformance!(hnsw_int8, Hnsw(VectorEncoding::I8));
lightrag_ports::vector_index_conformance!(tiered, Tiered(VectorEncoding::F32));
lightrag_ports::vector_index_conformance!(tiered_int8, Tiered(VectorEncoding::I8));
