//! Maintenance: changing or repairing what is indexed.
//!
//! [`delete`] removes documents in one pass (what they shared is rebuilt once from the remaining
//! extraction records); [`graph_edit`] creates, edits, merges and deletes entities and relations
//! by hand; [`resolve`] finds and merges duplicate entities; [`reembed`] rewrites every vector
//! for a new embedding model; [`check`] verifies the store's invariants and repairs what it can.

pub mod check;
pub mod delete;
pub mod graph_edit;
pub mod reembed;
pub mod resolve;
