//! Concurrency limits with priority classes: one [`PriorityLimiter`] per provider (a chat model
//! endpoint, the embedding model, the rerank service), shared by every role and every engine
//! that uses it ([`ProviderLimits`]).
//!
//! # The rule
//!
//! A limiter has `capacity` slots. A call takes a slot at once when one is free; otherwise it
//! waits in the queue of its [`Priority`] class. When a slot is freed it goes to the first waiter
//! of the most urgent class that has one — [`Priority::Query`] before [`Priority::Merge`] before
//! [`Priority::Extract`] — and within a class, to the one that has waited longest (FIFO). A call
//! that is already running is never interrupted.
//!
//! No class waits forever: each class counts the slots handed to more urgent classes while it
//! had a waiter; after [`MAX_PASSED_OVER`] such slots in a row the next slot goes to it (when
//! several classes reach the bound, the one passed over most, the more urgent on a tie). So under
//! a constant stream of queries, indexing still gets at least one slot in
//! `MAX_PASSED_OVER + 1`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use tokio::sync::oneshot;

/// How urgent a provider call is. Lower classes wait while a more urgent class has waiters (see
/// the module documentation for the bound on that).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Someone waits for the answer: query keywords, answers, query embeddings, reranking,
    /// interactive graph edits.
    Query,
    /// Merging a document into the graph: description summaries and the vectors of merged
    /// entities and relations (merges hold the writer, so later documents wait on them).
    Merge,
    /// Indexing bulk work: chunk extraction (and gleaning), chunk embeddings.
    Extract,
}

impl Priority {
    /// Every class, most urgent first.
    pub const ALL: [Priority; 3] = [Priority::Query, Priority::Merge, Priority::Extract];

    fn index(self) -> usize {
        match self {
            Priority::Query => 0,
            Priority::Merge => 1,
            Priority::Extract => 2,
        }
    }

    /// `query`, `merge` or `extract`.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Query => "query",
            Priority::Merge => "merge",
            Priority::Extract => "extract",
        }
    }
}

/// Slots handed to more urgent classes, in a row, before a waiting class gets the next one.
pub const MAX_PASSED_OVER: u32 = 16;

const CLASSES: usize = Priority::ALL.len();

/// A counting limit whose waiters are served by priority class, FIFO within a class.
pub struct PriorityLimiter {
    state: Mutex<State>,
}

struct State {
    capacity: usize,
    free: usize,
    queues: [VecDeque<oneshot::Sender<()>>; CLASSES],
    /// Per class: slots given to more urgent classes in a row while this class had a waiter.
    passed_over: [u32; CLASSES],
    /// Per class: slots granted so far (statistics).
    granted: [u64; CLASSES],
}

/// A snapshot of a limiter, for status displays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LimiterStatus {
    /// Slots.
    pub capacity: usize,
    /// Slots taken by running calls.
    pub running: usize,
    /// Calls waiting, per class (`query`, `merge`, `extract`).
    pub waiting: HashMap<Priority, usize>,
    /// Slots granted since start, per class.
    pub granted: HashMap<Priority, u64>,
}

impl PriorityLimiter {
    /// A limiter with `capacity` slots (at least one).
    pub fn new(capacity: usize) -> Arc<PriorityLimiter> {
        let capacity = capacity.max(1);
        Arc::new(PriorityLimiter {
            state: Mutex::new(State {
                capacity,
                free: capacity,
                queues: Default::default(),
                passed_over: [0; CLASSES],
                granted: [0; CLASSES],
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Slots.
    pub fn capacity(&self) -> usize {
        self.lock().capacity
    }

    /// Raises the number of slots to `capacity` (never lowers it); new slots go to waiters first.
    pub fn raise_capacity(&self, capacity: usize) {
        let mut state = self.lock();
        while state.capacity < capacity {
            state.capacity += 1;
            state.hand_off();
        }
    }

    /// Waits for a slot in class `priority`. The slot is held until the permit is dropped.
    /// Dropping the future while it waits gives up its place (and a slot granted meanwhile
    /// passes on to the next waiter).
    pub async fn acquire(self: &Arc<Self>, priority: Priority) -> Permit {
        loop {
            let receiver = {
                let mut state = self.lock();
                if state.free > 0 {
                    state.free -= 1;
                    state.granted[priority.index()] += 1;
                    return Permit { limiter: self.clone() };
                }
                let (sender, receiver) = oneshot::channel();
                state.queues[priority.index()].push_back(sender);
                receiver
            };
            let mut waiting = Waiting { receiver, limiter: self.clone(), done: false };
            let granted = (&mut waiting.receiver).await.is_ok();
            waiting.done = true;
            if granted {
                return Permit { limiter: self.clone() };
            }
            // the sender went away without a slot (cannot happen while we hold the limiter):
            // queue again
        }
    }

    /// Capacity, running calls and waiters per class.
    pub fn status(&self) -> LimiterStatus {
        let state = self.lock();
        let mut waiting = HashMap::new();
        let mut granted = HashMap::new();
        for class in Priority::ALL {
            let live = state.queues[class.index()].iter().filter(|s| !s.is_closed()).count();
            waiting.insert(class, live);
            granted.insert(class, state.granted[class.index()]);
        }
        LimiterStatus { capacity: state.capacity, running: state.capacity - state.free, waiting, granted }
    }

    fn release(&self) {
        self.lock().hand_off();
    }
}

impl State {
    /// Gives a freed slot to the next waiter by the rule, or marks it free.
    fn hand_off(&mut self) {
        loop {
            for queue in &mut self.queues {
                while queue.front().is_some_and(|s| s.is_closed()) {
                    queue.pop_front();
                }
            }
            let Some(class) = self.next_class() else {
                self.free += 1;
                return;
            };
            let Some(sender) = self.queues[class].pop_front() else { continue };
            if sender.send(()).is_err() {
                continue;
            }
            self.granted[class] += 1;
            self.passed_over[class] = 0;
            for lower in class + 1..CLASSES {
                if !self.queues[lower].is_empty() {
                    self.passed_over[lower] += 1;
                }
            }
            return;
        }
    }

    /// The class whose first waiter gets the next slot.
    fn next_class(&self) -> Option<usize> {
        let waiting = |c: usize| !self.queues[c].is_empty();
        let starved = (0..CLASSES)
            .filter(|&c| waiting(c) && self.passed_over[c] >= MAX_PASSED_OVER)
            // most passed over; `min_by_key` on the negation keeps the more urgent on a tie
            .min_by_key(|&c| std::cmp::Reverse(self.passed_over[c]));
        starved.or_else(|| (0..CLASSES).find(|&c| waiting(c)))
    }
}

/// A held slot; dropping it frees the slot.
pub struct Permit {
    limiter: Arc<PriorityLimiter>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.limiter.release();
    }
}

impl std::fmt::Debug for Permit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Permit")
    }
}

/// A place in a queue; when dropped before its slot was taken, passes a slot granted meanwhile on.
struct Waiting {
    receiver: oneshot::Receiver<()>,
    limiter: Arc<PriorityLimiter>,
    done: bool,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        self.receiver.close();
        if self.receiver.try_recv().is_ok() {
            self.limiter.release();
        }
    }
}

/// The limiters of the providers, by provider key; shared by the engines built on the same
/// providers (the server's workspaces), so that a limit holds per provider, not per workspace.
#[derive(Default)]
pub struct ProviderLimits {
    limiters: Mutex<HashMap<String, Arc<PriorityLimiter>>>,
}

impl ProviderLimits {
    /// A new, empty set (share it with `Arc`).
    pub fn new() -> Arc<ProviderLimits> {
        Arc::new(ProviderLimits::default())
    }

    /// The limiter of `key`, created with `capacity` slots; an existing one is raised to
    /// `capacity` when it had fewer (the largest limit asked for wins).
    pub fn limiter(&self, key: &str, capacity: usize) -> Arc<PriorityLimiter> {
        let mut map = self.limiters.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(existing) = map.get(key) {
            existing.raise_capacity(capacity);
            return existing.clone();
        }
        let limiter = PriorityLimiter::new(capacity);
        map.insert(key.to_string(), limiter.clone());
        limiter
    }

    /// Every limiter's status, by key, sorted.
    pub fn status(&self) -> Vec<(String, LimiterStatus)> {
        let map = self.limiters.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<(String, LimiterStatus)> = map.iter().map(|(k, l)| (k.clone(), l.status())).collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

#[cfg(test)]
#[path = "limiter_tests.rs"]
mod tests;
