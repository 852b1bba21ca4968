//! The shared access-store conformance suite against PostgreSQL, each check on tables of its own
//! (a unique prefix), so runs never collide.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use lightrag_ports::access::AccessStore;
use lightrag_store_postgres::{PostgresAccessStore, PostgresStore};

use crate::common;

/// An access store on fresh tables; dropping the guard is not needed (the prefix is unique).
async fn fresh() -> (Arc<dyn AccessStore>, ()) {
    let pool = PostgresStore::connect_pool(&common::options()).await.expect("connect");
    let prefix = common::unique_workspace("acc").replace('-', "_").to_ascii_lowercase() + "_";
    let store = PostgresAccessStore::open_with_prefix(pool, &prefix).await.expect("open the access tables");
    (Arc::new(store) as Arc<dyn AccessStore>, ())
}

lightrag_ports::access_conformance!(postgres_access, || fresh());
