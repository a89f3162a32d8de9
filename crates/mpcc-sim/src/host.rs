//! The sending host's network interface, when the profile models one
//! (`nic_backpressure`, or `pacing`): each subflow's packets leave through a local
//! queue at the NIC's line rate, and that queue never drops. Like Linux's TCP Small
//! Queues (tcp_small_queue_check in tcp_output.c), a subflow may hold only about a
//! millisecond of data (at least two packets) there; a full local queue holds the
//! sender back until the NIC sends, instead of the sender dropping its own bursts
//! into the first link's queue.
//!
//! Pacing (`tcp.pacing`): the queue also releases the subflow's packets no faster
//! than its pacing rate, as the fq qdisc does with the socket's sk_pacing_rate:
//! cwnd x MSS / SRTT times `pacing_ss_ratio` % while cwnd < ssthresh / 2, else
//! times `pacing_ca_ratio` % (Linux's tcp_update_pacing_rate), or the rate the
//! controller asks for (`CongestionControl::pacing_rate`). No pacing before the
//! first RTT sample.
//!
//! Without either switch there is no NIC: packets enter their first link at once,
//! as before profiles existed.

use crate::packet::Packet;
use mpcc_core::Nanos;
use std::collections::VecDeque;

/// Linux's TSQ budget: about 1 ms of data at the pacing rate (sk_pacing_shift 10).
const TSQ_NS: f64 = 1e6;
/// At least this many packets may wait (Linux: two skbs).
const TSQ_MIN_PACKETS: usize = 2;
/// At most this many bytes (Linux's tcp_limit_output_bytes, 1 MiB).
const TSQ_MAX_BYTES: f64 = 1048576.0;

pub struct Nic {
    pub queue: VecDeque<Packet>,
    /// Line rate, bit/s.
    pub rate_bps: f64,
    /// A packet is being serialised (its NicDone event is pending).
    pub busy: bool,
    /// Pacing: the earliest time the next packet may start.
    pub pace_next: Nanos,
    pub pacing: bool,
    pub backpressure: bool,
    /// The sender found the queue full: wake it when the NIC sends.
    pub blocked: bool,
    /// Packets allowed to wait (TSQ), from the latest rate.
    pub limit: usize,
}

impl Nic {
    pub fn new(rate_bps: f64, pacing: bool, backpressure: bool) -> Nic {
        Nic {
            queue: VecDeque::with_capacity(8),
            rate_bps,
            busy: false,
            pace_next: 0,
            pacing,
            backpressure,
            blocked: false,
            limit: TSQ_MIN_PACKETS,
        }
    }

    /// Segments the sender may still hand to the NIC (unbounded without backpressure).
    #[inline]
    pub fn room(&mut self) -> u64 {
        if !self.backpressure {
            return u64::MAX / 4;
        }
        let room = self.limit.saturating_sub(self.queue.len()) as u64;
        if room == 0 {
            self.blocked = true;
        }
        room
    }

    /// The TSQ limit for a sending rate of `bytes_per_s` (infinite before an RTT
    /// sample) and packets of `wire` bytes.
    #[inline]
    pub fn set_rate(&mut self, bytes_per_s: f64, wire: u32) {
        let bytes = (bytes_per_s * TSQ_NS / 1e9).min(TSQ_MAX_BYTES);
        self.limit = ((bytes / wire.max(1) as f64) as usize).max(TSQ_MIN_PACKETS);
    }

    /// Serialisation time of `bytes` at the line rate.
    #[inline]
    pub fn tx_time(&self, bytes: u32) -> Nanos {
        (bytes as f64 * 8e9 / self.rate_bps).ceil() as Nanos
    }
}

/// Linux's pacing rate in bytes per second (tcp_update_pacing_rate), None before
/// an RTT sample.
#[inline]
pub fn pacing_rate(cwnd: f64, ssthresh: f64, srtt: Nanos, mss: u32, ss_ratio: u32, ca_ratio: u32) -> Option<f64> {
    if srtt == 0 {
        return None;
    }
    let ratio = if cwnd < ssthresh / 2.0 { ss_ratio } else { ca_ratio };
    Some(cwnd * mss as f64 * 1e9 / srtt as f64 * ratio as f64 / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_pacing_ratios() {
        // 10 segments of 1000 bytes per 100 ms = 100 kB/s: 200 % in slow start, 120 % after.
        assert_eq!(pacing_rate(10.0, 100.0, 100_000_000, 1000, 200, 120), Some(200_000.0));
        assert_eq!(pacing_rate(10.0, 15.0, 100_000_000, 1000, 200, 120), Some(120_000.0));
        assert_eq!(pacing_rate(10.0, 15.0, 0, 1000, 200, 120), None);
    }

    #[test]
    fn tsq_holds_about_a_millisecond() {
        let mut n = Nic::new(1e9, false, true);
        n.set_rate(125e6, 1500); // 1 Gbit/s: 1 ms is 83 packets
        assert_eq!(n.limit, 83);
        n.set_rate(f64::INFINITY, 1500); // no RTT sample yet: tcp_limit_output_bytes
        assert_eq!(n.limit, 699);
        n.set_rate(1e5, 1500);
        assert_eq!(n.limit, 2);
        assert_eq!(n.room(), 2);
        n.queue.extend([Packet::data(0, 0, 1500, 0); 2]);
        assert_eq!(n.room(), 0);
        assert!(n.blocked);
    }
}
