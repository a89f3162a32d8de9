//! wMPTCPW, weighted multipath TCP Westwood+ (Nuha, Hendrawan, Yulianto, EMS 2010;
//! as restated in Le's MPVeno paper, docs/references.md).
//!
//! Per acked segment on subflow r: `w_r += theta / w_r` with
//! `theta = max_s B_s^2 / (sum_i B_i)^2` (B = Westwood+ bandwidth estimates); on
//! loss Westwood's `ssthresh = B_r * RTTmin_r`. Until a subflow has an estimate its
//! current rate `w/srtt` stands in for B.

use super::mptcpw::WwPath;
use super::window::{Coupled, CouplingRule};
use crate::params::{Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "wmptcpw",
    "weighted multipath Westwood+ (Nuha et al.): increase max B^2/(sum B)^2 / w, Westwood decrease",
    "docs/algorithms/wmptcpw.md",
    &[INIT_CWND],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Wmptcpw(WMptcpw::new(p("init_cwnd")))
}

/// wMPTCPW's rule (no parameters).
#[derive(Clone, Debug, Default)]
pub struct WMptcpwRule;

/// wMPTCPW: its rule over the shared per-subflow driver.
pub type WMptcpw = Coupled<WMptcpwRule>;

impl WMptcpw {
    pub fn new(init_cwnd: f64) -> WMptcpw {
        Coupled::with_rule(init_cwnd, WMptcpwRule)
    }

    pub fn theta(&self) -> f64 {
        theta(&self.paths)
    }
}

#[inline]
fn theta(paths: &[WwPath]) -> f64 {
    let (mut sum, mut max) = (0.0, 0.0f64);
    for q in paths {
        let b = if q.bwe.bw > 0.0 { q.bwe.bw } else { q.p.rate() };
        sum += b;
        max = max.max(b);
    }
    let t = max * max / (sum * sum);
    if t.is_finite() {
        t
    } else {
        1.0
    }
}

impl CouplingRule for WMptcpwRule {
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
        let f = theta(subs);
        subs[sf].increase(f, left);
    }
    fn decrease(&mut self, subs: &mut [WwPath], sf: usize, ev: &CongestionEvent) {
        subs[sf].westwood_decrease(ev.kind);
    }
    /// `theta` (connection) and `bwe` (segments/s).
    fn metrics(&self, subs: &[WwPath], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        out("theta", theta(subs));
        out("bwe", subs[sf].bwe.bw);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;

    #[test]
    fn theta_from_bandwidth_estimates() {
        let mut c = WMptcpw::new(10.0);
        c.add_subflow(0);
        c.add_subflow(0);
        c.paths[0].bwe.bw = 300.0;
        c.paths[1].bwe.bw = 100.0;
        // 300^2 / 400^2
        assert!((c.theta() - 0.5625).abs() < 1e-12);
        c.paths[0].p = path(10.0, 50.0);
        c.paths[0].p.ssthresh = 1.0;
        c.on_ack(0, &ack(1, 1.0, 50.0)); // the estimator does not close a window here
        assert!((c.cwnd(0) - (10.0 + 0.5625 / 10.0)).abs() < 1e-12);
        // no estimates yet: rates w/srtt (equal) -> 1/4
        let mut c = WMptcpw::new(10.0);
        for _ in 0..2 {
            let i = c.add_subflow(0);
            c.paths[i].p = path(10.0, 50.0);
        }
        assert!((c.theta() - 0.25).abs() < 1e-12);
    }

    #[test]
    fn metrics_are_theta_and_the_estimate() {
        let mut c = WMptcpw::new(10.0);
        c.add_subflow(0);
        c.add_subflow(0);
        c.paths[0].bwe.bw = 300.0;
        c.paths[1].bwe.bw = 100.0;
        assert_eq!(crate::metrics_of(&c, 1), [("theta", 0.5625), ("bwe", 100.0)]);
    }
}
