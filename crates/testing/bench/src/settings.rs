//! Builds the engine settings the way a user would: LightRAG variable names, layered through
//! `RawConfig` and validated by `Settings::from_raw`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use lightrag_config::{RawConfig, Settings};

/// Parses `NAME=VALUE` overrides.
pub fn parse_overrides(sets: &[String]) -> Result<Vec<(String, String)>> {
    sets.iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_ascii_uppercase(), v.trim().to_string())),
            _ => bail!("--set {s}: expected NAME=VALUE, e.g. --set MAX_ASYNC=8"),
        })
        .collect()
}

/// The settings for an engine talking to the scripted server at `base_url`, storing in
/// `working_dir`. `overrides` win over the benchmark's own values.
pub fn settings(base_url: &str, dim: usize, working_dir: &Path, overrides: &[(String, String)]) -> Result<Settings> {
    let mut flags: BTreeMap<String, String> = [
        ("LLM_BINDING", "openai".to_string()),
        ("LLM_BINDING_HOST", base_url.to_string()),
        ("LLM_MODEL", "scripted".to_string()),
        ("EMBEDDING_BINDING", "openai".to_string()),
        ("EMBEDDING_BINDING_HOST", base_url.to_string()),
        ("EMBEDDING_MODEL", "scripted".to_string()),
        ("EMBEDDING_DIM", dim.to_string()),
        ("WORKING_DIR", working_dir.display().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for (k, v) in overrides {
        flags.insert(k.clone(), v.clone());
    }
    // No process environment and no .env: the run depends on its arguments only.
    let raw = RawConfig::from_sources(std::iter::empty(), None, None, flags).context("building the configuration")?;
    Settings::from_raw(&raw).context("invalid settings (check the --set values)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_parse_and_win() {
        let o = parse_overrides(&["max_async=8".into(), "ENABLE_LLM_CACHE=false".into()]).unwrap();
        assert_eq!(o[0], ("MAX_ASYNC".to_string(), "8".to_string()));
        let s = settings("http://127.0.0.1:9/v1", 32, Path::new("/tmp/x"), &o).unwrap();
        assert_eq!(s.engine.llm.max_async, 8);
        assert!(!s.engine.llm.enable_cache);
        assert_eq!(s.working_dir, Path::new("/tmp/x"));
    }

    #[test]
    fn bad_override_is_refused() {
        assert!(parse_overrides(&["NOPE".into()]).is_err());
        assert!(parse_overrides(&["=3".into()]).is_err());
        assert!(
            settings("http://127.0.0.1:9/v1", 64, Path::new("/tmp/x"), &[("MAX_ASYNC".into(), "zero".into())]).is_err()
        );
    }
}
