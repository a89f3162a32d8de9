//! wMPTCPW, weighted multipath TCP Westwood+ (Nuha, Hendrawan, Yulianto, EMS 2010;
//! as restated in Le's MPVeno paper, docs/references.md).
//!
//! Per acked segment on subflow r: `w_r += theta / w_r` with
//! `theta = max_s B_s^2 / (sum_i B_i)^2` (B = Westwood+ bandwidth estimates); on
//! loss Westwood's `ssthresh = B_r * RTTmin_r`. Until a subflow has an estimate its
//! current rate `w/srtt` stands in for B.

use super::mptcpw::{westwood_increase, WwPath};
use crate::{AckEvent, CongestionControl, CongestionEvent};
use mpcc_core::Nanos;
use crate::params::{Info, INIT_CWND};
use crate::Controller;

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


#[derive(Clone, Debug)]
pub struct WMptcpw {
    init_cwnd: f64,
    pub(crate) paths: Vec<WwPath>,
    pub(crate) saved: super::base::Saved<WwPath>,
}

impl WMptcpw {
    pub fn new(init_cwnd: f64) -> WMptcpw {
        WMptcpw { init_cwnd, paths: Vec::new(), saved: Default::default() }
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

impl CongestionControl for WMptcpw {
    fn add_subflow(&mut self, _now: Nanos) -> usize {
        self.paths.push(WwPath::new(self.init_cwnd));
        self.paths.len() - 1
    }
    #[inline]
    fn on_ack(&mut self, sf: usize, ev: &AckEvent) {
        westwood_increase(&mut self.paths, sf, ev, theta);
    }
    fn on_congestion(&mut self, sf: usize, ev: &CongestionEvent) {
        self.saved.save(sf, &self.paths[sf]);
        self.paths[sf].westwood_decrease(ev.kind);
    }
    path_windows!(p);
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

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
}
