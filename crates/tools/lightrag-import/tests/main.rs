//! The integration tests of `lightrag-import`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-import --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod delete_parity;
mod import;
mod query_parity;
mod vectors;
