//! Raw configuration: the layered, untyped `NAME → value` map, with where each value came from.
//!
//! Sources, lowest to highest precedence: built-in defaults (applied later, when typed fields
//! are parsed), a `.env` file, a TOML config file, the process environment, command-line flags.
//! A key whose value is empty (after trimming) is treated as unset in every source, so it never
//! hides a value from a lower layer.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::ConfigError;
use crate::secret::is_secret_key;

/// Where a raw value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Not set anywhere: the built-in default.
    Default,
    /// A `.env` file.
    DotEnv(PathBuf),
    /// A TOML config file (`--config`).
    Toml(PathBuf),
    /// The process environment.
    Env,
    /// A command-line flag.
    Flag,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("built-in default"),
            Source::DotEnv(p) => write!(f, "from .env file {}", p.display()),
            Source::Toml(p) => write!(f, "from config file {}", p.display()),
            Source::Env => f.write_str("from the environment"),
            Source::Flag => f.write_str("from a command-line flag"),
        }
    }
}

/// One raw value and its source.
#[derive(Clone, PartialEq, Eq)]
pub struct RawValue {
    /// The text, trimmed of surrounding whitespace.
    pub value: String,
    /// Where it came from.
    pub source: Source,
}

impl fmt::Debug for RawValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} ({})", self.value, self.source)
    }
}

/// The layered raw values. Build it with [`RawConfig::from_sources`] (explicit inputs, for tests
/// and embedding) or [`RawConfig::load`] (the real process environment and `./.env`).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct RawConfig {
    values: BTreeMap<String, RawValue>,
}

impl fmt::Debug for RawConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (k, v) in &self.values {
            if is_secret_key(k) {
                map.entry(k, &format_args!("\"***\" ({})", v.source));
            } else {
                map.entry(k, v);
            }
        }
        map.finish()
    }
}

impl RawConfig {
    /// Layers the given sources: `.env` file < TOML file < `env` < `flags`.
    ///
    /// `env` is the process environment (pass `std::env::vars()`-like pairs, or a test map).
    /// `dotenv_path` and `toml_path`, when given, must exist and parse. Keys from the environment
    /// and `.env` are case-sensitive (LightRAG's names are upper case); TOML keys and flag names
    /// are upper-cased, and TOML sections are joined to their keys (`[llm] model` is `LLM_MODEL`).
    pub fn from_sources(
        env: impl IntoIterator<Item = (String, String)>,
        dotenv_path: Option<&Path>,
        toml_path: Option<&Path>,
        flags: BTreeMap<String, String>,
    ) -> Result<RawConfig, ConfigError> {
        let mut raw = RawConfig::default();
        if let Some(path) = dotenv_path {
            for (k, v) in read_dotenv(path)? {
                raw.set(k, v, Source::DotEnv(path.to_path_buf()));
            }
        }
        if let Some(path) = toml_path {
            for (k, v) in read_toml(path)? {
                raw.set(k, v, Source::Toml(path.to_path_buf()));
            }
        }
        for (k, v) in env {
            raw.set(k, v, Source::Env);
        }
        for (k, v) in flags {
            raw.set(k.to_ascii_uppercase(), v, Source::Flag);
        }
        Ok(raw)
    }

    /// Loads the real sources: `./.env` if the current directory has one, the TOML file given
    /// with `--config` (if any), the process environment (entries that are not valid UTF-8 are
    /// skipped), and `flags`. Does not modify the process environment.
    pub fn load(config_file: Option<&Path>, flags: BTreeMap<String, String>) -> Result<RawConfig, ConfigError> {
        let dotenv = PathBuf::from(".env");
        let dotenv = dotenv.is_file().then_some(dotenv.as_path());
        let env = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
        Self::from_sources(env, dotenv, config_file, flags)
    }

    /// Sets `key` from `source`, overriding what is there. Empty values are ignored.
    pub fn set(&mut self, key: impl Into<String>, value: impl AsRef<str>, source: Source) {
        let value = value.as_ref().trim();
        if value.is_empty() {
            return;
        }
        self.values.insert(key.into(), RawValue { value: value.to_string(), source });
    }

    /// The value of `key`, if set (non-empty) in any source.
    pub fn get(&self, key: &str) -> Option<&RawValue> {
        self.values.get(key)
    }

    /// Forgets `key` (as if no source had set it).
    pub fn remove(&mut self, key: &str) {
        self.values.remove(key);
    }

    /// Where `key` came from ([`Source::Default`] when unset).
    pub fn source_of(&self, key: &str) -> Source {
        self.get(key).map(|v| v.source.clone()).unwrap_or(Source::Default)
    }

    /// Every set key, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }
}

fn read_dotenv(path: &Path) -> Result<Vec<(String, String)>, ConfigError> {
    let iter = dotenvy::from_path_iter(path).map_err(|e| ConfigError::Read {
        what: ".env file",
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let mut out = Vec::new();
    for item in iter {
        let (k, v) = item.map_err(|e| ConfigError::DotEnv { path: path.to_path_buf(), reason: e.to_string() })?;
        out.push((k, v));
    }
    Ok(out)
}

fn read_toml(path: &Path) -> Result<Vec<(String, String)>, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
        what: "config file",
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| ConfigError::Toml { path: path.to_path_buf(), reason: e.to_string() })?;
    let mut out = Vec::new();
    flatten_table(path, "", &table, &mut out)?;
    Ok(out)
}

fn flatten_table(
    path: &Path,
    prefix: &str,
    table: &toml::Table,
    out: &mut Vec<(String, String)>,
) -> Result<(), ConfigError> {
    for (k, v) in table {
        let key =
            if prefix.is_empty() { k.to_ascii_uppercase() } else { format!("{prefix}_{}", k.to_ascii_uppercase()) };
        match v {
            toml::Value::Table(t) => flatten_table(path, &key, t, out)?,
            other => out.push((key.clone(), toml_scalar(path, &key, other)?)),
        }
    }
    Ok(())
}

/// Renders a TOML value as the text an environment variable would hold.
fn toml_scalar(path: &Path, key: &str, value: &toml::Value) -> Result<String, ConfigError> {
    Ok(match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(items) => {
            // Lists become a JSON array of strings, the form LightRAG's list settings accept.
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    toml::Value::Array(_) | toml::Value::Table(_) => {
                        return Err(ConfigError::Toml {
                            path: path.to_path_buf(),
                            reason: format!(
                                "{key}: nested lists and tables are not supported; use a list of plain values"
                            ),
                        });
                    }
                    scalar => parts.push(serde_json::Value::String(toml_scalar(path, key, scalar)?)),
                }
            }
            serde_json::Value::Array(parts).to_string()
        }
        toml::Value::Table(_) => {
            return Err(ConfigError::Toml { path: path.to_path_buf(), reason: format!("{key}: unexpected table") });
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn toml_sections_and_lists_flatten() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "c.toml",
            "chunk_size = 800\nCOSINE_THRESHOLD = 0.5\nenable_llm_cache = false\n\
             entity_types = [\"Person\", \"Place\"]\n[llm]\nmodel = \"m1\"\nbinding_host = \"http://h\"\n",
        );
        let raw = RawConfig::from_sources(Vec::new(), None, Some(&p), BTreeMap::new()).unwrap();
        assert_eq!(raw.get("CHUNK_SIZE").unwrap().value, "800");
        assert_eq!(raw.get("COSINE_THRESHOLD").unwrap().value, "0.5");
        assert_eq!(raw.get("ENABLE_LLM_CACHE").unwrap().value, "false");
        assert_eq!(raw.get("ENTITY_TYPES").unwrap().value, r#"["Person","Place"]"#);
        assert_eq!(raw.get("LLM_MODEL").unwrap().value, "m1");
        assert_eq!(raw.get("LLM_BINDING_HOST").unwrap().value, "http://h");
        assert_eq!(raw.source_of("LLM_MODEL"), Source::Toml(p));
    }

    #[test]
    fn empty_values_do_not_hide_lower_layers() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), ".env", "WORKSPACE=from_dotenv\nTOP_K=\n");
        let env = vec![("WORKSPACE".to_string(), "  ".to_string())];
        let raw = RawConfig::from_sources(env, Some(&p), None, BTreeMap::new()).unwrap();
        assert_eq!(raw.get("WORKSPACE").unwrap().value, "from_dotenv");
        assert!(raw.get("TOP_K").is_none());
        assert_eq!(raw.source_of("TOP_K"), Source::Default);
    }

    #[test]
    fn missing_and_broken_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.toml");
        let err = RawConfig::from_sources(Vec::new(), None, Some(&missing), BTreeMap::new()).unwrap_err().to_string();
        assert!(err.contains("nope.toml"), "{err}");
        let bad = write(dir.path(), "bad.toml", "chunk_size = = 3");
        let err = RawConfig::from_sources(Vec::new(), None, Some(&bad), BTreeMap::new()).unwrap_err().to_string();
        assert!(err.contains("bad.toml"), "{err}");
        let nested = write(dir.path(), "n.toml", "x = [[1]]");
        assert!(RawConfig::from_sources(Vec::new(), None, Some(&nested), BTreeMap::new()).is_err());
    }

    #[test]
    fn debug_hides_secret_values() {
        let env = vec![
            ("OPENAI_API_KEY".to_string(), "sk-hidden".to_string()),
            ("LLM_MODEL".to_string(), "visible-model".to_string()),
        ];
        let raw = RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap();
        let dbg = format!("{raw:?}");
        assert!(!dbg.contains("sk-hidden"), "{dbg}");
        assert!(dbg.contains("visible-model"), "{dbg}");
    }
}
