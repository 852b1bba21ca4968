//! [`Secret`]: a string that never shows up in `Debug` or `Display` output.

/// A secret value (API key, password, token secret). Formatting prints `***`; read the value with
/// [`Secret::expose`] only where it is sent to its destination.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret text. Do not log it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// Setting names whose values are secrets: never echoed in errors or `Debug` output.
pub(crate) fn is_secret_key(key: &str) -> bool {
    const MARKERS: [&str; 5] = ["API_KEY", "PASSWORD", "SECRET", "TOKEN_BEARER", "AUTH_ACCOUNTS"];
    MARKERS.iter().any(|m| key.contains(m))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn secret_is_hidden() {
        let s = Secret::new("sk-very-secret");
        assert_eq!(format!("{s:?}"), "***");
        assert_eq!(format!("{s}"), "***");
        assert_eq!(s.expose(), "sk-very-secret");
    }

    #[test]
    fn secret_keys_are_recognised() {
        for k in ["LLM_BINDING_API_KEY", "OPENAI_API_KEY", "TOKEN_SECRET", "AUTH_ACCOUNTS", "POSTGRES_PASSWORD"] {
            assert!(is_secret_key(k), "{k}");
        }
        for k in ["LLM_MODEL", "CHUNK_SIZE", "TOKEN_EXPIRE_HOURS"] {
            assert!(!is_secret_key(k), "{k}");
        }
    }
}
