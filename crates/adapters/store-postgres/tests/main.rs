//! The integration tests of `lightrag-store-postgres`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-store-postgres --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod access;
mod common;
mod conformance;
mod schema;
mod workspaces;
