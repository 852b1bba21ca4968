//! 8-bit dense layers: weights quantised once at load, activations quantised per call.
//!
//! * **Weights**: symmetric int8 per output column, `w ≈ w_scale[j] · q[k][j]` with `q` in
//!   `-127..=127`.
//! * **Activations**: asymmetric uint8 per row (per token), `x ≈ x_scale[i] · (p[i][k] − zero[i])`
//!   with `p` in `0..=255`; the range always includes 0.
//!
//! so `x · w ≈ x_scale[i] · w_scale[j] · (Σ_k p·q − zero[i] · Σ_k q)`: the sum of products is
//! exact in i32 (what `vpdpbusd` computes), the column sums `Σ_k q` are precomputed.
//!
//! The weights are packed for the matrix kernel (`gemm_i8`): panels of [`NR`] columns; inside a
//! panel, for every group of four consecutive inputs, the four int8 weights of column 0, then of
//! column 1, … (`NR · 4` bytes), which is exactly one `vpdpbusd` operand per 16 columns. `K` is
//! padded to a multiple of 4 and `N` to a multiple of [`NR`] with zero weights.

use crate::simd::{self, Isa};
use crate::weights::Linear;

/// Output columns per packed panel (four 16-lane vectors).
pub(crate) const NR: usize = 64;

/// A dense layer with int8 weights, ready for [`crate::gemm_i8::linear`].
pub(crate) struct QuantLinear {
    /// Inputs (rows of the float weight).
    pub k: usize,
    /// `k` rounded up to a multiple of 4.
    pub k_pad: usize,
    /// Outputs.
    pub n: usize,
    /// `n` rounded up to a multiple of [`NR`].
    pub n_pad: usize,
    /// `n_pad / NR` panels of `k_pad · NR` bytes, laid out as the module header says.
    pub packed: Vec<i8>,
    /// Per output column (`n_pad`, 0 in the padding).
    pub scale: Vec<f32>,
    /// `Σ_k q[k][j]` per output column (`n_pad`).
    pub col_sum: Vec<i32>,
    /// Bias per output column (`n_pad`, 0 in the padding).
    pub bias: Vec<f32>,
}

impl QuantLinear {
    /// Quantises a float layer (`weight` is `[in, out]`).
    pub(crate) fn new(lin: &Linear) -> Self {
        let (k, n) = lin.weight.dim();
        let k_pad = k.div_ceil(4) * 4;
        let n_pad = n.div_ceil(NR).max(1) * NR;
        let mut scale = vec![0.0f32; n_pad];
        let mut col_sum = vec![0i32; n_pad];
        let mut bias = vec![0.0f32; n_pad];
        let mut packed = vec![0i8; n_pad * k_pad];
        for j in 0..n {
            let col = lin.weight.column(j);
            let max = col.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let s = if max > 0.0 { max / 127.0 } else { 1.0 };
            scale[j] = s;
            bias[j] = lin.bias[j];
            let (panel, c) = (j / NR, j % NR);
            let base = panel * k_pad * NR;
            let mut sum = 0i32;
            for (kk, &w) in col.iter().enumerate() {
                let q = (w / s).round().clamp(-127.0, 127.0) as i8;
                sum += i32::from(q);
                packed[base + (kk / 4) * NR * 4 + c * 4 + kk % 4] = q;
            }
            col_sum[j] = sum;
        }
        QuantLinear { k, k_pad, n, n_pad, packed, scale, col_sum, bias }
    }

    /// The int8 weight of input `kk`, output `j`.
    #[cfg(test)]
    pub(crate) fn weight(&self, kk: usize, j: usize) -> i8 {
        let (panel, c) = (j / NR, j % NR);
        self.packed[panel * self.k_pad * NR + (kk / 4) * NR * 4 + c * 4 + kk % 4]
    }
}

/// A matrix quantised row by row for [`QuantLinear`]: `rows × k_pad` bytes.
#[derive(Default)]
pub(crate) struct QuantRows {
    pub data: Vec<u8>,
    pub k_pad: usize,
    pub scale: Vec<f32>,
    pub zero: Vec<i32>,
}

impl QuantRows {
    /// Quantises `x` (`rows × k`, row-major) into this buffer, reusing its allocations; `k_pad ≥ k`
    /// bytes a row, the padding zero.
    pub(crate) fn fill(&mut self, x: &[f32], rows: usize, k: usize, k_pad: usize, isa: Isa) {
        // Every byte, scale and zero point is overwritten: no clearing.
        self.k_pad = k_pad;
        self.data.resize(rows * k_pad, 0);
        self.scale.resize(rows, 0.0);
        self.zero.resize(rows, 0);
        simd::quantize_rows(isa, &x[..rows * k], k, k_pad, &mut self.data, &mut self.scale, &mut self.zero);
    }

    /// Rows held.
    pub(crate) fn rows(&self) -> usize {
        self.scale.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, Array2, array};

    #[test]
    fn weights_round_trip_within_half_a_step() {
        let w = Array2::from_shape_fn((7, 70), |(i, j)| ((i * 31 + j * 17) % 23) as f32 / 7.0 - 1.5);
        let lin = Linear { weight: w.clone(), bias: Array1::from_shape_fn(70, |j| j as f32) };
        let q = QuantLinear::new(&lin);
        assert_eq!((q.k, q.k_pad, q.n, q.n_pad), (7, 8, 70, 128));
        for j in 0..70 {
            let mut sum = 0;
            for kk in 0..7 {
                let back = f32::from(q.weight(kk, j)) * q.scale[j];
                assert!((back - w[[kk, j]]).abs() <= q.scale[j] / 2.0 + 1e-6);
                sum += i32::from(q.weight(kk, j));
            }
            assert_eq!(q.weight(7, j), 0, "padded input is zero");
            assert_eq!(sum, q.col_sum[j]);
        }
        assert!(q.scale[70..].iter().all(|&s| s == 0.0) && q.bias[70..].iter().all(|&b| b == 0.0));
    }

    #[test]
    fn activations_round_trip_and_keep_zero_exact() {
        let x = array![[0.0f32, -1.0, 2.0, 0.5, 3.0], [1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0]];
        let mut q = QuantRows::default();
        q.fill(x.as_slice().expect("standard layout"), 3, 5, 8, Isa::detect());
        assert_eq!(q.rows(), 3);
        for (i, row) in x.rows().into_iter().enumerate() {
            for (kk, &v) in row.iter().enumerate() {
                let back = (i32::from(q.data[i * 8 + kk]) - q.zero[i]) as f32 * q.scale[i];
                assert!((back - v).abs() <= q.scale[i] / 2.0 + 1e-6, "row {i} col {kk}: {back} vs {v}");
            }
            assert!(q.data[i * 8 + 5..i * 8 + 8].iter().all(|&b| b == 0));
        }
        // 0.0 maps exactly onto the zero point.
        assert_eq!(i32::from(q.data[0]), q.zero[0]);
    }
}
