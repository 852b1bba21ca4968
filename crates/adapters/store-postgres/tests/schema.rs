//! Schema creation and migration: idempotent, safe when two processes migrate a new database at
//! once, checkable without changes; a refused connection says what to do.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use lightrag_ports::conformance::entity;
use lightrag_ports::prelude::*;
use lightrag_ports::{ChangeSet, Entity, StoreError};
use lightrag_store_postgres::{PgPool, PostgresOptions, PostgresStore, SCHEMA_VERSION, applied_steps, check, migrate};
use sqlx::postgres::PgPoolOptions;

/// A new, empty database on the test server; dropped by [`drop_database`].
async fn new_database() -> (PgPool, String) {
    let admin = PgPool::connect(&common::database_url()).await.expect("connect");
    let name = common::unique_workspace("lrs_test").replace('-', "_");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).execute(&admin).await.expect("create db");
    (admin, name)
}

async fn pool_on(name: &str) -> PgPool {
    let options = common::options().connect.database(name);
    PgPoolOptions::new().max_connections(2).connect_with(options).await.expect("connect to the new database")
}

async fn drop_database(admin: &PgPool, name: &str) {
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")))
        .execute(admin)
        .await
        .expect("drop db");
}

#[tokio::test]
async fn two_processes_migrating_a_new_database_at_once_both_succeed_once() {
    let (admin, name) = new_database().await;
    let (a, b) = (pool_on(&name).await, pool_on(&name).await);
    let before = check(&a).await.expect("check");
    assert_eq!(before.found, None, "a new database has no schema");
    assert!(!before.is_current());
    let (ra, rb) = tokio::join!(migrate(&a), migrate(&b));
    let (ra, rb) = (ra.expect("first migrate"), rb.expect("second migrate"));
    assert!(ra.is_current() && rb.is_current(), "{ra:?} {rb:?}");
    assert_eq!(ra.found, Some(SCHEMA_VERSION));
    let steps = applied_steps(&a).await.expect("steps");
    assert_eq!(steps.iter().map(|(v, _)| *v).collect::<Vec<_>>(), (1..=SCHEMA_VERSION).collect::<Vec<_>>());
    // Migrating again changes nothing.
    let again = migrate(&b).await.expect("migrate again");
    assert_eq!(again, ra);
    assert_eq!(applied_steps(&b).await.expect("steps"), steps, "no step runs twice");
    a.close().await;
    b.close().await;
    drop_database(&admin, &name).await;
}

#[tokio::test]
async fn without_migrate_an_unmigrated_database_is_refused_with_the_command_to_run() {
    let (admin, name) = new_database().await;
    let mut options = common::options();
    options.connect = options.connect.database(&name);
    options.migrate = false;
    let r = PostgresStore::connect(options.clone(), "w").await;
    match r {
        Err(StoreError::Corrupt(msg)) => assert!(msg.contains("lightrag migrate"), "{msg}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    options.migrate = true;
    let store = PostgresStore::connect(options.clone(), "w").await.expect("migrating connect");
    store.pool().close().await;
    options.migrate = false;
    let store = PostgresStore::connect(options, "w").await.expect("a migrated database opens without migrating");
    store.pool().close().await;
    drop_database(&admin, &name).await;
}

async fn entity_hits(store: &PostgresStore, word: &str) -> Vec<String> {
    store.search_entity_text(&[word.to_string()], 10).await.expect("search").into_iter().map(|h| h.key).collect()
}

/// Version 4 on a database that holds entities already: the generated `tsvector` is computed for
/// the rows written before it, and kept by later writes.
#[tokio::test]
async fn the_entity_text_index_covers_entities_written_before_it() {
    let (admin, name) = new_database().await;
    let mut options = common::options();
    options.connect = options.connect.database(&name);
    let store = PostgresStore::connect(options.clone(), "w").await.expect("connect");
    let entities = vec![
        Entity { description: "A city of Italy.".into(), ..entity("Naples", &[]) },
        Entity { description: "The capital.".into(), ..entity("Rome", &[]) },
    ];
    store.apply(ChangeSet { entities, ..Default::default() }).await.expect("apply");
    store.pool().close().await;
    let pool = pool_on(&name).await;
    sqlx::raw_sql(
        "DROP INDEX lrs_entities_text; ALTER TABLE lrs_entities DROP COLUMN tsv; \
         DROP TABLE lrs_previous_versions; DROP TABLE lrs_usage_daily; \
         DELETE FROM lightrag_schema_version WHERE version >= 4; \
         UPDATE lrs_entities SET description = 'A city below the volcano.' WHERE name = 'Naples';",
    )
    .execute(&pool)
    .await
    .expect("back to version 3");
    assert_eq!(check(&pool).await.expect("check").found, Some(3));
    assert_eq!(migrate(&pool).await.expect("migrate").found, Some(SCHEMA_VERSION));
    pool.close().await;
    let store = PostgresStore::connect(options, "w").await.expect("connect again");
    assert_eq!(entity_hits(&store, "volcano").await, vec!["Naples"], "computed for the rows already there");
    assert!(entity_hits(&store, "italy").await.is_empty());
    assert_eq!(entity_hits(&store, "rome").await, vec!["Rome"]);
    let rewrite = ChangeSet {
        entities: vec![Entity { description: "A harbour.".into(), ..entity("Naples", &[]) }],
        delete_entities: vec!["Rome".into()],
        ..Default::default()
    };
    store.apply(rewrite).await.expect("rewrite");
    assert!(entity_hits(&store, "volcano").await.is_empty());
    assert_eq!(entity_hits(&store, "harbour").await, vec!["Naples"]);
    assert!(entity_hits(&store, "rome").await.is_empty());
    store.pool().close().await;
    drop_database(&admin, &name).await;
}

#[tokio::test]
async fn a_server_that_does_not_answer_gives_an_error_saying_what_to_check() {
    let mut options = PostgresOptions::from_url("postgres://postgres@127.0.0.1:1/postgres").expect("url");
    options.acquire_timeout = Duration::from_secs(3);
    match PostgresStore::connect(options, "w").await {
        // transient: a server that is down may be back (a restart, a fail-over)
        Err(e @ StoreError::Unavailable { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("127.0.0.1:1"), "names the server: {msg}");
            assert!(msg.contains("DATABASE_URL"), "says which setting to fix: {msg}");
            assert!(std::error::Error::source(&e).is_some(), "keeps the driver's error as the cause");
        }
        other => panic!("expected a connection error, got {other:?}"),
    }
}
