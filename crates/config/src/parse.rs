//! Typed parsing of raw values, with errors that name the setting, the value and its source.

use std::str::FromStr;

use crate::error::ConfigError;
use crate::raw::{RawConfig, Source};
use crate::secret::{Secret, is_secret_key};

type Result<T> = std::result::Result<T, ConfigError>;

/// Reads typed values out of a [`RawConfig`].
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    raw: &'a RawConfig,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(raw: &'a RawConfig) -> Self {
        Self { raw }
    }

    /// Where `key` came from ([`Source::Default`] when unset).
    pub(crate) fn raw_source(&self, key: &str) -> Source {
        self.raw.source_of(key)
    }

    /// Whether `key` is set (non-empty) in any source.
    pub(crate) fn is_set(&self, key: &str) -> bool {
        self.raw.get(key).is_some()
    }

    /// `KEY=value (source)` for messages about combinations of settings; `KEY=value (built-in
    /// default)` when unset.
    pub(crate) fn describe(&self, key: &str, effective: &dyn std::fmt::Display) -> String {
        match self.raw.get(key) {
            Some(v) if is_secret_key(key) => format!("{key}=*** ({})", v.source),
            Some(v) => format!("{key}={:?} ({})", v.value, v.source),
            None => format!("{key}={effective} ({})", Source::Default),
        }
    }

    /// The error for a bad value of `key`.
    pub(crate) fn invalid(&self, key: &str, expected: impl Into<String>) -> ConfigError {
        let (value, origin) = match self.raw.get(key) {
            Some(v) if is_secret_key(key) => ("***".to_string(), v.source.clone()),
            Some(v) => (v.value.clone(), v.source.clone()),
            None => (String::new(), Source::Default),
        };
        ConfigError::Invalid { key: key.to_string(), value, origin, expected: expected.into() }
    }

    /// Parses `key` with `f` (which returns `None` for bad input), or returns `default` if unset.
    pub(crate) fn with<T>(
        &self,
        key: &str,
        default: T,
        expected: &str,
        f: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T> {
        match self.raw.get(key) {
            None => Ok(default),
            Some(v) => f(&v.value).ok_or_else(|| self.invalid(key, expected)),
        }
    }

    /// Like [`Reader::with`] for an optional setting with no default.
    pub(crate) fn opt_with<T>(
        &self,
        key: &str,
        expected: &str,
        f: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>> {
        match self.raw.get(key) {
            None => Ok(None),
            Some(v) => f(&v.value).map(Some).ok_or_else(|| self.invalid(key, expected)),
        }
    }

    /// A string, or `default`.
    pub(crate) fn string(&self, key: &str, default: &str) -> String {
        self.raw.get(key).map_or_else(|| default.to_string(), |v| v.value.clone())
    }

    /// A string, if set.
    pub(crate) fn opt_string(&self, key: &str) -> Option<String> {
        self.raw.get(key).map(|v| v.value.clone())
    }

    /// The first of `keys` that is set.
    pub(crate) fn first_string(&self, keys: &[&str]) -> Option<String> {
        keys.iter().find_map(|k| self.opt_string(k))
    }

    /// A secret, if set.
    pub(crate) fn secret(&self, key: &str) -> Option<Secret> {
        self.raw.get(key).map(|v| Secret::new(v.value.clone()))
    }

    /// An integer ≥ 1.
    pub(crate) fn positive<T>(&self, key: &str, default: T) -> Result<T>
    where
        T: FromStr + PartialOrd + From<u8>,
    {
        self.with(key, default, "a positive integer", |s| s.parse::<T>().ok().filter(|n| *n >= T::from(1u8)))
    }

    /// An integer ≥ 0.
    pub(crate) fn non_negative<T>(&self, key: &str, default: T) -> Result<T>
    where
        T: FromStr,
    {
        self.with(key, default, "a non-negative integer", |s| s.parse::<T>().ok())
    }

    /// A number in `[lo, hi]`.
    pub(crate) fn float_in(&self, key: &str, default: f64, lo: f64, hi: f64) -> Result<f64> {
        let expected = format!("a number between {lo} and {hi}");
        self.with(key, default, &expected, |s| s.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= lo && *x <= hi))
    }

    /// A number > 0.
    pub(crate) fn positive_float(&self, key: &str, default: f64) -> Result<f64> {
        self.with(key, default, "a positive number", |s| s.parse::<f64>().ok().filter(|x| x.is_finite() && *x > 0.0))
    }

    /// A boolean: true/false, 1/0, yes/no, on/off (any case).
    pub(crate) fn boolean(&self, key: &str, default: bool) -> Result<bool> {
        self.with(key, default, BOOL_EXPECTED, parse_bool)
    }

    /// One of `choices` (matched case-insensitively), or `default`.
    pub(crate) fn choice<T: Copy>(&self, key: &str, default: T, choices: &[(&str, T)]) -> Result<T> {
        let expected = one_of(choices);
        self.with(key, default, &expected, |s| lookup(s, choices))
    }

    /// An `http://` or `https://` URL, if set.
    pub(crate) fn opt_url(&self, key: &str) -> Result<Option<String>> {
        self.opt_with(key, "an http:// or https:// URL", |s| {
            is_http_url(s).then(|| s.trim_end_matches('/').to_string())
        })
    }

    /// A list: a JSON array of strings (`["a","b"]`) or comma-separated (`a, b`); or `default`.
    pub(crate) fn list(&self, key: &str, default: Vec<String>) -> Result<Vec<String>> {
        self.with(key, default, LIST_EXPECTED, parse_list)
    }
}

pub(crate) const BOOL_EXPECTED: &str = "true/false, 1/0, yes/no or on/off";
pub(crate) const LIST_EXPECTED: &str = r#"a non-empty list, as JSON (["A","B"]) or comma-separated (A,B)"#;

pub(crate) fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn one_of<T>(choices: &[(&str, T)]) -> String {
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    format!("one of {}", names.join(", "))
}

fn lookup<T: Copy>(s: &str, choices: &[(&str, T)]) -> Option<T> {
    choices.iter().find(|(n, _)| n.eq_ignore_ascii_case(s.trim())).map(|(_, v)| *v)
}

pub(crate) fn is_http_url(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    ["http://", "https://"].iter().any(|p| lower.starts_with(p) && lower.len() > p.len())
}

/// Parses a list setting. Accepts a JSON array of strings, a bracketed list with single quotes
/// (`['a', 'b']`, Python style), or a comma-separated list. Items are trimmed; empty items dropped.
/// Returns `None` for malformed or empty lists.
pub(crate) fn parse_list(s: &str) -> Option<Vec<String>> {
    let s = s.trim();
    let items: Vec<String> = if s.starts_with('[') {
        if let Ok(v) = serde_json::from_str::<Vec<String>>(s) {
            v
        } else {
            let inner = s.strip_prefix('[')?.strip_suffix(']')?;
            inner.split(',').map(|i| i.trim().trim_matches(|c| c == '\'' || c == '"').to_string()).collect()
        }
    } else {
        s.split(',').map(|i| i.to_string()).collect()
    };
    let items: Vec<String> = items.into_iter().map(|i| i.trim().to_string()).filter(|i| !i.is_empty()).collect();
    (!items.is_empty()).then_some(items)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn booleans() {
        for t in ["true", "TRUE", "1", "yes", "On"] {
            assert_eq!(parse_bool(t), Some(true), "{t}");
        }
        for f in ["false", "False", "0", "NO", "off"] {
            assert_eq!(parse_bool(f), Some(false), "{f}");
        }
        for bad in ["", "2", "maybe", "truee"] {
            assert_eq!(parse_bool(bad), None, "{bad}");
        }
    }

    #[test]
    fn lists() {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(parse_list(r#"["Person", "Organization"]"#), Some(v(&["Person", "Organization"])));
        assert_eq!(parse_list("['Person', 'Organization']"), Some(v(&["Person", "Organization"])));
        assert_eq!(parse_list("Person, Organization ,"), Some(v(&["Person", "Organization"])));
        assert_eq!(parse_list("[]"), None);
        assert_eq!(parse_list(" , "), None);
        assert_eq!(parse_list("[\"unterminated"), None);
    }

    #[test]
    fn urls() {
        assert!(is_http_url("http://localhost:11434"));
        assert!(is_http_url("HTTPS://api.openai.com/v1"));
        assert!(!is_http_url("localhost:11434"));
        assert!(!is_http_url("http://"));
        assert!(!is_http_url("ftp://x"));
    }
}
