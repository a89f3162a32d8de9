//! Binomial congestion control (Bansal & Balakrishnan, INFOCOM 2001).
//!
//! Per RTT without loss `w += alpha / w^k`, i.e. `alpha / w^(k+1)` per delivered
//! segment; on loss `w -= beta * w^l`. (k, l) = (0, 1) is AIMD (Reno with
//! alpha 1, beta 1/2); SQRT is k = l = 1/2 and IIAD is k = 1, l = 0; k + l = 1
//! keeps the rule TCP-compatible. See docs/algorithms/binomial.md.

use crate::common::{may_grow, slow_start, ssthresh_floor, window_after};
use crate::params::{param, Args, Info, Problem, INIT_CWND};
use crate::{AckEvent, CongestionEvent, SubflowCc};
use crate::{Controller, Uncoupled};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "binomial",
    "Binomial control: +alpha/w^k per RTT, -beta w^l on loss (Bansal & Balakrishnan)",
    "docs/algorithms/binomial.md",
    &[
        INIT_CWND,
        param("k", 0.0, -1.0, 2.0, "increase exponent k"),
        param("l", 1.0, 0.0, 1.0, "decrease exponent l"),
        param("alpha", 1.0, 0.01, 100.0, "increase scale alpha, segments^(k+1) per RTT"),
        param("beta", 0.5, 0.001, 100.0, "decrease scale beta (with l = 1 it must stay below 1)"),
    ],
)
.with_rule(check_params);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Binomial(Uncoupled::new(Binomial::new(p("init_cwnd"), p("k"), p("l"), p("alpha"), p("beta"))))
}

pub const SQRT: Info = Info::new(
    "sqrt",
    "SQRT binomial control: k = l = 1/2, alpha 1, beta 1/2",
    "docs/algorithms/binomial.md",
    &[
        INIT_CWND,
        param("alpha", 1.0, 0.01, 100.0, "increase scale alpha"),
        param("beta", 0.5, 0.001, 100.0, "decrease scale beta"),
    ],
);

pub fn build_sqrt(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Binomial(Uncoupled::new(Binomial::sqrt(p("init_cwnd"), p("alpha"), p("beta"))))
}

pub const IIAD: Info = Info::new(
    "iiad",
    "IIAD binomial control: k = 1, l = 0, alpha 2, beta 1",
    "docs/algorithms/binomial.md",
    &[
        INIT_CWND,
        param("alpha", 2.0, 0.01, 100.0, "increase scale alpha"),
        param("beta", 1.0, 0.001, 100.0, "decrease scale beta, segments per loss"),
    ],
);

pub fn build_iiad(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Binomial(Uncoupled::new(Binomial::iiad(p("init_cwnd"), p("alpha"), p("beta"))))
}

#[derive(Clone, Debug)]
pub struct Binomial {
    pub cwnd: f64,
    pub ssthresh: f64,
    k: f64,
    l: f64,
    alpha: f64,
    beta: f64,
}

/// With l = 1 the decrease `beta w` must leave a window: beta below 1. (Other l
/// shrink `w - beta w^l` towards the 2-segment floor, which is allowed.)
pub fn check_params(p: &Args) -> Result<(), Problem> {
    let (l, beta) = (p.get("l"), p.get("beta"));
    if l == 1.0 && beta >= 1.0 {
        return Err(Problem::whole(format!(
            "beta is {beta} with l = 1; allowed: beta below 1 (the decrease beta * w would empty the window)"
        )));
    }
    Ok(())
}

impl Binomial {
    pub fn new(init_cwnd: f64, k: f64, l: f64, alpha: f64, beta: f64) -> Binomial {
        Binomial { cwnd: init_cwnd, ssthresh: f64::INFINITY, k, l, alpha, beta }
    }
    /// SQRT: k = l = 1/2.
    pub fn sqrt(init_cwnd: f64, alpha: f64, beta: f64) -> Binomial {
        Binomial::new(init_cwnd, 0.5, 0.5, alpha, beta)
    }
    /// IIAD: k = 1, l = 0.
    pub fn iiad(init_cwnd: f64, alpha: f64, beta: f64) -> Binomial {
        Binomial::new(init_cwnd, 1.0, 0.0, alpha, beta)
    }

    /// Window after one decrease from `w`, before the floors.
    #[inline]
    pub fn decreased(&self, w: f64) -> f64 {
        w - self.beta * w.powf(self.l)
    }
}

impl SubflowCc for Binomial {
    #[inline]
    fn on_ack(&mut self, ev: &AckEvent) {
        if !may_grow(ev) {
            return;
        }
        let left = slow_start(&mut self.cwnd, self.ssthresh, ev.acked);
        if left > 0.0 {
            // cwnd >= 1, so the step is at most alpha * left.
            self.cwnd += self.alpha * left / self.cwnd.powf(self.k + 1.0);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        self.ssthresh = ssthresh_floor(self.decreased(self.cwnd));
        self.cwnd = window_after(ev.kind, self.ssthresh);
    }

    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn set_ssthresh(&mut self, v: f64) {
        self.ssthresh = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CongestionKind;

    fn ack(acked: f64) -> AckEvent {
        AckEvent { acked, ..Default::default() }
    }
    fn cong(kind: CongestionKind) -> CongestionEvent {
        CongestionEvent { now: 0, kind, in_flight: 0.0, srtt: 0, min_rtt: 0, rtt: 0, from_flight: false }
    }
    fn in_ca(mut b: Binomial) -> Binomial {
        b.ssthresh = 2.0;
        b
    }

    /// Per-segment increases at w = 16: SQRT 1 / 16^1.5 = 1/64; IIAD 2 / 16^2 = 1/128;
    /// AIMD 1/16.
    #[test]
    fn increase_vectors() {
        let mut s = in_ca(Binomial::sqrt(16.0, 1.0, 0.5));
        s.on_ack(&ack(1.0));
        assert!((s.cwnd - (16.0 + 1.0 / 64.0)).abs() < 1e-12);
        let mut i = in_ca(Binomial::iiad(16.0, 2.0, 1.0));
        i.on_ack(&ack(2.0));
        assert!((i.cwnd - (16.0 + 2.0 * 2.0 / 256.0)).abs() < 1e-12);
        let mut a = in_ca(Binomial::new(16.0, 0.0, 1.0, 1.0, 0.5));
        a.on_ack(&ack(1.0));
        assert!((a.cwnd - 16.0625).abs() < 1e-12);
        // One RTT of w ACKs adds about alpha / w^k: SQRT at 100 gains ~ 1/10.
        let mut s = in_ca(Binomial::sqrt(100.0, 1.0, 0.5));
        for _ in 0..100 {
            s.on_ack(&ack(1.0));
        }
        assert!((s.cwnd - 100.1).abs() < 1e-3, "{}", s.cwnd);
    }

    /// Decreases from w = 16: SQRT 16 - 0.5 * 4 = 14; IIAD 16 - 1 = 15; AIMD 8.
    #[test]
    fn decrease_vectors() {
        let mut s = Binomial::sqrt(16.0, 1.0, 0.5);
        s.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!((s.cwnd, s.ssthresh), (14.0, 14.0));
        let mut i = Binomial::iiad(16.0, 2.0, 1.0);
        i.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!((i.cwnd, i.ssthresh), (15.0, 15.0));
        let mut a = Binomial::new(16.0, 0.0, 1.0, 1.0, 0.5);
        a.on_congestion(&cong(CongestionKind::Ecn));
        assert_eq!(a.cwnd, 8.0);
        a.on_congestion(&cong(CongestionKind::Timeout));
        assert_eq!((a.cwnd, a.ssthresh), (1.0, 4.0));
        // Floors: IIAD from 2.5 would give 1.5 -> ssthresh 2; a huge beta cannot go below.
        let mut i = Binomial::iiad(2.5, 2.0, 1.0);
        i.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!((i.cwnd, i.ssthresh), (2.0, 2.0));
        let mut b = Binomial::new(50.0, 0.0, 1.0, 1.0, 50.0);
        b.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!(b.ssthresh, 2.0);
    }

    #[test]
    fn slow_start_then_binomial_and_recovery_freeze() {
        let mut s = Binomial::sqrt(10.0, 1.0, 0.5);
        s.ssthresh = 12.0;
        s.on_ack(&ack(3.0)); // 2 to reach 12, 1 left at w 12
        assert!((s.cwnd - (12.0 + 1.0 / 12f64.powf(1.5))).abs() < 1e-12);
        let w = s.cwnd;
        s.on_ack(&AckEvent { acked: 5.0, in_recovery: true, ..Default::default() });
        assert_eq!(s.cwnd, w);
    }

    #[test]
    fn beta_below_one_with_l_one_is_enforced() {
        use crate::{registry, Params};
        let params = |l: f64, beta: f64| Params([("l".to_string(), l), ("beta".to_string(), beta)].into());
        let e = registry::check("binomial", &params(1.0, 1.0)).unwrap_err();
        assert!(e.contains("beta") && e.contains("below 1"), "{e}");
        assert!(registry::check("binomial", &params(1.0, 0.99)).is_ok());
        assert!(registry::check("binomial", &params(0.5, 3.0)).is_ok());
    }
}
