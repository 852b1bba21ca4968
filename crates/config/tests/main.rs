//! The integration tests of `lightrag-config`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-config --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bindings;
mod config;
mod schema;
mod wiring;
