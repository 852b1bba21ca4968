//! A dense layer in the precision the embedder was loaded with.

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};

use crate::error::ModelError;
use crate::gemm_i8;
use crate::quant::{QuantLinear, QuantRows};
use crate::simd::Isa;
use crate::weights::Linear;

/// `y = x · W + b`, in f32 or with int8 weights and activations.
pub(crate) enum Dense {
    F32(Linear),
    Int8(QuantLinear),
}

impl Dense {
    /// Keeps `lin` in f32 or quantises it to int8.
    pub(crate) fn new(lin: Linear, int8: bool) -> Dense {
        if int8 { Dense::Int8(QuantLinear::new(&lin)) } else { Dense::F32(lin) }
    }

    /// `out = x · W + b` for `rows` rows, both row-major; `scratch` holds the quantised input
    /// (int8 only).
    pub(crate) fn apply(
        &self,
        x: &[f32],
        rows: usize,
        out: &mut [f32],
        scratch: &mut QuantRows,
        isa: Isa,
    ) -> Result<(), ModelError> {
        match self {
            Dense::F32(lin) => linear_f32(x, rows, lin, out),
            Dense::Int8(q) => {
                gemm_i8::linear(x, rows, q, scratch, isa, out);
                Ok(())
            }
        }
    }
}

/// `out = x · weight + bias` in f32 (`matrixmultiply`'s sgemm).
fn linear_f32(x: &[f32], rows: usize, lin: &Linear, out: &mut [f32]) -> Result<(), ModelError> {
    let (k, n) = lin.weight.dim();
    let shape = |e: ndarray::ShapeError| ModelError::Worker(format!("internal error: dense layer shapes: {e}"));
    let x = ArrayView2::from_shape((rows, k), x).map_err(shape)?;
    let mut y = ArrayViewMut2::from_shape((rows, n), out).map_err(shape)?;
    for mut row in y.rows_mut() {
        row.assign(&lin.bias);
    }
    general_mat_mul(1.0, &x, &lin.weight, 1.0, &mut y);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, array};

    #[test]
    fn linear_is_x_times_weight_plus_bias() {
        let lin =
            Linear { weight: array![[1.0f32, 0.0, 1.0], [0.0, 2.0, 1.0]], bias: Array1::from(vec![0.5, 0.0, -1.0]) };
        let x = [3.0f32, 4.0];
        let mut scratch = QuantRows::default();
        let mut out = [0.0f32; 3];
        Dense::new(lin.clone(), false).apply(&x, 1, &mut out, &mut scratch, Isa::baseline()).expect("shapes fit");
        assert_eq!(out, [3.5f32, 8.0, 6.0]);
        for isa in [Isa::baseline(), Isa::detect()] {
            Dense::new(lin.clone(), true).apply(&x, 1, &mut out, &mut scratch, isa).expect("shapes fit");
            for (a, b) in out.iter().zip([3.5f32, 8.0, 6.0]) {
                assert!((a - b).abs() < 0.05, "{a} vs {b}");
            }
        }
    }
}
