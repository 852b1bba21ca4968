//! The engine's typed configuration. Built once at start-up by the application layer (which reads
//! LightRAG's environment names); components receive the sub-structs they need and never read the
//! environment themselves. Defaults are LightRAG's.

use serde::{Deserialize, Serialize};

/// Everything the engine needs to know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct EngineConfig {
    /// Chunking (`CHUNK_SIZE`, `CHUNK_OVERLAP_SIZE`).
    pub chunking: ChunkingConfig,
    /// Entity/relation extraction.
    pub extraction: ExtractionConfig,
    /// Merging into the graph.
    pub merge: MergeConfig,
    /// Query defaults.
    pub query: QueryConfig,
    /// LLM call policy.
    pub llm: LlmPolicy,
    /// Embedding call policy.
    pub embedding: EmbeddingPolicy,
    /// Rerank call policy.
    #[serde(default)]
    pub rerank: RerankPolicy,
    /// Pipeline concurrency and leases.
    pub pipeline: PipelineConfig,
    /// Prices for cost estimates (`LLM_PRICE_INPUT`, `LLM_PRICE_OUTPUT`, `EMBEDDING_PRICE`).
    #[serde(default)]
    pub prices: PriceConfig,
    /// What one knowledge base may hold and spend (`QUOTA_*`; none by default).
    #[serde(default)]
    pub quotas: QuotaConfig,
}

/// The quotas of one knowledge base (each workspace has its own); `None` = no limit. Documents and
/// stored bytes are enforced by the store as it enqueues ([`lightrag_ports::EnqueueLimits`]); the
/// daily LLM tokens before an enqueue, against the usage ledger of the day.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuotaConfig {
    /// Documents whose text is stored (`QUOTA_MAX_DOCUMENTS`).
    pub max_documents: Option<u64>,
    /// Bytes (UTF-8) of stored document text (`QUOTA_MAX_STORED_BYTES`).
    pub max_stored_bytes: Option<u64>,
    /// LLM tokens (input + output of extraction, summaries, keywords and answers) per UTC day
    /// (`QUOTA_MAX_LLM_TOKENS_PER_DAY`): an insert is refused once the day's ledger reaches it.
    pub max_llm_tokens_per_day: Option<u64>,
}

impl QuotaConfig {
    /// The limits the store enforces as it enqueues.
    pub fn enqueue_limits(&self) -> lightrag_ports::EnqueueLimits {
        lightrag_ports::EnqueueLimits { max_documents: self.max_documents, max_stored_bytes: self.max_stored_bytes }
    }
}

/// What the models cost, in US dollars per million tokens; `None` = unknown (the estimate then
/// gives tokens without money).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PriceConfig {
    /// Chat model input (`LLM_PRICE_INPUT`).
    pub llm_input: Option<f64>,
    /// Chat model output (`LLM_PRICE_OUTPUT`).
    pub llm_output: Option<f64>,
    /// Embedding model input (`EMBEDDING_PRICE`).
    pub embedding: Option<f64>,
}

/// Policy applied to every rerank call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RerankPolicy {
    /// Concurrent calls (`MAX_ASYNC_RERANK`, default `MAX_ASYNC_LLM`).
    pub max_async: usize,
    /// Seconds per call (`RERANK_TIMEOUT`, 30).
    pub timeout_secs: u64,
}

impl Default for RerankPolicy {
    fn default() -> Self {
        Self { max_async: 4, timeout_secs: 30 }
    }
}

/// Token chunking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkingConfig {
    /// Tokens per chunk (`CHUNK_SIZE`, 1200).
    pub chunk_size: usize,
    /// Overlap between consecutive chunks (`CHUNK_OVERLAP_SIZE`, 100).
    pub chunk_overlap: usize,
    /// Separator for documents that name none (`CHUNK_F_SPLIT_BY_CHARACTER`).
    #[serde(default)]
    pub split_by_character: Option<String>,
    /// With that separator, split on it only (`CHUNK_F_SPLIT_BY_CHARACTER_ONLY`).
    #[serde(default)]
    pub split_by_character_only: bool,
}

impl Default for ChunkingConfig {
    fn default() -> Self {
        Self { chunk_size: 1200, chunk_overlap: 100, split_by_character: None, split_by_character_only: false }
    }
}

/// How entities and relations are extracted from chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ExtractionMethod {
    /// An LLM reads each chunk (LightRAG's method).
    #[default]
    Llm,
    /// Deterministic rules, no model (`EXTRACTION=nlp`).
    Nlp,
}

/// Extraction settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractionConfig {
    /// `EXTRACTION` (`llm` or `nlp`).
    pub method: ExtractionMethod,
    /// Gleaning passes (`MAX_GLEANING`, 1; LightRAG does at most one).
    pub max_gleaning: usize,
    /// Skip gleaning when the prompt would exceed this (`MAX_EXTRACT_INPUT_TOKENS`, 20480).
    pub max_extract_input_tokens: usize,
    /// Rows per response told to the LLM and enforced (`MAX_EXTRACTION_RECORDS`, 100).
    pub max_records: usize,
    /// Entity rows per response (`MAX_EXTRACTION_ENTITIES`, 40).
    pub max_entities: usize,
    /// Output language (`SUMMARY_LANGUAGE`, English).
    pub language: String,
    /// Entity types offered to the LLM (`ENTITY_TYPES`).
    pub entity_types: Vec<String>,
    /// Ask for LightRAG's JSON layout instead of delimited records (`ENTITY_EXTRACTION_USE_JSON`).
    #[serde(default)]
    pub use_json: bool,
    /// Typed extraction (`EXTRACTION_SCHEMA`, or `RELATION_TYPES` with `ENTITY_TYPES`): the prompt
    /// carries the schema and LLM extraction results are held to it. `None`: LightRAG's extraction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<crate::indexing::extract::schema::ExtractionSchema>,
}

impl Default for ExtractionConfig {
    fn default() -> Self {
        Self {
            method: ExtractionMethod::Llm,
            max_gleaning: 1,
            max_extract_input_tokens: 20480,
            max_records: 100,
            max_entities: 40,
            language: "English".into(),
            entity_types: default_entity_types(),
            use_json: false,
            schema: None,
        }
    }
}

/// LightRAG's default entity types.
pub fn default_entity_types() -> Vec<String> {
    [
        "Person",
        "Creature",
        "Organization",
        "Location",
        "Event",
        "Concept",
        "Method",
        "Content",
        "Data",
        "Artifact",
        "NaturalObject",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Which provenance to keep when a limit is reached (`SOURCE_IDS_LIMIT_METHOD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum SourceIdsLimitMethod {
    /// Keep the oldest (`KEEP`, default); new chunks beyond the limit are not recorded.
    #[default]
    #[serde(rename = "KEEP")]
    Keep,
    /// Keep the newest (`FIFO`).
    #[serde(rename = "FIFO")]
    Fifo,
}

/// Merge settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergeConfig {
    /// Fragment count that forces an LLM summary (`FORCE_LLM_SUMMARY_ON_MERGE`, 8).
    pub force_llm_summary_on_merge: usize,
    /// Description size in tokens that triggers a summary (`SUMMARY_MAX_TOKENS`, 1200).
    pub summary_max_tokens: usize,
    /// Max tokens sent to one summary call (`SUMMARY_CONTEXT_SIZE`, 12000).
    pub summary_context_size: usize,
    /// Target summary length in tokens (`SUMMARY_LENGTH_RECOMMENDED`, 600).
    pub summary_length_recommended: usize,
    /// `MAX_SOURCE_IDS_PER_ENTITY` (200).
    pub max_source_ids_per_entity: usize,
    /// `MAX_SOURCE_IDS_PER_RELATION` (200).
    pub max_source_ids_per_relation: usize,
    /// `SOURCE_IDS_LIMIT_METHOD` (KEEP).
    pub source_ids_limit_method: SourceIdsLimitMethod,
    /// `MAX_FILE_PATHS` (75).
    pub max_file_paths: usize,
}

impl Default for MergeConfig {
    fn default() -> Self {
        Self {
            force_llm_summary_on_merge: 8,
            summary_max_tokens: 1200,
            summary_context_size: 12000,
            summary_length_recommended: 600,
            max_source_ids_per_entity: 200,
            max_source_ids_per_relation: 200,
            source_ids_limit_method: SourceIdsLimitMethod::Keep,
            max_file_paths: 75,
        }
    }
}

/// How chunks are picked from entities and relations (`KG_CHUNK_PICK_METHOD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ChunkPickMethod {
    /// By similarity to the query (default).
    #[default]
    #[serde(rename = "VECTOR")]
    Vector,
    /// By occurrence weight.
    #[serde(rename = "WEIGHT")]
    Weight,
}

/// How the chunk lists of a query's channels become one ranking (`CHUNK_FUSION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ChunkFusion {
    /// LightRAG's round-robin merge of the vector, entity and relation chunk lists (the default
    /// of the LightRAG modes).
    #[default]
    RoundRobin,
    /// Reciprocal-rank fusion of the same lists plus the lexical (BM25) list: a chunk scores
    /// Σ 1 / (`RRF_K` + its rank in each list), so a chunk several channels find comes first.
    Rrf,
}

impl ChunkFusion {
    /// Every choice.
    pub const ALL: [ChunkFusion; 2] = [ChunkFusion::RoundRobin, ChunkFusion::Rrf];

    /// The setting's spelling (`round_robin`, `rrf`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkFusion::RoundRobin => "round_robin",
            ChunkFusion::Rrf => "rrf",
        }
    }
}

/// A chunk fusion name that is not `round_robin` or `rrf`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown chunk fusion '{0}'; use rrf or round_robin")]
pub struct UnknownChunkFusion(pub String);

impl std::str::FromStr for ChunkFusion {
    type Err = UnknownChunkFusion;

    /// The spelling of [`ChunkFusion::as_str`], any case, surrounding spaces ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        ChunkFusion::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| UnknownChunkFusion(wanted.to_string()))
    }
}

/// Query defaults (each can be overridden per query).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryConfig {
    /// `TOP_K` (40).
    pub top_k: usize,
    /// `CHUNK_TOP_K` (20).
    pub chunk_top_k: usize,
    /// `MAX_ENTITY_TOKENS` (6000).
    pub max_entity_tokens: usize,
    /// `MAX_RELATION_TOKENS` (8000).
    pub max_relation_tokens: usize,
    /// `MAX_TOTAL_TOKENS` (30000).
    pub max_total_tokens: usize,
    /// `COSINE_THRESHOLD` (0.2).
    pub cosine_threshold: f32,
    /// `RELATED_CHUNK_NUMBER` (5).
    pub related_chunk_number: usize,
    /// `KG_CHUNK_PICK_METHOD` (VECTOR).
    pub kg_chunk_pick_method: ChunkPickMethod,
    /// Use the LLM for query keywords when one is configured (`--no-llm-keywords` turns it off).
    pub llm_keywords: bool,
    /// Rerank chunks when a query does not say (`RERANK_BY_DEFAULT`, true).
    #[serde(default = "yes")]
    pub rerank_by_default: bool,
    /// Chunks scored below this by the reranker are dropped (`MIN_RERANK_SCORE`, 0 = keep all).
    #[serde(default)]
    pub min_rerank_score: f64,
    /// The `ppr` mode's walk (`PPR_*`).
    #[serde(default)]
    pub ppr: PprConfig,
    /// How the LightRAG modes merge their chunk lists when a query does not say
    /// (`CHUNK_FUSION`, `round_robin`; the `auto` mode always fuses).
    #[serde(default)]
    pub chunk_fusion: ChunkFusion,
    /// `RRF_K` (60): the constant of reciprocal-rank fusion; larger values flatten the
    /// difference between first and later ranks.
    #[serde(default = "default_rrf_k")]
    pub rrf_k: f64,
    /// `DEFAULT_QUERY_MODE` (`auto`): the mode of a query that names none, applied by the
    /// interfaces (CLI, server, Ollama chat); `mix` restores LightRAG's default.
    #[serde(default)]
    pub default_mode: crate::retrieval::query::QueryMode,
    /// `QUERY_FILTER_EXACT_LIMIT` (20000): a filtered query ranks up to this many passing chunks
    /// (or candidate entities/relations) exactly, scoring each one's vector; above it, it
    /// over-fetches from the vector index and drops what does not pass.
    #[serde(default = "default_filter_exact_limit")]
    pub filter_exact_limit: usize,
}

fn default_filter_exact_limit() -> usize {
    20_000
}

fn default_rrf_k() -> f64 {
    60.0
}

/// Settings of the `ppr` query mode (`query::ppr` explains each step).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PprConfig {
    /// `PPR_DAMPING` (0.85): probability that the walk follows an edge rather than jumping back
    /// to the seeds.
    pub damping: f64,
    /// `PPR_PASSAGE_SHARE` (0.05): share of the seed weight given to the passages closest to the
    /// question (the rest goes to the entities it names or resembles).
    pub passage_share: f64,
    /// `PPR_SPECIFICITY` (0.5): a seed entity's weight is divided by the number of chunks that
    /// mention it to this power.
    pub specificity: f64,
    /// `PPR_ROUNDS` (3): expansion rounds of the walk's graph.
    pub rounds: usize,
    /// `PPR_EXPAND` (40): nodes expanded per round (the best-scoring ones not expanded yet).
    pub expand: usize,
    /// `PPR_ENTITY_CHUNKS` (40): chunks read per expanded entity.
    pub entity_chunks: usize,
    /// `PPR_ENTITY_RELATIONS` (20): relations read per expanded entity.
    pub entity_relations: usize,
    /// `PPR_RELATION_WEIGHT` (0.3): weight of an entity–entity edge against an entity–chunk
    /// edge (1).
    pub relation_weight: f64,
    /// `PPR_SIMILAR_ENTITY_WEIGHT` (0.1): seed weight of an entity the entity index finds close
    /// to the question, times its similarity (an entity the question names weighs 1).
    pub similar_entity_weight: f64,
    /// `PPR_LEXICAL_SHARE` (0.8): share of the seed weight given to the passages that contain a
    /// name the question gives (the lexical index's hits, see `PPR_WHOLE_NAMES`).
    #[serde(default = "default_lexical_share")]
    pub lexical_share: f64,
    /// `PPR_DEGREE_DAMPING` (0): a passage's walk score is divided by its number of entities
    /// to this power before ranking, so that passages naming many entities do not come first for
    /// every question.
    #[serde(default = "default_degree_damping")]
    pub degree_damping: f64,
    /// `PPR_QUERY_FOCUS` (0): the walk moves to an entity in proportion to e^(focus × its
    /// similarity to the question), so it follows the entities the question is about (0: all
    /// alike).
    #[serde(default = "default_query_focus")]
    pub query_focus: f64,
    /// `PPR_CUE_WEIGHT` (0): an expanded passage's edge to an entity weighs 1 + this × the
    /// number of the question's cue words (lower-case content words) near the entity's mention.
    #[serde(default = "default_cue_weight")]
    pub cue_weight: f64,
    /// `PPR_WHOLE_NAMES` (true): the lexical seeds are the passages that contain a name of the
    /// question whole (every word of it), not those that share any of its words.
    #[serde(default = "default_whole_names")]
    pub whole_names: bool,
    /// `PPR_NAME_TEXT_WEIGHT` (0.5): seed weight of an entity the entity lexical index (BM25
    /// over names and descriptions) finds for the question's name words, times its score relative
    /// to the best hit's — the names the embedder misses ("King Dikkha" finds "Min Dikkha"); 0
    /// turns the search off.
    #[serde(default = "default_name_text_weight")]
    pub name_text_weight: f64,
    /// Weights of the channels that `ppr` with `chunk_fusion` `rrf` (what `auto` runs) fuses by
    /// reciprocal rank (`query::fused`): the walk (`PPR_FUSION_WALK_WEIGHT`), the chunk vector
    /// index (`PPR_FUSION_VECTOR_WEIGHT`), the chunk lexical index asked for the question's words
    /// (`PPR_FUSION_LEXICAL_WEIGHT`), and the second hop (`PPR_HOP_WEIGHT`, 0 turns it off).
    #[serde(default = "default_fusion_weights")]
    pub fusion_weights: FusionWeights,
    /// `PPR_HOP_FROM`: the second hop starts from the entities of this many first passages of
    /// the fused first hop.
    #[serde(default = "default_hop_from")]
    pub hop_from: usize,
    /// `PPR_FUSION_K`: the constant k of the fused walk's reciprocal-rank fusion (a passage at
    /// rank r of a channel earns weight / (k + r)); smaller than `RRF_K`, so that each channel's
    /// first passages count.
    #[serde(default = "default_fusion_k")]
    pub fusion_k: f64,
    /// `PPR_FUSION_DEPTH`: passages each channel other than the walk (vectors, lexical, second
    /// hop) brings to the fused walk — their first few are evidence, the rest noise that would
    /// push the walk's bridge passages out.
    #[serde(default = "default_fusion_depth")]
    pub fusion_depth: usize,
    /// `QUERY_DECOMPOSITION` (false): with a chat model configured, the fused walk asks it to
    /// split the question into sub-questions and searches each (`query::decompose`).
    #[serde(default)]
    pub decompose: bool,
}

fn default_fusion_depth() -> usize {
    PprConfig::default().fusion_depth
}

fn default_fusion_k() -> f64 {
    PprConfig::default().fusion_k
}

/// Channel weights of the fused walk (see [`PprConfig::fusion_weights`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FusionWeights {
    /// The walk's passages (`PPR_FUSION_WALK_WEIGHT`).
    pub walk: f64,
    /// The chunk vector index's hits for the question (`PPR_FUSION_VECTOR_WEIGHT`).
    pub vector: f64,
    /// The chunk lexical index's hits for the question's words (`PPR_FUSION_LEXICAL_WEIGHT`).
    pub lexical: f64,
    /// The second hop's passages (`PPR_HOP_WEIGHT`; 0: no second hop).
    pub hop: f64,
}

fn default_fusion_weights() -> FusionWeights {
    PprConfig::default().fusion_weights
}

fn default_hop_from() -> usize {
    PprConfig::default().hop_from
}

fn default_name_text_weight() -> f64 {
    PprConfig::default().name_text_weight
}

fn default_whole_names() -> bool {
    PprConfig::default().whole_names
}

fn default_cue_weight() -> f64 {
    PprConfig::default().cue_weight
}

fn default_query_focus() -> f64 {
    PprConfig::default().query_focus
}

fn default_degree_damping() -> f64 {
    PprConfig::default().degree_damping
}

fn default_lexical_share() -> f64 {
    PprConfig::default().lexical_share
}

impl Default for PprConfig {
    fn default() -> Self {
        Self {
            damping: 0.85,
            passage_share: 0.05,
            specificity: 0.5,
            rounds: 3,
            expand: 40,
            entity_chunks: 40,
            entity_relations: 20,
            relation_weight: 0.3,
            similar_entity_weight: 0.1,
            lexical_share: 0.8,
            degree_damping: 0.0,
            query_focus: 0.0,
            cue_weight: 0.0,
            whole_names: true,
            name_text_weight: 0.5,
            fusion_weights: FusionWeights { walk: 1.5, vector: 1.0, lexical: 1.0, hop: 1.5 },
            hop_from: 2,
            fusion_k: 10.0,
            fusion_depth: 3,
            decompose: false,
        }
    }
}

fn yes() -> bool {
    true
}

impl Default for QueryConfig {
    fn default() -> Self {
        Self {
            top_k: 40,
            chunk_top_k: 20,
            max_entity_tokens: 6000,
            max_relation_tokens: 8000,
            max_total_tokens: 30000,
            cosine_threshold: 0.2,
            related_chunk_number: 5,
            kg_chunk_pick_method: ChunkPickMethod::Vector,
            llm_keywords: true,
            rerank_by_default: true,
            min_rerank_score: 0.0,
            ppr: PprConfig::default(),
            chunk_fusion: ChunkFusion::RoundRobin,
            rrf_k: default_rrf_k(),
            default_mode: crate::retrieval::query::QueryMode::Auto,
            filter_exact_limit: default_filter_exact_limit(),
        }
    }
}

/// Policy applied to every LLM call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlmPolicy {
    /// Concurrent calls (`MAX_ASYNC` / `MAX_ASYNC_LLM`, 4).
    pub max_async: usize,
    /// Seconds per call (`LLM_TIMEOUT`, 240).
    pub timeout_secs: u64,
    /// Retries after the first attempt on 429/5xx/timeouts/connection errors (`LLM_MAX_RETRIES`, 3).
    pub max_retries: u32,
    /// First backoff delay in ms, doubled each retry with jitter (`LLM_RETRY_BASE_MS`, 1000).
    pub retry_base_ms: u64,
    /// Cache keyword and answer responses (`ENABLE_LLM_CACHE`, true).
    pub enable_cache: bool,
    /// Cache extraction and summary responses (`ENABLE_LLM_CACHE_FOR_EXTRACT`, true).
    pub enable_cache_for_extract: bool,
}

impl Default for LlmPolicy {
    fn default() -> Self {
        Self {
            max_async: 4,
            timeout_secs: 240,
            max_retries: 3,
            retry_base_ms: 1000,
            enable_cache: true,
            enable_cache_for_extract: true,
        }
    }
}

/// Policy applied to every embedding call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingPolicy {
    /// Texts per call (`EMBEDDING_BATCH_NUM`, 10).
    pub batch_num: usize,
    /// Concurrent calls (`EMBEDDING_FUNC_MAX_ASYNC`, 8).
    pub max_async: usize,
    /// Seconds per call (`EMBEDDING_TIMEOUT`, 30).
    pub timeout_secs: u64,
    /// Retries on transient errors (shares `LLM_MAX_RETRIES`).
    pub max_retries: u32,
    /// First backoff delay in ms.
    pub retry_base_ms: u64,
    /// `EMBEDDING_TOKEN_LIMIT`: texts longer than this many tokens are cut to their first
    /// `token_limit` tokens before they are embedded (LightRAG's embedding truncation); `None` =
    /// sent whole.
    #[serde(default)]
    pub token_limit: Option<usize>,
}

impl Default for EmbeddingPolicy {
    fn default() -> Self {
        Self { batch_num: 10, max_async: 8, timeout_secs: 30, max_retries: 3, retry_base_ms: 1000, token_limit: None }
    }
}

/// Document pipeline settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PipelineConfig {
    /// Documents processed concurrently (`MAX_PARALLEL_INSERT`, 3).
    pub max_parallel_insert: usize,
    /// Seconds a processing lease lasts without renewal (`LEASE_SECS`, 60).
    pub lease_secs: u64,
    /// Chunks of the documents one deletion pass removes (`DELETE_BATCH_CHUNKS`, 5000): a
    /// deletion of many documents goes in passes of whole documents up to this many chunks
    /// (a larger document is a pass of its own), each one commit. See [`crate::maintenance::delete`].
    pub delete_batch_chunks: usize,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self { max_parallel_insert: 3, lease_secs: 60, delete_batch_chunks: 5000 }
    }
}
