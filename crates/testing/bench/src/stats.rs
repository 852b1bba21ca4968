//! Latency summaries: median and 95th percentile of a set of samples.

use serde::Serialize;

/// Summary of a set of latencies in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Number of samples.
    pub n: usize,
    /// Median (nearest rank).
    pub median_ms: f64,
    /// 95th percentile (nearest rank).
    pub p95_ms: f64,
    /// Largest sample.
    pub max_ms: f64,
}

impl Latency {
    /// Summarises `samples` (any order). All zeros for no samples.
    pub fn of(samples: &[f64]) -> Latency {
        let mut sorted: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        Latency {
            n: sorted.len(),
            median_ms: nearest_rank(&sorted, 0.50),
            p95_ms: nearest_rank(&sorted, 0.95),
            max_ms: sorted.last().copied().unwrap_or(0.0),
        }
    }
}

/// The `q` quantile of sorted samples by the nearest-rank method (0 for none).
pub fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_p95_by_nearest_rank() {
        let samples: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        let l = Latency::of(&samples);
        assert_eq!(l.n, 20);
        assert_eq!(l.median_ms, 10.0);
        assert_eq!(l.p95_ms, 19.0);
        assert_eq!(l.max_ms, 20.0);
    }

    #[test]
    fn single_and_empty() {
        assert_eq!(Latency::of(&[4.0]).p95_ms, 4.0);
        assert_eq!(Latency::of(&[]), Latency::default());
    }
}
