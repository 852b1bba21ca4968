//! Role-specific chat models, as in LightRAG: `EXTRACT_LLM_*` (entity extraction and description
//! summaries), `KEYWORD_LLM_*` (query keywords) and `QUERY_LLM_*` (answers), each with
//! `_LLM_BINDING`, `_LLM_MODEL`, `_LLM_BINDING_HOST`, `_LLM_BINDING_API_KEY`, `_LLM_TIMEOUT`,
//! `_MAX_ASYNC_LLM` and, for Bedrock, `_AWS_REGION`, `_AWS_ACCESS_KEY_ID`,
//! `_AWS_SECRET_ACCESS_KEY`, `_AWS_SESSION_TOKEN`. Every field left unset falls back to the main `LLM_*` setting; a role with
//! none of its fields set uses the main model.

use lightrag_ports::UsageRole;

use crate::error::ConfigError;
use crate::parse::Reader;
use crate::providers::{LlmBinding, LlmSettings, llm_settings};
use crate::raw::RawConfig;

/// A LightRAG LLM role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmRole {
    /// Entity/relation extraction and description summaries (`EXTRACT_LLM_*`).
    Extract,
    /// Query keyword extraction (`KEYWORD_LLM_*`).
    Keyword,
    /// Answers (`QUERY_LLM_*`).
    Query,
}

impl LlmRole {
    /// Every role.
    pub const ALL: [LlmRole; 3] = [LlmRole::Extract, LlmRole::Keyword, LlmRole::Query];

    /// The settings prefix (`EXTRACT`, `KEYWORD`, `QUERY`).
    pub fn prefix(self) -> &'static str {
        match self {
            LlmRole::Extract => "EXTRACT",
            LlmRole::Keyword => "KEYWORD",
            LlmRole::Query => "QUERY",
        }
    }

    /// The engine's call kinds this role serves.
    pub fn usage_roles(self) -> Vec<UsageRole> {
        match self {
            LlmRole::Extract => vec![UsageRole::Extract, UsageRole::Summary],
            LlmRole::Keyword => vec![UsageRole::Keywords],
            LlmRole::Query => vec![UsageRole::Answer],
        }
    }
}

/// The chat model of one role.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleLlmSettings {
    /// The role.
    pub role: LlmRole,
    /// Its model (main settings where the role sets nothing).
    pub llm: LlmSettings,
}

/// `(suffix after the role prefix, main setting it overrides)`.
const FIELDS: [(&str, &str); 10] = [
    ("_LLM_BINDING", "LLM_BINDING"),
    ("_LLM_MODEL", "LLM_MODEL"),
    ("_LLM_BINDING_HOST", "LLM_BINDING_HOST"),
    ("_LLM_BINDING_API_KEY", "LLM_BINDING_API_KEY"),
    ("_LLM_TIMEOUT", "LLM_TIMEOUT"),
    ("_MAX_ASYNC_LLM", "MAX_ASYNC_LLM"),
    ("_AWS_REGION", "AWS_REGION"),
    ("_AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID"),
    ("_AWS_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"),
    ("_AWS_SESSION_TOKEN", "AWS_SESSION_TOKEN"),
];

/// The roles that set at least one of their fields, with the main settings filled in.
pub(crate) fn role_llm_settings(raw: &RawConfig) -> Result<Vec<RoleLlmSettings>, ConfigError> {
    let mut out = Vec::new();
    for role in LlmRole::ALL {
        let mut derived = raw.clone();
        let mut any = false;
        for (suffix, main) in FIELDS {
            if let Some(value) = raw.get(&format!("{}{suffix}", role.prefix())) {
                derived.set(main, &value.value, value.source.clone());
                any = true;
            }
        }
        if !any {
            continue;
        }
        // A role on another provider than the main model inherits neither its host nor its key
        // (LightRAG's cross-provider rule): it uses its provider's default host, and needs its
        // own model.
        let role_key = |suffix: &str| format!("{}{suffix}", role.prefix());
        let main_binding = raw.get("LLM_BINDING").map(|v| v.value.trim().to_ascii_lowercase());
        let role_binding = raw.get(&role_key("_LLM_BINDING")).map(|v| v.value.trim().to_ascii_lowercase());
        if let Some(binding) = role_binding.filter(|b| Some(b) != main_binding.as_ref() && b != "none") {
            if raw.get(&role_key("_LLM_MODEL")).is_none() {
                return Err(ConfigError::Missing {
                    key: role_key("_LLM_MODEL"),
                    hint: format!(
                        "{}={binding} differs from LLM_BINDING, so the role needs its own model",
                        role_key("_LLM_BINDING")
                    ),
                });
            }
            if raw.get(&role_key("_LLM_BINDING_HOST")).is_none() {
                derived.remove("LLM_BINDING_HOST");
            }
            if raw.get(&role_key("_LLM_BINDING_API_KEY")).is_none() {
                derived.remove("LLM_BINDING_API_KEY");
            }
        }
        let r = Reader::new(&derived);
        let in_role = |e: ConfigError| {
            ConfigError::Conflict(format!(
                "{}_LLM_* (the {} model; unset fields fall back to LLM_*): {e}",
                role.prefix(),
                role.prefix().to_lowercase()
            ))
        };
        let max_async = if r.is_set("MAX_ASYNC_LLM") {
            r.positive("MAX_ASYNC_LLM", 4).map_err(in_role)?
        } else {
            r.positive("MAX_ASYNC", 4).map_err(in_role)?
        };
        let timeout = r.positive("LLM_TIMEOUT", 240).map_err(in_role)?;
        let llm = llm_settings(r, timeout, max_async).map_err(in_role)?;
        if llm.binding == LlmBinding::None {
            return Err(in_role(ConfigError::Conflict(
                "a role cannot turn the LLM off; unset its binding to use the main model".into(),
            )));
        }
        out.push(RoleLlmSettings { role, llm });
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn raw(pairs: &[(&str, &str)]) -> RawConfig {
        let base = [("LLM_BINDING", "openai"), ("LLM_BINDING_HOST", "http://main:8000/v1"), ("LLM_MODEL", "big")];
        let env = base.iter().chain(pairs).map(|(k, v)| (k.to_string(), v.to_string()));
        RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap()
    }

    #[test]
    fn unset_role_fields_fall_back_to_the_main_model() {
        let roles =
            role_llm_settings(&raw(&[("EXTRACT_LLM_MODEL", "small"), ("EXTRACT_MAX_ASYNC_LLM", "16")])).unwrap();
        assert_eq!(roles.len(), 1, "only the role that sets something");
        let extract = &roles[0];
        assert_eq!(extract.role, LlmRole::Extract);
        assert_eq!(extract.llm.model, "small");
        assert_eq!(extract.llm.host, "http://main:8000/v1", "inherited");
        assert_eq!(extract.llm.max_async, 16);
        assert_eq!(extract.llm.timeout_secs, 240);
        assert_eq!(LlmRole::Extract.usage_roles(), vec![UsageRole::Extract, UsageRole::Summary]);
    }

    #[test]
    fn no_role_settings_no_role_models() {
        assert!(role_llm_settings(&raw(&[])).unwrap().is_empty());
    }

    #[test]
    fn a_bad_role_value_names_the_role() {
        let err = role_llm_settings(&raw(&[("QUERY_LLM_TIMEOUT", "soon")])).unwrap_err().to_string();
        assert!(err.contains("QUERY_LLM_*"), "{err}");
        let err = role_llm_settings(&raw(&[("KEYWORD_LLM_BINDING", "none")])).unwrap_err().to_string();
        assert!(err.contains("KEYWORD_LLM_*") && err.contains("cannot turn the LLM off"), "{err}");
    }
}
