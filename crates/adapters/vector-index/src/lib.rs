//! # lightrag-vector-index
//!
//! In-process implementations of [`lightrag_ports::VectorIndex`]:
//!
//! * [`ExactIndex`] — every vector in one contiguous matrix (`f32`, `f16` or `int8`), scanned
//!   with `simsimd`'s runtime-dispatched SIMD dot products, split across a thread pool for large
//!   sets. Exact results.
//! * [`HnswIndex`] — an HNSW graph through `usearch` (built without its `numkong` kernels, which
//!   take 7 minutes to compile; its own kernels are auto-vectorised C++). Approximate results,
//!   inserts and deletes in place.
//! * [`TieredIndex`] — what a store uses: exact until a set reaches
//!   [`IndexConfig::ann_threshold`] vectors, HNSW from then on.
//!
//! All three hold integer ids only (the store maps them to keys) and save snapshots that their
//! `load` functions read back with the change-feed [`lightrag_ports::Watermark`] they reflect.

mod encoding;
mod exact;
mod hnsw;
pub mod snapshot;
mod tiered;
mod topk;

pub use encoding::{normalise, normalised};
pub use exact::ExactIndex;
pub use hnsw::{HnswIndex, HnswParams};
pub use tiered::{DEFAULT_ANN_THRESHOLD, IndexConfig, TieredIndex};
