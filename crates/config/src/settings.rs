//! [`Settings`]: the whole validated configuration, and how it is read from a [`RawConfig`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lightrag_engine::config::{
    ChunkFusion, ChunkPickMethod, ChunkingConfig, EmbeddingPolicy, EngineConfig, ExtractionConfig, ExtractionMethod,
    FusionWeights, LlmPolicy, MergeConfig, PipelineConfig, PprConfig, QueryConfig, RerankPolicy, SourceIdsLimitMethod,
    default_entity_types,
};
use lightrag_engine::retrieval::query::QueryMode;

use crate::error::ConfigError;
use crate::ignored::IgnoredSetting;
use crate::mcp::{McpSettings, mcp_settings};
use crate::parse::Reader;
use crate::providers::{
    EmbedPolicyValues, EmbeddingBinding, EmbeddingSettings, LlmBinding, LlmSettings, embedding_settings, llm_settings,
};
use crate::raw::RawConfig;
use crate::rerank::{RerankSettings, rerank_settings};
use crate::roles::RoleLlmSettings;
use crate::secret::Secret;
use crate::server::{ServerSettings, server_settings};
use crate::vectors::{VectorIndexSettings, vector_settings};

type Result<T> = std::result::Result<T, ConfigError>;

/// Smallest embedding timeout used with the in-process model (seconds).
pub const LOCAL_EMBED_TIMEOUT_SECS: u64 = 3600;

/// File name of the store inside the working directory (or its workspace folder).
pub const STORE_FILE: &str = "lightrag.db";

/// The validated configuration of one `lightrag` process.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// `WORKING_DIR` (./rag_storage).
    pub working_dir: PathBuf,
    /// `WORKSPACE` ("", letters, digits and `_`): a sub-folder of the working directory.
    pub workspace: String,
    /// The chat model.
    pub llm: LlmSettings,
    /// Chat models of particular roles (`EXTRACT_LLM_*`, `KEYWORD_LLM_*`, `QUERY_LLM_*`).
    pub role_llms: Vec<RoleLlmSettings>,
    /// The embedding model.
    pub embedding: EmbeddingSettings,
    /// The rerank service (`RERANK_BINDING`), `None` when reranking is off (`null`).
    pub rerank: Option<RerankSettings>,
    /// What the engine runs with.
    pub engine: EngineConfig,
    /// The REST server's settings.
    pub server: ServerSettings,
    /// The MCP servers' bounds (`MCP_*`).
    pub mcp: McpSettings,
    /// How the store indexes vectors (`VECTOR_ENCODING`, `VECTOR_ANN_THRESHOLD`,
    /// `VECTOR_SEARCH_THREADS`).
    pub vectors: VectorIndexSettings,
    /// `PDF_DECRYPT_PASSWORD`: opens encrypted PDFs (uploads, scans, `lightrag insert`).
    pub pdf_decrypt_password: Option<Secret>,
    /// The PostgreSQL store, when `DATABASE_URL` or a `PG…` storage selector chooses it (else the
    /// SQLite file in `WORKING_DIR`).
    pub postgres: Option<crate::postgres::PostgresSettings>,
    /// `REEMBED_ON_MODEL_CHANGE` (false): when the store was built with another embedding model or
    /// dimension, re-embed it at start-up (`lightrag reembed`) instead of refusing to start.
    pub reembed_on_model_change: bool,
    /// LightRAG settings found in the configuration that this version does not act on; every
    /// command warns about them at start-up.
    pub ignored: Vec<IgnoredSetting>,
}

impl Settings {
    /// Reads the real sources (see [`RawConfig::load`]) and validates them.
    pub fn load(config_file: Option<&Path>, flags: BTreeMap<String, String>) -> Result<Settings> {
        Settings::from_raw(&RawConfig::load(config_file, flags)?)
    }

    /// Validates layered raw values into typed settings, applying LightRAG's defaults.
    pub fn from_raw(raw: &RawConfig) -> Result<Settings> {
        let r = Reader::new(raw);
        let working_dir = PathBuf::from(r.string("WORKING_DIR", "./rag_storage"));
        let workspace = r.with(
            "WORKSPACE",
            String::new(),
            "only letters, digits and _ (it names a folder inside WORKING_DIR)",
            |s| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_').then(|| s.to_string()),
        )?;

        let llm_policy = llm_policy(r)?;
        let llm = llm_settings(r, llm_policy.timeout_secs, llm_policy.max_async)?;
        let mut embedding_policy = EmbeddingPolicy {
            batch_num: r.positive("EMBEDDING_BATCH_NUM", 10)?,
            max_async: r.positive("EMBEDDING_FUNC_MAX_ASYNC", 8)?,
            timeout_secs: r.positive("EMBEDDING_TIMEOUT", 30)?,
            max_retries: llm_policy.max_retries,
            retry_base_ms: llm_policy.retry_base_ms,
            // LightRAG: unset (or 0 / None) = no truncation
            token_limit: r.with("EMBEDDING_TOKEN_LIMIT", None, "a number of tokens (0 = no limit)", |s| {
                if s.trim().eq_ignore_ascii_case("none") {
                    return Some(None);
                }
                s.trim().parse::<usize>().ok().map(|n| (n > 0).then_some(n))
            })?,
        };
        let embedding = embedding_settings(
            r,
            EmbedPolicyValues {
                timeout_secs: embedding_policy.timeout_secs,
                batch_num: embedding_policy.batch_num,
                max_async: embedding_policy.max_async,
            },
        )?;

        if embedding.binding == EmbeddingBinding::Local {
            // The in-process model already spreads one batch over every core and cannot be
            // interrupted: run one batch at a time, and never time out (and retry) a batch that
            // is still computing.
            embedding_policy.max_async = 1;
            embedding_policy.timeout_secs = embedding_policy.timeout_secs.max(LOCAL_EMBED_TIMEOUT_SECS);
        }
        let rerank = rerank_settings(r)?;
        let rerank_policy = RerankPolicy {
            max_async: r.positive("MAX_ASYNC_RERANK", llm_policy.max_async)?,
            timeout_secs: r.positive("RERANK_TIMEOUT", 30)?,
        };
        let mut engine = EngineConfig {
            chunking: chunking(r)?,
            extraction: extraction(r, llm.binding)?,
            merge: merge(r)?,
            query: query(r)?,
            llm: llm_policy,
            embedding: embedding_policy,
            rerank: rerank_policy,
            pipeline: PipelineConfig {
                max_parallel_insert: r.positive("MAX_PARALLEL_INSERT", 3)?,
                lease_secs: r.positive("LEASE_SECS", 60)?,
                delete_batch_chunks: r.positive("DELETE_BATCH_CHUNKS", 5000)?,
            },
            prices: Default::default(),
            quotas: quotas(r)?,
        };
        let server = server_settings(r)?;
        let mcp = mcp_settings(r)?;
        let vectors = vector_settings(r)?;
        let ignored = crate::ignored::ignored_settings(raw);
        let role_llms = crate::roles::role_llm_settings(raw)?;
        // the extraction model (EXTRACT_LLM_*, else the main one) makes nearly every call of an insert
        let extract_llm = role_llms.iter().find(|m| m.role == crate::roles::LlmRole::Extract).map_or(&llm, |m| &m.llm);
        engine.prices = crate::prices::price_config(r, extract_llm, &embedding)?;
        let mut ignored = ignored;
        if crate::providers::openai_ollama(r) && r.is_set("EMBEDDING_BINDING") {
            let value = r.string("EMBEDDING_BINDING", "");
            if !value.trim().eq_ignore_ascii_case("ollama") {
                ignored.push(crate::ignored::IgnoredSetting {
                    key: "EMBEDDING_BINDING".into(),
                    source: r.raw_source("EMBEDDING_BINDING").to_string(),
                    why: "LLM_BINDING=openai-ollama embeds with Ollama (as in LightRAG); set LLM_BINDING=openai \
                          to use another embedding binding",
                });
            }
        }
        let pdf_decrypt_password = r.secret("PDF_DECRYPT_PASSWORD").filter(|p| !p.expose().is_empty());
        let postgres = crate::postgres::postgres_settings(r)?;
        let reembed_on_model_change = r.boolean("REEMBED_ON_MODEL_CHANGE", false)?;
        Ok(Settings {
            working_dir,
            workspace,
            llm,
            role_llms,
            embedding,
            rerank,
            engine,
            server,
            mcp,
            vectors,
            pdf_decrypt_password,
            postgres,
            reembed_on_model_change,
            ignored,
        })
    }

    /// The folder holding this workspace's data: `WORKING_DIR[/WORKSPACE]`.
    pub fn data_dir(&self) -> PathBuf {
        if self.workspace.is_empty() { self.working_dir.clone() } else { self.working_dir.join(&self.workspace) }
    }

    /// The store file: `WORKING_DIR[/WORKSPACE]/lightrag.db`.
    pub fn store_path(&self) -> PathBuf {
        self.data_dir().join(STORE_FILE)
    }
}

fn llm_policy(r: Reader<'_>) -> Result<LlmPolicy> {
    // MAX_ASYNC_LLM wins over its older alias MAX_ASYNC.
    let max_async =
        if r.is_set("MAX_ASYNC_LLM") { r.positive("MAX_ASYNC_LLM", 4)? } else { r.positive("MAX_ASYNC", 4)? };
    Ok(LlmPolicy {
        max_async,
        timeout_secs: r.positive("LLM_TIMEOUT", 240)?,
        max_retries: r.non_negative("LLM_MAX_RETRIES", 3)?,
        retry_base_ms: r.non_negative("LLM_RETRY_BASE_MS", 1000)?,
        enable_cache: r.boolean("ENABLE_LLM_CACHE", true)?,
        enable_cache_for_extract: r.boolean("ENABLE_LLM_CACHE_FOR_EXTRACT", true)?,
    })
}

fn chunking(r: Reader<'_>) -> Result<ChunkingConfig> {
    // the fixed-token chunker's own settings (CHUNK_F_*) win over the shared ones, as in LightRAG
    let chunk_size = r.positive("CHUNK_F_SIZE", r.positive("CHUNK_SIZE", 1200)?)?;
    let chunk_overlap = r.non_negative("CHUNK_F_OVERLAP_SIZE", r.non_negative("CHUNK_OVERLAP_SIZE", 100)?)?;
    // as LightRAG: empty, blank or `None` = no separator (so a whitespace-only one cannot be set)
    let split_by_character =
        r.opt_string("CHUNK_F_SPLIT_BY_CHARACTER").filter(|s| !s.trim().is_empty() && !s.eq_ignore_ascii_case("none"));
    let split_by_character_only = r.boolean("CHUNK_F_SPLIT_BY_CHARACTER_ONLY", false)?;
    if chunk_overlap >= chunk_size {
        return Err(ConfigError::Conflict(format!(
            "{} must be smaller than {}; lower the overlap or raise the chunk size",
            r.describe(
                if r.is_set("CHUNK_F_OVERLAP_SIZE") { "CHUNK_F_OVERLAP_SIZE" } else { "CHUNK_OVERLAP_SIZE" },
                &chunk_overlap
            ),
            r.describe(if r.is_set("CHUNK_F_SIZE") { "CHUNK_F_SIZE" } else { "CHUNK_SIZE" }, &chunk_size),
        )));
    }
    Ok(ChunkingConfig { chunk_size, chunk_overlap, split_by_character, split_by_character_only })
}

fn extraction(r: Reader<'_>, llm: LlmBinding) -> Result<ExtractionConfig> {
    let default = if llm == LlmBinding::None { ExtractionMethod::Nlp } else { ExtractionMethod::Llm };
    let method = r.choice("EXTRACTION", default, &[("llm", ExtractionMethod::Llm), ("nlp", ExtractionMethod::Nlp)])?;
    if method == ExtractionMethod::Llm && llm == LlmBinding::None {
        return Err(ConfigError::Conflict(format!(
            "{} needs a chat model, but {}; set LLM_BINDING (and LLM_MODEL), or use EXTRACTION=nlp",
            r.describe("EXTRACTION", &"llm"),
            r.describe("LLM_BINDING", &"none"),
        )));
    }
    let language = r.string("SUMMARY_LANGUAGE", "English");
    let entity_types = r.list("ENTITY_TYPES", default_entity_types())?;
    let schema = crate::schema::extraction_schema(r, method, &entity_types)?;
    Ok(ExtractionConfig {
        method,
        max_gleaning: r.non_negative("MAX_GLEANING", 1)?,
        max_extract_input_tokens: r.positive("MAX_EXTRACT_INPUT_TOKENS", 20480)?,
        max_records: r.positive("MAX_EXTRACTION_RECORDS", 100)?,
        max_entities: r.positive("MAX_EXTRACTION_ENTITIES", 40)?,
        language,
        // a schema file's entity types replace ENTITY_TYPES
        entity_types: schema.as_ref().map(|s| s.entity_type_names()).unwrap_or(entity_types),
        use_json: r.boolean("ENTITY_EXTRACTION_USE_JSON", false)?,
        schema,
    })
}

fn merge(r: Reader<'_>) -> Result<MergeConfig> {
    Ok(MergeConfig {
        force_llm_summary_on_merge: r.positive("FORCE_LLM_SUMMARY_ON_MERGE", 8)?,
        summary_max_tokens: r.positive("SUMMARY_MAX_TOKENS", 1200)?,
        summary_context_size: r.positive("SUMMARY_CONTEXT_SIZE", 12000)?,
        summary_length_recommended: r.positive("SUMMARY_LENGTH_RECOMMENDED", 600)?,
        max_source_ids_per_entity: r.positive("MAX_SOURCE_IDS_PER_ENTITY", 200)?,
        max_source_ids_per_relation: r.positive("MAX_SOURCE_IDS_PER_RELATION", 200)?,
        source_ids_limit_method: r.choice(
            "SOURCE_IDS_LIMIT_METHOD",
            SourceIdsLimitMethod::Keep,
            &[("KEEP", SourceIdsLimitMethod::Keep), ("FIFO", SourceIdsLimitMethod::Fifo)],
        )?,
        max_file_paths: r.positive("MAX_FILE_PATHS", 75)?,
    })
}

fn query(r: Reader<'_>) -> Result<QueryConfig> {
    Ok(QueryConfig {
        top_k: r.positive("TOP_K", 40)?,
        chunk_top_k: r.positive("CHUNK_TOP_K", 20)?,
        max_entity_tokens: r.positive("MAX_ENTITY_TOKENS", 6000)?,
        max_relation_tokens: r.positive("MAX_RELATION_TOKENS", 8000)?,
        max_total_tokens: r.positive("MAX_TOTAL_TOKENS", 30000)?,
        cosine_threshold: r.float_in("COSINE_THRESHOLD", 0.2, -1.0, 1.0)? as f32,
        related_chunk_number: r.positive("RELATED_CHUNK_NUMBER", 5)?,
        kg_chunk_pick_method: r.choice(
            "KG_CHUNK_PICK_METHOD",
            ChunkPickMethod::Vector,
            &[("VECTOR", ChunkPickMethod::Vector), ("WEIGHT", ChunkPickMethod::Weight)],
        )?,
        llm_keywords: true,
        rerank_by_default: r.boolean("RERANK_BY_DEFAULT", true)?,
        min_rerank_score: r.float_in("MIN_RERANK_SCORE", 0.0, -1.0e9, 1.0e9)?,
        ppr: ppr(r)?,
        chunk_fusion: r.choice("CHUNK_FUSION", ChunkFusion::RoundRobin, &ChunkFusion::ALL.map(|f| (f.as_str(), f)))?,
        rrf_k: r.float_in("RRF_K", 60.0, 0.0, 1.0e6)?,
        default_mode: r.choice("DEFAULT_QUERY_MODE", QueryMode::Auto, &QueryMode::ALL.map(|m| (m.as_str(), m)))?,
        filter_exact_limit: r.non_negative("QUERY_FILTER_EXACT_LIMIT", 20_000)?,
    })
}

fn ppr(r: Reader<'_>) -> Result<PprConfig> {
    let d = PprConfig::default();
    Ok(PprConfig {
        damping: r.float_in("PPR_DAMPING", d.damping, 0.0, 0.99)?,
        passage_share: r.float_in("PPR_PASSAGE_SHARE", d.passage_share, 0.0, 1.0)?,
        specificity: r.float_in("PPR_SPECIFICITY", d.specificity, 0.0, 4.0)?,
        rounds: r.positive("PPR_ROUNDS", d.rounds)?,
        expand: r.positive("PPR_EXPAND", d.expand)?,
        entity_chunks: r.positive("PPR_ENTITY_CHUNKS", d.entity_chunks)?,
        entity_relations: r.positive("PPR_ENTITY_RELATIONS", d.entity_relations)?,
        relation_weight: r.float_in("PPR_RELATION_WEIGHT", d.relation_weight, 0.0, 100.0)?,
        similar_entity_weight: r.float_in("PPR_SIMILAR_ENTITY_WEIGHT", d.similar_entity_weight, 0.0, 100.0)?,
        lexical_share: r.float_in("PPR_LEXICAL_SHARE", d.lexical_share, 0.0, 1.0)?,
        degree_damping: r.float_in("PPR_DEGREE_DAMPING", d.degree_damping, 0.0, 4.0)?,
        query_focus: r.float_in("PPR_QUERY_FOCUS", d.query_focus, 0.0, 100.0)?,
        cue_weight: r.float_in("PPR_CUE_WEIGHT", d.cue_weight, 0.0, 100.0)?,
        whole_names: r.boolean("PPR_WHOLE_NAMES", d.whole_names)?,
        name_text_weight: r.float_in("PPR_NAME_TEXT_WEIGHT", d.name_text_weight, 0.0, 100.0)?,
        fusion_weights: FusionWeights {
            walk: r.float_in("PPR_FUSION_WALK_WEIGHT", d.fusion_weights.walk, 0.0, 100.0)?,
            vector: r.float_in("PPR_FUSION_VECTOR_WEIGHT", d.fusion_weights.vector, 0.0, 100.0)?,
            lexical: r.float_in("PPR_FUSION_LEXICAL_WEIGHT", d.fusion_weights.lexical, 0.0, 100.0)?,
            hop: r.float_in("PPR_HOP_WEIGHT", d.fusion_weights.hop, 0.0, 100.0)?,
        },
        hop_from: r.positive("PPR_HOP_FROM", d.hop_from)?,
        fusion_k: r.float_in("PPR_FUSION_K", d.fusion_k, 0.0, 1.0e6)?,
        fusion_depth: r.positive("PPR_FUSION_DEPTH", d.fusion_depth)?,
        decompose: r.boolean("QUERY_DECOMPOSITION", d.decompose)?,
    })
}

/// The `QUOTA_*` settings: each a positive number (bytes may carry a `KB`/`MB`/`GB`/`TB` suffix,
/// powers of 1024); unset, empty or `0` = no limit.
fn quotas(r: Reader<'_>) -> Result<lightrag_engine::config::QuotaConfig> {
    let limit = |key: &str, units: bool| {
        let expected = if units {
            "a number of bytes, optionally with KB, MB, GB or TB (0 or empty = no limit)"
        } else {
            "a whole number (0 or empty = no limit)"
        };
        r.opt_with(key, expected, |s| parse_limit(s, units)).map(Option::flatten)
    };
    Ok(lightrag_engine::config::QuotaConfig {
        max_documents: limit("QUOTA_MAX_DOCUMENTS", false)?,
        max_stored_bytes: limit("QUOTA_MAX_STORED_BYTES", true)?,
        max_llm_tokens_per_day: limit("QUOTA_MAX_LLM_TOKENS_PER_DAY", false)?,
    })
}

/// `Some(None)` for no limit (empty, `0`), `Some(Some(n))` for a limit, `None` for bad input.
fn parse_limit(s: &str, units: bool) -> Option<Option<u64>> {
    let s = s.trim();
    if s.is_empty() {
        return Some(None);
    }
    let upper = s.to_ascii_uppercase();
    let (digits, scale) = match units {
        true => [("TB", 1u64 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]
            .into_iter()
            .find_map(|(unit, scale)| upper.strip_suffix(unit).map(|d| (d.trim().to_string(), scale)))
            .unwrap_or((upper.clone(), 1)),
        false => (upper.clone(), 1),
    };
    let n: u64 = digits.parse().ok()?;
    let n = n.checked_mul(scale)?;
    Some((n > 0).then_some(n))
}
