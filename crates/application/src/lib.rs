//! # lightrag-application
//!
//! The use cases of lightrag-rs, one home each, under every front end: the CLI (`lightrag`), the
//! REST server, MCP over stdio and over HTTP, the Python package (`lightrag_rs`). A front end parses
//! its wire format, calls one use case, and maps the [`AppError`] it may return to its wire
//! (`docs/architecture.md` draws the layers):
//!
//! | use case | module |
//! |---|---|
//! | read a file or its bytes to text (every format, `PDF_DECRYPT_PASSWORD`, `MAX_UPLOAD_SIZE`, off the async threads) | [`read`] |
//! | admit and enqueue documents (duplicate, new version, busy — decided by the store) | [`insert`] |
//! | estimate the cost of an insert | [`estimate`] |
//! | validate a query (one set of limits and messages) and run it | [`query`] |
//! | delete many documents (one report; continues on error) | [`delete`] |
//! | document listings, a track's documents, a document's status | [`documents`] |
//!
//! This crate depends on the engine, the ports' types, the configuration's settings types and
//! `lightrag-doc-text` — never on a wire format (axum, rmcp, clap).

pub mod delete;
pub mod documents;
pub mod error;
pub mod estimate;
pub mod insert;
pub mod query;
pub mod read;

pub use error::{AppError, Problem, Result};
pub use read::{DocumentReader, Origin};
