//! MPCubic (Le, Hong, Lee 2011; as the MPMTP paper restates it, Lee & Chung 2017;
//! docs/references.md):
//! every subflow follows CUBIC's curve `w_r(t) = delta C (t - K_r)^3 + w_r^max`.
//!
//! The fairness factor is derived here (the MPMTP text gives only its role): a
//! CUBIC flow's mean window scales with `C^(1/4)`, so with a common delta the
//! connection's rate equals the best single-path CUBIC's when
//! `delta = (max_r x_r / sum_i x_i)^4`. One subflow: delta = 1, plain CUBIC (no
//! Reno-friendly region, no HyStart). K is recomputed with the current delta so the
//! curve always starts at the post-loss window and reaches w_max at K.

use super::base::Path;
use crate::common::{secs, MIN_SSTHRESH};
use crate::{AckEvent, CongestionControl, CongestionEvent, CongestionKind};
use mpcc_core::Nanos;

#[derive(Clone, Debug)]
pub struct CubicPath {
    pub p: Path,
    pub w_max: f64,
    /// Start of the current growth epoch (None until the first CA ACK after a loss).
    pub epoch: Option<Nanos>,
    /// Window at the start of the epoch.
    pub origin: f64,
}

impl CubicPath {
    /// The subflow left: out of every coupling sum.
    pub fn retire(&mut self) {
        self.p.retire();
    }
}

#[derive(Clone, Debug)]
pub struct MpCubic {
    init_cwnd: f64,
    pub c: f64,
    /// Multiplicative decrease fraction (window goes to (1 - beta) w).
    pub beta: f64,
    pub fast_convergence: bool,
    pub(crate) paths: Vec<CubicPath>,
    pub(crate) saved: super::base::Saved<CubicPath>,
}

impl MpCubic {
    pub fn new(init_cwnd: f64, c: f64, beta: f64, fast_convergence: bool) -> MpCubic {
        MpCubic { init_cwnd, c, beta, fast_convergence, paths: Vec::new(), saved: Default::default() }
    }

    /// `(max x / sum x)^4` over eligible subflows (1 with one subflow).
    #[inline]
    pub fn delta(&self) -> f64 {
        let (mut sum, mut max) = (0.0, 0.0f64);
        for q in &self.paths {
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

    /// CUBIC's target window for subflow r at `now` with scale `dc = delta * C`.
    #[inline]
    pub fn target(&self, r: usize, now: Nanos, dc: f64) -> f64 {
        let q = &self.paths[r];
        let epoch = q.epoch.unwrap_or(now);
        // Linux evaluates the curve one minimum RTT ahead.
        let t = secs(now.saturating_sub(epoch)) + q.p.min_rtt;
        let k = ((q.w_max - q.origin).max(0.0) / dc).cbrt();
        q.w_max + dc * (t - k).powi(3)
    }
}

impl CongestionControl for MpCubic {
    fn add_subflow(&mut self, _now: Nanos) -> usize {
        self.paths.push(CubicPath { p: Path::new(self.init_cwnd), w_max: 0.0, epoch: None, origin: 0.0 });
        self.paths.len() - 1
    }

    #[inline]
    fn on_ack(&mut self, sf: usize, ev: &AckEvent) {
        let q = &mut self.paths[sf];
        q.p.observe(ev);
        let left = q.p.ca_segments(ev);
        if left <= 0.0 {
            return;
        }
        if q.epoch.is_none() {
            q.epoch = Some(ev.now);
            q.origin = q.p.cwnd;
            if q.w_max < q.p.cwnd {
                q.w_max = q.p.cwnd; // K = 0: convex growth from here
            }
        }
        let dc = self.delta() * self.c;
        let target = self.target(sf, ev.now, dc);
        let p = &mut self.paths[sf].p;
        // Per acked segment (target - w)/w, at most 1/2 (Linux: cnt >= 2); a
        // plateau creeps at 1/(100 w).
        let per = if target > p.cwnd { ((target - p.cwnd) / p.cwnd).min(0.5) } else { 0.01 / p.cwnd };
        p.cwnd += per * left;
    }

    fn on_congestion(&mut self, sf: usize, ev: &CongestionEvent) {
        self.saved.save(sf, &self.paths[sf]);
        let fc = self.fast_convergence;
        let beta = self.beta;
        let q = &mut self.paths[sf];
        q.epoch = None;
        let w = q.p.cwnd;
        q.w_max = if fc && w < q.w_max { w * (2.0 - beta) / 2.0 } else { w };
        q.p.reduce_to(ev.kind, w * (1.0 - beta));
        if ev.kind == CongestionKind::Timeout {
            q.w_max = 0.0; // Linux forgets W_max after an RTO
        }
        q.p.ssthresh = q.p.ssthresh.max(MIN_SSTHRESH);
    }
    path_windows!(p);
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn single_subflow_follows_cubic_vectors() {
        // Kernel test vectors C1/C1b/C2/C6 (an integer model of Linux's tcp_cubic.c;
        // real-valued here; kernel integers noted).
        let mut c = MpCubic::new(10.0, 0.4, 0.3, true);
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
}
