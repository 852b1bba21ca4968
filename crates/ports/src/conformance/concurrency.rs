//! Checks of concurrent use of one store: optimistic read-modify-write and claims.

use futures::future::join_all;

use super::fixtures::*;
use crate::*;

/// Several writers increment one entity by read-modify-write with version expectations,
/// retrying on conflicts: no increment is lost, and the vector index stays consistent.
pub async fn check_concurrent_read_modify_write(store: &dyn Store) {
    const WORKERS: usize = 4;
    const ROUNDS: usize = 10;
    let worker = |w: usize| async move {
        let mut conflicts = 0usize;
        for round in 0..ROUNDS {
            loop {
                let current = store.get_entities(&names(&["Counter"])).await.expect("read counter").remove(0);
                let version = current.as_ref().map(|e| e.version);
                let count: usize = current
                    .as_ref()
                    .map(|e| e.description.parse().expect("counter description is a number"))
                    .unwrap_or(0);
                let mut next = entity("Counter", &[]);
                next.description = (count + 1).to_string();
                let key = format!("w{w}-r{round}");
                let changes = ChangeSet {
                    expect_entities: vec![(s("Counter"), version)],
                    entities: vec![next],
                    vectors: vec![vector(VectorKind::Chunk, &key, vec![1.0, w as f32, round as f32])],
                    ..Default::default()
                };
                match store.apply(changes).await {
                    Ok(()) => break,
                    Err(StoreError::Conflict(_)) => conflicts += 1,
                    Err(e) => panic!("worker {w}: unexpected error {e}"),
                }
            }
        }
        conflicts
    };
    let conflicts: usize = join_all((0..WORKERS).map(worker)).await.into_iter().sum();
    let counter = store.get_entities(&names(&["Counter"])).await.expect("read")[0].clone().expect("counter exists");
    let total = WORKERS * ROUNDS;
    assert_eq!(counter.description, total.to_string(), "no increment may be lost ({conflicts} conflicts were retried)");
    assert_eq!(counter.version, total as u64, "one version per successful write");
    let counts = store.vector_counts().await.expect("counts");
    assert_eq!(counts.get(&VectorKind::Chunk).copied(), Some(total), "every vector stored once");
    let hits = store.search_vectors(VectorKind::Chunk, &[1.0, 0.0, 0.0], 1000, -1.0).await.expect("search");
    assert_eq!(hits.len(), total, "every committed vector is searchable, none twice");
}

/// Concurrent claims never hand the same document to two workers.
pub async fn check_concurrent_claims(store: &dyn Store) {
    let rows: Vec<DocStatusRecord> =
        (0..40).map(|i| status_row(&format!("doc-{i:02}"), DocStatus::Pending, i)).collect();
    apply_ok(store, ChangeSet { doc_status: rows, ..Default::default() }, "rows").await;
    let worker = |w: usize| async move {
        let mut mine = Vec::new();
        loop {
            let req = ClaimRequest {
                owner: format!("w{w}"),
                lease_until: 1_000_000,
                now: 1_000,
                dead_owners: vec![],
                include_failed: false,
                only_ids: vec![],
                limit: 3,
            };
            let got = store.claim(&req).await.expect("claim");
            if got.is_empty() {
                return mine;
            }
            for r in got {
                assert_eq!(r.lease_owner.as_deref(), Some(format!("w{w}").as_str()));
                mine.push(r.id);
            }
        }
    };
    let results = join_all((0..4).map(worker)).await;
    let mut all: Vec<String> = results.into_iter().flatten().collect();
    let claimed = all.len();
    all.sort();
    all.dedup();
    assert_eq!(claimed, all.len(), "a document was claimed twice");
    assert_eq!(all.len(), 40, "every pending document was claimed");
    let counts = store.status_counts().await.expect("counts");
    assert_eq!(counts.get(&DocStatus::Processing).copied(), Some(40));
}

/// Merge locks: all or none, released and renewed by their owner only, taken over once expired;
/// concurrent takers of overlapping sets never both win.
pub async fn check_merge_locks(store: &dyn Store) {
    let keys = |list: &[&str]| names(list);
    let (now, until) = (1_000, 61_000);
    assert!(store.lock_keys("w1", &keys(&["A", "B"]), now, until).await.expect("lock A B"), "free keys are taken");
    assert!(store.lock_keys("w1", &keys(&["B", "A"]), now, until).await.expect("again"), "an owner may retake its own");
    assert!(
        !store.lock_keys("w2", &keys(&["C", "B"]), now, until).await.expect("lock C B"),
        "a key held by another owner refuses the whole set"
    );
    assert!(
        store.lock_keys("w3", &keys(&["C"]), now, until).await.expect("lock C"),
        "a refused set took nothing (C is still free)"
    );
    store.unlock_keys("w2", &keys(&["A", "C"])).await.expect("unlock by a non-owner");
    assert!(!store.lock_keys("w2", &keys(&["A"]), now, until).await.expect("lock A"), "only the owner releases");
    store.unlock_keys("w1", &keys(&["A"])).await.expect("unlock A");
    assert!(store.lock_keys("w2", &keys(&["A"]), now, until).await.expect("lock A"), "a released key is free");
    // B (w1) and C (w3) expire at `until`; w1 renews, w3 does not
    assert_eq!(
        store.renew_key_locks("w1", &keys(&["A", "B", "C"]), 200_000).await.expect("renew"),
        1,
        "w1 holds B only"
    );
    assert_eq!(store.renew_key_locks("nobody", &keys(&["B"]), 200_000).await.expect("renew"), 0);
    let later = until + 1;
    assert!(
        !store.lock_keys("w4", &keys(&["B"]), later, later + 60_000).await.expect("lock B"),
        "a renewed lock holds past its first expiry"
    );
    assert!(
        store.lock_keys("w4", &keys(&["C", "C"]), later, later + 60_000).await.expect("lock C"),
        "an expired lock is taken over (a key given twice counts once)"
    );
    assert!(store.lock_keys("w4", &[], later, later).await.expect("nothing"), "an empty set is always taken");

    // racing takers of overlapping sets: exactly one wins each round
    for round in 0..10 {
        let set = keys(&[&format!("r{round}-x"), &format!("r{round}-shared")]);
        let other = keys(&[&format!("r{round}-shared"), &format!("r{round}-y")]);
        let (a, b) = futures::join!(
            store.lock_keys("racer-a", &set, now, until),
            store.lock_keys("racer-b", &other, now, until)
        );
        let (a, b) = (a.expect("racer a"), b.expect("racer b"));
        assert!(a ^ b, "round {round}: exactly one of two overlapping sets is granted (a {a}, b {b})");
    }

    // the locks of processes known to be gone are released at once, and only theirs
    assert!(store.lock_keys("gone-1", &keys(&["G1", "G2"]), now, until).await.expect("gone-1"));
    assert!(store.lock_keys("gone-2", &keys(&["G3"]), now, until).await.expect("gone-2"));
    assert!(store.lock_keys("alive", &keys(&["G4"]), now, until).await.expect("alive"));
    let released = store.release_locks_of(&keys(&["gone-1", "gone-2"])).await.expect("release");
    assert_eq!(released, 3, "every lock of the two owners");
    assert!(store.lock_keys("w5", &keys(&["G1", "G2", "G3"]), now, until).await.expect("take"), "free now");
    assert!(!store.lock_keys("w5", &keys(&["G4"]), now, until).await.expect("G4"), "another owner's lock stays");
    assert_eq!(store.release_locks_of(&[]).await.expect("none"), 0);
}
