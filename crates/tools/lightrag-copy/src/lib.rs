//! Copies a knowledge base from one store to another — the embedded SQLite file to PostgreSQL when
//! a team outgrows one machine, or back — through the store port alone, so any two backends work.
//!
//! [`copy`] writes **one change set per document**: its text and status row, chunks, extraction
//! records, chunk vectors, document links, the LLM cache entries its extraction came from, and the
//! graph records it contributed to that the target does not hold yet (in their final state, with
//! their vectors and chunk lists). Then the graph records no document links to, then the rest of
//! the LLM cache, then the usage ledger. A copy stopped at any point (Ctrl-C, a kill, a lost
//! connection) leaves every document either whole in the target or absent, and running it again
//! continues where it stopped: documents and graph records already there are skipped.
//!
//! The target must be empty or hold only what an earlier run of the same copy wrote (its
//! documents are all in the source); both must use the same embedding model and dimension.
//! Documents being processed in the source are copied as `pending` (their run did not finish
//! there); run `lightrag process` on the target to index them. A vector holding NaN, infinite
//! values or only zeros is never copied (no search can use it): its record comes over without
//! one, the report counts it (`vectors_missing`), and `lightrag check --repair` on the target
//! embeds it.

mod error;
mod graph;
mod run;

pub use error::CopyError;
pub use run::{CopyEvent, CopyProgress, CopyReport, NoCopyProgress, copy};
