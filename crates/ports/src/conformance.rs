//! The conformance suite every [`Store`] implementation runs, ([`providers`]) the checks every
//! chat, embedding and rerank client runs, and ([`vector_index`]) the suite every
//! [`crate::VectorIndex`] runs.
//!
//! Every `check_*` function exercises one part of a contract and panics with a message naming
//! what broke. A backend's tests generate one `#[test]` per check with a macro, so a failure
//! names its check and one check runs by name
//! (`cargo test -p lightrag-store-sqlite check_enqueue_admissions`):
//!
//! ```ignore
//! // a module `sqlite` with one test per store check, each on a fresh, empty store
//! lightrag_ports::store_conformance!(sqlite, || async {
//!     let dir = tempfile::tempdir().expect("temp dir");
//!     let store = SqliteStore::open(&dir.path().join("lightrag.sqlite")).expect("open");
//!     (Arc::new(store) as Arc<dyn Store>, dir) // the directory lives as long as the check
//! });
//! // a module `exact_f32` with one test per vector-index check
//! lightrag_ports::vector_index_conformance!(exact_f32, Exact(VectorEncoding::F32));
//! ```
//!
//! The checks can also be called one by one.

// This module is test code: failing loudly (`expect`) is its job.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::future::Future;
use std::sync::Arc;

use crate::Store;

pub mod access;
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
mod quota;
mod reembed;
mod text;
pub mod vector_index;
mod vectors;

pub use access::{check_access_audit, check_access_grants, check_access_principals};
pub use admission::*;
pub use check::*;
pub use commits::*;
pub use concurrency::*;
pub use documents::*;
pub use fixtures::{TestRng, chunk, document, entity, extraction, new_document, relation, status_row, vector};
pub use graph::*;
pub use ledger::*;
pub use provenance::*;
pub use quota::*;
pub use reembed::*;
pub use text::*;
pub use vectors::*;

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

/// What a `store_conformance!` factory makes: a fresh, empty store, alone or with what must live
/// as long as it (a temporary directory), dropped after the store.
pub trait FreshStore {
    /// The store under test.
    fn store(&self) -> &dyn Store;
}

impl FreshStore for Arc<dyn Store> {
    fn store(&self) -> &dyn Store {
        &**self
    }
}

impl<G> FreshStore for (Arc<dyn Store>, G) {
    fn store(&self) -> &dyn Store {
        &*self.0
    }
}

/// Runs one async check to its end on a runtime of its own (two worker threads, so the
/// concurrency checks really run at once).
pub fn block_on<F: Future>(check: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime for the conformance check")
        .block_on(check)
}

/// A temporary directory of a check's own (removed when dropped).
pub fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory for the conformance check")
}

/// One `#[test]` per store check, in a module named `$backend`, each on a fresh store made by
/// `$make` (a closure returning a future of a [`FreshStore`]). Every check of the suite is
/// listed here once.
#[macro_export]
macro_rules! store_conformance {
    ($backend:ident, $make:expr $(,)?) => {
        $crate::__store_checks!($backend, $make;
            check_embedding_identity,
            check_enqueue_and_read,
            check_enqueue_duplicates,
            check_enqueue_replaces_a_changed_file,
            check_enqueue_admissions,
            check_concurrent_enqueues_of_one_name,
            check_previous_versions,
            check_enqueue_within_limits,
            check_concurrent_enqueues_within_limits,
            check_list_docs_and_counts,
            check_claim,
            check_renew_leases,
            check_apply_round_trip,
            check_versions,
            check_conflict_is_atomic,
            check_documents_and_cache_in_change_sets,
            check_concurrent_read_modify_write,
            check_concurrent_claims,
            check_doc_owner_expectations,
            check_merge_locks,
            check_undirected_relations,
            check_graph_reads,
            check_delete_documents_cascade,
            check_delete_entities_and_relations,
            check_delete_then_recreate,
            check_chunk_lists,
            check_delete_document_prunes_chunk_lists,
            check_ranked_relations,
            check_chunk_text_search,
            check_chunk_text_search_among_many_matches,
            check_entity_text_search,
            check_entity_name_search,
            check_vector_search_exact,
            check_vector_update_and_delete,
            check_wrong_dimension,
            check_unusable_vectors,
            check_cache,
            check_usage,
            check_usage_today,
            check_cancel_generation,
            check_clear_all,
            check_integrity_and_key_listings,
            check_delete_chunks_and_vectors,
            check_reembed,
        );
    };
}

/// The expansion of [`store_conformance!`]: a module of one test per listed check.
#[doc(hidden)]
#[macro_export]
macro_rules! __store_checks {
    ($backend:ident, $make:expr; $($check:ident),+ $(,)?) => {
        mod $backend {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                fn $check() {
                    $crate::conformance::block_on(async {
                        let make = $make;
                        let fresh = make().await;
                        $crate::conformance::$check($crate::conformance::FreshStore::store(&fresh)).await;
                    });
                }
            )+
        }
    };
}

/// One `#[test]` per access-store check ([`access`]), in a module named `$backend`, each on a
/// fresh store made by `$make` (a closure returning a future of `(Arc<dyn AccessStore>, G)`,
/// `G` living as long as the check).
#[macro_export]
macro_rules! access_conformance {
    ($backend:ident, $make:expr $(,)?) => {
        $crate::__access_checks!($backend, $make;
            check_access_principals,
            check_access_grants,
            check_access_audit,
        );
    };
}

/// The expansion of [`access_conformance!`]: a module of one test per listed check.
#[doc(hidden)]
#[macro_export]
macro_rules! __access_checks {
    ($backend:ident, $make:expr; $($check:ident),+ $(,)?) => {
        mod $backend {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                fn $check() {
                    $crate::conformance::block_on(async {
                        let make = $make;
                        let fresh = make().await;
                        $crate::conformance::$check(&*fresh.0).await;
                    });
                }
            )+
        }
    };
}

/// One `#[test]` per vector-index check, in a module named `$name`, each on the
/// [`vector_index::IndexHarness`] `$harness` (an expression, evaluated once per test); checks
/// that save snapshots get a temporary directory of their own. Every check of the suite is
/// listed here once.
#[macro_export]
macro_rules! vector_index_conformance {
    ($name:ident, $harness:expr $(,)?) => {
        $crate::__vector_index_checks!($name, $harness;
            check_index_recall,
            check_index_threshold_and_filter,
            check_index_updates,
            check_index_get,
            check_index_deletes,
            check_index_unusable_vectors,
            check_index_concurrent_readers;
            check_index_persistence,
            check_index_catch_up,
        );
    };
}

/// The expansion of [`vector_index_conformance!`]: checks on the harness alone, then checks that
/// also take a scratch directory.
#[doc(hidden)]
#[macro_export]
macro_rules! __vector_index_checks {
    ($name:ident, $harness:expr; $($check:ident),+; $($saving:ident),+ $(,)?) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                fn $check() {
                    $crate::conformance::vector_index::$check(&$harness);
                }
            )+
            $(
                #[test]
                fn $saving() {
                    let scratch = $crate::conformance::scratch_dir();
                    $crate::conformance::vector_index::$saving(&$harness, scratch.path());
                }
            )+
        }
    };
}
