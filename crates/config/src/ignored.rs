//! LightRAG settings that lightrag-rs reads but does not act on. A `.env` written for the Python
//! server may set them; rather than silently doing something else than the user asked for, every
//! command warns about each one at start-up ([`crate::Settings::ignored`]).

use crate::postgres::{READ_POSTGRES, STORAGE_SELECTORS, is_postgres_backend, is_postgres_url};
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
const STORAGE: &str = "lightrag-rs keeps documents, graph and vectors in one store: a SQLite file per workspace \
                       (WORKING_DIR), or PostgreSQL (DATABASE_URL, or a PG… storage selector); other storage \
                       backends are not supported";
const POSTGRES_UNUSED: &str = "PostgreSQL is used only when DATABASE_URL is set or a LIGHTRAG_*_STORAGE setting \
                               names a PG… backend; the store is the SQLite file in WORKING_DIR";
const PARSER: &str = "external document parsers (MinerU, Docling) are not supported; uploads use the built-in \
                      extraction (PDF text layer, DOCX, PPTX, XLSX, ODT, RTF, EPUB, HTML, text)";
const CHUNKER: &str = "only the fixed-token chunker (CHUNK_SIZE, CHUNK_OVERLAP_SIZE, CHUNK_F_*) is supported";
const LOG_FILE: &str = "logs go to stderr (redirect it, or use journald/docker logs); there is no log file";
const BINDINGS: &str = "this provider's credentials or options are not read (see docs/providers.md for the \
                        bindings and their settings)";
const OPENAI_OPTION: &str = "not sent; put extra OpenAI request fields in OPENAI_LLM_EXTRA_BODY (the base URL is \
                             LLM_BINDING_HOST)";
const OLLAMA_OPTION: &str = "not sent; only temperature (OLLAMA_LLM_TEMPERATURE), num_predict and num_ctx are";
const VISION: &str = "image, table and equation analysis with a vision model is not supported";
const PROCESS_MODEL: &str = "one async process serves every request; LightRAG's worker and queue tuning does not apply";
const UI: &str = "web UI branding bundles and the /workspace page are not available (GET /ui/customization answers \
                  \"no customization\")";
const PROMPTS: &str = "prompt files and the server-side prompt prefix are not supported; the built-in prompts are used";
const LIMITS: &str =
    "request bodies are bounded by MAX_UPLOAD_SIZE; password checks run two at a time, without lockout";

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
    // Every other LightRAG setting lightrag-rs does not act on (issue 9: the table in
    // docs/configuration.md lists every LightRAG setting as honoured, warned or refused; a test
    // below keeps this list and that table in step).
    (Match::Exact("ACCESS_LOG"), LOG_FILE),
    (Match::Exact("ERROR_LOG"), LOG_FILE),
    (Match::Exact("VERBOSE"), "use LOG_LEVEL=DEBUG"),
    (Match::Exact("DASHSCOPE_WORKSPACE_ID"), BINDINGS),
    (Match::Exact("ANTHROPIC_API_KEY"), BINDINGS),
    (Match::Exact("GOOGLE_API_KEY"), BINDINGS),
    (Match::Exact("GOOGLE_CLOUD_LOCATION"), BINDINGS),
    (Match::Exact("GOOGLE_CLOUD_PROJECT"), BINDINGS),
    (Match::Exact("GOOGLE_VERTEX_BASE_URL"), BINDINGS),
    (Match::Exact("ZHIPUAI_API_KEY"), BINDINGS),
    (Match::Exact("OLLAMA_API_KEY"), BINDINGS),
    (Match::Exact("EMBEDDING_ASYMMETRIC"), BINDINGS),
    (Match::Exact("EMBEDDING_USE_BASE64"), BINDINGS),
    (Match::Prefix("VLM_"), VISION),
    (Match::Exact("MAX_PARALLEL_ANALYZE"), VISION),
    (Match::Exact("QUEUE_SIZE_ANALYZE"), VISION),
    (Match::Exact("MM_EXTRACT_CONTENT_MIN_TOKENS"), VISION),
    (Match::Exact("OPENAI_LLM_FREQUENCY_PENALTY"), OPENAI_OPTION),
    (Match::Exact("OPENAI_LLM_PRESENCE_PENALTY"), OPENAI_OPTION),
    (Match::Exact("OPENAI_LLM_SAFETY_IDENTIFIER"), OPENAI_OPTION),
    (Match::Exact("OPENAI_LLM_SERVICE_TIER"), OPENAI_OPTION),
    (Match::Exact("OPENAI_LLM_STOP"), OPENAI_OPTION),
    (Match::Exact("OPENAI_LLM_TOP_P"), OPENAI_OPTION),
    (Match::Exact("OPENAI_API_BASE"), OPENAI_OPTION),
    (Match::Exact("OPENAI_BASE_URL"), OPENAI_OPTION),
    (Match::Exact("OPENAI_API_VERSION"), OPENAI_OPTION),
    (Match::Prefix("OLLAMA_LLM_"), OLLAMA_OPTION),
    (Match::Prefix("OLLAMA_EMBEDDING_"), OLLAMA_OPTION),
    (Match::Prefix("POSTGRES_"), STORAGE),
    (Match::Prefix("NEO4J_"), STORAGE),
    (Match::Prefix("MILVUS_"), STORAGE),
    (Match::Prefix("MONGO_"), STORAGE),
    (Match::Prefix("MONGODB_"), STORAGE),
    (Match::Prefix("REDIS_"), STORAGE),
    (Match::Prefix("QDRANT_"), STORAGE),
    (Match::Prefix("MEMGRAPH_"), STORAGE),
    (Match::Prefix("OPENSEARCH_"), STORAGE),
    (Match::Exact("LIGHTRAG_FORCE_REPARSE_NATIVE"), PARSER),
    (Match::Prefix("DOCX_"), PARSER),
    (Match::Prefix("NATIVE_MD_"), PARSER),
    (Match::Prefix("PARSER_RESULT_BUNDLE_"), PARSER),
    (Match::Prefix("MAX_PARALLEL_PARSE_"), PARSER),
    (Match::Exact("QUEUE_SIZE_PARSE"), PARSER),
    (Match::Exact("SCAN_SPOOL_DIR"), PARSER),
    (Match::Exact("KEEPALIVE"), PROCESS_MODEL),
    (Match::Exact("QUEUE_SIZE_INSERT"), PROCESS_MODEL),
    (Match::Exact("LIGHTRAG_PERFORMANCE_TIMING_LOGS"), PROCESS_MODEL),
    (Match::Exact("MAX_PENDING_DOCUMENTS"), PROCESS_MODEL),
    (Match::Exact("MAX_UNACKED_MANUAL_RETRIES"), PROCESS_MODEL),
    (Match::Exact("PIPELINE_REQUIRE_STRICT_STORAGE_READS"), PROCESS_MODEL),
    (Match::Exact("PIPELINE_SCHEDULING_PAGE_SIZE"), PROCESS_MODEL),
    (Match::Exact("SCAN_ENQUEUE_BATCH_SIZE"), PROCESS_MODEL),
    (Match::Prefix("LANGFUSE_"), "Langfuse tracing is not built in; use /metrics and the query trace (include_trace)"),
    (Match::Exact("UI_TEMPLATES_DIR"), UI),
    (Match::Exact("LIGHTRAG_DEFAULT_UI"), UI),
    (Match::Exact("USER_PROMPT_PREFIX"), PROMPTS),
    (Match::Exact("USER_PROMPT_PREFIX_FILE"), PROMPTS),
    (Match::Exact("PROMPT_DIR"), PROMPTS),
    (Match::Exact("ENTITY_TYPE_PROMPT_FILE"), PROMPTS),
    (Match::Exact("MAX_REQUEST_BODY_BYTES"), LIMITS),
    (Match::Exact("MAX_TEXTS_PER_REQUEST"), LIMITS),
    (Match::Exact("LOGIN_MAX_FAILED_ATTEMPTS"), LIMITS),
    (Match::Exact("LOGIN_LOCKOUT_WINDOW_SECONDS"), LIMITS),
    (
        Match::Exact("EMBEDDING_CHUNK_OVERLAP_TOKEN_SIZE"),
        "chunks longer than EMBEDDING_TOKEN_LIMIT are cut for embedding, not re-split with an overlap",
    ),
];

/// Settings lightrag-rs reads itself although a rule above matches their prefix.
const READ_HERE: [&str; 4] =
    ["OLLAMA_LLM_TEMPERATURE", "OLLAMA_LLM_NUM_PREDICT", "OLLAMA_LLM_NUM_CTX", "OLLAMA_EMBEDDING_NUM_CTX"];

/// Values meaning "off" or "the default", which need no warning.
fn asks_for_nothing(key: &str, value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    let plain = match key {
        "VLM_PROCESS_ENABLE" => matches!(v.as_str(), "false" | "0" | "no" | "off"),
        "GEMINI_LLM_CANDIDATE_COUNT" => v == "1",
        "LIGHTRAG_KV_STORAGE" => v == "jsonkvstorage",
        "LIGHTRAG_DOC_STATUS_STORAGE" => v == "jsondocstatusstorage",
        "LIGHTRAG_GRAPH_STORAGE" => v == "networkxstorage",
        "LIGHTRAG_VECTOR_STORAGE" => v == "nanovectordbstorage",
        _ => false,
    };
    plain || (STORAGE_SELECTORS.contains(&key) && is_postgres_backend(value))
}

/// Whether the configuration selects the PostgreSQL store (see [`crate::postgres`]).
fn postgres_selected(raw: &RawConfig) -> bool {
    raw.get("DATABASE_URL").is_some_and(|v| is_postgres_url(&v.value))
        || STORAGE_SELECTORS.iter().any(|k| raw.get(k).is_some_and(|v| is_postgres_backend(&v.value)))
}

/// The ignored settings present in `raw`, in key order.
pub fn ignored_settings(raw: &RawConfig) -> Vec<IgnoredSetting> {
    let postgres = postgres_selected(raw);
    raw.keys()
        .filter(|key| !READ_HERE.contains(key))
        .filter_map(|key| {
            if READ_POSTGRES.contains(&key) {
                let value = raw.get(key)?;
                return (!postgres).then(|| IgnoredSetting {
                    key: key.to_string(),
                    source: value.source.to_string(),
                    why: POSTGRES_UNUSED,
                });
            }
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

    #[test]
    fn postgres_settings_are_read_once_postgres_is_selected_and_warned_otherwise() {
        let pg =
            [("POSTGRES_HOST", "db"), ("POSTGRES_SSL_CRL", "crl.pem"), ("LIGHTRAG_GRAPH_STORAGE", "PGGraphStorage")];
        let keys: Vec<String> = ignored_settings(&raw(&pg)).into_iter().map(|i| i.key).collect();
        assert_eq!(keys, ["POSTGRES_SSL_CRL"], "the selector and the connection settings are honoured");
        let found = ignored_settings(&raw(&[("POSTGRES_HOST", "db")]));
        assert_eq!(found.len(), 1, "without a PG selector or DATABASE_URL the SQLite store is used");
        assert!(found[0].why.contains("DATABASE_URL"), "{}", found[0]);
        let url = [("DATABASE_URL", "postgres://u@h/d"), ("POSTGRES_MAX_CONNECTIONS", "20")];
        assert_eq!(ignored_settings(&raw(&url)), Vec::new());
        let mixed = [("LIGHTRAG_KV_STORAGE", "PGKVStorage"), ("LIGHTRAG_GRAPH_STORAGE", "Neo4JStorage")];
        let keys: Vec<String> = ignored_settings(&raw(&mixed)).into_iter().map(|i| i.key).collect();
        assert_eq!(keys, ["LIGHTRAG_GRAPH_STORAGE"], "another backend is still named");
    }

    /// The table of every LightRAG setting in docs/configuration.md and the warnings agree: a
    /// "warned" setting is named in the start-up warning, an "honoured" or "same" one is not.
    #[test]
    fn every_lightrag_setting_in_the_docs_table_is_honoured_or_warned() {
        const DOC: &str = include_str!("../../../docs/configuration.md");
        // the storage selectors are honoured with LightRAG's defaults, warned otherwise
        let default_of = |name: &str| match name {
            "LIGHTRAG_KV_STORAGE" => "JsonKVStorage",
            "LIGHTRAG_DOC_STATUS_STORAGE" => "JsonDocStatusStorage",
            "LIGHTRAG_GRAPH_STORAGE" => "NetworkXStorage",
            "LIGHTRAG_VECTOR_STORAGE" => "NanoVectorDBStorage",
            _ => "7",
        };
        let mut counted = 0;
        for line in DOC.lines() {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let [_, status, names, ..] = cells.as_slice() else { continue };
            if !["honoured", "same", "warned", "refused"].contains(status) {
                continue;
            }
            for name in names.split(',').map(|n| n.trim().trim_matches('`')) {
                counted += 1;
                // the POSTGRES_* settings read here are honoured once PostgreSQL is selected
                let found = if READ_POSTGRES.contains(&name) {
                    ignored_settings(&raw(&[(name, "7"), ("LIGHTRAG_KV_STORAGE", "PGKVStorage")]))
                } else {
                    ignored_settings(&raw(&[(name, default_of(name))]))
                };
                match *status {
                    "warned" => assert_eq!(found.len(), 1, "{name} is listed as warned but not named in the warning"),
                    _ => assert_eq!(found, Vec::new(), "{name} is listed as {status} but warned about"),
                }
            }
        }
        assert!(counted > 400, "the table lists every LightRAG setting ({counted} found)");
    }
}
