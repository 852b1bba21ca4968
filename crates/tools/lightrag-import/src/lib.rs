//! # lightrag-import
//!
//! Brings a Python LightRAG working directory into a lightrag-rs knowledge base, so switching
//! costs no re-indexing and no LLM call: `lightrag import-lightrag DIR` and the server's
//! `POST /admin/import-lightrag` both run [`import`] (or [`check`] for a dry run).
//!
//! It reads what LightRAG's default storages write ([`source`]): the JSON key-value files, the
//! NanoVectorDB vector files and the GraphML graph, in the working directory or one of its
//! workspace sub-folders. It writes through the engine's ports, one atomic change set per
//! document ([`run`]): the text, the status row (status, track id, timestamps, metadata), the
//! chunks with their LightRAG ids, the extraction records of each chunk recovered from LightRAG's
//! extraction cache ([`extraction`], so a later deletion rebuilds shared entities exactly as for
//! documents indexed here), the graph records the document contributed to in their LightRAG state
//! (descriptions, types, weights, keywords, provenance), their vectors — LightRAG's own when the
//! configured embedder reproduces them, made again otherwise ([`vectors`]) — and the LLM cache
//! entries, stored under the keys our own requests for the same work have ([`cache`]).
//!
//! **Why it sits above the engine** (interfaces → lightrag-import → engine → ports): it reads a
//! foreign format, but what it writes depends on the engine — the cache keys of our prompts, our
//! extraction parser, the embedding gateway, the vector texts of the merge rules. It names no
//! adapter: the store, the embedder and the models are the engine's.

pub mod cache;
pub mod convert;
pub mod error;
pub mod extraction;
pub mod load;
pub mod prepare;
pub mod report;
pub mod run;
pub mod source;
pub mod vectors;

pub use error::ImportError;
pub use report::ImportReport;
pub use run::{ImportEvent, ImportOptions, ImportProgress, NoImportProgress, check, import, resolve};
