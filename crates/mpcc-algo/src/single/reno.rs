//! NewReno congestion control (RFC 5681 window rules, RFC 6582 recovery epochs).
//!
//! Slow start grows cwnd by the delivered segments up to ssthresh; congestion
//! avoidance adds `acked / cwnd` per ACK (one segment per RTT). On a loss or ECN
//! signal `ssthresh = max((1 - beta) cwnd, 2)` and cwnd = ssthresh (the transport
//! keeps one recovery epoch per window, as RFC 6582 does); on a timeout the same
//! ssthresh and `cwnd = 1`. The decrease uses cwnd, not FlightSize, as Linux's
//! `tcp_reno_ssthresh` does, unless the transport asks for FlightSize
//! (`CongestionEvent::from_flight`, ns-3's TcpNewReno::GetSsThresh). See
//! docs/algorithms/reno.md.

use crate::common::{may_grow, slow_start, window_after, MIN_SSTHRESH};
use crate::params::{param, Info, INIT_CWND};
use crate::{AckEvent, CongestionEvent, SubflowCc};
use crate::{Controller, Uncoupled};

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "reno",
    "NewReno AIMD: +1 segment per RTT, halve on loss (RFC 5681/6582)",
    "docs/algorithms/reno.md",
    &[INIT_CWND, param("beta", 0.5, 0.01, 0.99, "multiplicative decrease fraction")],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Reno(Uncoupled::new(Reno::new(p("init_cwnd"), p("beta"))))
}

#[derive(Clone, Debug)]
pub struct Reno {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Multiplicative decrease factor (0.5 for Reno).
    pub beta: f64,
}

impl Reno {
    pub fn new(init_cwnd: f64, beta: f64) -> Reno {
        Reno { cwnd: init_cwnd, ssthresh: f64::INFINITY, beta }
    }
}

impl SubflowCc for Reno {
    #[inline]
    fn on_ack(&mut self, ev: &AckEvent) {
        if !may_grow(ev) {
            return;
        }
        let left = slow_start(&mut self.cwnd, self.ssthresh, ev.acked);
        if left > 0.0 {
            self.cwnd += left / self.cwnd;
        }
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        let basis = if ev.from_flight { ev.in_flight } else { self.cwnd };
        self.ssthresh = (basis * (1.0 - self.beta)).max(MIN_SSTHRESH);
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

    #[test]
    fn slow_start_then_linear() {
        let mut r = Reno::new(10.0, 0.5);
        r.ssthresh = 12.0;
        r.on_ack(&ack(1.0));
        assert_eq!(r.cwnd, 11.0);
        r.on_ack(&ack(2.0)); // 1 to reach ssthresh, 1 left: +1/12
        assert!((r.cwnd - (12.0 + 1.0 / 12.0)).abs() < 1e-12);
    }

    #[test]
    fn halves_on_loss_and_resets_on_timeout() {
        let mut r = Reno::new(20.0, 0.5);
        let mut ev = CongestionEvent {
            now: 0,
            kind: CongestionKind::Loss,
            in_flight: 20.0,
            srtt: 0,
            min_rtt: 0,
            rtt: 0,
            from_flight: false,
        };
        r.on_congestion(&ev);
        assert_eq!((r.cwnd, r.ssthresh), (10.0, 10.0));
        ev.kind = CongestionKind::Timeout;
        r.on_congestion(&ev);
        assert_eq!((r.cwnd, r.ssthresh), (1.0, 5.0));
        r.cwnd = 3.0;
        r.on_congestion(&ev);
        assert_eq!(r.ssthresh, 2.0, "ssthresh floor");
    }

    /// Kernel vector R1: cwnd 10, ssthresh 15, one ACK of 8 segments: slow start to
    /// 15 and 3 left over for congestion avoidance. Linux banks them (cnt 3 of 15);
    /// the float model adds 3/15 at once.
    #[test]
    fn kernel_vector_r1_leftover_goes_to_avoidance() {
        let mut r = Reno::new(10.0, 0.5);
        r.ssthresh = 15.0;
        r.on_ack(&ack(8.0));
        assert!((r.cwnd - 15.2).abs() < 1e-12);
    }

    #[test]
    fn no_growth_in_recovery() {
        let mut r = Reno::new(10.0, 0.5);
        r.on_ack(&AckEvent { acked: 1.0, in_recovery: true, ..Default::default() });
        assert_eq!(r.cwnd, 10.0);
    }
}
