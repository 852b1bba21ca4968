//! The integration tests of `lightrag-scripted-llm`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-scripted-llm --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bin;
mod server;
