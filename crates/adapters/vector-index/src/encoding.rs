//! Vectors as stored in memory (`f32`, `f16`, or `int8` with one scale per vector) and their dot
//! products through `simsimd` (runtime-dispatched SIMD kernels: AVX2/AVX-512/NEON when present).

use lightrag_ports::VectorEncoding;
use simsimd::SpatialSimilarity;

/// L2-normalises `v` in place (a zero or non-finite vector is left as it is).
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in v.iter_mut() {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
}

/// A normalised copy of `v`.
pub fn normalised(v: &[f32]) -> Vec<f32> {
    let mut out = v.to_vec();
    normalise(&mut out);
    out
}

/// Symmetric int8 quantisation: `round(x / scale)` with `scale = max|x| / 127`.
pub fn quantise_i8(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 && max.is_finite() { max / 127.0 } else { 1.0 };
    out.extend(v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8));
    scale
}

/// A query prepared for one encoding.
pub enum Query {
    /// As is.
    F32(Vec<f32>),
    /// Rounded to half floats.
    F16(Vec<simsimd::f16>),
    /// Quantised, with its scale.
    I8(Vec<i8>, f32),
}

impl Query {
    /// Prepares a normalised query.
    pub fn new(encoding: VectorEncoding, v: &[f32]) -> Query {
        match encoding {
            VectorEncoding::F32 => Query::F32(v.to_vec()),
            VectorEncoding::F16 => Query::F16(v.iter().map(|x| simsimd::f16::from_f32(*x)).collect()),
            VectorEncoding::I8 => {
                let mut q = Vec::with_capacity(v.len());
                let scale = quantise_i8(v, &mut q);
                Query::I8(q, scale)
            }
        }
    }
}

/// Dot product of two `f32` slices of the same length (SIMD).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    f32::dot(a, b).map_or(0.0, |d| d as f32)
}

/// Rows of one encoding, `dim` values each, contiguous.
#[derive(Debug)]
pub enum Matrix {
    /// 4 bytes per value.
    F32(Vec<f32>),
    /// 2 bytes per value.
    F16(Vec<simsimd::f16>),
    /// 1 byte per value plus a scale per row.
    I8 {
        /// Quantised values.
        data: Vec<i8>,
        /// One scale per row.
        scales: Vec<f32>,
    },
}

impl Matrix {
    /// An empty matrix.
    pub fn new(encoding: VectorEncoding) -> Matrix {
        match encoding {
            VectorEncoding::F32 => Matrix::F32(Vec::new()),
            VectorEncoding::F16 => Matrix::F16(Vec::new()),
            VectorEncoding::I8 => Matrix::I8 { data: Vec::new(), scales: Vec::new() },
        }
    }

    /// The encoding.
    pub fn encoding(&self) -> VectorEncoding {
        match self {
            Matrix::F32(_) => VectorEncoding::F32,
            Matrix::F16(_) => VectorEncoding::F16,
            Matrix::I8 { .. } => VectorEncoding::I8,
        }
    }

    /// Appends a normalised row.
    pub fn push(&mut self, v: &[f32]) {
        match self {
            Matrix::F32(d) => d.extend_from_slice(v),
            Matrix::F16(d) => d.extend(v.iter().map(|x| simsimd::f16::from_f32(*x))),
            Matrix::I8 { data, scales } => scales.push(quantise_i8(v, data)),
        }
    }

    /// Replaces row `row` with a normalised vector.
    pub fn set(&mut self, dim: usize, row: usize, v: &[f32]) {
        let range = row * dim..(row + 1) * dim;
        match self {
            Matrix::F32(d) => d[range].copy_from_slice(v),
            Matrix::F16(d) => {
                for (slot, x) in d[range].iter_mut().zip(v) {
                    *slot = simsimd::f16::from_f32(*x);
                }
            }
            Matrix::I8 { data, scales } => {
                let mut q = Vec::with_capacity(dim);
                scales[row] = quantise_i8(v, &mut q);
                data[range].copy_from_slice(&q);
            }
        }
    }

    /// Moves the last row into `row` and drops the last row.
    pub fn swap_remove(&mut self, dim: usize, row: usize, rows: usize) {
        let last = rows - 1;
        match self {
            Matrix::F32(d) => {
                d.copy_within(last * dim..rows * dim, row * dim);
                d.truncate(last * dim);
            }
            Matrix::F16(d) => {
                d.copy_within(last * dim..rows * dim, row * dim);
                d.truncate(last * dim);
            }
            Matrix::I8 { data, scales } => {
                data.copy_within(last * dim..rows * dim, row * dim);
                data.truncate(last * dim);
                scales.swap_remove(row);
            }
        }
    }

    /// Reserves room for `rows` more rows.
    pub fn reserve(&mut self, dim: usize, rows: usize) {
        match self {
            Matrix::F32(d) => d.reserve(rows * dim),
            Matrix::F16(d) => d.reserve(rows * dim),
            Matrix::I8 { data, scales } => {
                data.reserve(rows * dim);
                scales.reserve(rows);
            }
        }
    }

    /// Row `row` decoded to `f32`.
    pub fn row(&self, dim: usize, row: usize) -> Vec<f32> {
        let range = row * dim..(row + 1) * dim;
        match self {
            Matrix::F32(d) => d[range].to_vec(),
            Matrix::F16(d) => d[range].iter().map(|x| x.to_f32()).collect(),
            Matrix::I8 { data, scales } => data[range].iter().map(|x| f32::from(*x) * scales[row]).collect(),
        }
    }

    /// Dot product of row `row` with a query prepared for this encoding.
    pub fn score(&self, dim: usize, row: usize, query: &Query) -> f32 {
        let range = row * dim..(row + 1) * dim;
        let dot = match (self, query) {
            (Matrix::F32(d), Query::F32(q)) => f32::dot(&d[range], q),
            (Matrix::F16(d), Query::F16(q)) => simsimd::f16::dot(&d[range], q),
            (Matrix::I8 { data, scales }, Query::I8(q, qs)) => {
                i8::dot(&data[range], q).map(|d| d * f64::from(scales[row]) * f64::from(*qs))
            }
            _ => None,
        };
        dot.map(|d| d as f32).unwrap_or(f32::NEG_INFINITY)
    }

    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        match self {
            Matrix::F32(d) => d.capacity() * 4,
            Matrix::F16(d) => d.capacity() * 2,
            Matrix::I8 { data, scales } => data.capacity() + scales.capacity() * 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(dim: usize, seed: u64) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            })
            .collect();
        normalise(&mut v);
        v
    }

    #[test]
    fn every_encoding_scores_close_to_the_f32_dot_product() {
        let dim = 384;
        let (a, b) = (sample(dim, 1), sample(dim, 2));
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        for (encoding, tolerance) in
            [(VectorEncoding::F32, 1e-5), (VectorEncoding::F16, 2e-3), (VectorEncoding::I8, 2e-2)]
        {
            let mut m = Matrix::new(encoding);
            m.push(&a);
            m.push(&b);
            let got = m.score(dim, 1, &Query::new(encoding, &a));
            assert!((got - exact).abs() < tolerance, "{encoding:?}: {got} vs {exact}");
            let self_score = m.score(dim, 0, &Query::new(encoding, &a));
            assert!((self_score - 1.0).abs() < tolerance, "{encoding:?}: self score {self_score}");
        }
    }

    #[test]
    fn swap_remove_and_set_keep_rows_aligned() {
        let dim = 5;
        for encoding in [VectorEncoding::F32, VectorEncoding::F16, VectorEncoding::I8] {
            let mut m = Matrix::new(encoding);
            let rows: Vec<Vec<f32>> = (0..4).map(|i| sample(dim, i + 10)).collect();
            for r in &rows {
                m.push(r);
            }
            m.swap_remove(dim, 1, 4);
            m.set(dim, 0, &rows[2]);
            let back = m.row(dim, 1);
            for (x, y) in back.iter().zip(&rows[3]) {
                assert!((x - y).abs() < 1e-2, "{encoding:?}: the last row moved into the hole");
            }
            let first = m.row(dim, 0);
            for (x, y) in first.iter().zip(&rows[2]) {
                assert!((x - y).abs() < 1e-2, "{encoding:?}: set replaced row 0");
            }
        }
    }
}
