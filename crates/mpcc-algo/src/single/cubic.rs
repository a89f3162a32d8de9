//! CUBIC (RFC 9438) in real arithmetic.
//!
//! Congestion avoidance follows `W_cubic(t) = C (t - K)^3 + W_max`, where `t` is the
//! time since the current congestion-avoidance stage began and
//! `K = cbrt((W_max - cwnd_epoch) / C)`. Each new ACK moves cwnd towards
//! `target = W_cubic(t + RTT)` (bounded to [cwnd, 1.5 cwnd]) by
//! `(target - cwnd) / cwnd` per delivered segment; RTT is the smoothed RTT (RFC 9438
//! §4.1.2). A Reno estimate `W_est` (AIMD(alpha_cubic, beta)) runs beside it and wins
//! whenever `W_cubic(t) < W_est` (Reno-friendly region). See docs/algorithms/cubic.md.

use super::cubic_linux::LinuxAvoidance;
use super::cubic_ns3::Ns3Avoidance;
use super::hystart::HyStart;
use crate::common::{may_grow, nonzero_or, secs, slow_start, ssthresh_floor, MIN_CWND};
use crate::params::{param, Info, INIT_CWND};
use crate::{AckEvent, CongestionEvent, CongestionKind, SubflowCc};
use crate::{Controller, Uncoupled};
use mpcc_core::Nanos;

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "cubic",
    "CUBIC (RFC 9438): cubic growth around W_max, Reno-friendly region, beta 0.7",
    "docs/algorithms/cubic.md",
    &[
        INIT_CWND,
        param("c", 0.4, 0.01, 10.0, "cubic scaling constant C, segments/s^3"),
        param("beta", 0.7, 0.1, 0.99, "beta_cubic: window kept on a congestion event"),
        param("fast_convergence", 1.0, 0.0, 1.0, "1 = fast convergence on, 0 = off (values >= 0.5 mean on)"),
        param(
            "hystart",
            0.0,
            0.0,
            2.0,
            "1 = HyStart ends slow start early (Linux's thresholds), 2 = with ns-3's; default: the TCP profile's",
        ),
        param(
            "initial_growth",
            0.0,
            0.0,
            0.5,
            "least growth per RTT (fraction of cwnd) until the first loss: Linux 0.05, RFC 9438 0; default: the TCP profile's",
        ),
        param(
            "whole_segments",
            0.0,
            0.0,
            1.0,
            "1 = ns-3's TcpCubic in whole segments: ssthresh and W_max at a loss and timeout, integer growth; default: the TCP profile's",
        ),
        param(
            "linux_integer",
            0.0,
            0.0,
            1.0,
            "1 = Linux's tcp_cubic in whole segments and jiffies (cubic_linux.rs); default: the TCP profile's",
        ),
        param(
            "reno_alpha_one",
            1.0,
            0.0,
            1.0,
            "1 = RFC 9438 4.3: the Reno-friendly estimate grows 1 segment per RTT once it reaches cwnd_prior; 0 = Linux's fixed 3(1-beta)/(1+beta); default: the TCP profile's",
        ),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Cubic(Uncoupled::new(
        Cubic::new(p("init_cwnd"), p("c"), p("beta"), p("fast_convergence") >= 0.5)
            .with_hystart(p("hystart") >= 0.5)
            .with_ns3_hystart(p("hystart") >= 1.5)
            .with_initial_growth(p("initial_growth"))
            .with_whole_segments(p("whole_segments") >= 0.5)
            .with_reno_alpha_one(p("reno_alpha_one") >= 0.5)
            .with_linux_integer(p("linux_integer") >= 0.5),
    ))
}

#[derive(Clone, Debug)]
pub struct Cubic {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// C, segments / s^3.
    c: f64,
    /// beta_cubic: window kept on a congestion event.
    beta: f64,
    /// alpha_cubic = 3 (1 - beta) / (1 + beta), precomputed.
    alpha_reno: f64,
    fast_convergence: bool,
    /// W_max; 0 = undefined (no congestion event yet, or forgotten after a timeout).
    pub w_max: f64,
    /// cwnd when ssthresh was last set (alpha_cubic turns to 1 once W_est reaches it).
    pub cwnd_prior: f64,
    /// Start of the current congestion-avoidance stage, if one is running.
    epoch: Option<Nanos>,
    /// K in seconds, for the current stage.
    pub k: f64,
    /// Reno-friendly window estimate, segments.
    pub w_est: f64,
    /// HyStart, when on (Linux's default; [`Cubic::with_hystart`]).
    pub hystart: Option<HyStart>,
    /// Least growth per RTT, as a fraction of cwnd, in a stage that began with W_max
    /// undefined (Linux: 5 %, `cnt` at most 20 while `last_max_cwnd` is 0; RFC 9438:
    /// none). After HyStart ends slow start early the cubic curve from K = 0 is flat
    /// for seconds; Linux grows at least this fast until the first loss.
    initial_growth: f64,
    /// The current stage began with W_max undefined.
    w_max_unknown: bool,
    /// RFC 9438 §4.3: once W_est reaches cwnd_prior the Reno-friendly estimate
    /// grows by one segment per RTT (alpha 1). Linux's tcp_cubic keeps its fixed
    /// `beta_scale`, that is 3 (1 - beta) / (1 + beta), at every window.
    reno_alpha_one: bool,
    /// ns-3's TcpCubic in whole segments ([`Cubic::with_whole_segments`]): its integer
    /// congestion avoidance (cubic_ns3.rs); None: RFC 9438's real values.
    ns3: Option<Ns3Avoidance>,
    /// Linux's tcp_cubic in whole segments ([`Cubic::with_linux_integer`]; cubic_linux.rs).
    linux: Option<LinuxAvoidance>,
}

impl Cubic {
    pub fn new(init_cwnd: f64, c: f64, beta: f64, fast_convergence: bool) -> Cubic {
        Cubic {
            cwnd: init_cwnd,
            ssthresh: f64::INFINITY,
            c,
            beta,
            alpha_reno: 3.0 * (1.0 - beta) / (1.0 + beta),
            fast_convergence,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            k: 0.0,
            w_est: init_cwnd,
            hystart: None,
            initial_growth: 0.0,
            w_max_unknown: false,
            reno_alpha_one: true,
            ns3: None,
            linux: None,
        }
    }

    /// Linux's tcp_cubic as the kernel computes it (cubic_linux.rs): whole segments,
    /// jiffies, `cnt`, the fixed Reno-friendly alpha and the minimum RTT sample as the
    /// look-ahead. ns-3's arithmetic (`with_whole_segments`) takes precedence.
    pub fn with_linux_integer(mut self, on: bool) -> Cubic {
        self.linux = (on && self.ns3.is_none()).then(LinuxAvoidance::default);
        self
    }

    /// The Reno-friendly estimate's alpha: RFC 9438's switch to 1 at cwnd_prior
    /// (`on`) or Linux's fixed alpha_cubic (off).
    pub fn with_reno_alpha_one(mut self, on: bool) -> Cubic {
        self.reno_alpha_one = on;
        self
    }

    /// The same as ns-3's TcpCubic, in whole segments: at a loss or a timeout
    /// (`GetSsThresh`) W_max = floor(cwnd) (fast convergence floored too) and
    /// ssthresh = floor(floor(cwnd) x beta), where RFC 9438 keeps the real values and
    /// forgets W_max at a timeout; slow start by whole ACKs; congestion avoidance by
    /// ns-3's integer counter (cubic_ns3.rs).
    pub fn with_whole_segments(mut self, on: bool) -> Cubic {
        self.ns3 = on.then(|| Ns3Avoidance::new(self.c, self.beta));
        self
    }

    /// The same with Linux's least growth (a fraction of cwnd per RTT) while W_max
    /// is undefined.
    pub fn with_initial_growth(mut self, fraction: f64) -> Cubic {
        self.initial_growth = fraction;
        self
    }

    /// The same with HyStart leaving slow start early (module `hystart`).
    pub fn with_hystart(mut self, on: bool) -> Cubic {
        self.hystart = on.then(HyStart::default);
        self
    }

    /// HyStart, if on, with ns-3's thresholds (module `hystart`).
    pub fn with_ns3_hystart(mut self, ns3: bool) -> Cubic {
        if let Some(h) = &mut self.hystart {
            h.ns3 = ns3;
        }
        self
    }

    /// W_cubic(t), t in seconds since the stage began.
    #[inline]
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.c * d * d * d + self.w_max
    }

    /// W_max after a congestion event at window `w` (whole with `whole_segments`):
    /// §4.7 fast convergence, a shrinking saturation point releases more.
    fn fast_converged(&self, w: f64) -> f64 {
        if self.fast_convergence && w < self.w_max {
            let v = w * (1.0 + self.beta) / 2.0;
            if self.ns3.is_some() {
                v.floor()
            } else {
                v
            }
        } else {
            w
        }
    }

    /// A new congestion-avoidance stage begins at `now` with the current cwnd.
    fn start_epoch(&mut self, now: Nanos) {
        self.epoch = Some(now);
        // Undefined W_max (first stage or after a timeout, RFC 9438 §4.8/§4.10):
        // W_max = cwnd_start, hence K = 0.
        self.w_max_unknown = self.w_max <= 0.0;
        if self.w_max_unknown {
            self.w_max = self.cwnd;
        }
        // cbrt of a negative difference is fine: W_cubic(0) = cwnd_start either way.
        self.k = ((self.w_max - self.cwnd) / self.c).cbrt();
        self.w_est = self.cwnd;
    }

    /// Congestion avoidance for `acked` segments delivered at `now`.
    fn avoid(&mut self, now: Nanos, rtt: f64, acked: f64) {
        let t0 = match self.epoch {
            Some(t0) => t0,
            None => {
                self.start_epoch(now);
                now
            }
        };
        let t = secs(now.saturating_sub(t0));
        // Reno-friendly estimate (§4.3): alpha_cubic until W_est reaches cwnd_prior, then 1.
        let a = if self.reno_alpha_one && self.w_est >= self.cwnd_prior { 1.0 } else { self.alpha_reno };
        self.w_est += a * acked / self.cwnd;
        // Per acked segment, growth is the largest of the cubic's, the floor's and
        // the Reno estimate's (Linux takes the smallest `cnt` of the three).
        let floor = if self.w_max_unknown { self.initial_growth } else { 0.0 };
        if self.w_cubic(t) < self.w_est {
            // Never shrink on an ACK: cwnd may already sit above W_est from the cubic
            // target (it looks one RTT ahead), so take the larger.
            self.cwnd = (self.cwnd + floor * acked).max(self.w_est);
            return;
        }
        // Concave (cwnd < W_max) and convex regions share one rule (§4.4, §4.5).
        let target = self.w_cubic(t + rtt).clamp(self.cwnd, 1.5 * self.cwnd);
        self.cwnd += ((target - self.cwnd) / self.cwnd).max(floor) * acked;
    }
}

impl SubflowCc for Cubic {
    #[inline]
    fn on_ack(&mut self, ev: &AckEvent) {
        if let Some(a) = &mut self.ns3 {
            a.sample(ev.now, self.epoch, ev.srtt); // PktsAcked, before HystartUpdate
        }
        // HyStart looks at every ACK in slow start, before growth, as Linux's
        // pkts_acked hook runs before cong_avoid.
        if let Some(h) = &mut self.hystart {
            if self.cwnd < self.ssthresh && ev.acked > 0.0 && h.on_ack(ev, self.cwnd) {
                self.ssthresh = self.cwnd;
            }
        }
        if let Some(a) = &mut self.linux {
            // cubictcp_acked (pkts_acked) runs on every ACK with an RTT sample.
            if ev.rtt > 0 {
                a.sample(ev.now, ev.rtt);
            }
            if !may_grow(ev) {
                return;
            }
            // tcp_slow_start: whole segments up to ssthresh; the rest to the curve.
            let left = slow_start(&mut self.cwnd, self.ssthresh, ev.acked);
            if left > 0.0 {
                self.cwnd = a.grow(ev.now, self.cwnd as u32, left as u32) as f64;
            }
            return;
        }
        if !may_grow(ev) {
            return;
        }
        if let Some(a) = &mut self.ns3 {
            // TcpCubic::IncreaseWindow: an ACK in slow start adds all it acknowledges.
            if self.cwnd < self.ssthresh {
                self.cwnd += ev.acked;
            } else if ev.acked > 0.0 {
                self.cwnd = a.grow(ev.now, &mut self.epoch, self.cwnd, self.w_max, ev.acked as u32);
            }
            return;
        }
        let left = slow_start(&mut self.cwnd, self.ssthresh, ev.acked);
        if left > 0.0 {
            let rtt = secs(nonzero_or(ev.srtt, nonzero_or(ev.min_rtt, ev.rtt)));
            self.avoid(ev.now, rtt, left);
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        if let Some(a) = &mut self.linux {
            // cubictcp_recalc_ssthresh, then on a timeout the reset of CA_Loss.
            self.cwnd_prior = self.cwnd;
            self.ssthresh = a.on_loss(self.cwnd.max(1.0) as u32, self.fast_convergence) as f64;
            self.w_max = a.last_max as f64;
            match ev.kind {
                CongestionKind::Timeout => {
                    a.reset();
                    self.w_max = 0.0;
                    self.cwnd = MIN_CWND;
                    if let Some(h) = &mut self.hystart {
                        h.reset();
                    }
                }
                CongestionKind::Loss | CongestionKind::Ecn => self.cwnd = self.ssthresh,
            }
            return;
        }
        let w = self.cwnd;
        self.epoch = None;
        self.cwnd_prior = w;
        let whole = |x: f64| if self.ns3.is_some() { x.floor() } else { x };
        let w = whole(w);
        self.ssthresh = ssthresh_floor(whole(w * self.beta));
        match ev.kind {
            CongestionKind::Timeout => {
                // §4.8: Reno's reduction, ssthresh by beta_cubic; the next stage starts
                // with K = 0 and W_max = cwnd at its start. ns-3's ReTxTimeout asks
                // GetSsThresh as at a loss instead (W_max kept), then CubicReset.
                self.w_max = if self.ns3.is_some() { self.fast_converged(w) } else { 0.0 };
                self.cwnd = MIN_CWND;
                if let Some(a) = &mut self.ns3 {
                    a.reset();
                }
                if let Some(h) = &mut self.hystart {
                    h.reset(); // Linux resets CUBIC, HyStart included, on a timeout (ns-3 too)
                }
            }
            CongestionKind::Loss | CongestionKind::Ecn => {
                self.w_max = self.fast_converged(w);
                self.cwnd = self.ssthresh;
            }
        }
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
    /// `w_max` (segments; 0 = undefined) and `k` (s) of the current stage.
    fn metrics(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("w_max", self.w_max);
        out("k", self.linux.as_ref().map_or(self.k, |a| a.k_seconds()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpcc_core::{NS_PER_MS, NS_PER_SEC};

    const RTT: Nanos = 100 * NS_PER_MS;

    fn ack(now: Nanos, acked: f64) -> AckEvent {
        AckEvent { now, acked, rtt: RTT, srtt: RTT, min_rtt: RTT, ..Default::default() }
    }
    fn cong(kind: CongestionKind) -> CongestionEvent {
        CongestionEvent { now: 0, kind, in_flight: 0.0, srtt: RTT, min_rtt: RTT, rtt: RTT, from_flight: false }
    }
    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn linux_grows_five_percent_per_rtt_until_the_first_loss() {
        // Slow start ended (as by HyStart) at 100 with no loss yet: the curve from K = 0
        // adds 0.4 t^3 and the Reno estimate (alpha 1 with no cwnd_prior) one a round:
        // 110 after 1 s; Linux's floor adds 5 % of cwnd per RTT (100 ms), compounding: about
        // 100 * 1.05^10 after 1 s.
        let mut rfc = Cubic::new(100.0, 0.4, 0.7, true);
        rfc.ssthresh = 100.0;
        let mut linux = rfc.clone().with_initial_growth(0.05);
        for ms in 1..=1000 {
            let now = ms as Nanos * NS_PER_MS;
            for c in [&mut rfc, &mut linux] {
                c.on_ack(&ack(now, c.cwnd / 100.0)); // a window per RTT
            }
        }
        assert!(rfc.cwnd < 111.0, "RFC 9438 from K = 0: {}", rfc.cwnd);
        assert!(close(linux.cwnd, 100.0 * 1.05f64.powi(10), 3.0), "{}", linux.cwnd);
        // After a loss W_max is known: no floor (the curve from the new K, as RFC 9438).
        linux.on_congestion(&cong(CongestionKind::Loss));
        let at_loss = linux.cwnd;
        linux.on_ack(&ack(2 * NS_PER_SEC, 1.0));
        assert!(linux.cwnd - at_loss < 0.05);
    }

    /// Kernel vector C1 (first loss at 100) and C6 (fast convergence at 90 after 100).
    /// The kernel computes 90*1741/2048 = 76 and 90*717/1024 = 63 in integers; here 76.5, 63.
    #[test]
    fn decrease_and_fast_convergence_vectors() {
        let mut c = Cubic::new(100.0, 0.4, 0.7, true);
        c.on_congestion(&cong(CongestionKind::Loss));
        assert!(close(c.ssthresh, 70.0, 1e-9) && close(c.cwnd, 70.0, 1e-9));
        assert_eq!(c.w_max, 100.0);
        c.cwnd = 90.0;
        c.on_congestion(&cong(CongestionKind::Loss));
        assert!(close(c.w_max, 76.5, 1e-9), "{}", c.w_max);
        assert!(close(c.ssthresh, 63.0, 1e-9));
        // Without fast convergence W_max is the window before the cut.
        let mut c = Cubic::new(100.0, 0.4, 0.7, false);
        c.on_congestion(&cong(CongestionKind::Loss));
        c.cwnd = 90.0;
        c.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!(c.w_max, 90.0);
    }

    /// `whole_segments` (ns-3's TcpCubic::GetSsThresh): a loss at cwnd 369.6 gives
    /// W_max 369 and ssthresh floor(369 x 0.7) = 258, where RFC 9438's real values
    /// are 369.6 and 258.72; fast convergence at 300.4 after it: floor(300 x 1.7 / 2)
    /// = 255 and floor(300 x 0.7) = 210.
    #[test]
    fn whole_segment_reduction_as_ns3() {
        for whole in [false, true] {
            let mut c = Cubic::new(10.0, 0.4, 0.7, true).with_whole_segments(whole);
            c.cwnd = 369.6;
            c.on_congestion(&cong(CongestionKind::Loss));
            let (w_max, ssthresh) = if whole { (369.0, 258.0) } else { (369.6, 258.72) };
            assert!(close(c.w_max, w_max, 1e-9) && close(c.ssthresh, ssthresh, 1e-9), "{whole}");
            assert_eq!(c.cwnd, c.ssthresh);
            c.cwnd = 300.4;
            c.on_congestion(&cong(CongestionKind::Loss));
            let (w_max, ssthresh) = if whole { (255.0, 210.0) } else { (255.34, 210.28) };
            assert!(close(c.w_max, w_max, 1e-9) && close(c.ssthresh, ssthresh, 1e-9), "{whole}");
        }
    }

    /// `whole_segments` as ns-3's TcpCubic: a timeout keeps W_max (GetSsThresh runs as
    /// at a loss; RFC 9438 forgets it), slow start adds whole ACKs past ssthresh, and
    /// congestion avoidance steps one segment at a time (cubic_ns3.rs): W_max 100, a
    /// stage at 70, 1 s in, cnt 3 with srtt 100 ms.
    #[test]
    fn ns3_arithmetic_in_whole_segments() {
        let mut c = Cubic::new(100.0, 0.4, 0.7, true).with_whole_segments(true);
        c.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!((c.w_max, c.cwnd), (100.0, 70.0));
        let t0 = 10 * NS_PER_SEC;
        c.on_ack(&ack(t0, 0.0)); // srtt 100 ms becomes delay_min
        c.on_ack(&ack(t0, 1.0)); // opens the stage at cwnd 70
        let steps: Vec<f64> = (1..=7)
            .map(|i| {
                c.on_ack(&ack(t0 + NS_PER_SEC + i, 1.0));
                c.cwnd
            })
            .collect();
        // The opening ACK counted one; cnt 3 at 70, then 71 / 17 = 4 at 71.
        assert_eq!(steps, [70.0, 71.0, 71.0, 71.0, 71.0, 72.0, 72.0]);
        let mut rfc = Cubic::new(100.0, 0.4, 0.7, true);
        for c in [&mut c, &mut rfc] {
            c.on_congestion(&cong(CongestionKind::Timeout));
        }
        // 72 below W_max 100: fast convergence, floor(72 x 1.7 / 2) = 61; ssthresh floor(72 x 0.7).
        assert_eq!((c.w_max, c.cwnd, c.ssthresh), (61.0, 1.0, 50.0));
        assert_eq!(rfc.w_max, 0.0);
        c.cwnd = 49.0;
        c.on_ack(&ack(t0 + 3 * NS_PER_SEC, 2.0));
        assert_eq!(c.cwnd, 51.0, "slow start takes the whole ACK past ssthresh");
    }

    /// Kernel vectors C0/C1b/C2/C3: W_max 100, stage starts at cwnd 70, RTT 100 ms.
    /// K = cbrt(30 / 0.4) = 4.2172 s (kernel table cbrt: 4316/1024 = 4.2148 s).
    #[test]
    fn concave_and_plateau_vectors() {
        let mut c = Cubic::new(100.0, 0.4, 0.7, true);
        c.on_congestion(&cong(CongestionKind::Loss));
        let t0 = 10 * NS_PER_SEC;
        c.on_ack(&ack(t0, 1e-9)); // opens the stage at cwnd 70
        assert!(close(c.k, 75f64.cbrt(), 1e-9) && close(c.k, 4.2172, 1e-4));
        // C1b, elapsed 1 s: target = W(1.1) = 100 - 0.4 * 3.1172^3 = 87.884 (kernel 88,
        // cnt 3 => 1/3 per ACK; here (87.884 - 70) / 70 = 0.2555 per segment).
        c.cwnd = 70.0;
        c.on_ack(&ack(t0 + NS_PER_SEC, 1.0));
        let target = 100.0 - 0.4 * (1.1 - 75f64.cbrt()).abs().powi(3);
        assert!(close(target, 87.884, 1e-3));
        assert!(close(c.cwnd, 70.0 + (target - 70.0) / 70.0, 1e-9), "{}", c.cwnd);
        // C2, cwnd 95 at 3 s: target W(3.1) = 99.442 (kernel rounds delta to 0: target 100).
        c.cwnd = 95.0;
        c.on_ack(&ack(t0 + 3 * NS_PER_SEC, 1.0));
        let target = 100.0 - 0.4 * (75f64.cbrt() - 3.1).powi(3);
        assert!(close(c.cwnd, 95.0 + (target - 95.0) / 95.0, 1e-9), "{}", c.cwnd);
        // C3, cwnd 101 at 5 s: W(5.1) = 100.275 < cwnd, so target = cwnd: no growth
        // (the kernel's cnt 10100 still adds 1/10100 per ACK).
        c.cwnd = 101.0;
        c.on_ack(&ack(t0 + 5 * NS_PER_SEC, 1.0));
        assert_eq!(c.cwnd, 101.0);
    }

    /// Convex region and the 1.5 cwnd cap on the target.
    #[test]
    fn convex_growth_and_cap() {
        let mut c = Cubic::new(100.0, 0.4, 0.7, false);
        c.on_congestion(&cong(CongestionKind::Loss));
        c.on_ack(&ack(0, 1e-9));
        let k = c.k;
        // t = K + 2 s: target W(K + 2.1) = 100 + 0.4 * 2.1^3 = 103.7044.
        c.cwnd = 101.0;
        let now = ((k + 2.0) * 1e9).round() as Nanos;
        c.on_ack(&ack(now, 2.0));
        let t = secs(now);
        let target = 100.0 + 0.4 * (t + 0.1 - k).powi(3);
        assert!(close(target, 103.7044, 1e-3));
        assert!(close(c.cwnd, 101.0 + (target - 101.0) / 101.0 * 2.0, 1e-9));
        // Far in the future: the target is capped at 1.5 cwnd, i.e. +0.5 per segment.
        c.cwnd = 120.0;
        c.on_ack(&ack(1000 * NS_PER_SEC, 1.0));
        assert!(close(c.cwnd, 120.5, 1e-9));
    }

    /// Reno-friendly region (kernel vector C4, float form): W_max 20, stage at 14,
    /// RTT 50 ms, 90 segments acked within 250 ms. W_est = 14 + 0.52941 * 90 / 14 =
    /// 17.403 > W_cubic(0.25) = 15.67, so cwnd = W_est. (The kernel counts
    /// 26 ACKs per W_est step: tcp_cwnd 17, cnt 4.)
    #[test]
    fn reno_friendly_region_vector() {
        let mut c = Cubic::new(20.0, 0.4, 0.7, false);
        c.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!(c.ssthresh, 14.0);
        let rtt = 50 * NS_PER_MS;
        let mut ev = AckEvent { now: 0, acked: 1e-12, srtt: rtt, rtt, min_rtt: rtt, ..Default::default() };
        c.on_ack(&ev);
        ev.now = 250 * NS_PER_MS;
        ev.acked = 90.0;
        c.on_ack(&ev);
        let alpha = 3.0 * 0.3 / 1.7;
        assert!(close(alpha, 0.529412, 1e-6));
        let w_est = 14.0 + 1e-12 * alpha / 14.0 + alpha * 90.0 / 14.0;
        assert!(c.w_cubic(0.25) < w_est);
        assert!(close(c.cwnd, w_est, 1e-9), "{} vs {w_est}", c.cwnd);
        // Once W_est passes cwnd_prior (20) alpha_cubic becomes 1 (RFC 9438 §4.3)...
        let mut linux = c.clone().with_reno_alpha_one(false);
        c.w_est = 20.0;
        c.cwnd = 20.0;
        ev.acked = 1.0;
        c.on_ack(&ev);
        assert!(close(c.w_est, 20.05, 1e-12));
        // ...but not in Linux's tcp_cubic, whose tcp_friendliness keeps alpha_cubic.
        linux.w_est = 20.0;
        linux.cwnd = 20.0;
        linux.on_ack(&ev);
        assert!(close(linux.w_est, 20.0 + alpha / 20.0, 1e-12), "{}", linux.w_est);
    }

    #[test]
    fn timeout_forgets_w_max_and_restarts_with_k_zero() {
        let mut c = Cubic::new(50.0, 0.4, 0.7, true);
        c.on_congestion(&cong(CongestionKind::Loss)); // W_max 50, cwnd 35
        c.on_congestion(&cong(CongestionKind::Timeout));
        assert_eq!((c.cwnd, c.ssthresh, c.w_max), (1.0, 24.5, 0.0));
        let mut now = 0;
        while c.cwnd < c.ssthresh {
            c.on_ack(&ack(now, 0.5)); // lands exactly on ssthresh
            now += NS_PER_MS;
        }
        assert_eq!(c.cwnd, 24.5);
        c.on_ack(&ack(now, 1e-9)); // first CA ACK opens the stage
        assert_eq!((c.k, c.w_max), (0.0, 24.5));
    }

    #[test]
    fn no_growth_in_recovery_and_ecn_halves_like_loss() {
        let mut c = Cubic::new(40.0, 0.4, 0.7, true);
        c.on_ack(&AckEvent { acked: 5.0, in_recovery: true, ..ack(0, 5.0) });
        assert_eq!(c.cwnd, 40.0);
        c.on_congestion(&cong(CongestionKind::Ecn));
        assert!(close(c.cwnd, 28.0, 1e-9));
        c.cwnd = 2.0;
        c.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!((c.cwnd, c.ssthresh), (2.0, 2.0));
    }

    /// Runs `cycles` loss cycles of the deterministic loss model (one loss every 1/p
    /// delivered segments, fixed RTT, one segment per ACK) starting from a loss at
    /// `w0`; returns the time-averaged cwnd and W_max after the last loss.
    fn deterministic_loss(rtt_s: f64, p: f64, w0: f64, cycles: u64) -> (f64, f64) {
        let mut c = Cubic::new(w0, 0.4, 0.7, false);
        c.on_congestion(&cong(CongestionKind::Loss));
        let rtt = (rtt_s * 1e9) as Nanos;
        let per_loss = (1.0 / p) as u64;
        let (mut now, mut sum_w_dt, mut sum_dt) = (0.0, 0.0, 0.0);
        for i in 1..=cycles * per_loss {
            if i % per_loss == 0 {
                c.on_congestion(&cong(CongestionKind::Loss));
            }
            let dt = rtt_s / c.cwnd;
            sum_w_dt += c.cwnd * dt;
            sum_dt += dt;
            now += dt;
            c.on_ack(&AckEvent {
                now: (now * 1e9) as Nanos,
                acked: 1.0,
                rtt,
                srtt: rtt,
                min_rtt: rtt,
                ..Default::default()
            });
        }
        (sum_w_dt / sum_dt, c.w_max)
    }

    /// RFC 9438 §5.1 average window: (C (3 + beta) / (4 (1 - beta)))^(1/4) RTT^(3/4) / p^(3/4).
    fn response_function(rtt_s: f64, p: f64) -> f64 {
        (0.4 * 3.7 / (4.0 * 0.3f64)).powf(0.25) * rtt_s.powf(0.75) / p.powf(0.75)
    }

    /// Mean window under deterministic loss against the RFC's response function, in
    /// the cubic region (parameters where W_cubic beats the Reno estimate). The
    /// equilibrium is W_max = 4/(3 + beta) x mean; starting there, the rule must hold it.
    #[test]
    fn deterministic_loss_mean_window_matches_response_function() {
        for &(rtt_s, p) in &[(0.1, 1e-5), (0.4, 1e-5), (0.2, 3e-5)] {
            let model = response_function(rtt_s, p);
            let (mean, w_max) = deterministic_loss(rtt_s, p, model * 4.0 / 3.7, 20);
            let err = (mean - model).abs() / model;
            assert!(err < 0.01, "rtt {rtt_s} p {p}: mean {mean:.1} model {model:.1} err {err:.4}");
            assert!((w_max - model * 4.0 / 3.7).abs() / model < 0.01);
        }
    }

    /// Off equilibrium the deterministic cycle drifts back towards it, from above and
    /// from below, but slowly (about 1-3 % of the gap per cycle: the plateau around
    /// W_max makes the map nearly neutral), so simulation checks need a long warm-up.
    #[test]
    fn deterministic_loss_returns_towards_equilibrium() {
        let (rtt_s, p) = (0.1, 1e-5);
        let w_eq = response_function(rtt_s, p) * 4.0 / 3.7;
        for &start in &[0.8, 1.3] {
            let (_, w_max) = deterministic_loss(rtt_s, p, start * w_eq, 30);
            let (gap0, gap) = ((start - 1.0f64).abs(), (w_max / w_eq - 1.0).abs());
            assert!(
                gap < 0.8 * gap0 && (w_max / w_eq - 1.0).signum() == (start - 1.0).signum(),
                "start {start}: W_max/W_eq {:.3}",
                w_max / w_eq
            );
        }
    }

    #[test]
    fn metrics_name_w_max_and_k() {
        let mut c = Cubic::new(10.0, 0.4, 0.7, true);
        c.w_max = 100.0;
        c.k = 4.2;
        let mut got = Vec::new();
        c.metrics(&mut |k, v| got.push((k, v)));
        assert_eq!(got, [("w_max", 100.0), ("k", 4.2)]);
    }
}
