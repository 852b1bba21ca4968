//! A knowledge base's quotas ([`QuotaConfig`]) at enqueue time, and where it stands against them.
//!
//! Documents and stored bytes are enforced by the store inside the enqueue transaction
//! ([`lightrag_ports::DocumentQueue::enqueue_within`]); the day's LLM tokens are read from the
//! daily ledger before it ([`lightrag_ports::CacheAndLedger::usage_today`]).

use lightrag_ports::quota::llm_tokens;
use lightrag_ports::{EnqueueOutcome, NewDocument, QuotaExceeded, QuotaKind, StoreError};
use serde::Serialize;

use crate::config::QuotaConfig;
use crate::engine::Engine;
use crate::error::Result;

/// How much of one quota is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QuotaUse {
    /// What the knowledge base holds (or spent today).
    pub used: u64,
    /// The limit.
    pub limit: u64,
}

/// Where a knowledge base stands against its quotas (only the quotas that are set).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct QuotaStatus {
    /// Documents with text (`QUOTA_MAX_DOCUMENTS`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documents: Option<QuotaUse>,
    /// Bytes of document text (`QUOTA_MAX_STORED_BYTES`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_bytes: Option<QuotaUse>,
    /// LLM tokens spent today, UTC (`QUOTA_MAX_LLM_TOKENS_PER_DAY`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_tokens_per_day: Option<QuotaUse>,
}

impl QuotaStatus {
    /// The quotas that are set, with their kind.
    pub fn entries(&self) -> Vec<(QuotaKind, QuotaUse)> {
        [
            (QuotaKind::Documents, self.documents),
            (QuotaKind::StoredBytes, self.stored_bytes),
            (QuotaKind::LlmTokensPerDay, self.llm_tokens_per_day),
        ]
        .into_iter()
        .filter_map(|(kind, u)| u.map(|u| (kind, u)))
        .collect()
    }
}

fn any(q: &QuotaConfig) -> bool {
    q.max_documents.is_some() || q.max_stored_bytes.is_some() || q.max_llm_tokens_per_day.is_some()
}

impl Engine {
    /// Where this knowledge base stands against its quotas; `None` when no quota is set.
    pub async fn quota_status(&self) -> Result<Option<QuotaStatus>> {
        let quotas = self.config().quotas;
        if !any(&quotas) {
            return Ok(None);
        }
        let store = self.store();
        let held = if quotas.max_documents.is_some() || quotas.max_stored_bytes.is_some() {
            Some(store.footprint().await?)
        } else {
            None
        };
        let spent = match quotas.max_llm_tokens_per_day {
            Some(_) => Some(llm_tokens(&store.usage_today().await?)),
            None => None,
        };
        let with = |limit: Option<u64>, used: Option<u64>| Some(QuotaUse { used: used?, limit: limit? });
        Ok(Some(QuotaStatus {
            documents: with(quotas.max_documents, held.map(|h| h.documents)),
            stored_bytes: with(quotas.max_stored_bytes, held.map(|h| h.bytes)),
            llm_tokens_per_day: with(quotas.max_llm_tokens_per_day, spent),
        }))
    }

    /// Stores `docs` within this knowledge base's quotas: refused whole when the day's LLM tokens
    /// have reached their quota, or when the store finds that they would take it over its
    /// documents or stored-bytes quota ([`StoreError::OverQuota`]; nothing written).
    pub(crate) async fn enqueue_within_quotas(&self, docs: Vec<NewDocument>) -> Result<Vec<EnqueueOutcome>> {
        let quotas = self.config().quotas;
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(limit) = quotas.max_llm_tokens_per_day {
            let spent = llm_tokens(&self.store().usage_today().await?);
            if spent >= limit {
                let refused =
                    QuotaExceeded { kind: QuotaKind::LlmTokensPerDay, limit, current: spent, requested: spent };
                return Err(StoreError::OverQuota(refused).into());
            }
        }
        Ok(self.store().enqueue_within(docs, &quotas.enqueue_limits()).await?)
    }
}
