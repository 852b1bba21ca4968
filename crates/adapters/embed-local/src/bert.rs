//! The BERT encoder forward pass (inference only, f32).
//!
//! Several sentences are packed end to end into one `[tokens, hidden]` matrix with no padding:
//! the dense layers (the bulk of the work) then run as a few large matrix products over all of
//! them, while attention runs per sentence and per head over that sentence's own rows. This is
//! what a padded batch with an attention mask computes, without the padded rows.
//!
//! The dense layers (most of the work) run in f32 or int8 ([`Dense`]); attention's products go
//! through `ndarray::linalg::general_mat_mul`, `matrixmultiply`'s pure-Rust, SIMD-dispatching
//! sgemm; the rest (embedding lookup, LayerNorm, softmax, GELU) is plain loops.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, Axis, s};

use crate::config::BertConfig;
use crate::dense::Dense;
use crate::gemm_i8::Kernel;
use crate::quant::QuantRows;
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
}

impl Bert {
    /// The encoder with f32 dense layers (`int8` `None`) or int8 ones computed by that kernel.
    pub(crate) fn new(cfg: BertConfig, weights: BertWeights, int8: Option<Kernel>) -> Self {
        let layers = weights
            .layers
            .into_iter()
            .map(|l| Layer {
                qkv: Dense::new(l.qkv, int8),
                attn_out: Dense::new(l.attn_out, int8),
                attn_norm: l.attn_norm,
                intermediate: Dense::new(l.intermediate, int8),
                output: Dense::new(l.output, int8),
                out_norm: l.out_norm,
            })
            .collect();
        Bert { cfg, embeddings: weights.embeddings, layers }
    }

    /// Width of the hidden states (the embedding dimension).
    pub(crate) fn hidden_size(&self) -> usize {
        self.cfg.hidden_size
    }

    /// Runs the encoder over `seqs` packed together and returns the last hidden states,
    /// `[sum of lengths, hidden]`, the rows of each sequence in order.
    ///
    /// Every id must fit the embedding tables and every sequence the position table; the
    /// tokenizer guarantees both.
    pub(crate) fn forward(&self, seqs: &[Tokens]) -> Array2<f32> {
        let lens: Vec<usize> = seqs.iter().map(|t| t.ids.len()).collect();
        let mut x = self.embed(seqs);
        let mut scratch = QuantRows::default();
        for layer in &self.layers {
            // Self-attention block.
            let qkv = layer.qkv.apply(x.view(), &mut scratch);
            let ctx = self.attention(&qkv, &lens);
            let mut y = layer.attn_out.apply(ctx.view(), &mut scratch);
            y += &x;
            layer_norm(&mut y, &layer.attn_norm, self.cfg.layer_norm_eps);
            x = y;
            // Feed-forward block.
            let mut inner = layer.intermediate.apply(x.view(), &mut scratch);
            inner.mapv_inplace(gelu);
            let mut y = layer.output.apply(inner.view(), &mut scratch);
            y += &x;
            layer_norm(&mut y, &layer.out_norm, self.cfg.layer_norm_eps);
            x = y;
        }
        x
    }

    /// Word + position + token-type embeddings, then LayerNorm.
    fn embed(&self, seqs: &[Tokens]) -> Array2<f32> {
        let w = &self.embeddings;
        let total = seqs.iter().map(|t| t.ids.len()).sum();
        let mut x = Array2::<f32>::zeros((total, self.cfg.hidden_size));
        let mut rows = x.rows_mut().into_iter();
        for seq in seqs {
            for (pos, (&id, &tt)) in seq.ids.iter().zip(&seq.type_ids).enumerate() {
                if let Some(mut row) = rows.next() {
                    row.assign(&w.word.row(id as usize));
                    row += &w.token_type.row(tt as usize);
                    row += &w.position.row(pos);
                }
            }
        }
        layer_norm(&mut x, &w.emb_norm, self.cfg.layer_norm_eps);
        x
    }

    /// Multi-head scaled dot-product attention, each sequence attending only to itself.
    /// `qkv` is `[tokens, 3·hidden]` (queries, keys, values side by side).
    fn attention(&self, qkv: &Array2<f32>, lens: &[usize]) -> Array2<f32> {
        let h = self.cfg.hidden_size;
        let d = self.cfg.head_dim();
        let scale = 1.0 / (d as f32).sqrt();
        let mut ctx = Array2::<f32>::zeros((qkv.nrows(), h));
        let mut start = 0;
        for &len in lens {
            let end = start + len;
            let mut scores = Array2::<f32>::zeros((len, len));
            for head in 0..self.cfg.num_attention_heads {
                let c = head * d;
                let q = qkv.slice(s![start..end, c..c + d]);
                let k = qkv.slice(s![start..end, h + c..h + c + d]);
                let v = qkv.slice(s![start..end, 2 * h + c..2 * h + c + d]);
                general_mat_mul(scale, &q, &k.t(), 0.0, &mut scores);
                softmax_rows(&mut scores);
                let mut out = ctx.slice_mut(s![start..end, c..c + d]);
                general_mat_mul(1.0, &scores, &v, 0.0, &mut out);
            }
            start = end;
        }
        ctx
    }
}

/// Row-wise LayerNorm (biased variance, as PyTorch).
fn layer_norm(x: &mut Array2<f32>, norm: &LayerNorm, eps: f32) {
    let n = x.ncols() as f32;
    for mut row in x.axis_iter_mut(Axis(0)) {
        let mean = row.sum() / n;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(&norm.gamma).zip(&norm.beta) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

/// Numerically stable softmax of every row.
fn softmax_rows(x: &mut Array2<f32>) {
    for mut row in x.axis_iter_mut(Axis(0)) {
        let max = row.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
        let mut sum = 0.0;
        row.mapv_inplace(|v| {
            let e = (v - max).exp();
            sum += e;
            e
        });
        row.mapv_inplace(|v| v / sum);
    }
}

/// The exact GELU, `x · Φ(x)`, as BERT's `"gelu"` (not the tanh approximation).
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `erf` for f32 as a branch-free rational function (odd degree-13 numerator over even
/// degree-8 denominator, input clamped to ±4 where erf is ±1 in f32): the minimax
/// approximation Eigen and XLA use for float erf. Within 1e-6 of `libm::erff` (tested), and it
/// vectorises, unlike a libm call: GELU runs on 1536 values per token per layer.
fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = x2 * -2.726_142_3e-10 + 2.770_681_4e-8;
    p = x2 * p + -2.101_024e-6;
    p = x2 * p + -5.692_506_4e-5;
    p = x2 * p + -7.349_906_3e-4;
    p = x2 * p + -2.954_6e-3;
    p = x2 * p + -1.609_603_3e-2;
    let mut q = x2 * -1.456_607_2e-5 + -2.133_740_6e-4;
    q = x2 * q + -1.682_827e-3;
    q = x2 * q + -7.373_329e-3;
    q = x2 * q + -1.426_474e-2;
    x * p / q
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, array};

    #[test]
    fn gelu_matches_known_values() {
        // Φ(1) = 0.841344746, Φ(-1) = 0.158655254.
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
        assert!((gelu(-1.0) + 0.158_655_25).abs() < 1e-6);
        assert_eq!(gelu(0.0), 0.0);
    }

    #[test]
    fn erf_approximation_matches_libm() {
        let mut worst = 0.0f32;
        for i in -60_000..=60_000 {
            let x = i as f32 * 1e-4;
            worst = worst.max((erf(x) - libm::erff(x)).abs());
        }
        assert!(worst < 1e-6, "max |erf - erff| = {worst}");
        assert!((erf(10.0) - 1.0).abs() < 1e-6 && (erf(-10.0) + 1.0).abs() < 1e-6);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_keep_order() {
        let mut x = array![[1.0f32, 2.0, 3.0], [1000.0, 1000.0, 1000.0]];
        softmax_rows(&mut x);
        for row in x.rows() {
            assert!((row.sum() - 1.0).abs() < 1e-6);
        }
        assert!(x[[0, 0]] < x[[0, 1]] && x[[0, 1]] < x[[0, 2]]);
        assert!((x[[1, 0]] - 1.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn layer_norm_centres_and_scales() {
        let mut x = array![[1.0f32, 2.0, 3.0, 4.0]];
        let norm = LayerNorm { gamma: Array1::from(vec![2.0; 4]), beta: Array1::from(vec![1.0; 4]) };
        layer_norm(&mut x, &norm, 1e-12);
        // (x - 2.5) / sqrt(1.25) * 2 + 1
        let expect = [-1.683_281_6f32, 0.105_572_8, 1.894_427_2, 3.683_281_6];
        for (a, b) in x.iter().zip(expect) {
            assert!((a - b).abs() < 1e-5, "{a} vs {b}");
        }
    }
}
