//! CDD-MPTCP, control of the delay difference (Tao & Yan 2017, docs/references.md),
//! congestion-control half: LIA plus a periodic cut of the slowest subflow.
//!
//! Each subflow smooths its forward delay `D_i = (1 - a) D_new + a D_i` (a = 0.75).
//! Every `period` (0.5 s) the delay coefficient `theta = D_max / D_min` is smoothed
//! (`theta = (1 - b) theta_new + b theta`) and the subflow with the largest D is cut:
//! `w /= theta` if `theta > theta_max`, `w = (w / theta + w) / 2` if
//! `theta_0 < theta <= theta_max`; then `ssthresh = w` if `w < ssthresh`.
//! The scheduler half (smallest unacked/cwnd first) is not a congestion controller.

use super::base::Path;
use super::lia::{alpha, LiaRule};
use super::window::{Coupled, CouplingRule};
use crate::common::{secs, MIN_CWND};
use crate::params::{param, Info, INIT_CWND};
use crate::Controller;
use crate::{AckEvent, CongestionEvent};
use mpcc_core::Nanos;

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "cdd",
    "CDD-MPTCP (Tao & Yan): LIA plus a periodic cut of the subflow with the largest forward delay",
    "docs/algorithms/cdd.md",
    &[
        INIT_CWND,
        param("theta_0", 1.5, 1.0, 100.0, "delay coefficient above which the slowest subflow is trimmed"),
        param("theta_max", 3.0, 1.0, 100.0, "delay coefficient above which it is divided by theta"),
        param("delay_smoothing", 0.75, 0.0, 0.99, "weight of the old forward delay in its EWMA"),
        param("theta_smoothing", 0.75, 0.0, 0.99, "weight of the old theta in its EWMA"),
        param("period", 0.5, 0.01, 10.0, "seconds between adjustments"),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Cdd(Cdd::new(
        p("init_cwnd"),
        p("theta_0"),
        p("theta_max"),
        p("delay_smoothing"),
        p("theta_smoothing"),
        p("period"),
    ))
}

/// CDD's rule: LIA's, plus the delay state (kept out of the records, so an undo
/// does not rewind it).
#[derive(Clone, Debug)]
pub struct CddRule {
    lia: LiaRule,
    pub theta_0: f64,
    pub theta_max: f64,
    /// Weight of the old value in the forward-delay EWMA.
    pub delay_smoothing: f64,
    /// Weight of the old value in the theta EWMA.
    pub theta_smoothing: f64,
    pub period: Nanos,
    /// Smoothed forward delay per subflow (s), 0 until the first sample.
    pub(crate) delay: Vec<f64>,
    /// Smoothed delay coefficient, 0 until first computed.
    pub theta: f64,
    last: Option<Nanos>,
}

/// CDD: its rule over the shared per-subflow driver.
pub type Cdd = Coupled<CddRule>;

impl Cdd {
    pub fn new(
        init_cwnd: f64, theta_0: f64, theta_max: f64, delay_smoothing: f64, theta_smoothing: f64, period_s: f64,
    ) -> Cdd {
        Coupled::with_rule(
            init_cwnd,
            CddRule {
                lia: LiaRule::new(1.0),
                theta_0,
                theta_max,
                delay_smoothing,
                theta_smoothing,
                period: mpcc_core::time::from_secs(period_s),
                delay: Vec::new(),
                theta: 0.0,
                last: None,
            },
        )
    }

    /// The periodic step (see [`CddRule::adjust`]).
    pub fn adjust(&mut self) -> Option<usize> {
        self.rule.adjust(&mut self.paths)
    }
}

impl CddRule {
    /// The periodic step: update theta, cut the slowest subflow. Returns its id if cut.
    pub fn adjust(&mut self, paths: &mut [Path]) -> Option<usize> {
        let (mut dmax, mut dmin, mut imax) = (0.0f64, f64::INFINITY, 0);
        let mut n = 0;
        for (i, &d) in self.delay.iter().enumerate() {
            if d > 0.0 {
                n += 1;
                if d > dmax {
                    dmax = d;
                    imax = i;
                }
                dmin = dmin.min(d);
            }
        }
        if n < 2 {
            return None;
        }
        let t_new = dmax / dmin;
        let b = self.theta_smoothing;
        self.theta = if self.theta == 0.0 { t_new } else { (1.0 - b) * t_new + b * self.theta };
        let th = self.theta;
        let p = &mut paths[imax];
        if th > self.theta_max {
            p.cwnd /= th;
        } else if th > self.theta_0 {
            p.cwnd = (p.cwnd / th + p.cwnd) / 2.0;
        } else {
            return None;
        }
        p.cwnd = p.cwnd.max(MIN_CWND);
        if p.cwnd < p.ssthresh {
            p.ssthresh = p.cwnd;
        }
        Some(imax)
    }
}

impl CouplingRule for CddRule {
    type Sub = Path;
    fn new_subflow(&mut self, init_cwnd: f64) -> Path {
        self.delay.push(0.0);
        self.lia.new_subflow(init_cwnd)
    }

    /// LIA's step, then the forward-delay sample and, once per period, the cut.
    #[inline]
    fn grow(&mut self, subs: &mut [Path], sf: usize, ev: &AckEvent) {
        self.lia.grow(subs, sf, ev);
        if ev.owd > 0 {
            let (d, a) = (secs(ev.owd), self.delay_smoothing);
            let s = &mut self.delay[sf];
            *s = if *s == 0.0 { d } else { (1.0 - a) * d + a * *s };
        }
        let last = *self.last.get_or_insert(ev.now);
        if ev.now.saturating_sub(last) >= self.period {
            self.last = Some(ev.now);
            self.adjust(subs);
        }
    }
    #[inline]
    fn increase(&mut self, subs: &mut [Path], sf: usize, left: f64, ev: &AckEvent) {
        self.lia.increase(subs, sf, left, ev);
    }
    fn decrease(&mut self, subs: &mut [Path], sf: usize, ev: &CongestionEvent) {
        self.lia.decrease(subs, sf, ev);
    }
    /// Its forward delay leaves theta too: a subflow that left is never cut.
    fn remove(&mut self, subs: &mut [Path], sf: usize) {
        self.lia.remove(subs, sf);
        self.delay[sf] = 0.0;
    }
    /// LIA's `alpha`, then `theta` (connection) and `delay` (s, smoothed forward delay).
    fn metrics(&self, subs: &[Path], sf: usize, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", alpha(subs));
        out("theta", self.theta);
        out("delay", self.delay[sf]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::CongestionControl;

    fn cdd() -> Cdd {
        let mut c = Cdd::new(10.0, 1.5, 3.0, 0.75, 0.75, 0.5);
        for _ in 0..2 {
            let i = c.add_subflow(0);
            c.paths[i] = path(40.0, 100.0);
            c.paths[i].ssthresh = 30.0;
        }
        c
    }

    #[test]
    fn cuts_the_slowest_subflow_by_theta() {
        // theta = 4 > theta_max 3: w /= 4 on the slow subflow, ssthresh follows.
        let mut c = cdd();
        c.rule.delay = vec![0.020, 0.080];
        assert_eq!(c.adjust(), Some(1));
        assert_eq!((c.cwnd(1), c.ssthresh(1), c.cwnd(0)), (10.0, 10.0, 40.0));
        // theta_0 < theta = 2 <= theta_max: average of w and w/theta
        let mut c = cdd();
        c.rule.delay = vec![0.040, 0.020];
        assert_eq!(c.adjust(), Some(0));
        assert_eq!((c.cwnd(0), c.ssthresh(0)), (30.0, 30.0));
        // theta = 1.2 <= theta_0: nothing
        let mut c = cdd();
        c.rule.delay = vec![0.024, 0.020];
        assert_eq!(c.adjust(), None);
        // theta smoothing: second period theta = 0.25 * 2 + 0.75 * 4 = 3.5
        let mut c = cdd();
        c.rule.delay = vec![0.020, 0.080];
        c.adjust();
        c.rule.delay = vec![0.020, 0.040];
        c.adjust();
        assert!((c.rule.theta - 3.5).abs() < 1e-12);
    }

    #[test]
    fn delay_smoothing_and_period_from_acks() {
        let mut c = cdd();
        let mut ev = ack(0, 0.0, 100.0); // acked 0: no LIA growth
        ev.owd = 20 * MS;
        c.on_ack(0, &ev);
        ev.owd = 100 * MS;
        c.on_ack(1, &ev);
        ev.owd = 60 * MS;
        ev.now = 100 * MS;
        c.on_ack(1, &ev); // 0.25 * 60 + 0.75 * 100 = 90 ms
        assert!((c.rule.delay[1] - 0.090).abs() < 1e-12);
        assert_eq!(c.cwnd(1), 40.0, "no adjustment before 0.5 s");
        ev.now = 500 * MS;
        ev.owd = 90 * MS;
        c.on_ack(1, &ev); // theta = 4.5 > 3: 40 / 4.5
        assert!((c.cwnd(1) - 40.0 / 4.5).abs() < 1e-12);
    }

    #[test]
    fn metrics_are_alpha_theta_and_delay() {
        let mut c = cdd();
        c.rule.delay = vec![0.020, 0.080];
        c.adjust();
        let m = crate::metrics_of(&c, 1);
        assert_eq!(&m[1..], [("theta", 4.0), ("delay", 0.080)]);
        assert_eq!(m[0].0, "alpha");
    }

    #[test]
    fn a_removed_subflow_leaves_theta() {
        let mut c = cdd();
        c.rule.delay = vec![0.020, 0.080];
        c.remove_subflow(1, 0);
        assert_eq!(c.adjust(), None, "one subflow left: no delay difference");
        assert_eq!(c.cwnd(1), 0.0);
    }
}
