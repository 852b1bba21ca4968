//! Sentence vectors from token vectors: mean pooling over each sentence's tokens (all real
//! tokens, `[CLS]` and `[SEP]` included, as sentence-transformers' attention-mask mean), then L2
//! normalisation (sentence-transformers' `Normalize`, which divides by `max(‖v‖, 1e-12)`).

/// Mean of each consecutive run of `lens` rows of `hidden` (row-major, `width` values a row),
/// L2-normalised.
pub(crate) fn mean_pool_normalized(hidden: &[f32], width: usize, lens: &[usize]) -> Vec<Vec<f32>> {
    let mut out = Vec::with_capacity(lens.len());
    let mut rows = hidden.chunks_exact(width);
    for &len in lens {
        let mut v = vec![0.0f32; width];
        for row in rows.by_ref().take(len) {
            for (a, x) in v.iter_mut().zip(row) {
                *a += x;
            }
        }
        let n = len.max(1) as f32;
        v.iter_mut().for_each(|a| *a /= n);
        l2_normalize(&mut v);
        out.push(v);
    }
    out
}

/// One unit vector per text from the unit vectors of its windows: `owner[w]` is the text of
/// window `w` (windows of a text are consecutive), `lens[w]` its token count, the weight of its
/// vector in the text's average; the average is normalised again.
pub(crate) fn combine_windows(windows: &[Vec<f32>], lens: &[usize], owner: &[usize], texts: usize) -> Vec<Vec<f32>> {
    let width = windows.first().map_or(0, Vec::len);
    let mut out = vec![vec![0.0f32; width]; texts];
    for ((v, &len), &t) in windows.iter().zip(lens).zip(owner) {
        if let Some(acc) = out.get_mut(t) {
            for (a, x) in acc.iter_mut().zip(v) {
                *a += x * len as f32;
            }
        }
    }
    for v in &mut out {
        l2_normalize(v);
    }
    out
}

/// Scales `v` to unit length (a zero vector stays zero).
pub(crate) fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    for x in v {
        *x /= norm;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_each_run_separately_and_normalises() {
        let hidden = [1.0f32, 0.0, 3.0, 0.0, 0.0, 2.0];
        let v = mean_pool_normalized(&hidden, 2, &[2, 1]);
        assert_eq!(v, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
    }

    #[test]
    fn windows_are_averaged_by_token_count_and_normalised() {
        // text 0: two windows, 3 and 1 tokens; text 1: one window
        let windows = vec![vec![1.0f32, 0.0], vec![0.0, 1.0], vec![0.6, 0.8]];
        let v = combine_windows(&windows, &[3, 1, 5], &[0, 0, 1], 2);
        let n = (9.0f32 + 1.0).sqrt();
        assert!((v[0][0] - 3.0 / n).abs() < 1e-6 && (v[0][1] - 1.0 / n).abs() < 1e-6, "{:?}", v[0]);
        assert!((v[1][0] - 0.6).abs() < 1e-6 && (v[1][1] - 0.8).abs() < 1e-6, "{:?}", v[1]);
    }

    #[test]
    fn normalise_gives_unit_length_and_keeps_zero() {
        let mut v = vec![3.0f32, 4.0];
        l2_normalize(&mut v);
        assert!((v[0] - 0.6).abs() < 1e-7 && (v[1] - 0.8).abs() < 1e-7);
        let mut z = vec![0.0f32; 3];
        l2_normalize(&mut z);
        assert_eq!(z, vec![0.0; 3]);
    }
}
