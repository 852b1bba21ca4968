//! How workers share a knowledge base: the document queue ([`DocumentQueue`]: admission,
//! claims under a lease, cancellation) and the merge locks ([`MergeLocks`]) that make processes
//! merging the same entity take turns.

use async_trait::async_trait;

use super::{ClaimRequest, EnqueueOutcome, NewDocument, StoreError};
use crate::quota::EnqueueLimits;
use crate::records::*;

/// The queue of documents waiting to be indexed: enqueueing (where admission is decided),
/// claiming under a lease, renewing it, and cancelling every run in progress.
#[async_trait]
pub trait DocumentQueue: Send + Sync {
    /// Stores new documents as `pending` in one transaction, recording duplicates (same id or same
    /// content hash as a stored document) as `failed` `dup-…` rows instead — except a new version
    /// of a known file: same id, a known file path, other content than the stored document and
    /// than every other document, and the stored one not `processing` (see
    /// [`NewDocument::replacement_row`]). Its text and status row are replaced (id, `created_at`
    /// and indexed chunks kept) and the outcome is [`EnqueueOutcome::Replaced`]; when it replaces
    /// an indexed version, that version's text and status row are kept as its
    /// [`PreviousVersion`](super::PreviousVersion) (an earlier one kept already stays). Each
    /// document's [`Admission`](super::Admission) may refuse it instead
    /// ([`EnqueueOutcome::Refused`], nothing written). The decision is taken inside the
    /// transaction ([`NewDocument::admit`]), so concurrent enqueues of one name or one content are
    /// decided one after the other. No quota applies (see [`DocumentQueue::enqueue_within`]).
    async fn enqueue(&self, docs: Vec<NewDocument>) -> Result<Vec<EnqueueOutcome>, StoreError> {
        self.enqueue_within(docs, &EnqueueLimits::NONE).await
    }
    /// [`DocumentQueue::enqueue`] within `limits`: the store measures what it holds
    /// ([`Footprint`](crate::quota::Footprint): documents with text, bytes of text) before and after
    /// the request's writes, inside the same transaction, and when a measure grows past its limit
    /// ([`EnqueueLimits::check`]) rolls the whole request back and fails with
    /// [`StoreError::OverQuota`]. Concurrent enqueues of one knowledge base are measured one after
    /// the other, so together they cannot overshoot.
    async fn enqueue_within(
        &self,
        docs: Vec<NewDocument>,
        limits: &EnqueueLimits,
    ) -> Result<Vec<EnqueueOutcome>, StoreError>;
    /// What the knowledge base holds, as [`DocumentQueue::enqueue_within`] measures it.
    async fn footprint(&self) -> Result<crate::quota::Footprint, StoreError>;
    /// Atomically moves claimable documents to `processing` under `owner`'s lease and returns them
    /// oldest first. Claimable: `pending`; `processing` with an expired lease or a dead owner;
    /// `failed` when `include_failed` (never duplicates).
    async fn claim(&self, request: &ClaimRequest) -> Result<Vec<DocStatusRecord>, StoreError>;
    /// Extends the lease on documents `owner` still holds; returns the ids it no longer holds.
    async fn renew_leases(&self, owner: &str, ids: &[String], lease_until: i64) -> Result<Vec<String>, StoreError>;
    /// Requests the cancellation of every pipeline run in progress on this knowledge base, in any
    /// process: raises [`DocumentQueue::cancel_generation`] by one and returns the new count.
    async fn request_cancel(&self) -> Result<u64, StoreError>;
    /// How many pipeline cancellations were requested on this knowledge base so far (0 when
    /// never). A run that saw the count rise since it started stops: this is how a cancel reaches
    /// workers in other processes (no clock is compared).
    async fn cancel_generation(&self) -> Result<u64, StoreError>;
}

/// Locks on entity names held while a document's graph changes are built and committed.
#[async_trait]
pub trait MergeLocks: Send + Sync {
    /// Takes `owner`'s merge locks on `keys` until `until` (ms since the epoch), all or none:
    /// `true` when every key is now `owner`'s (it was free, its lock had expired at `now`, or
    /// `owner` held it already), `false` with nothing taken when another owner holds one. A
    /// pipeline holds the locks of the entity names a document merges while it builds and
    /// commits that document, so processes merging the same entity take turns instead of
    /// undoing each other's work; a lock of a process that died expires at `until`.
    async fn lock_keys(&self, owner: &str, keys: &[String], now: i64, until: i64) -> Result<bool, StoreError>;
    /// Releases `owner`'s merge locks on `keys` (keys it does not hold are left alone).
    async fn unlock_keys(&self, owner: &str, keys: &[String]) -> Result<(), StoreError>;
    /// Extends `owner`'s merge locks on `keys` to `until`; returns how many of them it holds.
    async fn renew_key_locks(&self, owner: &str, keys: &[String], until: i64) -> Result<usize, StoreError>;
    /// Releases every merge lock held by one of `owners` (processes known to be gone, whose locks
    /// would otherwise stand until they expire); returns how many were released.
    async fn release_locks_of(&self, owners: &[String]) -> Result<usize, StoreError>;
}
