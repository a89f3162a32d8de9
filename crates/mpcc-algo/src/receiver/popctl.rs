//! Subflow population control with receiver-side CoDel (Se-Yong Park's thesis,
//! chapter 4, Algorithm 2). Several subflows share one path; the sender runs an
//! unmodified (uncoupled) congestion controller. On every arriving segment:
//!
//! - RTT sample (receiver-side, from timestamps) above `RTT_min + sigma_RTT`
//!   (sigma: the RTT's mean deviation, the CoDel target) and the CoDel interval
//!   passed: the subflow with the highest throughput over the last RTT that is
//!   not yet in fast recovery gets intentional 3-dup-ACKs; if every subflow that
//!   is on is in recovery, one of them is turned off (ACKs withheld, it goes to
//!   RTO). `count += 1`, next action no earlier than `interval / sqrt(count)`.
//! - Below the target: `count = 0` (interval back to its base) and, at most once
//!   per RTT, one subflow that is off is turned back on.
//! - A retransmitted segment takes its subflow out of the recovery set.
//!
//! Interpretation choices (docs/algorithms/popctl.md): the interval follows
//! CoDel's control law `interval / sqrt(count)` from the base interval (the
//! listing's `Delta <- Delta / sqrt(cnt)` compounds, which the text's "same as
//! the original CoDel" rules out); RTT_min, the smoothed RTT and sigma are
//! connection-wide (one path), RFC 6298-style estimators over every sample
//! except those of retransmissions and of subflows that are off (their
//! echoed timestamps are stale); at least `min_on` subflows stay on.

use super::RxController;
use super::{Arrival, RxAction, RxStats};
use crate::params::{Info, ParamInfo};
use mpcc_core::{Nanos, NS_PER_MS};

const INTERVAL: ParamInfo = ParamInfo {
    name: "interval_s",
    default: 0.1,
    min: 0.001,
    max: 10.0,
    help: "CoDel interval in seconds: the wait after the first action, divided by sqrt(count) after each further one",
    open_min: false,
};
const MIN_ON: ParamInfo = ParamInfo {
    name: "min_on",
    default: 1.0,
    min: 1.0,
    max: 1024.0,
    help: "subflows never turned off below this many",
    open_min: false,
};

pub const PARAMS: &[ParamInfo] = &[INTERVAL, MIN_ON];

/// The registry entry (listed in `receiver/mod.rs`).
pub const INFO: Info = Info::new(
    "popctl",
    "subflow population control: receiver-side CoDel with intentional 3-dup-ACKs, subflows turned off and on (Park, thesis ch. 4, Alg. 2)",
    "docs/algorithms/popctl.md",
    PARAMS,
);

/// The builder, for a connection of `n` subflows; `p` yields a checked value or default.
pub fn build(p: &dyn Fn(&str) -> f64, n: usize) -> RxController {
    RxController::PopCtl(PopCtl::new(n, &|i: &ParamInfo| p(i.name)))
}

#[derive(Clone, Debug)]
pub struct PopCtl {
    interval: Nanos,
    min_on: usize,
    /// In the fast-recovery set R_F (sent intentional dup ACKs, no retransmission seen yet).
    in_rf: Vec<bool>,
    /// In the off set R_O.
    off: Vec<bool>,
    /// Segments received in the current and the previous throughput window (one RTT each).
    pkts_cur: Vec<u32>,
    pkts_prev: Vec<u32>,
    t_roll: Nanos,
    /// Receiver-side RTT estimators (connection-wide).
    pub rtt_min: Nanos,
    pub srtt: Nanos,
    pub mdev: Nanos,
    /// No action before this time.
    t_dup: Nanos,
    count: u32,
    /// Last time a subflow was turned on.
    t_on: Nanos,
    n_on: usize,
    on_area: u128,
    on_at: Nanos,
    on_from: Nanos,
    pub stats: RxStats,
}

impl PopCtl {
    pub fn new(n: usize, get: &impl Fn(&ParamInfo) -> f64) -> PopCtl {
        PopCtl {
            interval: (get(&INTERVAL) * 1e9) as Nanos,
            min_on: get(&MIN_ON) as usize,
            in_rf: vec![false; n],
            off: vec![false; n],
            pkts_cur: vec![0; n],
            pkts_prev: vec![0; n],
            t_roll: 0,
            rtt_min: Nanos::MAX,
            srtt: 0,
            mdev: 0,
            t_dup: 0,
            count: 0,
            t_on: 0,
            n_on: n,
            on_area: 0,
            on_at: 0,
            on_from: 0,
            stats: RxStats::default(),
        }
    }

    /// Segments of subflow `i` over about the last RTT.
    #[inline]
    fn throughput(&self, i: usize) -> u32 {
        self.pkts_cur[i] + self.pkts_prev[i]
    }

    /// The subflow with the highest throughput among those `ok` accepts.
    #[inline]
    fn busiest(&self, ok: impl Fn(usize) -> bool) -> Option<usize> {
        let mut best: Option<(usize, u32)> = None;
        for i in 0..self.in_rf.len() {
            if ok(i) && best.is_none_or(|(_, b)| self.throughput(i) > b) {
                best = Some((i, self.throughput(i)));
            }
        }
        best.map(|b| b.0)
    }

    #[inline]
    fn set_on_count(&mut self, now: Nanos, n_on: usize) {
        self.on_area += self.n_on as u128 * now.saturating_sub(self.on_at) as u128;
        self.on_at = now;
        self.n_on = n_on;
    }

    #[inline]
    pub fn on_arrival(&mut self, a: &Arrival, act: &mut impl FnMut(usize, RxAction)) {
        let now = a.now;
        if now >= self.t_roll {
            std::mem::swap(&mut self.pkts_cur, &mut self.pkts_prev);
            self.pkts_cur.iter_mut().for_each(|p| *p = 0);
            self.t_roll = now + self.srtt.max(NS_PER_MS);
        }
        self.pkts_cur[a.sub] += 1;
        if a.rtt > 0 && !a.retransmission && !self.off[a.sub] {
            let r = a.rtt;
            self.rtt_min = self.rtt_min.min(r);
            if self.srtt == 0 {
                self.srtt = r;
                self.mdev = r / 2;
            } else {
                self.mdev = (3 * self.mdev + self.srtt.abs_diff(r)) / 4;
                self.srtt = (7 * self.srtt + r) / 8;
            }
            if r - self.rtt_min >= self.mdev {
                if now >= self.t_dup {
                    let (rf, off) = (&self.in_rf, &self.off);
                    if let Some(r) = self.busiest(|i| !rf[i] && !off[i]) {
                        self.in_rf[r] = true;
                        self.stats.dupacks += 1;
                        act(r, RxAction::DupAck);
                    } else if self.n_on > self.min_on {
                        let off = &self.off;
                        if let Some(r) = self.busiest(|i| !off[i]) {
                            self.off[r] = true;
                            self.set_on_count(now, self.n_on - 1);
                            self.stats.offs += 1;
                            act(r, RxAction::Off);
                        }
                    }
                    self.count += 1;
                    self.t_dup = now + (self.interval as f64 / (self.count as f64).sqrt()) as Nanos;
                }
            } else {
                self.count = 0;
                if now.saturating_sub(self.t_on) >= self.srtt {
                    if let Some(r) = self.off.iter().position(|&o| o) {
                        self.off[r] = false;
                        self.in_rf[r] = false;
                        self.t_on = now;
                        self.set_on_count(now, self.n_on + 1);
                        self.stats.ons += 1;
                        act(r, RxAction::On);
                    }
                }
            }
        }
        if a.retransmission {
            self.in_rf[a.sub] = false;
        }
    }

    pub fn reset_averages(&mut self, now: Nanos) {
        self.on_area = 0;
        self.on_at = now;
        self.on_from = now;
        self.stats = RxStats::default();
    }

    pub fn metrics(&self, now: Nanos) -> Vec<(String, f64)> {
        let area = self.on_area + self.n_on as u128 * now.saturating_sub(self.on_at) as u128;
        let span = now.saturating_sub(self.on_from);
        let mean = if span > 0 { area as f64 / span as f64 } else { self.n_on as f64 };
        vec![("subflows_on_mean".to_string(), mean), ("subflows_on_end".to_string(), self.n_on as f64)]
    }

    /// Whether subflow `i` is off (for tests and traces).
    pub fn is_off(&self, i: usize) -> bool {
        self.off[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = NS_PER_MS;

    fn ctl(n: usize, min_on: f64) -> PopCtl {
        PopCtl::new(n, &|p: &ParamInfo| if p.name == "min_on" { min_on } else { p.default })
    }

    fn arrive(c: &mut PopCtl, now: Nanos, sub: usize, rtt: Nanos, retx: bool) -> Vec<(usize, RxAction)> {
        let mut out = Vec::new();
        let a = Arrival { now, sub, rtt, retransmission: retx, in_order: !retx, ..Default::default() };
        c.on_arrival(&a, &mut |s, x| out.push((s, x)));
        out
    }

    #[test]
    fn dupacks_busiest_first_then_turns_off_then_back_on() {
        let mut c = ctl(3, 1.0);
        // Samples at the minimum: below target, nothing to turn on.
        for t in 0..10 {
            assert!(arrive(&mut c, t * MS, (t % 3) as usize, 50 * MS, false).is_empty());
        }
        // Subflow 2 gets most packets.
        for t in 10..20 {
            arrive(&mut c, t * MS, 2, 50 * MS, false);
        }
        // The RTT jumps: 3-dup-ACK on the busiest subflow at once (t_dup = 0).
        assert_eq!(arrive(&mut c, 20 * MS, 0, 80 * MS, false), vec![(2, RxAction::DupAck)]);
        // Within the interval (100 ms / sqrt(1)): nothing.
        assert!(arrive(&mut c, 60 * MS, 0, 90 * MS, false).is_empty());
        let next = arrive(&mut c, 120 * MS, 0, 90 * MS, false);
        assert_eq!(next.len(), 1);
        assert_eq!(next[0].1, RxAction::DupAck);
        assert_ne!(next[0].0, 2, "subflow 2 is in recovery");
        // Next after 100 / sqrt(2) = 70.7 ms: not at +70 ms, at +71 ms.
        assert!(arrive(&mut c, 190 * MS, 1, 95 * MS, false).is_empty());
        let third = arrive(&mut c, 191 * MS, 1, 95 * MS, false);
        assert_eq!(third.len(), 1);
        // All three in recovery now: the next action turns the busiest off.
        let t = 191 * MS + 57_735_027 + 1;
        let off = arrive(&mut c, t, 1, 99 * MS, false);
        assert_eq!(off.len(), 1);
        assert_eq!(off[0].1, RxAction::Off);
        assert!(c.is_off(off[0].0));
        assert_eq!(c.stats, RxStats { dupacks: 3, offs: 1, ons: 0 });
        // A retransmission takes subflow 2 out of recovery: it can be dup-ACKed again.
        arrive(&mut c, t + 1, 2, 0, true);
        let again = arrive(&mut c, t + 200 * MS, 2, 99 * MS, false);
        assert_eq!(again, vec![(2, RxAction::DupAck)]);
        // Below target (RTT back at the minimum): turned on again, one per RTT.
        let on = arrive(&mut c, t + 400 * MS, 2, 50 * MS, false);
        assert_eq!(on, vec![(off[0].0, RxAction::On)]);
        assert!(!c.is_off(off[0].0));
    }

    #[test]
    fn never_below_min_on() {
        let mut c = ctl(2, 2.0);
        arrive(&mut c, 0, 0, 50 * MS, false);
        let mut actions = Vec::new();
        for k in 1..50u64 {
            actions.extend(arrive(&mut c, k * 200 * MS, (k % 2) as usize, 50 * MS + k * 10 * MS, false));
        }
        assert_eq!(actions.iter().filter(|a| a.1 == RxAction::DupAck).count(), 2);
        assert!(actions.iter().all(|a| a.1 != RxAction::Off), "both must stay on: {actions:?}");
    }
}
