//! Login throttling: each user name and each client address may fail [`FREE_FAILURES`] times,
//! then waits before its next password check — 2 s, doubling with every further failure, at
//! most [`MAX_WAIT`] — and is told so with 429 and `Retry-After`. A waiting caller costs no
//! password check, so guessing is slow and a flood of wrong passwords cannot keep the checking
//! slots (and other users' logins) busy. A success clears the user's and the address's record;
//! a record is forgotten [`FORGET_AFTER`] after its last failure.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures allowed before waits begin.
pub const FREE_FAILURES: u32 = 5;
/// The longest wait.
pub const MAX_WAIT: Duration = Duration::from_secs(300);
/// A record is dropped this long after its last failure.
pub const FORGET_AFTER: Duration = Duration::from_secs(15 * 60);
/// Most records kept; beyond, the oldest are dropped (bounded memory under a spray of names).
const MAX_RECORDS: usize = 10_000;

/// Who failed: a user name, or a client address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Subject {
    /// A user name as given at login.
    User(String),
    /// The client's address.
    Client(IpAddr),
}

#[derive(Debug, Clone, Copy)]
struct Record {
    failures: u32,
    last: Instant,
}

impl Record {
    /// When the next attempt is allowed (`None`: now).
    fn next_allowed(&self) -> Option<Instant> {
        let over = self.failures.checked_sub(FREE_FAILURES)?;
        let wait = Duration::from_secs(2u64.saturating_pow(over.saturating_add(1).min(16))).min(MAX_WAIT);
        Some(self.last + wait)
    }
}

/// The failure records of this server.
#[derive(Debug, Default)]
pub struct LoginThrottle {
    records: Mutex<HashMap<Subject, Record>>,
}

impl LoginThrottle {
    /// How long the first of `subjects` that must wait still has to (`None`: none waits).
    pub fn wait(&self, subjects: &[Subject], now: Instant) -> Option<Duration> {
        let records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        subjects
            .iter()
            .filter_map(|s| records.get(s))
            .filter_map(Record::next_allowed)
            .filter(|at| *at > now)
            .map(|at| at - now)
            .max()
    }

    /// Records a failed password check of every subject.
    pub fn failed(&self, subjects: &[Subject], now: Instant) {
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        if records.len() >= MAX_RECORDS {
            records.retain(|_, r| now.saturating_duration_since(r.last) < FORGET_AFTER);
            if records.len() >= MAX_RECORDS {
                let mut by_age: Vec<(Subject, Instant)> = records.iter().map(|(s, r)| (s.clone(), r.last)).collect();
                by_age.sort_by_key(|(_, last)| *last);
                for (s, _) in by_age.into_iter().take(MAX_RECORDS / 10) {
                    records.remove(&s);
                }
            }
        }
        for s in subjects {
            let record = records.entry(s.clone()).or_insert(Record { failures: 0, last: now });
            if now.saturating_duration_since(record.last) >= FORGET_AFTER {
                record.failures = 0;
            }
            record.failures = record.failures.saturating_add(1);
            record.last = now;
        }
    }

    /// Clears the records of the subjects of a successful login.
    pub fn succeeded(&self, subjects: &[Subject]) {
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        for s in subjects {
            records.remove(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_start_after_the_free_failures_and_double() {
        let t = LoginThrottle::default();
        let alice = [Subject::User("alice".into())];
        let start = Instant::now();
        for i in 0..FREE_FAILURES {
            assert_eq!(t.wait(&alice, start), None, "failure {i} is free");
            t.failed(&alice, start);
        }
        assert_eq!(t.wait(&alice, start), Some(Duration::from_secs(2)));
        assert_eq!(t.wait(&alice, start + Duration::from_secs(2)), None, "the wait is over");
        t.failed(&alice, start);
        assert_eq!(t.wait(&alice, start), Some(Duration::from_secs(4)));
        for _ in 0..20 {
            t.failed(&alice, start);
        }
        assert_eq!(t.wait(&alice, start), Some(MAX_WAIT));
        assert_eq!(t.wait(&[Subject::User("bob".into())], start), None, "others are not affected");
        t.succeeded(&alice);
        assert_eq!(t.wait(&alice, start), None);
    }

    #[test]
    fn records_are_forgotten_and_bounded() {
        let t = LoginThrottle::default();
        let ip = [Subject::Client(IpAddr::from([10, 0, 0, 1]))];
        let start = Instant::now();
        for _ in 0..=FREE_FAILURES {
            t.failed(&ip, start);
        }
        assert!(t.wait(&ip, start).is_some());
        let later = start + FORGET_AFTER;
        t.failed(&ip, later);
        assert_eq!(t.wait(&ip, later), None, "an old record starts again");
        for i in 0..MAX_RECORDS + 5 {
            t.failed(&[Subject::User(format!("u{i}"))], later);
        }
        assert!(t.records.lock().unwrap_or_else(|p| p.into_inner()).len() <= MAX_RECORDS);
    }
}
