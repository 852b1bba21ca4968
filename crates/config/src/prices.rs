//! Model prices for cost estimates (`lightrag insert --dry-run`, `POST /documents/estimate`):
//! `LLM_PRICE_INPUT`, `LLM_PRICE_OUTPUT` and `EMBEDDING_PRICE` in US dollars per million tokens,
//! else the built-in list price of a well-known model.
//!
//! The table holds **approximate list prices** (standard tier, no batch or cached-input discount)
//! as OpenAI published them in 2025 (checked 2025-06). Prices change: set the variables for
//! figures you can rely on. A model served by Ollama, and the in-process embedder, cost nothing.

use lightrag_engine::config::PriceConfig;

use crate::embedding::EmbeddingSettings;
use crate::error::ConfigError;
use crate::parse::Reader;
use crate::providers::{EmbeddingBinding, LlmBinding, LlmSettings};

/// When the table's prices were checked.
pub const PRICES_CHECKED: &str = "2025-06";

/// Chat models: (name, input, output), US dollars per million tokens.
const CHAT_PRICES: &[(&str, f64, f64)] = &[
    ("gpt-4o-mini", 0.15, 0.60),
    ("gpt-4o", 2.50, 10.00),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1", 2.00, 8.00),
    ("gpt-5-nano", 0.05, 0.40),
    ("gpt-5-mini", 0.25, 2.00),
];

/// Embedding models: (name, input), US dollars per million tokens.
const EMBEDDING_PRICES: &[(&str, f64)] =
    &[("text-embedding-3-small", 0.02), ("text-embedding-3-large", 0.13), ("text-embedding-ada-002", 0.10)];

/// The table entry whose name is the longest prefix of `model` (so `gpt-4o-mini-2024-07-18`
/// is `gpt-4o-mini`, not `gpt-4o`); names are compared without case, after any `provider/`
/// prefix.
fn lookup<T: Copy>(table: &[(&str, T)], model: &str) -> Option<T> {
    let model = model.trim().to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or(&model);
    table.iter().filter(|(name, _)| model.starts_with(name)).max_by_key(|(name, _)| name.len()).map(|(_, v)| *v)
}

/// The built-in (input, output) price of a chat model.
pub fn chat_list_price(llm: &LlmSettings) -> Option<(f64, f64)> {
    match llm.binding {
        LlmBinding::Ollama => Some((0.0, 0.0)),
        LlmBinding::None => None,
        _ => {
            let table: Vec<(&str, (f64, f64))> = CHAT_PRICES.iter().map(|(n, i, o)| (*n, (*i, *o))).collect();
            lookup(&table, &llm.model)
        }
    }
}

/// The built-in price of an embedding model.
pub fn embedding_list_price(embedding: &EmbeddingSettings) -> Option<f64> {
    match embedding.binding {
        EmbeddingBinding::Local | EmbeddingBinding::Ollama => Some(0.0),
        _ => lookup(EMBEDDING_PRICES, &embedding.model),
    }
}

/// The prices of the configured models: the variables, else the table. `llm` is the model that
/// extracts (`EXTRACT_LLM_*` when set).
pub(crate) fn price_config(
    r: Reader<'_>,
    llm: &LlmSettings,
    embedding: &EmbeddingSettings,
) -> Result<PriceConfig, ConfigError> {
    let price = |key: &str| {
        r.opt_with(key, "US dollars per million tokens (a number ≥ 0)", |s| {
            s.trim().parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0)
        })
    };
    let listed = chat_list_price(llm);
    Ok(PriceConfig {
        llm_input: price("LLM_PRICE_INPUT")?.or(listed.map(|p| p.0)),
        llm_output: price("LLM_PRICE_OUTPUT")?.or(listed.map(|p| p.1)),
        embedding: price("EMBEDDING_PRICE")?.or_else(|| embedding_list_price(embedding)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(model: &str) -> Option<(f64, f64)> {
        let table: Vec<(&str, (f64, f64))> = CHAT_PRICES.iter().map(|(n, i, o)| (*n, (*i, *o))).collect();
        lookup(&table, model)
    }

    #[test]
    fn the_longest_listed_name_wins() {
        assert_eq!(chat("gpt-4o-mini-2024-07-18"), Some((0.15, 0.60)));
        assert_eq!(chat("GPT-4o"), Some((2.50, 10.00)));
        assert_eq!(chat("openai/gpt-4.1-mini"), Some((0.40, 1.60)));
        assert_eq!(chat("llama3.1:8b"), None);
        assert_eq!(lookup(EMBEDDING_PRICES, "text-embedding-3-large"), Some(0.13));
    }
}
