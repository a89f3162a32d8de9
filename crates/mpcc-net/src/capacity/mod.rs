//! Link capacity over time: a constant rate, a piecewise-constant schedule, a
//! multiplicative random walk, or a mahimahi packet-delivery trace.
//!
//! `tx_end` is the hot path. Calls must come in link order (each `start` at or
//! after the previous packet's end), as a FIFO link makes them; `bits_between` and
//! `rate_at` may be asked about any time.

mod random_walk;
mod schedule;
mod trace;

pub use random_walk::RandomWalk;
pub use schedule::Schedule;
pub use trace::{Trace, RATE_WINDOW};

use mpcc_core::params::{need, param, Info, Unit};
use mpcc_core::time::tx_time;
use mpcc_core::{Nanos, Rng};

/// The constant rate's entry (its model is the `Constant` variant below).
pub const CONSTANT: Info = Info::new(
    "constant",
    "a fixed rate (`rate = \"10Mbps\"` on the link is the short form)",
    "docs/links.md#capacity-over-time",
    &[param("bps", f64::NAN, 1.0, 1e13, "the rate")],
)
.with_units(&[("bps", Unit::Rate)])
.with_names(&[("bps", "rate")])
.with_rule(|p| need(p, &["bps"]));

/// Every capacity model, one line each; the first is the default.
pub const REGISTRY: &[Info] = &[CONSTANT, schedule::INFO, random_walk::INFO, trace::INFO];

/// The default of parameter `param` of model `kind` (NaN: none), for
/// configurations written without it.
pub fn default(kind: &str, param: &str) -> f64 {
    REGISTRY.iter().find(|i| i.name == kind).and_then(|i| i.param(param)).map_or(f64::NAN, |p| p.default)
}

#[derive(Clone, Debug)]
pub enum Capacity {
    /// A fixed rate in bits per second.
    Constant {
        bps: f64,
        /// The serialisation times of the sizes last sent.
        recent: RecentTxTimes,
    },
    Schedule(Schedule),
    RandomWalk(RandomWalk),
    Trace(Trace),
}

/// Checks a rate is a finite number > 0.
pub(crate) fn positive_rate(field: &str, bps: f64) -> Result<f64, String> {
    if bps.is_finite() && bps > 0.0 {
        Ok(bps)
    } else {
        Err(format!("{field} must be a finite rate > 0 bps, got {bps}"))
    }
}

/// End of serialising `need` bits from `t` at `bps` within a segment ending at
/// `end`, or None (and `need` reduced by what fits) if the segment is too short.
#[inline]
pub(crate) fn serialise_within(t: Nanos, end: Nanos, bps: f64, need: &mut f64) -> Option<Nanos> {
    if bps <= 0.0 {
        return None;
    }
    let avail = bps * (end - t) as f64 * 1e-9;
    // The slack absorbs float rounding so a packet that exactly fills a segment
    // ends there instead of spilling a fraction of a bit into the next one.
    if *need <= avail + 1e-6 {
        let dt = mpcc_core::time::ceil_ns(*need * 1e9 / bps);
        return Some((t + dt).min(end));
    }
    *need -= avail;
    None
}

/// The serialisation times of the last two packet sizes a constant rate sent (a
/// data segment's and an ACK's): the division and its rounding once per size
/// instead of once per packet, with the same result (same operands).
#[derive(Clone, Copy, Debug, Default)]
pub struct RecentTxTimes {
    /// (bytes, time); 0 bytes take 0 ns at any rate, so the default is true.
    sizes: [(u32, Nanos); 2],
}

impl RecentTxTimes {
    #[inline]
    fn get(&mut self, bytes: u32, bps: f64) -> Nanos {
        match self.sizes {
            [(b, t), _] if b == bytes => t,
            [_, (b, t)] if b == bytes => t,
            _ => {
                let t = tx_time(bytes, bps);
                self.sizes = [(bytes, t), self.sizes[0]];
                t
            }
        }
    }
}

impl Capacity {
    pub fn constant(bps: f64) -> Result<Self, String> {
        Ok(Capacity::Constant { bps: positive_rate("capacity.constant.bps", bps)?, recent: RecentTxTimes::default() })
    }

    /// Piecewise-constant rate; see [`Schedule::new`].
    pub fn schedule(steps: &[(Nanos, f64)], period_ns: Nanos) -> Result<Self, String> {
        Ok(Capacity::Schedule(Schedule::new(steps, period_ns)?))
    }

    /// Multiplicative random walk; see [`RandomWalk::new`].
    pub fn random_walk(
        initial_bps: f64, min_bps: f64, max_bps: f64, step_ns: Nanos, sigma: f64, rng: Rng,
    ) -> Result<Self, String> {
        Ok(Capacity::RandomWalk(RandomWalk::new(initial_bps, min_bps, max_bps, step_ns, sigma, rng)?))
    }

    /// Reads a mahimahi packet-delivery trace; see [`Trace`].
    pub fn from_mahimahi_file(path: &str, bytes_per_opportunity: u32) -> Result<Self, String> {
        Ok(Capacity::Trace(Trace::from_file(path, bytes_per_opportunity)?))
    }

    /// Parses mahimahi trace text; `name` is used in error messages.
    pub fn from_mahimahi_str(text: &str, name: &str, bytes_per_opportunity: u32) -> Result<Self, String> {
        Ok(Capacity::Trace(Trace::parse(text, name, bytes_per_opportunity)?))
    }

    /// A representative rate for rate-dependent settings (RED's idle-time
    /// correction, a default buffer of one bandwidth-delay product): the constant
    /// rate; a repeating schedule's or a trace's mean over one period; a
    /// non-repeating schedule's first non-zero rate; a random walk's initial rate.
    pub fn nominal_bps(&self) -> f64 {
        match self {
            Capacity::Constant { bps, .. } => *bps,
            Capacity::Schedule(s) => s.nominal_bps(),
            Capacity::RandomWalk(w) => w.initial_bps(),
            Capacity::Trace(t) => t.nominal_bps(),
        }
    }

    /// When a packet of `bytes` whose transmission starts at `start` has been
    /// fully serialised.
    #[inline]
    pub fn tx_end(&mut self, start: Nanos, bytes: u32) -> Nanos {
        match self {
            Capacity::Constant { bps, recent } => start + recent.get(bytes, *bps),
            _ => self.varying_tx_end(start, bytes),
        }
    }

    /// `tx_end` of a capacity that changes over time, out of line: the constant
    /// one (a lookup of the last two sizes) is inlined into every serialisation.
    #[inline(never)]
    fn varying_tx_end(&mut self, start: Nanos, bytes: u32) -> Nanos {
        match self {
            Capacity::Constant { bps, recent } => start + recent.get(bytes, *bps),
            Capacity::Schedule(s) => s.tx_end(start, bytes),
            Capacity::RandomWalk(w) => w.tx_end(start, bytes),
            Capacity::Trace(t) => t.tx_end(start, bytes),
        }
    }

    /// Bits the link could have carried in [t0, t1), for utilization.
    pub fn bits_between(&mut self, t0: Nanos, t1: Nanos) -> f64 {
        if t1 <= t0 {
            return 0.0;
        }
        match self {
            Capacity::Constant { bps, .. } => *bps * (t1 - t0) as f64 * 1e-9,
            Capacity::Schedule(s) => s.bits_until(t1) - s.bits_until(t0),
            Capacity::RandomWalk(w) => w.bits_between(t0, t1),
            Capacity::Trace(t) => t.bits_between(t0, t1),
        }
    }

    /// Bits the link could carry in a measurement window [t0, t1] that includes its
    /// end, as the event loop does (a packet finished at the run's last instant is
    /// counted): a trace's opportunities at `t1` count too.
    pub fn bits_in_window(&mut self, t0: Nanos, t1: Nanos) -> f64 {
        match self {
            Capacity::Trace(t) if t1 >= t0 => t.bits_between(t0, t1 + 1),
            _ => self.bits_between(t0, t1),
        }
    }

    /// Whether a packet's bytes leave at one instant (a trace's delivery
    /// opportunity) rather than at a rate over its serialisation time.
    pub fn serves_at_instants(&self) -> bool {
        matches!(self, Capacity::Trace(_))
    }

    /// The rate at time `t`, bits per second (for plots and the bandwidth-delay
    /// product). A trace has no instantaneous rate: it reports the mean over
    /// [`RATE_WINDOW`] around `t`.
    pub fn rate_at(&mut self, t: Nanos) -> f64 {
        match self {
            Capacity::Constant { bps, .. } => *bps,
            Capacity::Schedule(s) => s.rate_at(t),
            Capacity::RandomWalk(w) => w.rate_at(t),
            Capacity::Trace(tr) => tr.rate_at(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Remembered times are the computed ones, whatever the order of sizes.
    #[test]
    fn recent_tx_times_match_the_division() {
        let mut recent = RecentTxTimes::default();
        for (i, bytes) in [1500, 52, 1500, 0, 52, 40, 1500, 1, 52, 52, 9000].into_iter().cycle().take(200).enumerate() {
            let bps = 1e8 / 3.0;
            assert_eq!(recent.get(bytes, bps), tx_time(bytes, bps), "size {bytes} at step {i}");
        }
    }

    #[test]
    fn constant() {
        let mut c = Capacity::constant(12e6).unwrap();
        assert_eq!(c.tx_end(10, 1500), 10 + 1_000_000);
        assert_eq!(c.bits_between(0, 500_000_000), 6e6);
        assert_eq!(c.bits_between(5, 5), 0.0);
        assert!(Capacity::constant(0.0).unwrap_err().contains("capacity.constant.bps"));
        assert!(Capacity::constant(f64::INFINITY).is_err());
        assert_eq!(c.nominal_bps(), 12e6);
        let s = Capacity::schedule(&[(0, 10e6), (4, 5e6)], 5).unwrap();
        assert_eq!(s.nominal_bps(), 9e6);
        let s = Capacity::schedule(&[(0, 0.0), (4, 5e6)], 0).unwrap();
        assert_eq!(s.nominal_bps(), 5e6);
        let mut t = Capacity::from_mahimahi_str("1\n1\n3\n4\n", "t", 1500).unwrap();
        assert_eq!(t.nominal_bps(), 12e6);
        // A window's end is inclusive: the 4 ms opportunity is inside [0, 4 ms].
        assert_eq!(t.bits_between(0, 4_000_000), 36_000.0);
        assert_eq!(t.bits_in_window(0, 4_000_000), 48_000.0);
        assert_eq!(c.bits_in_window(0, 500_000_000), 6e6);
    }
}
