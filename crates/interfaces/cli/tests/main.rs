//! The integration tests of `lightrag-cli`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-cli --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod access;
mod backup;
mod batch_delete;
mod bindings;
mod check;
mod common;
mod corpus_nlp;
mod decompose;
mod demo;
mod disk_full;
mod e2e;
mod estimate;
mod eval;
mod filters;
mod front_ends;
mod hash_password;
mod import_lightrag;
mod kill_loop;
mod kill_resume;
mod load;
mod mcp;
mod mcp_files;
mod merge_contention;
mod open_files;
mod postgres;
mod postgres_tls;
mod ppr;
mod query_trace;
mod quotas;
mod reembed;
mod replace;
mod resolve;
mod serve;
mod serve_shutdown;
mod server_kill_loop;
mod typed_extraction;
mod workers;
