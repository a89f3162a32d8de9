//! MPTCPW, coordinated multipath TCP Westwood (Le, Hong, Huh, ICOIN 2012; as
//! restated in Le's MPVeno paper, docs/references.md).
//!
//! Per acked segment on subflow r: `w_r += min(delta_r, 1) / w_r` with
//! `delta_r = w_r^gamma * max_s(w_s^(2-gamma) / rtt_s^2) / (sum_i w_i/rtt_i)^2`.
//! gamma = 1 is LIA's increase; gamma = 2 - phi maps onto LIA's phi family. On loss
//! Westwood's rule: `ssthresh = B_r * RTTmin_r` (Westwood+ bandwidth estimate),
//! `cwnd = min(cwnd, ssthresh)`; after a timeout `cwnd = 1`.

use super::base::{argmax, scaled_sum, Path};
use super::window::{record, Coupled, CouplingRule};
use crate::common::{MIN_CWND, MIN_SSTHRESH};
use crate::estimators::BwEstimator;
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent, CongestionKind};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "mptcpw",
    "multipath TCP Westwood (Le et al.): coupled increase with trade-off gamma, Westwood decrease",
    "docs/algorithms/mptcpw.md",
    &[INIT_CWND, param("gamma", 1.0, 0.0, 2.0, "flappiness vs congestion-balance trade-off (1 = LIA-like increase)")],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Mptcpw(Mptcpw::new(p("init_cwnd"), p("gamma")))
}

/// A subflow with a Westwood+ bandwidth estimate.
#[derive(Clone, Debug)]
pub struct WwPath {
    pub p: Path,
    pub bwe: BwEstimator,
}

// Out of every coupling sum, its estimate included (wMPTCPW's theta reads it).
record!(WwPath, |r| r.bwe = BwEstimator::multipath());

impl WwPath {
    pub fn new(init_cwnd: f64) -> WwPath {
        WwPath { p: Path::new(init_cwnd), bwe: BwEstimator::multipath() }
    }
    /// The estimator takes every ACK.
    #[inline]
    pub fn sample(&mut self, ev: &AckEvent) {
        self.bwe.on_ack(ev.now, ev.acked, ev.rtt);
    }
    /// Westwood's decrease: threshold at the estimated BDP (halving until the
    /// first estimate exists); the window only ever goes down.
    pub fn westwood_decrease(&mut self, kind: CongestionKind) {
        let bdp = self.bwe.bw * self.p.min_rtt;
        let t = if bdp > 0.0 { bdp } else { self.p.cwnd * 0.5 };
        self.p.ssthresh = t.max(MIN_SSTHRESH);
        self.p.cwnd = match kind {
            CongestionKind::Timeout => MIN_CWND,
            _ => self.p.cwnd.min(self.p.ssthresh),
        };
    }
    /// The increase both Westwood-based couplings share: `factor / w` per segment.
    #[inline]
    pub fn increase(&mut self, factor: f64, left: f64) {
        let p = &mut self.p;
        p.cwnd += factor * left / p.cwnd;
    }
}

/// MPTCPW's rule.
#[derive(Clone, Debug)]
pub struct MptcpwRule {
    /// Trade-off between congestion balance (2) and no flappiness (0); 1 default.
    pub gamma: f64,
}

/// MPTCPW: its rule over the shared per-subflow driver.
pub type Mptcpw = Coupled<MptcpwRule>;

impl Mptcpw {
    pub fn new(init_cwnd: f64, gamma: f64) -> Mptcpw {
        Coupled::with_rule(init_cwnd, MptcpwRule { gamma })
    }

    /// `delta_r` as defined above.
    pub fn delta(&self, r: usize) -> f64 {
        delta(&self.paths, self.rule.gamma, r)
    }
}

#[inline]
fn delta(paths: &[WwPath], g: f64, r: usize) -> f64 {
    let me = &paths[r].p;
    if !me.eligible() {
        return 1.0;
    }
    let Some(b) = argmax(paths.iter().map(|q| &q.p), |p| p.cwnd.powf(2.0 - g) / (p.srtt * p.srtt)) else {
        return 1.0;
    };
    let pb = &paths[b].p;
    let s = scaled_sum(pb.srtt, paths.iter().map(|q| &q.p));
    // w_r^g w_b^(2-g) / rtt_b^2 / (s/rtt_b)^2
    let d = me.cwnd.powf(g) * pb.cwnd.powf(2.0 - g) / (s * s);
    if d.is_finite() {
        d
    } else {
        1.0
    }
}

impl CouplingRule for MptcpwRule {
    type Sub = WwPath;
    fn new_subflow(&mut self, init_cwnd: f64) -> WwPath {
        WwPath::new(init_cwnd)
    }
    #[inline]
    fn observe(&mut self, sub: &mut WwPath, ev: &AckEvent) {
        sub.sample(ev);
    }
    #[inline]
    fn increase(&mut self, subs: &mut [WwPath], sf: usize, left: f64, _ev: &AckEvent) {
        let f = delta(subs, self.gamma, sf).min(1.0);
        subs[sf].increase(f, left);
    }
    fn decrease(&mut self, subs: &mut [WwPath], sf: usize, ev: &CongestionEvent) {
        subs[sf].westwood_decrease(ev.kind);
    }
    /// `delta` (delta_r before the cap at 1) and `bwe` (segments/s).
    fn metrics(&self, subs: &[WwPath], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        out("delta", delta(subs, self.gamma, sf));
        out("bwe", subs[sf].bwe.bw);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;

    fn mw(gamma: f64, flows: &[(f64, f64)]) -> Mptcpw {
        let mut c = Mptcpw::new(10.0, gamma);
        for &(w, rtt) in flows {
            let i = c.add_subflow(0);
            c.paths[i].p = path(w, rtt);
        }
        c
    }

    #[test]
    fn gamma_one_is_lia_increase() {
        // w = (10, 20), rtt = (100, 200) ms: LIA gives 1/40 per segment, so
        // delta_r / w_r = 1/40, delta = (0.25, 0.5).
        let c = mw(1.0, &[(10.0, 100.0), (20.0, 200.0)]);
        assert!((c.delta(0) - 0.25).abs() < 1e-12);
        assert!((c.delta(1) - 0.5).abs() < 1e-12);
        // one subflow: delta = 1 (Reno)
        assert!((mw(1.0, &[(17.0, 30.0)]).delta(0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn gamma_two_and_zero_hand_computed() {
        // same RTT 50 ms, w = (10, 30), sum x = 800:
        // gamma 2: w_r^2 * max(1/rtt^2) / (sum x)^2 = w_r^2 / 1600 -> (1/16, 9/16)
        let c = mw(2.0, &[(10.0, 50.0), (30.0, 50.0)]);
        assert!((c.delta(0) - 100.0 / 1600.0).abs() < 1e-12);
        assert!((c.delta(1) - 900.0 / 1600.0).abs() < 1e-12);
        // gamma 0: max(w_s^2) / (sum w)^2 = 900/1600 for both
        let c = mw(0.0, &[(10.0, 50.0), (30.0, 50.0)]);
        assert!((c.delta(0) - 900.0 / 1600.0).abs() < 1e-12);
        assert!((c.delta(1) - 900.0 / 1600.0).abs() < 1e-12);
    }

    #[test]
    fn westwood_decrease_uses_bandwidth_estimate() {
        let mut c = mw(1.0, &[(40.0, 100.0)]);
        // 200 segments/s estimate, RTTmin 100 ms -> ssthresh 20
        let mut now = 0;
        for _ in 0..40 {
            now += 10 * MS;
            c.on_ack(0, &ack(now, 2.0, 100.0));
        }
        assert!((c.paths[0].bwe.bw - 200.0).abs() < 1.0, "{}", c.paths[0].bwe.bw);
        let w = c.cwnd(0);
        c.on_congestion(0, &cong(crate::CongestionKind::Loss));
        assert!((c.ssthresh(0) - 20.0).abs() < 0.1);
        assert_eq!(c.cwnd(0), w.min(c.ssthresh(0)));
        c.on_congestion(0, &cong(crate::CongestionKind::Timeout));
        assert_eq!(c.cwnd(0), 1.0);
        // without an estimate: halving
        let mut c = mw(1.0, &[(40.0, 100.0)]);
        c.on_congestion(0, &cong(crate::CongestionKind::Loss));
        assert_eq!((c.cwnd(0), c.ssthresh(0)), (20.0, 20.0));
    }

    #[test]
    fn metrics_are_delta_and_the_estimate() {
        let mut c = mw(1.0, &[(10.0, 100.0), (20.0, 200.0)]);
        c.paths[0].bwe.bw = 42.0;
        let m = crate::metrics_of(&c, 0);
        assert_eq!(m[1], ("bwe", 42.0));
        assert!(m[0].0 == "delta" && (m[0].1 - 0.25).abs() < 1e-12, "{m:?}");
    }
}
