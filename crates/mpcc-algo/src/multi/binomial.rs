//! Multipath binomial congestion control, MPSQRT and MPIAD (Le, Hong, Lee, IEICE
//! Trans. Commun. 2012; as the MPMTP paper restates it, Lee & Chung 2017,
//! docs/references.md).
//!
//! Per acked segment `w_r += delta alpha / w_r^k`; on loss `w_r -= beta w_r^l`.
//! SQRT: k = l = 1/2, alpha = 1, beta = 1/2. IIAD: k = 1, l = 0, alpha = 2, beta = 1.
//! A binomial flow's equilibrium window is `(alpha / (beta p))^(1/(k+l))`, so its
//! rate scales with `delta^(1/(k+l))`; the common fairness factor that gives the
//! connection the best single-path binomial flow's rate is
//! `delta = (max_r x_r / sum_i x_i)^(k+l)` (1 with one subflow).

use super::base::Path;
use super::window::{Coupled, CouplingRule};
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};

// ---- registry entry and builder (listed in mod.rs) ----

pub const MPSQRT: Info = Info::new(
    "mpsqrt",
    "multipath binomial SQRT (Le et al.): +delta/sqrt(w), -sqrt(w)/2",
    "docs/algorithms/mpsqrt.md",
    &[
        INIT_CWND,
        param("k", 0.5, 0.0, 2.0, "increase exponent"),
        param("l", 0.5, 0.0, 1.0, "decrease exponent"),
        param("alpha", 1.0, 0.01, 10.0, "increase constant"),
        param("beta", 0.5, 0.01, 10.0, "decrease constant"),
    ],
);

pub fn build_mpsqrt(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Mpsqrt(Binomial::new(p("init_cwnd"), p("k"), p("l"), p("alpha"), p("beta")))
}

pub const MPIAD: Info = Info::new(
    "mpiad",
    "multipath binomial IIAD (Le et al.): +2 delta/w, -1",
    "docs/algorithms/mpiad.md",
    &[
        INIT_CWND,
        param("k", 1.0, 0.0, 2.0, "increase exponent"),
        param("l", 0.0, 0.0, 1.0, "decrease exponent"),
        param("alpha", 2.0, 0.01, 10.0, "increase constant"),
        param("beta", 1.0, 0.01, 10.0, "decrease constant"),
    ],
);

pub fn build_mpiad(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Mpiad(Binomial::new(p("init_cwnd"), p("k"), p("l"), p("alpha"), p("beta")))
}

/// The binomial rule's exponents and constants.
#[derive(Clone, Debug)]
pub struct BinomialRule {
    pub k: f64,
    pub l: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl BinomialRule {
    #[inline]
    pub fn delta(&self, paths: &[Path]) -> f64 {
        let (mut sum, mut max) = (0.0, 0.0f64);
        for p in paths {
            let x = p.rate();
            sum += x;
            max = max.max(x);
        }
        let d = (max / sum).powf(self.k + self.l);
        if d.is_finite() && d > 0.0 {
            d
        } else {
            1.0
        }
    }
}

/// MPSQRT / MPIAD: the binomial rule over the shared per-subflow driver.
pub type Binomial = Coupled<BinomialRule>;

impl Binomial {
    pub fn new(init_cwnd: f64, k: f64, l: f64, alpha: f64, beta: f64) -> Binomial {
        Coupled::with_rule(init_cwnd, BinomialRule { k, l, alpha, beta })
    }
    pub fn sqrt(init_cwnd: f64) -> Binomial {
        Binomial::new(init_cwnd, 0.5, 0.5, 1.0, 0.5)
    }
    pub fn iiad(init_cwnd: f64) -> Binomial {
        Binomial::new(init_cwnd, 1.0, 0.0, 2.0, 1.0)
    }
    pub fn delta(&self) -> f64 {
        self.rule.delta(&self.paths)
    }
}

impl CouplingRule for BinomialRule {
    type Sub = Path;
    fn new_subflow(&mut self, init_cwnd: f64) -> Path {
        Path::new(init_cwnd)
    }
    #[inline]
    fn increase(&mut self, subs: &mut [Path], sf: usize, left: f64, _ev: &AckEvent) {
        let d = self.delta(subs);
        let p = &mut subs[sf];
        p.cwnd += d * self.alpha * left / p.cwnd.powf(self.k);
    }
    fn decrease(&mut self, subs: &mut [Path], sf: usize, ev: &CongestionEvent) {
        let p = &mut subs[sf];
        p.reduce_to(ev.kind, p.cwnd - self.beta * p.cwnd.powf(self.l));
    }
    /// `delta`, the common fairness factor.
    fn metrics(&self, subs: &[Path], _sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        out("delta", self.delta(subs));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;
    use crate::CongestionKind;

    #[test]
    fn sqrt_rules() {
        let mut c = Binomial::sqrt(10.0);
        c.add_subflow(0);
        c.paths[0] = path(16.0, 50.0);
        c.on_ack(0, &ack(1, 1.0, 50.0)); // + 1/sqrt(16)
        assert!((c.cwnd(0) - 16.25).abs() < 1e-12);
        c.paths[0].cwnd = 16.0;
        c.on_congestion(0, &cong(CongestionKind::Loss)); // - 0.5 * 4
        assert_eq!(c.cwnd(0), 14.0);
    }

    #[test]
    fn iiad_rules_and_delta() {
        let mut c = Binomial::iiad(10.0);
        for _ in 0..2 {
            let i = c.add_subflow(0);
            c.paths[i] = path(20.0, 50.0);
        }
        assert_eq!(c.delta(), 0.5);
        c.on_ack(0, &ack(1, 1.0, 50.0)); // + 0.5 * 2 / 20
        assert!((c.cwnd(0) - 20.05).abs() < 1e-12);
        c.on_congestion(1, &cong(CongestionKind::Loss)); // - 1
        assert_eq!(c.cwnd(1), 19.0);
        // SQRT (k + l = 1) has the same delta; AIMD-like k + l = 2 squares it
        let mut c = Binomial::new(10.0, 1.0, 1.0, 1.0, 0.5);
        for _ in 0..2 {
            let i = c.add_subflow(0);
            c.paths[i] = path(20.0, 50.0);
        }
        assert_eq!(c.delta(), 0.25);
    }

    #[test]
    fn metrics_are_delta() {
        let mut c = Binomial::iiad(10.0);
        for _ in 0..2 {
            let i = c.add_subflow(0);
            c.paths[i] = path(20.0, 50.0);
        }
        assert_eq!(crate::metrics_of(&c, 0), [("delta", 0.5)]);
    }
}
