//! The integration tests of `lightrag-store-sqlite`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-store-sqlite --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod access;
mod conformance;
mod crash;
mod hashed_ids;
mod migration;
mod multi_handle;
mod persistence;
mod vector_index;
