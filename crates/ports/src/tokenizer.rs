//! Token counting and slicing (tiktoken `o200k_base` in the default adapter).

/// A text tokenizer. Implementations must be cheap to call from many threads at once.
pub trait Tokenizer: Send + Sync {
    /// Encodes `text` into token ids (no special tokens).
    fn encode(&self, text: &str) -> Vec<u32>;
    /// Decodes token ids back into text. Slices that split a multi-byte character decode lossily.
    fn decode(&self, tokens: &[u32]) -> String;
    /// Number of tokens in `text`. Defaults to `encode(text).len()`.
    fn count(&self, text: &str) -> usize {
        self.encode(text).len()
    }
}
