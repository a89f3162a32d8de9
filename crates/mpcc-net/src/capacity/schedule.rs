//! Piecewise-constant capacity, optionally repeating with a period.

use super::serialise_within;
use mpcc_core::params::{need, param, Info, Problem, Unit};
use mpcc_core::Nanos;

/// The registry entry (listed in `capacity/mod.rs`).
pub const INFO: Info = Info::new(
    "schedule",
    "piecewise-constant rate: steps of {at, rate}, optionally repeating every `period`",
    "docs/links.md#capacity-over-time",
    &[
        param("steps", f64::NAN, 0.0, 1e13, "the rate from each step's `at` on (rate 0: an outage)"),
        param("period_ns", 0.0, 0.0, 1e15, "repeat the steps with this period (0: do not repeat)"),
    ],
)
.with_units(&[("steps", Unit::Steps), ("period_ns", Unit::Duration)])
.with_rule(|p| need(p, &["steps"]));

#[derive(Clone, Debug)]
pub struct Schedule {
    /// Step start times within one period, strictly increasing, first 0.
    starts: Vec<Nanos>,
    rates: Vec<f64>,
    /// 0 = the last step lasts forever.
    period: Nanos,
    /// Bits carried from the period's start to each step's start.
    cum_bits: Vec<f64>,
    /// Bits carried in one whole period (periodic schedules).
    period_bits: f64,
}

impl Schedule {
    /// `steps` are (start_ns, bps): sorted, strictly increasing, the first at 0,
    /// rates finite and >= 0. With `period_ns` > 0 the schedule repeats and every
    /// start must lie before the period's end. Zero-rate steps (outages) are
    /// allowed as long as the link sends again: at least one step > 0, and for
    /// a non-repeating schedule the last step > 0.
    /// The rules the schema states in the user's words: the first step at 0,
    /// `at` increasing, within the period, and the link sending again.
    pub fn check(steps: &[(Nanos, f64)], period_ns: Nanos) -> Result<(), Problem> {
        let Some(&(first, _)) = steps.first() else {
            return Err(Problem::at("steps", "an empty list; allowed: at least one step"));
        };
        if first != 0 {
            return Err(Problem::at("steps", "the first step must be at \"0s\""));
        }
        if steps.windows(2).any(|w| w[1].0 <= w[0].0) {
            return Err(Problem::at("steps", "steps must be in increasing order of `at`"));
        }
        let last = steps[steps.len() - 1];
        if period_ns > 0 && period_ns <= last.0 {
            return Err(Problem::at("period_ns", "period must be longer than the last step's `at`"));
        }
        if steps.iter().all(|s| s.1 == 0.0) {
            return Err(Problem::at("steps", "every step has rate 0"));
        }
        if period_ns == 0 && last.1 == 0.0 {
            return Err(Problem::at(
                "steps",
                "the last step has rate 0 and there is no period: the link would never send again; \
                 add a later step with a rate or set a period",
            ));
        }
        Ok(())
    }

    pub fn new(steps: &[(Nanos, f64)], period_ns: Nanos) -> Result<Self, String> {
        let field = "capacity.schedule.steps";
        if steps.is_empty() {
            return Err(format!("{field} must hold at least one (start_ns, bps) step"));
        }
        if steps[0].0 != 0 {
            return Err(format!("{field}[0] must start at 0 ns, got {}", steps[0].0));
        }
        for (i, &(start, bps)) in steps.iter().enumerate() {
            if !(bps.is_finite() && bps >= 0.0) {
                return Err(format!("{field}[{i}] rate must be a finite number >= 0 bps, got {bps}"));
            }
            if i > 0 && start <= steps[i - 1].0 {
                return Err(format!(
                    "{field}[{i}] starts at {start} ns, not after the previous step ({} ns): starts must increase",
                    steps[i - 1].0
                ));
            }
            if period_ns > 0 && start >= period_ns {
                return Err(format!(
                    "{field}[{i}] starts at {start} ns, not before the end of capacity.schedule.period_ns ({period_ns})"
                ));
            }
        }
        if steps.iter().all(|s| s.1 == 0.0) {
            return Err(format!("{field}: every step has rate 0, so the link could never send"));
        }
        if period_ns == 0 && steps[steps.len() - 1].1 == 0.0 {
            return Err(format!(
                "{field}: the last step has rate 0 and capacity.schedule.period_ns is 0, so the link \
                 would never send again; add a later step with a rate > 0 (after the end of the run \
                 for a permanent outage) or set a period"
            ));
        }
        let starts: Vec<Nanos> = steps.iter().map(|s| s.0).collect();
        let rates: Vec<f64> = steps.iter().map(|s| s.1).collect();
        let mut cum_bits = Vec::with_capacity(steps.len());
        let mut acc = 0.0;
        for i in 0..steps.len() {
            cum_bits.push(acc);
            if let Some(&next) = starts.get(i + 1) {
                acc += rates[i] * (next - starts[i]) as f64 * 1e-9;
            }
        }
        let last = steps.len() - 1;
        let period_bits =
            if period_ns > 0 { acc + rates[last] * (period_ns - starts[last]) as f64 * 1e-9 } else { 0.0 };
        Ok(Schedule { starts, rates, period: period_ns, cum_bits, period_bits })
    }

    /// (start of the period holding `t`, index of the step holding `t`).
    #[inline]
    fn locate(&self, t: Nanos) -> (Nanos, usize) {
        let (base, off) = if self.period > 0 { (t - t % self.period, t % self.period) } else { (0, t) };
        (base, self.starts.partition_point(|&s| s <= off) - 1)
    }

    /// Absolute end of step `i` of the period starting at `base` (None = never).
    #[inline]
    fn step_end(&self, base: Nanos, i: usize) -> Option<Nanos> {
        match self.starts.get(i + 1) {
            Some(&s) => Some(base + s),
            None if self.period > 0 => Some(base + self.period),
            None => None,
        }
    }

    /// Each part of the packet is serialised at the rate of the step it falls in;
    /// zero-rate steps are skipped (validation guarantees a later non-zero one).
    #[inline]
    pub fn tx_end(&self, start: Nanos, bytes: u32) -> Nanos {
        let mut need = bytes as f64 * 8.0;
        let (mut base, mut i) = self.locate(start);
        let mut t = start;
        loop {
            let end = self.step_end(base, i).unwrap_or(Nanos::MAX);
            if let Some(done) = serialise_within(t, end, self.rates[i], &mut need) {
                return done;
            }
            t = end;
            i += 1;
            if i == self.starts.len() {
                i = 0;
                base += self.period;
            }
        }
    }

    /// Bits carried in [0, t).
    pub fn bits_until(&self, t: Nanos) -> f64 {
        let (base, i) = self.locate(t);
        let cycles = base.checked_div(self.period).unwrap_or(0) as f64;
        cycles * self.period_bits + self.cum_bits[i] + self.rates[i] * (t - base - self.starts[i]) as f64 * 1e-9
    }

    /// Mean over a period if repeating, else the first non-zero rate.
    pub fn nominal_bps(&self) -> f64 {
        if self.period > 0 {
            self.period_bits / (self.period as f64 * 1e-9)
        } else {
            self.rates.iter().copied().find(|&r| r > 0.0).unwrap_or(0.0)
        }
    }

    pub fn rate_at(&self, t: Nanos) -> f64 {
        self.rates[self.locate(t).1]
    }
}

#[cfg(test)]
mod tests {
    use crate::Capacity;
    use mpcc_core::{NS_PER_MS, NS_PER_SEC};

    #[test]
    fn tx_end_across_a_boundary() {
        // 12 Mb/s for 10 ms then 6 Mb/s.
        let mut c = Capacity::schedule(&[(0, 12e6), (10 * NS_PER_MS, 6e6)], 0).unwrap();
        // 1500 B = 12000 bits: 1 ms at 12 Mb/s, 2 ms at 6 Mb/s.
        assert_eq!(c.tx_end(0, 1500), NS_PER_MS);
        assert_eq!(c.tx_end(20 * NS_PER_MS, 1500), 22 * NS_PER_MS);
        // Starts 0.5 ms before the boundary: 6000 bits there, 6000 bits (1 ms) after.
        assert_eq!(c.tx_end(9_500_000, 1500), 11 * NS_PER_MS);
        assert_eq!(c.rate_at(9_999_999), 12e6);
        assert_eq!(c.rate_at(10 * NS_PER_MS), 6e6);
    }

    #[test]
    fn periodic_drop_to_a_fifth_for_one_second_every_five() {
        let mut c = Capacity::schedule(&[(0, 10e6), (4 * NS_PER_SEC, 2e6)], 5 * NS_PER_SEC).unwrap();
        assert_eq!(c.rate_at(4 * NS_PER_SEC + 1), 2e6);
        assert_eq!(c.rate_at(5 * NS_PER_SEC), 10e6);
        assert_eq!(c.rate_at(19 * NS_PER_SEC), 2e6);
        // In the third period's slow second: 12000 bits at 2 Mb/s = 6 ms.
        assert_eq!(c.tx_end(14 * NS_PER_SEC, 1500), 14 * NS_PER_SEC + 6 * NS_PER_MS);
        // Across the period boundary: 3 ms at 2 Mb/s = 6000 bits, rest at 10 Mb/s = 0.6 ms.
        assert_eq!(c.tx_end(15 * NS_PER_SEC - 3 * NS_PER_MS, 1500), 15 * NS_PER_SEC + 600_000);
        // One period carries 4 s * 10 Mb/s + 1 s * 2 Mb/s = 42 Mbit.
        assert!((c.bits_between(0, 5 * NS_PER_SEC) - 42e6).abs() < 1e-3);
        assert!((c.bits_between(3 * NS_PER_SEC, 11 * NS_PER_SEC) - (10e6 + 2e6 + 40e6 + 2e6 + 10e6)).abs() < 1e-3);
        assert!((c.bits_between(4_500_000_000, 4_600_000_000) - 0.2e6).abs() < 1e-3);
    }

    #[test]
    fn zero_rate_steps_are_skipped_not_hung_on() {
        // Outage 10..20 ms every 30 ms.
        let mut c =
            Capacity::schedule(&[(0, 12e6), (10 * NS_PER_MS, 0.0), (20 * NS_PER_MS, 12e6)], 30 * NS_PER_MS).unwrap();
        assert_eq!(c.tx_end(9_500_000, 1500), 20_500_000);
        assert_eq!(c.tx_end(15 * NS_PER_MS, 1500), 21 * NS_PER_MS);
        assert_eq!(c.tx_end(40 * NS_PER_MS, 1500), 51 * NS_PER_MS);
        assert_eq!(c.bits_between(10 * NS_PER_MS, 20 * NS_PER_MS), 0.0);
        // Non-repeating with a final non-zero step.
        let mut c = Capacity::schedule(&[(0, 0.0), (NS_PER_SEC, 12e6)], 0).unwrap();
        assert_eq!(c.tx_end(0, 1500), NS_PER_SEC + NS_PER_MS);
    }

    #[test]
    fn validation() {
        let err = |s: &[(u64, f64)], p| Capacity::schedule(s, p).unwrap_err();
        assert!(err(&[(0, 0.0), (5, 0.0)], 10).contains("every step has rate 0"));
        assert!(err(&[(0, 1e6), (5, 0.0)], 0).contains("never send again"));
        assert!(err(&[(1, 1e6)], 0).contains("steps[0] must start at 0"));
        assert!(err(&[(0, 1e6), (0, 2e6)], 0).contains("steps[1]"));
        assert!(err(&[(0, 1e6), (10, 2e6)], 10).contains("period_ns"));
        assert!(err(&[(0, -1.0)], 0).contains(">= 0"));
        assert!(err(&[], 0).contains("at least one"));
    }
}
