//! TCP Veno as ns-3 3.44's `TcpVeno` runs it, for the `ns3` profile (`veno`'s
//! `variant = 1`; docs/algorithms/veno.md). What differs from Linux's rules:
//! - its RTT input is the smoothed RTT ns-3 hands every controller (`PktsAcked(tcb,
//!   segs, m_srtt)`, on duplicate ACKs too); BaseRTT is the smallest of them, and
//!   the backlog is in whole segments, `segCwnd - floor(segCwnd BaseRTT / minRTT)`,
//!   with minRTT the smallest since the previous `IncreaseWindow`;
//! - `IncreaseWindow` clears its sample count and minRTT on every call, so with one
//!   `PktsAcked` per ACK Veno's rules run only after two or more duplicate ACKs;
//!   otherwise the window grows as NewReno's;
//! - after a loss or timeout ssthresh comes from the bytes in flight, not cwnd:
//!   `max(flight x 4/5, 2)` below beta, NewReno's `max(flight / 2, 2)` otherwise;
//! - ns-3's `Beta` attribute defaults to 6, where the paper and this controller's
//!   `beta` default to 3 (set `beta = 6` for ns-3's defaults).

use super::ns3_samples::Ns3Samples;
use super::veno::Veno;
use crate::common::{newreno_ns3, reno_increase, ssthresh_floor};
use crate::{AckEvent, CongestionEvent};
use mpcc_core::Nanos;

impl Veno {
    /// One ACK in ns-3's order: `PktsAcked`, the congestion state, `IncreaseWindow`
    /// (on an ACK ns-3 grows on: `acked > 0` outside fast recovery).
    pub(super) fn on_ack_ns3(&mut self, ev: &AckEvent) {
        let Some(mut r) = self.ns3.take() else { return };
        r.pkts_acked(&mut self.base_rtt, ev.srtt);
        if r.reopens(ev) {
            // EnableVeno clears minRTT only; the count carries on.
            r.min_rtt = Nanos::MAX;
        }
        if Ns3Samples::grows(ev) {
            self.increase_ns3(&mut r, ev.acked);
        }
        self.ns3 = Some(r);
    }

    /// `TcpVeno::IncreaseWindow`.
    fn increase_ns3(&mut self, r: &mut Ns3Samples, acked: f64) {
        let seg_cwnd = self.cwnd.max(0.0).floor();
        // With no sample since the last call ns-3 divides by Time::Max(): target 0.
        let target = if r.min_rtt == Nanos::MAX {
            0.0
        } else {
            (seg_cwnd * (self.base_rtt as f64 / 1e9) / (r.min_rtt as f64 / 1e9)).floor()
        };
        self.backlog = seg_cwnd - target;
        if !r.doing {
            newreno_ns3(&mut self.cwnd, self.ssthresh, acked);
            return;
        }
        if r.cnt_rtt <= 2 {
            newreno_ns3(&mut self.cwnd, self.ssthresh, acked);
        } else if self.cwnd < self.ssthresh {
            newreno_ns3(&mut self.cwnd, self.ssthresh, acked.min(1.0));
        } else if !self.congestive() || self.grow_next {
            // NewReno's step; at or above beta only every other time.
            reno_increase(&mut self.cwnd, 1.0);
            if self.congestive() {
                self.grow_next = false;
            }
        } else {
            self.grow_next = true;
        }
        r.clear();
    }

    /// `TcpVeno::GetSsThresh`: from the flight size, 4/5 (`random_loss_factor`)
    /// below beta, half otherwise; ns-3 leaves CA_OPEN.
    pub(super) fn on_congestion_ns3(&mut self, ev: &CongestionEvent) -> f64 {
        if let Some(r) = self.ns3.as_mut() {
            r.doing = false;
        }
        let keep = if self.congestive() { 0.5 } else { self.random_loss_factor };
        ssthresh_floor(ev.in_flight * keep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CongestionKind, SubflowCc};

    const MS: Nanos = 1_000_000;

    fn veno() -> Veno {
        Veno::new(10.0, 6.0, 0.8).with_ns3_rules(true)
    }

    fn ack(srtt_ms: u64, acked: f64) -> AckEvent {
        AckEvent { acked, rtt: srtt_ms * MS, srtt: srtt_ms * MS, delivered: acked as u64, ..Default::default() }
    }

    fn loss(kind: CongestionKind, in_flight: f64) -> CongestionEvent {
        CongestionEvent { now: 0, kind, in_flight, srtt: 0, min_rtt: 0, rtt: 0, from_flight: true }
    }

    /// One sample per `IncreaseWindow`: NewReno's growth whatever the backlog, and the
    /// backlog in whole segments from the smoothed RTTs.
    #[test]
    fn one_sample_per_ack_grows_as_newreno() {
        let mut v = veno();
        v.cwnd = 20.0;
        v.ssthresh = 10.0;
        v.on_ack(&ack(100, 1.0)); // BaseRTT 100 ms
        let w = 20.0 + 1.0 / 20.0;
        assert!((v.cwnd - w).abs() < 1e-12);
        // Smoothed RTT 150 ms: floor(20 x 100 / 150) = 13, backlog 7 >= beta 6, yet a
        // NewReno step: the count is 1.
        v.on_ack(&ack(150, 1.0));
        assert_eq!(v.backlog, 7.0);
        assert!((v.cwnd - (w + 1.0 / w)).abs() < 1e-12);
    }

    /// After duplicate ACKs (samples without `IncreaseWindow`) Veno's rule runs: at or
    /// above beta only every other call grows.
    #[test]
    fn after_duplicate_acks_every_other_step_above_beta() {
        let mut v = veno();
        v.cwnd = 20.0;
        v.ssthresh = 10.0;
        v.on_ack(&ack(100, 1.0));
        let w = v.cwnd;
        for _ in 0..2 {
            v.on_ack(&ack(150, 0.0)); // duplicate ACKs: CA_DISORDER
        }
        // Back in CA_OPEN: EnableVeno clears minRTT, so ns-3 divides by Time::Max():
        // backlog = segCwnd = 20 >= 6, and m_inc (true) lets this step grow.
        v.on_ack(&ack(150, 1.0));
        assert_eq!(v.backlog, 20.0);
        assert!((v.cwnd - (w + 1.0 / w)).abs() < 1e-12);
        let w = v.cwnd;
        for _ in 0..2 {
            v.on_ack(&ack(150, 0.0));
        }
        v.on_ack(&ack(150, 1.0));
        assert_eq!(v.cwnd, w, "the other step does not grow");
    }

    /// ssthresh from the flight size: 4/5 below beta, half at or above it.
    #[test]
    fn loss_reaction_from_flight() {
        let mut v = veno();
        v.cwnd = 40.0;
        v.backlog = 5.0;
        v.on_congestion(&loss(CongestionKind::Loss, 30.0));
        assert_eq!((v.cwnd, v.ssthresh), (24.0, 24.0));
        v.backlog = 6.0;
        v.on_congestion(&loss(CongestionKind::Timeout, 30.0));
        assert_eq!((v.cwnd, v.ssthresh), (1.0, 15.0));
        v.on_congestion(&loss(CongestionKind::Loss, 1.0));
        assert_eq!(v.ssthresh, 2.0, "floor");
    }
}
