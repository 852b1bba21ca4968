//! An error with its causes on one line, for logs and messages: `error: cause: cause of the cause`.

use std::error::Error;
use std::fmt;

/// Displays an error followed by each error of its `source()` chain, separated by `": "`. A
/// cause whose text the line already holds (a message that quoted its cause) is not repeated.
///
/// ```
/// # use lightrag_ports::ErrorChain;
/// let io = std::io::Error::other("connection reset");
/// let e = lightrag_ports::StoreError::backend_caused("cannot reach the database", io);
/// assert_eq!(ErrorChain(&e).to_string(), "storage backend error: cannot reach the database: connection reset");
/// ```
pub struct ErrorChain<'a>(pub &'a (dyn Error + 'static));

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut line = self.0.to_string();
        let mut cause = self.0.source();
        while let Some(e) = cause {
            let text = e.to_string();
            if !text.is_empty() && !line.contains(&text) {
                line.push_str(": ");
                line.push_str(&text);
            }
            cause = e.source();
        }
        f.write_str(&line)
    }
}

impl fmt::Debug for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer: {0}")]
    struct Quoting(#[source] std::io::Error);

    #[test]
    fn a_cause_already_quoted_is_not_repeated() {
        let e = Quoting(std::io::Error::other("disk on fire"));
        assert_eq!(ErrorChain(&e).to_string(), "outer: disk on fire");
    }

    #[test]
    fn causes_follow_the_error() {
        let e = crate::StoreError::unavailable(
            "no pooled connection became free",
            std::time::Duration::from_secs(5),
            Some(Box::new(std::io::Error::other("pool timed out"))),
        );
        assert_eq!(
            ErrorChain(&e).to_string(),
            "the store is unavailable for now: no pooled connection became free; try again in 5 s: pool timed out"
        );
    }
}
