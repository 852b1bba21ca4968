//! A dense layer in the precision the embedder was loaded with.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2};

use crate::gemm_i8::{self, Kernel};
use crate::quant::{QuantLinear, QuantRows};
use crate::weights::Linear;

/// `y = x · W + b`, in f32 or with int8 weights and activations.
pub(crate) enum Dense {
    F32(Linear),
    Int8(QuantLinear, Kernel),
}

impl Dense {
    /// Keeps `lin` in f32 (`kernel` `None`) or quantises it for `kernel`.
    pub(crate) fn new(lin: Linear, kernel: Option<Kernel>) -> Dense {
        match kernel {
            None => Dense::F32(lin),
            Some(k) => Dense::Int8(QuantLinear::new(&lin), k),
        }
    }

    /// Applies the layer; `scratch` holds the quantised input between calls (int8 only).
    pub(crate) fn apply(&self, x: ArrayView2<'_, f32>, scratch: &mut QuantRows) -> Array2<f32> {
        match self {
            Dense::F32(lin) => linear_f32(x, lin),
            Dense::Int8(q, kernel) => gemm_i8::linear(x, q, scratch, *kernel),
        }
    }
}

/// `x · weight + bias` in f32 (`matrixmultiply`'s sgemm).
pub(crate) fn linear_f32(x: ArrayView2<'_, f32>, lin: &Linear) -> Array2<f32> {
    let mut out = Array2::<f32>::zeros((x.nrows(), lin.bias.len()));
    for mut row in out.rows_mut() {
        row.assign(&lin.bias);
    }
    general_mat_mul(1.0, &x, &lin.weight, 1.0, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, array};

    #[test]
    fn linear_is_x_times_weight_plus_bias() {
        let lin =
            Linear { weight: array![[1.0f32, 0.0, 1.0], [0.0, 2.0, 1.0]], bias: Array1::from(vec![0.5, 0.0, -1.0]) };
        let x = array![[3.0f32, 4.0]];
        let mut scratch = QuantRows::default();
        assert_eq!(Dense::new(lin.clone(), None).apply(x.view(), &mut scratch), array![[3.5f32, 8.0, 6.0]]);
        let q = Dense::new(lin, Some(Kernel::Portable)).apply(x.view(), &mut scratch);
        for (a, b) in q.iter().zip([3.5f32, 8.0, 6.0]) {
            assert!((a - b).abs() < 0.05, "{a} vs {b}");
        }
    }
}
