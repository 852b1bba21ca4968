//! The integration tests of `lightrag-engine`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-engine --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod batch_delete;
mod chunking_props;
mod embed_answers;
mod graph_edit;
mod lightrag_chunks;
mod priorities;
mod provenance_rows;
mod query_filters;
mod vector_reuse;
