//! TCP Westwood+ as ns-3 3.44's `TcpWestwoodPlus` runs it, for the `ns3` profile
//! (`westwood`'s `variant = 1`; docs/algorithms/westwood.md). What differs from
//! Linux's rules:
//! - a bandwidth sample is the segments ns-3 reports acknowledged over one smoothed
//!   RTT (a timer of that length starts at the first `PktsAcked` after the previous
//!   sample; here the sample is taken at the first ACK or signal at or after its
//!   end), in segments per second;
//! - the count is ns-3's `PktsAcked` count: the segments delivered by an ACK that
//!   advances the cumulative ACK outside fast recovery, one for a duplicate or
//!   partial ACK, and at the exit from fast recovery every segment from the old to
//!   the new cumulative ACK (those already SACKed again);
//! - samples pass through ns-3's Tustin filter, `bw = 0.9 bw + 0.05 (s + s_prev)`,
//!   starting from 0 (the estimate reaches 90 % of a steady rate after about 22
//!   samples);
//! - ssthresh after a loss or timeout is `max(bw x min smoothed RTT, 2)`, 2 before
//!   any sample (no halving fallback); the minimum is of ns-3's smoothed RTTs
//!   (`tcb->m_minRtt`) and a timeout does not restart it;
//! - growth is NewReno's, per ACK.

use super::westwood::Westwood;
use crate::common::{newreno_ns3, secs};
use crate::AckEvent;
use mpcc_core::Nanos;

/// ns-3's `TcpWestwoodPlus` estimator.
#[derive(Clone, Debug, Default)]
pub struct Ns3Estimator {
    /// Segments counted since the running sample began (`m_ackedSegments`).
    acked: f64,
    /// A sample is running (`m_IsCount`), over `rtt`, ending at `end`.
    counting: bool,
    rtt: Nanos,
    end: Nanos,
    /// Filtered estimate and the last raw sample, segments per second.
    pub bw: f64,
    last_sample: f64,
    /// Smallest smoothed RTT seen (`tcb->m_minRtt`; 0: none yet).
    pub min_srtt: Nanos,
    /// The previous ACK's cumulative ACK, and whether the next ACK is the one that
    /// ended a fast recovery (the transport calls `on_recovery_exit` first; it may
    /// start the next recovery on the same ACK, where ns-3 waits for the next).
    last_una: u64,
    pub exiting: bool,
}

impl Ns3Estimator {
    /// `EstimateBW`, if the running sample's timer has expired by `now`.
    pub fn settle(&mut self, now: Nanos) {
        if !self.counting || now < self.end {
            return;
        }
        let sample = self.acked / secs(self.rtt);
        self.counting = false;
        self.acked = 0.0;
        self.bw = 0.9 * self.bw + 0.05 * (sample + self.last_sample);
        self.last_sample = sample;
    }

    /// `PktsAcked` for one ACK.
    fn note(&mut self, ev: &AckEvent) {
        let advanced = ev.snd_una > self.last_una;
        let count = if self.exiting {
            (ev.snd_una - self.last_una) as f64 // the exit from fast recovery
        } else if !advanced || ev.in_recovery {
            1.0 // a duplicate or partial ACK
        } else {
            ev.delivered as f64
        };
        self.last_una = self.last_una.max(ev.snd_una);
        self.exiting = false;
        if ev.srtt == 0 {
            return;
        }
        self.acked += count;
        if !self.counting {
            self.counting = true;
            self.rtt = ev.srtt;
            self.end = ev.now + ev.srtt;
        }
        if self.min_srtt == 0 || ev.srtt < self.min_srtt {
            self.min_srtt = ev.srtt;
        }
    }

    /// `GetSsThresh`: the estimate times the smallest smoothed RTT, at least 2.
    pub fn ssthresh(&self) -> f64 {
        (self.bw * secs(self.min_srtt)).max(2.0)
    }
}

impl Westwood {
    /// One ACK: the estimator, then NewReno's growth where ns-3 grows.
    pub(super) fn on_ack_ns3(&mut self, ev: &AckEvent) {
        let Some(est) = self.ns3.as_mut() else { return };
        est.settle(ev.now);
        est.note(ev);
        if ev.acked > 0.0 && !ev.in_recovery && !ev.app_limited {
            newreno_ns3(&mut self.cwnd, self.ssthresh, ev.acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CongestionEvent, CongestionKind, SubflowCc};

    const MS: Nanos = 1_000_000;

    fn ack(now_ms: u64, delivered: u64, una: u64, srtt_ms: u64) -> AckEvent {
        let srtt = srtt_ms * MS;
        AckEvent { now: now_ms * MS, acked: 1.0, delivered, snd_una: una, rtt: srtt, srtt, ..Default::default() }
    }

    fn loss(now_ms: u64, kind: CongestionKind) -> CongestionEvent {
        CongestionEvent { now: now_ms * MS, kind, in_flight: 0.0, srtt: 0, min_rtt: 0, rtt: 0, from_flight: true }
    }

    /// Samples over one smoothed RTT through the Tustin filter from 0: 40 segments
    /// in 100 ms (400 segments/s) gives 20, then 80 in 100 ms gives 0.9 x 20 + 0.05 x
    /// (800 + 400) = 78; ssthresh is that times the smallest smoothed RTT.
    #[test]
    fn tustin_filter_from_zero() {
        let mut w = Westwood::new(10.0).with_ns3_rules(true);
        w.on_ack(&ack(0, 2, 2, 100)); // starts a sample ending at 100 ms
        for i in 1..20 {
            w.on_ack(&ack(5 * i, 2, 2 + 2 * i, 100));
        }
        w.on_ack(&ack(100, 4, 44, 100)); // the timer has fired: 40 segments, then a new sample
        let est = w.ns3.as_ref().unwrap();
        assert!((est.bw - 20.0).abs() < 1e-9, "{}", est.bw);
        for i in 1..20 {
            w.on_ack(&ack(100 + 5 * i, 4, 44 + 4 * i, 100));
        }
        w.on_congestion(&loss(200, CongestionKind::Loss)); // settles the second sample
        let est = w.ns3.as_ref().unwrap();
        assert!((est.bw - 78.0).abs() < 1e-9, "{}", est.bw);
        assert!((w.ssthresh - 7.8).abs() < 1e-9 && w.cwnd == w.ssthresh);
        w.on_congestion(&loss(200, CongestionKind::Timeout));
        assert_eq!(w.cwnd, 1.0);
    }

    /// Before any sample ssthresh is 2 (no halving fallback).
    #[test]
    fn no_estimate_gives_two() {
        let mut w = Westwood::new(10.0).with_ns3_rules(true);
        w.on_ack(&ack(0, 1, 1, 100));
        w.on_congestion(&loss(50, CongestionKind::Loss));
        assert_eq!((w.cwnd, w.ssthresh), (2.0, 2.0));
    }

    /// ns-3's count: one for a duplicate or partial ACK, and at the exit from fast
    /// recovery every segment the cumulative ACK passes, SACKed ones included.
    #[test]
    fn recovery_counts_as_ns3() {
        let mut e = Ns3Estimator::default();
        e.note(&ack(0, 1, 10, 100));
        e.note(&AckEvent { in_recovery: true, ..ack(1, 3, 10, 100) }); // duplicate: 1
        e.note(&AckEvent { in_recovery: true, ..ack(2, 1, 11, 100) }); // partial: 1
        e.exiting = true; // the transport's on_recovery_exit
        e.note(&AckEvent { in_recovery: true, ..ack(3, 1, 30, 100) }); // the exit (and a new recovery): 19
        assert_eq!(e.acked, 1.0 + 1.0 + 1.0 + 19.0);
    }
}
