//! [`AppError`]: why a use case did not succeed, in kinds that a front end maps mechanically —
//! REST to a status code, MCP to a tool error, the CLI to a message and an exit code. Each kind
//! keeps its cause ([`std::error::Error::source`]), not only its text.

use std::fmt;

use lightrag_doc_text::DocTextError;
use lightrag_engine::EngineError;

/// One invalid field of a request: where it is (a path of field names and list indexes, e.g.
/// `["texts", "2"]`; empty for the request as a whole) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The field's path.
    pub field: Vec<String>,
    /// What is wrong, and what is accepted.
    pub message: String,
}

impl Problem {
    /// A problem with the field at `field`.
    pub fn new(field: &[&str], message: impl Into<String>) -> Self {
        Problem { field: field.iter().map(|f| (*f).to_string()).collect(), message: message.into() }
    }

    /// The field's path joined with dots (`filter.file_paths`).
    pub fn path(&self) -> String {
        self.field.join(".")
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // a message that starts with its field's name already (`file_name 'x…' is …`) is not prefixed again
        if self.field.is_empty() || self.message.starts_with(&format!("{} ", self.path())) {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path(), self.message)
        }
    }
}

fn problems_text(problems: &[Problem]) -> String {
    problems.iter().map(Problem::to_string).collect::<Vec<_>>().join("; ")
}

/// An unreadable file's message: LightRAG's words for a type it does not read (what its upload
/// route answers), the extractor's reason otherwise.
fn unreadable_text(name: &str, source: &DocTextError) -> String {
    match source {
        DocTextError::Unsupported { supported, .. } => {
            format!("Unsupported file type: '{name}'. Supported types: {}", supported.join(", "))
        }
        other => format!("'{name}': {other}"),
    }
}

/// Why a use case did not succeed. The message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Invalid input, each problem naming its field (REST 422, an MCP tool error, a CLI message).
    #[error("{}", problems_text(.0))]
    Invalid(Vec<Problem>),
    /// A document's bytes could not be read as text: an unsupported type, a damaged file, an
    /// encrypted PDF without its password, no text at all (REST 400).
    #[error("{}", unreadable_text(.name, .source))]
    Unreadable {
        /// The file's name as the client gave it.
        name: String,
        /// Why.
        #[source]
        source: DocTextError,
    },
    /// Larger than a limit (REST 413); the message names the limit and its setting.
    #[error("{0}")]
    TooLarge(String),
    /// The stored state refuses the request: the name is taken, the content is stored already,
    /// an earlier version is not indexed yet, a job holds the knowledge base (REST 409).
    #[error("{0}")]
    Conflict(String),
    /// What the request names does not exist (REST 404).
    #[error("{0}")]
    NotFound(String),
    /// Too busy right now: try again after `retry_after_secs` (REST 503 with `Retry-After`).
    #[error("{message}")]
    Busy {
        /// What is busy.
        message: String,
        /// When to try again.
        retry_after_secs: u64,
    },
    /// The engine failed (a provider, the store); each front end maps it with its engine table.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A file could not be read or written.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

impl AppError {
    /// [`AppError::Invalid`] with one problem.
    pub fn invalid(field: &[&str], message: impl Into<String>) -> Self {
        AppError::Invalid(vec![Problem::new(field, message)])
    }

    /// The problems of an [`AppError::Invalid`] (empty for the other kinds).
    pub fn problems(&self) -> &[Problem] {
        match self {
            AppError::Invalid(problems) => problems,
            _ => &[],
        }
    }
}

/// Result alias.
pub type Result<T, E = AppError> = std::result::Result<T, E>;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn problems_name_their_fields_and_causes_are_kept() {
        let e = AppError::Invalid(vec![
            Problem::new(&["top_k"], "Input should be less than or equal to 1000"),
            Problem::new(&["filter", "file_paths"], "bad glob"),
        ]);
        assert_eq!(e.to_string(), "top_k: Input should be less than or equal to 1000; filter.file_paths: bad glob");
        let unreadable = AppError::Unreadable { name: "a.pdf".into(), source: DocTextError::Empty { format: "PDF" } };
        assert!(unreadable.to_string().starts_with("'a.pdf': no text found in this PDF file"), "{unreadable}");
        assert!(unreadable.source().unwrap().downcast_ref::<DocTextError>().is_some());
    }
}
