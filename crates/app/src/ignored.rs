//! LightRAG settings that lightrag-rs reads but does not act on. A `.env` written for the Python
//! server may set them; rather than silently doing something else than the user asked for, every
//! command warns about each one at start-up ([`crate::Settings::ignored`]).

use crate::raw::RawConfig;

/// A LightRAG setting found in the configuration that this version ignores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredSetting {
    /// The setting's name.
    pub key: String,
    /// Where it was set (`from .env file ./.env`, …).
    pub source: String,
    /// What LightRAG does with it, and what happens here instead.
    pub why: &'static str,
}

impl std::fmt::Display for IgnoredSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}) is ignored: {}", self.key, self.source, self.why)
    }
}

/// How a rule matches a key.
enum Match {
    /// This exact name.
    Exact(&'static str),
    /// Names starting with this.
    Prefix(&'static str),
}

const GEMINI_OPTION: &str = "this Gemini option is not sent; the other GEMINI_LLM_* options are";
const ROLE_LLM: &str = "the vision role is not supported (no image analysis); the other roles \
                        (EXTRACT_, KEYWORD_, QUERY_LLM_*) are";
const STORAGE: &str = "lightrag-rs keeps documents, graph and vectors in one SQLite file per workspace \
                       (WORKING_DIR); other storage backends are not supported";
const PARSER: &str = "external document parsers (MinerU, Docling) are not supported; uploads use the built-in \
                      extraction (PDF text layer, DOCX, PPTX, XLSX, ODT, RTF, EPUB, HTML, text)";
const CHUNKER: &str = "only the fixed-token chunker (CHUNK_SIZE, CHUNK_OVERLAP_SIZE) is supported";
const LOG_FILE: &str = "logs go to stderr (redirect it, or use journald/docker logs); there is no log file";

/// The settings LightRAG knows that are ignored here. Values that ask for the default behaviour
/// (e.g. `RERANK_BINDING=null`) are not reported.
const RULES: &[(Match, &str)] = &[
    (Match::Exact("GEMINI_LLM_CANDIDATE_COUNT"), GEMINI_OPTION),
    (Match::Exact("GEMINI_LLM_SAFETY_SETTINGS"), GEMINI_OPTION),
    (Match::Prefix("VLM_LLM_"), ROLE_LLM),
    (Match::Exact("VLM_PROCESS_ENABLE"), "image analysis with a vision model is not supported"),
    (Match::Exact("LIGHTRAG_KV_STORAGE"), STORAGE),
    (Match::Exact("LIGHTRAG_DOC_STATUS_STORAGE"), STORAGE),
    (Match::Exact("LIGHTRAG_GRAPH_STORAGE"), STORAGE),
    (Match::Exact("LIGHTRAG_VECTOR_STORAGE"), STORAGE),
    (Match::Exact("LIGHTRAG_PARSER"), PARSER),
    (Match::Prefix("MINERU_"), PARSER),
    (Match::Prefix("DOCLING_"), PARSER),
    (Match::Prefix("CHUNK_R_"), CHUNKER),
    (Match::Prefix("CHUNK_V_"), CHUNKER),
    (Match::Prefix("CHUNK_P_"), CHUNKER),
    (Match::Exact("WORKERS"), "one process serves every request (async); there are no worker processes"),
    (Match::Exact("LOG_DIR"), LOG_FILE),
    (Match::Exact("LOG_MAX_BYTES"), LOG_FILE),
    (Match::Exact("LOG_BACKUP_COUNT"), LOG_FILE),
];

/// Values meaning "off" or "the default", which need no warning.
fn asks_for_nothing(key: &str, value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    match key {
        "VLM_PROCESS_ENABLE" => matches!(v.as_str(), "false" | "0" | "no" | "off"),
        "GEMINI_LLM_CANDIDATE_COUNT" => v == "1",
        "LIGHTRAG_KV_STORAGE" => v == "jsonkvstorage",
        "LIGHTRAG_DOC_STATUS_STORAGE" => v == "jsondocstatusstorage",
        "LIGHTRAG_GRAPH_STORAGE" => v == "networkxstorage",
        "LIGHTRAG_VECTOR_STORAGE" => v == "nanovectordbstorage",
        _ => false,
    }
}

/// The ignored settings present in `raw`, in key order.
pub fn ignored_settings(raw: &RawConfig) -> Vec<IgnoredSetting> {
    raw.keys()
        .filter_map(|key| {
            let (_, why) = RULES.iter().find(|(m, _)| match m {
                Match::Exact(name) => key == *name,
                Match::Prefix(prefix) => key.starts_with(prefix),
            })?;
            let value = raw.get(key)?;
            (!asks_for_nothing(key, &value.value)).then(|| IgnoredSetting {
                key: key.to_string(),
                source: value.source.to_string(),
                why,
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn raw(pairs: &[(&str, &str)]) -> RawConfig {
        let env = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        RawConfig::from_sources(env, None, None, BTreeMap::new()).unwrap()
    }

    #[test]
    fn unsupported_lightrag_settings_are_reported_with_their_source() {
        let found = ignored_settings(&raw(&[
            ("RERANK_BINDING", "cohere"),
            ("ENTITY_EXTRACTION_USE_JSON", "true"),
            ("GEMINI_LLM_SAFETY_SETTINGS", "{}"),
            ("VLM_LLM_MODEL", "gpt-4o-mini"),
            ("LIGHTRAG_GRAPH_STORAGE", "Neo4JStorage"),
            ("LLM_MODEL", "gpt-4o"),
            ("CHUNK_SIZE", "800"),
        ]));
        let keys: Vec<&str> = found.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, ["GEMINI_LLM_SAFETY_SETTINGS", "LIGHTRAG_GRAPH_STORAGE", "VLM_LLM_MODEL"]);
        let line = found[1].to_string();
        assert!(line.contains("LIGHTRAG_GRAPH_STORAGE (from the environment) is ignored: lightrag-rs keeps"), "{line}");
    }

    /// Regression: reranking and JSON extraction were warned about as ignored; they are honoured now.
    #[test]
    fn rerank_and_json_extraction_are_no_longer_ignored() {
        let found = ignored_settings(&raw(&[
            ("RERANK_BINDING", "jina"),
            ("RERANK_MODEL", "m"),
            ("MIN_RERANK_SCORE", "0.3"),
            ("ENTITY_EXTRACTION_USE_JSON", "true"),
        ]));
        assert_eq!(found, Vec::new());
    }

    #[test]
    fn values_that_ask_for_the_default_are_not_reported() {
        let found = ignored_settings(&raw(&[
            ("GEMINI_LLM_CANDIDATE_COUNT", "1"),
            ("VLM_PROCESS_ENABLE", "false"),
            ("LIGHTRAG_KV_STORAGE", "JsonKVStorage"),
            ("LIGHTRAG_GRAPH_STORAGE", "NetworkXStorage"),
        ]));
        assert_eq!(found, Vec::new());
    }
}
