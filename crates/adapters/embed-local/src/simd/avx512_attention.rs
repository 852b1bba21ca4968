//! The two inner loops of attention, in AVX-512 intrinsics (LLVM does not keep the generic
//! versions' partial sums in registers).
//!
//! `unsafe` here: intrinsics and raw-pointer loads. Every pointer is derived from a slice whose
//! length the caller-facing functions check first; the `#[target_feature]` functions run only
//! with an [`Isa`] that has AVX-512, which only `Isa::detect` makes.
#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use crate::ops::{KB, QB};
use crate::simd::Isa;

/// `scores[r][j0..j0+KB] = Σ_d q[d][r] · kt[d][j0..j0+KB]` for every block `j0` of `keys`
/// (a multiple of [`KB`]). Returns false (and does nothing) when `isa` lacks AVX-512 or the
/// slices are too short.
pub(crate) fn scores_block(isa: Isa, q: &[[f32; QB]], kt: &[f32], keys: usize, scores: &mut [f32]) -> bool {
    let d = q.len();
    if !isa.has_vnni() || !keys.is_multiple_of(KB) || kt.len() < d * keys || scores.len() < QB * keys {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX-512 is present (`isa`), and the lengths were checked above.
        unsafe { scores_avx512(q, kt, keys, scores) };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma")]
unsafe fn scores_avx512(q: &[[f32; QB]], kt: &[f32], keys: usize, scores: &mut [f32]) {
    let kp = kt.as_ptr();
    let sp = scores.as_mut_ptr();
    for j0 in (0..keys).step_by(KB) {
        let mut acc = [[_mm512_setzero_ps(); 2]; QB];
        for (dd, qd) in q.iter().enumerate() {
            // SAFETY: dd·keys + j0 + 32 ≤ d·keys ≤ kt.len().
            let (k0, k1) = unsafe {
                let p = kp.add(dd * keys + j0);
                (_mm512_loadu_ps(p), _mm512_loadu_ps(p.add(16)))
            };
            for (a, &qv) in acc.iter_mut().zip(qd) {
                let qb = _mm512_set1_ps(qv);
                a[0] = _mm512_fmadd_ps(qb, k0, a[0]);
                a[1] = _mm512_fmadd_ps(qb, k1, a[1]);
            }
        }
        for (r, a) in acc.iter().enumerate() {
            // SAFETY: r·keys + j0 + 32 ≤ QB·keys ≤ scores.len().
            unsafe {
                let p = sp.add(r * keys + j0);
                _mm512_storeu_ps(p, a[0]);
                _mm512_storeu_ps(p.add(16), a[1]);
            }
        }
    }
}

/// `out[r·row_stride + c..+32] = Σ_{j<len} p[r·keys + j] · values[j·value_stride + c..+32]` for
/// every block `c` of the `d` columns and the first `n` of [`QB`] queries. Returns false (and
/// does nothing) when `isa` lacks AVX-512, `d` is not a multiple of 32 or a slice is too short.
#[allow(clippy::too_many_arguments)]
pub(crate) fn weigh_values(
    isa: Isa,
    p: &[f32],
    keys: usize,
    n: usize,
    len: usize,
    values: &[f32],
    value_stride: usize,
    d: usize,
    out: &mut [f32],
    row_stride: usize,
) -> bool {
    let fits = (1..=QB).contains(&n)
        && len <= keys
        && p.len() >= QB * keys
        && d.is_multiple_of(32)
        && (len == 0 || values.len() >= (len - 1) * value_stride + d)
        && out.len() >= (n - 1) * row_stride + d;
    if !isa.has_vnni() || !fits {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX-512 is present (`isa`), and the lengths were checked above.
        unsafe { weigh_avx512(p, keys, n, len, values, value_stride, d, out, row_stride) };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma")]
unsafe fn weigh_avx512(
    p: &[f32],
    keys: usize,
    n: usize,
    len: usize,
    values: &[f32],
    value_stride: usize,
    d: usize,
    out: &mut [f32],
    row_stride: usize,
) {
    let vp = values.as_ptr();
    let op = out.as_mut_ptr();
    for c in (0..d).step_by(32) {
        let mut acc = [[_mm512_setzero_ps(); 2]; QB];
        for j in 0..len {
            // SAFETY: j·value_stride + c + 32 ≤ (len-1)·value_stride + d ≤ values.len().
            let (v0, v1) = unsafe {
                let ptr = vp.add(j * value_stride + c);
                (_mm512_loadu_ps(ptr), _mm512_loadu_ps(ptr.add(16)))
            };
            for (r, a) in acc.iter_mut().enumerate() {
                let w = _mm512_set1_ps(p[r * keys + j]);
                a[0] = _mm512_fmadd_ps(w, v0, a[0]);
                a[1] = _mm512_fmadd_ps(w, v1, a[1]);
            }
        }
        for (r, a) in acc.iter().enumerate().take(n) {
            // SAFETY: r·row_stride + c + 32 ≤ (n-1)·row_stride + d ≤ out.len().
            unsafe {
                let ptr = op.add(r * row_stride + c);
                _mm512_storeu_ps(ptr, a[0]);
                _mm512_storeu_ps(ptr.add(16), a[1]);
            }
        }
    }
}
