//! The integration tests of `lightrag-server`, as one test binary: each module was a test file of its own.
//! Run one of them with `cargo test -p lightrag-server --test integration <module>::`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod access;
mod admission;
mod api;
mod auth;
mod common;
mod compat;
mod connections;
mod estimate;
mod filters;
mod import_lightrag;
mod json_bodies;
mod limits;
mod mcp;
mod mcp_limits;
mod metrics;
mod ollama;
mod openapi;
mod provenance;
mod query_trace;
mod quotas;
mod rerank;
mod store_unavailable;
mod typed_extraction;
mod upload_formats;
mod upload_replace;
mod webui;
mod workspaces;
