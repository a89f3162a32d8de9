//! EWTCP, equally weighted TCP (Honda et al. 2009; analysed by Raiciu, Wischik,
//! Handley 2009/2011): every subflow runs Reno with its increase scaled by `a`,
//! `w_r += a / w_r` per acked segment, halving on loss.
//!
//! A subflow's equilibrium window is `sqrt(2a/p)`, so its rate scales with
//! `sqrt(a)`: N subflows on one bottleneck take together what one Reno flow takes
//! when `a = 1/N^2`. That is the default (`a = 0` selects it, with N the current
//! number of subflows). The MPMTP paper's `a = 1/sqrt(N)` is available by setting
//! `a` explicitly; it gives N^(3/4) times one flow's share (test
//! `one_over_n_squared_is_fair_on_a_shared_loss_rate`).

use super::base::Path;
use super::window::{Coupled, CouplingRule};
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "ewtcp",
    "equally weighted TCP: Reno per subflow with increase a/w; a = 1/N^2 by default",
    "docs/algorithms/ewtcp.md",
    &[INIT_CWND, param("a", 0.0, 0.0, 1.0, "increase weight; 0 = 1/N^2 (fair with one Reno on a shared bottleneck)")],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Ewtcp(Ewtcp::new(p("init_cwnd"), p("a")))
}

/// EWTCP's rule.
#[derive(Clone, Debug)]
pub struct EwtcpRule {
    /// Increase weight; 0 means 1/N^2.
    pub a: f64,
    /// Subflows that left: N counts the others.
    removed: usize,
}

impl EwtcpRule {
    /// The weight in use in a table of `n` subflows (the removed ones left out).
    #[inline]
    pub fn weight(&self, n: usize) -> f64 {
        if self.a > 0.0 {
            self.a
        } else {
            let n = (n - self.removed).max(1) as f64;
            1.0 / (n * n)
        }
    }
}

/// EWTCP: its rule over the shared per-subflow driver.
pub type Ewtcp = Coupled<EwtcpRule>;

impl Ewtcp {
    pub fn new(init_cwnd: f64, a: f64) -> Ewtcp {
        Coupled::with_rule(init_cwnd, EwtcpRule { a, removed: 0 })
    }
    /// The weight in use.
    pub fn weight(&self) -> f64 {
        self.rule.weight(self.paths.len())
    }
}

impl CouplingRule for EwtcpRule {
    type Sub = Path;
    fn new_subflow(&mut self, init_cwnd: f64) -> Path {
        Path::new(init_cwnd)
    }
    #[inline]
    fn increase(&mut self, subs: &mut [Path], sf: usize, left: f64, _ev: &AckEvent) {
        let a = self.weight(subs.len());
        let p = &mut subs[sf];
        p.cwnd += a * left / p.cwnd;
    }
    fn decrease(&mut self, subs: &mut [Path], sf: usize, ev: &CongestionEvent) {
        subs[sf].halve(ev.kind);
    }
    fn remove(&mut self, subs: &mut [Path], sf: usize) {
        subs[sf].retire();
        self.removed += 1;
    }
    /// `a`, the increase weight in use.
    fn metrics(&self, subs: &[Path], _sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        out("a", self.weight(subs.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::single::reno::Reno;
    use crate::CongestionControl;
    use crate::{CongestionKind, Uncoupled};
    use mpcc_core::Rng;

    #[test]
    fn increase_is_a_over_w() {
        let mut c = Ewtcp::new(10.0, 0.0);
        c.add_subflow(0);
        c.add_subflow(0);
        c.paths[0].ssthresh = 1.0;
        c.on_ack(0, &ack(1, 2.0, 50.0));
        assert!((c.cwnd(0) - (10.0 + 0.25 * 2.0 / 10.0)).abs() < 1e-12);
        let mut c = Ewtcp::new(10.0, 0.7);
        c.add_subflow(0);
        c.paths[0].ssthresh = 1.0;
        c.on_ack(0, &ack(1, 1.0, 50.0));
        assert!((c.cwnd(0) - 10.07).abs() < 1e-12);
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert!((c.cwnd(0) - 5.035).abs() < 1e-12);
    }

    /// Round-based Monte Carlo: every segment of a round's window is lost with
    /// probability p independently (at most one loss event per round), all paths with equal RTT.
    /// Returns the mean number of segments delivered per round, summed over subflows.
    fn mean_rate(c: &mut dyn CongestionControl, n: usize, p: f64, seed: u64) -> f64 {
        let mut rng = Rng::stream(seed, 5);
        for _ in 0..n {
            c.add_subflow(0);
        }
        let (mut sent, rounds, warm) = (0.0, 60_000, 5_000);
        for k in 0..rounds {
            for sf in 0..n {
                let w = c.cwnd(sf);
                if rng.bernoulli(1.0 - (1.0 - p).powf(w)) {
                    c.on_congestion(sf, &cong(CongestionKind::Loss));
                } else {
                    c.on_ack(sf, &ack(k, w, 50.0));
                }
                if k >= warm {
                    sent += w;
                }
            }
        }
        sent / (rounds - warm) as f64
    }

    #[test]
    fn one_over_n_squared_is_fair_on_a_shared_loss_rate() {
        let p = 0.002;
        let mut reno = Uncoupled::new(Reno::new(10.0, 0.5));
        let one = mean_rate(&mut reno, 1, p, 1);
        for n in [2usize, 3] {
            let mut auto = Ewtcp::new(10.0, 0.0);
            let fair = mean_rate(&mut auto, n, p, 2);
            assert!((fair / one - 1.0).abs() < 0.08, "n={n}: 1/N^2 gives {fair} vs Reno {one}");
            let mut sq = Ewtcp::new(10.0, 1.0 / (n as f64).sqrt());
            let greedy = mean_rate(&mut sq, n, p, 3);
            let expect = (n as f64).powf(0.75);
            assert!((greedy / one / expect - 1.0).abs() < 0.1, "n={n}: 1/sqrt(N) gives {} x Reno", greedy / one);
        }
    }

    #[test]
    fn metrics_are_the_weight_in_use() {
        let mut c = Ewtcp::new(10.0, 0.0);
        c.add_subflow(0);
        c.add_subflow(0);
        assert_eq!(crate::metrics_of(&c, 1), [("a", 0.25)]);
    }

    #[test]
    fn a_removed_subflow_leaves_n() {
        let mut c = Ewtcp::new(10.0, 0.0);
        for _ in 0..3 {
            c.add_subflow(0);
        }
        assert_eq!(c.weight(), 1.0 / 9.0);
        c.remove_subflow(1, 0);
        assert_eq!(c.weight(), 0.25);
    }
}
