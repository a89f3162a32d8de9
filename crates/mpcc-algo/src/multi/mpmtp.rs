//! MPMTP, multipath multimedia transport protocol (Lee & Chung 2017,
//! docs/references.md): concave-convex-linear subflows with a load-balancing factor B_r and a
//! CUBIC-fairness factor delta_r.
//!
//! Per acked segment in congestion avoidance `w += delta B alpha / w`; on loss
//! `w -= beta w` and `w_max = w`.
//! - Concave (w < w_max): `alpha = c (w - w_max)^2 + 1`, `c = (alpha_max - 1) /
//!   (beta w_max)^2`, `alpha_max = (1 - beta) w_max` (the window the epoch starts at).
//! - Convex (w >= w_max): alpha starts at 1 and grows by 1 per round, capped at w.
//! - Linear (alpha floored at 1, Eq. 11): once a round's minimum RTT exceeds the base RTT by `rise` (fraction),
//!   the RTT of that round is RTT_min; while srtt > RTT_min alpha is multiplied by
//!   `L = l1 / (l2 + srtt)`, the hyperbola through (RTT_min, 1) and
//!   (RTT_max = srtt at the last loss, 1/w), clamped to [1/w, 1].
//! - B_r from per-path loss rates (losses per delivered segment): B_max =
//!   `1 - (p_max - p_min)/p_avg` on the lossiest path, B_min = `2 - p_min/p_avg` on the
//!   least lossy, the hyperbola `b1 / (b2 + p)` through both in between.
//! - delta (common to all subflows), from equating the connection's rate with the
//!   best single-path CUBIC's (Eq. 30; see docs/algorithms/mpmtp.md):
//!   `delta = (C(4-beta)/(4 beta))^(1/3) beta max_r(w_r^2 / (abar_r B_r rtt_r^(1/3))) / (sum x)^(4/3)`,
//!   where abar_r is the mean per acked segment, over the subflow's last loss cycle,
//!   of the alpha actually applied (L included, floored at 1 by Eq. 11): the
//!   equilibrium (Eq. 26) holds for the mean increase, and a delta fixed for a cycle
//!   keeps the profile's shape inside it.
//! - Eq. 11 bounds alpha: `1 <= alpha = L * shape <= w`. Without the floor, L -> 1/w
//!   near w_max made the increase 1/w^2 per ACK: a subflow sharing a DropTail queue
//!   with a loss-based flow stopped growing for tens of seconds (docs/algorithms/mpmtp.md).

use super::base::Path;
use super::window::{record, Coupled, CouplingRule};
use crate::common::secs;
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "mpmtp",
    "MPMTP (Lee & Chung): concave-convex-linear subflows, loss-rate load balancing, CUBIC fairness",
    "docs/algorithms/mpmtp.md",
    &[
        INIT_CWND,
        param("beta", 0.3, 0.01, 0.99, "multiplicative decrease fraction"),
        param("c", 0.4, 0.01, 10.0, "CUBIC's C in the fairness factor (segments/s^3)"),
        param("load_balance", 1.0, 0.0, 1.0, "1: multiply the increase by B_r"),
        param("fairness", 1.0, 0.0, 1.0, "1: multiply the increase by delta"),
        param(
            "rise",
            0.125,
            0.0,
            10.0,
            "round-minimum RTT rise over the base RTT (fraction) that starts the linear profile",
        ),
        param("b_floor", 0.1, 0.0, 1.0, "lower bound of B_r"),
        param("delta_max", 10.0, 0.01, 1000.0, "upper bound of delta"),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Mpmtp(MpMtp::new(
        p("init_cwnd"),
        p("beta"),
        p("c"),
        p("load_balance") >= 0.5,
        p("fairness") >= 0.5,
        p("rise"),
        p("b_floor"),
        p("delta_max"),
    ))
}

#[derive(Clone, Debug)]
pub struct MtpPath {
    pub p: Path,
    /// Window at the last loss (0 before the first loss).
    pub w_max: f64,
    /// Convex-profile alpha (starts at 1 when the window reaches w_max).
    pub alpha_cvx: f64,
    pub in_convex: bool,
    /// RTT at which the rise was detected in this epoch (0 = not yet).
    pub rise_rtt: f64,
    /// srtt at the last loss (0 = none).
    pub loss_rtt: f64,
    round_min: f64,
    pub delivered: f64,
    pub losses: f64,
    /// The applied alpha's (L included, floored at 1) mean per acked segment over the
    /// last loss cycle (1 before the first), and the sums that make it over the current cycle.
    pub alpha_mean: f64,
    alpha_sum: f64,
    alpha_acked: f64,
}

// Out of every coupling sum, the loss-rate balance included.
record!(MtpPath, |r| r.delivered = 0.0);

/// MPMTP's rule.
#[derive(Clone, Debug)]
pub struct MpMtpRule {
    pub beta: f64,
    /// CUBIC's C in the fairness factor (segments/s^3).
    pub c: f64,
    pub load_balance: bool,
    pub fairness: bool,
    /// RTT rise (fraction of the base RTT) that switches to the linear profile.
    pub rise: f64,
    /// Lower bound of B (the paper's B_max can go negative).
    pub b_floor: f64,
    pub delta_max: f64,
}

/// MPMTP: its rule over the shared per-subflow driver.
pub type MpMtp = Coupled<MpMtpRule>;

impl MpMtp {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        init_cwnd: f64, beta: f64, c: f64, load_balance: bool, fairness: bool, rise: f64, b_floor: f64, delta_max: f64,
    ) -> MpMtp {
        Coupled::with_rule(init_cwnd, MpMtpRule { beta, c, load_balance, fairness, rise, b_floor, delta_max })
    }

    /// The increasing parameter alpha_r (before B and delta); see [`MpMtpRule::alpha`].
    pub fn alpha(&mut self, r: usize) -> f64 {
        self.rule.alpha(&mut self.paths, r)
    }

    /// Load-balancing factor B_r; see [`MpMtpRule::balance`].
    pub fn balance(&self, r: usize) -> f64 {
        self.rule.balance(&self.paths, r)
    }

    /// Common fairness factor delta; see [`MpMtpRule::delta`].
    pub fn delta(&self) -> f64 {
        self.rule.delta(&self.paths)
    }

    /// The concave or convex profile of subflow `r`'s alpha, without L.
    pub fn shape(&mut self, r: usize) -> f64 {
        self.rule.shape(&mut self.paths[r])
    }

    /// L of a subflow; see [`MpMtpRule::linear`].
    pub fn linear(q: &MtpPath) -> f64 {
        MpMtpRule::linear(q)
    }
}

impl MpMtpRule {
    /// The increasing parameter alpha_r (before B and delta): the concave/convex shape
    /// times L, kept within Eq. 11's bounds `1 <= alpha_r <= w_r` (the shape is capped
    /// at w; L's product with it is floored at alpha_min = 1, so the linear profile
    /// still grows by at least one segment per round, "linearly until a packet loss").
    pub fn alpha(&self, subs: &mut [MtpPath], r: usize) -> f64 {
        (self.shape(&mut subs[r]) * Self::linear(&subs[r])).max(1.0)
    }

    /// The concave or convex profile of alpha_r, without L.
    fn shape(&self, q: &mut MtpPath) -> f64 {
        let beta = self.beta;
        let w = q.p.cwnd;
        if q.w_max <= 0.0 {
            return 1.0;
        }
        if w < q.w_max {
            q.in_convex = false;
            let a_max = (1.0 - beta) * q.w_max;
            let span = beta * q.w_max;
            let c = (a_max - 1.0).max(0.0) / (span * span);
            (c * (w - q.w_max) * (w - q.w_max) + 1.0).min(w.max(1.0))
        } else {
            if !q.in_convex {
                q.in_convex = true;
                q.alpha_cvx = 1.0;
            }
            q.alpha_cvx
        }
    }

    /// L: 1 until the RTT rise, then falls from 1 at RTT_min to 1/w at RTT_max.
    pub fn linear(q: &MtpPath) -> f64 {
        let (cur, lo) = (q.p.srtt, q.rise_rtt);
        let l_min = 1.0 / q.p.cwnd.max(1.0);
        if lo <= 0.0 || cur <= lo {
            return 1.0;
        }
        let hi = q.loss_rtt;
        if hi <= lo {
            return l_min; // already beyond the RTT the last loss happened at
        }
        // L(lo) = 1, L(hi) = l_min with L = l1 / (l2 + rtt)
        let l2 = (l_min * hi - lo) / (1.0 - l_min);
        let l1 = l2 + lo;
        let l = l1 / (l2 + cur);
        if l.is_finite() {
            l.clamp(l_min, 1.0)
        } else {
            l_min
        }
    }

    #[inline]
    fn loss_rate(q: &MtpPath) -> f64 {
        if q.delivered > 0.0 {
            q.losses / q.delivered
        } else {
            0.0
        }
    }

    /// Load-balancing factor B_r (1 when the loss rates are equal or unknown).
    pub fn balance(&self, subs: &[MtpPath], r: usize) -> f64 {
        let (mut lo, mut hi, mut sum, mut n) = (f64::INFINITY, 0.0f64, 0.0, 0u32);
        for q in subs.iter().filter(|q| q.delivered > 0.0) {
            let p = Self::loss_rate(q);
            lo = lo.min(p);
            hi = hi.max(p);
            sum += p;
            n += 1;
        }
        if n < 2 || hi <= lo || sum <= 0.0 || subs[r].delivered <= 0.0 {
            return 1.0;
        }
        let avg = sum / n as f64;
        let b_hi = (1.0 - (hi - lo) / avg).max(self.b_floor); // paper's B_max, lossiest path
        let b_lo = (2.0 - lo / avg).max(self.b_floor); // paper's B_min, least lossy path
        let p = Self::loss_rate(&subs[r]);
        if p >= hi {
            return b_hi;
        }
        if p <= lo || b_hi == b_lo {
            return b_lo;
        }
        let b2 = (b_lo * lo - b_hi * hi) / (b_hi - b_lo);
        let b1 = b_hi * (b2 + hi);
        (b1 / (b2 + p)).clamp(b_hi.min(b_lo), b_hi.max(b_lo))
    }

    /// Common fairness factor delta, with each alpha at its last cycle's mean.
    pub fn delta(&self, subs: &[MtpPath]) -> f64 {
        let b = self.beta;
        let k = (self.c * (4.0 - b) / (4.0 * b)).cbrt() * b;
        let (mut sum_x, mut best) = (0.0, 0.0f64);
        for (i, q) in subs.iter().enumerate().filter(|(_, q)| q.p.eligible()) {
            sum_x += q.p.rate();
            let bi = if self.load_balance { self.balance(subs, i) } else { 1.0 };
            best = best.max(q.p.cwnd * q.p.cwnd / (q.alpha_mean * bi * q.p.srtt.cbrt()));
        }
        let d = k * best / sum_x.powf(4.0 / 3.0);
        if d.is_finite() && d > 0.0 {
            d.min(self.delta_max)
        } else {
            1.0
        }
    }
}

impl CouplingRule for MpMtpRule {
    type Sub = MtpPath;

    fn new_subflow(&mut self, init_cwnd: f64) -> MtpPath {
        MtpPath {
            p: Path::new(init_cwnd),
            w_max: 0.0,
            alpha_cvx: 1.0,
            in_convex: false,
            rise_rtt: 0.0,
            loss_rtt: 0.0,
            round_min: f64::INFINITY,
            delivered: 0.0,
            losses: 0.0,
            alpha_mean: 1.0,
            alpha_sum: 0.0,
            alpha_acked: 0.0,
        }
    }

    /// Delivered segments (the loss rate's denominator), the RTT-rise detection on
    /// each finished round's minimum RTT, and the convex alpha's step per round.
    #[inline]
    fn observe(&mut self, q: &mut MtpPath, ev: &AckEvent) {
        q.delivered += ev.acked.max(0.0);
        if ev.round_start {
            if q.w_max > 0.0
                && q.rise_rtt == 0.0
                && q.round_min.is_finite()
                && q.round_min > q.p.min_rtt * (1.0 + self.rise)
            {
                q.rise_rtt = q.round_min;
            }
            q.round_min = f64::INFINITY;
            if q.in_convex {
                q.alpha_cvx = (q.alpha_cvx + 1.0).min(q.p.cwnd.max(1.0));
            }
        }
        if ev.rtt > 0 {
            q.round_min = q.round_min.min(secs(ev.rtt));
        }
    }

    #[inline]
    fn increase(&mut self, subs: &mut [MtpPath], sf: usize, left: f64, _ev: &AckEvent) {
        let a = self.alpha(subs, sf);
        let b = if self.load_balance { self.balance(subs, sf) } else { 1.0 };
        let d = if self.fairness { self.delta(subs) } else { 1.0 };
        let q = &mut subs[sf];
        q.alpha_sum += a * left;
        q.alpha_acked += left;
        q.p.cwnd += d * b * a * left / q.p.cwnd;
    }

    fn decrease(&mut self, subs: &mut [MtpPath], sf: usize, ev: &CongestionEvent) {
        let q = &mut subs[sf];
        q.losses += 1.0;
        if q.alpha_acked > 0.0 {
            q.alpha_mean = q.alpha_sum / q.alpha_acked;
        }
        (q.alpha_sum, q.alpha_acked) = (0.0, 0.0);
        q.w_max = q.p.cwnd;
        q.loss_rtt = if ev.srtt > 0 { secs(ev.srtt) } else { q.p.srtt };
        q.rise_rtt = 0.0;
        q.in_convex = false;
        q.p.reduce_to(ev.kind, q.p.cwnd * (1.0 - self.beta));
    }

    /// `w_max`, the last cycle's mean alpha, L, B_r and the common delta.
    fn metrics(&self, subs: &[MtpPath], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        let q = &subs[sf];
        out("w_max", q.w_max);
        out("alpha_mean", q.alpha_mean);
        out("linear", Self::linear(q));
        out("balance", if self.load_balance { self.balance(subs, sf) } else { 1.0 });
        out("delta", if self.fairness { self.delta(subs) } else { 1.0 });
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::{CongestionControl, CongestionKind};

    fn mtp(lb: bool, fair: bool) -> MpMtp {
        MpMtp::new(10.0, 0.3, 0.4, lb, fair, 0.125, 0.1, 10.0)
    }

    #[test]
    fn concave_alpha_falls_from_window_to_one() {
        let mut c = mtp(false, false);
        c.add_subflow(0);
        c.paths[0].p = path(100.0, 100.0);
        let mut lossy = cong(CongestionKind::Loss);
        lossy.srtt = 100 * MS;
        c.on_congestion(0, &lossy);
        assert_eq!((c.cwnd(0), c.paths[0].w_max), (70.0, 100.0));
        // at the epoch start alpha = alpha_max = 70 (fast), near w_max alpha -> 1
        assert!((c.alpha(0) - 70.0).abs() < 1e-9);
        c.paths[0].p.cwnd = 85.0; // half way: c = 69 / 900, alpha = 69 * 225/900 + 1
        assert!((c.alpha(0) - (69.0 / 4.0 + 1.0)).abs() < 1e-9);
        c.paths[0].p.cwnd = 99.999;
        assert!((c.alpha(0) - 1.0).abs() < 1e-6);
        // the increase per segment is alpha / w
        c.paths[0].p.cwnd = 85.0;
        c.on_ack(0, &ack(1, 1.0, 100.0));
        assert!((c.cwnd(0) - (85.0 + 18.25 / 85.0)).abs() < 1e-9);
    }

    #[test]
    fn convex_alpha_grows_once_per_round() {
        let mut c = mtp(false, false);
        c.add_subflow(0);
        c.paths[0].p = path(50.0, 100.0);
        c.paths[0].w_max = 50.0;
        assert_eq!(c.alpha(0), 1.0);
        let mut ev = ack(1, 1.0, 100.0);
        ev.round_start = true;
        c.on_ack(0, &ev);
        c.on_ack(0, &ev);
        // two round starts: alpha 1 -> 2 -> 3
        assert_eq!(c.paths[0].alpha_cvx, 3.0);
        c.paths[0].p.cwnd = 2.5;
        c.on_ack(0, &ev);
        assert_eq!(c.paths[0].alpha_cvx, 2.5, "capped at w");
    }

    #[test]
    fn linear_factor_runs_from_one_to_one_over_w() {
        let mut c = mtp(false, false);
        c.add_subflow(0);
        let q = &mut c.paths[0];
        q.p = path(20.0, 120.0);
        q.w_max = 30.0;
        q.rise_rtt = 0.120;
        q.loss_rtt = 0.200;
        assert!((MpMtp::linear(&c.paths[0]) - 1.0).abs() < 1e-12);
        c.paths[0].p.srtt = 0.200;
        assert!((MpMtp::linear(&c.paths[0]) - 1.0 / 20.0).abs() < 1e-12);
        c.paths[0].p.srtt = 0.160; // on the hyperbola, strictly between
        let l = MpMtp::linear(&c.paths[0]);
        let l2 = (0.05 * 0.2 - 0.12) / 0.95;
        assert!((l - (l2 + 0.12) / (l2 + 0.16)).abs() < 1e-12 && l > 0.05 && l < 1.0);
        c.paths[0].p.srtt = 0.300;
        assert!((MpMtp::linear(&c.paths[0]) - 0.05).abs() < 1e-12);
    }

    #[test]
    fn rtt_rise_detected_from_round_minimum() {
        let mut c = mtp(false, false);
        c.add_subflow(0);
        c.paths[0].p = path(20.0, 100.0);
        c.paths[0].w_max = 30.0;
        let mut ev = ack(1, 1.0, 105.0);
        ev.min_rtt = 100 * MS;
        c.on_ack(0, &ev);
        ev.round_start = true;
        c.on_ack(0, &ev); // round min 105 < 112.5: no rise
        assert_eq!(c.paths[0].rise_rtt, 0.0);
        ev.round_start = false;
        ev.rtt = 115 * MS;
        c.on_ack(0, &ev);
        ev.round_start = true;
        c.on_ack(0, &ev); // round min 105 (the round-start sample) < 112.5
        assert_eq!(c.paths[0].rise_rtt, 0.0);
        ev.round_start = false;
        c.on_ack(0, &ev);
        ev.round_start = true;
        c.on_ack(0, &ev); // round min 115 > 112.5: rise
        assert!((c.paths[0].rise_rtt - 0.115).abs() < 1e-12);
    }

    #[test]
    fn load_balance_slows_the_lossier_path() {
        let mut c = mtp(true, false);
        for (d, l) in [(1000.0, 10.0), (1000.0, 20.0), (1000.0, 15.0)] {
            let i = c.add_subflow(0);
            c.paths[i].delivered = d;
            c.paths[i].losses = l;
        }
        // p = (0.01, 0.02, 0.015), avg 0.015: B_max = 1 - 0.01/0.015 = 1/3 at 0.02,
        // B_min = 2 - 0.01/0.015 = 4/3 at 0.01, the hyperbola in between.
        assert!((c.balance(1) - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.balance(0) - 4.0 / 3.0).abs() < 1e-12);
        let mid = c.balance(2);
        assert!(mid > 1.0 / 3.0 && mid < 4.0 / 3.0);
        let (bh, bl, hi, lo) = (1.0 / 3.0, 4.0 / 3.0, 0.02, 0.01);
        let b2 = (bl * lo - bh * hi) / (bh - bl);
        assert!((mid - bh * (b2 + hi) / (b2 + 0.015)).abs() < 1e-12);
        // very unequal rates: B_max would be negative, floored
        c.paths[1].losses = 200.0;
        assert_eq!(c.balance(1), 0.1);
        // switched off: the increase ignores B
        let mut c2 = mtp(false, false);
        c2.add_subflow(0);
        c2.paths[0].delivered = 10.0;
        c2.paths[0].losses = 5.0;
        c2.paths[0].p = path(10.0, 50.0);
        c2.on_ack(0, &ack(1, 1.0, 50.0));
        assert!((c2.cwnd(0) - 10.1).abs() < 1e-12);
    }

    #[test]
    fn fairness_factor_hand_computed() {
        let mut c = mtp(false, true);
        c.add_subflow(0);
        c.paths[0].p = path(100.0, 100.0);
        // one path: delta = (0.4 * 3.7 / 1.2)^(1/3) * 0.3 * rtt * w^(2/3)
        let k = (0.4f64 * 3.7 / 1.2).cbrt() * 0.3;
        let one = k * 0.1 * 100.0f64.powf(2.0 / 3.0);
        assert!((c.delta() - one).abs() < 1e-9, "{} vs {one}", c.delta());
        // two equal paths on one bottleneck: windows halve, sum x doubles at the same
        // total -> delta scales by (1/2)^2 / 1 ... = (w/2)^2 / (sum x)^(4/3) ratio
        let mut c2 = mtp(false, true);
        for _ in 0..2 {
            let i = c2.add_subflow(0);
            c2.paths[i].p = path(50.0, 100.0);
        }
        assert!((c2.delta() / one - 0.25).abs() < 1e-9);
        // A cycle whose alpha averaged 4 per acked segment: delta compensates it.
        c.paths[0].alpha_mean = 4.0;
        assert!((c.delta() - one / 4.0).abs() < 1e-9);
        // clamp
        c.rule.delta_max = 0.1;
        assert_eq!(c.delta(), 0.1);
    }

    #[test]
    fn linear_profile_keeps_alpha_at_least_one_and_counts_it_in_the_mean() {
        // Eq. 11: 1 < alpha_r < w_r. At RTT_max, L = 1/w; near w_max the shape is
        // about 1, so L * shape would be about 1/w (an increase of 1/w^2 per ACK).
        let mut c = mtp(false, false);
        c.add_subflow(0);
        let q = &mut c.paths[0];
        q.p = path(99.0, 200.0);
        q.p.ssthresh = 50.0;
        q.w_max = 100.0;
        q.rise_rtt = 0.120;
        q.loss_rtt = 0.200;
        assert!((MpMtp::linear(&c.paths[0]) - 1.0 / 99.0).abs() < 1e-12);
        assert_eq!(c.alpha(0), 1.0, "floored at alpha_min");
        c.on_ack(0, &ack(0, 1.0, 200.0));
        assert!((c.cwnd(0) - (99.0 + 1.0 / 99.0)).abs() < 1e-9);
        // Early in the epoch the shape is large: L still scales it down, above 1.
        c.paths[0].p.cwnd = 70.0;
        c.paths[0].p.srtt = 0.130;
        let want = c.shape(0) * MpMtp::linear(&c.paths[0]);
        assert!(want > 1.0 && want < c.shape(0));
        assert!((c.alpha(0) - want).abs() < 1e-12);
        // The cycle mean is of the applied alpha, L included.
        c.on_ack(0, &ack(0, 1.0, 130.0));
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert!((c.paths[0].alpha_mean - (1.0 + want) / 2.0).abs() < 1e-9, "{}", c.paths[0].alpha_mean);
    }

    #[test]
    fn alpha_mean_is_the_last_cycles_mean_per_acked_segment() {
        let mut c = mtp(false, true);
        c.add_subflow(0);
        c.paths[0].p = path(100.0, 100.0);
        c.paths[0].p.ssthresh = 50.0; // congestion avoidance
        assert_eq!(c.paths[0].alpha_mean, 1.0, "1 before the first loss");
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert_eq!(c.paths[0].alpha_mean, 1.0, "a cycle without acks keeps it");
        // Concave epoch from w_max = 100: alpha(70) = 70 (the epoch's start), and
        // near w_max it is close to 1. One segment acked at each: mean of the two.
        let mut want = Vec::new();
        for w in [70.0, 99.0] {
            c.paths[0].p.cwnd = w;
            want.push(c.alpha(0));
            c.on_ack(0, &ack(0, 1.0, 100.0));
        }
        c.on_congestion(0, &cong(CongestionKind::Loss));
        let mean = (want[0] + want[1]) / 2.0;
        assert!((want[0] - 70.0).abs() < 1e-9 && want[1] < 2.0, "{want:?}");
        assert!((c.paths[0].alpha_mean - mean).abs() < 1e-9, "{} vs {mean}", c.paths[0].alpha_mean);
    }
}
