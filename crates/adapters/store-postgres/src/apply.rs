//! [`ChangeSet`] application: one transaction that locks the graph keys it touches (advisory
//! locks, in one global order), checks the expected versions and owners, then runs the
//! deletions and the upserts — the same steps, in the same order, as the SQLite store.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hasher;
use std::time::Duration;

use lightrag_ports::{ChangeSet, DocStatus, GraphKey, RelKey, StoreError, VectorKind, VectorRecord};
use sqlx::{PgConnection, Row};

use crate::error::{db_err, is_transient};
use crate::graph::{self, canonical};
use crate::lists;
use crate::{PostgresStore, batch, cache, chunks, documents, vectors};
use lightrag_ports::backend::{ListTally, canonical_owner};

/// How many times a commit that the server aborted because of another transaction (deadlock,
/// serialisation failure) is run again before the failure is reported.
const TRANSIENT_RETRIES: usize = 5;

/// One key to lock for the rest of a transaction: a 64-bit hash of the workspace, a kind and a key
/// (SipHash-1-3 with fixed keys, so every process agrees). Two keys with the same hash only
/// serialise a little more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct LockKey(pub(crate) i64);

impl LockKey {
    pub(crate) fn new(ws: &str, kind: &str, key: &str) -> LockKey {
        let mut h = siphasher::sip::SipHasher13::new_with_keys(0x6c72_732d_6c6f_636b, 0);
        for part in [ws, kind, key] {
            h.write(part.as_bytes());
            h.write_u8(0x1f);
        }
        LockKey(h.finish() as i64)
    }

    fn owner(ws: &str, owner: &GraphKey) -> LockKey {
        match canonical_owner(owner) {
            GraphKey::Entity(name) => LockKey::new(ws, "entity", &name),
            GraphKey::Relation(k) => LockKey::new(ws, "relation", &VectorRecord::relation_key(&k)),
        }
    }
}

/// Above this many keys, a transaction locks its whole workspace instead of each key: every
/// advisory lock takes a slot of the server's lock table (`max_locks_per_transaction` × connections).
pub(crate) const MAX_KEY_LOCKS: usize = 256;

/// Takes every lock, sorted and once each, in one round trip, under the workspace's lock: shared
/// when the keys are locked one by one, exclusive (and no key locks) when there are more than
/// [`MAX_KEY_LOCKS`]. The workspace lock comes first in every transaction, so the order stays global.
pub(crate) async fn lock_keys(conn: &mut PgConnection, ws: &str, mut keys: Vec<LockKey>) -> Result<(), StoreError> {
    if keys.is_empty() {
        return Ok(());
    }
    keys.sort();
    keys.dedup();
    let whole = LockKey::new(ws, "workspace", "");
    if keys.len() > MAX_KEY_LOCKS {
        sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(whole.0).execute(&mut *conn).await.map_err(db_err)?;
        return Ok(());
    }
    let ids: Vec<i64> = keys.into_iter().map(|k| k.0).collect();
    // The select list is evaluated left to right: the workspace lock, then the keys in order.
    sqlx::query("SELECT pg_advisory_xact_lock_shared($1), lrs_lock_keys($2)")
        .bind(whole.0)
        .bind(&ids)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    Ok(())
}

/// Applies `changes` atomically; runs it again when the server aborted it for a concurrent
/// transaction. Returns the vector dimension the commit fixed, if it fixed one.
pub(crate) async fn apply(store: &PostgresStore, changes: &ChangeSet) -> Result<Option<usize>, StoreError> {
    lightrag_ports::vector_flaw::check_records(&changes.vectors)?;
    let mut attempt = 0;
    loop {
        match apply_once(store, changes).await {
            Err(e) if is_transient(&e) && attempt < TRANSIENT_RETRIES => {
                attempt += 1;
                tracing::debug!(attempt, "commit aborted by a concurrent transaction, running it again: {e}");
                tokio::time::sleep(Duration::from_millis(5 * attempt as u64)).await;
            }
            other => return other,
        }
    }
}

async fn apply_once(store: &PostgresStore, changes: &ChangeSet) -> Result<Option<usize>, StoreError> {
    let ws: &str = &store.workspace;
    let mut tx = store.begin().await?;
    let conn: &mut PgConnection = &mut tx;

    // The chunks of deleted documents and the lists that hold them, read before locking so that
    // their owners are locked too.
    let mut deleted_chunks = if changes.delete_documents.is_empty() {
        Vec::new()
    } else {
        chunks::chunk_ids_of(conn, ws, &changes.delete_documents).await?
    };
    deleted_chunks.extend(changes.delete_chunks.iter().cloned());
    deleted_chunks.sort();
    deleted_chunks.dedup();
    let pruned_owners = lists::owners_of(conn, ws, &deleted_chunks).await?;
    let keys = lock_set(ws, changes, &pruned_owners);
    if keys.is_empty() && !changes.vectors.is_empty() {
        // no key to lock, but vectors written: the workspace lock, shared, so that a re-embedding's
        // switch (which holds it exclusively) never misses them
        sqlx::query("SELECT pg_advisory_xact_lock_shared($1)")
            .bind(LockKey::new(ws, "workspace", "").0)
            .execute(&mut *conn)
            .await
            .map_err(db_err)?;
    }
    lock_keys(conn, ws, keys).await?;

    // Expectations (read after the locks, so nothing changes them before the commit).
    if !changes.expect_entities.is_empty() {
        let names: Vec<String> = changes.expect_entities.iter().map(|(n, _)| n.clone()).collect();
        let found = graph::entity_versions(conn, ws, &names).await?;
        for (name, expected) in &changes.expect_entities {
            let got = found.get(name).copied();
            if got != *expected {
                return Err(StoreError::Conflict(format!(
                    "entity '{name}' (expected version {}, found {})",
                    show(*expected),
                    show(got)
                )));
            }
        }
    }
    if !changes.expect_relations.is_empty() {
        let keys: Vec<RelKey> = changes.expect_relations.iter().map(|(k, _)| k.clone()).collect();
        let found = graph::relation_versions(conn, ws, &keys).await?;
        for (key, expected) in &changes.expect_relations {
            let key = canonical(key);
            let got = found.get(&key).copied();
            if got != *expected {
                return Err(StoreError::Conflict(format!(
                    "relation '{key}' (expected version {}, found {})",
                    show(*expected),
                    show(got)
                )));
            }
        }
    }
    if !changes.expect_doc_owners.is_empty() {
        let ids: Vec<String> = changes.expect_doc_owners.iter().map(|(d, _)| d.clone()).collect();
        let rows = sqlx::query(
            "SELECT id, status, lease_owner FROM lrs_doc_status WHERE workspace = $1 AND id = ANY($2) \
             ORDER BY id FOR UPDATE",
        )
        .bind(ws)
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
        let mut held: BTreeMap<String, (String, Option<String>)> = BTreeMap::new();
        for r in &rows {
            let id: String = r.try_get(0).map_err(db_err)?;
            held.insert(id, (r.try_get(1).map_err(db_err)?, r.try_get(2).map_err(db_err)?));
        }
        for (doc_id, owner) in &changes.expect_doc_owners {
            let ok = held.get(doc_id).is_some_and(|(status, lease_owner)| {
                status == DocStatus::Processing.as_str() && lease_owner.as_deref() == Some(owner.as_str())
            });
            if !ok {
                return Err(StoreError::Conflict(format!(
                    "document '{doc_id}' (no longer processing under worker '{owner}'; another worker took it over)"
                )));
            }
        }
    }

    let mut tally = ListTally::default();
    let mut degrees: BTreeMap<String, i64> = BTreeMap::new();
    let mut degree = |key: &RelKey, delta: i64| {
        *degrees.entry(key.src.clone()).or_default() += delta;
        if key.tgt != key.src {
            *degrees.entry(key.tgt.clone()).or_default() += delta;
        }
    };

    // Deletions.
    if !deleted_chunks.is_empty() {
        lists::remove_chunks_everywhere(conn, ws, &deleted_chunks, &mut tally).await?;
        vectors::delete(conn, ws, VectorKind::Chunk, &deleted_chunks).await?;
    }
    if !changes.delete_documents.is_empty() {
        chunks::delete_documents(conn, ws, &changes.delete_documents).await?;
    }
    chunks::delete_chunks(conn, ws, &changes.delete_chunks).await?;
    for kind in VectorKind::ALL {
        let keys: Vec<String> = changes
            .delete_vectors
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, key)| match kind {
                VectorKind::Relation => {
                    VectorRecord::parse_relation_key(key).map(|k| VectorRecord::relation_key(&k)).unwrap_or(key.clone())
                }
                _ => key.clone(),
            })
            .collect();
        vectors::delete(conn, ws, kind, &keys).await?;
    }
    for name in &changes.delete_entities {
        graph::delete_entity(conn, ws, name).await?;
        tally.forget(&GraphKey::Entity(name.clone()));
    }
    vectors::delete(conn, ws, VectorKind::Entity, &changes.delete_entities).await?;
    let mut deleted_relation_vectors = Vec::with_capacity(changes.delete_relations.len());
    for key in &changes.delete_relations {
        let key = canonical(key);
        if graph::delete_relation(conn, ws, &key).await? {
            degree(&key, -1);
        }
        tally.forget(&GraphKey::Relation(key.clone()));
        deleted_relation_vectors.push(VectorRecord::relation_key(&key));
    }
    vectors::delete(conn, ws, VectorKind::Relation, &deleted_relation_vectors).await?;

    // Upserts.
    for document in &changes.documents {
        documents::put_document(conn, ws, document).await?;
    }
    for status in &changes.doc_status {
        documents::put_status(conn, ws, status).await?;
    }
    documents::drop_previous_versions(conn, ws, &changes.drop_previous_versions).await?;
    chunks::put_chunks(conn, ws, &changes.chunks).await?;
    chunks::put_extractions(conn, ws, &changes.extractions).await?;
    let created = batch::put_entities(conn, ws, &changes.entities).await?;
    for (e, new) in changes.entities.iter().zip(created) {
        let owner = GraphKey::Entity(e.name.clone());
        if new {
            tally.forget(&owner);
        }
        tally.written(owner);
    }
    let created = batch::put_relations(conn, ws, &changes.relations).await?;
    for (r, new) in changes.relations.iter().zip(created) {
        let key = canonical(&r.key);
        let owner = GraphKey::Relation(key.clone());
        if new {
            tally.forget(&owner);
            degree(&key, 1);
        }
        tally.written(owner);
    }
    lists::edit_all(conn, ws, &changes.chunk_lists, &mut tally).await?;
    lists::finish(tally, conn, ws).await?;
    for links in &changes.doc_links {
        chunks::put_links(conn, ws, links).await?;
    }
    // Rows other commits may share, each kind in key order: degrees, vectors, cache, usage.
    batch::add_degrees(conn, ws, &degrees).await?;
    let fixed_dim = vectors::put(store, conn, &changes.vectors).await?;
    let mut cache: Vec<_> = changes.cache.iter().collect();
    cache.sort_by(|a, b| a.key.cmp(&b.key));
    for entry in cache {
        cache::cache_put(conn, ws, entry).await?;
    }
    if !changes.usage.is_empty() {
        cache::add_usage(conn, ws, &changes.usage).await?;
    }
    tx.commit().await.map_err(db_err)?;
    Ok(fixed_dim)
}

/// Every key the change set reads or writes, plus the owners of the lists a document deletion
/// prunes.
fn lock_set(ws: &str, changes: &ChangeSet, pruned_owners: &[GraphKey]) -> Vec<LockKey> {
    let mut owners: BTreeSet<GraphKey> = BTreeSet::new();
    owners.extend(changes.expect_entities.iter().map(|(n, _)| GraphKey::Entity(n.clone())));
    owners.extend(changes.entities.iter().map(|e| GraphKey::Entity(e.name.clone())));
    owners.extend(changes.delete_entities.iter().map(|n| GraphKey::Entity(n.clone())));
    owners.extend(changes.expect_relations.iter().map(|(k, _)| GraphKey::Relation(canonical(k))));
    owners.extend(changes.relations.iter().map(|r| GraphKey::Relation(canonical(&r.key))));
    owners.extend(changes.delete_relations.iter().map(|k| GraphKey::Relation(canonical(k))));
    owners.extend(changes.chunk_lists.iter().map(|(o, _)| canonical_owner(o)));
    owners.extend(pruned_owners.iter().cloned());
    owners.iter().map(|o| LockKey::owner(ws, o)).collect()
}

fn show(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "absent".to_string())
}

/// Removes every document, chunk, graph record, vector and link of the workspace (keeps the
/// cache, the usage ledger and the embedding identity).
pub(crate) async fn clear_all(store: &PostgresStore) -> Result<(), StoreError> {
    let ws: &str = &store.workspace;
    let mut tx = store.begin().await?;
    // The workspace's lock, exclusive: no commit runs halfway through the clearing.
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(LockKey::new(ws, "workspace", "").0)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    for table in [
        "lrs_documents",
        "lrs_doc_status",
        "lrs_chunks",
        "lrs_extractions",
        "lrs_entities",
        "lrs_relations",
        "lrs_node_degree",
        "lrs_entity_chunks",
        "lrs_relation_chunks",
        "lrs_doc_links",
        "lrs_vectors",
        "lrs_previous_versions",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {table} WHERE workspace = $1")))
            .bind(ws)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
    }
    tx.commit().await.map_err(db_err)?;
    Ok(())
}
