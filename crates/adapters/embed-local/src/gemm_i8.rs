//! `y = x · W + b` for an int8 [`QuantLinear`]: the activations are quantised per row into a
//! reusable buffer, multiplied in integers, and scaled back to f32 with the bias added.
//!
//! Two kernels compute the same integers (the sums are exact, so they agree bit for bit):
//! the AVX-512 VNNI one (`vpdpbusd`: 64 u8×i8 products per instruction, four times the f32
//! multiply-adds of an AVX-512 FMA) where the CPU has it, and a portable one elsewhere.

mod avx512;

use ndarray::{Array2, ArrayView2};

use crate::quant::{NR, QuantLinear, QuantRows};

/// Which integer matrix kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// AVX-512 VNNI (x86-64 with AVX-512F, BW and VNNI: Ice Lake and later, Zen 4 and later).
    Avx512Vnni,
    /// Plain Rust; correct everywhere, slower than the f32 path.
    Portable,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    pub(crate) fn detect() -> Kernel {
        if avx512::available() { Kernel::Avx512Vnni } else { Kernel::Portable }
    }

    /// Whether int8 pays on this CPU (only with a SIMD integer kernel).
    pub(crate) fn is_fast(self) -> bool {
        self != Kernel::Portable
    }
}

/// `x · W + b` with `x` quantised into `scratch` (its allocation is reused across calls).
pub(crate) fn linear(x: ArrayView2<'_, f32>, w: &QuantLinear, scratch: &mut QuantRows, kernel: Kernel) -> Array2<f32> {
    debug_assert_eq!(x.ncols(), w.k);
    scratch.fill(x, w.k_pad);
    let mut out = Array2::<f32>::zeros((x.nrows(), w.n));
    if let Some(dst) = out.as_slice_mut() {
        match kernel {
            Kernel::Avx512Vnni if avx512::available() => avx512::linear(scratch, w, dst),
            _ => portable(scratch, w, dst),
        }
    }
    out
}

/// The epilogue both kernels share: integer sum to f32, in this order of operations.
#[inline]
pub(crate) fn dequantize(acc: i32, zero: i32, col_sum: i32, x_scale: f32, w_scale: f32, bias: f32) -> f32 {
    (acc - zero * col_sum) as f32 * (x_scale * w_scale) + bias
}

/// The reference kernel: any CPU.
fn portable(x: &QuantRows, w: &QuantLinear, out: &mut [f32]) {
    let groups = w.k_pad / 4;
    for (i, dst) in out.chunks_exact_mut(w.n).enumerate() {
        let a = &x.data[i * x.k_pad..(i + 1) * x.k_pad];
        for panel in 0..w.n_pad / NR {
            let wp = &w.packed[panel * w.k_pad * NR..(panel + 1) * w.k_pad * NR];
            let mut acc = [0i32; NR];
            for g in 0..groups {
                let av = &a[4 * g..4 * g + 4];
                let wg = &wp[g * NR * 4..(g + 1) * NR * 4];
                for (c, slot) in acc.iter_mut().enumerate() {
                    let wc = &wg[c * 4..c * 4 + 4];
                    *slot += av.iter().zip(wc).map(|(&p, &q)| i32::from(p) * i32::from(q)).sum::<i32>();
                }
            }
            for (c, &s) in acc.iter().enumerate() {
                let j = panel * NR + c;
                if j < w.n {
                    dst[j] = dequantize(s, x.zero[i], w.col_sum[j], x.scale[i], w.scale[j], w.bias[j]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::weights::Linear;
    use ndarray::Array1;

    fn layer(k: usize, n: usize) -> Linear {
        Linear {
            weight: Array2::from_shape_fn((k, n), |(i, j)| ((i * 7919 + j * 104_729) % 1000) as f32 / 500.0 - 1.0),
            bias: Array1::from_shape_fn(n, |j| j as f32 * 0.01),
        }
    }

    fn input(m: usize, k: usize) -> Array2<f32> {
        Array2::from_shape_fn((m, k), |(i, j)| ((i * 31 + j * 17) % 97) as f32 / 20.0 - 1.0)
    }

    #[test]
    fn int8_linear_is_close_to_f32() {
        let lin = layer(96, 80);
        let q = QuantLinear::new(&lin);
        let x = input(9, 96);
        let exact = x.dot(&lin.weight) + &lin.bias;
        let got = linear(x.view(), &q, &mut QuantRows::default(), Kernel::Portable);
        let scale = exact.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let worst = exact.iter().zip(&got).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst / scale < 0.02, "relative error {}", worst / scale);
    }

    #[test]
    fn simd_kernel_equals_portable_for_every_shape() {
        // Without AVX-512 VNNI both calls take the portable kernel (and agree trivially).
        eprintln!("int8 kernel on this CPU: {:?}", Kernel::detect());
        let mut scratch = QuantRows::default();
        for (m, k, n) in
            [(1, 4, 1), (5, 12, 64), (6, 384, 64), (7, 13, 65), (13, 384, 1152), (17, 1536, 384), (2, 3, 130)]
        {
            let lin = layer(k, n);
            let q = QuantLinear::new(&lin);
            let x = input(m, k);
            let a = linear(x.view(), &q, &mut scratch, Kernel::Avx512Vnni);
            let b = linear(x.view(), &q, &mut scratch, Kernel::Portable);
            assert_eq!(a, b, "m {m} k {k} n {n}");
        }
    }
}
