//! Summary statistics and time series.

use mpcc_core::Nanos;

/// RTT samples of one flow: running mean and variance (Welford) and every
/// sample kept for exact percentiles.
#[derive(Clone, Debug, Default)]
pub struct RttStats {
    n: u64,
    mean: f64,
    m2: f64,
    min: Nanos,
    samples: Vec<u32>,
}

impl RttStats {
    #[inline]
    pub fn add(&mut self, rtt: Nanos) {
        let x = rtt as f64 * 1e-9;
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
        self.min = if self.n == 1 { rtt } else { self.min.min(rtt) };
        // Microseconds in a u32: 71 minutes of RTT is plenty, and half the memory.
        self.samples.push((rtt / 1000).min(u32::MAX as u64) as u32);
    }

    pub fn count(&self) -> u64 {
        self.n
    }
    pub fn mean_s(&self) -> f64 {
        if self.n == 0 { f64::NAN } else { self.mean }
    }
    /// Population variance, s^2.
    pub fn var_s2(&self) -> f64 {
        if self.n == 0 { f64::NAN } else { self.m2 / self.n as f64 }
    }
    pub fn min_s(&self) -> f64 {
        if self.n == 0 { f64::NAN } else { self.min as f64 * 1e-9 }
    }

    /// Percentiles (0-100) by the nearest-rank method, seconds (microsecond resolution).
    pub fn percentiles(&self, ps: &[f64]) -> Vec<f64> {
        if self.samples.is_empty() {
            return ps.iter().map(|_| f64::NAN).collect();
        }
        // A selection per percentile: linear time, where sorting would be n log n.
        let mut v = self.samples.clone();
        let n = v.len();
        ps.iter()
            .map(|p| {
                let rank = ((p / 100.0) * n as f64).ceil().max(1.0) as usize;
                *v.select_nth_unstable(rank.min(n) - 1).1 as f64 * 1e-6
            })
            .collect()
    }

    /// The distribution of the samples as `points` (>= 2) quantiles from the minimum
    /// (q = 0) to the maximum (q = 1), nearest rank, seconds: a CDF drawn from every
    /// sample rather than through a few percentiles. Empty without samples.
    pub fn cdf(&self, points: usize) -> Vec<(f64, f64)> {
        if self.samples.is_empty() || points < 2 {
            return Vec::new();
        }
        let mut v = self.samples.clone();
        v.sort_unstable();
        let n = v.len();
        (0..points)
            .map(|i| {
                let q = i as f64 / (points - 1) as f64;
                let rank = (q * n as f64).ceil().max(1.0) as usize;
                (q, v[rank.min(n) - 1] as f64 * 1e-6)
            })
            .collect()
    }

    /// Fraction of the samples at most `s` seconds (microsecond resolution; NaN without samples).
    pub fn fraction_at_most(&self, s: f64) -> f64 {
        if self.samples.is_empty() {
            return f64::NAN;
        }
        let us = (s * 1e6).round() as u32;
        self.samples.iter().filter(|&&x| x <= us).count() as f64 / self.samples.len() as f64
    }

    pub fn reset(&mut self) {
        *self = RttStats::default();
    }

    /// Adds another set of samples (Chan et al.'s pairwise mean and variance update).
    pub fn merge(&mut self, o: &RttStats) {
        if o.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = o.clone();
            return;
        }
        let n = (self.n + o.n) as f64;
        let d = o.mean - self.mean;
        self.m2 += o.m2 + d * d * self.n as f64 * o.n as f64 / n;
        self.mean += d * o.n as f64 / n;
        self.n += o.n;
        self.min = self.min.min(o.min);
        self.samples.extend_from_slice(&o.samples);
    }
}

/// Jain's fairness index of a set of rates: (sum x)^2 / (n sum x^2).
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 { f64::NAN } else { s * s / (xs.len() as f64 * s2) }
}

/// A columnar table built row by row.
#[derive(Clone, Debug, Default)]
pub struct Columns {
    pub names: Vec<&'static str>,
    pub data: Vec<Vec<f64>>,
}

impl Columns {
    pub fn new(names: &[&'static str]) -> Self {
        Columns { names: names.to_vec(), data: names.iter().map(|_| Vec::new()).collect() }
    }
    pub fn push(&mut self, row: &[f64]) {
        debug_assert_eq!(row.len(), self.data.len());
        for (c, v) in self.data.iter_mut().zip(row) {
            c.push(*v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rtt_mean_var_percentiles() {
        let mut s = RttStats::default();
        for ms in [10u64, 20, 30, 40] {
            s.add(ms * 1_000_000);
        }
        assert!((s.mean_s() - 0.025).abs() < 1e-12);
        assert!((s.var_s2() - 1.25e-4).abs() < 1e-12);
        assert_eq!(s.percentiles(&[50.0, 95.0, 100.0]), vec![0.02, 0.04, 0.04]);
        assert_eq!(s.min_s(), 0.01);
        let (mut a, mut b) = (RttStats::default(), RttStats::default());
        a.add(10_000_000);
        a.add(20_000_000);
        b.add(30_000_000);
        b.add(40_000_000);
        a.merge(&b);
        assert!((a.mean_s() - s.mean_s()).abs() < 1e-15 && (a.var_s2() - s.var_s2()).abs() < 1e-15);
        assert_eq!((a.count(), a.percentiles(&[50.0]), a.min_s()), (4, vec![0.02], 0.01));
        // The CDF's ends are the minimum and the maximum; its middle the median.
        let cdf = a.cdf(3);
        assert_eq!(cdf, vec![(0.0, 0.01), (0.5, 0.02), (1.0, a.percentiles(&[100.0])[0])]);
        assert!(RttStats::default().cdf(101).is_empty());
    }

    #[test]
    fn jain_index() {
        assert!((jain(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    }
}
