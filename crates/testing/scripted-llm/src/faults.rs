//! Fault injection: the next N matching requests fail in a chosen way.

use serde::{Deserialize, Serialize};

use crate::recognise::PromptKind;

/// Which route a fault applies to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteKind {
    /// Chat completions (OpenAI, Azure, Ollama).
    Chat,
    /// Embeddings (every provider).
    Embed,
    /// Rerank (Cohere, Jina, DashScope).
    Rerank,
    /// Both.
    #[default]
    Any,
}

/// What a faulted request gets instead of a normal answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FaultAction {
    /// HTTP 429 with a `Retry-After` header.
    RateLimit {
        /// Value of `Retry-After` in seconds (default 0).
        #[serde(default)]
        retry_after_secs: u32,
    },
    /// HTTP 500.
    ServerError,
    /// Any other HTTP status (400, 404, 503, ...) with an error body in the route's dialect.
    Status {
        /// The status code (100–999; anything else is answered as 500).
        code: u16,
    },
    /// Wait this long, then answer normally (to trigger client timeouts).
    Delay {
        /// Milliseconds to wait.
        ms: u64,
    },
    /// The connection breaks: the status line goes out, then the connection is dropped before
    /// any of the body (what a reset or a crashed provider looks like to the client).
    Reset,
    /// A 200 answer whose extraction records are damaged (chat only; other routes answer normally).
    MalformedExtraction,
    /// A 200 answer whose body is not valid JSON (in a stream: one bad event).
    InvalidJson,
    /// A 200 chat answer with exactly this text instead of the generated one (to script odd
    /// outputs: `<think>` tags, broken keyword JSON, hand-written records). Embedding
    /// requests answer normally.
    Reply {
        /// The answer text.
        content: String,
    },
}

/// One scripted fault: applies to the next `count` requests that match `route` and `prompt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// Route filter (default: any).
    #[serde(default)]
    pub route: RouteKind,
    /// Prompt-kind filter for chat requests (default: any prompt). A fault with a prompt filter
    /// never matches an embedding request.
    #[serde(default)]
    pub prompt: Option<PromptKind>,
    /// What happens.
    pub action: FaultAction,
    /// How many requests it still applies to (default 1).
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

impl Fault {
    /// A fault for the next `count` requests of any route.
    pub fn new(action: FaultAction, count: u32) -> Self {
        Self { route: RouteKind::Any, prompt: None, action, count }
    }
    /// HTTP 429 with `Retry-After: 0` for the next `count` requests.
    pub fn rate_limit(count: u32) -> Self {
        Self::new(FaultAction::RateLimit { retry_after_secs: 0 }, count)
    }
    /// HTTP 500 for the next `count` requests.
    pub fn server_error(count: u32) -> Self {
        Self::new(FaultAction::ServerError, count)
    }
    /// HTTP `code` with an error body for the next `count` requests.
    pub fn status(code: u16, count: u32) -> Self {
        Self::new(FaultAction::Status { code }, count)
    }
    /// A delay of `ms` milliseconds for the next `count` requests.
    pub fn delay(ms: u64, count: u32) -> Self {
        Self::new(FaultAction::Delay { ms }, count)
    }
    /// Damaged extraction records for the next `count` extraction requests.
    pub fn malformed_extraction(count: u32) -> Self {
        Self::new(FaultAction::MalformedExtraction, count).on_prompt(PromptKind::Extract)
    }
    /// A connection dropped mid-answer for the next `count` requests.
    pub fn reset(count: u32) -> Self {
        Self::new(FaultAction::Reset, count)
    }
    /// An invalid JSON body for the next `count` requests.
    pub fn invalid_json(count: u32) -> Self {
        Self::new(FaultAction::InvalidJson, count)
    }
    /// Answers the next `count` chat requests with `content`.
    pub fn reply(content: impl Into<String>, count: u32) -> Self {
        Self::new(FaultAction::Reply { content: content.into() }, count).on_route(RouteKind::Chat)
    }
    /// Restricts the fault to one route.
    pub fn on_route(mut self, route: RouteKind) -> Self {
        self.route = route;
        self
    }
    /// Restricts the fault to chat requests of one prompt kind.
    pub fn on_prompt(mut self, prompt: PromptKind) -> Self {
        self.prompt = Some(prompt);
        if self.route == RouteKind::Any {
            self.route = RouteKind::Chat;
        }
        self
    }

    fn matches(&self, route: RouteKind, prompt: Option<PromptKind>) -> bool {
        let route_ok = self.route == RouteKind::Any || self.route == route;
        let prompt_ok = match self.prompt {
            None => true,
            Some(wanted) => prompt == Some(wanted),
        };
        self.count > 0 && route_ok && prompt_ok
    }
}

/// Takes one use of the first fault matching the request, removing used-up faults.
pub(crate) fn take_matching(
    faults: &mut Vec<Fault>,
    route: RouteKind,
    prompt: Option<PromptKind>,
) -> Option<FaultAction> {
    let index = faults.iter().position(|f| f.matches(route, prompt))?;
    let fault = &mut faults[index];
    fault.count -= 1;
    let action = fault.action.clone();
    if fault.count == 0 {
        faults.remove(index);
    }
    Some(action)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn faults_apply_to_matching_requests_count_times_in_order() {
        let mut faults = vec![Fault::malformed_extraction(1), Fault::server_error(2).on_route(RouteKind::Embed)];
        assert_eq!(take_matching(&mut faults, RouteKind::Chat, Some(PromptKind::Answer)), None);
        assert_eq!(take_matching(&mut faults, RouteKind::Embed, None), Some(FaultAction::ServerError));
        assert_eq!(
            take_matching(&mut faults, RouteKind::Chat, Some(PromptKind::Extract)),
            Some(FaultAction::MalformedExtraction)
        );
        assert_eq!(take_matching(&mut faults, RouteKind::Chat, Some(PromptKind::Extract)), None);
        assert_eq!(take_matching(&mut faults, RouteKind::Embed, None), Some(FaultAction::ServerError));
        assert!(faults.is_empty());
    }

    #[test]
    fn faults_parse_from_json_with_defaults() {
        let f: Fault = serde_json::from_str(r#"{"action": {"kind": "rate_limit"}}"#).unwrap();
        assert_eq!(f, Fault::rate_limit(1));
        let f: Fault = serde_json::from_str(
            r#"{"route": "chat", "prompt": "summary", "action": {"kind": "delay", "ms": 50}, "count": 3}"#,
        )
        .unwrap();
        assert_eq!(f, Fault::delay(50, 3).on_prompt(PromptKind::Summary));
    }
}
