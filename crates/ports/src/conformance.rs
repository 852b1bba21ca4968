//! The conformance suite every [`Store`] implementation runs, ([`providers`]) the checks every
//! chat, embedding and rerank client runs, and ([`vector_index`]) the suite every
//! [`crate::VectorIndex`] runs.
//!
//! Each backend's tests call [`run_all`] with a factory that makes a fresh, empty store:
//!
//! ```ignore
//! lightrag_ports::conformance::run_all(|| async { Arc::new(open_temp_store()) as Arc<dyn Store> }).await;
//! ```
//!
//! Every `check_*` function takes an empty store, exercises one part of the contract and panics
//! with a message naming what broke. They can also be called one by one.

// This module is test code: failing loudly (`expect`) is its job.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::future::Future;
use std::sync::Arc;

use crate::Store;

mod admission;
mod check;
mod commits;
mod concurrency;
mod documents;
mod fixtures;
mod graph;
mod ledger;
mod provenance;
pub mod providers;
mod reembed;
mod text;
pub mod vector_index;
mod vectors;

pub use admission::*;
pub use check::*;
pub use commits::*;
pub use concurrency::*;
pub use documents::*;
pub use fixtures::{TestRng, chunk, document, entity, extraction, new_document, relation, status_row, vector};
pub use graph::*;
pub use ledger::*;
pub use provenance::*;
pub use reembed::*;
pub use text::*;
pub use vectors::*;

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

/// Runs every check, each on a fresh store made by `make`.
pub async fn run_all<F, Fut>(make: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Arc<dyn Store>>,
{
    check_embedding_identity(&*make().await).await;
    check_enqueue_and_read(&*make().await).await;
    check_enqueue_duplicates(&*make().await).await;
    check_enqueue_replaces_a_changed_file(&*make().await).await;
    check_enqueue_admissions(&*make().await).await;
    check_concurrent_enqueues_of_one_name(&*make().await).await;
    check_previous_versions(&*make().await).await;
    check_list_docs_and_counts(&*make().await).await;
    check_claim(&*make().await).await;
    check_renew_leases(&*make().await).await;
    check_apply_round_trip(&*make().await).await;
    check_versions(&*make().await).await;
    check_conflict_is_atomic(&*make().await).await;
    check_documents_and_cache_in_change_sets(&*make().await).await;
    check_concurrent_read_modify_write(&*make().await).await;
    check_concurrent_claims(&*make().await).await;
    check_doc_owner_expectations(&*make().await).await;
    check_merge_locks(&*make().await).await;
    check_undirected_relations(&*make().await).await;
    check_graph_reads(&*make().await).await;
    check_delete_documents_cascade(&*make().await).await;
    check_delete_entities_and_relations(&*make().await).await;
    check_delete_then_recreate(&*make().await).await;
    check_chunk_lists(&*make().await).await;
    check_delete_document_prunes_chunk_lists(&*make().await).await;
    check_ranked_relations(&*make().await).await;
    check_chunk_text_search(&*make().await).await;
    check_entity_text_search(&*make().await).await;
    check_entity_name_search(&*make().await).await;
    check_vector_search_exact(&*make().await).await;
    check_vector_update_and_delete(&*make().await).await;
    check_wrong_dimension(&*make().await).await;
    check_unusable_vectors(&*make().await).await;
    check_cache(&*make().await).await;
    check_usage(&*make().await).await;
    check_cancel_generation(&*make().await).await;
    check_clear_all(&*make().await).await;
    check_integrity_and_key_listings(&*make().await).await;
    check_delete_chunks_and_vectors(&*make().await).await;
    check_reembed(&*make().await).await;
}
