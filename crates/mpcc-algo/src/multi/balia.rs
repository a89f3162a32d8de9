//! BALIA, Balanced Linked Adaptation (Peng, Walid, Hwang, Low, IEEE/ACM ToN 2016).
//!
//! With `x_k = w_k / rtt_k` and `a_r = max_k x_k / x_r`, per acked segment in
//! congestion avoidance on subflow r:
//! `w_r += (x_r / rtt_r) / (sum_k x_k)^2 * (1 + a_r)/2 * (4 + a_r)/5`,
//! and on loss `w_r -= w_r/2 * min(a_r, 1.5)`. One subflow: a = 1, i.e. Reno.

use super::base::Path;
use super::window::{Coupled, CouplingRule};
use crate::params::{Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "balia",
    "Balanced Linked Adaptation (Peng, Walid, Hwang, Low 2016)",
    "docs/algorithms/balia.md",
    &[INIT_CWND],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Balia(Balia::new(p("init_cwnd")))
}

/// BALIA's rule (no parameters).
#[derive(Clone, Debug, Default)]
pub struct BaliaRule;

/// BALIA: its rule over the shared per-subflow driver.
pub type Balia = Coupled<BaliaRule>;

impl Balia {
    pub fn new(init_cwnd: f64) -> Balia {
        Coupled::with_rule(init_cwnd, BaliaRule)
    }

    /// See [`terms`].
    pub fn terms(&self, r: usize) -> (f64, f64, f64) {
        terms(&self.paths, r)
    }
}

/// `(N, f, a)`: one acked segment adds `f / N`, where `1/N = (x_r/rtt_r)/(sum x)^2`
/// is computed as `1 / (s (s / w_r))`, `s = sum_k w_k rtt_r / rtt_k` (exactly w for
/// one subflow), `f = (1+a)(4+a)/10` and `a = max_k x_k / x_r`.
#[inline]
pub fn terms(paths: &[Path], r: usize) -> (f64, f64, f64) {
    let me = &paths[r];
    if !me.eligible() {
        return (me.cwnd, 1.0, 1.0);
    }
    let (mut s, mut x_max) = (0.0, 0.0f64);
    for p in paths.iter().filter(|p| p.eligible()) {
        s += p.cwnd * (me.srtt / p.srtt);
        x_max = x_max.max(p.rate());
    }
    let a = x_max / me.rate();
    let a = if a.is_finite() { a } else { 1.0 };
    (s * (s / me.cwnd), (1.0 + a) * (4.0 + a) / 10.0, a)
}

impl CouplingRule for BaliaRule {
    type Sub = Path;
    fn new_subflow(&mut self, init_cwnd: f64) -> Path {
        Path::new(init_cwnd)
    }
    #[inline]
    fn increase(&mut self, subs: &mut [Path], sf: usize, left: f64, _ev: &AckEvent) {
        let (n, f, _) = terms(subs, sf);
        subs[sf].cwnd += left / n * f;
    }
    fn decrease(&mut self, subs: &mut [Path], sf: usize, ev: &CongestionEvent) {
        let (_, _, a) = terms(subs, sf);
        let p = &mut subs[sf];
        p.reduce_to(ev.kind, p.cwnd * (1.0 - 0.5 * a.min(1.5)));
    }
    /// `a` (max rate / own rate), `f` (the increase factor (1+a)(4+a)/10) and
    /// `increase` (per-segment increase f/N).
    fn metrics(&self, subs: &[Path], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        let (n, f, a) = terms(subs, sf);
        out("a", a);
        out("f", f);
        out("increase", f / n);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;
    use crate::CongestionKind;

    fn balia(flows: &[(f64, f64)]) -> Balia {
        let mut c = Balia::new(10.0);
        for &(w, rtt) in flows {
            let i = c.add_subflow(0);
            c.paths[i] = path(w, rtt);
        }
        c
    }

    /// ACKs per +1 segment (the kernel's `ai`, ideal value).
    fn ai(c: &Balia, r: usize) -> f64 {
        let (n, f, _) = c.terms(r);
        n / f
    }

    #[test]
    fn one_subflow_is_reno() {
        assert_reno_equivalent(|| Box::new(Balia::new(10.0)), 4);
    }

    #[test]
    fn kernel_vectors_precise_form() {
        // Kernel test vectors B1-B3 (an integer model of the out-of-tree Linux MPTCP
        // mptcp_balia.c), ideal columns (kernel integers in comments).
        let c = balia(&[(10.0, 100.0), (10.0, 100.0)]); // B1
        assert!((ai(&c, 0) - 40.0).abs() < 1e-9);
        let c = balia(&[(20.0, 20.0), (10.0, 80.0)]); // B2
        assert!((ai(&c, 0) - 25.3125).abs() < 1e-9); // kernel 25
        assert!((ai(&c, 1) - 75.0).abs() < 1e-9); // kernel 75
        assert_eq!(c.terms(1).2, 8.0);
        let c = balia(&[(300.0, 10.0), (60.0, 40.0)]); // B3
        assert!((ai(&c, 0) - 330.75).abs() < 1e-6); // kernel 330
        assert!((ai(&c, 1) - 525.0).abs() < 1e-6); // kernel 525
    }

    #[test]
    fn decrease_scales_with_rate_ratio() {
        // B2: subflow 1 has a = 8 -> md = 10/2 * 1.5 = 7.5 -> ssthresh 2.5 (kernel
        // 3: md truncated to 7); subflow 0 (a = 1) halves.
        let mut c = balia(&[(20.0, 20.0), (10.0, 80.0)]);
        c.on_congestion(1, &cong(CongestionKind::Loss));
        assert_eq!((c.cwnd(1), c.ssthresh(1)), (2.5, 2.5));
        c.on_congestion(0, &cong(CongestionKind::Loss));
        assert_eq!(c.cwnd(0), 10.0);
        // a = 1.2 (between 1 and 1.5): w -= w/2 * 1.2
        let mut c = balia(&[(12.0, 100.0), (10.0, 100.0)]);
        c.on_congestion(1, &cong(CongestionKind::Timeout));
        assert!((c.ssthresh(1) - 4.0).abs() < 1e-12);
        assert_eq!(c.cwnd(1), 1.0);
    }

    #[test]
    fn never_faster_than_reno_per_subflow() {
        let mut rng = mpcc_core::Rng::stream(3, 3);
        for _ in 0..2000 {
            let n = 1 + (rng.next_u64() % 4) as usize;
            let flows: Vec<(f64, f64)> =
                (0..n).map(|_| (1.0 + 300.0 * rng.uniform(), 5.0 + 300.0 * rng.uniform())).collect();
            let c = balia(&flows);
            for r in 0..n {
                assert!(ai(&c, r) >= flows[r].0 * (1.0 - 1e-12), "{flows:?} r {r}");
            }
        }
    }

    #[test]
    fn metrics_are_the_rate_ratio_and_the_increase() {
        let c = balia(&[(20.0, 20.0), (10.0, 80.0)]); // B2
        let m = crate::metrics_of(&c, 1);
        assert_eq!(m[0], ("a", 8.0));
        assert!((m[1].1 - 10.8).abs() < 1e-12 && (m[2].1 - 1.0 / 75.0).abs() < 1e-12, "{m:?}");
        assert_eq!(crate::metrics_of(&c, 0)[0], ("a", 1.0));
    }
}
