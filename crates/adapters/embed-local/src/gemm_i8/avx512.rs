//! The AVX-512 VNNI int8 kernel.
//!
//! This is the crate's only `unsafe` code: `std::arch` intrinsics and raw-pointer loads and
//! stores. Every pointer stays inside the slices [`linear`] checked the lengths of, and the
//! `#[target_feature]` functions run only with an [`Isa`] that has VNNI, which only
//! `Isa::detect` makes after the CPU reported the features.
#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use crate::quant::{NR, QuantLinear, QuantRows};
use crate::simd::Isa;

/// Rows per micro-kernel call: 6 rows × 4 vectors = 24 accumulator registers of 32.
const MR: usize = 6;

/// `out = dequantize(x · W) + b`, `out` being `x.rows() × w.n` row-major. Call only when
/// `isa` has VNNI (otherwise it does nothing).
pub(super) fn linear(isa: Isa, x: &QuantRows, w: &QuantLinear, out: &mut [f32]) {
    let m = x.rows();
    // The bounds every pointer below relies on.
    assert!(
        x.k_pad == w.k_pad
            && w.k_pad.is_multiple_of(4)
            && w.n_pad.is_multiple_of(NR)
            && w.n <= w.n_pad
            && x.data.len() == m * x.k_pad
            && x.zero.len() == m
            && w.packed.len() == w.n_pad * w.k_pad
            && w.scale.len() == w.n_pad
            && w.col_sum.len() == w.n_pad
            && w.bias.len() == w.n_pad
            && out.len() == m * w.n,
        "int8 kernel called with inconsistent shapes"
    );
    #[cfg(target_arch = "x86_64")]
    if isa.has_vnni() {
        // SAFETY: the CPU has the features `linear_avx512` is compiled for (`isa` says so),
        // and the shapes were checked against the buffers' lengths.
        unsafe { linear_avx512(x, w, out) }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma")]
unsafe fn linear_avx512(x: &QuantRows, w: &QuantLinear, out: &mut [f32]) {
    let m = x.rows();
    for panel in 0..w.n_pad / NR {
        let j0 = panel * NR;
        let mut i = 0;
        while i + MR <= m {
            // SAFETY: rows i..i+MR exist; columns j0..j0+NR are inside the padded panel.
            unsafe { block::<MR>(x, w, i, j0, out) };
            i += MR;
        }
        // SAFETY: as above, for the last m - i (< MR) rows.
        unsafe {
            match m - i {
                1 => block::<1>(x, w, i, j0, out),
                2 => block::<2>(x, w, i, j0, out),
                3 => block::<3>(x, w, i, j0, out),
                4 => block::<4>(x, w, i, j0, out),
                5 => block::<5>(x, w, i, j0, out),
                _ => {}
            }
        }
    }
}

/// Rows `i0..i0+R` × columns `j0..j0+NR` (those below `w.n` are stored).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma")]
#[inline]
unsafe fn block<const R: usize>(x: &QuantRows, w: &QuantLinear, i0: usize, j0: usize, out: &mut [f32]) {
    let groups = w.k_pad / 4;
    let a = x.data[i0 * x.k_pad..(i0 + R) * x.k_pad].as_ptr();
    let wp = w.packed[j0 * w.k_pad..(j0 + NR) * w.k_pad].as_ptr();
    // The sums start at the zero-point correction `-zero[i] · Σ_k q[k][j]` (which also keeps
    // LLVM from zeroing the accumulators through memory).
    // SAFETY: j0..j0+NR is inside the padded per-column sums (j0 + NR ≤ n_pad).
    let col_sum: [__m512i; 4] =
        std::array::from_fn(|v| unsafe { _mm512_loadu_si512(w.col_sum.as_ptr().add(j0 + 16 * v).cast()) });
    let mut acc: [[__m512i; 4]; R] = std::array::from_fn(|r| {
        let zero = _mm512_set1_epi32(-x.zero[i0 + r]);
        std::array::from_fn(|v| _mm512_mullo_epi32(zero, col_sum[v]))
    });
    for g in 0..groups {
        // SAFETY: group g of the panel is NR·4 = 256 bytes at g·256 < k_pad·NR.
        let wg = unsafe { wp.add(g * NR * 4) };
        let wv = unsafe {
            [
                _mm512_loadu_si512(wg.cast()),
                _mm512_loadu_si512(wg.add(64).cast()),
                _mm512_loadu_si512(wg.add(128).cast()),
                _mm512_loadu_si512(wg.add(192).cast()),
            ]
        };
        for (r, row_acc) in acc.iter_mut().enumerate() {
            // SAFETY: byte 4g..4g+4 of row r is inside that row (4g + 4 ≤ k_pad).
            let four = unsafe { a.add(r * x.k_pad + 4 * g).cast::<i32>().read_unaligned() };
            let av = _mm512_set1_epi32(four);
            for (slot, wv) in row_acc.iter_mut().zip(wv) {
                *slot = _mm512_dpbusd_epi32(*slot, av, wv);
            }
        }
    }
    for (r, row_acc) in acc.iter().enumerate() {
        let i = i0 + r;
        let x_scale = _mm512_set1_ps(x.scale[i]);
        for (v, &sum) in row_acc.iter().enumerate() {
            let j = j0 + 16 * v;
            if j >= w.n {
                break;
            }
            // SAFETY: j..j+16 is inside the padded per-column vectors (j + 16 ≤ n_pad).
            let (w_scale, bias) =
                unsafe { (_mm512_loadu_ps(w.scale.as_ptr().add(j)), _mm512_loadu_ps(w.bias.as_ptr().add(j))) };
            // `sum` already holds `acc - zero · col_sum`; then the same float operations, in the
            // same order, as `super::dequantize`.
            let y = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(sum), _mm512_mul_ps(x_scale, w_scale)), bias);
            let lanes = (w.n - j).min(16);
            let mask: __mmask16 = if lanes == 16 { 0xFFFF } else { (1u16 << lanes) - 1 };
            // SAFETY: row i has w.n floats; lanes j..j+lanes are below w.n, the rest are masked.
            unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().add(i * w.n + j), mask, y) };
        }
    }
}
