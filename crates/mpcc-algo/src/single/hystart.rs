//! HyStart: leaving slow start before the queue overflows (S. Ha and I. Rhee,
//! "Taming the elephants: New TCP slow start", Computer Networks 55(9), 2011), as
//! Linux's CUBIC runs it by default (docs/algorithms/cubic.md, "HyStart").
//!
//! Two detectors run while cwnd is at least 16 segments and below ssthresh; either
//! ends slow start by setting ssthresh to cwnd:
//! - **ACK train**: ACKs arriving at most 2 ms apart from the start of the round
//!   for longer than half the minimum delay (plus Linux's 1 ms allowance for
//!   segmentation offload, the bound it reaches below about 2 Gbit/s): the
//!   window already covers the path's bandwidth-delay product.
//! - **Delay increase**: the smallest of the round's first 8 RTT samples exceeds
//!   the minimum delay by clamp(min delay / 8, 4 ms, 16 ms): a queue is building.
//!
//! ns-3 3.44's `TcpCubic` (`HystartUpdate`, `HystartDelayThresh`; [`HyStart::ns3`])
//! runs the same two detectors with other thresholds: the ACK train must last the
//! whole minimum delay, and the delay detector waits for clamp(min delay, 4 ms,
//! 1 s) of added delay, i.e. until the round trip has about doubled. Its delays are
//! the smoothed RTT, not the ACK's sample: `TcpSocketBase` passes `m_srtt` to
//! `PktsAcked`.

use crate::AckEvent;
use mpcc_core::{Nanos, NS_PER_MS};

/// cwnd (segments) below which HyStart does not look.
pub const LOW_WINDOW: f64 = 16.0;
/// RTT samples of a round before the delay detector decides.
pub const MIN_SAMPLES: u32 = 8;
/// Largest gap between two ACKs of one train.
pub const ACK_DELTA: Nanos = 2 * NS_PER_MS;
/// Linux's allowance for ACKs delayed by segmentation offload (`hystart_ack_delay`).
pub const ACK_DELAY: Nanos = NS_PER_MS;

#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// ns-3's thresholds instead of Linux's (module documentation).
    pub ns3: bool,
    /// Slow start has been ended (until the controller's next reset).
    pub found: bool,
    /// A round is being measured.
    in_round: bool,
    round_start: Nanos,
    last_ack: Nanos,
    /// Smallest RTT sample of the round so far (ns-3: smoothed RTT).
    curr_rtt: Nanos,
    samples: u32,
    /// Smallest RTT sample since the last reset.
    delay_min: Nanos,
}

impl HyStart {
    /// HyStart with ns-3's thresholds.
    pub fn ns3() -> HyStart {
        HyStart { ns3: true, ..HyStart::default() }
    }

    /// Forgets everything but which thresholds (at a timeout, as Linux's
    /// `bictcp_reset` and ns-3's `CubicReset` in `CA_LOSS`).
    pub fn reset(&mut self) {
        *self = HyStart { ns3: self.ns3, ..HyStart::default() };
    }

    /// Looks at one ACK in slow start; true when slow start should end now.
    pub fn on_ack(&mut self, ev: &AckEvent, cwnd: f64) -> bool {
        if self.found || ev.rtt == 0 || (self.ns3 && ev.srtt == 0) {
            return false;
        }
        let delay = if self.ns3 { ev.srtt } else { ev.rtt };
        if self.delay_min == 0 || delay < self.delay_min {
            self.delay_min = delay;
        }
        if cwnd < LOW_WINDOW {
            return false;
        }
        if !self.in_round || ev.round_start {
            self.in_round = true;
            self.round_start = ev.now;
            self.last_ack = ev.now;
            self.curr_rtt = Nanos::MAX;
            self.samples = 0;
        }
        if ev.now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = ev.now;
            let threshold = if self.ns3 { self.delay_min } else { (self.delay_min + ACK_DELAY) / 2 };
            if ev.now - self.round_start > threshold {
                self.found = true;
            }
        }
        self.curr_rtt = self.curr_rtt.min(delay);
        let added = if self.ns3 {
            self.delay_min.clamp(4 * NS_PER_MS, 1000 * NS_PER_MS)
        } else {
            (self.delay_min / 8).clamp(4 * NS_PER_MS, 16 * NS_PER_MS)
        };
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else if self.curr_rtt > self.delay_min + added {
            self.found = true;
        }
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now_ms: f64, rtt_ms: f64, round_start: bool) -> AckEvent {
        AckEvent {
            now: (now_ms * 1e6) as Nanos,
            acked: 1.0,
            rtt: (rtt_ms * 1e6) as Nanos,
            round_start,
            ..Default::default()
        }
    }

    /// Delay detector: minimum delay 100 ms, threshold 100 + clamp(12.5, 4, 16) =
    /// 112.5 ms. ACKs 5 ms apart (no train). A round whose first 8 samples stay
    /// at or below 112 ms goes on; one whose samples are all 113 ms ends slow
    /// start at its 9th ACK.
    #[test]
    fn delay_increase_ends_slow_start_at_the_threshold() {
        let mut h = HyStart::default();
        assert!(!h.on_ack(&ack(0.0, 100.0, true), 20.0));
        for i in 1..20 {
            assert!(!h.on_ack(&ack(5.0 * i as f64, 112.0, false), 20.0), "ack {i}");
        }
        let mut h = HyStart::default();
        h.on_ack(&ack(0.0, 100.0, false), 10.0); // below the low window: only delay_min
        let ends: Vec<bool> = (0..10).map(|i| h.on_ack(&ack(1000.0 + 5.0 * i as f64, 113.0, i == 0), 20.0)).collect();
        assert_eq!(ends.iter().position(|&e| e), Some(8));
    }

    /// ns-3's thresholds: minimum delay 100 ms; the delay detector waits for
    /// 100 + clamp(100, 4, 1000) = 200 ms, the ACK train for the whole 100 ms. Its
    /// delay is the smoothed RTT (`PktsAcked` gets `m_srtt`), not the ACK's sample.
    #[test]
    fn ns3_thresholds_wait_for_a_doubled_delay_and_a_whole_train() {
        let smoothed = |now_ms: f64, srtt_ms: f64, round_start: bool| AckEvent {
            srtt: (srtt_ms * 1e6) as Nanos,
            ..ack(now_ms, srtt_ms, round_start)
        };
        let mut h = HyStart::ns3();
        h.on_ack(&smoothed(0.0, 100.0, true), 20.0);
        for i in 1..20 {
            assert!(!h.on_ack(&smoothed(5.0 * i as f64, 199.0, false), 20.0), "ack {i}");
        }
        let mut h = HyStart::ns3();
        h.on_ack(&smoothed(0.0, 100.0, false), 10.0);
        let ends: Vec<bool> =
            (0..10).map(|i| h.on_ack(&smoothed(1000.0 + 5.0 * i as f64, 201.0, i == 0), 20.0)).collect();
        assert_eq!(ends.iter().position(|&e| e), Some(8));
        // Samples of 300 ms with a smoothed RTT still at 150 ms: no end.
        let mut h = HyStart::ns3();
        h.on_ack(&smoothed(0.0, 100.0, false), 10.0);
        for i in 0..20 {
            let ev = AckEvent { rtt: 300 * NS_PER_MS, ..smoothed(1000.0 + 5.0 * i as f64, 150.0, i == 0) };
            assert!(!h.on_ack(&ev, 20.0), "ack {i}");
        }
        let mut h = HyStart::ns3();
        let ended = (0..200).position(|i| h.on_ack(&smoothed(i as f64, 100.0, i == 0), 32.0));
        assert_eq!(ended, Some(101), "Linux's train would end at 51");
        h.reset();
        assert!(h.ns3 && !h.found);
    }

    /// ACK train: minimum delay 80 ms, threshold (80 + 1) / 2 = 40.5 ms. ACKs 1 ms
    /// apart end slow start at the first one more than 40.5 ms after the round began;
    /// a gap of more than 2 ms breaks the train.
    #[test]
    fn ack_train_ends_slow_start_after_half_the_minimum_delay() {
        let mut h = HyStart::default();
        let mut ended = None;
        for i in 0..60 {
            if h.on_ack(&ack(i as f64, 80.0, i == 0), 32.0) {
                ended = Some(i);
                break;
            }
        }
        assert_eq!(ended, Some(41));
        let mut h = HyStart::default();
        h.on_ack(&ack(0.0, 80.0, true), 32.0);
        assert!(!h.on_ack(&ack(3.0, 80.0, false), 32.0)); // 3 ms gap: the train is broken
        assert!(!h.on_ack(&ack(45.0, 80.0, false), 32.0));
        assert!(!h.found);
    }
}
