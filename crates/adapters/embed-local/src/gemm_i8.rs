//! `y = x · W + b` for an int8 [`QuantLinear`]: the activations are quantised per row into a
//! reusable buffer, multiplied in integers, and scaled back to f32 with the bias added.
//!
//! Two kernels compute the same integers (the sums are exact, so they agree bit for bit):
//! the AVX-512 VNNI one (`vpdpbusd`: 64 u8×i8 products per instruction, four times the f32
//! multiply-adds of an AVX-512 FMA) where the CPU has it, and a portable one elsewhere.

mod avx512;

use crate::quant::{NR, QuantLinear, QuantRows};
use crate::simd::Isa;

/// `out = x · W + b` for `rows` rows of `x` (`w.k` wide) into `out` (`w.n` wide), with `x`
/// quantised into `scratch` (its allocation is reused across calls).
pub(crate) fn linear(x: &[f32], rows: usize, w: &QuantLinear, scratch: &mut QuantRows, isa: Isa, out: &mut [f32]) {
    scratch.fill(x, rows, w.k, w.k_pad, isa);
    if isa.has_vnni() {
        avx512::linear(isa, scratch, w, out);
    } else {
        portable(scratch, w, out);
    }
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
    use ndarray::{Array1, Array2};

    fn layer(k: usize, n: usize) -> Linear {
        Linear {
            weight: Array2::from_shape_fn((k, n), |(i, j)| ((i * 7919 + j * 104_729) % 1000) as f32 / 500.0 - 1.0),
            bias: Array1::from_shape_fn(n, |j| j as f32 * 0.01),
        }
    }

    fn flat(x: &Array2<f32>) -> &[f32] {
        x.as_slice().expect("standard layout")
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
        let mut got = vec![0.0f32; 9 * 80];
        linear(flat(&x), 9, &q, &mut QuantRows::default(), Isa::baseline(), &mut got);
        let scale = exact.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let worst = exact.iter().zip(&got).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst / scale < 0.02, "relative error {}", worst / scale);
    }

    #[test]
    fn simd_kernel_equals_portable_for_every_shape() {
        // Without AVX-512 VNNI both calls take the portable kernel (and agree trivially).
        eprintln!("instruction set of this CPU: {}", Isa::detect().name());
        let mut scratch = QuantRows::default();
        for (m, k, n) in
            [(1, 4, 1), (5, 12, 64), (6, 384, 64), (7, 13, 65), (13, 384, 1152), (17, 1536, 384), (2, 3, 130)]
        {
            let lin = layer(k, n);
            let q = QuantLinear::new(&lin);
            let x = input(m, k);
            let (mut a, mut b) = (vec![0.0f32; m * n], vec![0.0f32; m * n]);
            linear(flat(&x), m, &q, &mut scratch, Isa::detect(), &mut a);
            linear(flat(&x), m, &q, &mut scratch, Isa::baseline(), &mut b);
            assert_eq!(a, b, "m {m} k {k} n {n}");
        }
    }
}
