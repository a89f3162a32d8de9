//! TCP Veno (Fu & Liew, IEEE JSAC 21(2), 2003): Reno whose reactions depend on a
//! Vegas-style backlog estimate `N = (cwnd/BaseRTT - cwnd/RTT) * BaseRTT`.
//!
//! N < beta: the path is not congested, so a loss is taken as random and cwnd is
//! cut by a fifth (x random_loss_factor), and growth is Reno's. N >= beta: a loss
//! is congestive (halve) and congestion avoidance grows only on every other ACK.
//! See docs/algorithms/veno.md.

use super::ns3_samples::Ns3Samples;
use crate::common::{may_grow, nonzero_or, reno_increase, slow_start, ssthresh_floor, window_after};
use crate::params::{param, Info, INIT_CWND};
use crate::{AckEvent, CongestionEvent, SubflowCc};
use crate::{Controller, Uncoupled};
use mpcc_core::Nanos;

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "veno",
    "TCP Veno: Reno that tells random from congestive loss by the Vegas backlog (Fu & Liew)",
    "docs/algorithms/veno.md",
    &[
        INIT_CWND,
        param("beta", 3.0, 0.0, 1000.0, "backlog threshold in segments: below it a loss is random"),
        param("random_loss_factor", 0.8, 0.5, 1.0, "window kept after a loss judged random"),
        param(
            "variant",
            0.0,
            0.0,
            1.0,
            "0 = Linux's tcp_veno rules; 1 = ns-3 3.44's TcpVeno (veno_ns3.rs); default: the TCP profile's",
        ),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    let veno = Veno::new(p("init_cwnd"), p("beta"), p("random_loss_factor"));
    Controller::Veno(Uncoupled::new(veno.with_ns3_rules(p("variant") >= 0.5)))
}

#[derive(Clone, Debug)]
pub struct Veno {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Backlog threshold, segments.
    beta: f64,
    /// Window kept after a loss judged random.
    pub(super) random_loss_factor: f64,
    /// Smallest RTT seen (u64::MAX = none yet).
    pub base_rtt: Nanos,
    /// Backlog estimate at the last ACK, segments; decides the next loss reaction.
    pub backlog: f64,
    /// In the congestive state, whether the next ACK is one that may grow cwnd.
    pub(super) grow_next: bool,
    /// ns-3 3.44's TcpVeno rules and their sample state (veno_ns3.rs); None: Linux's.
    pub(super) ns3: Option<Ns3Samples>,
}

impl Veno {
    pub fn new(init_cwnd: f64, beta: f64, random_loss_factor: f64) -> Veno {
        Veno {
            cwnd: init_cwnd,
            ssthresh: f64::INFINITY,
            beta,
            random_loss_factor,
            base_rtt: Nanos::MAX,
            backlog: 0.0,
            grow_next: true,
            ns3: None,
        }
    }

    /// ns-3 3.44's TcpVeno instead of Linux's rules (the `ns3` profile's variant).
    pub fn with_ns3_rules(mut self, on: bool) -> Veno {
        self.ns3 = on.then(Ns3Samples::default);
        self
    }

    /// True when the current backlog says the path is congested.
    #[inline]
    pub fn congestive(&self) -> bool {
        self.backlog >= self.beta
    }
}

impl SubflowCc for Veno {
    #[inline]
    fn on_ack(&mut self, ev: &AckEvent) {
        if self.ns3.is_some() {
            return self.on_ack_ns3(ev);
        }
        // The ACK's own RTT sample, as Linux uses (falls back to SRTT if none).
        let rtt = nonzero_or(ev.rtt, ev.srtt);
        if rtt > 0 {
            self.base_rtt = self.base_rtt.min(rtt);
            // (cwnd/base - cwnd/rtt) * base, written without the two divisions.
            self.backlog = self.cwnd * (rtt - self.base_rtt) as f64 / rtt as f64;
        }
        if !may_grow(ev) {
            return;
        }
        let left = slow_start(&mut self.cwnd, self.ssthresh, ev.acked);
        if left <= 0.0 {
            return;
        }
        if !self.congestive() {
            reno_increase(&mut self.cwnd, left);
            return;
        }
        // Congestive: the Reno step on every other ACK, i.e. half Reno's rate.
        if self.grow_next {
            reno_increase(&mut self.cwnd, left);
        }
        self.grow_next = !self.grow_next;
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        if self.ns3.is_some() {
            self.ssthresh = self.on_congestion_ns3(ev);
            self.cwnd = window_after(ev.kind, self.ssthresh);
            return;
        }
        let keep = if self.congestive() { 0.5 } else { self.random_loss_factor };
        self.ssthresh = ssthresh_floor(self.cwnd * keep);
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
    /// `backlog`, the estimate that decides the next loss reaction (segments).
    fn metrics(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("backlog", self.backlog);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CongestionKind;

    fn ack(rtt: Nanos) -> AckEvent {
        AckEvent { acked: 1.0, rtt, srtt: rtt, min_rtt: rtt, ..Default::default() }
    }
    fn loss(kind: CongestionKind) -> CongestionEvent {
        CongestionEvent { now: 0, kind, in_flight: 0.0, srtt: 0, min_rtt: 0, rtt: 0, from_flight: false }
    }

    /// In congestion avoidance at `cwnd` with BaseRTT `base` (µs), one ACK at `rtt`.
    fn at(cwnd: f64, base_us: u64, rtt_us: u64) -> Veno {
        let mut v = Veno::new(cwnd, 3.0, 0.8);
        v.ssthresh = 2.0;
        v.base_rtt = base_us * 1000;
        v.on_ack(&AckEvent { in_recovery: true, ..ack(rtt_us * 1000) }); // estimate only
        v
    }

    /// Kernel vectors N1-N3. Float N vs the kernel's doubled integer diff:
    /// N1 5.714 (kernel 12/2 = 6), N2 0.952 (2/2 = 1), N3 6.667 (14/2 = 7).
    #[test]
    fn backlog_and_loss_reaction_vectors() {
        let mut v = at(20.0, 10_001, 14_001);
        assert!((v.backlog - 20.0 * 4000.0 / 14001.0).abs() < 1e-9);
        assert!(v.congestive());
        v.on_congestion(&loss(CongestionKind::Loss));
        assert_eq!((v.cwnd, v.ssthresh), (10.0, 10.0), "N1: congestive loss halves");

        let mut v = at(20.0, 10_001, 10_501);
        assert!((v.backlog - 20.0 * 500.0 / 10501.0).abs() < 1e-9);
        assert!(!v.congestive());
        v.on_congestion(&loss(CongestionKind::Loss));
        assert!((v.cwnd - 16.0).abs() < 1e-12 && (v.ssthresh - 16.0).abs() < 1e-12, "N2: random loss keeps 4/5");

        let mut v = at(40.0, 50_001, 60_001);
        assert!((v.backlog - 40.0 * 10_000.0 / 60_001.0).abs() < 1e-9);
        v.on_congestion(&loss(CongestionKind::Timeout));
        assert_eq!((v.cwnd, v.ssthresh), (1.0, 20.0), "N3 on a timeout: ssthresh 20, cwnd 1");
    }

    #[test]
    fn growth_every_ack_below_beta_every_other_ack_above() {
        let mut v = at(10.0, 10_000, 10_000);
        v.on_ack(&ack(10_000_000));
        assert!((v.cwnd - 10.1).abs() < 1e-12);
        // backlog 10 * 5/15 = 3.33 >= 3: the first ACK grows, the second does not.
        let mut v = at(10.0, 10_000, 15_000);
        v.on_ack(&ack(15_000_000));
        let w = 10.0 + 0.1;
        assert!((v.cwnd - w).abs() < 1e-12);
        v.on_ack(&ack(15_000_000));
        assert!((v.cwnd - w).abs() < 1e-12);
        v.on_ack(&ack(15_000_000));
        assert!((v.cwnd - (w + 1.0 / w)).abs() < 1e-12);
    }

    #[test]
    fn slow_start_and_recovery() {
        let mut v = Veno::new(4.0, 3.0, 0.8);
        v.on_ack(&AckEvent { acked: 2.0, ..ack(50_000_000) });
        assert_eq!(v.cwnd, 6.0);
        v.on_ack(&AckEvent { acked: 2.0, in_recovery: true, ..ack(90_000_000) });
        assert_eq!(v.cwnd, 6.0);
        assert!((v.backlog - 6.0 * 40.0 / 90.0).abs() < 1e-9, "estimator runs in recovery");
        v.cwnd = 2.0;
        v.on_congestion(&loss(CongestionKind::Loss));
        assert_eq!(v.ssthresh, 2.0, "floor");
    }

    #[test]
    fn metrics_name_the_backlog() {
        let mut v = Veno::new(10.0, 3.0, 0.8);
        v.backlog = 2.5;
        let mut got = Vec::new();
        v.metrics(&mut |k, x| got.push((k, x)));
        assert_eq!(got, [("backlog", 2.5)]);
    }
}
