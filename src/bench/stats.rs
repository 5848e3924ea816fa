//! Percentiles and the ratios the benchmark reports. Plain arithmetic, no GPU.
//!
//! Percentiles use the **nearest-rank** method: the p-th percentile of `n`
//! sorted samples is the sample at rank `ceil(p / 100 × n)` (1-based), so it is
//! always a frame that really happened. With 20 frames, p99 is the slowest.

use serde::Serialize;

/// Why statistics could not be computed.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum StatsError {
    #[error("no samples")]
    Empty,
    #[error("percentile {0} is outside 0..=100")]
    BadPercentile(f64),
    #[error("a sample is not a finite number")]
    NotFinite,
}

/// The nearest-rank percentile `p` (0..=100) of `samples` (any order).
pub fn percentile(samples: &[f64], p: f64) -> Result<f64, StatsError> {
    if !(0.0..=100.0).contains(&p) {
        return Err(StatsError::BadPercentile(p));
    }
    let sorted = sorted(samples)?;
    Ok(nearest_rank(&sorted, p))
}

fn sorted(samples: &[f64]) -> Result<Vec<f64>, StatsError> {
    if samples.is_empty() {
        return Err(StatsError::Empty);
    }
    if samples.iter().any(|s| !s.is_finite()) {
        return Err(StatsError::NotFinite);
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    Ok(sorted)
}

/// `sorted` must be non-empty and ascending.
fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    sorted[rank.clamp(1, n) - 1]
}

/// p50, p90 and p99 of one measured quantity, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

impl Percentiles {
    pub fn of(samples: &[f64]) -> Result<Self, StatsError> {
        let sorted = sorted(samples)?;
        Ok(Self {
            p50: nearest_rank(&sorted, 50.0),
            p90: nearest_rank(&sorted, 90.0),
            p99: nearest_rank(&sorted, 99.0),
        })
    }
}

/// `numerator ÷ denominator`, or `None` when either is missing, not finite,
/// or the denominator is not positive (a ratio against zero says nothing).
pub fn ratio(numerator: Option<f64>, denominator: Option<f64>) -> Option<f64> {
    let (n, d) = (numerator?, denominator?);
    (n.is_finite() && d.is_finite() && d > 0.0 && n >= 0.0).then(|| n / d)
}

/// How a run's time grows: the time the next run will take, estimated from
/// the previous count's per-frame wall time, scaled linearly with the count
/// (an over-estimate when a frame has fixed costs, which errs on the side of
/// the budget).
pub fn estimate_run_s(prev_frame_ms: f64, prev_count: u32, count: u32, frames: u32) -> f64 {
    let scale = count.max(1) as f64 / prev_count.max(1) as f64;
    prev_frame_ms.max(0.0) * scale.max(1.0) * frames as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let s: Vec<f64> = (1..=10).map(f64::from).collect();
        // ceil(0.5 × 10) = 5th, ceil(0.9 × 10) = 9th, ceil(0.99 × 10) = 10th.
        assert_eq!(percentile(&s, 50.0), Ok(5.0));
        assert_eq!(percentile(&s, 90.0), Ok(9.0));
        assert_eq!(percentile(&s, 99.0), Ok(10.0));
        assert_eq!(percentile(&s, 100.0), Ok(10.0));
        assert_eq!(percentile(&s, 0.0), Ok(1.0));
        assert_eq!(percentile(&s, 10.0), Ok(1.0));
        assert_eq!(percentile(&s, 11.0), Ok(2.0));
    }

    #[test]
    fn order_does_not_matter() {
        let s = [9.0, 1.0, 5.0, 3.0, 7.0];
        let p = Percentiles::of(&s).expect("five samples");
        assert_eq!(
            p,
            Percentiles {
                p50: 5.0,
                p90: 9.0,
                p99: 9.0
            }
        );
        let hundred: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let p = Percentiles::of(&hundred).expect("a hundred samples");
        assert_eq!((p.p50, p.p90, p.p99), (50.0, 90.0, 99.0));
    }

    #[test]
    fn single_sample_is_every_percentile() {
        let p = Percentiles::of(&[4.25]).expect("one sample");
        assert_eq!((p.p50, p.p90, p.p99), (4.25, 4.25, 4.25));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(Percentiles::of(&[]), Err(StatsError::Empty));
        assert_eq!(
            percentile(&[1.0, f64::NAN], 50.0),
            Err(StatsError::NotFinite)
        );
        assert_eq!(
            percentile(&[1.0], 101.0),
            Err(StatsError::BadPercentile(101.0))
        );
    }

    #[test]
    fn ratios() {
        assert_eq!(ratio(Some(30.0), Some(10.0)), Some(3.0));
        assert_eq!(ratio(Some(0.0), Some(4.0)), Some(0.0));
        assert_eq!(ratio(None, Some(1.0)), None);
        assert_eq!(ratio(Some(1.0), None), None);
        assert_eq!(ratio(Some(1.0), Some(0.0)), None);
        assert_eq!(ratio(Some(1.0), Some(-2.0)), None);
        assert_eq!(ratio(Some(f64::INFINITY), Some(2.0)), None);
    }

    #[test]
    fn run_estimates_scale_with_count() {
        // 10 ms a frame at 100 → 100 ms at 1000, × 50 frames = 5 s.
        assert!((estimate_run_s(10.0, 100, 1000, 50) - 5.0).abs() < 1e-9);
        // Never estimated below the previous frame time.
        assert!((estimate_run_s(10.0, 1000, 100, 10) - 0.1).abs() < 1e-9);
    }
}
