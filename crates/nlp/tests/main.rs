//! The integration tests of `lightrag-nlp`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-nlp --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod properties;
mod rules;
mod sample_message;
