//! Noda & Ito: MPTCP congestion control that suppresses RTT fluctuation (Noda &
//! Ito, docs/references.md). Per subflow, no coupling term.
//!
//! Per round the subflow takes `RecentRTT` (minimum RTT of the last completed
//! round) and `MeanRTT = 0.8 MeanRTT + 0.2 RecentRTT`; with `BaseRTT` the lifetime
//! minimum, `Queueing = RecentRTT - BaseRTT` and `MeanQueueing = MeanRTT - BaseRTT`.
//! In congestion avoidance, per acked segment: `w += 1/(2w)` if
//! `Queueing < MeanQueueing`, else `w -= 1/w` (floored at `min_cwnd`). The paper
//! leaves loss and slow start open: standard slow start, `w *= 1 - beta` on loss.

use super::base::Path;
use super::window::{record, Coupled, CouplingRule};
use crate::common::secs;
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "noda_ito",
    "Noda & Ito: per-subflow delay rule that suppresses RTT fluctuation",
    "docs/algorithms/noda_ito.md",
    &[
        INIT_CWND,
        param("beta", 0.5, 0.01, 0.99, "multiplicative decrease fraction on loss (paper leaves it open)"),
        param("min_cwnd", 1.0, 1.0, 2.0, "floor of the delay-driven decrease (1, or 2 kernel style)"),
        param("mean_per_ack", 0.0, 0.0, 1.0, "1: update MeanRTT on every ACK; 0: once per round"),
        param(
            "delay_ssthresh",
            0.0,
            0.0,
            1.0,
            "1: a delay-driven decrease lowers ssthresh to the new window (as Linux's Vegas); 0: ssthresh stays",
        ),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    let mut c = NodaIto::new(p("init_cwnd"), p("beta"), p("min_cwnd"), p("mean_per_ack") >= 0.5);
    c.rule.delay_ssthresh = p("delay_ssthresh") >= 0.5;
    Controller::NodaIto(c)
}

#[derive(Clone, Debug)]
pub struct NiPath {
    pub p: Path,
    round_min: f64,
    /// Minimum RTT of the last completed round (0 until one completes).
    pub recent: f64,
    /// Smoothed RecentRTT (0 until the first RecentRTT).
    pub mean: f64,
}

record!(NiPath);

/// Noda & Ito's rule.
#[derive(Clone, Debug)]
pub struct NodaItoRule {
    /// Multiplicative decrease fraction on loss.
    pub beta: f64,
    pub min_cwnd: f64,
    /// true: MeanRTT is updated on every ACK; false (default): once per round.
    pub mean_per_ack: bool,
    /// A delay-driven decrease also lowers ssthresh to the new window, so that slow
    /// start does not take the window straight back (off by default: an alternative
    /// reading, docs/algorithms/noda_ito.md).
    pub delay_ssthresh: bool,
}

/// Noda & Ito: its rule over the shared per-subflow driver.
pub type NodaIto = Coupled<NodaItoRule>;

impl NodaIto {
    pub fn new(init_cwnd: f64, beta: f64, min_cwnd: f64, mean_per_ack: bool) -> NodaIto {
        Coupled::with_rule(init_cwnd, NodaItoRule { beta, min_cwnd, mean_per_ack, delay_ssthresh: false })
    }
}

#[inline]
fn smooth(mean: f64, recent: f64) -> f64 {
    if mean == 0.0 {
        recent
    } else {
        0.8 * mean + 0.2 * recent
    }
}

impl CouplingRule for NodaItoRule {
    type Sub = NiPath;
    fn new_subflow(&mut self, init_cwnd: f64) -> NiPath {
        NiPath { p: Path::new(init_cwnd), round_min: f64::INFINITY, recent: 0.0, mean: 0.0 }
    }

    #[inline]
    fn observe(&mut self, v: &mut NiPath, ev: &AckEvent) {
        if ev.round_start && v.round_min.is_finite() {
            v.recent = v.round_min;
            v.round_min = f64::INFINITY;
            if !self.mean_per_ack {
                v.mean = smooth(v.mean, v.recent);
            }
        }
        if ev.rtt > 0 {
            v.round_min = v.round_min.min(secs(ev.rtt));
        }
    }

    #[inline]
    fn increase(&mut self, subs: &mut [NiPath], sf: usize, left: f64, _ev: &AckEvent) {
        let v = &mut subs[sf];
        // During the first round RecentRTT is the running minimum.
        let recent = if v.recent > 0.0 { v.recent } else { v.round_min };
        if !recent.is_finite() {
            return;
        }
        if self.mean_per_ack || v.mean == 0.0 {
            v.mean = smooth(v.mean, recent);
        }
        let base = v.p.min_rtt.min(recent);
        let w = v.p.cwnd;
        if recent - base < v.mean - base {
            v.p.cwnd = w + left / (2.0 * w);
        } else {
            v.p.cwnd = (w - left / w).max(self.min_cwnd);
            if self.delay_ssthresh {
                v.p.ssthresh = v.p.ssthresh.min(v.p.cwnd);
            }
        }
    }

    fn decrease(&mut self, subs: &mut [NiPath], sf: usize, ev: &CongestionEvent) {
        let p = &mut subs[sf].p;
        p.reduce_to(ev.kind, p.cwnd * (1.0 - self.beta));
    }

    /// `recent_rtt` and `mean_rtt` (s): no coupling term, the rule is per subflow.
    fn metrics(&self, subs: &[NiPath], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        out("recent_rtt", subs[sf].recent);
        out("mean_rtt", subs[sf].mean);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;
    use crate::CongestionKind;

    fn ca(min_cwnd: f64) -> NodaIto {
        let mut c = NodaIto::new(10.0, 0.5, min_cwnd, false);
        c.add_subflow(0);
        c.paths[0].p.ssthresh = 2.0;
        c
    }

    #[test]
    fn grows_when_queueing_below_its_mean_and_shrinks_otherwise() {
        let mut c = ca(1.0);
        // round 1: min RTT 100 ms -> RecentRTT 100, MeanRTT 100, BaseRTT 100
        c.on_ack(0, &ack(1, 1.0, 100.0)); // first round, Queueing 0 == MeanQueueing 0: shrink
        assert!((c.cwnd(0) - 9.9).abs() < 1e-12);
        // round 2 sees 150 ms: at its start RecentRTT = 100 (round 1), then round 3
        let mut ev = ack(2, 1.0, 150.0);
        ev.min_rtt = 100 * MS;
        ev.round_start = true;
        c.on_ack(0, &ev); // closes round 1: recent 100, mean 100 -> shrink
        ev.round_start = true;
        ev.rtt = 120 * MS;
        c.on_ack(0, &ev); // closes round 2 (min 150): recent 150, mean 110 -> 50 >= 10: shrink
        assert!((c.paths[0].mean - 0.110).abs() < 1e-12);
        let w = c.cwnd(0);
        ev.round_start = true;
        ev.rtt = 130 * MS;
        c.on_ack(0, &ev); // closes round 3 (min 120): recent 120, mean 0.8*110+0.2*120 = 112 -> 20 >= 12: shrink
        assert!((c.cwnd(0) - (w - 1.0 / w)).abs() < 1e-12);
        ev.round_start = true;
        ev.rtt = 101 * MS;
        c.on_ack(0, &ev); // closes round 4 (min 130): recent 130, mean 115.6 -> shrink again
        let w = c.cwnd(0);
        ev.round_start = true;
        c.on_ack(0, &ev); // closes round 5 (min 101): recent 101, mean 112.68 -> 1 < 12.68: grow
        assert!((c.cwnd(0) - (w + 1.0 / (2.0 * w))).abs() < 1e-12);
    }

    #[test]
    fn loss_factor_and_floor() {
        let mut c = NodaIto::new(10.0, 0.3, 2.0, false);
        c.add_subflow(0);
        c.paths[0].p.cwnd = 20.0;
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert!((c.cwnd(0) - 14.0).abs() < 1e-12);
        c.paths[0].p.cwnd = 2.1;
        c.paths[0].p.ssthresh = 2.0;
        for i in 0..10 {
            c.on_ack(0, &ack(i, 1.0, 100.0));
        }
        assert_eq!(c.cwnd(0), 2.0, "kernel-style floor of 2");
    }

    #[test]
    fn a_delay_decrease_is_not_undone_by_slow_start() {
        // After a loss (cwnd = ssthresh = 10) the delay rule shrinks the window. With
        // delay_ssthresh the next ACK finds cwnd >= ssthresh and shrinks it again; without,
        // slow start first takes the window back to ssthresh (10 - 0.9 / 10 = 9.91).
        for (lower, after_two) in [(true, 9.9 - 1.0 / 9.9), (false, 9.91)] {
            let mut c = NodaIto::new(10.0, 0.5, 1.0, false);
            c.rule.delay_ssthresh = lower;
            c.add_subflow(0);
            c.paths[0].p.cwnd = 20.0;
            c.on_congestion(0, &cong(CongestionKind::Loss));
            c.on_ack(0, &ack(1, 1.0, 100.0)); // Queueing == MeanQueueing: shrink
            assert!((c.cwnd(0) - 9.9).abs() < 1e-12);
            assert_eq!(c.ssthresh(0), if lower { 9.9 } else { 10.0 });
            c.on_ack(0, &ack(2, 1.0, 100.0));
            assert!((c.cwnd(0) - after_two).abs() < 1e-12, "{lower}: {}", c.cwnd(0));
        }
    }

    #[test]
    fn metrics_are_the_round_rtts() {
        let mut c = ca(1.0);
        c.paths[0].recent = 0.1;
        c.paths[0].mean = 0.12;
        assert_eq!(crate::metrics_of(&c, 0), [("recent_rtt", 0.1), ("mean_rtt", 0.12)]);
    }
}
