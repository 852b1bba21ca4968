//! Quotas of one knowledge base: how many documents and how many bytes of document text it may
//! hold ([`EnqueueLimits`], enforced by the store inside the transaction of
//! [`DocumentQueue::enqueue_within`](crate::DocumentQueue::enqueue_within), so a request over quota
//! writes nothing and concurrent requests cannot overshoot together), and how many LLM tokens it
//! may spend in a day (checked by the engine against the daily ledger,
//! [`CacheAndLedger::usage_today`](crate::CacheAndLedger::usage_today)).

use serde::{Deserialize, Serialize};

/// Which quota a request went over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuotaKind {
    /// Documents whose text the knowledge base stores.
    Documents,
    /// Bytes (UTF-8) of the document texts it stores.
    StoredBytes,
    /// LLM tokens (input and output, every role) spent in the current UTC day.
    LlmTokensPerDay,
}

impl QuotaKind {
    /// The setting that sets this quota.
    pub fn setting(self) -> &'static str {
        match self {
            QuotaKind::Documents => "QUOTA_MAX_DOCUMENTS",
            QuotaKind::StoredBytes => "QUOTA_MAX_STORED_BYTES",
            QuotaKind::LlmTokensPerDay => "QUOTA_MAX_LLM_TOKENS_PER_DAY",
        }
    }

    /// Lower-case name (`documents`, `stored_bytes`, `llm_tokens_per_day`).
    pub fn as_str(self) -> &'static str {
        match self {
            QuotaKind::Documents => "documents",
            QuotaKind::StoredBytes => "stored_bytes",
            QuotaKind::LlmTokensPerDay => "llm_tokens_per_day",
        }
    }

    /// What is counted, for messages.
    fn counted(self) -> &'static str {
        match self {
            QuotaKind::Documents => "documents",
            QuotaKind::StoredBytes => "bytes of document text",
            QuotaKind::LlmTokensPerDay => "LLM tokens today (UTC)",
        }
    }
}

/// A request refused because it would take a knowledge base over one of its quotas. Nothing of
/// the request was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub struct QuotaExceeded {
    /// The quota.
    pub kind: QuotaKind,
    /// Its limit.
    pub limit: u64,
    /// What the knowledge base holds (or spent today) before the request.
    pub current: u64,
    /// What it would hold after the request (for the daily token quota, what it spent: at or over
    /// the limit already).
    pub requested: u64,
}

impl std::fmt::Display for QuotaExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let QuotaExceeded { kind, limit, current, requested } = self;
        let (name, setting) = (kind.as_str(), kind.setting());
        match kind {
            QuotaKind::LlmTokensPerDay => write!(
                f,
                "over the {name} quota of this workspace: {current} LLM tokens spent today (UTC), the limit is \
                 {limit} ({setting}); nothing of the request was stored — try again after midnight UTC, or ask the \
                 administrator to raise the quota"
            ),
            _ => write!(
                f,
                "over the {name} quota of this workspace: it holds {current} {}, with this request it would hold \
                 {requested}, over the limit of {limit} ({setting}); nothing of the request was stored — delete \
                 documents you no longer need, or ask the administrator to raise the quota",
                kind.counted()
            ),
        }
    }
}

/// What a knowledge base holds: documents with their text, and the text's size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footprint {
    /// Documents whose text is stored.
    pub documents: u64,
    /// Bytes (UTF-8) of those texts.
    pub bytes: u64,
}

/// The limits an enqueue must keep the knowledge base within (`None` = no limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnqueueLimits {
    /// At most this many documents ([`QuotaKind::Documents`]).
    pub max_documents: Option<u64>,
    /// At most this many bytes of document text ([`QuotaKind::StoredBytes`]).
    pub max_stored_bytes: Option<u64>,
}

impl EnqueueLimits {
    /// No limit.
    pub const NONE: EnqueueLimits = EnqueueLimits { max_documents: None, max_stored_bytes: None };

    /// Whether nothing is limited (the store then need not measure anything).
    pub fn is_none(&self) -> bool {
        self.max_documents.is_none() && self.max_stored_bytes.is_none()
    }

    /// Whether going from `before` to `after` is allowed: a measure that grows must stay within
    /// its limit; one that does not grow is never refused (a replacement by a shorter text, or
    /// a knowledge base over a limit lowered since, may still shrink or stay).
    pub fn check(&self, before: Footprint, after: Footprint) -> Result<(), QuotaExceeded> {
        let measures = [
            (QuotaKind::Documents, self.max_documents, before.documents, after.documents),
            (QuotaKind::StoredBytes, self.max_stored_bytes, before.bytes, after.bytes),
        ];
        for (kind, limit, current, requested) in measures {
            if let Some(limit) = limit
                && requested > current
                && requested > limit
            {
                return Err(QuotaExceeded { kind, limit, current, requested });
            }
        }
        Ok(())
    }
}

/// The LLM tokens (input and output) of a usage ledger: every chat role, not embeddings or
/// reranking.
pub fn llm_tokens(usage: &crate::Usage) -> u64 {
    usage
        .iter()
        .filter(|(role, _)| !matches!(role, crate::UsageRole::Embed | crate::UsageRole::Rerank))
        .map(|(_, c)| c.tokens_in.saturating_add(c.tokens_out))
        .fold(0u64, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(documents: u64, bytes: u64) -> Footprint {
        Footprint { documents, bytes }
    }

    #[test]
    fn growth_past_a_limit_is_refused_and_shrinking_never_is() {
        let limits = EnqueueLimits { max_documents: Some(2), max_stored_bytes: Some(100) };
        assert_eq!(limits.check(fp(1, 10), fp(2, 100)), Ok(()));
        let over = limits.check(fp(2, 10), fp(3, 20)).unwrap_err();
        assert_eq!((over.kind, over.limit, over.current, over.requested), (QuotaKind::Documents, 2, 2, 3));
        let bytes = limits.check(fp(1, 90), fp(1, 101)).unwrap_err();
        assert_eq!(bytes.kind, QuotaKind::StoredBytes);
        // already over a lowered limit: shrinking or staying is allowed
        assert_eq!(limits.check(fp(5, 500), fp(5, 400)), Ok(()));
        assert_eq!(EnqueueLimits::NONE.check(fp(0, 0), fp(u64::MAX, u64::MAX)), Ok(()));
    }

    #[test]
    fn llm_tokens_count_chat_roles_not_embeddings() {
        let mut usage = crate::Usage::new();
        let c = |t_in, t_out| crate::UsageCounters { calls: 1, cache_hits: 0, tokens_in: t_in, tokens_out: t_out };
        usage.insert(crate::UsageRole::Extract, c(100, 20));
        usage.insert(crate::UsageRole::Answer, c(7, 3));
        usage.insert(crate::UsageRole::Embed, c(1000, 0));
        usage.insert(crate::UsageRole::Rerank, c(50, 0));
        assert_eq!(llm_tokens(&usage), 130);
    }

    #[test]
    fn the_message_names_the_quota_its_setting_and_what_to_do() {
        let e = QuotaExceeded { kind: QuotaKind::StoredBytes, limit: 100, current: 90, requested: 130 };
        let m = e.to_string();
        for part in ["stored_bytes", "QUOTA_MAX_STORED_BYTES", "90", "130", "100", "nothing of the request was stored"]
        {
            assert!(m.contains(part), "{part} missing from {m}");
        }
    }
}
