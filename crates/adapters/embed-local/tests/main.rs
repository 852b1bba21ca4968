//! The integration tests of `lightrag-embed-local`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-embed-local --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod behaviour;
mod common;
mod reference;
