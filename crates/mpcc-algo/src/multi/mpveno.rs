//! MPVeno, multipath TCP Veno (T.-A. Le, docs/references.md).
//!
//! Subflow r estimates its backlog `n_r = (w_r/base_r - w_r/rtt_r) * base_r` and
//! compares it with `max(1, theta_r * beta)`, `theta_r = x_r / sum_i x_i`. The
//! increase is OLIA's (`a_r/w_r + alpha_r/w_r` per segment) on every new ACK below
//! the threshold and on every second new ACK at or above it. On loss the window
//! drops by `w/5` below the threshold (random loss) and by `w/2` otherwise.

use super::olia::{olia_increase, olia_metrics, OliaPath};
use super::window::{Coupled, CouplingRule, Record};
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "mpveno",
    "multipath Veno (Le): OLIA increase, Veno backlog test, w/5 or w/2 decrease",
    "docs/algorithms/mpveno.md",
    &[INIT_CWND, param("beta", 3.0, 0.0, 50.0, "Veno backlog threshold (packets), scaled by the subflow's rate share")],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Mpveno(MpVeno::new(p("init_cwnd"), p("beta")))
}

/// MPVeno's rule.
#[derive(Clone, Debug)]
pub struct MpVenoRule {
    /// Veno's backlog threshold (packets) before the theta_r share.
    pub beta: f64,
    /// Per subflow: the next congestive-state ACK is skipped (every other ACK).
    /// Not part of the record: an undo leaves it as it is.
    skip: Vec<bool>,
    /// Subflows that left (OLIA's n counts the others).
    removed: usize,
}

impl MpVenoRule {
    /// `max(1, theta_r * beta)`.
    #[inline]
    pub fn threshold(&self, paths: &[OliaPath], r: usize) -> f64 {
        let sum: f64 = paths.iter().map(|o| o.p.rate()).sum();
        let theta = if sum > 0.0 { paths[r].p.rate() / sum } else { 1.0 };
        (theta * self.beta).max(1.0)
    }

    #[inline]
    pub fn congestive(&self, paths: &[OliaPath], r: usize) -> bool {
        backlog(paths, r) >= self.threshold(paths, r)
    }
}

/// Backlog estimate of subflow r from its latest RTT sample and base RTT.
#[inline]
pub fn backlog(paths: &[OliaPath], r: usize) -> f64 {
    let p = &paths[r].p;
    if p.rtt_ns > 0 && p.min_rtt > 0.0 {
        p.cwnd * (1.0 - p.min_rtt / p.rtt())
    } else {
        0.0
    }
}

/// MPVeno: its rule over the shared per-subflow driver.
pub type MpVeno = Coupled<MpVenoRule>;

impl MpVeno {
    pub fn new(init_cwnd: f64, beta: f64) -> MpVeno {
        Coupled::with_rule(init_cwnd, MpVenoRule { beta, skip: Vec::new(), removed: 0 })
    }
    pub fn backlog(&self, r: usize) -> f64 {
        backlog(&self.paths, r)
    }
    pub fn threshold(&self, r: usize) -> f64 {
        self.rule.threshold(&self.paths, r)
    }
    pub fn congestive(&self, r: usize) -> bool {
        self.rule.congestive(&self.paths, r)
    }
}

impl CouplingRule for MpVenoRule {
    type Sub = OliaPath;
    fn new_subflow(&mut self, init_cwnd: f64) -> OliaPath {
        self.skip.push(false);
        OliaPath::new(init_cwnd)
    }
    #[inline]
    fn observe(&mut self, sub: &mut OliaPath, ev: &AckEvent) {
        sub.delivered(ev.acked);
    }
    #[inline]
    fn increase(&mut self, subs: &mut [OliaPath], sf: usize, left: f64, _ev: &AckEvent) {
        if self.congestive(subs, sf) {
            self.skip[sf] = !self.skip[sf];
            if !self.skip[sf] {
                return; // every second ACK only
            }
        }
        olia_increase(subs, sf, left, subs.len() - self.removed);
    }
    fn decrease(&mut self, subs: &mut [OliaPath], sf: usize, ev: &CongestionEvent) {
        let factor = if self.congestive(subs, sf) { 0.5 } else { 0.8 };
        let o = &mut subs[sf];
        o.record_loss();
        o.p.reduce_to(ev.kind, o.p.cwnd * factor);
    }
    fn remove(&mut self, subs: &mut [OliaPath], sf: usize) {
        subs[sf].retire();
        self.removed += 1;
    }
    /// `backlog` and `threshold` (packets), then OLIA's terms.
    fn metrics(&self, subs: &[OliaPath], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        out("backlog", backlog(subs, sf));
        out("threshold", self.threshold(subs, sf));
        olia_metrics(subs, sf, subs.len() - self.removed, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;
    use crate::CongestionKind;
    use mpcc_core::Nanos;

    /// Two subflows, subflow 0 with window w, base 100 ms and latest RTT `rtt_ms`.
    fn veno(w: f64, rtt_ms: f64, beta: f64) -> MpVeno {
        let mut c = MpVeno::new(10.0, beta);
        c.add_subflow(0);
        c.add_subflow(0);
        c.paths[0].p = path(w, 100.0);
        c.paths[0].p.rtt_ns = (rtt_ms * 1e6) as Nanos;
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

    #[test]
    fn metrics_are_backlog_threshold_then_olia_terms() {
        let c = veno(20.0, 110.0, 3.0);
        let m = crate::metrics_of(&c, 0);
        let names: Vec<_> = m.iter().map(|x| x.0).collect();
        assert_eq!(names, ["backlog", "threshold", "in_b", "in_m", "eps", "interloss"]);
        assert!((m[0].1 - 20.0 * 10.0 / 110.0).abs() < 1e-12 && m[1].1 == 1.5, "{m:?}");
    }
}
