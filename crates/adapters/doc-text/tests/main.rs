//! The integration tests of `lightrag-doc-text`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-doc-text --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod formats;
mod fuzz;
mod hostile;
mod structure;
