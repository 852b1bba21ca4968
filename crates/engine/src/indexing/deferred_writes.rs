//! Cache writes a query does not wait for.
//!
//! Writing to the store takes its one writer, which a document's commit may hold for a while
//! (a large document is one transaction). A query's keyword and answer responses are therefore
//! written in the background: until a write has landed the response is served from here, so the
//! same request asked again in this process is a cache hit all the same. [`DeferredWrites::settle`]
//! waits for the writes in flight (before usage is flushed at the end of a command, and before the
//! cache is cleared, so that no late write brings an entry back).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use lightrag_ports::ErrorChain;
use lightrag_ports::{CacheEntry, Store};
use tokio::sync::Notify;

/// Cache entries being written in the background, by key.
#[derive(Default)]
pub(crate) struct DeferredWrites {
    /// key → (response, writes of this key in flight).
    pending: Mutex<HashMap<String, (String, usize)>>,
    /// Signalled after each write.
    written: Notify,
}

impl DeferredWrites {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, (String, usize)>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The response of `key` while its write is in flight.
    pub(crate) fn get(&self, key: &str) -> Option<String> {
        self.lock().get(key).map(|(response, _)| response.clone())
    }

    /// Writes `entry` to `store` in a background task; a failure is logged (the answer was used).
    pub(crate) fn put(self: &Arc<Self>, store: Arc<dyn Store>, entry: CacheEntry) {
        {
            let mut pending = self.lock();
            let slot = pending.entry(entry.key.clone()).or_insert_with(|| (String::new(), 0));
            slot.0 = entry.response.clone();
            slot.1 += 1;
        }
        let this = self.clone();
        tokio::spawn(async move {
            let key = entry.key.clone();
            if let Err(e) = store.cache_put(entry).await {
                tracing::warn!("LLM cache write failed (the answer was used): {}", ErrorChain(&e));
            }
            {
                let mut pending = this.lock();
                if let Some(slot) = pending.get_mut(&key) {
                    slot.1 -= 1;
                    if slot.1 == 0 {
                        pending.remove(&key);
                    }
                }
            }
            this.written.notify_waiters();
        });
    }

    /// Waits until every write started so far has landed (or failed).
    pub(crate) async fn settle(&self) {
        loop {
            let written = self.written.notified();
            tokio::pin!(written);
            written.as_mut().enable();
            if self.lock().is_empty() {
                return;
            }
            written.await;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn nothing_to_settle_returns_at_once() {
        let writes = Arc::new(DeferredWrites::default());
        writes.settle().await;
        assert_eq!(writes.get("k"), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_entry_is_served_until_written_then_found_in_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kb.sqlite");
        let store: Arc<dyn Store> = Arc::new(lightrag_store_sqlite::SqliteStore::open(&path).unwrap());
        let writes = Arc::new(DeferredWrites::default());
        // Another connection holds the database's write lock, so the background writes wait (the
        // store's busy timeout) and the entry can only be served from memory meanwhile; without
        // the lock the write may finish before the first read (the test was flaky so).
        let blocker = rusqlite::Connection::open(&path).unwrap();
        blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
        let entry = |response: &str| CacheEntry {
            key: "mix:keywords:abc".into(),
            cache_type: "keywords".into(),
            response: response.into(),
            chunk_id: None,
            created_at: 1,
        };
        writes.put(store.clone(), entry("first"));
        writes.put(store.clone(), entry("second"));
        assert_eq!(writes.get("mix:keywords:abc").as_deref(), Some("second"));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert_eq!(writes.get("mix:keywords:abc").as_deref(), Some("second"), "still served while the write waits");
        blocker.execute_batch("COMMIT").unwrap();
        writes.settle().await;
        assert_eq!(writes.get("mix:keywords:abc"), None);
        let stored = store.cache_get("mix:keywords:abc").await.unwrap().unwrap();
        assert!(["first", "second"].contains(&stored.response.as_str()));
    }
}
