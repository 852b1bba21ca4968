//! The suite every [`VectorIndex`] implementation runs: recall against brute force (exact
//! indexes must match it, approximate ones must reach their promised recall), score threshold and
//! filter, updates, reading vectors back, deletes, unusable (NaN, infinite, zero) vectors never held
//! or ranked, persistence across reopen, catch-up from a [`VectorFeed`] after
//! another handle's commit (incremental, and a rebuild when the feed cannot list the changes), and
//! readers searching while a commit is written.
//!
//! ```ignore
//! struct Mine;
//! impl IndexHarness for Mine { /* create / load */ }
//! // a module `mine` with one `#[test]` per check
//! lightrag_ports::vector_index_conformance!(mine, Mine);
//! ```

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::fixtures::{TestRng, dot, unit};
use crate::vector_index::*;

/// Makes and reopens the indexes under test.
pub trait IndexHarness: Sync {
    /// A fresh, empty index of dimension `dim`.
    fn create(&self, dim: usize) -> Box<dyn VectorIndex>;
    /// Reads back a snapshot that an index made by [`IndexHarness::create`] saved at `path`.
    fn load(&self, path: &Path, dim: usize) -> Box<dyn VectorIndex>;
}

const DIM: usize = 32;

/// Clustered data: `n` vectors around `clusters` random centres (like real embeddings, unlike
/// uniform noise, on which no approximate index keeps its recall).
pub fn clustered(rng: &mut TestRng, n: usize, clusters: usize, dim: usize) -> Vec<Vec<f32>> {
    let centres: Vec<Vec<f32>> = (0..clusters).map(|_| rng.vector(dim)).collect();
    (0..n)
        .map(|_| {
            let c = &centres[(rng.next_u64() % clusters as u64) as usize];
            c.iter().map(|x| x + 0.35 * rng.next_f32()).collect()
        })
        .collect()
}

fn upsert_all(index: &dyn VectorIndex, items: &[(VectorId, Vec<f32>)]) {
    for part in items.chunks(500) {
        let batch: Vec<(VectorId, &[f32])> = part.iter().map(|(id, v)| (*id, v.as_slice())).collect();
        index.upsert(&batch).expect("upsert");
    }
}

/// The true top-k over `truth` (id → vector), best first.
fn brute_force(truth: &BTreeMap<VectorId, Vec<f32>>, query: &[f32], k: usize) -> Vec<(VectorId, f32)> {
    let q = unit(query);
    let mut all: Vec<(VectorId, f32)> = truth.iter().map(|(id, v)| (*id, dot(&unit(v), &q))).collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(k);
    all
}

/// Mean recall@k of `index` over `queries` against brute force on `truth`; also checks that every
/// reported score is the true cosine within the index's error, hits come best first, and an exact
/// index returns exactly the brute-force ids.
fn recall(index: &dyn VectorIndex, truth: &BTreeMap<VectorId, Vec<f32>>, queries: &[Vec<f32>], k: usize) -> f64 {
    let mut found = 0usize;
    let mut wanted = 0usize;
    let err = index.score_error();
    for (qi, q) in queries.iter().enumerate() {
        let want = brute_force(truth, q, k);
        let hits = index.search(q, &SearchParams::top(k)).expect("search");
        assert!(hits.len() <= k, "query {qi}: more than top_k hits");
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "query {qi}: hits not best first");
        let qn = unit(q);
        for h in &hits {
            let v = truth.get(&h.id).unwrap_or_else(|| panic!("query {qi}: hit {} is not a live id", h.id));
            let cos = dot(&unit(v), &qn);
            assert!((h.score - cos).abs() <= err, "query {qi}: id {} scored {} but its cosine is {cos}", h.id, h.score);
        }
        let got: HashSet<VectorId> = hits.iter().map(|h| h.id).collect();
        if index.is_exact() {
            assert_eq!(hits.len(), want.len().min(k), "query {qi}: exact index hit count");
            // Ties within the encoding's error may swap; compare by score rank.
            for (h, (_, s)) in hits.iter().zip(&want) {
                assert!((h.score - s).abs() <= 2.0 * err, "query {qi}: exact index order differs from brute force");
            }
        }
        // Near-ties at the k-th place (within the encoding error) count as found.
        let kth = want.last().map_or(f32::NEG_INFINITY, |w| w.1);
        found += want.iter().filter(|(id, s)| got.contains(id) || (kth - s).abs() <= err).count();
        wanted += want.len();
    }
    if wanted == 0 { 1.0 } else { found as f64 / wanted as f64 }
}

fn dataset(seed: u64, n: usize, first_id: VectorId) -> Vec<(VectorId, Vec<f32>)> {
    let mut rng = TestRng::new(seed);
    clustered(&mut rng, n, 40, DIM).into_iter().enumerate().map(|(i, v)| (first_id + i as VectorId, v)).collect()
}

fn queries(seed: u64, n: usize) -> Vec<Vec<f32>> {
    let mut rng = TestRng::new(seed);
    clustered(&mut rng, n, 40, DIM)
}

/// Recall@10 against brute force reaches the index's promise; exact indexes match brute force.
pub fn check_index_recall(harness: &dyn IndexHarness) {
    let index = harness.create(DIM);
    assert_eq!(index.dim(), DIM);
    assert!(index.is_empty(), "a new index is empty");
    let items = dataset(7, 3000, 1);
    upsert_all(index.as_ref(), &items);
    assert_eq!(index.len(), 3000, "every upserted vector is held");
    let truth: BTreeMap<VectorId, Vec<f32>> = items.into_iter().collect();
    let r = recall(index.as_ref(), &truth, &queries(7, 40), 10);
    assert!(r >= index.min_recall(), "recall@10 {r:.3} is below the promised {}", index.min_recall());
    // A stored vector finds itself, with similarity 1, whatever its length.
    let (id, v) = truth.iter().nth(123).expect("item");
    let scaled: Vec<f32> = v.iter().map(|x| x * 0.01).collect();
    let hits = index.search(&scaled, &SearchParams::top(1)).expect("search");
    assert_eq!(hits.first().map(|h| h.id), Some(*id), "a stored vector is its own nearest neighbour");
    assert!((hits[0].score - 1.0).abs() <= index.score_error(), "self-similarity is 1, got {}", hits[0].score);
}

/// `min_score` drops weaker hits, the filter drops ids, `top_k` 0 finds nothing, and vectors or
/// queries of another dimension are refused.
pub fn check_index_threshold_and_filter(harness: &dyn IndexHarness) {
    let index = harness.create(DIM);
    let items = dataset(11, 1500, 100);
    upsert_all(index.as_ref(), &items);
    let q = &queries(11, 1)[0];
    let all = index.search(q, &SearchParams::top(50)).expect("search");
    assert!(all.len() >= 10, "search of a 1500-vector index found {} of 50", all.len());
    let cut = all[all.len() / 2].score;
    let above = index.search(q, &SearchParams { top_k: 50, min_score: cut, filter: None }).expect("search");
    assert!(!above.is_empty() && above.iter().all(|h| h.score >= cut), "min_score {cut} not respected: {above:?}");
    assert!(
        index.search(q, &SearchParams { top_k: 10, min_score: 1.5, filter: None }).expect("search").is_empty(),
        "nothing scores above 1"
    );
    let even = |id: VectorId| id.is_multiple_of(2);
    let filtered = index.search(q, &SearchParams { top_k: 10, min_score: f32::NEG_INFINITY, filter: Some(&even) });
    let filtered = filtered.expect("filtered search");
    assert!(filtered.len() >= 5, "a filter keeping half the ids still finds hits ({})", filtered.len());
    assert!(filtered.iter().all(|h| h.id.is_multiple_of(2)), "the filter is respected: {filtered:?}");
    assert!(index.search(q, &SearchParams::top(0)).expect("search").is_empty(), "top_k 0");
    assert!(
        matches!(index.search(&[1.0; 3], &SearchParams::top(5)), Err(VectorIndexError::WrongDimension { .. })),
        "a query of another dimension is refused"
    );
    let short = [1.0f32; 5];
    assert!(
        matches!(index.upsert(&[(1, &short[..])]), Err(VectorIndexError::WrongDimension { expected: DIM, got: 5 })),
        "a vector of another dimension is refused"
    );
}

/// Upserting an id replaces its vector (and does not add one); a batch repeating an id keeps the
/// last value.
pub fn check_index_updates(harness: &dyn IndexHarness) {
    let index = harness.create(DIM);
    let items = dataset(13, 1000, 1);
    upsert_all(index.as_ref(), &items);
    let mut rng = TestRng::new(99);
    let (old, new, other) = (items[10].1.clone(), rng.vector(DIM), rng.vector(DIM));
    index.upsert(&[(11, &other[..]), (11, &new[..])]).expect("update");
    assert_eq!(index.len(), 1000, "an update does not add a vector");
    let hits = index.search(&new, &SearchParams::top(1)).expect("search");
    assert_eq!(hits.first().map(|h| h.id), Some(11), "the new vector is found under the same id");
    assert!((hits[0].score - 1.0).abs() <= index.score_error(), "the last value of a repeated id wins");
    let hits = index.search(&old, &SearchParams::top(20)).expect("search");
    assert!(hits.iter().all(|h| h.id != 11 || h.score < 0.99), "the old vector of id 11 is gone: {hits:?}");
    assert!(index.contains(11) && !index.contains(5000), "contains");
}

/// `get` returns the held vectors normalised (exactly for `f32`, within the score error for
/// `f16`/`int8`), `None` for unknown and deleted ids, the new value after an update.
pub fn check_index_get(harness: &dyn IndexHarness) {
    let index = harness.create(DIM);
    let items = dataset(23, 300, 1);
    upsert_all(index.as_ref(), &items);
    let tolerance = index.score_error().max(1e-6);
    let close = |got: &[f32], want: &[f32]| -> bool {
        let want = unit(want);
        got.len() == want.len() && (dot(got, &want) - 1.0).abs() <= tolerance && (dot(got, got) - 1.0).abs() <= 1e-3
    };
    let asked: Vec<VectorId> = vec![5, 999_999, 1, 300];
    let got = index.get(&asked).expect("get");
    assert_eq!(got.len(), asked.len(), "one answer per id, in order");
    assert!(got[1].is_none(), "an unknown id has no vector");
    for (slot, id) in [(0, 5usize), (2, 1), (3, 300)] {
        let v = got[slot].as_ref().unwrap_or_else(|| panic!("id {id} is held"));
        assert!(close(v, &items[id - 1].1), "id {id}: the vector read back is the one upserted");
    }
    if index.encoding() == VectorEncoding::F32 && index.is_exact() {
        let v = got[0].as_ref().expect("held");
        let want = unit(&items[4].1);
        let worst = v.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(worst <= 1e-6, "f32 vectors come back as stored (largest difference {worst})");
    }
    let mut rng = TestRng::new(5);
    let replacement = rng.vector(DIM);
    index.upsert(&[(5, &replacement[..])]).expect("update");
    index.delete(&[1]).expect("delete");
    let got = index.get(&[5, 1]).expect("get");
    assert!(close(got[0].as_ref().expect("held"), &replacement), "an update is read back");
    assert!(got[1].is_none(), "a deleted id has no vector");
    assert!(index.get(&[]).expect("get").is_empty());

    // similarities: the cosine to an unnormalised query within the index's error, in order
    let query: Vec<f32> = rng.vector(DIM).iter().map(|x| x * 5.0).collect();
    let qn = unit(&query);
    let asked: Vec<VectorId> = vec![5, 1, 2, 999_999, 2];
    let got = index.similarities(&asked, &query).expect("similarities");
    assert_eq!(got.len(), asked.len(), "one answer per id, in order");
    assert!(got[1].is_none() && got[3].is_none(), "deleted and unknown ids have no similarity");
    for (slot, want) in
        [(0, dot(&unit(&replacement), &qn)), (2, dot(&unit(&items[1].1), &qn)), (4, dot(&unit(&items[1].1), &qn))]
    {
        let sim = got[slot].unwrap_or_else(|| panic!("id {} is held", asked[slot]));
        assert!((sim - want).abs() <= tolerance + 1e-5, "id {}: similarity {sim}, cosine {want}", asked[slot]);
    }
    assert!(index.similarities(&[], &query).expect("empty").is_empty());
}

/// Deleted ids never come back from search; deleting unknown ids is a no-op; a deleted id can be
/// inserted again.
pub fn check_index_deletes(harness: &dyn IndexHarness) {
    let index = harness.create(DIM);
    let items = dataset(17, 2000, 1);
    upsert_all(index.as_ref(), &items);
    let gone: Vec<VectorId> = items.iter().map(|(id, _)| *id).filter(|id| id.is_multiple_of(3)).collect();
    assert_eq!(index.delete(&gone).expect("delete"), gone.len(), "delete reports what it removed");
    assert_eq!(index.delete(&[1_000_000, 3]).expect("delete"), 0, "unknown and already deleted ids are ignored");
    assert_eq!(index.len(), 2000 - gone.len());
    let truth: BTreeMap<VectorId, Vec<f32>> = items.iter().filter(|(id, _)| !id.is_multiple_of(3)).cloned().collect();
    for (qi, q) in queries(17, 30).iter().enumerate() {
        let hits = index.search(q, &SearchParams::top(20)).expect("search");
        assert!(hits.iter().all(|h| !h.id.is_multiple_of(3)), "query {qi}: a deleted id came back: {hits:?}");
    }
    let r = recall(index.as_ref(), &truth, &queries(18, 30), 10);
    assert!(r >= index.min_recall(), "recall@10 after deletes {r:.3} < {}", index.min_recall());
    let (id, v) = &items[2];
    index.upsert(&[(*id, v.as_slice())]).expect("re-insert");
    assert_eq!(index.search(v, &SearchParams::top(1)).expect("search").first().map(|h| h.id), Some(*id));
    index.clear().expect("clear");
    assert!(index.is_empty() && index.search(v, &SearchParams::top(5)).expect("search").is_empty(), "clear");
}

/// A NaN, infinite or zero vector is never held and never ranked (a NaN score would sort first):
/// upserting one takes its id out; an unusable query finds and scores nothing.
pub fn check_index_unusable_vectors(harness: &dyn IndexHarness) {
    let index = harness.create(DIM);
    let items = dataset(29, 200, 1);
    upsert_all(index.as_ref(), &items);
    let mut nan = items[0].1.clone();
    nan[3] = f32::NAN;
    let mut inf = items[1].1.clone();
    inf[0] = f32::INFINITY;
    let all_nan = vec![f32::NAN; DIM];
    let zero = vec![0f32; DIM];
    let fresh_nan = {
        let mut v = items[2].1.clone();
        v[DIM - 1] = f32::NEG_INFINITY;
        v
    };
    // ids 1 and 2 held before, 1000-1003 new
    index
        .upsert(&[(1, &nan[..]), (2, &inf[..]), (1000, &all_nan[..]), (1001, &zero[..]), (1002, &fresh_nan[..])])
        .expect("an unusable vector is not an error");
    let bad: [VectorId; 5] = [1, 2, 1000, 1001, 1002];
    for id in bad {
        assert!(!index.contains(id), "id {id}: an unusable vector is not held");
    }
    assert_eq!(index.len(), 198, "the two ids held before were taken out, none was added");
    assert!(index.get(&bad).expect("get").iter().all(Option::is_none), "no unusable vector is read back");
    for (qi, q) in queries(29, 20).iter().enumerate() {
        let hits = index.search(q, &SearchParams::top(50)).expect("search");
        let enough = if index.is_exact() { hits.len() == 50 } else { hits.len() >= 25 };
        assert!(enough, "query {qi}: the usable vectors still rank ({} hits)", hits.len());
        assert!(hits.iter().all(|h| h.score.is_finite() && !bad.contains(&h.id)), "query {qi}: {hits:?}");
        let sims = index.similarities(&[1, 3, 1000], q).expect("similarities");
        assert!(sims[0].is_none() && sims[2].is_none() && sims[1].is_some_and(f32::is_finite), "{sims:?}");
    }
    for query in [&all_nan, &zero, &nan] {
        assert!(index.search(query, &SearchParams::top(10)).expect("search").is_empty(), "an unusable query");
        assert!(index.similarities(&[3, 4], query).expect("similarities").iter().all(Option::is_none));
    }
    // a usable vector brings an id back
    index.upsert(&[(1, items[0].1.as_slice())]).expect("upsert");
    assert_eq!(index.search(&items[0].1, &SearchParams::top(1)).expect("search").first().map(|h| h.id), Some(1));
}

/// A saved snapshot reopens with the same vectors, results and watermark, and accepts changes.
pub fn check_index_persistence(harness: &dyn IndexHarness, dir: &Path) {
    let path = dir.join("set.vidx");
    let index = harness.create(DIM);
    let items = dataset(19, 2500, 1);
    upsert_all(index.as_ref(), &items);
    index.delete(&[5, 6, 7]).expect("delete");
    let mark = Watermark { epoch: 77, seq: 1234 };
    index.set_watermark(mark);
    index.save(&path).expect("save");
    // Saving again over an existing snapshot replaces it.
    index.save(&path).expect("save again");
    let qs = queries(19, 20);
    let before: Vec<Vec<IndexHit>> =
        qs.iter().map(|q| index.search(q, &SearchParams::top(10)).expect("search")).collect();
    drop(index);
    let reopened = harness.load(&path, DIM);
    assert_eq!(reopened.watermark(), mark, "the watermark survives a reopen");
    assert_eq!(reopened.len(), 2497, "the vector count survives a reopen");
    assert!(!reopened.contains(6) && reopened.contains(8), "deletions survive a reopen");
    for (q, want) in qs.iter().zip(&before) {
        let got = reopened.search(q, &SearchParams::top(10)).expect("search");
        let got_ids: HashSet<VectorId> = got.iter().map(|h| h.id).collect();
        let same = want.iter().filter(|h| got_ids.contains(&h.id)).count();
        assert!(same as f64 >= 0.9 * want.len() as f64, "results after reopen differ: {got:?} vs {want:?}");
    }
    let extra = dataset(20, 300, 10_000);
    upsert_all(reopened.as_ref(), &extra);
    assert_eq!(reopened.len(), 2797, "a reopened index takes new vectors");
    let hits = reopened.search(&extra[5].1, &SearchParams::top(1)).expect("search");
    assert_eq!(hits.first().map(|h| h.id), Some(10_005));
}

/// A change feed held in memory: current vectors plus a log of (seq, id, deleted).
#[derive(Debug, Default)]
pub struct MemoryFeed {
    epoch: u64,
    seq: u64,
    live: BTreeMap<VectorId, (u64, Vec<f32>)>,
    tombstones: BTreeMap<VectorId, u64>,
    floor: u64,
}

impl MemoryFeed {
    /// An empty feed in `epoch`.
    pub fn new(epoch: u64) -> MemoryFeed {
        MemoryFeed { epoch, ..MemoryFeed::default() }
    }
    /// One commit: deletions then upserts, under the next sequence number.
    pub fn commit(&mut self, upserts: &[(VectorId, Vec<f32>)], deletes: &[VectorId]) {
        self.seq += 1;
        for id in deletes {
            if self.live.remove(id).is_some() {
                self.tombstones.insert(*id, self.seq);
            }
        }
        for (id, v) in upserts {
            self.live.insert(*id, (self.seq, v.clone()));
        }
    }
    /// Forgets deletions up to the current head (older watermarks must rebuild).
    pub fn forget_history(&mut self) {
        self.tombstones.clear();
        self.floor = self.seq;
    }
    /// Replaces everything (a new epoch).
    pub fn reset(&mut self, epoch: u64) {
        *self = MemoryFeed::new(epoch);
    }
    /// The current vectors.
    pub fn truth(&self) -> BTreeMap<VectorId, Vec<f32>> {
        self.live.iter().map(|(id, (_, v))| (*id, v.clone())).collect()
    }
}

impl VectorFeed for MemoryFeed {
    fn head(&self) -> Result<Watermark, VectorIndexError> {
        Ok(Watermark { epoch: self.epoch, seq: self.seq })
    }

    fn changes_since(
        &self,
        since: Watermark,
        on_delete: &mut dyn FnMut(VectorId),
        on_upsert: &mut dyn FnMut(VectorId, &[f32]),
    ) -> Result<FeedDelta, VectorIndexError> {
        if since.epoch != self.epoch || since.seq < self.floor {
            return Ok(FeedDelta::Rebuild);
        }
        for (id, seq) in &self.tombstones {
            if *seq > since.seq {
                on_delete(*id);
            }
        }
        for (id, (seq, v)) in &self.live {
            if *seq > since.seq {
                on_upsert(*id, v);
            }
        }
        Ok(FeedDelta::Changes)
    }

    fn scan(&self, visit: &mut dyn FnMut(VectorId, &[f32])) -> Result<(), VectorIndexError> {
        for (id, (_, v)) in &self.live {
            visit(*id, v);
        }
        Ok(())
    }
}

/// Two handles on one feed: after one commits, the other applies only what changed (also after a
/// reopen from a snapshot), deletes and re-inserts included; when the feed no longer lists the
/// changes, or its epoch changed, the handle rebuilds.
pub fn check_index_catch_up(harness: &dyn IndexHarness, dir: &Path) {
    let mut feed = MemoryFeed::new(1);
    feed.commit(&dataset(23, 2000, 1), &[]);
    let a = harness.create(DIM);
    let b = harness.create(DIM);
    let first = catch_up(a.as_ref(), &feed).expect("catch up a");
    assert!(first.rebuilt && first.upserted == 2000, "a new index builds from the feed: {first:?}");
    catch_up(b.as_ref(), &feed).expect("catch up b");
    assert_eq!(catch_up(b.as_ref(), &feed).expect("again"), CatchUpReport::default(), "nothing new, nothing done");
    let path = dir.join("b.vidx");
    b.save(&path).expect("save b");

    // "Handle a" commits: new vectors, a changed vector, deletions, and a delete + re-insert.
    let mut rng = TestRng::new(5);
    let moved = rng.vector(DIM);
    let mut upserts = dataset(24, 200, 50_000);
    upserts.push((7, moved.clone()));
    let deletes: Vec<VectorId> = (100..150).collect();
    feed.commit(&upserts, &deletes);
    feed.commit(&[(120, rng.vector(DIM))], &[]);
    let report = catch_up(a.as_ref(), &feed).expect("catch up a");
    assert!(!report.rebuilt && report.upserted == 202 && report.deleted == 50, "only the changes: {report:?}");

    // The other handle catches up the same way, from memory and from its snapshot.
    let reopened = harness.load(&path, DIM);
    for (name, index) in [("live handle", b.as_ref()), ("reopened handle", reopened.as_ref())] {
        let report = catch_up(index, &feed).expect("catch up");
        assert!(!report.rebuilt && report.upserted == 202, "{name}: incremental catch-up: {report:?}");
        assert_eq!(index.watermark(), feed.head().expect("head"), "{name}: watermark at the head");
        assert_eq!(index.len(), feed.truth().len(), "{name}: vector count");
        assert!(index.contains(120) && !index.contains(121), "{name}: re-inserted and deleted ids");
        let hits = index.search(&moved, &SearchParams::top(1)).expect("search");
        assert_eq!(hits.first().map(|h| h.id), Some(7), "{name}: the changed vector");
        let r = recall(index, &feed.truth(), &queries(25, 20), 10);
        assert!(r >= index.min_recall(), "{name}: recall@10 after catch-up {r:.3}");
    }

    // The feed forgets old deletions: a stale handle must rebuild instead of guessing.
    let stale = harness.load(&path, DIM);
    feed.commit(&[], &[1, 2, 3]);
    feed.forget_history();
    let report = catch_up(stale.as_ref(), &feed).expect("catch up stale");
    assert!(report.rebuilt, "a watermark older than the feed's history rebuilds: {report:?}");
    assert!(!stale.contains(2) && stale.len() == feed.truth().len(), "the rebuild reflects the feed");
    // A new epoch (the data was replaced) rebuilds too.
    feed.reset(2);
    feed.commit(&dataset(26, 50, 1), &[]);
    let report = catch_up(a.as_ref(), &feed).expect("catch up a");
    assert!(report.rebuilt && a.len() == 50, "a new epoch rebuilds: {report:?}");
}

/// Searches running while a commit is written never fail, never return a torn or unknown id, and
/// see the commit once it returns.
pub fn check_index_concurrent_readers(harness: &dyn IndexHarness) {
    let index: Arc<dyn VectorIndex> = Arc::from(harness.create(DIM));
    let base = dataset(29, 2000, 1);
    upsert_all(index.as_ref(), &base);
    let extra = dataset(30, 2000, 10_001);
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..3)
        .map(|r| {
            let (index, done) = (Arc::clone(&index), Arc::clone(&done));
            let qs = queries(31 + r, 16);
            std::thread::spawn(move || {
                let mut searches = 0usize;
                while !done.load(Ordering::Relaxed) || searches < 16 {
                    let q = &qs[searches % qs.len()];
                    let hits = index.search(q, &SearchParams::top(10)).expect("search during a commit");
                    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "best first during a commit");
                    for h in &hits {
                        let known = (1..=2000).contains(&h.id) || (10_001..=12_000).contains(&h.id);
                        assert!(known, "unknown id {} during a commit", h.id);
                        assert!(h.score <= 1.0 + 1e-3 && h.score.is_finite(), "torn score {}", h.score);
                    }
                    searches += 1;
                }
                searches
            })
        })
        .collect();
    for part in extra.chunks(250) {
        let batch: Vec<(VectorId, &[f32])> = part.iter().map(|(id, v)| (*id, v.as_slice())).collect();
        index.upsert(&batch).expect("upsert during searches");
        let updates: Vec<(VectorId, Vec<f32>)> = base.iter().take(50).cloned().collect();
        upsert_all(index.as_ref(), &updates);
        index.delete(&[part[0].0]).expect("delete during searches");
    }
    done.store(true, Ordering::Relaxed);
    for r in readers {
        let searches = r.join().expect("a reader panicked");
        assert!(searches >= 16, "every reader ran");
    }
    assert_eq!(index.len(), 4000 - 8, "every commit landed");
    let hits = index.search(&extra[1].1, &SearchParams::top(1)).expect("search");
    assert_eq!(hits.first().map(|h| h.id), Some(10_002), "a commit is visible once it returned");
}
