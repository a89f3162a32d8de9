//! COUPLED, the fully coupled rule (Kelly & Voice 2005; Han et al. 2006; as
//! analysed by Raiciu, Wischik, Handley): per acked segment on subflow r
//! `w_r += 1 / w_total`, on loss `w_r = max(w_r - w_total / 2, 1)`.
//!
//! It sends everything over the least-congested paths (perfect resource pooling)
//! and is flappy when the paths are equally congested.

use super::base::Path;
use super::window::{self, CouplingRule};
use crate::common::MIN_CWND;
use crate::params::{Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent, CongestionKind};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "coupled",
    "fully coupled: w_r += 1/w_total per segment, w_r -= w_total/2 on loss (floor 1)",
    "docs/algorithms/coupled.md",
    &[INIT_CWND],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Coupled(Coupled::new(p("init_cwnd")))
}

/// The fully coupled rule (no parameters).
#[derive(Clone, Debug, Default)]
pub struct FullyCoupled;

/// COUPLED: its rule over the shared per-subflow driver.
pub type Coupled = window::Coupled<FullyCoupled>;

impl Coupled {
    pub fn new(init_cwnd: f64) -> Coupled {
        window::Coupled::with_rule(init_cwnd, FullyCoupled)
    }
}

#[inline]
fn total(paths: &[Path]) -> f64 {
    paths.iter().map(|p| p.cwnd).sum()
}

impl CouplingRule for FullyCoupled {
    type Sub = Path;
    fn new_subflow(&mut self, init_cwnd: f64) -> Path {
        Path::new(init_cwnd)
    }
    #[inline]
    fn increase(&mut self, subs: &mut [Path], sf: usize, left: f64, _ev: &AckEvent) {
        let total = total(subs);
        subs[sf].cwnd += left / total;
    }
    fn decrease(&mut self, subs: &mut [Path], sf: usize, ev: &CongestionEvent) {
        let total = total(subs);
        let p = &mut subs[sf];
        let w = (p.cwnd - total / 2.0).max(MIN_CWND);
        // ssthresh = the reduced window: the subflow stays in congestion avoidance.
        p.ssthresh = w;
        p.cwnd = if ev.kind == CongestionKind::Timeout { MIN_CWND } else { w };
    }
    /// `w_total`, the connection's window (segments).
    fn metrics(&self, subs: &[Path], _sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        out("w_total", total(subs));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;

    #[test]
    fn increase_and_decrease_use_the_total() {
        let mut c = Coupled::new(10.0);
        for w in [30.0, 10.0] {
            let i = c.add_subflow(0);
            c.paths[i] = path(w, 50.0);
        }
        c.on_ack(1, &ack(1, 2.0, 50.0));
        assert!((c.cwnd(1) - (10.0 + 2.0 / 40.0)).abs() < 1e-12);
        // total 40.05: subflow 0 drops by 20.025, subflow 1 floors at 1
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert!((c.cwnd(0) - (30.0 - 40.05 / 2.0)).abs() < 1e-12);
        c.on_congestion(1, &cong(CongestionKind::Loss));
        assert_eq!((c.cwnd(1), c.ssthresh(1)), (1.0, 1.0));
    }

    #[test]
    fn one_subflow_is_reno_in_congestion_avoidance() {
        let mut c = Coupled::new(10.0);
        c.add_subflow(0);
        c.paths[0].ssthresh = 1.0;
        c.on_ack(0, &ack(1, 1.0, 50.0));
        assert!((c.cwnd(0) - 10.1).abs() < 1e-12);
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert!((c.cwnd(0) - 5.05).abs() < 1e-12);
    }

    #[test]
    fn metrics_are_the_total_window() {
        let mut c = Coupled::new(10.0);
        c.add_subflow(0);
        c.add_subflow(0);
        c.paths[1].cwnd = 30.0;
        assert_eq!(crate::metrics_of(&c, 0), [("w_total", 40.0)]);
    }
}
