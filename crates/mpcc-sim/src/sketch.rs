//! A streaming quantile sketch with a relative-error guarantee: memory bounded by
//! the range of the values, not by how many there are.
//!
//! The idea is DDSketch's (Masson, Rim, Lee, "DDSketch: A Fast and Fully-Mergeable
//! Quantile Sketch with Relative-Error Guarantees", VLDB 2019): count the values in
//! buckets whose width is a bounded fraction of the values they hold, and answer a
//! quantile with a representative of the bucket holding the sample of that rank.
//! Whatever the distribution, the answer is then within a fixed *relative* error of
//! the exact quantile, and two sketches merge exactly by adding their counts.
//!
//! The values here are whole microseconds in a `u32` (the resolution the exact
//! percentiles have always had), so the bucket of a value is found with integer
//! operations alone, no logarithm: the position of its highest set bit (the octave)
//! and the next [`SUB_BITS`] bits below it (the sub-bucket), a log-linear layout
//! as in HDR histograms. Every octave `[2^e, 2^(e+1))` with `e >= SUB_BITS` is split
//! into `2^SUB_BITS` buckets of width `2^(e - SUB_BITS)`; values below
//! `2^(SUB_BITS + 1)` (256 us) have a bucket each and are exact. A bucket holding
//! the integers `[a, b]` is represented by `2ab / (a + b)`, whose relative
//! distance to any value of the bucket is at most `(b - a) / (a + b)` <
//! `2^-(SUB_BITS + 1)` = [`RELATIVE_ERROR`].
//!
//! So every answer is the answer for the samples each moved to its bucket's
//! representative, by at most [`RELATIVE_ERROR`] of its value:
//! - a quantile (nearest rank) is within `RELATIVE_ERROR` of the exact one, and
//!   rank 1 and rank n are the exact minimum and maximum;
//! - the fraction of samples at most `t` lies between the exact fractions at most
//!   `t / (1 + RELATIVE_ERROR)` and at most `t / (1 - RELATIVE_ERROR)`.
//!
//! Recording a value is O(1): an index computed from the bits, a bounds check and
//! an increment. The counts live in one array covering the buckets seen so far; a
//! value outside it grows the array by at least half its length (rare: a few times
//! per sketch), so memory is at most about twice the buckets between the smallest
//! and the largest value, and at most [`BUCKETS`] in all (13 KiB). Counts are
//! `u32`, half the memory of `u64`; a bucket that passes 2^32 samples (hours of a
//! multi-gigabit flow in one bucket) is carried into a side list, so no count is
//! ever lost.

/// Sub-bucket bits: 2^7 = 128 buckets per octave.
pub const SUB_BITS: u32 = 7;
const SUB: u32 = 1 << SUB_BITS;
/// The relative error of every quantile: 2^-8, about 0.39 %.
pub const RELATIVE_ERROR: f64 = 1.0 / (2 * SUB) as f64;
/// Buckets needed for every `u32` value.
pub const BUCKETS: u32 = bucket(u32::MAX) + 1;
/// Buckets allocated at the first value, around it.
const FIRST_BUCKETS: u32 = 16;

/// Index of the bucket holding `v`: monotone in `v`.
#[inline]
pub const fn bucket(v: u32) -> u32 {
    if v < SUB {
        return v;
    }
    let shift = 31 - v.leading_zeros() - SUB_BITS; // octave - SUB_BITS
    (shift << SUB_BITS) + (v >> shift)
}

/// The smallest and the largest value of bucket `i`.
#[inline]
pub const fn bounds(i: u32) -> (u32, u32) {
    if i < 2 * SUB {
        return (i, i);
    }
    let shift = (i >> SUB_BITS) - 1;
    let m = i - (shift << SUB_BITS); // in [SUB, 2 SUB)
    let lo = m << shift;
    (lo, lo + ((1 << shift) - 1))
}

/// The value bucket `i` stands for: `2ab / (a + b)` for its bounds `[a, b]`, the
/// point of least largest relative distance to them.
#[inline]
pub fn representative(i: u32) -> f64 {
    let (a, b) = bounds(i);
    if a == b {
        return a as f64;
    }
    let (a, b) = (a as f64, b as f64);
    2.0 * a * b / (a + b)
}

/// Counts of `u32` values (microseconds) by bucket, with the exact count, minimum and
/// maximum. See the module documentation for the guarantees.
#[derive(Clone, Debug)]
pub struct Sketch {
    /// Bucket of `counts[0]`.
    lo: u32,
    /// Counts modulo 2^32 ...
    counts: Vec<u32>,
    /// ... and (bucket, 2^32 samples more) for the buckets that passed it.
    wraps: Vec<(u32, u64)>,
    /// The minimum and maximum of the values in the buckets (the zeros apart):
    /// u32::MAX and 0 while there are none (a bucket's value is at least 1, so
    /// `max > 0` says there is one). How many there are is not kept but summed
    /// from the counts when asked (`in_buckets`): rarely, where a count of its own
    /// cost an increment per value.
    min: u32,
    max: u32,
    /// Values of 0, counted apart: most of a packet's hops find their link idle (a
    /// queueing delay of 0), and a counter of its own costs one increment where a
    /// bucket costs a load, an add and a store in the array. Bucket 0 holds only 0
    /// and stands for 0, so every answer is what counting them in it would give.
    zeros: u64,
}

impl Default for Sketch {
    fn default() -> Self {
        Sketch { lo: 0, counts: Vec::new(), wraps: Vec::new(), min: u32::MAX, max: 0, zeros: 0 }
    }
}

impl Sketch {
    #[inline]
    pub fn add(&mut self, v: u32) {
        self.add_in(v, bucket(v));
    }

    /// `add(0)`.
    #[inline]
    pub fn add_zero(&mut self) {
        self.zeros += 1;
    }

    /// `add` for `v` in bucket `i` (`bucket(v)`, which the caller has).
    #[inline]
    pub fn add_in(&mut self, v: u32, i: u32) {
        debug_assert_eq!(i, bucket(v));
        if v == 0 {
            self.zeros += 1;
        } else {
            self.add_to_bucket(v, i);
        }
    }

    /// Counts `v` in its bucket `i` (0 included: what `add` would do without the zeros' counter).
    #[inline]
    fn add_to_bucket(&mut self, v: u32, i: u32) {
        let wrapped = {
            let c = match self.counts.get_mut(i.wrapping_sub(self.lo) as usize) {
                Some(c) => c,
                None => self.grow_to(i),
            };
            *c = c.wrapping_add(1);
            *c == 0
        };
        if wrapped {
            self.carry(i, 1);
        }
        // Tests rather than `min`/`max`: a new extreme is rare once a few values are
        // in, and an untaken branch stores nothing.
        if v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
    }

    /// Adds `v` `times` times: the same counts, minimum and maximum as that many
    /// `add`s.
    pub fn add_times(&mut self, v: u32, times: u64) {
        if v == 0 {
            self.zeros += times;
            return;
        }
        if times == 0 {
            return;
        }
        let i = bucket(v);
        let c = match self.counts.get_mut(i.wrapping_sub(self.lo) as usize) {
            Some(c) => c,
            None => self.grow_to(i),
        };
        let total = *c as u64 + times;
        *c = total as u32;
        if total >> 32 > 0 {
            self.carry(i, total >> 32);
        }
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Bucket `i`'s count passed 2^32 `times` more times.
    #[cold]
    fn carry(&mut self, i: u32, times: u64) {
        match self.wraps.iter_mut().find(|w| w.0 == i) {
            Some(w) => w.1 += times,
            None => self.wraps.push((i, times)),
        }
    }

    /// Samples in bucket `lo + k`.
    #[inline]
    fn count_at(&self, k: usize) -> u64 {
        let i = self.lo + k as u32;
        self.counts[k] as u64 + self.wraps.iter().filter(|w| w.0 == i).map(|w| w.1 << 32).sum::<u64>()
    }

    /// Widens the array to hold bucket `i` (by at least half its length, within
    /// `[0, BUCKETS)`); returns that bucket's count.
    #[cold]
    fn grow_to(&mut self, i: u32) -> &mut u32 {
        let len = self.counts.len() as u32;
        let (lo, hi) = if len == 0 {
            let lo = i.saturating_sub(FIRST_BUCKETS / 2);
            (lo, (lo + FIRST_BUCKETS).min(BUCKETS))
        } else {
            let slack = (len / 2).max(FIRST_BUCKETS);
            let hi = self.lo + len;
            if i < self.lo {
                (i.saturating_sub(slack), hi)
            } else {
                (self.lo, (i + 1).saturating_add(slack).min(BUCKETS))
            }
        };
        let mut counts = vec![0u32; (hi - lo) as usize];
        let at = (self.lo.saturating_sub(lo)) as usize;
        if len > 0 {
            counts[at..at + len as usize].copy_from_slice(&self.counts);
        }
        (self.lo, self.counts) = (lo, counts);
        &mut self.counts[(i - lo) as usize]
    }

    /// Whether values `a..=b` (not 0) lie between the minimum and the maximum of
    /// those counted: adding any of them would move neither.
    #[inline]
    pub fn spans(&self, a: u32, b: u32) -> bool {
        self.min <= a && b <= self.max
    }

    pub fn count(&self) -> u64 {
        self.in_buckets() + self.zeros
    }

    /// Values in the buckets: the counts, and 2^32 for each time one wrapped.
    fn in_buckets(&self) -> u64 {
        let counted: u64 = self.counts.iter().map(|&c| c as u64).sum();
        counted + self.wraps.iter().map(|w| w.1 << 32).sum::<u64>()
    }

    /// The smallest and the largest value (zeros included); (0, 0) when empty.
    fn range(&self) -> (u32, u32) {
        match (self.zeros > 0, self.max > 0) {
            (_, false) => (0, 0),
            (true, true) => (0, self.max),
            (false, true) => (self.min, self.max),
        }
    }

    /// Forgets every value, keeping the array.
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.wraps.clear();
        (self.min, self.max) = (u32::MAX, 0);
        self.zeros = 0;
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * std::mem::size_of::<u32>() + self.wraps.capacity() * std::mem::size_of::<(u32, u64)>()
    }

    /// The value of rank `rank` (1 = the smallest, n = the largest; clamped to
    /// [1, n]), within [`RELATIVE_ERROR`] of the exact one; NaN when empty.
    pub fn at_rank(&self, rank: u64) -> f64 {
        self.at_ranks(&[rank])[0]
    }

    /// [`Sketch::at_rank`] of non-decreasing ranks, in one pass over the buckets.
    pub fn at_ranks(&self, ranks: &[u64]) -> Vec<f64> {
        let (n, (min, max)) = (self.count(), self.range());
        let mut k = 0usize;
        let mut below = self.zeros; // samples of 0 and in the buckets before k
        ranks
            .iter()
            .map(|&r| {
                if n == 0 {
                    return f64::NAN;
                }
                let r = r.clamp(1, n);
                if r == 1 {
                    return min as f64;
                }
                if r == n {
                    return max as f64;
                }
                if r <= self.zeros {
                    return 0.0;
                }
                debug_assert!(r > below, "ranks must not decrease");
                while below + self.count_at(k) < r {
                    below += self.count_at(k);
                    k += 1;
                }
                representative(self.lo + k as u32).clamp(min as f64, max as f64)
            })
            .collect()
    }

    /// Fraction of the values at most `t` (counted as their buckets' representatives:
    /// between the exact fractions at most `t / (1 + RELATIVE_ERROR)` and
    /// `t / (1 - RELATIVE_ERROR)`); NaN when empty.
    pub fn fraction_at_most(&self, t: u32) -> f64 {
        let (n, (min, max)) = (self.count(), self.range());
        if n == 0 {
            return f64::NAN;
        }
        if t < min {
            return 0.0;
        }
        if t >= max {
            return 1.0;
        }
        let mut at_most = self.zeros;
        for k in 0..self.counts.len() {
            if representative(self.lo + k as u32) <= t as f64 {
                at_most += self.count_at(k);
            }
        }
        at_most as f64 / n as f64
    }

    /// Adds another sketch's values: the same as adding them one by one.
    pub fn merge(&mut self, o: &Sketch) {
        self.zeros += o.zeros;
        if o.max == 0 {
            return;
        }
        let first = (0..o.counts.len()).find(|&k| o.count_at(k) > 0).expect("a count") as u32;
        let last = (0..o.counts.len()).rfind(|&k| o.count_at(k) > 0).expect("a count") as u32;
        self.grow_to_cover(o.lo + first, o.lo + last);
        for k in first..=last {
            let i = o.lo + k;
            let c = &mut self.counts[(i - self.lo) as usize];
            let sum = *c as u64 + o.counts[k as usize] as u64;
            *c = sum as u32;
            if sum >> 32 > 0 {
                self.carry(i, sum >> 32);
            }
        }
        for &(i, times) in &o.wraps {
            self.carry(i, times);
        }
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }

    fn grow_to_cover(&mut self, a: u32, b: u32) {
        for i in [a, b] {
            if (i.wrapping_sub(self.lo) as usize) >= self.counts.len() {
                self.grow_to(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact nearest-rank value of rank r (1-based) of sorted `v`.
    fn exact(v: &[u32], r: u64) -> f64 {
        v[(r as usize).clamp(1, v.len()) - 1] as f64
    }

    fn within(approx: f64, exact: f64) -> bool {
        (approx - exact).abs() <= exact * RELATIVE_ERROR * (1.0 + 1e-12)
    }

    /// Many adds at once, across the 2^32 wrap of a bucket's counter, read as the
    /// same adds made in two steps.
    #[test]
    fn adding_many_times_at_once_wraps_as_single_adds() {
        let (mut once, mut steps) = (Sketch::default(), Sketch::default());
        once.add(40);
        once.add_times(7, (1 << 32) + 5);
        steps.add(40);
        steps.add_times(7, u32::MAX as u64);
        for _ in 0..6 {
            steps.add(7);
        }
        assert_eq!(once.count(), steps.count());
        let ranks = [1, 2, 1 << 31, (1 << 32) + 5, (1 << 32) + 6];
        assert_eq!(once.at_ranks(&ranks), steps.at_ranks(&ranks));
        assert_eq!(once.fraction_at_most(10).to_bits(), steps.fraction_at_most(10).to_bits());
        assert_eq!(
            once.fraction_at_most(7).to_bits(),
            (((1u64 << 32) + 5) as f64 / ((1u64 << 32) + 6) as f64).to_bits()
        );
    }

    #[test]
    fn buckets_are_contiguous_and_bounded() {
        // Every bucket's bounds follow the previous one's, and hold exactly the values
        // mapped to it; its relative width keeps the representative within the error.
        let mut next = 0u32;
        for i in 0..BUCKETS {
            let (a, b) = bounds(i);
            assert_eq!(a, next, "bucket {i}");
            assert!(b >= a);
            assert_eq!((bucket(a), bucket(b)), (i, i), "bucket {i}: [{a}, {b}]");
            if a > 0 {
                assert!(bucket(a - 1) == i - 1);
            }
            let r = representative(i);
            assert!(within(r, a as f64) && within(r, b as f64), "bucket {i}: [{a}, {b}] -> {r}");
            next = b.wrapping_add(1);
        }
        assert_eq!(next, 0, "the last bucket ends at u32::MAX");
        assert_eq!(bounds(BUCKETS - 1).1, u32::MAX);
        // Below 256 us every value is its own bucket.
        for v in 0..2 * SUB {
            assert_eq!(bounds(bucket(v)), (v, v));
        }
    }

    /// Checks every percentile 0..=100 in steps of 0.5 and a few thresholds of a set of values.
    fn check(values: &[u32]) {
        let mut s = Sketch::default();
        for &v in values {
            s.add(v);
        }
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let n = sorted.len() as u64;
        assert_eq!(s.count(), n);
        for i in 0..=200 {
            let r = ((i as f64 / 200.0) * n as f64).ceil().max(1.0) as u64;
            let (a, e) = (s.at_rank(r), exact(&sorted, r));
            assert!(within(a, e), "rank {r} of {n}: {a} against {e}");
        }
        assert_eq!(s.at_rank(1), sorted[0] as f64);
        assert_eq!(s.at_rank(n), sorted[n as usize - 1] as f64);
        for &t in sorted.iter().step_by(sorted.len() / 50 + 1) {
            let f = s.fraction_at_most(t);
            let frac = |x: f64| sorted.iter().filter(|&&v| v as f64 <= x).count() as f64 / n as f64;
            let (lo, hi) = (frac(t as f64 / (1.0 + RELATIVE_ERROR)), frac(t as f64 / (1.0 - RELATIVE_ERROR)));
            assert!(lo <= f && f <= hi, "at most {t}: {f} outside [{lo}, {hi}]");
        }
    }

    /// Zeros counted apart read as counted in bucket 0 (which holds only 0 and stands
    /// for 0): quantiles, fractions and counts, bit for bit, through merges and a clear.
    #[test]
    fn zeros_counted_apart_read_as_counted_in_their_bucket() {
        let mut next = rng(7);
        let (mut apart, mut other, mut reference) = (Sketch::default(), Sketch::default(), Sketch::default());
        for round in 0..4 {
            for _ in 0..20_000 {
                let r = next();
                let v = if r.is_multiple_of(3) { 0 } else { (r >> 20 & 0xff_ffff) as u32 / 1000 }; // a third zeros
                if r >> 8 & 1 == 1 {
                    other.add(v)
                } else {
                    apart.add(v)
                }
                reference.add_to_bucket(v, bucket(v));
            }
            if round == 1 {
                apart.merge(&other);
                other.clear();
            }
        }
        apart.merge(&other);
        apart.add_times(0, 5);
        for _ in 0..5 {
            reference.add_to_bucket(0, 0);
        }
        assert!(apart.zeros > 0 && reference.zeros == 0);
        assert_eq!(apart.count(), reference.count());
        let ranks: Vec<u64> = (0..=100).map(|k| (k * reference.count() / 100).max(1)).collect();
        assert_eq!(apart.at_ranks(&ranks), reference.at_ranks(&ranks));
        for t in [0, 1, 5, 100, 5_000, 20_000] {
            assert_eq!(apart.fraction_at_most(t).to_bits(), reference.fraction_at_most(t).to_bits());
        }
        apart.clear();
        assert_eq!(apart.count(), 0);
        assert!(apart.at_rank(1).is_nan());
    }

    /// A deterministic generator (SplitMix64) for the synthetic distributions.
    fn rng(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }

    #[test]
    fn adversarial_distributions_stay_within_the_error() {
        let mut r = rng(7);
        let uniform01 = |r: &mut dyn FnMut() -> u64| (r() >> 11) as f64 / (1u64 << 53) as f64;
        // Heavy tail: Pareto with shape 0.5 over the whole u32 range.
        let pareto: Vec<u32> =
            (0..50_000).map(|_| (100.0 / (1.0 - uniform01(&mut r)).powf(2.0)).min(u32::MAX as f64) as u32).collect();
        check(&pareto);
        // Log-uniform over 1 us .. 4295 s: every octave populated.
        let loguniform: Vec<u32> = (0..50_000).map(|_| (2f64.powf(32.0 * uniform01(&mut r))) as u32).collect();
        check(&loguniform);
        // Two far-apart modes (a queue that is empty or full), most mass at one.
        let bimodal: Vec<u32> = (0..20_000)
            .map(|i| if i % 97 == 0 { 2_000_000 + (r() % 1000) as u32 } else { 40_000 + (r() % 50) as u32 })
            .collect();
        check(&bimodal);
        // Values on bucket edges, zeros, u32::MAX, one value, and a constant.
        let edges: Vec<u32> = (0..BUCKETS).flat_map(|i| [bounds(i).0, bounds(i).1]).chain([0, 0, u32::MAX]).collect();
        check(&edges);
        check(&[12_345]);
        check(&[1_000_000; 1000]);
        // Increasing and decreasing: the array grows at both ends.
        let up: Vec<u32> = (0..30_000u32).map(|i| 300 + i * 97).collect();
        check(&up);
        check(&up.iter().rev().copied().collect::<Vec<_>>());
    }

    #[test]
    fn merging_equals_adding() {
        let mut r = rng(3);
        let values: Vec<u32> = (0..10_000).map(|_| (r() % 5_000_000) as u32).collect();
        let (mut all, mut a, mut b) = (Sketch::default(), Sketch::default(), Sketch::default());
        for (i, &v) in values.iter().enumerate() {
            all.add(v);
            if i % 3 == 0 {
                a.add(v)
            } else {
                b.add(v)
            }
        }
        // Merged into sketches that hold only a small and only a large value, so that
        // merging grows the array at either end.
        let (mut c, mut d) = (Sketch::default(), Sketch::default());
        c.add(7);
        d.add(4_000_000_000);
        a.merge(&b);
        a.merge(&Sketch::default());
        d.merge(&a);
        c.merge(&d);
        all.add(7);
        all.add(4_000_000_000);
        assert_eq!(c.count(), all.count());
        let ranks: Vec<u64> = (1..=all.count()).step_by(37).collect();
        assert_eq!(c.at_ranks(&ranks), all.at_ranks(&ranks));
        assert_eq!(c.fraction_at_most(2_500_000), all.fraction_at_most(2_500_000));
        let mut empty = Sketch::default();
        empty.merge(&all);
        assert_eq!(empty.at_rank(5000), all.at_rank(5000));
    }

    #[test]
    fn counts_past_2_to_the_32_are_carried() {
        let mut s = Sketch::default();
        for v in [1000, 2000, 3000] {
            s.add(v);
        }
        // Pretend bucket(2000) already holds 2^32 - 1 samples beyond the one added.
        let k = (bucket(2000) - s.lo) as usize;
        s.counts[k] = u32::MAX;
        s.add(2000); // wraps
        s.add(2000);
        assert_eq!(s.count_at(k), (1u64 << 32) + 1);
        let n = s.count();
        assert_eq!(n, (1u64 << 32) + 3);
        let r = representative(bucket(2000));
        assert_eq!((s.at_rank(1), s.at_rank(2), s.at_rank(n - 1), s.at_rank(n)), (1000.0, r, r, 3000.0));
        assert!((s.fraction_at_most(2010) - (n - 1) as f64 / n as f64).abs() < 1e-15);
        // Merging carries too: twice the counts.
        let mut m = s.clone();
        m.merge(&s);
        let k = (bucket(2000) - m.lo) as usize;
        assert_eq!((m.count(), m.count_at(k)), (2 * n, (1u64 << 33) + 2));
        assert_eq!(m.at_rank(n), r);
        m.clear();
        assert!(m.wraps.is_empty() && m.count() == 0);
    }

    #[test]
    fn empty_and_cleared() {
        let mut s = Sketch::default();
        assert!(s.at_rank(1).is_nan() && s.fraction_at_most(5).is_nan());
        s.add(500);
        s.add(900);
        s.clear();
        assert_eq!(s.count(), 0);
        assert!(s.at_rank(1).is_nan());
        s.add(40);
        assert_eq!((s.at_rank(1), s.fraction_at_most(39), s.fraction_at_most(40)), (40.0, 0.0, 1.0));
    }

    #[test]
    fn memory_follows_the_range_not_the_count() {
        let mut s = Sketch::default();
        let mut r = rng(11);
        for _ in 0..100_000 {
            s.add(40_000 + (r() % 40_000) as u32); // 40-80 ms: one octave
        }
        let one_octave = s.heap_bytes();
        for _ in 0..1_000_000 {
            s.add(40_000 + (r() % 40_000) as u32);
        }
        assert_eq!(s.heap_bytes(), one_octave, "more samples of the same range take no memory");
        assert!(one_octave <= 2 * (SUB as usize + 2 * FIRST_BUCKETS as usize) * 4, "{one_octave} bytes");
        s.add(u32::MAX);
        s.add(0);
        assert!(s.heap_bytes() <= BUCKETS as usize * 4);
    }
}
