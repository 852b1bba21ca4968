//! Providers: every call to a model goes through here.
//!
//! [`gateway`]: one call per kind (`chat`, `embed`) with concurrency limits per provider and
//! priority classes ([`limiter`]: queries before merges before extraction), timeout, retry with
//! backoff, the response cache in the store ([`cache_keys`]) and the usage ledger (and a query's
//! own `UsageScope`).

pub mod cache_keys;
pub mod gateway;
pub mod limiter;
pub(crate) mod provider_stats;
pub(crate) mod usage_scope;
