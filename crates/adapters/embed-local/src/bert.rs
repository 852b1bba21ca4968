//! The BERT encoder forward pass (inference only).
//!
//! Several sentences are packed end to end into one `[tokens, hidden]` matrix with no padding:
//! the dense layers (the bulk of the work) then run as a few large matrix products over all of
//! them, while attention runs per sentence and per head over that sentence's own rows. This is
//! what a padded batch with an attention mask computes, without the padded rows.
//!
//! The dense layers run in f32 or int8 ([`Dense`]); attention, LayerNorm and GELU are the
//! vectorised kernels of `crate::ops`, compiled for the CPU's instruction set (`crate::simd`).
//! All intermediate matrices are row-major `Vec<f32>`s, kept between calls (one set per
//! concurrent call) so that a forward pass allocates almost nothing.

use std::sync::{Mutex, PoisonError};

use crate::config::BertConfig;
use crate::dense::Dense;
use crate::error::ModelError;
use crate::ops::{AttnScratch, Heads};
use crate::quant::QuantRows;
use crate::simd::{self, Isa};
use crate::tokenize::Tokens;
use crate::weights::{BertWeights, Embeddings, LayerNorm};

/// One transformer block, its dense layers in the chosen precision.
struct Layer {
    /// Query, key and value projections side by side (`[hidden, 3·hidden]`).
    qkv: Dense,
    attn_out: Dense,
    attn_norm: LayerNorm,
    intermediate: Dense,
    output: Dense,
    out_norm: LayerNorm,
}

/// A loaded encoder.
pub(crate) struct Bert {
    cfg: BertConfig,
    embeddings: Embeddings,
    layers: Vec<Layer>,
    isa: Isa,
    /// Buffers of finished calls, for the next ones.
    spare: Mutex<Vec<Work>>,
}

/// The buffers of one forward pass (contents are scratch: every value read is written first).
#[derive(Default)]
struct Work {
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    y: Vec<f32>,
    inner: Vec<f32>,
    quant: QuantRows,
    attn: AttnScratch,
}

impl Bert {
    /// The encoder with f32 dense layers, or int8 ones when `int8` is true; the other kernels
    /// run on `isa`.
    pub(crate) fn new(cfg: BertConfig, weights: BertWeights, int8: bool, isa: Isa) -> Self {
        let dense = |lin| Dense::new(lin, int8);
        let layers = weights
            .layers
            .into_iter()
            .map(|l| Layer {
                qkv: dense(l.qkv),
                attn_out: dense(l.attn_out),
                attn_norm: l.attn_norm,
                intermediate: dense(l.intermediate),
                output: dense(l.output),
                out_norm: l.out_norm,
            })
            .collect();
        Bert { cfg, embeddings: weights.embeddings, layers, isa, spare: Mutex::new(Vec::new()) }
    }

    /// Width of the hidden states (the embedding dimension).
    pub(crate) fn hidden_size(&self) -> usize {
        self.cfg.hidden_size
    }

    /// Runs the encoder over `seqs` packed together and returns the last hidden states,
    /// `[sum of lengths, hidden]` row-major, the rows of each sequence in order.
    ///
    /// Every id must fit the embedding tables and every sequence the position table; the
    /// tokenizer guarantees both.
    pub(crate) fn forward(&self, seqs: &[Tokens]) -> Result<Vec<f32>, ModelError> {
        let h = self.cfg.hidden_size;
        let rows: usize = seqs.iter().map(|t| t.ids.len()).sum();
        let mut x = self.embed(seqs);
        let mut w = self.spare.lock().unwrap_or_else(PoisonError::into_inner).pop().unwrap_or_default();
        w.qkv.resize(rows * 3 * h, 0.0);
        w.ctx.resize(rows * h, 0.0);
        w.y.resize(rows * h, 0.0);
        w.inner.resize(rows * self.cfg.intermediate_size, 0.0);
        let result = self.layers(seqs, rows, &mut x, &mut w);
        self.spare.lock().unwrap_or_else(PoisonError::into_inner).push(w);
        result.map(|()| x)
    }

    /// The transformer blocks over the embedded tokens `x`, in place.
    fn layers(&self, seqs: &[Tokens], rows: usize, x: &mut Vec<f32>, w: &mut Work) -> Result<(), ModelError> {
        let h = self.cfg.hidden_size;
        let eps = self.cfg.layer_norm_eps;
        let isa = self.isa;
        for layer in &self.layers {
            // Self-attention block.
            layer.qkv.apply(x, rows, &mut w.qkv, &mut w.quant, isa)?;
            self.attention(seqs, &w.qkv, &mut w.ctx, &mut w.attn);
            layer.attn_out.apply(&w.ctx, rows, &mut w.y, &mut w.quant, isa)?;
            let n = &layer.attn_norm;
            simd::add_layer_norm(isa, &mut w.y, Some(x), h, &n.gamma, &n.beta, eps);
            std::mem::swap(x, &mut w.y);
            // Feed-forward block.
            layer.intermediate.apply(x, rows, &mut w.inner, &mut w.quant, isa)?;
            simd::gelu(isa, &mut w.inner);
            layer.output.apply(&w.inner, rows, &mut w.y, &mut w.quant, isa)?;
            let n = &layer.out_norm;
            simd::add_layer_norm(isa, &mut w.y, Some(x), h, &n.gamma, &n.beta, eps);
            std::mem::swap(x, &mut w.y);
        }
        Ok(())
    }

    /// Word + position + token-type embeddings, then LayerNorm.
    fn embed(&self, seqs: &[Tokens]) -> Vec<f32> {
        let h = self.cfg.hidden_size;
        let e = &self.embeddings;
        let mut x = Vec::with_capacity(seqs.iter().map(|t| t.ids.len()).sum::<usize>() * h);
        for seq in seqs {
            for (pos, (&id, &tt)) in seq.ids.iter().zip(&seq.type_ids).enumerate() {
                let (word, kind, place) = (e.word.row(id as usize), e.token_type.row(tt as usize), e.position.row(pos));
                x.extend(word.iter().zip(kind).zip(place).map(|((a, b), c)| a + b + c));
            }
        }
        let n = &e.emb_norm;
        simd::add_layer_norm(self.isa, &mut x, None, h, &n.gamma, &n.beta, self.cfg.layer_norm_eps);
        x
    }

    /// Multi-head scaled dot-product attention, each sequence attending only to itself.
    fn attention(&self, seqs: &[Tokens], qkv: &[f32], ctx: &mut [f32], scratch: &mut AttnScratch) {
        let h = self.cfg.hidden_size;
        let shape = Heads { hidden: h, heads: self.cfg.num_attention_heads, head_dim: self.cfg.head_dim() };
        let mut start = 0;
        for seq in seqs {
            let len = seq.ids.len();
            let end = start + len;
            simd::attention(
                self.isa,
                &qkv[start * 3 * h..end * 3 * h],
                len,
                shape,
                &mut ctx[start * h..end * h],
                scratch,
            );
            start = end;
        }
    }
}
