//! TCP Vegas as ns-3 3.44's `TcpVegas` runs it, for the `ns3` profile (`vegas`'s
//! `variant = 1`; docs/algorithms/vegas.md). The differences from Linux's rules
//! that set its windows:
//! - its RTT input is the smoothed RTT ns-3 hands every controller (`PktsAcked(tcb,
//!   segs, m_srtt)`, on duplicate ACKs too), so BaseRTT is the smallest smoothed RTT;
//! - `diff` is in whole segments: `segCwnd - floor(segCwnd BaseRTT / minRTT)`;
//! - slow start grows on every ACK (NewReno's), and a judged round in congestion
//!   avoidance leaves ssthresh at least 3/4 of cwnd;
//! - a round is judged only with more than two samples; rounds follow `m_begSndNxt`,
//!   which restarts whenever the sender returns to ns-3's CA_OPEN (after fast
//!   recovery, a timeout's recovery or duplicate ACKs), where Vegas is switched on
//!   again; outside CA_OPEN the window grows as NewReno's;
//! - ssthresh after a loss or timeout is `max(min(ssthresh, cwnd - 1), 2)`
//!   (`TcpVegas::GetSsThresh`), not half the window.

use super::ns3_samples::Ns3Samples;
use super::vegas::Vegas;
use crate::common::newreno_ns3;
use crate::AckEvent;

/// ns-3's `TcpVegas` state besides the window: the shared samples and the round.
#[derive(Clone, Debug, Default)]
pub struct Ns3Rounds {
    s: Ns3Samples,
    /// The round ends when the cumulative ACK reaches this segment (`m_begSndNxt`; 0
    /// at first, so the first ACK closes a round of no samples).
    beg_snd_nxt: u64,
}

impl Vegas {
    /// One ACK, in the order ns-3's TcpSocketBase calls `TcpVegas`: `PktsAcked`
    /// (every ACK), the congestion state (`CongestionStateSet`), then
    /// `IncreaseWindow` (only on an ACK ns-3 grows on: `acked > 0`).
    pub(super) fn on_ack_ns3(&mut self, ev: &AckEvent) {
        let Some(mut r) = self.ns3.take() else { return };
        r.s.pkts_acked(&mut self.base_rtt, ev.srtt);
        if r.s.reopens(ev) {
            // EnableVegas: a new round from the next segment to send.
            r = Ns3Rounds { beg_snd_nxt: ev.snd_nxt, ..Ns3Rounds::default() };
        }
        if Ns3Samples::grows(ev) {
            self.increase_ns3(&mut r, ev);
        }
        self.ns3 = Some(r);
    }

    /// `TcpVegas::IncreaseWindow`.
    fn increase_ns3(&mut self, r: &mut Ns3Rounds, ev: &AckEvent) {
        if !r.s.doing {
            newreno_ns3(&mut self.cwnd, self.ssthresh, ev.acked);
            return;
        }
        if ev.snd_una < r.beg_snd_nxt {
            if self.cwnd < self.ssthresh {
                newreno_ns3(&mut self.cwnd, self.ssthresh, ev.acked);
            }
            return;
        }
        r.beg_snd_nxt = ev.snd_nxt;
        if r.s.cnt_rtt <= 2 {
            newreno_ns3(&mut self.cwnd, self.ssthresh, ev.acked);
        } else {
            let seg_cwnd = self.cwnd.max(0.0).floor();
            let target = (seg_cwnd * (self.base_rtt as f64 / 1e9) / (r.s.min_rtt as f64 / 1e9)).floor();
            let diff = seg_cwnd - target;
            self.diff = diff;
            if diff > self.gamma && self.cwnd < self.ssthresh {
                // Too fast for slow start: the window the path carried, +1 for the
                // truncation, and on into congestion avoidance.
                self.cwnd = seg_cwnd.min(target + 1.0);
                self.ssthresh = self.ssthresh_ns3();
            } else if self.cwnd < self.ssthresh {
                newreno_ns3(&mut self.cwnd, self.ssthresh, ev.acked);
            } else if diff > self.beta {
                self.cwnd = seg_cwnd - 1.0;
                self.ssthresh = self.ssthresh_ns3();
            } else if diff < self.alpha {
                self.cwnd = seg_cwnd + 1.0;
            }
            self.ssthresh = self.ssthresh.max(0.75 * self.cwnd);
        }
        r.s.clear();
    }

    /// `TcpVegas::GetSsThresh`: one segment below cwnd, never raised, at least 2.
    pub(super) fn ssthresh_ns3(&self) -> f64 {
        self.ssthresh.min(self.cwnd - 1.0).max(2.0)
    }

    /// A congestion signal takes ns-3 out of CA_OPEN: Vegas is off until it returns.
    pub(super) fn leave_open_ns3(&mut self) {
        if let Some(r) = self.ns3.as_mut() {
            r.s.doing = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CongestionEvent, CongestionKind, SubflowCc};
    use mpcc_core::Nanos;

    const MS: Nanos = 1_000_000;

    fn vegas() -> Vegas {
        Vegas::new(10.0, 2.0, 4.0, 1.0).with_ns3_rules(true)
    }

    /// An ACK of one segment with smoothed RTT `srtt_ms`, the cumulative ACK at `una`
    /// and `nxt` the next segment to send.
    fn ack(srtt_ms: f64, una: u64, nxt: u64) -> AckEvent {
        let srtt = (srtt_ms * 1e6) as Nanos;
        AckEvent { acked: 1.0, rtt: srtt, srtt, snd_una: una, snd_nxt: nxt, delivered: 1, ..Default::default() }
    }

    /// ns-3 3.44's trace of `ns3_recovery_vegas_1` (bench/ns3/dumbbell.cc --cc=Vegas
    /// --trace=0): slow start to 22 segments, then the round whose smallest smoothed
    /// RTT puts diff above gamma sets cwnd 21 and ssthresh 20 (30408 and 28960 bytes).
    #[test]
    fn slow_start_exit_as_ns3_traced_it() {
        let mut v = vegas();
        v.cwnd = 19.0;
        v.base_rtt = 100 * MS;
        // A round ending at segment 50 with three samples (smoothed RTTs 112, 110 and
        // 111 ms), each ACK growing cwnd by one (slow start).
        v.ns3 = Some(Ns3Rounds { beg_snd_nxt: 50, ..Ns3Rounds::default() });
        for (srtt, una) in [(112.0, 40), (110.0, 42), (111.0, 44)] {
            v.on_ack(&ack(srtt, una, 60));
        }
        assert_eq!(v.cwnd, 22.0);
        // The boundary ACK's own sample counts in the round it closes.
        v.on_ack(&ack(111.0, 50, 62));
        // target floor(22 x 100 / 110) = 20, diff 2 > gamma: cwnd min(22, 21).
        assert_eq!((v.diff, v.cwnd, v.ssthresh), (2.0, 21.0, 20.0));
        assert_eq!(v.ns3.as_ref().unwrap().beg_snd_nxt, 62, "the next round ends at snd_nxt");
    }

    /// In congestion avoidance a round moves cwnd by one whole segment at most, by the
    /// integer diff, and leaves ssthresh at least 3/4 of cwnd.
    #[test]
    fn congestion_avoidance_steps_by_integer_diff() {
        let round = |cwnd: f64, srtt_ms: f64| {
            let mut v = vegas();
            v.cwnd = cwnd;
            v.ssthresh = 5.0;
            v.base_rtt = 100 * MS;
            v.ns3 = Some(Ns3Rounds { beg_snd_nxt: 10, ..Ns3Rounds::default() });
            for una in [7, 8, 9] {
                v.on_ack(&ack(srtt_ms, una, 30));
            }
            assert_eq!(v.cwnd, cwnd, "no growth inside a round in congestion avoidance");
            v.on_ack(&ack(srtt_ms, 10, 30));
            v
        };
        // 20.7 segments: segCwnd 20; 20 x 100 / 104 = 19.2 -> diff 1 < alpha: 21.
        let v = round(20.7, 104.0);
        assert_eq!((v.diff, v.cwnd, v.ssthresh), (1.0, 21.0, 15.75));
        // 20 x 100 / 112 = 17.9 -> diff 3: hold (the window is not made whole).
        let v = round(20.7, 112.0);
        assert_eq!((v.diff, v.cwnd), (3.0, 20.7));
        // 20 x 100 / 130 = 15.4 -> diff 5 > beta: 19, ssthresh min(5, 18) then 3/4 x 19.
        let v = round(20.7, 130.0);
        assert_eq!((v.diff, v.cwnd, v.ssthresh), (5.0, 19.0, 14.25));
    }

    /// Two samples or fewer: NewReno's step instead, one 1/cwnd for the boundary ACK.
    #[test]
    fn too_few_samples_take_newreno_step() {
        let mut v = vegas();
        v.cwnd = 20.0;
        v.ssthresh = 5.0;
        v.base_rtt = 100 * MS;
        v.on_ack(&ack(130.0, 3, 20)); // beg_snd_nxt 0: the first ACK closes a round
        assert!((v.cwnd - 20.05).abs() < 1e-12, "{}", v.cwnd);
    }

    /// Slow start grows on every ACK (no every-other-round rule), NewReno's one
    /// segment per ACK.
    #[test]
    fn slow_start_every_ack() {
        let mut v = vegas();
        v.on_ack(&ack(100.0, 1, 11)); // closes the empty first round: NewReno
        for una in 2..=5 {
            v.on_ack(&ack(100.0, una, 11 + una));
        }
        assert_eq!(v.cwnd, 15.0);
    }

    /// A loss: ssthresh one below cwnd (not half), and Vegas off until the sender is
    /// back in CA_OPEN, where a new round starts at the next segment to send.
    #[test]
    fn loss_and_return_to_open() {
        let mut v = vegas();
        v.cwnd = 30.0;
        let ev = CongestionEvent {
            now: 0,
            kind: CongestionKind::Loss,
            in_flight: 30.0,
            srtt: 100 * MS,
            min_rtt: 100 * MS,
            rtt: 100 * MS,
            from_flight: true,
        };
        v.on_congestion(&ev);
        assert_eq!((v.cwnd, v.ssthresh), (29.0, 29.0));
        assert!(!v.ns3.as_ref().unwrap().s.doing);
        v.on_ack(&AckEvent { in_recovery: true, ..ack(120.0, 40, 70) });
        v.on_ack(&ack(120.0, 70, 75)); // recovery over: CA_OPEN again
        let r = v.ns3.as_ref().unwrap();
        assert!(r.s.doing && r.beg_snd_nxt == 75 && r.s.cnt_rtt == 0, "{r:?}");
        // A timeout: cwnd 1, ssthresh max(min(29, 29 - 1), 2) = 28.
        v.on_congestion(&CongestionEvent { kind: CongestionKind::Timeout, ..ev });
        assert_eq!((v.cwnd, v.ssthresh), (1.0, 28.0));
        // From a window of one segment the floor is 2.
        v.on_congestion(&CongestionEvent { kind: CongestionKind::Timeout, ..ev });
        assert_eq!((v.cwnd, v.ssthresh), (1.0, 2.0));
    }
}
