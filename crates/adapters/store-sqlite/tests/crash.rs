//! Crash safety: a child process (this test binary, re-run in "writer" mode) applies change sets
//! in a loop and is killed with SIGKILL mid-way, twelve times with varying delays (fewer rounds
//! did not reliably catch a deliberately non-transactional `apply`). After each kill the file
//! must pass `PRAGMA integrity_check` and every document must be either complete or absent.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lightrag_ports::conformance::{chunk, entity, extraction, relation, status_row, vector};
use lightrag_ports::prelude::*;
use lightrag_ports::{
    ChangeSet, DocLinks, DocStatus, RelKey, Usage, UsageCounters, UsageRole, VectorKind, VectorRecord,
};
use lightrag_store_sqlite::SqliteStore;

const CHILD_ENV: &str = "LIGHTRAG_STORE_CRASH_CHILD";
const ROUND_ENV: &str = "LIGHTRAG_STORE_CRASH_ROUND";
const CHUNKS: u32 = 3;

fn doc_change_set(doc_id: &str, entity_name: &str, hub_version: Option<u64>, n: u64) -> ChangeSet {
    let chunks: Vec<_> = (0..CHUNKS).map(|i| chunk(doc_id, i)).collect();
    let mut status = status_row(doc_id, DocStatus::Processed, n as i64);
    status.chunks_count = Some(CHUNKS as usize);
    status.chunks_list = chunks.iter().map(|c| c.id.clone()).collect();
    let mut usage = Usage::new();
    usage.insert(UsageRole::Extract, UsageCounters { calls: 1, cache_hits: 0, tokens_in: 1, tokens_out: 1 });
    let rkey = RelKey::new("Hub", entity_name);
    let mut vectors: Vec<VectorRecord> = chunks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            vector(
                VectorKind::Chunk,
                &c.id,
                (0..16).map(|d| ((n as usize * 7 + i * 3 + d) % 11) as f32 + 0.5).collect(),
            )
        })
        .collect();
    vectors.push(vector(VectorKind::Entity, entity_name, vec![1.0; 16]));
    vectors.push(vector(VectorKind::Relation, &VectorRecord::relation_key(&rkey), vec![0.5; 16]));
    ChangeSet {
        expect_entities: vec![("Hub".to_string(), hub_version), (entity_name.to_string(), None)],
        doc_status: vec![status],
        extractions: chunks.iter().map(|c| extraction(&c.id, doc_id, n as i64)).collect(),
        entities: vec![entity("Hub", &[]), entity(entity_name, &[])],
        relations: vec![relation("Hub", entity_name, &[])],
        vectors,
        doc_links: vec![DocLinks {
            doc_id: doc_id.to_string(),
            entities: vec![entity_name.to_string()],
            relations: vec![rkey],
        }],
        chunks,
        usage,
        ..ChangeSet::default()
    }
}

/// Child mode: writes documents until killed. Not a test of its own: the SIGKILL test below runs
/// it in a child process (`--ignored --exact`) with the store path in the environment.
#[tokio::test]
#[ignore = "child process of sigkill_mid_write_leaves_whole_documents_only"]
async fn crash_child_writer() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let round = std::env::var(ROUND_ENV).unwrap_or_default();
    let store = SqliteStore::open(Path::new(&path)).expect("child opens the store");
    for n in 0u64.. {
        let hub = store.get_entities(&["Hub".to_string()]).await.expect("read hub")[0].as_ref().map(|e| e.version);
        let doc_id = format!("doc-{round}-{n}");
        store.apply(doc_change_set(&doc_id, &format!("E-{round}-{n}"), hub, n)).await.expect("child apply");
        if n % 4 == 3 {
            // Deletions are part of the crash window too.
            let old = format!("doc-{round}-{}", n - 2);
            store
                .apply(ChangeSet {
                    delete_documents: vec![old],
                    delete_entities: vec![format!("E-{round}-{}", n - 2)],
                    delete_relations: vec![RelKey::new("Hub", format!("E-{round}-{}", n - 2))],
                    ..ChangeSet::default()
                })
                .await
                .expect("child delete");
        }
    }
}

fn committed_docs(path: &Path) -> i64 {
    let Ok(conn) = rusqlite::Connection::open(path) else {
        return 0;
    };
    conn.busy_timeout(Duration::from_secs(5)).ok();
    conn.query_row("SELECT count(*) FROM doc_status", [], |r| r.get(0)).unwrap_or(0)
}

async fn verify(path: &Path) -> usize {
    {
        let conn = rusqlite::Connection::open(path).expect("raw open");
        let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("integrity_check");
        assert_eq!(check, "ok", "integrity_check after SIGKILL");
        for (what, sql) in [
            ("orphan chunks", "SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM doc_status)"),
            ("orphan extractions", "SELECT count(*) FROM extractions WHERE doc_id NOT IN (SELECT id FROM doc_status)"),
            ("orphan links", "SELECT count(*) FROM doc_links WHERE doc_id NOT IN (SELECT id FROM doc_status)"),
            (
                "orphan chunk vectors",
                "SELECT count(*) FROM vectors WHERE kind = 'chunk' AND key NOT IN (SELECT id FROM chunks)",
            ),
            (
                "orphan entity vectors",
                "SELECT count(*) FROM vectors WHERE kind = 'entity' AND key NOT IN (SELECT name FROM entities)",
            ),
        ] {
            let n: i64 = conn.query_row(sql, [], |r| r.get(0)).expect("count");
            assert_eq!(n, 0, "{what} after SIGKILL");
        }
    }
    let store = SqliteStore::open(path).expect("reopen after SIGKILL");
    let (docs, total) = store.list_docs(&Default::default()).await.expect("list");
    for doc in &docs {
        let ids: Vec<String> = (0..CHUNKS).map(|i| lightrag_ports::ids::chunk_id(&doc.id, i as usize)).collect();
        assert!(store.get_chunks(&ids).await.expect("chunks").iter().all(Option::is_some), "{}: chunks", doc.id);
        assert!(
            store.get_vectors(VectorKind::Chunk, &ids).await.expect("vectors").iter().all(Option::is_some),
            "{}: chunk vectors",
            doc.id
        );
        assert_eq!(
            store.get_extractions(&ids).await.expect("extractions").len(),
            CHUNKS as usize,
            "{}: extractions",
            doc.id
        );
        let links = store.get_doc_links(&doc.id).await.expect("links").unwrap_or_else(|| panic!("{}: links", doc.id));
        let ents = store.get_entities(&links.entities).await.expect("entities");
        assert!(ents.iter().all(Option::is_some), "{}: entities", doc.id);
        let rels = store.get_relations(&links.relations).await.expect("relations");
        assert!(rels.iter().all(Option::is_some), "{}: relations", doc.id);
        let v = store.get_vectors(VectorKind::Chunk, &ids[..1]).await.expect("vector")[0].clone().expect("vector");
        let hits = store.search_vectors(VectorKind::Chunk, &v, 1, 0.0).await.expect("search");
        assert!((hits[0].score - 1.0).abs() < 1e-4, "{}: searchable after reopen", doc.id);
    }
    // Every committed document apply bumped Hub once and added one extract call, atomically.
    let hub = store.get_entities(&["Hub".to_string()]).await.expect("hub")[0].as_ref().map(|e| e.version).unwrap_or(0);
    let calls = store.usage().await.expect("usage").get(&UsageRole::Extract).map(|c| c.calls).unwrap_or(0);
    assert_eq!(hub, calls, "graph and usage ledger committed together");
    total
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_write_leaves_whole_documents_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("crash.sqlite");
    drop(SqliteStore::open(&path).expect("create"));
    let exe = std::env::current_exe().expect("test binary path");
    let mut last_total = 0;
    for round in 0..12 {
        let before = committed_docs(&path);
        let mut child = Command::new(&exe)
            .args(["crash::crash_child_writer", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, &path)
            .env(ROUND_ENV, round.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn child");
        let start = Instant::now();
        while committed_docs(&path) < before + 15 {
            assert!(start.elapsed() < Duration::from_secs(60), "child made no progress");
            if let Some(status) = child.try_wait().expect("try_wait") {
                panic!("child exited early with {status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(7 * (round + 1)));
        child.kill().expect("SIGKILL child");
        child.wait().expect("reap child");
        let total = verify(&path).await;
        assert!(total > last_total, "round {round}: documents were committed ({total})");
        last_total = total;
    }
}
