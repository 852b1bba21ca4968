//! The encoder's non-matrix work: GELU, residual + LayerNorm, attention, activation
//! quantisation.
//!
//! Every function here is plain safe Rust written so that LLVM vectorises it: reductions keep
//! [`LANES`] independent partial sums (so the order of additions is fixed by the code, not by
//! the instruction set), and there are no calls into libm. `crate::simd` compiles each of them
//! once more with AVX-512 or AVX2+FMA enabled and picks the version the CPU runs; `FMA` selects
//! fused multiply-adds (only in those versions: without hardware FMA, `mul_add` is a libm call).
//! Attention's two inner loops have AVX-512 intrinsic versions (`crate::simd`), used when the
//! [`Isa`] allows.

use crate::simd::{self, Isa};

/// Independent partial sums per reduction: one AVX-512 register of f32.
pub(crate) const LANES: usize = 16;

#[inline(always)]
fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// `1.5 · 2^23`: adding it to a float of magnitude below 2^22 rounds it to an integer (ties to
/// even) in the low mantissa bits, without a rounding instruction the baseline ISA lacks.
const ROUNDER: f32 = 12_582_912.0;

/// `e^x` to about 2 ulp for x in [-87, 88] (clamped outside): `2^n · e^r` with
/// `n = round(x / ln 2)`, `|r| ≤ ln 2 / 2`, and a degree-6 polynomial for `e^r` (the classic
/// Cephes `expf` coefficients).
#[inline(always)]
pub(crate) fn exp<const FMA: bool>(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    let t = madd::<FMA>(x, std::f32::consts::LOG2_E, ROUNDER);
    let n = t - ROUNDER;
    let r = madd::<FMA>(n, -0.693_359_4, x);
    let r = madd::<FMA>(n, 2.121_944_4e-4, r);
    let mut p = 1.987_569_1e-4f32;
    p = madd::<FMA>(p, r, 1.398_199_9e-3);
    p = madd::<FMA>(p, r, 8.333_452e-3);
    p = madd::<FMA>(p, r, 4.166_579_6e-2);
    p = madd::<FMA>(p, r, 1.666_666_5e-1);
    p = madd::<FMA>(p, r, 0.5);
    let e = madd::<FMA>(p, r * r, r) + 1.0;
    // n is an integer in [-126, 127]: its value sits in t's low mantissa bits.
    let n = (t.to_bits() as i32).wrapping_sub(ROUNDER.to_bits() as i32);
    e * f32::from_bits(((n + 127) as u32) << 23)
}

/// The exact GELU, `x · Φ(x)`, as BERT's `"gelu"` (not the tanh approximation), in place.
#[inline(always)]
pub(crate) fn gelu<const FMA: bool>(xs: &mut [f32]) {
    for x in xs {
        *x = 0.5 * *x * (1.0 + erf::<FMA>(*x * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// `erf` for f32 as a branch-free rational function (odd degree-13 numerator over even
/// degree-8 denominator, input clamped to ±4 where erf is ±1 in f32): the minimax
/// approximation Eigen and XLA use for float erf. Within 1e-6 of `libm::erff` (tested), and it
/// vectorises, unlike a libm call: GELU runs on 1536 values per token per layer.
#[inline(always)]
pub(crate) fn erf<const FMA: bool>(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = madd::<FMA>(x2, -2.726_142_3e-10, 2.770_681_4e-8);
    p = madd::<FMA>(x2, p, -2.101_024e-6);
    p = madd::<FMA>(x2, p, -5.692_506_4e-5);
    p = madd::<FMA>(x2, p, -7.349_906_3e-4);
    p = madd::<FMA>(x2, p, -2.954_6e-3);
    p = madd::<FMA>(x2, p, -1.609_603_3e-2);
    let mut q = madd::<FMA>(x2, -1.456_607_2e-5, -2.133_740_6e-4);
    q = madd::<FMA>(x2, q, -1.682_827e-3);
    q = madd::<FMA>(x2, q, -7.373_329e-3);
    q = madd::<FMA>(x2, q, -1.426_474e-2);
    x * p / q
}

/// Sum of `xs` with [`LANES`] partial sums.
#[inline(always)]
fn sum(xs: &[f32]) -> f32 {
    let mut acc = [0.0f32; LANES];
    let chunks = xs.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a += v;
        }
    }
    acc.iter().sum::<f32>() + tail.iter().sum::<f32>()
}

/// Sum of `(x - mean)²` with [`LANES`] partial sums.
#[inline(always)]
fn sum_sq_dev<const FMA: bool>(xs: &[f32], mean: f32) -> f32 {
    let mut acc = [0.0f32; LANES];
    let chunks = xs.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            let d = v - mean;
            *a = madd::<FMA>(d, d, *a);
        }
    }
    acc.iter().sum::<f32>() + tail.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>()
}

/// `y ← LayerNorm(y + residual)` row by row (`cols` values a row; biased variance, as PyTorch).
#[inline(always)]
pub(crate) fn add_layer_norm<const FMA: bool>(
    y: &mut [f32],
    residual: Option<&[f32]>,
    cols: usize,
    gamma: &[f32],
    beta: &[f32],
    eps: f32,
) {
    let n = cols as f32;
    for (r, row) in y.chunks_exact_mut(cols).enumerate() {
        if let Some(res) = residual {
            for (v, x) in row.iter_mut().zip(&res[r * cols..(r + 1) * cols]) {
                *v += x;
            }
        }
        let mean = sum(row) / n;
        let inv = 1.0 / (sum_sq_dev::<FMA>(row, mean) / n + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            *v = madd::<FMA>((*v - mean) * inv, *g, *b);
        }
    }
}

/// Softmax of `xs` in place (numerically stable: the row maximum is subtracted first).
#[inline(always)]
pub(crate) fn softmax<const FMA: bool>(xs: &mut [f32]) {
    let mut lanes = [f32::NEG_INFINITY; LANES];
    let chunks = xs.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for (m, v) in lanes.iter_mut().zip(c) {
            *m = m.max(*v);
        }
    }
    let max = tail.iter().chain(&lanes).fold(f32::NEG_INFINITY, |m, v| m.max(*v));
    for v in xs.iter_mut() {
        *v = exp::<FMA>(*v - max);
    }
    let inv = 1.0 / sum(xs);
    for v in xs.iter_mut() {
        *v *= inv;
    }
}

/// Reusable buffers of [`attention`].
#[derive(Default)]
pub(crate) struct AttnScratch {
    /// One head's keys transposed, `head_dim × keys`, `keys` padded to a multiple of [`KB`]
    /// with zeros.
    kt: Vec<f32>,
    /// Scores of [`QB`] queries over the padded keys.
    scores: Vec<f32>,
    /// [`QB`] scaled queries, `head_dim` rows.
    q: Vec<[f32; QB]>,
}

/// The shape of multi-head attention over a `[tokens, 3·hidden]` matrix of queries, keys and
/// values side by side.
#[derive(Clone, Copy)]
pub(crate) struct Heads {
    pub hidden: usize,
    pub heads: usize,
    pub head_dim: usize,
}

/// Queries computed together (each key or value loaded once feeds all of them).
pub(crate) const QB: usize = 4;
/// Keys scored together per query (two 16-lane registers).
pub(crate) const KB: usize = 32;

/// Scaled dot-product attention of one sequence: `qkv` holds its `len` rows (`3·hidden` wide),
/// `ctx` receives `len` rows of `hidden` (each head's output in its own columns).
///
/// Blocked like a small matrix product so that the partial sums stay in registers: scores for
/// [`QB`] queries × [`KB`] keys at a time, then the weighted sum of values for [`QB`] queries ×
/// up to 32 output columns at a time.
#[inline(always)]
pub(crate) fn attention<const FMA: bool>(
    isa: Isa,
    qkv: &[f32],
    len: usize,
    shape: Heads,
    ctx: &mut [f32],
    s: &mut AttnScratch,
) {
    let Heads { hidden: h, heads, head_dim: d } = shape;
    let stride = 3 * h;
    let scale = 1.0 / (d as f32).sqrt();
    let keys = len.div_ceil(KB) * KB;
    // Old contents may stay: padded keys (columns len..keys) get finite scores that are never
    // read, and every score that is read is written first.
    s.kt.resize(d * keys, 0.0);
    s.scores.resize(QB * keys, 0.0);
    for head in 0..heads {
        let c = head * d;
        for j in 0..len {
            let key = &qkv[j * stride + h + c..j * stride + h + c + d];
            for (dd, &k) in key.iter().enumerate() {
                s.kt[dd * keys + j] = k;
            }
        }
        let mut i = 0;
        while i < len {
            let n = (len - i).min(QB);
            s.q.clear();
            s.q.resize(d, [0.0; QB]);
            for (dd, qd) in s.q.iter_mut().enumerate() {
                for (r, slot) in qd.iter_mut().enumerate().take(n) {
                    *slot = qkv[(i + r) * stride + c + dd] * scale;
                }
            }
            if !simd::scores_block(isa, &s.q, &s.kt, keys, &mut s.scores) {
                scores_block::<FMA>(&s.q, &s.kt, keys, &mut s.scores);
            }
            for r in 0..n {
                softmax::<FMA>(&mut s.scores[r * keys..r * keys + len]);
            }
            let out = &mut ctx[i * h + c..];
            if simd::weigh_values(isa, &s.scores, keys, n, len, &qkv[2 * h + c..], stride, d, out, h) {
                i += n;
                continue;
            }
            let values = |j: usize| &qkv[j * stride + 2 * h + c..j * stride + 2 * h + c + d];
            match d {
                _ if d.is_multiple_of(32) => weigh_values::<FMA, 32>(&s.scores, keys, n, len, d, values, out, h),
                _ if d.is_multiple_of(16) => weigh_values::<FMA, 16>(&s.scores, keys, n, len, d, values, out, h),
                _ => weigh_values::<FMA, 1>(&s.scores, keys, n, len, d, values, out, h),
            }
            i += n;
        }
    }
}

/// `scores[r][j] = Σ_d q[d][r] · kt[d][j]` for the [`QB`] queries of `q` (unused ones zero)
/// and all `keys` (a multiple of [`KB`]).
#[inline(always)]
fn scores_block<const FMA: bool>(q: &[[f32; QB]], kt: &[f32], keys: usize, scores: &mut [f32]) {
    for j0 in (0..keys).step_by(KB) {
        let mut acc = [[0.0f32; KB]; QB];
        for (dd, qd) in q.iter().enumerate() {
            let k: &[f32; KB] = match kt[dd * keys + j0..dd * keys + j0 + KB].try_into() {
                Ok(k) => k,
                Err(_) => return,
            };
            for (a, &qv) in acc.iter_mut().zip(qd) {
                for (x, &kv) in a.iter_mut().zip(k) {
                    *x = madd::<FMA>(qv, kv, *x);
                }
            }
        }
        for (r, a) in acc.iter().enumerate() {
            scores[r * keys + j0..r * keys + j0 + KB].copy_from_slice(a);
        }
    }
}

/// `out[r][..d] = Σ_j p[r][j] · value(j)` for the first `n` of [`QB`] queries, `W` output
/// columns at a time (`d` a multiple of `W`); row `r` of the output starts at `r · row_stride`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn weigh_values<'a, const FMA: bool, const W: usize>(
    p: &[f32],
    keys: usize,
    n: usize,
    len: usize,
    d: usize,
    value: impl Fn(usize) -> &'a [f32],
    out: &mut [f32],
    row_stride: usize,
) {
    for c0 in (0..d).step_by(W) {
        let mut acc = [[0.0f32; W]; QB];
        for j in 0..len {
            let v: &[f32; W] = match value(j)[c0..c0 + W].try_into() {
                Ok(v) => v,
                Err(_) => return,
            };
            for (r, a) in acc.iter_mut().enumerate() {
                let w = p[r * keys + j];
                for (x, &vv) in a.iter_mut().zip(v) {
                    *x = madd::<FMA>(w, vv, *x);
                }
            }
        }
        for (r, a) in acc.iter().enumerate().take(n) {
            out[r * row_stride + c0..r * row_stride + c0 + W].copy_from_slice(a);
        }
    }
}

/// Quantises each row of `x` (`k` values) into `data` (`k_pad` bytes a row, the padding
/// zeroed), recording its scale and zero point.
#[inline(always)]
pub(crate) fn quantize_rows<const FMA: bool>(
    x: &[f32],
    k: usize,
    k_pad: usize,
    data: &mut [u8],
    scale: &mut [f32],
    zero: &mut [i32],
) {
    for (((row, out), s), z) in x.chunks_exact(k).zip(data.chunks_exact_mut(k_pad)).zip(scale).zip(zero) {
        let (values, padding) = out.split_at_mut(k);
        (*s, *z) = quantize_row(row, values);
        padding.fill(0);
    }
}

/// Quantises one row to uint8 (see `crate::quant`): returns `(scale, zero point)`.
#[inline(always)]
pub(crate) fn quantize_row(vals: &[f32], out: &mut [u8]) -> (f32, i32) {
    // Plain comparisons (not `f32::min`, whose NaN rule blocks vectorisation); NaN cannot occur.
    let (mut lo, mut hi) = ([0.0f32; LANES], [0.0f32; LANES]);
    let chunks = vals.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for ((l, h), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(c) {
            *l = if v < *l { v } else { *l };
            *h = if v > *h { v } else { *h };
        }
    }
    let lo = tail.iter().chain(&lo).fold(0.0f32, |m, &v| if v < m { v } else { m });
    let hi = tail.iter().chain(&hi).fold(0.0f32, |m, &v| if v > m { v } else { m });
    let scale = if hi > lo { (hi - lo) / 255.0 } else { 1.0 };
    let zero = ((-lo / scale + ROUNDER) - ROUNDER).clamp(0.0, 255.0);
    let inv = 1.0 / scale;
    let (low, high) = (ROUNDER, ROUNDER + 255.0);
    for (o, &v) in out.iter_mut().zip(vals) {
        // v·inv + zero lies in [-0.5, 255.5]; adding ROUNDER rounds it to an integer (ties to
        // even) held in the low mantissa bits, which are read directly after clamping.
        let t = v * inv + zero + ROUNDER;
        let t = if t < low {
            low
        } else if t > high {
            high
        } else {
            t
        };
        *o = t.to_bits().wrapping_sub(ROUNDER.to_bits()) as u8;
    }
    (scale, zero as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gelu_matches_known_values() {
        // Φ(1) = 0.841344746, Φ(-1) = 0.158655254.
        let mut x = [1.0f32, -1.0, 0.0];
        gelu::<false>(&mut x);
        assert!((x[0] - 0.841_344_7).abs() < 1e-6);
        assert!((x[1] + 0.158_655_25).abs() < 1e-6);
        assert_eq!(x[2], 0.0);
    }

    #[test]
    fn erf_approximation_matches_libm() {
        for fma in [false, true] {
            let mut worst = 0.0f32;
            for i in -60_000..=60_000 {
                let x = i as f32 * 1e-4;
                let e = if fma { erf::<true>(x) } else { erf::<false>(x) };
                worst = worst.max((e - libm::erff(x)).abs());
            }
            assert!(worst < 1e-6, "fma {fma}: max |erf - erff| = {worst}");
        }
        assert!((erf::<false>(10.0) - 1.0).abs() < 1e-6 && (erf::<false>(-10.0) + 1.0).abs() < 1e-6);
    }

    #[test]
    fn exp_is_within_a_few_ulp_of_libm() {
        let (mut worst, mut at) = (0.0f32, 0.0f32);
        for i in -86_900..=87_900 {
            let x = i as f32 * 1e-3;
            let want = libm::expf(x);
            for got in [exp::<false>(x), exp::<true>(x)] {
                let err = ((got - want) / want).abs();
                if err > worst {
                    (worst, at) = (err, x);
                }
            }
        }
        assert!(worst < 4e-7, "max relative error {worst} at {at}");
        assert_eq!(exp::<false>(0.0), 1.0);
        assert!(exp::<false>(-1000.0) < 1e-37 && exp::<false>(-1000.0) >= 0.0);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_keep_order() {
        let mut x: Vec<f32> = (0..37).map(|i| (i % 5) as f32).collect();
        softmax::<false>(&mut x);
        assert!((x.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(x[0] < x[1] && x[1] < x[4]);
        let mut same = vec![1000.0f32; 3];
        softmax::<false>(&mut same);
        assert!(same.iter().all(|v| (v - 1.0 / 3.0).abs() < 1e-6));
    }

    #[test]
    fn layer_norm_centres_and_scales() {
        let mut y = [0.0f32, 1.0, 2.0, 3.0];
        let residual = [1.0f32; 4];
        add_layer_norm::<false>(&mut y, Some(&residual), 4, &[2.0; 4], &[1.0; 4], 1e-12);
        // (x - 2.5) / sqrt(1.25) * 2 + 1 with x = 1, 2, 3, 4
        let expect = [-1.683_281_6f32, 0.105_572_8, 1.894_427_2, 3.683_281_6];
        for (a, b) in y.iter().zip(expect) {
            assert!((a - b).abs() < 1e-5, "{a} vs {b}");
        }
    }

    #[test]
    fn attention_of_one_token_is_its_value() {
        let shape = Heads { hidden: 4, heads: 2, head_dim: 2 };
        let qkv = [0.3f32, -0.2, 0.5, 0.1, 9.0, 9.0, 9.0, 9.0, 1.0, 2.0, 3.0, 4.0];
        let mut ctx = [0.0f32; 4];
        attention::<false>(Isa::baseline(), &qkv, 1, shape, &mut ctx, &mut AttnScratch::default());
        assert_eq!(ctx, [1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn attention_weighs_values_by_softmax_of_scores() {
        // One head of width 1: q·k / sqrt(1). Token 0 attends to keys 1 and 2.
        let shape = Heads { hidden: 1, heads: 1, head_dim: 1 };
        let qkv = [1.0f32, 1.0, 10.0, 0.0, 2.0, 20.0];
        let mut ctx = [0.0f32; 2];
        attention::<false>(Isa::baseline(), &qkv, 2, shape, &mut ctx, &mut AttnScratch::default());
        let (e1, e2) = (1.0f32.exp(), 2.0f32.exp());
        let want0 = (e1 * 10.0 + e2 * 20.0) / (e1 + e2);
        assert!((ctx[0] - want0).abs() < 1e-4, "{} vs {want0}", ctx[0]);
        assert!((ctx[1] - 15.0).abs() < 1e-4, "query 0 scores both keys 0: {}", ctx[1]);
    }

    #[test]
    fn quantized_row_rounds_to_nearest() {
        let vals: Vec<f32> = (0..40).map(|i| i as f32 * 0.37 - 5.0).collect();
        let mut out = vec![0u8; 40];
        let (scale, zero) = quantize_row(&vals, &mut out);
        for (v, q) in vals.iter().zip(&out) {
            let back = (i32::from(*q) - zero) as f32 * scale;
            assert!((back - v).abs() <= scale / 2.0 + 1e-5, "{back} vs {v}");
        }
    }
}
