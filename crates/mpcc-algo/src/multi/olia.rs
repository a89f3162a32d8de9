//! OLIA, Opportunistic Linked Increases (Khalili, Gast, Popovic, Le Boudec,
//! CoNEXT 2012 / IEEE/ACM ToN 2013).
//!
//! Per acked segment in congestion avoidance on subflow r:
//! `w_r += (w_r / rtt_r^2) / (sum_p w_p / rtt_p)^2 + eps_r / w_r`, where with
//! `l_r = max(segments between the last two losses, segments since the last loss)`,
//! B = paths maximising `l_r / rtt_r^2`, M = paths with the largest window, n = number
//! of subflows: `eps_r = 1/(n |B\M|)` for r in B\M, `-1/(n |M|)` for r in M when
//! B\M is not empty, else 0. Decrease: Reno halving.

use super::base::Path;
use super::window::{record, Coupled, CouplingRule, Record};
use crate::common::MIN_CWND;
use crate::params::{Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "olia",
    "Opportunistic Linked Increases (Khalili et al. 2012/2013); Reno halving",
    "docs/algorithms/olia.md",
    &[INIT_CWND],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Olia(Olia::new(p("init_cwnd")))
}

/// A subflow with OLIA's loss-distance history (in segments).
#[derive(Clone, Debug)]
pub struct OliaPath {
    pub p: Path,
    /// Segments delivered between the last two losses.
    pub l1: f64,
    /// Segments delivered since the last loss.
    pub l2: f64,
}

record!(OliaPath);

impl OliaPath {
    pub fn new(init_cwnd: f64) -> OliaPath {
        OliaPath { p: Path::new(init_cwnd), l1: 0.0, l2: 0.0 }
    }
    #[inline]
    pub fn interloss(&self) -> f64 {
        self.l1.max(self.l2)
    }
    /// Counts delivered segments (also during recovery, as the kernel's snd_una does).
    #[inline]
    pub fn delivered(&mut self, acked: f64) {
        self.l2 += acked.max(0.0);
    }
    /// A loss shifts the history only if data was delivered since the previous one
    /// (the kernel records a loss only when snd_una moved).
    #[inline]
    pub fn record_loss(&mut self) {
        if self.l2 > 0.0 {
            self.l1 = self.l2;
            self.l2 = 0.0;
        }
    }
}

/// OLIA's two increase terms for subflow r among the connection's `n_paths`
/// subflows: `(N, eps)` such that one acked segment adds `1/N + eps/w_r`. `N = s * (s / w_r)` with `s = sum_p w_p rtt_r / rtt_p`, which
/// is `(sum_p x_p)^2 rtt_r^2 / w_r` and is exactly `w` for a single subflow.
#[inline]
pub fn increase_terms(paths: &[OliaPath], r: usize, n_paths: usize) -> (f64, f64) {
    let me = &paths[r].p;
    if !me.eligible() {
        return (me.cwnd, 0.0);
    }
    let mut s = 0.0;
    let mut max_w = f64::NEG_INFINITY;
    let mut best = f64::NEG_INFINITY;
    for q in paths.iter().filter(|q| q.p.eligible()) {
        s += q.p.cwnd * (me.srtt / q.p.srtt);
        max_w = max_w.max(q.p.cwnd);
        best = best.max(q.interloss() / (q.p.srtt * q.p.srtt));
    }
    let (mut n_m, mut n_bm) = (0u32, 0u32);
    for q in paths.iter().filter(|q| q.p.eligible()) {
        if q.p.cwnd == max_w {
            n_m += 1;
        } else if q.interloss() / (q.p.srtt * q.p.srtt) == best {
            n_bm += 1;
        }
    }
    let n = n_paths as f64;
    let in_m = me.cwnd == max_w;
    let eps = if n_bm == 0 {
        0.0
    } else if in_m {
        -1.0 / (n * n_m as f64)
    } else if paths[r].interloss() / (me.srtt * me.srtt) == best {
        1.0 / (n * n_bm as f64)
    } else {
        0.0
    };
    (s * (s / me.cwnd), eps)
}

/// Whether subflow r is in B (the best paths by `l / rtt^2`) and in M (the
/// largest windows), over the eligible subflows; (false, false) if r is not eligible.
pub fn sets(paths: &[OliaPath], r: usize) -> (bool, bool) {
    if !paths[r].p.eligible() {
        return (false, false);
    }
    let (mut max_w, mut best) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for q in paths.iter().filter(|q| q.p.eligible()) {
        max_w = max_w.max(q.p.cwnd);
        best = best.max(q.interloss() / (q.p.srtt * q.p.srtt));
    }
    let me = &paths[r];
    (me.interloss() / (me.p.srtt * me.p.srtt) == best, me.p.cwnd == max_w)
}

/// OLIA's rule (no parameters).
#[derive(Clone, Debug, Default)]
pub struct OliaRule {
    /// Subflows that left: n in eps counts the others (Linux: cnt_established).
    removed: usize,
}

/// OLIA: its rule over the shared per-subflow driver.
pub type Olia = Coupled<OliaRule>;

impl Olia {
    pub fn new(init_cwnd: f64) -> Olia {
        Coupled::with_rule(init_cwnd, OliaRule::default())
    }

    /// `(N, eps)` of subflow r (see [`increase_terms`]).
    pub fn terms(&self, r: usize) -> (f64, f64) {
        increase_terms(&self.paths, r, self.paths.len() - self.rule.removed)
    }
}

/// The OLIA increase for `left` segments (MPVeno shares it).
#[inline]
pub fn olia_increase(paths: &mut [OliaPath], sf: usize, left: f64, n_paths: usize) {
    let (n, eps) = increase_terms(paths, sf, n_paths);
    let p = &mut paths[sf].p;
    // eps = 0 adds +0.0, keeping the one-subflow case bit-equal to Reno.
    p.cwnd = (p.cwnd + left / n + left * eps / p.cwnd).max(MIN_CWND);
}

/// OLIA's per-subflow terms: `in_b`, `in_m` (1 = in the set B or M), `eps`, and
/// `interloss` (l_r, segments).
pub fn olia_metrics(paths: &[OliaPath], sf: usize, n_paths: usize, out: &mut dyn FnMut(&'static str, f64)) {
    let (in_b, in_m) = sets(paths, sf);
    out("in_b", in_b as u8 as f64);
    out("in_m", in_m as u8 as f64);
    out("eps", increase_terms(paths, sf, n_paths).1);
    out("interloss", paths[sf].interloss());
}

impl CouplingRule for OliaRule {
    type Sub = OliaPath;
    fn new_subflow(&mut self, init_cwnd: f64) -> OliaPath {
        OliaPath::new(init_cwnd)
    }
    #[inline]
    fn observe(&mut self, sub: &mut OliaPath, ev: &AckEvent) {
        sub.delivered(ev.acked);
    }
    #[inline]
    fn increase(&mut self, subs: &mut [OliaPath], sf: usize, left: f64, _ev: &AckEvent) {
        olia_increase(subs, sf, left, subs.len() - self.removed);
    }
    fn decrease(&mut self, subs: &mut [OliaPath], sf: usize, ev: &CongestionEvent) {
        subs[sf].record_loss();
        subs[sf].p.halve(ev.kind);
    }
    fn remove(&mut self, subs: &mut [OliaPath], sf: usize) {
        subs[sf].retire();
        self.removed += 1;
    }
    fn metrics(&self, subs: &[OliaPath], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        olia_metrics(subs, sf, subs.len() - self.removed, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;
    use crate::CongestionKind;

    fn olia(flows: &[(f64, f64, f64, f64)]) -> Olia {
        let mut c = Olia::new(10.0);
        for &(w, rtt, l1, l2) in flows {
            let i = c.add_subflow(0);
            c.paths[i] = OliaPath { p: path(w, rtt), l1, l2 };
        }
        c
    }

    /// Per-segment increase of subflow r, scaled by 1024 like the kernel's `cnt`.
    fn inc1024(c: &Olia, r: usize) -> f64 {
        let (n, eps) = c.terms(r);
        1024.0 * (1.0 / n + eps / c.paths[r].p.cwnd)
    }

    #[test]
    fn one_subflow_is_reno() {
        assert_reno_equivalent(|| Box::new(Olia::new(10.0)), 4);
    }

    #[test]
    fn kernel_vectors_precise_form() {
        // Kernel test vectors O1-O4 (an integer model of the out-of-tree Linux MPTCP
        // mptcp_olia.c), "ideal x1024" column (kernel integers in
        // comments; the kernel truncates toward 0, e.g. 2.37 -> 2).
        // O1: no losses yet, all tie for best; A has the max window.
        let c = olia(&[(10.0, 100.0, 0.0, 0.0), (5.0, 100.0, 0.0, 0.0)]);
        assert_eq!(c.terms(0).1, -0.5);
        assert_eq!(c.terms(1).1, 0.5);
        assert!((inc1024(&c, 0) - -5.69).abs() < 0.01); // kernel -5
        assert!((inc1024(&c, 1) - 125.16).abs() < 0.01); // kernel +125
                                                         // O2: B (12 segs, 40 ms, l 400000) is best, A (30, 20 ms, l 50000) has max w.
        let c = olia(&[(30.0, 20.0, 50000.0, 60000.0 - 50000.0), (12.0, 40.0, 400000.0, 100000.0)]);
        assert!((inc1024(&c, 0) - 6.64).abs() < 0.01, "{}", inc1024(&c, 0)); // kernel +6
        assert!((inc1024(&c, 1) - 45.04).abs() < 0.01); // kernel +45
                                                        // O3: histories swapped: A is best and in M, so B\M is empty, eps = 0.
        let c = olia(&[(30.0, 20.0, 400000.0, 100000.0), (12.0, 40.0, 50000.0, 10000.0)]);
        assert_eq!(c.terms(1).1, 0.0);
        assert!((inc1024(&c, 0) - 23.70).abs() < 0.01); // kernel +23
        assert!((inc1024(&c, 1) - 2.37).abs() < 0.01); // kernel +2
                                                       // O4: single subflow, 1/w.
        let c = olia(&[(10.0, 100.0, 0.0, 0.0)]);
        assert!((inc1024(&c, 0) - 102.4).abs() < 1e-9); // kernel +102
    }

    #[test]
    fn hand_computed_three_paths() {
        // w = (20, 20, 8), rtt = (50, 50, 100) ms, l = (100, 400, 100) segments.
        // l/rtt^2 = (4e4, 1.6e5, 1e4): B = {1}; M = {0, 1}; B\M empty -> eps = 0.
        let c = olia(&[(20.0, 50.0, 100.0, 0.0), (20.0, 50.0, 400.0, 0.0), (8.0, 100.0, 100.0, 0.0)]);
        for r in 0..3 {
            assert_eq!(c.terms(r).1, 0.0);
        }
        // Now path 2 is best (l = 2000 -> 2e5) and not in M: eps_2 = +1/3,
        // eps_0 = eps_1 = -1/(3*2).
        let c = olia(&[(20.0, 50.0, 100.0, 0.0), (20.0, 50.0, 400.0, 0.0), (8.0, 100.0, 2000.0, 0.0)]);
        assert!((c.terms(2).1 - 1.0 / 3.0).abs() < 1e-15);
        assert!((c.terms(0).1 + 1.0 / 6.0).abs() < 1e-15);
        // first term for path 2: (8/0.01) / (400 + 400 + 80)^2 = 800/774400
        let (n, _) = c.terms(2);
        assert!((1.0 / n - 800.0 / 774400.0).abs() < 1e-15);
    }

    #[test]
    fn loss_history_shifts_only_after_delivery() {
        let mut c = olia(&[(20.0, 50.0, 0.0, 0.0)]);
        c.on_ack(0, &ack(1, 3.0, 50.0));
        c.on_ack(0, &ack(2, 2.0, 50.0));
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert_eq!((c.paths[0].l1, c.paths[0].l2), (5.0, 0.0));
        c.on_congestion(0, &cong(CongestionKind::Timeout)); // nothing delivered since
        assert_eq!((c.paths[0].l1, c.paths[0].l2), (5.0, 0.0));
        assert_eq!(c.paths[0].interloss(), 5.0);
        assert_eq!(c.cwnd(0), 1.0);
    }

    #[test]
    fn negative_eps_shrinks_but_never_below_one() {
        // A max-window subflow on a bad path loses window to the best one.
        let mut c = olia(&[(10.0, 100.0, 0.0, 1.0), (3.0, 10.0, 0.0, 1000.0)]);
        let before = c.cwnd(0);
        let mut ev = ack(1, 1.0, 100.0);
        ev.srtt = 100 * MS;
        c.on_ack(0, &ev);
        assert!(c.cwnd(0) < before, "{} !< {before}", c.cwnd(0));
        c.paths[0].p.cwnd = 1.0;
        c.paths[1].p.cwnd = 0.5; // path 0 is still the max window
        c.on_ack(0, &ev);
        assert!(c.cwnd(0) >= 1.0);
    }

    #[test]
    fn metrics_name_the_sets_and_eps() {
        // O1: all tie for best (no losses yet), subflow 0 has the max window.
        let c = olia(&[(10.0, 100.0, 0.0, 0.0), (5.0, 100.0, 0.0, 0.0)]);
        assert_eq!(crate::metrics_of(&c, 0), [("in_b", 1.0), ("in_m", 1.0), ("eps", -0.5), ("interloss", 0.0)]);
        assert_eq!(crate::metrics_of(&c, 1), [("in_b", 1.0), ("in_m", 0.0), ("eps", 0.5), ("interloss", 0.0)]);
        // O3: B = {0} = M; subflow 1 is in neither.
        let c = olia(&[(30.0, 20.0, 400000.0, 100000.0), (12.0, 40.0, 50000.0, 10000.0)]);
        assert_eq!(crate::metrics_of(&c, 1), [("in_b", 0.0), ("in_m", 0.0), ("eps", 0.0), ("interloss", 50000.0)]);
    }

    #[test]
    fn a_removed_subflow_leaves_n() {
        // Path 2 is best and not in M: eps_2 = 1/(n |B\M|). With the third subflow
        // gone n is 2, as if it had never been there.
        let mut c = olia(&[(20.0, 50.0, 100.0, 0.0), (8.0, 100.0, 2000.0, 0.0), (20.0, 50.0, 400.0, 0.0)]);
        assert!((c.terms(1).1 - 1.0 / 3.0).abs() < 1e-15);
        c.remove_subflow(2, 0);
        let two = olia(&[(20.0, 50.0, 100.0, 0.0), (8.0, 100.0, 2000.0, 0.0)]);
        assert_eq!(c.terms(1), two.terms(1));
        assert_eq!(c.terms(0), two.terms(0));
    }
}
