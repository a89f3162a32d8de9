//! MPCubic (Le, Hong, Lee 2011; its equations as the MPMTP paper restates them,
//! Lee & Chung 2017 Eq. 10; docs/references.md): every subflow follows
//! `w_r(t) = delta_r C (t_r - K_r)^3 + w_r^max`, t_r the time since the subflow's
//! last loss and K_r the time the curve takes to climb back to w_r^max.
//!
//! The MPCubic paper's own text could not be obtained; the MPMTP text gives delta's
//! role only ("fairness with single path flows"). Its value is derived here from the
//! ingredients MPCubic's abstract names (CUBIC's analytic model and the coupled
//! design goals): a CUBIC flow's mean window scales with `C^(1/4)`, so with a common
//! delta the connection's rate equals the best single-path CUBIC's when
//! `delta = (max_r x_r / sum_i x_i)^4`. One subflow: delta = 1, plain CUBIC (no
//! Reno-friendly region, no HyStart). K is recomputed with the current delta so the
//! curve always starts at the post-loss window and reaches w_max at K.
//! `time_origin` chooses where t starts: at the loss (Eq. 10, default) or, as
//! Linux does, at the first congestion-avoidance ACK plus one minimum RTT.

use super::base::Path;
use super::window::{record, Coupled, CouplingRule};
use crate::common::{secs, MIN_SSTHRESH};
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent, CongestionKind};
use mpcc_core::Nanos;

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "mpcubic",
    "multipath CUBIC (Le et al.): per-subflow CUBIC curve scaled by delta = (max x / sum x)^4",
    "docs/algorithms/mpcubic.md",
    &[
        INIT_CWND,
        param("c", 0.4, 0.01, 10.0, "CUBIC scaling constant (segments/s^3)"),
        param("beta", 0.3, 0.01, 0.99, "multiplicative decrease fraction"),
        param("fast_convergence", 1.0, 0.0, 1.0, "1: lower W_max after a loss below the previous W_max"),
        param(
            "time_origin",
            0.0,
            0.0,
            1.0,
            "0: t from the last loss (Eq. 10); 1: Linux (first CA ACK, one min RTT ahead)",
        ),
        param("coupled", 1.0, 0.0, 1.0, "1: delta = (max x / sum x)^4; 0: delta = 1 (uncoupled CUBIC)"),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    let mut m = MpCubic::new(p("init_cwnd"), p("c"), p("beta"), p("fast_convergence") >= 0.5);
    m.rule.origin = if p("time_origin") >= 0.5 { TimeOrigin::Linux } else { TimeOrigin::Loss };
    m.rule.coupled = p("coupled") >= 0.5;
    Controller::Mpcubic(m)
}

#[derive(Clone, Debug)]
pub struct CubicPath {
    pub p: Path,
    pub w_max: f64,
    /// Start of the current growth epoch (None until the first CA ACK after a loss).
    pub epoch: Option<Nanos>,
    /// Window at the start of the epoch.
    pub origin: f64,
}

record!(CubicPath);

/// Start of the time axis of the cubic curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeOrigin {
    /// Eq. 10: t is the time elapsed since the last loss (the congestion event).
    Loss,
    /// Linux `tcp_cubic.c`: the epoch starts at the first congestion-avoidance ACK
    /// after the loss and the curve is read one minimum RTT ahead.
    Linux,
}

/// MPCubic's rule.
#[derive(Clone, Debug)]
pub struct MpCubicRule {
    pub c: f64,
    /// Multiplicative decrease fraction (window goes to (1 - beta) w).
    pub beta: f64,
    pub fast_convergence: bool,
    /// Where t starts (see the module comment).
    pub origin: TimeOrigin,
    /// false: delta = 1 on every subflow (uncoupled CUBIC), for comparisons.
    pub coupled: bool,
}

/// MPCubic: its rule over the shared per-subflow driver.
pub type MpCubic = Coupled<MpCubicRule>;

impl MpCubic {
    pub fn new(init_cwnd: f64, c: f64, beta: f64, fast_convergence: bool) -> MpCubic {
        Coupled::with_rule(
            init_cwnd,
            MpCubicRule { c, beta, fast_convergence, origin: TimeOrigin::Loss, coupled: true },
        )
    }
    pub fn delta(&self) -> f64 {
        self.rule.delta(&self.paths)
    }
    pub fn target(&self, r: usize, now: Nanos, dc: f64) -> f64 {
        self.rule.target(&self.paths, r, now, dc)
    }
}

impl MpCubicRule {
    /// `(max x / sum x)^4` over eligible subflows (1 with one subflow or uncoupled).
    #[inline]
    pub fn delta(&self, paths: &[CubicPath]) -> f64 {
        if !self.coupled {
            return 1.0;
        }
        let (mut sum, mut max) = (0.0, 0.0f64);
        for q in paths {
            let x = q.p.rate();
            sum += x;
            max = max.max(x);
        }
        let d = (max / sum).powi(4);
        if d.is_finite() && d > 0.0 {
            d
        } else {
            1.0
        }
    }

    /// K_r, the time the curve takes from the epoch's origin to w_max with scale `dc`.
    #[inline]
    fn k(q: &CubicPath, dc: f64) -> f64 {
        ((q.w_max - q.origin).max(0.0) / dc).cbrt()
    }

    /// CUBIC's target window for subflow r at `now` with scale `dc = delta * C`.
    #[inline]
    pub fn target(&self, paths: &[CubicPath], r: usize, now: Nanos, dc: f64) -> f64 {
        let q = &paths[r];
        let epoch = q.epoch.unwrap_or(now);
        let ahead = if self.origin == TimeOrigin::Linux { q.p.min_rtt } else { 0.0 };
        let t = secs(now.saturating_sub(epoch)) + ahead;
        let k = Self::k(q, dc);
        q.w_max + dc * (t - k).powi(3)
    }
}

impl CouplingRule for MpCubicRule {
    type Sub = CubicPath;
    fn new_subflow(&mut self, init_cwnd: f64) -> CubicPath {
        CubicPath { p: Path::new(init_cwnd), w_max: 0.0, epoch: None, origin: 0.0 }
    }

    #[inline]
    fn increase(&mut self, subs: &mut [CubicPath], sf: usize, left: f64, ev: &AckEvent) {
        let q = &mut subs[sf];
        if q.epoch.is_none() {
            q.epoch = Some(ev.now);
            q.origin = q.p.cwnd;
            if q.w_max < q.p.cwnd {
                q.w_max = q.p.cwnd; // K = 0: convex growth from here
            }
        }
        let dc = self.delta(subs) * self.c;
        let target = self.target(subs, sf, ev.now, dc);
        let p = &mut subs[sf].p;
        // Per acked segment (target - w)/w, at most 1/2 (Linux: cnt >= 2); a
        // plateau creeps at 1/(100 w).
        let per = if target > p.cwnd { ((target - p.cwnd) / p.cwnd).min(0.5) } else { 0.01 / p.cwnd };
        p.cwnd += per * left;
    }

    fn decrease(&mut self, subs: &mut [CubicPath], sf: usize, ev: &CongestionEvent) {
        let fc = self.fast_convergence;
        let beta = self.beta;
        let at_loss = self.origin == TimeOrigin::Loss;
        let q = &mut subs[sf];
        q.epoch = None;
        let w = q.p.cwnd;
        q.w_max = if fc && w < q.w_max { w * (2.0 - beta) / 2.0 } else { w };
        q.p.reduce_to(ev.kind, w * (1.0 - beta));
        if ev.kind == CongestionKind::Timeout {
            q.w_max = 0.0; // Linux forgets W_max after an RTO
        }
        q.p.ssthresh = q.p.ssthresh.max(MIN_SSTHRESH);
        if at_loss && ev.kind != CongestionKind::Timeout {
            // Eq. 10: t_r counts from the loss, the curve starting at the reduced window.
            q.epoch = Some(ev.now);
            q.origin = q.p.cwnd;
        }
    }

    /// `delta` (connection), `w_max` (segments) and `k` (s, with the current delta).
    fn metrics(&self, subs: &[CubicPath], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        let d = self.delta(subs);
        out("delta", d);
        out("w_max", subs[sf].w_max);
        out("k", Self::k(&subs[sf], d * self.c));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;

    #[test]
    fn single_subflow_follows_cubic_vectors() {
        // Kernel test vectors C1/C1b/C2/C6 (an integer model of Linux's tcp_cubic.c;
        // real-valued here; kernel integers noted).
        let mut c = MpCubic::new(10.0, 0.4, 0.3, true);
        c.rule.origin = TimeOrigin::Linux; // the kernel vectors read the curve one RTT ahead
        c.add_subflow(0);
        c.paths[0].p = path(100.0, 100.0);
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert_eq!((c.cwnd(0), c.paths[0].w_max), (70.0, 100.0)); // C1
        assert_eq!(c.delta(), 1.0);
        // epoch at cwnd 70, min RTT 100 ms, 1 s later: K = cbrt(30/0.4) = 4.217 s,
        // target = 100 - 0.4 (4.2172 - 1.1)^3 = 87.885 (kernel 88, cnt 3)
        c.on_ack(0, &ack(0, 1.0, 100.0));
        let w0 = c.cwnd(0);
        let t = c.target(0, 1_000_000_000, 0.4);
        assert!((t - 87.885).abs() < 0.001, "{t}");
        // C2: 3 s -> 100 - 0.4 * 1.1172^3 = 99.442 (kernel 100: its integer delta
        // truncates 0.56 segments to 0)
        let t = c.target(0, 3_000_000_000, 0.4);
        assert!((t - 99.442).abs() < 0.001, "{t}");
        // growth per segment (target - w)/w, capped at 1/2
        c.on_ack(0, &ack(1_000_000_000, 1.0, 100.0));
        assert!((c.cwnd(0) - (w0 + (87.885 - w0) / w0)).abs() < 0.001);
        // C6: loss at 90 below w_max 100: fast convergence w_max = 90 * 1.7/2 = 76.5
        c.paths[0].p.cwnd = 90.0;
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert!((c.paths[0].w_max - 76.5).abs() < 1e-12); // kernel 76
        assert!((c.cwnd(0) - 63.0).abs() < 1e-12);
    }

    #[test]
    fn delta_makes_n_equal_subflows_one_flow() {
        let mut c = MpCubic::new(10.0, 0.4, 0.3, true);
        for _ in 0..2 {
            let i = c.add_subflow(0);
            c.paths[i].p = path(50.0, 100.0);
        }
        assert!((c.delta() - 1.0 / 16.0).abs() < 1e-15);
        // unequal rates: x = (500, 250) -> (2/3)^4
        c.paths[1].p.cwnd = 25.0;
        assert!((c.delta() - (2.0f64 / 3.0).powi(4)).abs() < 1e-15);
        // the curve still passes through (0, origin) and (K, w_max) with any delta
        c.paths[0].w_max = 80.0;
        c.paths[0].origin = 56.0;
        c.paths[0].epoch = Some(0);
        c.paths[0].p.min_rtt = 0.0;
        assert!((c.target(0, 0, 0.4 / 16.0) - 56.0).abs() < 1e-9);
        let k = (24.0f64 / (0.4 / 16.0)).cbrt();
        assert!((c.target(0, (k * 1e9) as u64, 0.4 / 16.0) - 80.0).abs() < 1e-6);
    }

    /// Drives every subflow with an ACK clock (w segments per 100 ms RTT, in 1 ms
    /// steps) and returns the windows of subflow 0 at the times asked for.
    fn trajectory(c: &mut MpCubic, at: &[f64]) -> Vec<f64> {
        let (mut out, mut now) = (Vec::new(), 0u64);
        for &t in at {
            while (now as f64) < t * 1e9 {
                now += 1_000_000;
                for r in 0..c.paths.len() {
                    let w = c.cwnd(r);
                    c.on_ack(r, &ack(now, w / 100.0, 100.0));
                }
            }
            out.push(c.cwnd(0));
        }
        out
    }

    #[test]
    fn window_trajectory_follows_eq_10_by_hand() {
        // Two equal subflows (w = 100, RTT 100 ms) lose together at t = 0, so their
        // rates stay equal and delta = (1/2)^4 = 1/16 all along. Eq. 10 by hand, with
        // C = 0.4, beta = 0.3: delta C = 0.025, K = cbrt(0.3 * 100 / 0.025) =
        // cbrt(1200) = 10.6266 s, w(t) = 100 + 0.025 (t - 10.6266)^3:
        //   w(0) = 70, w(2) = 100 - 0.025 * 8.6266^3 = 83.951, w(5) = 95.547,
        //   w(8) = 99.547, w(13) = 100.334, w(16) = 103.879, w(20) = 120.589.
        // The window lags the curve by about one RTT (growth (target - w)/w per
        // segment), at most 0.84 segment here, hence the tolerance of 1.
        let mut c = MpCubic::new(10.0, 0.4, 0.3, true);
        for _ in 0..2 {
            let i = c.add_subflow(0);
            c.paths[i].p = path(100.0, 100.0);
        }
        for r in 0..2 {
            c.on_congestion(r, &cong(CongestionKind::Loss));
        }
        assert_eq!((c.cwnd(0), c.paths[0].w_max), (70.0, 100.0));
        let times = [2.0, 5.0, 8.0, 13.0, 16.0, 20.0];
        let hand = [83.951, 95.547, 99.547, 100.334, 103.879, 120.589];
        let got = trajectory(&mut c, &times);
        for ((t, h), w) in times.iter().zip(hand).zip(&got) {
            assert!((w - h).abs() < 1.0, "t = {t} s: window {w:.3}, Eq. 10 gives {h}");
        }
        // (subflow 0 is acked first in each step, so the two differ slightly)
        assert!((c.cwnd(0) - c.cwnd(1)).abs() < 0.1, "{} vs {}", c.cwnd(0), c.cwnd(1));
        // Uncoupled (delta = 1): K = cbrt(75) = 4.2172 s, w(8) = 100 + 0.4 * 3.7828^3
        // = 121.653, the level the coupled pair reaches only at 20 s. Lag here is
        // at most 1.8 segments (slope 17 segments/s).
        let mut u = MpCubic::new(10.0, 0.4, 0.3, true);
        u.rule.coupled = false;
        for _ in 0..2 {
            let i = u.add_subflow(0);
            u.paths[i].p = path(100.0, 100.0);
        }
        for r in 0..2 {
            u.on_congestion(r, &cong(CongestionKind::Loss));
        }
        let got = trajectory(&mut u, &[2.0, 8.0]);
        assert!((got[0] - 95.640).abs() < 2.0 && (got[1] - 121.653).abs() < 2.0, "{got:?}");
    }

    #[test]
    fn metrics_are_delta_w_max_and_k() {
        let mut c = MpCubic::new(10.0, 0.4, 0.3, true);
        for _ in 0..2 {
            let i = c.add_subflow(0);
            c.paths[i].p = path(50.0, 100.0);
        }
        c.paths[0].w_max = 80.0;
        c.paths[0].origin = 56.0;
        let m = crate::metrics_of(&c, 0);
        assert_eq!(&m[..2], [("delta", 1.0 / 16.0), ("w_max", 80.0)]);
        assert!(m[2].0 == "k" && (m[2].1 - (24.0f64 / (0.4 / 16.0)).cbrt()).abs() < 1e-12, "{m:?}");
    }
}
