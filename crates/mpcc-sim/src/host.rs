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
//! Linux's paced departures (`tcp.linux_pacing`, linux): Linux paces whole TSO/GSO packets, not
//! segments. tcp_write_xmit builds each packet from what the window lets it send,
//! up to tcp_tso_autosize's size (about 1 ms at the pacing rate, at least
//! tcp_min_tso_segs = 2 segments), the device sends its segments back to back,
//! and the next packet waits its whole length at the pacing rate. So a paced
//! Linux sender at 10 Mbit/s leaves in pairs (captured on Linux 6.18: 86 % of the
//! segments of a paced Reno flow within 100 us of another, docs/host.md). Here the
//! burst is formed from the segments waiting when it starts (`Sim::flush` hands
//! a whole send round over before the NIC starts). A burst that leaves later than
//! its pacing time has the gap after it shortened by that lateness, at most by
//! half (tcp_update_skb_after_send's credit for OS jitter).
//!
//! A scheduler's pacing (`Scheduler::pacing_rate`, TSC's allocated rates): as
//! Linux's SO_MAX_PACING_RATE, it caps the rate above (the lower of the two
//! applies, `paced_rate`) and turns pacing on for the subflow whatever
//! `tcp.pacing` says, as that socket option turns on TCP's internal pacing (the
//! segment waits in the socket until its time, tcp_pacing_check in
//! tcp_write_xmit). The subflow takes a segment only when it may send it: one at
//! a time, `bytes / rate` after the previous one started (`paced_at`, checked in
//! `Flow::push`, which asks for a wake-up then while data waits). So the
//! scheduler puts a segment on a subflow only when that subflow may send it.
//! Without a NIC switch such a host has no line rate.
//!
//! Host jitter (`tcp.host_jitter`): each packet leaves the host after a processing
//! delay drawn uniformly from [0, host_jitter), in order (never before an earlier
//! packet of its subflow). A real host's softirq and scheduling delays vary by tens
//! of microseconds; without any, ACK-clocked senders reach a DropTail queue in a
//! fixed phase and one of them loses nearly every drop (Floyd and Jacobson, "On
//! Traffic Phase Effects in Packet-Switched Gateways", 1992). With jitter alone
//! the NIC serialises nothing: a packet enters its first link when its delay ends.
//!
//! Without any of these switches there is no NIC: packets enter their first link at
//! once, as before profiles existed.

use crate::packet::Packet;
use mpcc_core::{Nanos, Rng};
use std::collections::VecDeque;

/// Linux's TSQ budget: about 1 ms of data at the pacing rate (sk_pacing_shift 10).
const TSQ_NS: f64 = 1e6;
/// At least this many packets may wait (Linux: two skbs).
const TSQ_MIN_PACKETS: usize = 2;
/// At most this many bytes (Linux's tcp_limit_output_bytes, 1 MiB).
const TSQ_MAX_BYTES: f64 = 1048576.0;
/// Linux's tcp_min_tso_segs: the smallest paced burst, in segments.
const MIN_TSO_SEGS: u32 = 2;
/// The largest GSO packet (sk_gso_max_size, GSO_LEGACY_MAX_SIZE), bytes.
const GSO_MAX_BYTES: f64 = 65536.0;

pub struct Nic {
    pub queue: VecDeque<Packet>,
    /// Line rate, bit/s.
    pub rate_bps: f64,
    /// A packet is being serialised (its NicDone event is pending).
    pub busy: bool,
    /// Pacing: the earliest time the next packet may start.
    pub pace_next: Nanos,
    /// When the last packet started, and its bytes (a scheduler-paced subflow's
    /// next segment may go `bytes / rate` after it, at the rate then in force).
    pub last: (Nanos, u32),
    pub pacing: bool,
    pub backpressure: bool,
    /// The scheduler sets this subflow's pacing rate: one segment at a time.
    pub sched_paced: bool,
    /// Pacing as Linux's (`tcp.linux_pacing`): TSO-sized bursts (`tso_segments`),
    /// and how many segments of the burst under way may still leave without waiting.
    pub linux_pacing: bool,
    pub burst_left: u32,
    /// With `linux_pacing`, the headers of each packet, left out of its pacing
    /// (`timed`).
    pub header_bytes: u32,
    /// How late the burst under way started after its pacing time: Linux takes up
    /// to half of each packet's pacing gap off that (tcp_update_skb_after_send).
    pub credit: Nanos,
    /// The pacing time the burst under way waited for (None: it left when ready):
    /// its segments' departure time, which Linux stamps on each of them (EDT).
    pub departure: Option<Nanos>,
    /// The sender found the queue full: wake it when the NIC sends.
    pub blocked: bool,
    /// Packets allowed to wait (TSQ), from the latest rate.
    pub limit: usize,
    /// Host jitter: the upper bound of each packet's processing delay (0: none),
    /// its random stream, and when each queued packet may leave (FIFO).
    jitter_ns: Nanos,
    rng: Rng,
    release: VecDeque<Nanos>,
}

impl Nic {
    pub fn new(rate_bps: f64, pacing: bool, backpressure: bool, jitter_ns: Nanos, rng: Rng) -> Nic {
        Nic {
            queue: VecDeque::with_capacity(8),
            rate_bps,
            busy: false,
            pace_next: 0,
            last: (0, 0),
            pacing,
            backpressure,
            sched_paced: false,
            linux_pacing: false,
            burst_left: 0,
            header_bytes: 0,
            credit: 0,
            departure: None,
            blocked: false,
            limit: TSQ_MIN_PACKETS,
            jitter_ns,
            rng,
            release: VecDeque::new(),
        }
    }

    /// The sender hands a packet to the host at `now`.
    #[inline]
    pub fn push(&mut self, p: Packet, now: Nanos) {
        if self.jitter_ns > 0 {
            let delay = (self.rng.uniform() * self.jitter_ns as f64) as Nanos;
            let last = self.release.back().copied().unwrap_or(0);
            self.release.push_back((now + delay).max(last));
        }
        self.queue.push_back(p);
    }

    /// Takes the packet at the head of the queue.
    #[inline]
    pub fn pop(&mut self) -> Option<Packet> {
        self.release.pop_front();
        self.queue.pop_front()
    }

    /// The earliest time the head packet may start: its processing delay is over.
    #[inline]
    pub fn ready_at(&self, now: Nanos) -> Nanos {
        self.release.front().map_or(now, |&t| t.max(now))
    }

    /// Whether the NIC serialises at its line rate (pacing or backpressure); with
    /// jitter alone it only delays.
    #[inline]
    pub fn serialises(&self) -> bool {
        self.pacing || self.backpressure
    }

    /// Segments the sender may still hand to the NIC (unbounded without backpressure;
    /// one at a time when the scheduler paces the subflow).
    #[inline]
    pub fn room(&mut self) -> u64 {
        let limit = match (self.sched_paced, self.backpressure) {
            (true, _) => 1,
            (false, true) => self.limit,
            (false, false) => return u64::MAX / 4,
        };
        let room = limit.saturating_sub(self.queue.len()) as u64;
        if room == 0 {
            self.blocked = true;
        }
        room
    }

    /// A scheduler-paced subflow: when its next segment may go at `bytes_per_s`
    /// (None: no rate, at once). The gap after a segment is its length at the rate in
    /// force now, so a new rate applies at once.
    #[inline]
    pub fn paced_at(&self, bytes_per_s: Option<f64>) -> Nanos {
        let (start, bytes) = self.last;
        match bytes_per_s {
            Some(r) if bytes > 0 => start + (bytes as f64 * 1e9 / r) as Nanos,
            _ => start,
        }
    }

    /// The TSQ limit for a sending rate of `bytes_per_s` (infinite before an RTT
    /// sample) and packets of `wire` bytes.
    #[inline]
    pub fn set_rate(&mut self, bytes_per_s: f64, wire: u32) {
        let bytes = (bytes_per_s * TSQ_NS / 1e9).min(TSQ_MAX_BYTES);
        self.limit = ((bytes / wire.max(1) as f64) as usize).max(TSQ_MIN_PACKETS);
    }

    /// The bytes of a packet of `wire` bytes that its pacing counts: Linux paces the
    /// headerless skb (`skb->len` in tcp_update_skb_after_send) at a rate of payload
    /// bytes (mss x cwnd / srtt), so with `linux_pacing` the headers are left out;
    /// otherwise the whole packet, as fq paces what it dequeues.
    #[inline]
    pub fn timed(&self, wire: u32) -> u32 {
        if self.linux_pacing {
            wire.saturating_sub(self.header_bytes)
        } else {
            wire
        }
    }

    /// When the head packet (`bytes`) starts, the host having it `ready` then, at the
    /// pacing rate `rate` (bytes per second; None: none yet), and the pacing state
    /// moved on past it. Without pacing at once. A segment of the burst under way
    /// leaves at once; a new burst waits for the pacing time (the previous burst's
    /// length at the rate, less its credit) and, with `linux_pacing`, takes up to
    /// `burst(rate)` segments (`tso_segments`).
    #[inline]
    pub fn paced_start(
        &mut self, ready: Nanos, rate: Option<f64>, bytes: u32, burst: impl FnOnce(f64) -> u32,
    ) -> Nanos {
        if !self.pacing {
            return ready;
        }
        let start = if self.burst_left > 0 {
            self.burst_left -= 1;
            ready
        } else {
            let start = ready.max(self.pace_next);
            self.departure = (start > ready).then_some(start);
            if let Some(r) = rate {
                if self.linux_pacing {
                    self.start_burst(start, burst(r));
                }
                self.pace_next = start;
            }
            start
        };
        if let Some(r) = rate {
            self.pace_next += self.paced_gap(bytes, r);
        }
        start
    }

    /// A paced burst of up to `segs` segments (`tso_segments`) starts at `start`: the
    /// segments waiting now go with it, and its lateness after the pacing time is the
    /// credit its gaps may use.
    #[inline]
    fn start_burst(&mut self, start: Nanos, segs: u32) {
        self.burst_left = segs.min(self.queue.len() as u32).saturating_sub(1);
        self.credit = start.saturating_sub(self.pace_next);
    }

    /// The pacing gap after a packet of `bytes` at `bytes_per_s`: its length at the
    /// rate, less up to half of it from the burst's credit (Linux's
    /// tcp_update_skb_after_send; the credit is 0 without `linux_pacing`).
    #[inline]
    fn paced_gap(&mut self, bytes: u32, bytes_per_s: f64) -> Nanos {
        let len = (bytes as f64 * 1e9 / bytes_per_s) as Nanos;
        let credit = (len / 2).min(self.credit);
        self.credit -= credit;
        len - credit
    }

    /// Serialisation time of `bytes` at the line rate.
    #[inline]
    pub fn tx_time(&self, bytes: u32) -> Nanos {
        mpcc_core::time::ceil_ns(bytes as f64 * 8e9 / self.rate_bps)
    }
}

/// The rate a subflow is paced at, bytes per second: the transport's own (`own`: a
/// controller's, or Linux's rule) capped by the scheduler's (`cap`), the lower of
/// the two when both are set, as sk_max_pacing_rate caps sk_pacing_rate in Linux's
/// tcp_update_pacing_rate. None: neither is known.
#[inline]
pub fn paced_rate(own: Option<f64>, cap: Option<f64>) -> Option<f64> {
    match (own, cap) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The segments of one paced burst, Linux's tcp_tso_autosize: the pacing rate's
/// bytes per 1/1024 s (sk_pacing_shift 10), plus, for a minimum RTT under a few
/// milliseconds, 64 KB halved for every 512 us of it (tcp_tso_rtt_log 9), at most
/// 64 KB; in segments of `mss` bytes, at least tcp_min_tso_segs.
#[inline]
pub fn tso_segments(bytes_per_s: f64, mss: u32, min_rtt_ns: Nanos) -> u32 {
    let mut bytes = (bytes_per_s as u64 >> 10) as f64;
    let halvings = (min_rtt_ns / 1000) >> 9;
    if halvings < 32 {
        bytes += (GSO_MAX_BYTES as u64 >> halvings) as f64;
    }
    ((bytes.min(GSO_MAX_BYTES) / mss.max(1) as f64) as u32).max(MIN_TSO_SEGS)
}

/// Linux's pacing rate in bytes per second (tcp_update_pacing_rate), None before
/// an RTT sample: the ratio chosen by the window `cwnd`, applied to the larger of
/// the window and the segments `outstanding` (Linux's `max(cwnd, packets_out)`;
/// 0 leaves the window alone).
#[inline]
pub fn pacing_rate(
    cwnd: f64, outstanding: f64, ssthresh: f64, srtt: Nanos, mss: u32, ss_ratio: u32, ca_ratio: u32,
) -> Option<f64> {
    if srtt == 0 {
        return None;
    }
    let ratio = if cwnd < ssthresh / 2.0 { ss_ratio } else { ca_ratio };
    Some(cwnd.max(outstanding) * mss as f64 * 1e9 / srtt as f64 * ratio as f64 / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tso_bursts_follow_linuxs_autosize() {
        // 10 Mbit/s at 100 ms: 1220 bytes per 1/1024 s, under one segment: two.
        assert_eq!(tso_segments(1.25e6, 1448, 100_000_000), 2);
        // 1 Gbit/s at 100 ms: 122 070 bytes, capped at 64 KB: 45 segments of 1448.
        assert_eq!(tso_segments(125e6, 1448, 100_000_000), 45);
        // 100 Mbit/s: 12 207 bytes, 8 segments; at a 1 ms minimum RTT (one halving of
        // 512 us) 32 768 bytes more: 31 segments.
        assert_eq!(tso_segments(12.5e6, 1448, 100_000_000), 8);
        assert_eq!(tso_segments(12.5e6, 1448, 1_000_000), 31);
        // 2.6 ms (five halvings): 2048 more bytes; 16.4 ms (32): none.
        assert_eq!(tso_segments(12.5e6, 1448, 2_600_000), 9);
        assert_eq!(tso_segments(12.5e6, 1448, 16_400_000), 8);
    }

    #[test]
    fn a_late_burst_shortens_its_gaps_by_at_most_half() {
        let mut nic = Nic::new(1e9, true, false, 0, Rng::stream(1, 0));
        for _ in 0..3 {
            nic.queue.push_back(Packet::data(0, 0, 1000, 0));
        }
        // Due at 100 ms, leaves at 110 ms: 10 ms of credit. Two segments of 1000 bytes
        // at 100 kB/s (10 ms each) go together; each gap loses half, 5 ms.
        nic.pace_next = 100_000_000;
        nic.start_burst(110_000_000, 2);
        assert_eq!(nic.burst_left, 1);
        assert_eq!((nic.paced_gap(1000, 1e5), nic.paced_gap(1000, 1e5)), (5_000_000, 5_000_000));
        // 4 ms late: 4 ms of credit, spent on the first gap (at most 5 ms of it).
        nic.pace_next = 200_000_000;
        nic.start_burst(204_000_000, 2);
        assert_eq!((nic.paced_gap(1000, 1e5), nic.paced_gap(1000, 1e5)), (6_000_000, 10_000_000));
        // On time: no credit; a burst takes no more segments than wait.
        nic.pace_next = 300_000_000;
        nic.start_burst(300_000_000, 45);
        assert_eq!((nic.burst_left, nic.paced_gap(1000, 1e5)), (2, 10_000_000));
    }

    #[test]
    fn a_burst_that_waited_for_its_pacing_time_departs_then() {
        let mut nic = Nic::new(1e9, true, false, 0, Rng::stream(1, 0));
        nic.linux_pacing = true;
        for _ in 0..3 {
            nic.queue.push_back(Packet::data(0, 0, 1000, 0));
        }
        // A burst of two ready at 2 ms, due at 5 ms: both segments depart at 5 ms (the
        // second starts later, after the first's serialisation, and keeps the burst's time).
        nic.pace_next = 5_000_000;
        assert_eq!(nic.paced_start(2_000_000, Some(1e5), 1000, |_| 2), 5_000_000);
        assert_eq!(nic.departure, Some(5_000_000));
        assert_eq!(nic.paced_start(5_008_000, Some(1e5), 1000, |_| 2), 5_008_000);
        assert_eq!(nic.departure, Some(5_000_000));
        // Ready after its pacing time: it leaves when ready, with no departure of its own.
        assert_eq!(nic.paced_start(40_000_000, Some(1e5), 1000, |_| 2), 40_000_000);
        assert_eq!(nic.departure, None);
        // No pacing: never.
        let mut plain = Nic::new(1e9, false, true, 0, Rng::stream(1, 0));
        plain.pace_next = 5_000_000;
        assert_eq!((plain.paced_start(2_000_000, Some(1e5), 1000, |_| 2), plain.departure), (2_000_000, None));
    }

    #[test]
    fn a_paced_burst_leaves_together_and_the_next_waits_its_whole_length() {
        let starts = |linux: bool| {
            let mut nic = Nic::new(1e9, true, false, 0, Rng::stream(1, 0));
            nic.linux_pacing = linux;
            for _ in 0..3 {
                nic.queue.push_back(Packet::data(0, 0, 1000, 0));
            }
            // 1000-byte packets at 100 kB/s: 10 ms each; each asks as the one before is serialised.
            [0, 8_000, 16_000].map(|ready| nic.paced_start(ready, Some(1e5), 1000, |_| 2))
        };
        assert_eq!(starts(true), [0, 8_000, 20_000_000]);
        assert_eq!(starts(false), [0, 10_000_000, 20_000_000]);
    }

    #[test]
    fn linux_times_a_packet_by_its_payload() {
        // Linux's gap is the headerless skb at a rate of payload bytes: a 1500-byte
        // packet with 52 bytes of headers at 1448 kB/s leaves 1 ms before the next.
        let mut nic = Nic::new(1e9, true, false, 0, Rng::stream(1, 0));
        nic.header_bytes = 52;
        assert_eq!(nic.timed(1500), 1500, "without linux_pacing the whole packet");
        nic.linux_pacing = true;
        assert_eq!(nic.timed(1500), 1448);
        nic.queue.push_back(Packet::data(0, 0, 1500, 0));
        assert_eq!(nic.paced_start(0, Some(1.448e6), nic.timed(1500), |_| 1), 0);
        assert_eq!(nic.pace_next, 1_000_000);
    }

    #[test]
    fn linux_pacing_ratios() {
        // 10 segments of 1000 bytes per 100 ms = 100 kB/s: 200 % in slow start, 120 % after.
        assert_eq!(pacing_rate(10.0, 0.0, 100.0, 100_000_000, 1000, 200, 120), Some(200_000.0));
        assert_eq!(pacing_rate(10.0, 0.0, 15.0, 100_000_000, 1000, 200, 120), Some(120_000.0));
        assert_eq!(pacing_rate(10.0, 0.0, 15.0, 0, 1000, 200, 120), None);
        // In recovery more segments may be outstanding than the window: Linux paces
        // those (max(cwnd, packets_out)), the ratio still chosen by the window.
        assert_eq!(pacing_rate(10.0, 14.0, 15.0, 100_000_000, 1000, 200, 120), Some(168_000.0));
        assert_eq!(pacing_rate(10.0, 14.0, 100.0, 100_000_000, 1000, 200, 120), Some(280_000.0));
    }

    #[test]
    fn the_lower_of_the_transports_and_the_schedulers_rate_applies() {
        assert_eq!(paced_rate(Some(2e5), Some(1e5)), Some(1e5));
        assert_eq!(paced_rate(Some(1e5), Some(2e5)), Some(1e5));
        assert_eq!(paced_rate(None, Some(2e5)), Some(2e5), "before an RTT sample: the scheduler's");
        assert_eq!(paced_rate(Some(2e5), None), Some(2e5));
        assert_eq!(paced_rate(None, None), None);
        // A scheduler-paced subflow may hold one segment in the host, whatever TSQ says.
        let mut n = Nic::new(f64::INFINITY, false, false, 0, Rng::stream(1, 0));
        assert_eq!(n.room(), u64::MAX / 4, "no switch: no bound");
        n.sched_paced = true;
        assert_eq!(n.room(), 1);
        n.push(Packet::data(0, 0, 1500, 0), 0);
        assert_eq!(n.room(), 0);
        assert!(n.blocked, "woken when the segment leaves");
        assert_eq!(n.tx_time(1500), 0, "no line rate");
        // The next may go its length at the current rate after the last one started.
        n.last = (1_000_000, 1500);
        assert_eq!(n.paced_at(Some(1.5e6)), 2_000_000, "1500 B at 1.5 MB/s: 1 ms");
        assert_eq!(n.paced_at(Some(3e6)), 1_500_000, "a higher rate applies at once");
        assert_eq!(n.paced_at(None), 1_000_000);
    }

    #[test]
    fn tsq_holds_about_a_millisecond() {
        let mut n = Nic::new(1e9, false, true, 0, Rng::stream(1, 0));
        n.set_rate(125e6, 1500); // 1 Gbit/s: 1 ms is 83 packets
        assert_eq!(n.limit, 83);
        n.set_rate(f64::INFINITY, 1500); // no RTT sample yet: tcp_limit_output_bytes
        assert_eq!(n.limit, 699);
        n.set_rate(1e5, 1500);
        assert_eq!(n.limit, 2);
        assert_eq!(n.room(), 2);
        n.push(Packet::data(0, 0, 1500, 0), 0);
        n.push(Packet::data(0, 1, 1500, 0), 0);
        assert_eq!(n.room(), 0);
        assert!(n.blocked);
    }

    #[test]
    fn jitter_delays_within_its_bound_and_keeps_order() {
        // Packets 100 us apart, jitter below 50 us: independent uniform delays.
        let mut n = Nic::new(1e9, false, false, 50_000, Rng::stream(7, 0));
        assert!(!n.serialises());
        for i in 0..1000u64 {
            n.push(Packet::data(0, i, 1500, 0), i * 100_000);
        }
        let delays: Vec<_> = (0..1000).map(|i| n.release[i] - i as u64 * 100_000).collect();
        assert!(delays.iter().all(|&d| d < 50_000));
        let mean = delays.iter().sum::<u64>() as f64 / 1000.0;
        assert!((mean - 25_000.0).abs() < 2_500.0, "mean delay {mean}");
        assert!(delays.iter().any(|&d| d > 45_000) && delays.iter().any(|&d| d < 5_000));
        assert_eq!(n.ready_at(0), n.release[0]);
        assert_eq!(n.pop().map(|p| p.seq), Some(0));
        // A burst (all at once): each leaves after its delay, none before an earlier one.
        let mut n = Nic::new(1e9, false, false, 50_000, Rng::stream(8, 0));
        for i in 0..100 {
            n.push(Packet::data(0, i, 1500, 0), 0);
        }
        assert!(n.release.iter().zip(n.release.iter().skip(1)).all(|(a, b)| a <= b));
        assert!(*n.release.back().unwrap() < 50_000);
    }
}
