//! TCP Westwood+ (Mascolo, Grieco et al.): Reno growth, but after a loss the window
//! is set from an end-to-end bandwidth estimate instead of being halved:
//! `ssthresh = max(BWE * RTT_min, 2)` (BWE in segments per second).
//!
//! BWE: segments delivered over one sampling window (at least one RTT and at least
//! 50 ms) give one sample; samples pass through two cascaded 7/8 low-pass stages.
//! See docs/algorithms/westwood.md.

use super::westwood_ns3::Ns3Estimator;
use crate::common::{may_grow, nonzero_or, reno_increase, secs, slow_start, ssthresh_floor, window_after, MIN_CWND};
use crate::estimators::BwEstimator;
use crate::params::{param, Info, INIT_CWND};
use crate::{AckEvent, CongestionEvent, CongestionKind, SubflowCc};
use crate::{Controller, Uncoupled};
use mpcc_core::Nanos;

// ---- registry entry and builder (listed in mod.rs) ----

pub const INFO: Info = Info::new(
    "westwood",
    "TCP Westwood+: Reno growth, window set to BWE x RTT_min after a loss (Mascolo et al.)",
    "docs/algorithms/westwood.md",
    &[
        INIT_CWND,
        param(
            "variant",
            0.0,
            0.0,
            1.0,
            "0 = Linux's tcp_westwood rules; 1 = ns-3 3.44's TcpWestwoodPlus (westwood_ns3.rs); default: the TCP profile's",
        ),
    ],
);

pub fn build(p: &dyn Fn(&str) -> f64) -> Controller {
    Controller::Westwood(Uncoupled::new(Westwood::new(p("init_cwnd")).with_ns3_rules(p("variant") >= 0.5)))
}

#[derive(Clone, Debug)]
pub struct Westwood {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Bandwidth estimate BWE (segments/s; 0 = no sample yet).
    pub est: BwEstimator,
    /// Smallest RTT seen since start or the last timeout (u64::MAX = none).
    pub rtt_min: Nanos,
    /// ns-3 3.44's TcpWestwoodPlus estimator (westwood_ns3.rs); None: Linux's rules.
    pub ns3: Option<Ns3Estimator>,
}

impl Westwood {
    pub fn new(init_cwnd: f64) -> Westwood {
        Westwood { cwnd: init_cwnd, ssthresh: f64::INFINITY, est: BwEstimator::new(), rtt_min: Nanos::MAX, ns3: None }
    }

    /// ns-3 3.44's TcpWestwoodPlus instead of Linux's rules (the `ns3` profile's variant).
    pub fn with_ns3_rules(mut self, on: bool) -> Westwood {
        self.ns3 = on.then(Ns3Estimator::default);
        self
    }

    /// BWE * RTT_min in segments, or None before the first sample.
    pub fn bdp_estimate(&self) -> Option<f64> {
        (self.est.bw > 0.0 && self.rtt_min != Nanos::MAX).then(|| self.est.bw * secs(self.rtt_min))
    }
}

impl SubflowCc for Westwood {
    #[inline]
    fn on_ack(&mut self, ev: &AckEvent) {
        if self.ns3.is_some() {
            return self.on_ack_ns3(ev);
        }
        let rtt = nonzero_or(ev.rtt, ev.srtt);
        self.est.on_ack(ev.now, ev.acked, rtt);
        if rtt > 0 {
            self.rtt_min = self.rtt_min.min(rtt);
        }
        if !may_grow(ev) {
            return;
        }
        let left = slow_start(&mut self.cwnd, self.ssthresh, ev.acked);
        reno_increase(&mut self.cwnd, left);
    }

    fn on_congestion(&mut self, ev: &CongestionEvent) {
        if let Some(est) = self.ns3.as_mut() {
            est.settle(ev.now);
            self.ssthresh = est.ssthresh();
            // A loss itself never raises cwnd; ns-3 sets it to ssthresh when the
            // recovery ends (`on_recovery_exit`), above the old window if the estimate is.
            self.cwnd = window_after(ev.kind, self.ssthresh).min(self.cwnd);
            return;
        }
        // Before any estimate exists fall back to Reno's halving.
        let target = self.bdp_estimate().unwrap_or(self.cwnd * 0.5);
        self.ssthresh = ssthresh_floor(target);
        match ev.kind {
            CongestionKind::Timeout => {
                self.cwnd = MIN_CWND;
                // As Linux: RTT_min restarts from the next sample after a timeout.
                self.rtt_min = Nanos::MAX;
            }
            CongestionKind::Loss | CongestionKind::Ecn => {
                if self.cwnd > self.ssthresh {
                    self.cwnd = self.ssthresh;
                }
            }
        }
    }

    /// ns-3's TcpSocketBase ends a fast recovery with cwnd = ssthresh, which for
    /// Westwood+ can be above the window the loss found (variant 1 only; Linux's
    /// tcp_westwood keeps cwnd at most the estimate).
    fn on_recovery_exit(&mut self, _now: Nanos) {
        if let Some(est) = self.ns3.as_mut() {
            est.exiting = true;
            self.cwnd = self.ssthresh;
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
    /// `bwe`, the bandwidth estimate (segments/s; 0 = none yet).
    fn metrics(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("bwe", self.ns3.as_ref().map_or(self.est.bw, |e| e.bw));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpcc_core::NS_PER_MS;

    const MS: Nanos = NS_PER_MS;

    fn ack(now_ms: u64, acked: f64, rtt_ms: u64) -> AckEvent {
        AckEvent { now: now_ms * MS, acked, rtt: rtt_ms * MS, srtt: rtt_ms * MS, ..Default::default() }
    }
    fn cong(kind: CongestionKind) -> CongestionEvent {
        CongestionEvent { now: 0, kind, in_flight: 0.0, srtt: 0, min_rtt: 0, rtt: 0, from_flight: false }
    }

    /// Linux's Westwood+ on these inputs (mss 1448, rtt_min 40 ms): windows of 100 segments in
    /// 60 ms, 120 in 55 ms, 60 in 70 ms. In segments/s: samples 1666.67, 2181.82,
    /// 857.14; bw_ns 1666.67, 1731.06, 1621.82; BWE 1666.67, 1674.72, 1668.10; BWE *
    /// RTT_min = 66.72 segments. The kernel works in bytes/jiffy with truncation
    /// (2413, 2424, 2414 bytes/ms = 1666.4, 1674.0, 1667.1 seg/s; target 66).
    #[test]
    fn filter_vectors() {
        let mut w = Westwood::new(10.0);
        w.on_ack(&ack(0, 1.0, 40)); // opens the window
                                    // 100 segments within the first 50 ms; the ACK at 61 ms closes the window.
        for i in 1..=10 {
            w.on_ack(&ack(5 * i, 10.0, 40));
        }
        w.on_ack(&ack(61, 12.0, 40)); // closes window 1 (delta 61 ms), starts window 2
        let s1 = 100.0 / 0.061;
        assert!((w.est.bw - s1).abs() < 1e-9 && (w.est.bw_ns - s1).abs() < 1e-9);
        // Drive the filter with the table's exact windows.
        let mut f = Westwood::new(10.0);
        let (mut ns, mut bw) = (0.0, 0.0);
        for (k, &(seg, dt)) in [(100.0, 0.060), (120.0, 0.055), (60.0, 0.070)].iter().enumerate() {
            let s: f64 = seg / dt;
            f.est.filter(s);
            if k == 0 {
                (ns, bw) = (s, s);
            } else {
                ns = (7.0 * ns + s) / 8.0;
                bw = (7.0 * bw + ns) / 8.0;
            }
            assert!((f.est.bw_ns - ns).abs() < 1e-9 && (f.est.bw - bw).abs() < 1e-9);
        }
        assert!(
            (f.est.bw_ns - 1621.82).abs() < 0.01 && (f.est.bw - 1668.10).abs() < 0.01,
            "{} {}",
            f.est.bw_ns,
            f.est.bw
        );
        f.rtt_min = 40 * MS;
        assert!((f.bdp_estimate().unwrap() - 66.72).abs() < 0.01);
        // Within 0.2 % of the kernel's integer estimate (2414 bytes/ms).
        assert!((f.est.bw - 2414.0 * 1000.0 / 1448.0).abs() / f.est.bw < 0.002);
    }

    #[test]
    fn sampling_window_is_at_least_one_rtt_and_50_ms() {
        let mut w = Westwood::new(10.0);
        w.on_ack(&ack(0, 1.0, 10));
        w.on_ack(&ack(30, 5.0, 10));
        w.on_ack(&ack(50, 5.0, 10)); // 50 ms is not > 50 ms
        assert_eq!(w.est.bw, 0.0);
        w.on_ack(&ack(51, 5.0, 10));
        assert!((w.est.bw - 10.0 / 0.051).abs() < 1e-9);
        let mut w = Westwood::new(10.0);
        w.on_ack(&ack(0, 1.0, 200));
        w.on_ack(&ack(150, 5.0, 200));
        assert_eq!(w.est.bw, 0.0, "window shorter than the RTT");
        w.on_ack(&ack(201, 5.0, 200));
        assert!((w.est.bw - 5.0 / 0.201).abs() < 1e-9);
    }

    #[test]
    fn loss_sets_window_from_estimate() {
        let mut w = Westwood::new(100.0);
        w.est.bw = 1000.0;
        w.est.bw_ns = 1000.0;
        w.rtt_min = 50 * MS;
        w.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!((w.cwnd, w.ssthresh), (50.0, 50.0));
        // A window already below the estimate is kept.
        w.cwnd = 30.0;
        w.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!((w.cwnd, w.ssthresh), (30.0, 50.0));
        w.on_congestion(&cong(CongestionKind::Timeout));
        assert_eq!((w.cwnd, w.ssthresh, w.rtt_min), (1.0, 50.0, Nanos::MAX));
        // Tiny estimate: floor at 2. No estimate at all: Reno halving.
        w.rtt_min = MS;
        w.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!(w.ssthresh, 2.0);
        let mut w = Westwood::new(40.0);
        w.on_congestion(&cong(CongestionKind::Loss));
        assert_eq!((w.cwnd, w.ssthresh), (20.0, 20.0));
    }

    #[test]
    fn reno_growth_frozen_in_recovery_estimator_runs() {
        let mut w = Westwood::new(10.0);
        w.ssthresh = 10.0;
        w.on_ack(&ack(0, 1.0, 40));
        assert!((w.cwnd - 10.1).abs() < 1e-12);
        w.on_ack(&AckEvent { in_recovery: true, ..ack(60, 30.0, 30) });
        assert!((w.cwnd - 10.1).abs() < 1e-12);
        assert_eq!(w.rtt_min, 30 * MS);
        assert_eq!(w.est.delivered, 30.0, "delivery counted in recovery");
    }

    #[test]
    fn metrics_name_the_estimate() {
        let mut w = Westwood::new(10.0);
        w.est.bw = 123.0;
        let mut got = Vec::new();
        w.metrics(&mut |k, v| got.push((k, v)));
        assert_eq!(got, [("bwe", 123.0)]);
    }
}
