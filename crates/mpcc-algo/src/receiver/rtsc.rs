//! R-TSC, receiver-centric traffic splitting control (Se-Yong Park's thesis,
//! chapter 3, section 3.5, Algorithm 1 with EstimateSubflowPath).
//!
//! At the receiver, per subflow r: T_p (the lowest RTT seen, RTTs measured from
//! timestamps), the smoothed RTT T_R, and every `update_s` seconds
//! (EstimateSubflowPath): the window w_r <- alpha w_r + (1 - alpha) pkts T_R / dt,
//! the rate x_r <- beta x_r + (1 - beta) pkts / dt, the capacity c_r <- x_r while
//! the subflow queues (T_R above T_p by `queue_frac`), W_BDP = c_r T_p, and
//! W_loss as w_r when a retransmission arrives; the stream rate f from what
//! the application consumed (3.21). Then x* solves (3.10) and the thresholds
//! W_bar_dup solve (3.20) (`model.rs`). When the estimated w_r exceeds its
//! threshold, the next in-order segment's ACK does not advance the subflow's
//! expected sequence number: the unmodified LIA sender sees duplicate ACKs and
//! halves its window.
//!
//! Interpretation choices (docs/algorithms/rtsc.md): the estimates are updated
//! on every arrival rather than only in-order ones; (3.21) is read as
//! f = consumed / dt (the play-back buffer's drain; the printed "+" sign only
//! holds for a send buffer); after an intentional loss episode ends (its
//! retransmission arrived) the subflow gets one smoothed RTT before the next,
//! as a sender reacts to at most one loss per RTT, and the window estimate is
//! halved with the sender's window (it would otherwise lag by dt and its EWMA
//! and trigger further cuts); when f is not below the
//! estimated total capacity (a bulk transfer, or an overload) every threshold is
//! 2 W_BDP, the top of the thesis's search range.

use super::model::{minimize_delay, window_thresholds, Quadrature};
use super::RxController;
use super::{AppView, Arrival, RxAction, RxStats};
use crate::params::{Info, ParamInfo};
use mpcc_core::Nanos;

const UPDATE: ParamInfo = ParamInfo {
    name: "update_s",
    default: 0.1,
    min: 0.001,
    max: 10.0,
    help: "EstimateSubflowPath's delta t: seconds between window, rate, capacity and stream-rate updates",
    open_min: false,
};
const ALPHA: ParamInfo = ParamInfo {
    name: "alpha",
    default: 0.5,
    min: 0.0,
    max: 0.99,
    help: "EWMA weight of the old window estimate",
    open_min: false,
};
const BETA: ParamInfo = ParamInfo {
    name: "beta",
    default: 0.5,
    min: 0.0,
    max: 0.99,
    help: "EWMA weight of the old rate estimates",
    open_min: false,
};
const QUEUE_FRAC: ParamInfo = ParamInfo {
    name: "queue_frac",
    default: 0.2,
    min: 0.0,
    max: 10.0,
    help: "the capacity is taken from the rate while the RTT exceeds T_p by this fraction (the path queues)",
    open_min: false,
};
const CA: ParamInfo = ParamInfo {
    name: "ca",
    default: 1.0,
    min: 0.0,
    max: 10.0,
    help: "C_a of Kingman's send-buffer bound (3.1) in the objective of (3.10)",
    open_min: false,
};

pub const PARAMS: &[ParamInfo] = &[UPDATE, ALPHA, BETA, QUEUE_FRAC, CA];

/// The registry entry (listed in `receiver/mod.rs`).
pub const INFO: Info = Info::new(
    "rtsc",
    "R-TSC: estimates each subflow's path and the stream rate, solves (3.10), caps windows at the (3.20) thresholds with intentional 3-dup-ACKs (Park, thesis ch. 3, Alg. 1)",
    "docs/algorithms/rtsc.md",
    PARAMS,
);

/// The builder, for a connection of `n` subflows; `p` yields a checked value or default.
pub fn build(p: &dyn Fn(&str) -> f64, n: usize) -> RxController {
    RxController::Rtsc(Rtsc::new(n, &|i: &ParamInfo| p(i.name)))
}

/// LIA's multiplicative decrease.
const LIA_BETA: f64 = 0.5;

#[derive(Clone, Debug)]
pub struct Rtsc {
    dt: Nanos,
    alpha: f64,
    beta: f64,
    queue_frac: f64,
    ca: f64,
    // Per subflow (segments, seconds, segments per second).
    tp: Vec<Nanos>,
    srtt: Vec<Nanos>,
    pkts: Vec<u64>,
    pub w: Vec<f64>,
    pub x: Vec<f64>,
    pub c: Vec<f64>,
    pub w_loss: Vec<f64>,
    pub w_bar: Vec<f64>,
    pub x_star: Vec<f64>,
    /// Waiting for the retransmission that ends an intentional loss.
    in_dup: Vec<bool>,
    /// No new intentional loss before this time.
    quiet_until: Vec<Nanos>,
    t_last: Nanos,
    consumed_last: u64,
    pub f: f64,
    pub feasible: bool,
    pub updates: u64,
    /// Updates that solved (3.10), and those of them where the estimated stream
    /// rate was not below 98 % of the estimated total capacity (saturated or
    /// infeasible: the thresholds fall back to 2 W_BDP).
    pub solves: u64,
    pub saturated: u64,
    quad: Quadrature,
    scratch_tp: Vec<f64>,
    pub stats: RxStats,
}

impl Rtsc {
    pub fn new(n: usize, get: &impl Fn(&ParamInfo) -> f64) -> Rtsc {
        Rtsc {
            dt: (get(&UPDATE) * 1e9) as Nanos,
            alpha: get(&ALPHA),
            beta: get(&BETA),
            queue_frac: get(&QUEUE_FRAC),
            ca: get(&CA),
            tp: vec![Nanos::MAX; n],
            srtt: vec![0; n],
            pkts: vec![0; n],
            w: vec![0.0; n],
            x: vec![0.0; n],
            c: vec![0.0; n],
            w_loss: vec![0.0; n],
            w_bar: vec![f64::INFINITY; n],
            x_star: vec![f64::NAN; n],
            in_dup: vec![false; n],
            quiet_until: vec![0; n],
            t_last: 0,
            consumed_last: 0,
            f: 0.0,
            feasible: false,
            updates: 0,
            solves: 0,
            saturated: 0,
            quad: Quadrature::new(),
            scratch_tp: vec![0.0; n],
            stats: RxStats::default(),
        }
    }

    #[inline]
    pub fn on_arrival(&mut self, a: &Arrival, app: &AppView, act: &mut impl FnMut(usize, RxAction)) {
        let r = a.sub;
        let now = a.now;
        self.pkts[r] += 1;
        if a.rtt > 0 && !a.retransmission {
            self.tp[r] = self.tp[r].min(a.rtt);
            self.srtt[r] = if self.srtt[r] == 0 { a.rtt } else { (7 * self.srtt[r] + a.rtt) / 8 };
        }
        if a.retransmission {
            self.w_loss[r] = self.w[r];
            if self.in_dup[r] {
                // The sender has halved its window: so does the estimate, which
                // otherwise lags by dt and its EWMA and would trigger more cuts.
                self.in_dup[r] = false;
                self.quiet_until[r] = now + self.srtt[r];
                self.w[r] *= LIA_BETA;
            }
        }
        if now.saturating_sub(self.t_last) >= self.dt {
            self.update(now, app);
        }
        if a.in_order && !self.in_dup[r] && now >= self.quiet_until[r] && self.w[r] > self.w_bar[r] {
            self.in_dup[r] = true;
            self.stats.dupacks += 1;
            act(r, RxAction::DupAck);
        }
    }

    /// EstimateSubflowPath for every subflow, the stream rate (3.21), then
    /// (3.10) and (3.20).
    fn update(&mut self, now: Nanos, app: &AppView) {
        let span = now.saturating_sub(self.t_last) as f64 * 1e-9;
        let first = self.updates == 0;
        self.updates += 1;
        self.t_last = now;
        let consumed = app.consumed();
        let f_now = consumed.saturating_sub(self.consumed_last) as f64 / span;
        self.consumed_last = consumed;
        if first {
            // The first interval starts at time 0, before anything arrived.
            self.pkts.iter_mut().for_each(|p| *p = 0);
            return;
        }
        self.f = self.beta * self.f + (1.0 - self.beta) * f_now;
        let n = self.w.len();
        let mut ready = true;
        for r in 0..n {
            let pkts = self.pkts[r] as f64;
            self.pkts[r] = 0;
            let t_r = self.srtt[r] as f64 * 1e-9;
            self.w[r] = self.alpha * self.w[r] + (1.0 - self.alpha) * pkts * t_r / span;
            self.x[r] = self.beta * self.x[r] + (1.0 - self.beta) * pkts / span;
            if self.tp[r] == Nanos::MAX {
                ready = false;
                continue;
            }
            let tp = self.tp[r] as f64 * 1e-9;
            if t_r > tp * (1.0 + self.queue_frac) {
                self.c[r] = self.x[r];
            } else {
                self.c[r] = self.c[r].max(self.x[r]);
            }
            self.scratch_tp[r] = tp;
            ready &= self.c[r] > 0.0;
        }
        if !ready {
            return;
        }
        let cap: f64 = self.c.iter().sum();
        self.feasible = minimize_delay(self.f, &self.c, &self.scratch_tp, self.ca, &mut self.x_star).is_some();
        self.solves += 1;
        if self.feasible && self.f < 0.98 * cap {
            window_thresholds(&self.quad, &self.x_star, &self.c, &self.scratch_tp, LIA_BETA, &mut self.w_bar);
        } else {
            self.saturated += 1;
            for r in 0..n {
                self.w_bar[r] = 2.0 * self.c[r] * self.scratch_tp[r];
            }
        }
    }

    pub fn metrics(&self) -> Vec<(String, f64)> {
        let mut m = vec![
            ("f_hat_pps".to_string(), self.f),
            ("feasible".to_string(), self.feasible as u8 as f64),
            ("solves".to_string(), self.solves as f64),
            ("saturated_solves".to_string(), self.saturated as f64),
        ];
        for r in 0..self.w.len() {
            let tp = if self.tp[r] == Nanos::MAX { f64::NAN } else { self.tp[r] as f64 * 1e-9 };
            m.push((format!("t_p_s_{r}"), tp));
            m.push((format!("c_hat_pps_{r}"), self.c[r]));
            m.push((format!("w_hat_{r}"), self.w[r]));
            m.push((format!("w_loss_{r}"), self.w_loss[r]));
            m.push((format!("w_bar_{r}"), self.w_bar[r]));
            m.push((format!("x_star_pps_{r}"), self.x_star[r]));
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    fn ctl() -> Rtsc {
        Rtsc::new(2, &|p: &ParamInfo| p.default)
    }

    #[test]
    fn estimates_window_rate_capacity_and_caps_the_window() {
        let mut c = ctl();
        let mut acts = Vec::new();
        // Subflow 0: 1000 packets/s at RTT 60 ms (T_p 30 ms: queueing); subflow 1:
        // 500 packets/s at its T_p of 15 ms. The application consumes 1200 packets/s.
        for ms in 0..3000u64 {
            let now = ms * MS;
            let delivered = ms * 12 / 10;
            let app = AppView { delivered, playback: 0 };
            let rtt0 = if ms == 0 { 30 * MS } else { 60 * MS };
            c.on_arrival(
                &Arrival { now, sub: 0, rtt: rtt0, in_order: true, seq: ms, ..Default::default() },
                &app,
                &mut |s, x| acts.push((now, s, x)),
            );
            if ms % 2 == 0 {
                c.on_arrival(
                    &Arrival { now, sub: 1, rtt: 15 * MS, in_order: true, ..Default::default() },
                    &app,
                    &mut |s, x| acts.push((now, s, x)),
                );
            }
        }
        assert!((c.x[0] - 1000.0).abs() < 20.0, "{:?}", c.x);
        assert!((c.x[1] - 500.0).abs() < 20.0, "{:?}", c.x);
        // w = rate * smoothed RTT: 60 and 7.5 packets.
        assert!((c.w[0] - 60.0).abs() < 2.0, "{:?}", c.w);
        assert!((c.w[1] - 7.5).abs() < 0.5, "{:?}", c.w);
        assert!((c.c[0] - 1000.0).abs() < 20.0, "capacity from the queueing subflow: {:?}", c.c);
        assert!((c.f - 1200.0).abs() < 30.0, "{}", c.f);
        assert!(c.feasible);
        // Subflow 0's window (60) is well above 2 W_BDP = 2 * 1000 * 0.03 = 60 at most:
        // its threshold lies in [30, 60]; the intentional loss fires once per episode.
        assert!(c.w_bar[0] >= 30.0 - 1e-9 && c.w_bar[0] <= 60.0 + 1e-9, "{:?}", c.w_bar);
        let dup0 = acts.iter().filter(|a| a.1 == 0 && a.2 == RxAction::DupAck).count();
        assert_eq!(dup0, 1, "held until the retransmission arrives: {acts:?}");
        assert!(acts.iter().all(|a| a.1 == 0), "subflow 1 runs below its threshold: {acts:?}");
        // The retransmission ends the episode (between two updates here): the window
        // estimate follows the sender's halving at once.
        let now = 2950 * MS;
        let app = AppView { delivered: 3540, playback: 0 };
        let w_before = c.w[0];
        c.on_arrival(&Arrival { now, sub: 0, retransmission: true, ..Default::default() }, &app, &mut |_, _| {});
        assert_eq!(c.w[0], 0.5 * w_before, "the estimate follows the sender's halving");
        // If the estimate is still above the threshold one RTT later, the next episode starts.
        c.w[0] = w_before;
        let mut more = Vec::new();
        c.on_arrival(
            &Arrival { now: now + 10 * MS, sub: 0, rtt: 60 * MS, in_order: true, ..Default::default() },
            &app,
            &mut |s, x| more.push((s, x)),
        );
        assert!(more.is_empty(), "quiet for one RTT");
        c.on_arrival(
            &Arrival { now: now + 40 * MS, sub: 0, rtt: 60 * MS, in_order: true, ..Default::default() },
            &app,
            &mut |s, x| more.push((s, x)),
        );
        assert!(more.is_empty(), "quiet for one RTT");
        c.on_arrival(
            &Arrival { now: now + 70 * MS, sub: 0, rtt: 60 * MS, in_order: true, ..Default::default() },
            &app,
            &mut |s, x| more.push((s, x)),
        );
        assert_eq!(more, vec![(0, RxAction::DupAck)]);
        assert!(c.w_loss[0] > 50.0);
    }
}
