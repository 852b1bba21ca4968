//! Configuration loading: layering, validation, LightRAG compatibility.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lightrag_config::{ConfigError, EmbeddingBinding, JwtAlgorithm, LlmBinding, LogLevel, RawConfig, Settings, Source};
use lightrag_engine::config::{ChunkPickMethod, ExtractionMethod, SourceIdsLimitMethod};
use lightrag_engine::retrieval::query::QueryMode;

/// A `NAME=value` setting.
type Pair = (&'static str, &'static str);

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn raw_env(p: &[(&str, &str)]) -> RawConfig {
    RawConfig::from_sources(pairs(p), None, None, BTreeMap::new()).unwrap()
}

fn load(p: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    Settings::from_raw(&raw_env(p))
}

fn err(p: &[(&str, &str)]) -> String {
    match load(p) {
        Ok(s) => panic!("expected an error for {p:?}, got {s:?}"),
        Err(e) => e.to_string(),
    }
}

/// For the other test modules.
pub fn load_pairs(p: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    load(p)
}

/// For the other test modules.
pub fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    write(dir, name, text)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn defaults_are_lightrags_and_work_offline() {
    let s = load(&[("HOME", "/home/u")]).unwrap();
    assert_eq!(s.working_dir, PathBuf::from("./rag_storage"));
    assert_eq!(s.workspace, "");
    assert_eq!(s.store_path(), PathBuf::from("./rag_storage/lightrag.db"));
    assert_eq!(s.llm.binding, LlmBinding::None);
    assert_eq!(s.engine.extraction.method, ExtractionMethod::Nlp);
    assert_eq!(s.embedding.binding, EmbeddingBinding::Local);
    assert_eq!(s.embedding.model, "all-MiniLM-L6-v2");
    assert_eq!(s.embedding.dim, 384);
    assert_eq!(s.embedding.model_dir, Some(PathBuf::from("/home/u/.cache/lightrag-rs/models/all-MiniLM-L6-v2")));
    let e = &s.engine;
    assert_eq!((e.chunking.chunk_size, e.chunking.chunk_overlap), (1200, 100));
    assert_eq!(e.extraction.max_gleaning, 1);
    assert_eq!(e.extraction.max_extract_input_tokens, 20480);
    assert_eq!(e.extraction.max_records, 100);
    assert_eq!(e.extraction.max_entities, 40);
    assert_eq!(e.extraction.language, "English");
    assert_eq!(e.extraction.entity_types, lightrag_engine::config::default_entity_types());
    assert_eq!(e.merge, lightrag_engine::config::MergeConfig::default());
    assert_eq!(e.query, lightrag_engine::config::QueryConfig::default());
    assert_eq!(e.llm, lightrag_engine::config::LlmPolicy::default());
    // LightRAG's embedding defaults, except what the in-process model needs (one batch at a time)
    let local = lightrag_engine::config::EmbeddingPolicy {
        max_async: 1,
        timeout_secs: lightrag_config::settings::LOCAL_EMBED_TIMEOUT_SECS,
        ..lightrag_engine::config::EmbeddingPolicy::default()
    };
    assert_eq!(e.embedding, local);
    assert_eq!(e.pipeline, lightrag_engine::config::PipelineConfig::default());
    let sv = &s.server;
    assert_eq!((sv.host.as_str(), sv.port), ("0.0.0.0", 9621));
    assert_eq!(sv.input_dir, PathBuf::from("./inputs"));
    assert_eq!(sv.cors_origins, vec!["*"]);
    assert_eq!(sv.max_upload_size, Some(104_857_600));
    assert_eq!(sv.api_prefix, "");
    assert!(!sv.ssl);
    assert_eq!(sv.ollama_model(), "lightrag:latest");
    assert_eq!(sv.max_graph_nodes, 1000);
    assert_eq!(sv.max_json_body_size, 1_048_576);
    let limits = lightrag_config::RequestLimits {
        timeout_secs: 300,
        max_concurrent_requests: 256,
        max_connections: 512,
        max_connections_per_client: None,
        keepalive_timeout_secs: 5,
        header_timeout_secs: 30,
        lingering_close_secs: 30,
    };
    assert_eq!(sv.limits, limits);
    assert_eq!(sv.log_level, LogLevel::Info);
    assert!(sv.api_key.is_none() && sv.token_secret.is_none() && sv.auth_accounts.is_empty());
    assert_eq!((sv.token_expire_hours, sv.guest_token_expire_hours), (48.0, 24.0));
    assert_eq!(sv.jwt_algorithm, JwtAlgorithm::Hs256);
    assert!(sv.token_auto_renew);
    assert_eq!(sv.token_renew_threshold, 0.5);
    assert_eq!(sv.whitelist_paths, vec!["/health", "/api/*"]);
}

#[test]
fn xdg_cache_home_and_model_dir_override() {
    let s = load(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/xdg")]).unwrap();
    assert_eq!(s.embedding.model_dir, Some(PathBuf::from("/xdg/lightrag-rs/models/all-MiniLM-L6-v2")));
    let s = load(&[("HOME", "/home/u"), ("LIGHTRAG_MODEL_DIR", "/m")]).unwrap();
    assert_eq!(s.embedding.model_dir, Some(PathBuf::from("/m")));
    let e = err(&[]);
    assert!(e.contains("LIGHTRAG_MODEL_DIR"), "{e}");
}

#[test]
fn local_embedding_precision_is_auto_unless_set() {
    use lightrag_embed_local::Precision;
    let s = load(&[("LIGHTRAG_MODEL_DIR", "/m")]).unwrap();
    assert_eq!(s.embedding.local_precision, Precision::Auto);
    let s = load(&[("LIGHTRAG_MODEL_DIR", "/m"), ("LOCAL_EMBEDDING_PRECISION", "F32")]).unwrap();
    assert_eq!(s.embedding.local_precision, Precision::F32);
    let s = load(&[("LIGHTRAG_MODEL_DIR", "/m"), ("LOCAL_EMBEDDING_PRECISION", "int8")]).unwrap();
    assert_eq!(s.embedding.local_precision, Precision::Int8);
    let e = err(&[("LIGHTRAG_MODEL_DIR", "/m"), ("LOCAL_EMBEDDING_PRECISION", "fp16")]);
    assert!(e.contains("LOCAL_EMBEDDING_PRECISION") && e.contains("f32"), "{e}");
}

#[test]
fn layers_override_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let dotenv = write(dir.path(), ".env", "CHUNK_SIZE=500\nTOP_K=1\nCHUNK_TOP_K=1\nMAX_GLEANING=1\nLEASE_SECS=1\n");
    let toml = write(dir.path(), "c.toml", "chunk_size = 600\ntop_k = 2\nchunk_top_k = 2\nmax_gleaning = 2\n");
    let env = pairs(&[("HOME", "/h"), ("CHUNK_SIZE", "700"), ("TOP_K", "3")]);
    let mut flags = BTreeMap::new();
    flags.insert("CHUNK_SIZE".to_string(), "800".to_string());
    let raw = RawConfig::from_sources(env, Some(&dotenv), Some(&toml), flags).unwrap();
    let s = Settings::from_raw(&raw).unwrap();
    assert_eq!(s.engine.chunking.chunk_size, 800); // flag
    assert_eq!(s.engine.query.top_k, 3); // env over toml and .env
    assert_eq!(s.engine.query.chunk_top_k, 2); // toml over .env
    assert_eq!(s.engine.extraction.max_gleaning, 2); // toml over .env
    assert_eq!(s.engine.pipeline.lease_secs, 1); // .env over default
    assert_eq!(s.engine.query.max_total_tokens, 30000); // default
    assert_eq!(raw.source_of("CHUNK_SIZE"), Source::Flag);
    assert_eq!(raw.source_of("TOP_K"), Source::Env);
    assert_eq!(raw.source_of("CHUNK_TOP_K"), Source::Toml(toml.clone()));
    assert_eq!(raw.source_of("LEASE_SECS"), Source::DotEnv(dotenv.clone()));
    assert_eq!(raw.source_of("MAX_TOTAL_TOKENS"), Source::Default);
}

#[test]
fn flags_are_case_insensitive_and_toml_keys_too() {
    let dir = tempfile::tempdir().unwrap();
    let toml =
        write(dir.path(), "c.toml", "Working_Dir = \"/from/toml\"\n[llm]\nbinding = \"ollama\"\nmodel = \"qwen\"\n");
    let mut flags = BTreeMap::new();
    flags.insert("workspace".to_string(), "ws_1".to_string());
    let raw = RawConfig::from_sources(pairs(&[("HOME", "/h")]), None, Some(&toml), flags).unwrap();
    let s = Settings::from_raw(&raw).unwrap();
    assert_eq!(s.working_dir, PathBuf::from("/from/toml"));
    assert_eq!(s.workspace, "ws_1");
    assert_eq!(s.store_path(), PathBuf::from("/from/toml/ws_1/lightrag.db"));
    assert_eq!(s.llm.binding, LlmBinding::Ollama);
    assert_eq!(s.llm.model, "qwen");
    assert_eq!(s.engine.extraction.method, ExtractionMethod::Llm);
}

#[test]
fn errors_name_the_source_of_the_bad_value() {
    let dir = tempfile::tempdir().unwrap();
    let dotenv = write(dir.path(), ".env", "CHUNK_SIZE=abc\n");
    let raw = RawConfig::from_sources(pairs(&[("HOME", "/h")]), Some(&dotenv), None, BTreeMap::new()).unwrap();
    let e = Settings::from_raw(&raw).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("invalid CHUNK_SIZE=\"abc\" (from .env file {}): expected a positive integer", dotenv.display())
    );

    let toml = write(dir.path(), "c.toml", "chunk_size = -5\n");
    let raw = RawConfig::from_sources(pairs(&[("HOME", "/h")]), None, Some(&toml), BTreeMap::new()).unwrap();
    let e = Settings::from_raw(&raw).unwrap_err().to_string();
    assert!(e.contains("CHUNK_SIZE=\"-5\""), "{e}");
    assert!(e.contains(&format!("from config file {}", toml.display())), "{e}");

    let e = err(&[("HOME", "/h"), ("CHUNK_SIZE", "0")]);
    assert!(e.contains("CHUNK_SIZE=\"0\" (from the environment)"), "{e}");

    let mut flags = BTreeMap::new();
    flags.insert("TOP_K".to_string(), "many".to_string());
    let raw = RawConfig::from_sources(pairs(&[("HOME", "/h")]), None, None, flags).unwrap();
    let e = Settings::from_raw(&raw).unwrap_err().to_string();
    assert!(e.contains("TOP_K=\"many\" (from a command-line flag)"), "{e}");
}

/// Every validated setting, with a value it must refuse. Context pairs make the setting apply.
#[test]
fn every_setting_rejects_a_bad_value_by_name() {
    let openai = [("LLM_BINDING", "openai"), ("OPENAI_API_KEY", "k")];
    let ollama_llm = [("LLM_BINDING", "ollama")];
    let cases: Vec<(&str, &str, Vec<Pair>)> = vec![
        ("WORKSPACE", "my-space", vec![]),
        ("WORKSPACE", "../x", vec![]),
        ("LLM_BINDING", "anthropic", vec![]),
        ("EMBEDDING_BINDING", "hf", vec![]),
        ("RERANK_BINDING", "voyage", vec![]),
        ("GEMINI_LLM_TEMPERATURE", "hot", vec![("LLM_BINDING", "gemini"), ("GEMINI_API_KEY", "k")]),
        (
            "BEDROCK_LLM_EXTRA_FIELDS",
            "[1]",
            vec![
                ("LLM_BINDING", "bedrock"),
                ("LLM_MODEL", "m"),
                ("AWS_REGION", "r"),
                ("AWS_BEARER_TOKEN_BEDROCK", "t"),
            ],
        ),
        ("MIN_RERANK_SCORE", "high", vec![]),
        ("RERANK_BY_DEFAULT", "maybe", vec![]),
        ("RERANK_TIMEOUT", "0", vec![]),
        ("ENTITY_EXTRACTION_USE_JSON", "yes please", vec![]),
        ("LLM_BINDING_HOST", "localhost:8000", openai.to_vec()),
        ("LLM_TIMEOUT", "-1", vec![]),
        ("MAX_ASYNC", "0", vec![]),
        ("MAX_ASYNC_LLM", "four", vec![]),
        ("OPENAI_LLM_TEMPERATURE", "hot", openai.to_vec()),
        ("OPENAI_LLM_TEMPERATURE", "3", openai.to_vec()),
        ("OPENAI_LLM_MAX_TOKENS", "0", openai.to_vec()),
        ("OPENAI_LLM_EXTRA_BODY", "[1,2]", openai.to_vec()),
        ("OLLAMA_LLM_NUM_CTX", "big", ollama_llm.to_vec()),
        ("OLLAMA_LLM_TEMPERATURE", "x", ollama_llm.to_vec()),
        ("OLLAMA_LLM_NUM_PREDICT", "-3", ollama_llm.to_vec()),
        ("EMBEDDING_BINDING", "sentence-transformers", vec![]),
        ("EMBEDDING_BINDING_HOST", "not a url", vec![("EMBEDDING_BINDING", "ollama")]),
        ("EMBEDDING_MODEL", "bge-m3", vec![("EMBEDDING_BINDING", "local")]),
        ("EMBEDDING_DIM", "768", vec![]),
        ("EMBEDDING_DIM", "x", vec![("EMBEDDING_BINDING", "ollama")]),
        ("EMBEDDING_BATCH_NUM", "0", vec![]),
        ("EMBEDDING_FUNC_MAX_ASYNC", "-2", vec![]),
        ("EMBEDDING_TIMEOUT", "soon", vec![]),
        ("EMBEDDING_SEND_DIM", "maybe", vec![]),
        ("OLLAMA_EMBEDDING_NUM_CTX", "0", vec![("EMBEDDING_BINDING", "ollama")]),
        ("MAX_PARALLEL_INSERT", "0", vec![]),
        ("CHUNK_SIZE", "1.5", vec![]),
        ("CHUNK_OVERLAP_SIZE", "-1", vec![]),
        ("MAX_GLEANING", "once", vec![]),
        ("FORCE_LLM_SUMMARY_ON_MERGE", "0", vec![]),
        ("SUMMARY_MAX_TOKENS", "x", vec![]),
        ("SUMMARY_CONTEXT_SIZE", "0", vec![]),
        ("SUMMARY_LENGTH_RECOMMENDED", "-600", vec![]),
        ("MAX_EXTRACT_INPUT_TOKENS", "lots", vec![]),
        ("MAX_EXTRACTION_RECORDS", "0", vec![]),
        ("MAX_EXTRACTION_ENTITIES", "0", vec![]),
        ("MAX_SOURCE_IDS_PER_ENTITY", "0", vec![]),
        ("MAX_SOURCE_IDS_PER_RELATION", "x", vec![]),
        ("SOURCE_IDS_LIMIT_METHOD", "LIFO", vec![]),
        ("MAX_FILE_PATHS", "0", vec![]),
        ("TOP_K", "0", vec![]),
        ("CHUNK_TOP_K", "-1", vec![]),
        ("MAX_ENTITY_TOKENS", "0", vec![]),
        ("MAX_RELATION_TOKENS", "x", vec![]),
        ("MAX_TOTAL_TOKENS", "1e9", vec![]),
        ("COSINE_THRESHOLD", "1.5", vec![]),
        ("COSINE_THRESHOLD", "-2", vec![]),
        ("COSINE_THRESHOLD", "NaN", vec![]),
        ("RELATED_CHUNK_NUMBER", "0", vec![]),
        ("KG_CHUNK_PICK_METHOD", "RANDOM", vec![]),
        ("ENABLE_LLM_CACHE", "sure", vec![]),
        ("ENABLE_LLM_CACHE_FOR_EXTRACT", "2", vec![]),
        ("ENTITY_TYPES", "[]", vec![]),
        ("ENTITY_TYPES", "[\"Person\"", vec![]),
        ("EXTRACTION", "regex", vec![]),
        ("LLM_MAX_RETRIES", "-1", vec![]),
        ("LLM_RETRY_BASE_MS", "fast", vec![]),
        ("LEASE_SECS", "0", vec![]),
        ("PORT", "70000", vec![]),
        ("PORT", "0", vec![]),
        ("MAX_UPLOAD_SIZE", "100MB", vec![]),
        ("MAX_JSON_BODY_SIZE", "0", vec![]),
        ("TIMEOUT", "never", vec![]),
        ("MAX_CONCURRENT_REQUESTS", "0", vec![]),
        ("MAX_CONNECTIONS", "-5", vec![]),
        ("MAX_CONNECTIONS_PER_CLIENT", "0", vec![]),
        ("LINGERING_CLOSE_TIMEOUT", "0", vec![]),
        ("KEEPALIVE_TIMEOUT", "0", vec![]),
        ("REQUEST_HEADER_TIMEOUT", "1.5", vec![]),
        ("LIGHTRAG_API_PREFIX", "/a b", vec![]),
        ("SSL", "enabled", vec![]),
        ("MAX_GRAPH_NODES", "0", vec![]),
        ("LOG_LEVEL", "LOUD", vec![]),
        ("AUTH_ACCOUNTS", "admin", vec![]),
        ("AUTH_ACCOUNTS", "admin:pw,:x", vec![]),
        ("TOKEN_EXPIRE_HOURS", "0", vec![]),
        ("GUEST_TOKEN_EXPIRE_HOURS", "-1", vec![]),
        ("JWT_ALGORITHM", "RS256", vec![]),
        ("TOKEN_AUTO_RENEW", "perhaps", vec![]),
        ("TOKEN_RENEW_THRESHOLD", "1.5", vec![]),
        ("VECTOR_ENCODING", "bf16", vec![]),
        ("VECTOR_ANN_THRESHOLD", "-1", vec![]),
        ("VECTOR_SEARCH_THREADS", "0", vec![]),
        ("VECTOR_HNSW_M", "0", vec![]),
        ("VECTOR_HNSW_EF_SEARCH", "wide", vec![]),
        ("MCP_MAX_SESSIONS", "0", vec![]),
        ("MCP_MAX_SESSIONS_PER_CLIENT", "-1", vec![]),
        ("MCP_MAX_STREAMS", "many", vec![]),
        ("MCP_MAX_STREAMS_PER_CLIENT", "0", vec![]),
        ("MCP_STREAM_IDLE_TIMEOUT", "0", vec![]),
    ];
    for (key, bad, context) in cases {
        let mut p = vec![("HOME", "/h")];
        p.extend(context);
        p.push((key, bad));
        let e = err(&p);
        assert!(e.contains(key), "error for {key}={bad:?} does not name it: {e}");
        if key != "AUTH_ACCOUNTS" {
            assert!(e.contains(&format!("{bad:?}")), "error for {key}={bad:?} does not show the value: {e}");
        } else {
            assert!(!e.contains(bad) && e.contains("***"), "AUTH_ACCOUNTS must not be echoed: {e}");
        }
        assert!(e.contains("from the environment"), "error for {key} does not name its source: {e}");
    }
}

#[test]
fn a_lightrag_env_example_file_parses_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let dotenv = write(
        dir.path(),
        ".env",
        r#"### This is sample file of .env

###########################
### Server Configuration
###########################
HOST=0.0.0.0
PORT=9621
WEBUI_TITLE='My Graph KB'
WEBUI_DESCRIPTION="Simple and Fast Graph Based RAG System"
# WORKERS=2
### gunicorn worker timeout(as default LLM request timeout if LLM_TIMEOUT is not set)
# TIMEOUT=150
# CORS_ORIGINS=http://localhost:3000,http://localhost:8080

### Optional SSL Configuration
# SSL=true
# SSL_CERTFILE=/path/to/cert.pem
# SSL_KEYFILE=/path/to/key.pem

### Directory Configuration (defaults to current working directory)
### Default value is ./inputs and ./rag_storage
# INPUT_DIR=<absolute_path_for_doc_input_dir>
# WORKING_DIR=<absolute_path_for_working_dir>

### Tiktoken cache directory (Store cached files in this folder for offline deployment)
# TIKTOKEN_CACHE_DIR=./temp/tiktoken

### Ollama Emulating Model and Tag
# OLLAMA_EMULATING_MODEL_NAME=lightrag
OLLAMA_EMULATING_MODEL_TAG=latest

### Max nodes return from graph retrieval in webui
# MAX_GRAPH_NODES=1000

### Logging level
# LOG_LEVEL=INFO
# VERBOSE=False
# LOG_MAX_BYTES=10485760
# LOG_BACKUP_COUNT=5
### Logfile location (defaults to current working directory)
# LOG_DIR=/path/to/log/directory

#####################################
### Login and API-Key Configuration
#####################################
AUTH_ACCOUNTS='admin:admin123,user1:pass456'
TOKEN_SECRET=Your-Key-For-LightRAG-API-Server
TOKEN_EXPIRE_HOURS=48
GUEST_TOKEN_EXPIRE_HOURS=24
JWT_ALGORITHM=HS256

### API-Key to access LightRAG Server API
LIGHTRAG_API_KEY=your-secure-api-key-here
WHITELIST_PATHS=/health,/api/*

######################################################################################
### Query Configuration
######################################################################################
ENABLE_LLM_CACHE=false
# COSINE_THRESHOLD=0.2
TOP_K=40
CHUNK_TOP_K=20
MAX_ENTITY_TOKENS=6000
MAX_RELATION_TOKENS=8000
MAX_TOTAL_TOKENS=30000
# KG_CHUNK_PICK_METHOD=VECTOR

#########################################################
### Reranking configuration
#########################################################
RERANK_BINDING=null
# RERANK_MODEL=BAAI/bge-reranker-v2-m3
# RERANK_BINDING_HOST=http://localhost:8000/v1/rerank
# RERANK_BINDING_API_KEY=your_rerank_api_key_here
MIN_RERANK_SCORE=0.0

########################################
### Document processing configuration
########################################
ENABLE_LLM_CACHE_FOR_EXTRACT=true
SUMMARY_LANGUAGE=English
ENTITY_EXTRACTION_USE_JSON=true
ENTITY_TYPES='["Person", "Creature", "Organization", "Location", "Event", "Concept", "Method", "Content", "Data", "Artifact", "NaturalObject"]'
CHUNK_SIZE=1200
CHUNK_OVERLAP_SIZE=100
FORCE_LLM_SUMMARY_ON_MERGE=8
SUMMARY_MAX_TOKENS=1200
SUMMARY_LENGTH_RECOMMENDED=600
SUMMARY_CONTEXT_SIZE=12000
# MAX_SOURCE_IDS_PER_ENTITY=200
SOURCE_IDS_LIMIT_METHOD=FIFO
MAX_FILE_PATHS=100
PDF_DECRYPT_PASSWORD=

###############################
### Concurrency Configuration
###############################
MAX_ASYNC=4
MAX_PARALLEL_INSERT=2
EMBEDDING_FUNC_MAX_ASYNC=8
EMBEDDING_BATCH_NUM=32

###########################################################################
### LLM Configuration
###########################################################################
LLM_TIMEOUT=180
LLM_BINDING=openai
LLM_MODEL=gpt-4o
LLM_BINDING_HOST=https://api.openai.com/v1
LLM_BINDING_API_KEY=your_api_key
# OPENAI_LLM_REASONING_EFFORT=minimal
OPENAI_LLM_MAX_COMPLETION_TOKENS=9000
OPENAI_LLM_TEMPERATURE=0.9
### OpenRouter Specific Parameters
# OPENAI_LLM_EXTRA_BODY='{"reasoning": {"enabled": false}}'
### Ollama Server Specific Parameters
OLLAMA_LLM_NUM_CTX=32768

#######################################################################################
### Embedding Configuration (Should not be changed after the first file processed)
#######################################################################################
EMBEDDING_TIMEOUT=30
EMBEDDING_BINDING=openai
EMBEDDING_MODEL=text-embedding-3-small
EMBEDDING_DIM=1536
EMBEDDING_SEND_DIM=false
EMBEDDING_TOKEN_LIMIT=8192
EMBEDDING_BINDING_HOST=https://api.openai.com/v1
EMBEDDING_BINDING_API_KEY=your_embedding_api_key

####################################################################
### WORKSPACE sets workspace name for all storage types
####################################################################
# WORKSPACE=space1

############################
### Data storage selection
############################
LIGHTRAG_KV_STORAGE=PGKVStorage
LIGHTRAG_VECTOR_STORAGE=PGVectorStorage
LIGHTRAG_DOC_STATUS_STORAGE=PGDocStatusStorage
LIGHTRAG_GRAPH_STORAGE=Neo4JStorage

### PostgreSQL Configuration
POSTGRES_HOST=localhost
POSTGRES_PORT=5432
POSTGRES_USER=your_username
POSTGRES_PASSWORD='your_password'
POSTGRES_DATABASE=your_database
POSTGRES_MAX_CONNECTIONS=12
# POSTGRES_VECTOR_INDEX_TYPE=HNSW
NEO4J_URI=neo4j+s://xxxxxxxx.databases.neo4j.io
NEO4J_USERNAME=neo4j
NEO4J_PASSWORD='your_password'
MONGO_URI=mongodb://root:root@localhost:27017/
REDIS_URI=redis://localhost:6379
"#,
    );
    let raw = RawConfig::from_sources(pairs(&[("HOME", "/h")]), Some(&dotenv), None, BTreeMap::new()).unwrap();
    let s = Settings::from_raw(&raw).unwrap();
    assert_eq!(s.llm.binding, LlmBinding::OpenAi);
    assert_eq!(s.llm.model, "gpt-4o");
    assert_eq!(s.llm.host, "https://api.openai.com/v1");
    assert_eq!(s.llm.api_key.as_ref().map(|k| k.expose()), Some("your_api_key"));
    assert_eq!(s.llm.timeout_secs, 180);
    assert_eq!(s.llm.temperature, Some(0.9));
    assert_eq!(s.llm.ollama_num_ctx, None); // not an ollama binding
    assert_eq!(s.engine.llm.timeout_secs, 180);
    assert!(!s.engine.llm.enable_cache);
    assert!(s.engine.llm.enable_cache_for_extract);
    assert_eq!(s.engine.extraction.method, ExtractionMethod::Llm);
    assert_eq!(s.engine.extraction.entity_types.len(), 11);
    assert_eq!(s.engine.extraction.entity_types[10], "NaturalObject");
    assert!(s.engine.extraction.use_json, "ENTITY_EXTRACTION_USE_JSON=true is honoured");
    assert!(s.rerank.is_none(), "RERANK_BINDING=null");
    assert_eq!(s.engine.query.min_rerank_score, 0.0);
    assert_eq!(s.engine.merge.source_ids_limit_method, SourceIdsLimitMethod::Fifo);
    assert_eq!(s.engine.merge.max_file_paths, 100);
    assert_eq!(s.engine.pipeline.max_parallel_insert, 2);
    assert_eq!(s.engine.embedding.batch_num, 32);
    assert_eq!(s.embedding.binding, EmbeddingBinding::OpenAi);
    assert_eq!(s.embedding.dim, 1536);
    assert_eq!(s.embedding.model_dir, None);
    assert_eq!(s.embedding.api_key.as_ref().map(|k| k.expose()), Some("your_embedding_api_key"));
    assert_eq!(s.server.webui_title.as_deref(), Some("My Graph KB"));
    assert_eq!(s.server.auth_accounts.len(), 2);
    assert_eq!(s.server.auth_accounts[1].username, "user1");
    assert_eq!(s.server.auth_accounts[1].password.expose(), "pass456");
    assert_eq!(s.server.api_key.as_ref().map(|k| k.expose()), Some("your-secure-api-key-here"));
    assert_eq!(s.server.token_secret.as_ref().map(|k| k.expose()), Some("Your-Key-For-LightRAG-API-Server"));
    // The PG storage selectors put the whole store on PostgreSQL, with LightRAG's POSTGRES_* settings.
    let pg = s.postgres.as_ref().expect("PGKVStorage selects PostgreSQL");
    assert_eq!(
        (pg.host.as_str(), pg.port, pg.database.as_str(), pg.max_connections),
        ("localhost", 5432, "your_database", 12)
    );
    // Nothing secret leaks through Debug, even with many secrets set.
    let dbg = format!("{s:?} {raw:?}");
    for secret in [
        "your_api_key",
        "your_embedding_api_key",
        "admin123",
        "pass456",
        "your-secure-api-key-here",
        "Your-Key-For-LightRAG",
        "your_password",
    ] {
        assert!(!dbg.contains(secret), "{secret} leaked in Debug output");
    }
}

#[test]
fn max_async_llm_wins_over_max_async() {
    let s = load(&[("HOME", "/h"), ("MAX_ASYNC", "7")]).unwrap();
    assert_eq!(s.engine.llm.max_async, 7);
    assert_eq!(s.llm.max_async, 7);
    let s = load(&[("HOME", "/h"), ("MAX_ASYNC", "7"), ("MAX_ASYNC_LLM", "2")]).unwrap();
    assert_eq!(s.engine.llm.max_async, 2);
    let s = load(&[("HOME", "/h"), ("MAX_ASYNC_LLM", "9")]).unwrap();
    assert_eq!(s.engine.llm.max_async, 9);
    // A bad alias is still reported when the winner is unset.
    let e = err(&[("HOME", "/h"), ("MAX_ASYNC", "x")]);
    assert!(e.contains("MAX_ASYNC=\"x\""), "{e}");
}

#[test]
fn extraction_default_follows_the_llm_binding() {
    let s = load(&[("HOME", "/h"), ("LLM_BINDING", "none")]).unwrap();
    assert_eq!(s.engine.extraction.method, ExtractionMethod::Nlp);
    let s = load(&[("HOME", "/h"), ("LLM_BINDING", "ollama")]).unwrap();
    assert_eq!(s.engine.extraction.method, ExtractionMethod::Llm);
    assert_eq!(s.llm.host, "http://localhost:11434");
    let s = load(&[("HOME", "/h"), ("LLM_BINDING", "ollama"), ("EXTRACTION", "NLP")]).unwrap();
    assert_eq!(s.engine.extraction.method, ExtractionMethod::Nlp);
    let e = err(&[("HOME", "/h"), ("EXTRACTION", "llm")]);
    assert!(e.contains("EXTRACTION=\"llm\" (from the environment)"), "{e}");
    assert!(e.contains("LLM_BINDING=none (built-in default)"), "{e}");
}

#[test]
fn llm_binding_defaults_to_openai_only_when_a_host_or_key_is_given() {
    assert_eq!(load(&[("HOME", "/h")]).unwrap().llm.binding, LlmBinding::None);
    // OPENAI_API_KEY alone does not switch paid calls on.
    assert_eq!(load(&[("HOME", "/h"), ("OPENAI_API_KEY", "k")]).unwrap().llm.binding, LlmBinding::None);
    let s = load(&[("HOME", "/h"), ("LLM_BINDING_HOST", "http://127.0.0.1:8000/v1/")]).unwrap();
    assert_eq!(s.llm.binding, LlmBinding::OpenAi);
    assert_eq!(s.llm.host, "http://127.0.0.1:8000/v1");
    assert!(s.llm.api_key.is_none()); // a local server needs no key
    let s = load(&[("HOME", "/h"), ("LLM_BINDING_API_KEY", "k")]).unwrap();
    assert_eq!((s.llm.binding, s.llm.host.as_str()), (LlmBinding::OpenAi, "https://api.openai.com/v1"));
    assert_eq!(s.llm.model, "gpt-4o-mini");
}

#[test]
fn api_keys_fall_back_and_are_required_for_hosted_apis() {
    let s = load(&[("HOME", "/h"), ("LLM_BINDING", "openai"), ("OPENAI_API_KEY", "sk-1")]).unwrap();
    assert_eq!(s.llm.api_key.as_ref().map(|k| k.expose()), Some("sk-1"));
    let s =
        load(&[("HOME", "/h"), ("LLM_BINDING", "openai"), ("OPENAI_API_KEY", "sk-1"), ("LLM_BINDING_API_KEY", "sk-2")])
            .unwrap();
    assert_eq!(s.llm.api_key.as_ref().map(|k| k.expose()), Some("sk-2"));
    let e = err(&[("HOME", "/h"), ("LLM_BINDING", "openai")]);
    assert!(e.contains("LLM_BINDING_API_KEY") && e.contains("OPENAI_API_KEY"), "{e}");
    let e = err(&[("HOME", "/h"), ("EMBEDDING_BINDING", "openai")]);
    assert!(e.contains("EMBEDDING_BINDING_API_KEY"), "{e}");
    let s = load(&[("HOME", "/h"), ("EMBEDDING_BINDING", "openai"), ("OPENAI_API_KEY", "sk-3")]).unwrap();
    assert_eq!(s.embedding.api_key.as_ref().map(|k| k.expose()), Some("sk-3"));
    // Azure: endpoint and key from the AZURE_* names.
    let e = err(&[("HOME", "/h"), ("LLM_BINDING", "azure_openai"), ("AZURE_OPENAI_API_KEY", "a")]);
    assert!(e.contains("AZURE_OPENAI_ENDPOINT"), "{e}");
    let s = load(&[
        ("HOME", "/h"),
        ("LLM_BINDING", "azure_openai"),
        ("AZURE_OPENAI_ENDPOINT", "https://r.openai.azure.com"),
        ("AZURE_OPENAI_API_KEY", "az"),
    ])
    .unwrap();
    assert_eq!(s.llm.host, "https://r.openai.azure.com");
    assert_eq!(s.llm.api_key.as_ref().map(|k| k.expose()), Some("az"));
    assert_eq!(s.llm.azure_deployment.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(s.llm.azure_api_version.as_deref(), Some("2024-08-01-preview"));
}

#[test]
fn local_llm_binding_is_refused_clearly() {
    let e = err(&[("HOME", "/h"), ("LLM_BINDING", "local")]);
    assert!(e.starts_with("LLM_BINDING=local (from the environment) is not available in this build"), "{e}");
}

#[test]
fn embedding_binding_default_follows_the_host() {
    let s = load(&[("HOME", "/h")]).unwrap();
    assert_eq!(s.embedding.binding, EmbeddingBinding::Local);
    assert_eq!(s.embedding.host, None);
    let s = load(&[("HOME", "/h"), ("EMBEDDING_BINDING_HOST", "http://127.0.0.1:9/v1")]).unwrap();
    assert_eq!(s.embedding.binding, EmbeddingBinding::OpenAi);
    assert_eq!(s.embedding.host.as_deref(), Some("http://127.0.0.1:9/v1"));
    assert_eq!((s.embedding.model.as_str(), s.embedding.dim), ("text-embedding-3-small", 1536));
    assert_eq!(s.embedding.model_dir, None);
}

#[test]
fn embedding_dimension_must_be_consistent() {
    let host = ("EMBEDDING_BINDING_HOST", "http://127.0.0.1:9/v1");
    // Known model: default dim, and a wrong dim is refused.
    let s = load(&[("HOME", "/h"), host, ("EMBEDDING_MODEL", "text-embedding-3-large")]).unwrap();
    assert_eq!(s.embedding.dim, 3072);
    let e = err(&[("HOME", "/h"), host, ("EMBEDDING_DIM", "1024")]);
    assert!(e.contains("EMBEDDING_DIM=\"1024\"") && e.contains("EMBEDDING_SEND_DIM"), "{e}");
    // ... unless the provider is asked to shorten vectors.
    let s = load(&[("HOME", "/h"), host, ("EMBEDDING_DIM", "1024"), ("EMBEDDING_SEND_DIM", "yes")]).unwrap();
    assert_eq!((s.embedding.dim, s.embedding.send_dim), (1024, true));
    // Unknown model: the dimension is required.
    let e = err(&[("HOME", "/h"), host, ("EMBEDDING_MODEL", "my-embedder")]);
    assert!(e.contains("EMBEDDING_DIM is not set"), "{e}");
    let s = load(&[("HOME", "/h"), host, ("EMBEDDING_MODEL", "my-embedder"), ("EMBEDDING_DIM", "512")]).unwrap();
    assert_eq!(s.embedding.dim, 512);
    // Local: only MiniLM at 384.
    let s = load(&[
        ("HOME", "/h"),
        ("EMBEDDING_MODEL", "sentence-transformers/all-MiniLM-L6-v2"),
        ("EMBEDDING_DIM", "384"),
    ])
    .unwrap();
    assert_eq!((s.embedding.model.as_str(), s.embedding.dim), ("all-MiniLM-L6-v2", 384));
    let e = err(&[("HOME", "/h"), ("EMBEDDING_DIM", "1536")]);
    assert!(e.contains("EMBEDDING_DIM=\"1536\"") && e.contains("384"), "{e}");
    // Ollama default model.
    let s = load(&[("HOME", "/h"), ("EMBEDDING_BINDING", "ollama")]).unwrap();
    assert_eq!((s.embedding.model.as_str(), s.embedding.dim), ("bge-m3:latest", 1024));
}

#[test]
fn mcp_limits_default_and_a_per_client_cap_stays_under_the_cap_in_all() {
    let s = load(&[("HOME", "/h")]).unwrap();
    assert_eq!(
        (s.mcp.files_root, s.mcp.max_sessions, s.mcp.max_sessions_per_client, s.mcp.max_streams),
        (None, 1000, 64, 128)
    );
    assert_eq!((s.mcp.max_streams_per_client, s.mcp.stream_idle_timeout_secs), (16, 300));
    // a cap in all below a per-client default lowers the default
    let s = load(&[("HOME", "/h"), ("MCP_MAX_STREAMS", "4"), ("MCP_MAX_SESSIONS", "10")]).unwrap();
    assert_eq!((s.mcp.max_streams_per_client, s.mcp.max_sessions_per_client), (4, 10));
    // one set above it is a contradiction
    let e = err(&[("HOME", "/h"), ("MCP_MAX_STREAMS", "4"), ("MCP_MAX_STREAMS_PER_CLIENT", "5")]);
    assert!(e.contains("MCP_MAX_STREAMS_PER_CLIENT=\"5\"") && e.contains("MCP_MAX_STREAMS=\"4\""), "{e}");
    let s = load(&[("HOME", "/h"), ("MCP_FILES_ROOT", "/srv/docs")]).unwrap();
    assert_eq!(s.mcp.files_root, Some(PathBuf::from("/srv/docs")));
}

#[test]
fn chunk_overlap_must_be_smaller_than_chunk_size() {
    let e = err(&[("HOME", "/h"), ("CHUNK_OVERLAP_SIZE", "1200")]);
    assert!(e.contains("CHUNK_OVERLAP_SIZE=\"1200\" (from the environment)"), "{e}");
    assert!(e.contains("CHUNK_SIZE=1200 (built-in default)"), "{e}");
    let e = err(&[("HOME", "/h"), ("CHUNK_SIZE", "100"), ("CHUNK_OVERLAP_SIZE", "150")]);
    assert!(e.contains("CHUNK_SIZE=\"100\""), "{e}");
    let s = load(&[("HOME", "/h"), ("CHUNK_SIZE", "100"), ("CHUNK_OVERLAP_SIZE", "99")]).unwrap();
    assert_eq!((s.engine.chunking.chunk_size, s.engine.chunking.chunk_overlap), (100, 99));
    let s = load(&[("HOME", "/h"), ("CHUNK_SIZE", "100"), ("CHUNK_OVERLAP_SIZE", "0")]).unwrap();
    assert_eq!(s.engine.chunking.chunk_overlap, 0);
}

#[test]
fn default_query_mode_is_auto_unless_set() {
    let s = load(&[("HOME", "/h")]).unwrap();
    assert_eq!(s.engine.query.default_mode, QueryMode::Auto);
    let s = load(&[("HOME", "/h"), ("DEFAULT_QUERY_MODE", "MIX")]).unwrap();
    assert_eq!(s.engine.query.default_mode, QueryMode::Mix);
    let e = err(&[("HOME", "/h"), ("DEFAULT_QUERY_MODE", "fast")]);
    assert!(e.contains("DEFAULT_QUERY_MODE") && e.contains("mix"), "{e}");
}

#[test]
fn workspace_names_are_validated() {
    for good in ["", "space1", "My_Space_2"] {
        let s = load(&[("HOME", "/h"), ("WORKSPACE", good)]).unwrap();
        assert_eq!(s.workspace, good);
    }
    for bad in ["a/b", "..", "my space", "ws-1", "é"] {
        let e = err(&[("HOME", "/h"), ("WORKSPACE", bad)]);
        assert!(e.contains("WORKSPACE") && e.contains("letters, digits and _"), "{e}");
    }
}

#[test]
fn values_are_parsed_leniently_where_lightrag_is() {
    let s = load(&[
        ("HOME", "/h"),
        ("ENABLE_LLM_CACHE", "OFF"),
        ("ENABLE_LLM_CACHE_FOR_EXTRACT", "No"),
        ("EMBEDDING_SEND_DIM", "1"),
        ("ENTITY_TYPES", "Person, Place ,Thing"),
        ("KG_CHUNK_PICK_METHOD", "weight"),
        ("SOURCE_IDS_LIMIT_METHOD", "fifo"),
        ("COSINE_THRESHOLD", "-0.5"),
        ("TOP_K", " 12 "),
        ("LOG_LEVEL", "debug"),
        ("LIGHTRAG_API_PREFIX", "api/v1/"),
        ("CORS_ORIGINS", "http://a, http://b"),
    ])
    .unwrap();
    assert!(!s.engine.llm.enable_cache && !s.engine.llm.enable_cache_for_extract);
    assert!(s.embedding.send_dim);
    assert_eq!(s.engine.extraction.entity_types, vec!["Person", "Place", "Thing"]);
    assert_eq!(s.engine.query.kg_chunk_pick_method, ChunkPickMethod::Weight);
    assert_eq!(s.engine.merge.source_ids_limit_method, SourceIdsLimitMethod::Fifo);
    assert_eq!(s.engine.query.cosine_threshold, -0.5);
    assert_eq!(s.engine.query.top_k, 12);
    assert_eq!(s.server.log_level, LogLevel::Debug);
    assert_eq!(s.server.api_prefix, "/api/v1");
    assert_eq!(s.server.cors_origins, vec!["http://a", "http://b"]);
}

#[test]
fn ssl_needs_both_files() {
    let e = err(&[("HOME", "/h"), ("SSL", "true"), ("SSL_KEYFILE", "k.pem")]);
    assert!(e.contains("SSL_CERTFILE"), "{e}");
    let s = load(&[("HOME", "/h"), ("SSL", "true"), ("SSL_KEYFILE", "k.pem"), ("SSL_CERTFILE", "c.pem")]).unwrap();
    assert!(s.server.ssl);
    assert_eq!(s.server.ssl_certfile, Some(PathBuf::from("c.pem")));
}

#[test]
fn secrets_are_hidden_in_debug_and_errors() {
    let s = load(&[
        ("HOME", "/h"),
        ("LLM_BINDING", "openai"),
        ("LLM_BINDING_API_KEY", "sk-LLMSECRET"),
        ("EMBEDDING_BINDING", "openai"),
        ("EMBEDDING_BINDING_API_KEY", "sk-EMBEDSECRET"),
        ("LIGHTRAG_API_KEY", "APISECRET"),
        ("TOKEN_SECRET", "JWTSECRET"),
        ("AUTH_ACCOUNTS", "admin:PWSECRET"),
    ])
    .unwrap();
    let dbg = format!("{s:?}");
    for secret in ["LLMSECRET", "EMBEDSECRET", "APISECRET", "JWTSECRET", "PWSECRET"] {
        assert!(!dbg.contains(secret), "{secret} leaked: {dbg}");
    }
    assert!(dbg.contains("***"));
    assert!(dbg.contains("admin"), "user names are not secret");
}

#[test]
fn raw_load_reads_a_config_file_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let toml = write(dir.path(), "lightrag.toml", "top_k = 77\n");
    let flags = BTreeMap::from([("CHUNK_TOP_K".to_string(), "5".to_string())]);
    let raw = RawConfig::load(Some(&toml), flags).unwrap();
    let top_k = raw.get("TOP_K").unwrap();
    if std::env::var_os("TOP_K").is_none() {
        // (a TOP_K in the test runner's environment would legitimately win)
        assert_eq!((top_k.value.as_str(), &top_k.source), ("77", &Source::Toml(toml.clone())));
    }
    let chunk_top_k = raw.get("CHUNK_TOP_K").unwrap();
    assert_eq!((chunk_top_k.value.as_str(), &chunk_top_k.source), ("5", &Source::Flag));
}

/// Regression: with the in-process embedder, batches timed out under load and were retried while
/// the first computation was still running (the demo lost a document's lease that way).
#[test]
fn local_embedder_runs_one_batch_at_a_time_without_short_timeouts() {
    let s = load(&[("LIGHTRAG_MODEL_DIR", "/models/minilm")]).unwrap();
    assert_eq!(s.embedding.binding, lightrag_config::EmbeddingBinding::Local);
    assert_eq!(s.engine.embedding.max_async, 1);
    assert!(s.engine.embedding.timeout_secs >= lightrag_config::settings::LOCAL_EMBED_TIMEOUT_SECS);
    let remote = load(&[("EMBEDDING_BINDING_HOST", "http://127.0.0.1:1/v1"), ("EMBEDDING_DIM", "1536")]).unwrap();
    assert_eq!(remote.engine.embedding.max_async, 8, "remote providers keep EMBEDDING_FUNC_MAX_ASYNC");
    assert_eq!(remote.engine.embedding.timeout_secs, 30);
}

#[test]
fn vector_index_settings_default_to_exact_f32_below_50000_and_parse() {
    let s = load(&[("HOME", "/h")]).unwrap();
    assert_eq!(s.vectors.encoding, lightrag_ports::VectorEncoding::F32);
    assert_eq!(s.vectors.ann_threshold, 50_000);
    assert!(s.vectors.search_threads >= 1);
    assert_eq!((s.vectors.hnsw_m, s.vectors.hnsw_ef_construction, s.vectors.hnsw_ef_search), (16, 128, 128));
    let s = load(&[
        ("HOME", "/h"),
        ("VECTOR_ENCODING", "INT8"),
        ("VECTOR_ANN_THRESHOLD", "0"),
        ("VECTOR_SEARCH_THREADS", "3"),
        ("VECTOR_HNSW_EF_SEARCH", "384"),
    ])
    .unwrap();
    assert_eq!(s.vectors.hnsw_ef_search, 384);
    assert_eq!(s.vectors.encoding, lightrag_ports::VectorEncoding::I8);
    assert_eq!((s.vectors.ann_threshold, s.vectors.search_threads), (0, 3));
    assert_eq!(
        load(&[("HOME", "/h"), ("VECTOR_ENCODING", "f16")]).unwrap().vectors.encoding,
        lightrag_ports::VectorEncoding::F16
    );
}

/// Issue 9: LightRAG settings that were read by nobody.
#[test]
fn lightrag_settings_of_issue_9_are_read() {
    let s = load(&[
        ("HOME", "/h"),
        ("CHUNK_SIZE", "1000"),
        ("CHUNK_F_SIZE", "600"),
        ("CHUNK_F_OVERLAP_SIZE", "60"),
        ("CHUNK_F_SPLIT_BY_CHARACTER", "###"),
        ("CHUNK_F_SPLIT_BY_CHARACTER_ONLY", "true"),
        ("EMBEDDING_TOKEN_LIMIT", "8192"),
        ("PDF_DECRYPT_PASSWORD", "pdf-pass"),
        ("MAX_UPLOAD_SIZE", "0"),
        ("ENABLE_API_DOCS", "false"),
        ("ENABLE_AI_CONTENT_NOTICE", "true"),
    ])
    .unwrap();
    let c = &s.engine.chunking;
    assert_eq!((c.chunk_size, c.chunk_overlap), (600, 60), "CHUNK_F_* win over CHUNK_SIZE");
    assert_eq!((c.split_by_character.as_deref(), c.split_by_character_only), (Some("###"), true));
    assert_eq!(s.engine.embedding.token_limit, Some(8192));
    assert_eq!(s.pdf_decrypt_password.as_ref().map(|p| p.expose()), Some("pdf-pass"));
    assert!(!format!("{s:?}").contains("pdf-pass"), "the password is a secret");
    assert_eq!(s.server.max_upload_size, None);
    assert!(!s.server.enable_api_docs && s.server.enable_ai_content_notice);
    let none = load(&[
        ("HOME", "/h"),
        ("EMBEDDING_TOKEN_LIMIT", "0"),
        ("MAX_UPLOAD_SIZE", "None"),
        ("CHUNK_F_SPLIT_BY_CHARACTER", "None"),
    ])
    .unwrap();
    assert_eq!((none.engine.embedding.token_limit, none.server.max_upload_size), (None, None));
    assert_eq!(none.engine.chunking.split_by_character, None);
    let openai = [("HOME", "/h"), ("LLM_BINDING", "openai"), ("LLM_BINDING_HOST", "http://127.0.0.1:9")];
    assert!(
        err(&[openai[0], openai[1], openai[2], ("OPENAI_LLM_REASONING_EFFORT", "extreme")])
            .contains("REASONING_EFFORT")
    );
    assert!(err(&[("HOME", "/h"), ("CHUNK_F_SIZE", "100"), ("CHUNK_OVERLAP_SIZE", "100")]).contains("CHUNK_F_SIZE"));
}

#[test]
fn local_embedding_long_text_is_truncated_unless_set() {
    use lightrag_embed_local::LongTexts;
    let s = load(&[("LIGHTRAG_MODEL_DIR", "/m")]).unwrap();
    assert_eq!(s.embedding.local_long_texts, LongTexts::Truncate);
    let s = load(&[("LIGHTRAG_MODEL_DIR", "/m"), ("LOCAL_EMBEDDING_LONG_TEXT", "pool")]).unwrap();
    assert_eq!(s.embedding.local_long_texts, LongTexts::Pool);
    let e = err(&[("LIGHTRAG_MODEL_DIR", "/m"), ("LOCAL_EMBEDDING_LONG_TEXT", "split")]);
    assert!(e.contains("LOCAL_EMBEDDING_LONG_TEXT") && e.contains("pool"), "{e}");
}

#[test]
fn quotas_are_read_with_byte_units_and_zero_means_none() {
    let load_home = |p: &[(&str, &str)]| {
        let mut all = vec![("HOME", "/h")];
        all.extend_from_slice(p);
        load(&all)
    };
    let none = load_home(&[]).unwrap().engine.quotas;
    assert_eq!(none, Default::default(), "no quota by default");
    let q = load_home(&[
        ("QUOTA_MAX_DOCUMENTS", "500"),
        ("QUOTA_MAX_STORED_BYTES", "10 MB"),
        ("QUOTA_MAX_LLM_TOKENS_PER_DAY", "2000000"),
    ])
    .unwrap()
    .engine
    .quotas;
    assert_eq!(q.max_documents, Some(500));
    assert_eq!(q.max_stored_bytes, Some(10 << 20));
    assert_eq!(q.max_llm_tokens_per_day, Some(2_000_000));
    let off = load_home(&[("QUOTA_MAX_DOCUMENTS", "0"), ("QUOTA_MAX_STORED_BYTES", "")]).unwrap().engine.quotas;
    assert_eq!((off.max_documents, off.max_stored_bytes), (None, None));
    assert_eq!(load_home(&[("QUOTA_MAX_STORED_BYTES", "2kb")]).unwrap().engine.quotas.max_stored_bytes, Some(2048));
    for (key, bad) in
        [("QUOTA_MAX_DOCUMENTS", "10MB"), ("QUOTA_MAX_STORED_BYTES", "lots"), ("QUOTA_MAX_LLM_TOKENS_PER_DAY", "-1")]
    {
        let e = err(&[("HOME", "/h"), (key, bad)]);
        assert!(e.contains(key), "{key}={bad}: {e}");
    }
}
