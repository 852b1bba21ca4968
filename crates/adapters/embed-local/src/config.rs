//! The model folder's JSON configuration: `config.json` (BERT shape), `sentence_bert_config.json`
//! (sequence limit) and `1_Pooling/config.json` (pooling mode).

use std::path::Path;

use serde::Deserialize;

use crate::error::{ModelError, read_file};

/// Sequence limit sentence-transformers uses for all-MiniLM-L6-v2 when the folder does not say.
pub(crate) const DEFAULT_MAX_SEQ_LENGTH: usize = 256;

/// The shape of a BERT encoder, from `config.json`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BertConfig {
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f32,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    #[serde(default = "default_position_type")]
    pub position_embedding_type: String,
}

fn default_eps() -> f32 {
    1e-12
}
fn default_act() -> String {
    "gelu".to_owned()
}
fn default_position_type() -> String {
    "absolute".to_owned()
}

impl BertConfig {
    /// Reads and checks `config.json`: only what this encoder implements is accepted.
    pub(crate) fn load(dir: &Path) -> Result<Self, ModelError> {
        let path = dir.join("config.json");
        let text = read_file(&path)?;
        let cfg: BertConfig = serde_json::from_slice(&text)
            .map_err(|e| ModelError::Broken { path: path.clone(), reason: format!("not a BERT config.json: {e}") })?;
        let unsupported = |reason: String| ModelError::Broken { path: path.clone(), reason };
        if cfg.hidden_act != "gelu" {
            return Err(unsupported(format!("hidden_act {:?} is not supported (only \"gelu\")", cfg.hidden_act)));
        }
        if cfg.position_embedding_type != "absolute" {
            return Err(unsupported(format!(
                "position_embedding_type {:?} is not supported (only \"absolute\")",
                cfg.position_embedding_type
            )));
        }
        if cfg.num_attention_heads == 0
            || cfg.hidden_size == 0
            || !cfg.hidden_size.is_multiple_of(cfg.num_attention_heads)
        {
            return Err(unsupported(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                cfg.hidden_size, cfg.num_attention_heads
            )));
        }
        if cfg.type_vocab_size == 0 || cfg.max_position_embeddings < 3 || cfg.vocab_size == 0 {
            return Err(unsupported(
                "type_vocab_size, vocab_size and max_position_embeddings must be positive".to_owned(),
            ));
        }
        Ok(cfg)
    }

    /// Width of one attention head.
    pub(crate) fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads
    }
}

#[derive(Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

/// The sequence limit (tokens, counting `[CLS]` and `[SEP]`) from `sentence_bert_config.json`,
/// or 256 when the file is absent; never more than the model's position table.
pub(crate) fn max_seq_length(dir: &Path, cfg: &BertConfig) -> Result<usize, ModelError> {
    let path = dir.join("sentence_bert_config.json");
    let configured = if path.is_file() {
        let text = read_file(&path)?;
        let sb: SentenceBertConfig = serde_json::from_slice(&text)
            .map_err(|e| ModelError::Broken { path: path.clone(), reason: format!("unreadable JSON: {e}") })?;
        sb.max_seq_length.unwrap_or(DEFAULT_MAX_SEQ_LENGTH)
    } else {
        DEFAULT_MAX_SEQ_LENGTH
    };
    Ok(configured.clamp(3, cfg.max_position_embeddings))
}

#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

/// Refuses a folder whose `1_Pooling/config.json` asks for anything but plain mean pooling
/// (this embedder only implements that). An absent file is accepted.
pub(crate) fn check_pooling(dir: &Path) -> Result<(), ModelError> {
    let path = dir.join("1_Pooling").join("config.json");
    if !path.is_file() {
        return Ok(());
    }
    let text = read_file(&path)?;
    let p: PoolingConfig = serde_json::from_slice(&text)
        .map_err(|e| ModelError::Broken { path: path.clone(), reason: format!("unreadable JSON: {e}") })?;
    if p.pooling_mode_mean_tokens
        && !p.pooling_mode_cls_token
        && !p.pooling_mode_max_tokens
        && !p.pooling_mode_mean_sqrt_len_tokens
    {
        Ok(())
    } else {
        Err(ModelError::Broken {
            path,
            reason: "only mean pooling (pooling_mode_mean_tokens alone) is supported".to_owned(),
        })
    }
}
