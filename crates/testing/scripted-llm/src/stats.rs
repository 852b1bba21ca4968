//! Call counters and the recent-request log.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::recognise::PromptKind;

/// What the server has seen since start (or the last reset). Kind counters count every request
/// that was understood (JSON body, right key), including faulted ones; `statuses` counts every
/// answer, refusals included.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Extraction chat requests.
    pub extract: u64,
    /// Gleaning chat requests.
    pub glean: u64,
    /// Summary chat requests.
    pub summary: u64,
    /// Keyword chat requests.
    pub keywords: u64,
    /// Faithfulness-judge chat requests.
    #[serde(default)]
    pub judge: u64,
    /// Query-decomposition chat requests.
    #[serde(default)]
    pub decompose: u64,
    /// Answer chat requests.
    pub answer: u64,
    /// Embedding requests.
    pub embed: u64,
    /// Texts embedded, over all embedding requests.
    pub embed_texts: u64,
    /// Rerank requests.
    #[serde(default)]
    pub rerank: u64,
    /// Streaming chat requests (also counted under their prompt kind).
    pub streamed: u64,
    /// Responses per HTTP status code.
    pub statuses: BTreeMap<u16, u64>,
    /// Requests a fault was applied to.
    pub faults_injected: u64,
    /// Prompt "tokens" (words) reported in successful responses.
    pub prompt_tokens: u64,
    /// Completion "tokens" (words) reported in successful responses.
    pub completion_tokens: u64,
}

impl Stats {
    /// Chat requests of all kinds.
    pub fn chat_calls(&self) -> u64 {
        self.extract + self.glean + self.summary + self.keywords + self.judge + self.decompose + self.answer
    }

    /// Requests answered with `status`.
    pub fn status_count(&self, status: u16) -> u64 {
        self.statuses.get(&status).copied().unwrap_or(0)
    }

    pub(crate) fn count_kind(&mut self, kind: PromptKind) {
        match kind {
            PromptKind::Extract => self.extract += 1,
            PromptKind::Glean => self.glean += 1,
            PromptKind::Summary => self.summary += 1,
            PromptKind::Keywords => self.keywords += 1,
            PromptKind::Judge => self.judge += 1,
            PromptKind::Decompose => self.decompose += 1,
            PromptKind::Answer => self.answer += 1,
        }
    }
}

/// A request as the server received it (kept for the last `ScriptConfig::record_requests`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// HTTP method.
    pub method: String,
    /// Path and query, e.g. `/openai/deployments/d/chat/completions?api-version=2024-08-01`.
    pub path: String,
    /// Request headers with lowercase names (values that are not UTF-8 are dropped).
    pub headers: BTreeMap<String, String>,
    /// The JSON body (`null` when it was not JSON).
    pub body: Value,
    /// The recognised prompt kind, for chat requests.
    pub prompt: Option<PromptKind>,
}

impl RecordedRequest {
    /// A header value by lowercase name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}
