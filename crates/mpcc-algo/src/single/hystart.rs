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
    /// Slow start has been ended (until the controller's next reset).
    pub found: bool,
    /// A round is being measured.
    in_round: bool,
    round_start: Nanos,
    last_ack: Nanos,
    /// Smallest RTT sample of the round so far.
    curr_rtt: Nanos,
    samples: u32,
    /// Smallest RTT sample since the last reset.
    delay_min: Nanos,
}

impl HyStart {
    /// Forgets everything (at a timeout, as Linux's `bictcp_reset`).
    pub fn reset(&mut self) {
        *self = HyStart::default();
    }

    /// Looks at one ACK in slow start; true when slow start should end now.
    pub fn on_ack(&mut self, ev: &AckEvent, cwnd: f64) -> bool {
        if self.found || ev.rtt == 0 {
            return false;
        }
        let delay = ev.rtt;
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
            let threshold = (self.delay_min + ACK_DELAY) / 2;
            if ev.now - self.round_start > threshold {
                self.found = true;
            }
        }
        self.curr_rtt = self.curr_rtt.min(delay);
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else if self.curr_rtt > self.delay_min + (self.delay_min / 8).clamp(4 * NS_PER_MS, 16 * NS_PER_MS) {
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
