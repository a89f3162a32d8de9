//! MPVeno, multipath TCP Veno (T.-A. Le, docs/references.md).
//!
//! Subflow r estimates its backlog `n_r = (w_r/base_r - w_r/rtt_r) * base_r` and
//! compares it with `max(1, theta_r * beta)`, `theta_r = x_r / sum_i x_i`. The
//! increase is OLIA's (`a_r/w_r + alpha_r/w_r` per segment) on every new ACK below
//! the threshold and on every second new ACK at or above it. On loss the window
//! drops by `w/5` below the threshold (random loss) and by `w/2` otherwise.

use super::olia::{increase_terms, OliaPath};
use crate::common::MIN_CWND;
use crate::{AckEvent, CongestionControl, CongestionEvent};
use mpcc_core::Nanos;
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "mpveno",
    "multipath Veno (Le): OLIA increase, Veno backlog test, w/5 or w/2 decrease",
    "docs/algorithms/mpveno.md",
    &[
        INIT_CWND,
        param("beta", 3.0, 0.0, 50.0, "Veno backlog threshold (packets), scaled by the subflow's rate share"),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Mpveno(MpVeno::new(p("init_cwnd"), p("beta")))
}


#[derive(Clone, Debug)]
pub struct MpVeno {
    init_cwnd: f64,
    /// Veno's backlog threshold (packets) before the theta_r share.
    pub beta: f64,
    pub(crate) paths: Vec<OliaPath>,
    pub(crate) saved: super::base::Saved<OliaPath>,
    /// Per subflow: the next congestive-state ACK is skipped (every other ACK).
    skip: Vec<bool>,
}

impl MpVeno {
    pub fn new(init_cwnd: f64, beta: f64) -> MpVeno {
        MpVeno { init_cwnd, beta, paths: Vec::new(), saved: Default::default(), skip: Vec::new() }
    }

    /// Backlog estimate of subflow r from its latest RTT sample and base RTT.
    #[inline]
    pub fn backlog(&self, r: usize) -> f64 {
        let p = &self.paths[r].p;
        if p.rtt > 0.0 && p.min_rtt > 0.0 {
            p.cwnd * (1.0 - p.min_rtt / p.rtt)
        } else {
            0.0
        }
    }

    /// `max(1, theta_r * beta)`.
    #[inline]
    pub fn threshold(&self, r: usize) -> f64 {
        let sum: f64 = self.paths.iter().map(|o| o.p.rate()).sum();
        let theta = if sum > 0.0 { self.paths[r].p.rate() / sum } else { 1.0 };
        (theta * self.beta).max(1.0)
    }

    #[inline]
    pub fn congestive(&self, r: usize) -> bool {
        self.backlog(r) >= self.threshold(r)
    }
}

impl CongestionControl for MpVeno {
    fn add_subflow(&mut self, _now: Nanos) -> usize {
        self.paths.push(OliaPath::new(self.init_cwnd));
        self.skip.push(false);
        self.paths.len() - 1
    }

    #[inline]
    fn on_ack(&mut self, sf: usize, ev: &AckEvent) {
        let o = &mut self.paths[sf];
        o.p.observe(ev);
        o.delivered(ev.acked);
        let left = o.p.ca_segments(ev);
        if left <= 0.0 {
            return;
        }
        if self.congestive(sf) {
            self.skip[sf] = !self.skip[sf];
            if !self.skip[sf] {
                return; // every second ACK only
            }
        }
        let (n, eps) = increase_terms(&self.paths, sf);
        let p = &mut self.paths[sf].p;
        p.cwnd = (p.cwnd + left / n + left * eps / p.cwnd).max(MIN_CWND);
    }

    fn on_congestion(&mut self, sf: usize, ev: &CongestionEvent) {
        self.saved.save(sf, &self.paths[sf]);
        let factor = if self.congestive(sf) { 0.5 } else { 0.8 };
        let o = &mut self.paths[sf];
        o.record_loss();
        o.p.reduce_to(ev.kind, o.p.cwnd * factor);
    }
    path_windows!(p);
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionKind;

    /// Two subflows, subflow 0 with window w, base 100 ms and latest RTT `rtt_ms`.
    fn veno(w: f64, rtt_ms: f64, beta: f64) -> MpVeno {
        let mut c = MpVeno::new(10.0, beta);
        c.add_subflow(0);
        c.add_subflow(0);
        c.paths[0].p = path(w, 100.0);
        c.paths[0].p.rtt = rtt_ms / 1e3;
        c.paths[1].p = path(w, 100.0);
        c
    }

    #[test]
    fn backs_off_by_a_fifth_below_threshold_and_half_above() {
        // theta = 1/2, beta = 3 -> threshold max(1, 1.5) = 1.5.
        // rtt 101 ms: backlog = 20 * (1 - 100/101) = 0.198 < 1.5: random loss.
        let mut c = veno(20.0, 101.0, 3.0);
        assert!((c.threshold(0) - 1.5).abs() < 1e-12);
        assert!(!c.congestive(0));
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert!((c.cwnd(0) - 16.0).abs() < 1e-12);
        // rtt 110 ms: backlog = 20 * 10/110 = 1.82 >= 1.5: congestion.
        let mut c = veno(20.0, 110.0, 3.0);
        assert!(c.congestive(0));
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert_eq!(c.cwnd(0), 10.0);
        // With beta = 6 the same backlog is below max(1, 3): a fifth.
        let mut c = veno(20.0, 110.0, 6.0);
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert!((c.cwnd(0) - 16.0).abs() < 1e-12);
        // threshold never below one packet
        let c = veno(20.0, 110.0, 1.0);
        assert_eq!(c.threshold(0), 1.0);
    }

    #[test]
    fn increases_every_ack_or_every_second_ack() {
        // Equal RTTs: subflow 0 is (or becomes) the largest window and the best
        // path, so eps = 0 and the increase is (w0/rtt^2)/(sum x)^2 = w0/(w0+20)^2.
        let mut c = veno(20.0, 101.0, 3.0);
        let mut ev = ack(1, 1.0, 101.0);
        ev.min_rtt = 100 * MS;
        ev.srtt = 100 * MS;
        for _ in 0..4 {
            c.on_ack(0, &ev);
        }
        let step = |w: f64| w + w / ((w + 20.0) * (w + 20.0));
        let w = step(step(step(step(20.0))));
        assert!((c.cwnd(0) - w).abs() < 1e-9, "{} vs {w}", c.cwnd(0));
        // Congestive (rtt 130 ms): 4 ACKs give 2 increments.
        let mut c = veno(20.0, 130.0, 3.0);
        ev.rtt = 130 * MS;
        for _ in 0..4 {
            c.on_ack(0, &ev);
        }
        let w = step(step(20.0));
        assert!((c.cwnd(0) - w).abs() < 1e-9, "{} vs {w}", c.cwnd(0));
    }
}
