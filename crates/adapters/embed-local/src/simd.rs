//! Runs the kernels of `crate::ops` compiled for the best instruction set the CPU has.
//!
//! The crate is built for baseline x86-64 (SSE2), so the loops in `ops` would vectorise only
//! 4 lanes wide. Each wrapper below compiles the same generic code again inside a
//! `#[target_feature]` function (AVX-512, or AVX2 with FMA) and calls the version [`Isa`]
//! names. The only `unsafe` is calling those functions, which is sound because an [`Isa`] other
//! than the baseline can only be obtained from [`Isa::detect`], i.e. after the CPU reported the
//! features.
#![allow(unsafe_code)]

mod avx512_attention;

pub(crate) use avx512_attention::{scores_block, weigh_values};

use crate::ops::{self, AttnScratch, Heads};

/// An instruction set this CPU is known to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Isa(Level);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// AVX-512 F/BW/DQ/VL with VNNI, AVX2 and FMA (Ice Lake, Sapphire Rapids, Zen 4 and later).
    Avx512Vnni,
    /// AVX2 and FMA (Haswell, Zen 1 and later).
    Avx2Fma,
    /// What every x86-64 (or other) CPU runs.
    Baseline,
}

impl Isa {
    /// The best level this CPU runs.
    pub(crate) fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            let v3 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
            let v4 = v3
                && is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512vnni");
            if v4 {
                return Isa(Level::Avx512Vnni);
            }
            if v3 {
                return Isa(Level::Avx2Fma);
            }
        }
        Isa(Level::Baseline)
    }

    /// Plain code, any CPU (for tests that compare against it).
    #[cfg(test)]
    pub(crate) fn baseline() -> Isa {
        Isa(Level::Baseline)
    }

    /// Whether the AVX-512 VNNI int8 matrix kernel runs here.
    pub(crate) fn has_vnni(self) -> bool {
        self.0 == Level::Avx512Vnni
    }

    /// A short name for logs and benchmarks.
    pub(crate) fn name(self) -> &'static str {
        match self.0 {
            Level::Avx512Vnni => "avx512-vnni",
            Level::Avx2Fma => "avx2-fma",
            Level::Baseline => "baseline",
        }
    }
}

/// Defines `$name(isa, args…)` calling `ops::$op::<FMA>(args…)` compiled for the CPU's level;
/// written `+isa: Isa`, the kernel also receives `isa` as its first argument.
macro_rules! dispatch {
    ($(#[$doc:meta])* fn $name:ident($isa:ident: Isa, $($arg:ident: $ty:ty),*) => $op:ident) => {
        dispatch! { @emit $(#[$doc])* $name $isa [$($arg: $ty),*] [$($arg: $ty),*] $op }
    };
    ($(#[$doc:meta])* fn $name:ident(+$isa:ident: Isa, $($arg:ident: $ty:ty),*) => $op:ident) => {
        dispatch! { @emit $(#[$doc])* $name $isa [$($arg: $ty),*] [$isa: Isa, $($arg: $ty),*] $op }
    };
    (@emit $(#[$doc:meta])* $name:ident $isa:ident [$($r:ident: $rt:ty),*] [$($p:ident: $t:ty),*] $op:ident) => {
        $(#[$doc])*
        pub(crate) fn $name($isa: Isa, $($r: $rt),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma")]
                fn v4($($p: $t),*) {
                    ops::$op::<true>($($p),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn v3($($p: $t),*) {
                    ops::$op::<true>($($p),*)
                }
                match $isa.0 {
                    // SAFETY: the `Isa` came from `Isa::detect`, which saw these features.
                    Level::Avx512Vnni => return unsafe { v4($($p),*) },
                    // SAFETY: as above.
                    Level::Avx2Fma => return unsafe { v3($($p),*) },
                    Level::Baseline => {}
                }
            }
            ops::$op::<false>($($p),*)
        }
    };
}

dispatch! {
    /// [`ops::gelu`] in place.
    fn gelu(isa: Isa, xs: &mut [f32]) => gelu
}

dispatch! {
    /// [`ops::add_layer_norm`]: `y ← LayerNorm(y + residual)` row by row.
    fn add_layer_norm(
        isa: Isa,
        y: &mut [f32],
        residual: Option<&[f32]>,
        cols: usize,
        gamma: &[f32],
        beta: &[f32],
        eps: f32
    ) => add_layer_norm
}

dispatch! {
    /// [`ops::attention`] of one sequence.
    fn attention(+isa: Isa, qkv: &[f32], len: usize, shape: Heads, ctx: &mut [f32], scratch: &mut AttnScratch) => attention
}

dispatch! {
    /// [`ops::quantize_rows`]: every row of `x` to uint8.
    fn quantize_rows(isa: Isa, x: &[f32], k: usize, k_pad: usize, data: &mut [u8], scale: &mut [f32], zero: &mut [i32]) => quantize_rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, seed: usize) -> Vec<f32> {
        (0..n).map(|i| ((i * 7919 + seed * 104_729) % 2001) as f32 / 250.0 - 4.0).collect()
    }

    fn max_diff(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
    }

    /// Every kernel compiled for this CPU agrees with the baseline build (up to FMA rounding).
    #[test]
    fn detected_isa_agrees_with_baseline() {
        let (fast, base) = (Isa::detect(), Isa::baseline());
        eprintln!("instruction set of this CPU: {}", fast.name());

        let (mut a, mut b) = (data(1000, 1), data(1000, 1));
        gelu(fast, &mut a);
        gelu(base, &mut b);
        assert!(max_diff(&a, &b) < 1e-5);

        let (mut a, mut b) = (data(5 * 48, 2), data(5 * 48, 2));
        let (res, gamma, beta) = (data(5 * 48, 3), data(48, 4), data(48, 5));
        add_layer_norm(fast, &mut a, Some(&res), 48, &gamma, &beta, 1e-12);
        add_layer_norm(base, &mut b, Some(&res), 48, &gamma, &beta, 1e-12);
        assert!(max_diff(&a, &b) < 1e-4);

        let shape = Heads { hidden: 64, heads: 2, head_dim: 32 };
        let qkv: Vec<f32> = data(37 * 192, 6).iter().map(|v| v / 4.0).collect();
        let (mut a, mut b) = (vec![0.0f32; 37 * 64], vec![0.0f32; 37 * 64]);
        attention(fast, &qkv, 37, shape, &mut a, &mut AttnScratch::default());
        attention(base, &qkv, 37, shape, &mut b, &mut AttnScratch::default());
        assert!(max_diff(&a, &b) < 1e-5);

        let x = data(3 * 50, 7);
        let (mut qa, mut qb) = (vec![0u8; 3 * 52], vec![0u8; 3 * 52]);
        let (mut sa, mut sb) = (vec![0.0f32; 3], vec![0.0f32; 3]);
        let (mut za, mut zb) = (vec![0i32; 3], vec![0i32; 3]);
        quantize_rows(fast, &x, 50, 52, &mut qa, &mut sa, &mut za);
        quantize_rows(base, &x, 50, 52, &mut qb, &mut sb, &mut zb);
        assert_eq!((qa, sa, za), (qb, sb, zb), "quantisation is exact on every instruction set");
    }
}
