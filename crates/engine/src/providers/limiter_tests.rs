//! The limiter's rule, step by step: every test holds all slots, queues waiters, then frees slots
//! one at a time and records who got each.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::*;

/// Queues a waiter that reports `label` when it gets a slot and frees the slot right away, so
/// that the slot passes on by the rule.
fn waiter(
    limiter: &Arc<PriorityLimiter>,
    priority: Priority,
    label: &'static str,
    got: mpsc::UnboundedSender<&'static str>,
) -> tokio::task::JoinHandle<()> {
    let limiter = limiter.clone();
    tokio::spawn(async move {
        let _permit = limiter.acquire(priority).await;
        let _ = got.send(label);
    })
}

/// Lets spawned tasks run until they are all parked on the limiter.
async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
}

async fn waiting(limiter: &PriorityLimiter, class: Priority) -> usize {
    settle().await;
    limiter.status().waiting[&class]
}

#[tokio::test]
async fn a_free_slot_is_taken_at_once() {
    let limiter = PriorityLimiter::new(2);
    let a = limiter.acquire(Priority::Extract).await;
    let _b = limiter.acquire(Priority::Extract).await;
    assert_eq!(limiter.status().running, 2);
    drop(a);
    assert_eq!(limiter.status().running, 1);
}

#[tokio::test]
async fn queries_pass_queued_extraction_and_merges_come_between() {
    let limiter = PriorityLimiter::new(1);
    let held = limiter.acquire(Priority::Extract).await;
    let (tx, mut rx) = mpsc::unbounded_channel();
    for (priority, label) in [
        (Priority::Extract, "extract 1"),
        (Priority::Extract, "extract 2"),
        (Priority::Merge, "merge 1"),
        (Priority::Query, "query 1"),
        (Priority::Extract, "extract 3"),
        (Priority::Query, "query 2"),
    ] {
        waiter(&limiter, priority, label, tx.clone());
        settle().await;
    }
    assert_eq!(waiting(&limiter, Priority::Extract).await, 3);
    assert_eq!(waiting(&limiter, Priority::Query).await, 2);
    drop(held);
    let mut order = Vec::new();
    for _ in 0..6 {
        order.push(rx.recv().await.unwrap());
    }
    assert_eq!(order, ["query 1", "query 2", "merge 1", "extract 1", "extract 2", "extract 3"]);
    settle().await;
    let status = limiter.status();
    assert_eq!(status.running, 0);
    assert_eq!(status.granted[&Priority::Extract], 4);
}

#[tokio::test]
async fn a_passed_over_class_gets_a_slot_after_the_bound() {
    let limiter = PriorityLimiter::new(1);
    let mut held = limiter.acquire(Priority::Query).await;
    // one extraction waits; queries keep coming, one queued each time a slot frees
    let extract = {
        let limiter = limiter.clone();
        tokio::spawn(async move {
            drop(limiter.acquire(Priority::Extract).await);
        })
    };
    settle().await;
    let mut queries_before_extract = 0;
    loop {
        let next = {
            let limiter = limiter.clone();
            tokio::spawn(async move { limiter.acquire(Priority::Query).await })
        };
        settle().await;
        drop(held);
        settle().await;
        if extract.is_finished() {
            // the extraction took the slot and gave it back: the queued query now has it
            held = next.await.unwrap();
            break;
        }
        held = next.await.unwrap();
        queries_before_extract += 1;
        assert!(queries_before_extract <= MAX_PASSED_OVER, "extraction starved");
    }
    assert_eq!(queries_before_extract, MAX_PASSED_OVER);
    drop(held);
}

#[tokio::test]
async fn fifo_within_a_class() {
    let limiter = PriorityLimiter::new(1);
    let held = limiter.acquire(Priority::Merge).await;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let labels = ["a", "b", "c", "d"];
    for label in labels {
        waiter(&limiter, Priority::Extract, label, tx.clone());
        settle().await;
    }
    drop(held);
    let mut order = Vec::new();
    for _ in labels {
        order.push(rx.recv().await.unwrap());
    }
    assert_eq!(order, labels);
}

#[tokio::test]
async fn a_cancelled_waiter_leaks_no_slot() {
    let limiter = PriorityLimiter::new(1);
    let held = limiter.acquire(Priority::Extract).await;
    let gave_up = {
        let limiter = limiter.clone();
        tokio::spawn(async move {
            let _ = tokio::time::timeout(Duration::from_millis(1), limiter.acquire(Priority::Query)).await;
        })
    };
    gave_up.await.unwrap();
    assert_eq!(limiter.status().waiting[&Priority::Query], 0);
    drop(held);
    assert_eq!(limiter.status().running, 0);
    let again = tokio::time::timeout(Duration::from_secs(5), limiter.acquire(Priority::Extract)).await;
    assert!(again.is_ok(), "the slot came back");
}

#[tokio::test]
async fn raising_the_capacity_serves_waiters() {
    let limits = ProviderLimits::new();
    let limiter = limits.limiter("chat:a", 1);
    let _held = limiter.acquire(Priority::Extract).await;
    let waiting_task = {
        let limiter = limiter.clone();
        tokio::spawn(async move { limiter.acquire(Priority::Extract).await })
    };
    settle().await;
    assert!(!waiting_task.is_finished());
    let same = limits.limiter("chat:a", 3);
    assert!(Arc::ptr_eq(&same, &limiter));
    assert_eq!(limiter.capacity(), 3);
    let _second = tokio::time::timeout(Duration::from_secs(5), waiting_task).await.unwrap().unwrap();
    assert_eq!(limiter.status().running, 2);
    assert_eq!(limits.limiter("chat:a", 2).capacity(), 3, "never lowered");
    assert_eq!(limits.status().len(), 1);
}
