//! Multiplicative random walk: every `step` the rate is multiplied by
//! exp(sigma * N(0,1)) and clamped to [min, max].
//!
//! Rates are produced in order from the walk's own stream, so they depend only on
//! the seed, never on which times are queried. Only a fixed ring of the most
//! recent steps is kept (constant memory however long the run): queries reaching
//! further back replay the walk from its saved initial stream, which gives the
//! same values again.

use super::{positive_rate, serialise_within};
use mpcc_core::params::{need, param, Args, Info, Problem, Unit};
use mpcc_core::{Nanos, Rng};

/// The registry entry (listed in `capacity/mod.rs`).
pub const INFO: Info = Info::new(
    "random_walk",
    "multiplicative random walk between min and max every `step`",
    "docs/links.md#capacity-over-time",
    &[
        param("initial_bps", f64::NAN, 1.0, 1e13, "rate at the start"),
        param("min_bps", f64::NAN, 1.0, 1e13, "lowest rate"),
        param("max_bps", f64::NAN, 1.0, 1e13, "highest rate"),
        param("step_ns", f64::NAN, 1.0, 1e15, "time between steps"),
        param("sigma", f64::NAN, 0.0, 100.0, "standard deviation of the log-rate change per step"),
    ],
)
.with_units(&[
    ("initial_bps", Unit::Rate),
    ("min_bps", Unit::Rate),
    ("max_bps", Unit::Rate),
    ("step_ns", Unit::Duration),
])
.with_rule(bounds);

fn bounds(p: &Args) -> Result<(), Problem> {
    need(p, &["initial_bps", "min_bps", "max_bps", "step_ns", "sigma"])?;
    if !(p.get("min_bps") <= p.get("initial_bps") && p.get("initial_bps") <= p.get("max_bps")) {
        return Err(Problem::at("initial_bps", "expected min <= initial <= max"));
    }
    Ok(())
}

/// Steps kept for look-backs (e.g. a utilization sample over the last interval).
const HISTORY: usize = 256;

#[derive(Clone, Debug)]
pub struct RandomWalk {
    initial: f64,
    min: f64,
    max: f64,
    step: Nanos,
    sigma: f64,
    start_rng: Rng,
    rng: Rng,
    /// Index of the newest step computed.
    newest: u64,
    /// Ring indexed by step % HISTORY: the step's rate, and bits carried in
    /// [0, step start).
    rates: Vec<f64>,
    cum_bits: Vec<f64>,
}

impl RandomWalk {
    pub fn new(
        initial_bps: f64, min_bps: f64, max_bps: f64, step_ns: Nanos, sigma: f64, rng: Rng,
    ) -> Result<Self, String> {
        let f = "capacity.random_walk";
        positive_rate(&format!("{f}.min_bps"), min_bps)?;
        positive_rate(&format!("{f}.max_bps"), max_bps)?;
        positive_rate(&format!("{f}.initial_bps"), initial_bps)?;
        if min_bps > max_bps {
            return Err(format!("{f}.min_bps ({min_bps}) must be <= max_bps ({max_bps})"));
        }
        if !(min_bps..=max_bps).contains(&initial_bps) {
            return Err(format!(
                "{f}.initial_bps must be in [min_bps, max_bps] = [{min_bps}, {max_bps}], got {initial_bps}"
            ));
        }
        if step_ns == 0 {
            return Err(format!("{f}.step_ns must be > 0"));
        }
        if !(sigma.is_finite() && sigma >= 0.0) {
            return Err(format!("{f}.sigma must be a finite number >= 0, got {sigma}"));
        }
        let mut w = RandomWalk {
            initial: initial_bps,
            min: min_bps,
            max: max_bps,
            step: step_ns,
            sigma,
            start_rng: rng.clone(),
            rng,
            newest: 0,
            rates: vec![0.0; HISTORY],
            cum_bits: vec![0.0; HISTORY],
        };
        w.restart();
        Ok(w)
    }

    fn restart(&mut self) {
        self.rng = self.start_rng.clone();
        self.newest = 0;
        self.rates[0] = self.initial;
        self.cum_bits[0] = 0.0;
    }

    #[inline]
    fn advance(&mut self) {
        let s = (self.newest % HISTORY as u64) as usize;
        let (r, c) = (self.rates[s], self.cum_bits[s]);
        let next = (r * (self.sigma * self.rng.normal()).exp()).clamp(self.min, self.max);
        self.newest += 1;
        let s = (self.newest % HISTORY as u64) as usize;
        self.rates[s] = next;
        self.cum_bits[s] = c + r * self.step as f64 * 1e-9;
    }

    /// Ring slot of step `j`, computing it first if needed.
    #[inline]
    fn slot(&mut self, j: u64) -> usize {
        if j + HISTORY as u64 <= self.newest {
            self.restart();
        }
        while self.newest < j {
            self.advance();
        }
        (j % HISTORY as u64) as usize
    }

    #[inline]
    pub fn tx_end(&mut self, start: Nanos, bytes: u32) -> Nanos {
        let mut need = bytes as f64 * 8.0;
        let mut j = start / self.step;
        let mut t = start;
        loop {
            let s = self.slot(j);
            let end = (j + 1) * self.step;
            if let Some(done) = serialise_within(t, end, self.rates[s], &mut need) {
                return done;
            }
            t = end;
            j += 1;
        }
    }

    fn bits_until(&mut self, t: Nanos) -> f64 {
        let j = t / self.step;
        let s = self.slot(j);
        self.cum_bits[s] + self.rates[s] * (t - j * self.step) as f64 * 1e-9
    }

    pub fn bits_between(&mut self, t0: Nanos, t1: Nanos) -> f64 {
        let b0 = self.bits_until(t0);
        self.bits_until(t1) - b0
    }

    pub fn initial_bps(&self) -> f64 {
        self.initial
    }

    pub fn rate_at(&mut self, t: Nanos) -> f64 {
        let s = self.slot(t / self.step);
        self.rates[s]
    }
}

#[cfg(test)]
mod tests {
    use crate::Capacity;
    use mpcc_core::{Rng, NS_PER_MS};

    fn walk(seed: u64) -> Capacity {
        Capacity::random_walk(10e6, 2e6, 20e6, 10 * NS_PER_MS, 0.3, Rng::stream(seed, 5)).unwrap()
    }

    fn rates(c: &mut Capacity, steps: u64) -> Vec<f64> {
        (0..steps).map(|k| c.rate_at(k * 10 * NS_PER_MS + 3)).collect()
    }

    #[test]
    fn stays_within_bounds_and_reaches_them() {
        let r = rates(&mut walk(1), 20_000);
        assert_eq!(r[0], 10e6);
        assert!(r.iter().all(|&x| (2e6..=20e6).contains(&x)));
        assert!(r.contains(&2e6) && r.contains(&20e6), "walk never hit a bound");
        // It does move: consecutive steps differ.
        assert!(r.windows(2).filter(|w| w[0] != w[1]).count() > 10_000);
    }

    #[test]
    fn deterministic_per_seed_and_independent_of_query_order() {
        let a = rates(&mut walk(7), 2_000);
        assert_eq!(a, rates(&mut walk(7), 2_000));
        assert_ne!(a, rates(&mut walk(8), 2_000));
        // Query far ahead first, then back beyond the kept history: same values.
        let mut c = walk(7);
        assert_eq!(c.rate_at(1_999 * 10 * NS_PER_MS), a[1_999]);
        assert_eq!(c.rate_at(5 * 10 * NS_PER_MS), a[5]);
        assert_eq!(c.rate_at(1_500 * 10 * NS_PER_MS), a[1_500]);
    }

    #[test]
    fn bits_between_and_tx_end_integrate_the_steps() {
        let mut c = walk(3);
        let r = rates(&mut walk(3), 100);
        let step_s = 0.01;
        let want: f64 = r[..50].iter().map(|x| x * step_s).sum();
        assert!((c.bits_between(0, 500 * NS_PER_MS) - want).abs() < 1e-3);
        // Half of step 2 plus all of step 3.
        let want = r[2] * step_s / 2.0 + r[3] * step_s;
        assert!((c.bits_between(25 * NS_PER_MS, 40 * NS_PER_MS) - want).abs() < 1e-3);
        // A packet straddling the step 0/1 boundary: the first part at r[0].
        let start = 10 * NS_PER_MS - 400_000; // 0.4 ms before the boundary
        let first = r[0] * 0.4e-3;
        let rest = 12_000.0 - first;
        let want = 10 * NS_PER_MS + (rest / r[1] * 1e9).ceil() as u64;
        assert_eq!(c.tx_end(start, 1500), want);
    }

    #[test]
    fn validation() {
        let e = |i, lo, hi, st, s| Capacity::random_walk(i, lo, hi, st, s, Rng::stream(1, 1)).unwrap_err();
        assert!(e(1e6, 2e6, 3e6, 1, 0.1).contains("initial_bps must be in [min_bps, max_bps]"));
        assert!(e(1e6, 0.0, 3e6, 1, 0.1).contains("min_bps"));
        assert!(e(2e6, 3e6, 1e6, 1, 0.1).contains("<= max_bps"));
        assert!(e(1e6, 1e6, 3e6, 0, 0.1).contains("step_ns"));
        assert!(e(1e6, 1e6, 3e6, 1, -0.1).contains("sigma"));
    }
}
