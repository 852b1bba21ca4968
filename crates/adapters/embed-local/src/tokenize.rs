//! WordPiece tokenisation with the model's own `tokenizer.json` (Hugging Face `tokenizers`),
//! set up the way sentence-transformers calls it: `[CLS] … [SEP]`, truncated to the model's
//! sequence limit, never padded (the forward pass packs sentences without padding).

use std::path::Path;

use tokenizers::{Tokenizer, TruncationParams};

use crate::error::{ModelError, read_file};

/// One tokenised text: token ids and token-type ids, the same length, at least `[CLS] [SEP]`.
pub(crate) struct Tokens {
    pub ids: Vec<u32>,
    pub type_ids: Vec<u32>,
}

/// Tokens two consecutive windows of a long text share (an eighth of the sequence limit), so a
/// sentence cut at a window's end is seen whole in the next one.
pub(crate) fn window_overlap(max_len: usize) -> usize {
    max_len / 8
}

/// The model's tokenizer with truncation fixed at the sequence limit.
pub(crate) struct WordPiece {
    inner: Tokenizer,
    max_len: usize,
    vocab_size: usize,
    type_vocab_size: usize,
}

impl WordPiece {
    /// Loads `tokenizer.json` from `dir`. `max_len` counts the special tokens; `vocab_size` and
    /// `type_vocab_size` are the model's table sizes, which every produced id must fit.
    pub(crate) fn load(
        dir: &Path,
        max_len: usize,
        vocab_size: usize,
        type_vocab_size: usize,
    ) -> Result<Self, ModelError> {
        let path = dir.join("tokenizer.json");
        let bytes = read_file(&path)?;
        let broken = |reason: String| ModelError::Broken { path: path.clone(), reason };
        let mut inner = Tokenizer::from_bytes(&bytes).map_err(|e| broken(format!("not a tokenizer.json: {e}")))?;
        // The shipped file pads to 128 and truncates at 128; sentence-transformers overrides both.
        inner.with_padding(None);
        inner
            .with_truncation(Some(TruncationParams {
                max_length: max_len,
                stride: window_overlap(max_len),
                ..TruncationParams::default()
            }))
            .map_err(|e| broken(format!("cannot set truncation: {e}")))?;
        let tok_vocab = inner.get_vocab_size(true);
        if tok_vocab > vocab_size {
            return Err(broken(format!("tokenizer has {tok_vocab} tokens but the model's table has {vocab_size}")));
        }
        let wp = WordPiece { inner, max_len, vocab_size, type_vocab_size };
        // A probe proves the special tokens fit the model.
        wp.encode("probe").map_err(|e| broken(e.to_string()))?;
        Ok(wp)
    }

    /// Tokenises one text, truncating it to the sequence limit.
    pub(crate) fn encode(&self, text: &str) -> Result<Tokens, ModelError> {
        let enc = self.inner.encode(text, true).map_err(|e| ModelError::Tokenize(e.to_string()))?;
        self.checked(&enc)
    }

    /// Tokenises one text into windows that together cover all of it: the first is what
    /// [`WordPiece::encode`] gives, each further one starts [`window_overlap`] tokens before the
    /// previous one ended; every window is `[CLS] … [SEP]` within the sequence limit.
    pub(crate) fn encode_windows(&self, text: &str) -> Result<Vec<Tokens>, ModelError> {
        let enc = self.inner.encode(text, true).map_err(|e| ModelError::Tokenize(e.to_string()))?;
        let mut windows = vec![self.checked(&enc)?];
        for overflow in enc.get_overflowing() {
            windows.push(self.checked(overflow)?);
        }
        Ok(windows)
    }

    fn checked(&self, enc: &tokenizers::Encoding) -> Result<Tokens, ModelError> {
        let ids = enc.get_ids().to_vec();
        let type_ids = enc.get_type_ids().to_vec();
        if ids.is_empty() || ids.len() != type_ids.len() || ids.len() > self.max_len {
            return Err(ModelError::Tokenize(format!(
                "tokenizer returned {} ids and {} type ids (limit {})",
                ids.len(),
                type_ids.len(),
                self.max_len
            )));
        }
        // Ids index the model's tables: out-of-range ids would be a tokenizer/model mismatch.
        if ids.iter().any(|&i| i as usize >= self.vocab_size)
            || type_ids.iter().any(|&t| t as usize >= self.type_vocab_size)
        {
            return Err(ModelError::Tokenize(
                "tokenizer produced ids outside the model's embedding tables \
                 (tokenizer.json does not belong to model.safetensors)"
                    .to_owned(),
            ));
        }
        Ok(Tokens { ids, type_ids })
    }
}
