//! A usage accumulator owned by one operation (a query), next to the engine-wide ledger of the
//! [`crate::providers::gateway::Gateway`].
//!
//! The gateway adds every call it makes on behalf of the operation to the operation's scope as
//! well as to its own ledger, so two operations running at once each see only their own calls —
//! without reading the shared ledger before and after, and without task-locals or globals.

use std::sync::{Arc, Mutex};

use lightrag_ports::{Usage, UsageCounters, UsageRole};

/// One operation's usage, per role. Cloning gives another handle on the same counters (a
/// streamed answer keeps one until the stream ends).
#[derive(Debug, Clone, Default)]
pub struct UsageScope {
    counters: Arc<Mutex<Usage>>,
}

impl UsageScope {
    /// An empty scope.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `delta` to `role`.
    pub fn add(&self, role: UsageRole, delta: UsageCounters) {
        let mut guard = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        guard.entry(role).or_default().add(&delta);
    }

    /// The counters of `role` so far (zero when the role made no call).
    pub fn role(&self, role: UsageRole) -> UsageCounters {
        self.counters.lock().unwrap_or_else(|e| e.into_inner()).get(&role).copied().unwrap_or_default()
    }

    /// Every role's counters so far.
    pub fn snapshot(&self) -> Usage {
        self.counters.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(n: u64) -> UsageCounters {
        UsageCounters { calls: n, tokens_in: 10 * n, ..UsageCounters::default() }
    }

    #[test]
    fn clones_share_the_counters_and_scopes_do_not() {
        let scope = UsageScope::new();
        let handle = scope.clone();
        handle.add(UsageRole::Answer, calls(1));
        scope.add(UsageRole::Answer, calls(2));
        assert_eq!(scope.role(UsageRole::Answer), calls(3));
        assert_eq!(scope.role(UsageRole::Keywords), UsageCounters::default());
        let other = UsageScope::new();
        other.add(UsageRole::Embed, calls(1));
        assert_eq!(scope.snapshot().len(), 1);
        assert_eq!(other.snapshot().get(&UsageRole::Embed), Some(&calls(1)));
    }
}
