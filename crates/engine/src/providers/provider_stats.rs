//! Live counters of one engine's provider calls, for `/metrics`: the calls in flight per role
//! (holding a slot of their provider and waiting for its answer) and the failed attempts per
//! role and kind of error (every failed try, retried or not). They live on the engine's
//! [`Gateway`](crate::providers::gateway::Gateway), never in process-global state, so two engines in one
//! process (two workspaces) count apart.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use lightrag_ports::UsageRole;

/// The counters (one set per gateway).
#[derive(Debug, Default)]
pub struct ProviderStats {
    in_flight: Mutex<HashMap<UsageRole, Arc<AtomicU64>>>,
    errors: Mutex<BTreeMap<(UsageRole, &'static str), u64>>,
}

/// A call in flight: counted until dropped.
#[derive(Debug)]
pub struct InFlight(Arc<AtomicU64>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What [`ProviderStats`] holds at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderActivity {
    /// Calls in flight per role (every role present, 0 when idle).
    pub in_flight: BTreeMap<UsageRole, u64>,
    /// Failed attempts per role and kind of error (`LlmError::kind` and its kin).
    pub errors: BTreeMap<(UsageRole, &'static str), u64>,
}

impl ProviderStats {
    /// Counts a call of `role` in flight until the guard is dropped.
    pub fn start(&self, role: UsageRole) -> InFlight {
        let counter = self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).entry(role).or_default().clone();
        counter.fetch_add(1, Ordering::Relaxed);
        InFlight(counter)
    }

    /// Counts one failed attempt of a call of `role`.
    pub fn failed(&self, role: UsageRole, kind: &'static str) {
        *self.errors.lock().unwrap_or_else(|e| e.into_inner()).entry((role, kind)).or_default() += 1;
    }

    /// The counters now.
    pub fn snapshot(&self) -> ProviderActivity {
        let flights = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        let in_flight = UsageRole::ALL
            .into_iter()
            .map(|role| (role, flights.get(&role).map_or(0, |c| c.load(Ordering::Relaxed))))
            .collect();
        let errors = self.errors.lock().unwrap_or_else(|e| e.into_inner()).clone();
        ProviderActivity { in_flight, errors }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_in_flight_until_their_guard_drops() {
        let stats = ProviderStats::default();
        let a = stats.start(UsageRole::Extract);
        let b = stats.start(UsageRole::Extract);
        let c = stats.start(UsageRole::Embed);
        assert_eq!(stats.snapshot().in_flight[&UsageRole::Extract], 2);
        drop(a);
        drop(c);
        let now = stats.snapshot();
        assert_eq!((now.in_flight[&UsageRole::Extract], now.in_flight[&UsageRole::Embed]), (1, 0));
        assert_eq!(now.in_flight[&UsageRole::Answer], 0, "every role is present");
        drop(b);
        stats.failed(UsageRole::Keywords, "timeout");
        stats.failed(UsageRole::Keywords, "timeout");
        assert_eq!(stats.snapshot().errors[&(UsageRole::Keywords, "timeout")], 2);
    }
}
