//! Summary statistics and time series.

use crate::sketch::{bounds, bucket, Sketch};
use mpcc_core::Nanos;
use std::borrow::Cow;

/// Percentiles of a set of delays at microsecond resolution: from a quantile
/// sketch (`sketch.rs`: within [`crate::sketch::RELATIVE_ERROR`] of the exact ones,
/// memory bounded by the range of the values), or, with `exact_percentiles` on,
/// from every sample kept (4 bytes each).
#[derive(Clone, Debug, Default)]
pub struct Quantiles {
    /// Keep every sample (`exact_percentiles`) instead of the sketch.
    exact: bool,
    samples: Vec<u32>,
    sketch: Sketch,
    /// The run: `run_n` samples in `[run_lo, run_lo + run_len)` nanoseconds, not yet
    /// in the sketch. That range is one bucket's, lying between the sketch's minimum
    /// and maximum (or the zeros'), so each of its samples would only add one to that
    /// bucket's count: `fold_run` adds them together. A delay changes slowly from one
    /// sample to the next (a queue grows or drains by a packet), so most samples
    /// fall in the bucket of the one before; one subtraction and one comparison then
    /// replace the conversion to microseconds and the bucket's index and count.
    /// `run_len` 0: no run (with `exact_percentiles`, always). A run starts at the
    /// second sample in a row of a bucket (`last_bucket`, that of the latest sample
    /// outside the run): where delays jump from bucket to bucket, a sample costs
    /// a test more rather than a run's set-up.
    run_lo: u64,
    run_len: u64,
    run_n: u64,
    last_bucket: u32,
}

impl Quantiles {
    /// Empty, keeping every sample when `exact` (`exact_percentiles`).
    pub fn new(exact: bool) -> Self {
        Quantiles { exact, ..Default::default() }
    }

    #[inline]
    pub fn add(&mut self, ns: Nanos) {
        if ns.wrapping_sub(self.run_lo) < self.run_len {
            self.run_n += 1;
        } else {
            self.add_apart(ns);
        }
    }

    /// `add(0)`, for a caller that knows the sample is 0 (a packet that found its
    /// link idle): the zeros' count, whatever the run.
    #[inline]
    pub fn add_zero(&mut self) {
        if self.exact {
            self.samples.push(0);
        } else {
            self.sketch.add_zero();
        }
    }

    /// A sample outside the run: into the sketch (or the samples), and the run
    /// moved to its bucket if that lies between the minimum and the maximum.
    #[inline(always)]
    fn add_apart(&mut self, ns: Nanos) {
        // Microseconds in a u32: 71 minutes of delay is plenty, and half the memory.
        let us = (ns / 1000).min(u32::MAX as u64) as u32;
        if self.exact {
            self.samples.push(us);
            return;
        }
        self.fold_run();
        let i = bucket(us);
        self.sketch.add_in(us, i);
        if i != self.last_bucket {
            self.last_bucket = i;
            self.run_len = 0;
            return;
        }
        let (a, b) = bounds(i);
        // Zeros are counted apart, and move neither the minimum nor the maximum.
        if us == 0 || self.sketch.spans(a, b) {
            self.run_lo = a as u64 * 1000;
            // Every delay from 2^32 - 1 us on is counted as that.
            let end = if b == u32::MAX { u64::MAX } else { (b as u64 + 1) * 1000 - 1 };
            self.run_len = end - self.run_lo + 1;
        } else {
            self.run_len = 0;
        }
    }

    /// Counts the run's samples in the sketch: each in its bucket, as its first
    /// value (`run_lo`) would be.
    fn fold_run(&mut self) {
        if self.run_n > 0 {
            self.sketch.add_times((self.run_lo / 1000).min(u32::MAX as u64) as u32, self.run_n);
            self.run_n = 0;
        }
    }

    /// The sketch with the run counted: itself, or a copy.
    fn counted(&self) -> Cow<'_, Sketch> {
        if self.run_n == 0 {
            return Cow::Borrowed(&self.sketch);
        }
        let mut sketch = self.sketch.clone();
        sketch.add_times((self.run_lo / 1000) as u32, self.run_n);
        Cow::Owned(sketch)
    }

    pub fn count(&self) -> u64 {
        if self.exact {
            self.samples.len() as u64
        } else {
            self.sketch.count() + self.run_n
        }
    }

    /// Nearest rank of quantile `q` (0-1) among `n` samples, 1-based.
    fn rank(q: f64, n: usize) -> usize {
        ((q * n as f64).ceil().max(1.0) as usize).min(n)
    }

    /// Percentiles (0-100) by the nearest-rank method, seconds (microsecond resolution).
    pub fn percentiles(&self, ps: &[f64]) -> Vec<f64> {
        if !self.exact {
            let sketch = &*self.counted();
            let n = sketch.count() as usize;
            return ps.iter().map(|p| sketch.at_rank(Self::rank(p / 100.0, n) as u64) * 1e-6).collect();
        }
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
        if self.count() == 0 || points < 2 {
            return Vec::new();
        }
        let q = |i: usize| i as f64 / (points - 1) as f64;
        if !self.exact {
            let sketch = &*self.counted();
            let n = sketch.count() as usize;
            let ranks: Vec<u64> = (0..points).map(|i| Self::rank(q(i), n) as u64).collect();
            return sketch.at_ranks(&ranks).into_iter().enumerate().map(|(i, d)| (q(i), d * 1e-6)).collect();
        }
        let mut v = self.samples.clone();
        v.sort_unstable();
        let n = v.len();
        (0..points)
            .map(|i| {
                let q = q(i);
                let rank = (q * n as f64).ceil().max(1.0) as usize;
                (q, v[rank.min(n) - 1] as f64 * 1e-6)
            })
            .collect()
    }

    /// Fraction of the samples at most `s` seconds (microsecond resolution; NaN
    /// without samples). From the sketch, the samples count as their buckets'
    /// representatives (`Sketch::fraction_at_most`).
    pub fn fraction_at_most(&self, s: f64) -> f64 {
        if !self.exact {
            return self.counted().fraction_at_most((s * 1e6).round() as u32);
        }
        if self.samples.is_empty() {
            return f64::NAN;
        }
        let us = (s * 1e6).round() as u32;
        self.samples.iter().filter(|&&x| x <= us).count() as f64 / self.samples.len() as f64
    }

    /// Forgets the samples, keeping the mode and the sketch's array.
    pub fn reset(&mut self) {
        self.samples = Vec::new();
        self.sketch.clear();
        (self.run_len, self.run_n) = (0, 0);
    }

    /// Adds another set of samples (of the same mode).
    pub fn merge(&mut self, o: &Quantiles) {
        self.samples.extend_from_slice(&o.samples);
        // Folded first: the merged samples may move the minimum or maximum.
        self.fold_run();
        self.run_len = 0;
        self.sketch.merge(&o.counted());
    }

    /// Heap bytes held (samples or sketch).
    pub fn heap_bytes(&self) -> usize {
        self.samples.capacity() * std::mem::size_of::<u32>() + self.sketch.heap_bytes()
    }
}

/// Delay samples (RTT, application delay, page-load time) of one flow: count, mean,
/// variance and minimum, exact; percentiles, the CDF and fractions within a bound
/// from [`Quantiles`] (the sketch, or every sample with `exact_percentiles`).
///
/// The mean and variance come from exact integer sums of the samples and of their
/// squares (nanoseconds): no division per sample (Welford's running mean divided
/// by the count for every one, the largest single cost of a sample), and merging
/// is adding. The squares' sum counts its carries beyond 128 bits (`sq_hi`), which
/// takes some 2^44 samples of an hour each; only then are mean and variance approximate.
/// The count is the quantiles' (`Quantiles::count`: each sample is counted there
/// once), and the minimum starts at `Nanos::MAX` (read only with samples), so
/// that a sample updates neither a count of its own nor tests for the first one.
#[derive(Clone, Debug)]
pub struct RttStats {
    sum: u128,
    sq: u128,
    sq_hi: u64,
    min: Nanos,
    q: Quantiles,
}

impl Default for RttStats {
    fn default() -> Self {
        RttStats { sum: 0, sq: 0, sq_hi: 0, min: Nanos::MAX, q: Quantiles::default() }
    }
}

impl RttStats {
    /// Empty statistics, keeping every sample when `exact` (`exact_percentiles`).
    pub fn new(exact: bool) -> Self {
        RttStats { q: Quantiles::new(exact), ..Default::default() }
    }

    #[inline(always)]
    pub fn add(&mut self, rtt: Nanos) {
        let x = rtt as u128;
        self.sum += x;
        let (sq, carry) = self.sq.overflowing_add(x * x);
        self.sq = sq;
        // A carry past 128 bits takes some 2^44 samples: a branch never taken
        // rather than an addition stored each time.
        if carry {
            self.sq_hi += 1;
        }
        // A test rather than `min`: a new minimum is rare, and an untaken branch
        // stores nothing.
        if rtt < self.min {
            self.min = rtt;
        }
        self.q.add(rtt);
    }

    /// `add(now - t)` for each `t` of `ts` in turn, with the sums and the minimum
    /// kept in registers over the run rather than stored back after each sample.
    #[inline]
    pub fn add_since(&mut self, now: Nanos, ts: &[Nanos]) {
        let (mut sum, mut sq, mut sq_hi, mut min) = (self.sum, self.sq, self.sq_hi, self.min);
        for &t in ts {
            let rtt = now - t;
            let x = rtt as u128;
            sum += x;
            let (s, carry) = sq.overflowing_add(x * x);
            sq = s;
            sq_hi += carry as u64;
            if rtt < min {
                min = rtt;
            }
            self.q.add(rtt);
        }
        (self.sum, self.sq, self.sq_hi, self.min) = (sum, sq, sq_hi, min);
    }

    pub fn count(&self) -> u64 {
        self.q.count()
    }

    /// `sum / n` as `(m, b)`: the integer part and the remainder, `sum = m n + b`.
    fn mean_parts(&self) -> (u128, u128) {
        let n = self.count() as u128;
        (self.sum / n, self.sum % n)
    }

    pub fn mean_s(&self) -> f64 {
        let count = self.count();
        if count == 0 {
            return f64::NAN;
        }
        let (m, b) = self.mean_parts();
        (m as f64 + b as f64 / count as f64) / 1e9
    }

    /// Population variance, s^2. With `sum = m n + b`, the sum of squared deviations
    /// is `T - b^2 / n` where `T = sq - m (n m + 2 b)` is an integer (that of the
    /// deviations from `m`); only the last steps round.
    pub fn var_s2(&self) -> f64 {
        let count = self.count();
        if count == 0 {
            return f64::NAN;
        }
        let n = count as f64;
        if self.sq_hi != 0 {
            let sq = self.sq_hi as f64 * 2f64.powi(128) + self.sq as f64;
            let mean = self.sum as f64 / n;
            return (sq / n - mean * mean).max(0.0) / 1e18;
        }
        let (m, b) = self.mean_parts();
        // m (n m + 2 b) <= sum^2 / n <= sq: no overflow.
        let t = self.sq - m * (self.sum + b);
        let (c, e) = (b * b / count as u128, b * b % count as u128);
        ((t - c) as f64 - e as f64 / n) / n / 1e18
    }

    pub fn min_s(&self) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.min as f64 * 1e-9
        }
    }

    /// Percentiles (0-100) by the nearest-rank method, seconds (microsecond resolution).
    pub fn percentiles(&self, ps: &[f64]) -> Vec<f64> {
        self.q.percentiles(ps)
    }

    /// See [`Quantiles::cdf`].
    pub fn cdf(&self, points: usize) -> Vec<(f64, f64)> {
        self.q.cdf(points)
    }

    /// See [`Quantiles::fraction_at_most`].
    pub fn fraction_at_most(&self, s: f64) -> f64 {
        self.q.fraction_at_most(s)
    }

    /// Forgets the samples (the end of the warm-up), keeping the mode and the
    /// sketch's array.
    pub fn reset(&mut self) {
        let mut q = std::mem::take(&mut self.q);
        q.reset();
        *self = RttStats { q, ..Default::default() };
    }

    /// Adds another set of samples: the sums add up.
    pub fn merge(&mut self, o: &RttStats) {
        if o.count() == 0 {
            return;
        }
        if self.count() == 0 {
            *self = o.clone(); // o's mode too (a flow's merge starts from the default)
            return;
        }
        self.min = self.min.min(o.min);
        self.sum += o.sum;
        let (sq, carry) = self.sq.overflowing_add(o.sq);
        self.sq = sq;
        self.sq_hi += o.sq_hi + carry as u64;
        self.q.merge(&o.q);
    }

    /// Heap bytes held (samples or sketch).
    pub fn heap_bytes(&self) -> usize {
        self.q.heap_bytes()
    }
}

/// Jain's fairness index of a set of rates: (sum x)^2 / (n sum x^2).
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        f64::NAN
    } else {
        s * s / (xs.len() as f64 * s2)
    }
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

    /// Samples counted through the run (`Quantiles::add`) leave the sketch as adding
    /// each one's microseconds to it does: counts, minimum, maximum, zeros, and the
    /// array's extent (its heap bytes), whatever the mix of slow drifts, jumps,
    /// zeros and values past 2^32 us; answers and merges included.
    #[test]
    fn runs_change_no_count() {
        let (mut state, mut ns) = (0x2545_f491_4f6c_dd1du64, 5_000_000u64);
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut parts: Vec<(Quantiles, Sketch)> = Vec::new();
        for part in 0..4 {
            let (mut q, mut reference) = (Quantiles::new(false), Sketch::default());
            for _ in 0..50_000 {
                let r = next();
                ns = match r % 16 {
                    0 => 0,
                    1 => r >> 20,              // a jump, anywhere up to 2^44 ns
                    2 => u64::MAX - (r >> 40), // past 2^32 - 1 us
                    3 => ns / 2,               // a queue halved
                    _ => (ns + (r >> 8) % 3_000).saturating_sub(1_400 + part * 100), // a drift
                };
                let samples = if r >> 60 == 0 { 1 + (r >> 50) % 300 } else { 1 };
                for _ in 0..samples {
                    q.add(ns);
                    reference.add((ns / 1000).min(u32::MAX as u64) as u32);
                }
                if r >> 56 == 1 {
                    q.add_zero();
                    reference.add(0);
                }
            }
            assert_eq!(q.count(), reference.count());
            let counted = q.counted();
            assert_eq!(format!("{:?}", *counted), format!("{reference:?}"));
            assert_eq!(q.heap_bytes(), reference.heap_bytes());
            let ps = [0.0, 1.0, 25.0, 50.0, 90.0, 99.0, 100.0];
            let direct: Vec<f64> = ps
                .iter()
                .map(|p| reference.at_rank(Quantiles::rank(p / 100.0, reference.count() as usize) as u64) * 1e-6)
                .collect();
            assert_eq!(q.percentiles(&ps), direct);
            parts.push((q, reference));
        }
        let (mut q, mut reference) = parts.remove(0);
        for (o, o_ref) in &parts {
            q.merge(o);
            reference.merge(o_ref);
            q.add(7_777_777);
            reference.add(7_777);
        }
        assert_eq!(format!("{:?}", *q.counted()), format!("{reference:?}"));
    }

    #[test]
    fn rtt_mean_var_percentiles() {
        let mut s = RttStats::new(true);
        for ms in [10u64, 20, 30, 40] {
            s.add(ms * 1_000_000);
        }
        assert!((s.mean_s() - 0.025).abs() < 1e-12);
        assert!((s.var_s2() - 1.25e-4).abs() < 1e-12);
        assert_eq!(s.percentiles(&[50.0, 95.0, 100.0]), vec![0.02, 0.04, 0.04]);
        assert_eq!(s.min_s(), 0.01);
        let (mut a, mut b) = (RttStats::new(true), RttStats::new(true));
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

    /// Mean and variance against the exact rationals `sum / n` and
    /// `(n sum_sq - sum^2) / n^2` (u128, no rounding), converted once: within 4 ulps
    /// (the two conversions' and the code's last roundings). Welford's running update
    /// was 2e-13 off over the 5 M samples of the LIA benchmark. A merge gives the
    /// same bits as adding every sample to one.
    #[test]
    fn mean_and_variance_are_the_exact_ones() {
        let mut x = 7u64;
        let mut next = |range: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 20) % range
        };
        for (n, base, range) in
            [(1, 5, 1), (2, 10_000_000, 3), (1000, 20_000_000, 30_000_000), (4321, 1, 10_000_000_000)]
        {
            let samples: Vec<u64> = (0..n).map(|_| base + next(range)).collect();
            let (mut all, mut a, mut b) = (RttStats::new(false), RttStats::new(false), RttStats::new(false));
            for (i, &s) in samples.iter().enumerate() {
                all.add(s);
                if i < n / 3 {
                    a.add(s)
                } else {
                    b.add(s)
                }
            }
            let (sum, sq): (u128, u128) =
                (samples.iter().map(|&s| s as u128).sum(), samples.iter().map(|&s| s as u128 * s as u128).sum());
            let n = n as u128;
            let mean = sum as f64 / n as f64 / 1e9;
            let var = (n * sq - sum * sum) as f64 / (n * n) as f64 / 1e18;
            let close = |got: f64, want: f64| (got - want).abs() <= want.abs() * 4.0 * f64::EPSILON;
            assert!(close(all.mean_s(), mean), "{} against {mean}", all.mean_s());
            assert!(close(all.var_s2(), var), "{} against {var}", all.var_s2());
            a.merge(&b);
            assert_eq!(
                (a.count(), a.mean_s().to_bits(), a.var_s2().to_bits(), a.min_s()),
                (all.count(), all.mean_s().to_bits(), all.var_s2().to_bits(), all.min_s())
            );
        }
        // Exact binary fractions come out exactly: 1, 2, 3, 6 ns -> mean 3, variance 3.5.
        let mut s = RttStats::default();
        [1, 2, 3, 6].into_iter().for_each(|x| s.add(x));
        assert_eq!((s.mean_s(), s.var_s2()), (3.0 / 1e9, 3.5 / 1e18));
        // Beyond 128 bits of squares (delays of 2^62 and 3 x 2^62 ns): approximate.
        let mut s = RttStats::default();
        (0..8).for_each(|i| s.add(if i % 2 == 0 { 1 << 62 } else { 3 << 62 }));
        assert!(s.sq_hi > 0);
        assert_eq!(s.mean_s(), 2f64.powi(63) / 1e9);
        assert!((s.var_s2() / (2f64.powi(124) / 1e18) - 1.0).abs() < 1e-12, "{}", s.var_s2());
    }

    #[test]
    fn sketch_and_exact_agree_within_the_error() {
        use crate::sketch::RELATIVE_ERROR;
        // Two subflows' RTTs, one of them with a heavy tail, merged like a flow's.
        let (mut e1, mut e2, mut k1, mut k2) =
            (RttStats::new(true), RttStats::new(true), RttStats::new(false), RttStats::new(false));
        let mut x = 1u64;
        for i in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let a = 20_000_000 + (x >> 40) % 30_000_000; // 20-50 ms
            let b = if i % 50 == 0 { 1_000_000_000 + (x >> 34) % 3_000_000_000 } else { 150_000 + (x >> 45) % 200_000 };
            e1.add(a);
            k1.add(a);
            e2.add(b);
            k2.add(b);
        }
        e1.merge(&e2);
        k1.merge(&k2);
        assert_eq!(
            (e1.count(), e1.mean_s(), e1.var_s2(), e1.min_s()),
            (k1.count(), k1.mean_s(), k1.var_s2(), k1.min_s())
        );
        let ps = [0.0, 1.0, 25.0, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0];
        for (a, e) in k1.percentiles(&ps).into_iter().zip(e1.percentiles(&ps)) {
            assert!((a - e).abs() <= e * RELATIVE_ERROR * (1.0 + 1e-9), "{a} against {e}");
        }
        for ((qa, a), (qe, e)) in k1.cdf(201).into_iter().zip(e1.cdf(201)) {
            assert_eq!(qa, qe);
            assert!((a - e).abs() <= e * RELATIVE_ERROR * (1.0 + 1e-9), "q {qa}: {a} against {e}");
        }
        assert_eq!(k1.cdf(201).len(), 201);
        for t in [0.0001, 0.02, 0.03, 0.5, 2.0, 10.0] {
            let (lo, hi) =
                (e1.fraction_at_most(t / (1.0 + RELATIVE_ERROR)), e1.fraction_at_most(t / (1.0 - RELATIVE_ERROR)));
            let f = k1.fraction_at_most(t);
            assert!(lo <= f && f <= hi, "at most {t} s: {f} outside [{lo}, {hi}]");
        }
        // The sketch holds no sample; the exact statistics every one.
        assert!(k1.heap_bytes() < 64 * 1024 && e1.heap_bytes() >= 40_000 * 4);
        // A reset keeps the mode.
        k1.reset();
        e1.reset();
        k1.add(5_000_000);
        e1.add(5_000_000);
        assert_eq!((k1.count(), k1.percentiles(&[50.0])), (1, vec![0.005]));
        assert_eq!(k1.percentiles(&[50.0]), e1.percentiles(&[50.0]));
        assert!(k1.q.samples.is_empty() && e1.q.samples.len() == 1);
        assert!(RttStats::default().percentiles(&[50.0])[0].is_nan() && RttStats::default().cdf(3).is_empty());
    }

    #[test]
    fn jain_index() {
        assert!((jain(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    }
}
